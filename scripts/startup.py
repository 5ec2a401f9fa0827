#!/usr/bin/env python3
"""Time to a usable page: pycore's console page against a bare Pyodide + NumPy page
(web/bench/bare.html), both from serve.py, in one headless Chromium, on a first visit (a new
profile) and on later visits (the same profile, reopened). Prints the medians and the ratios.

    python3 scripts/startup.py              # 3 rounds
    python3 scripts/startup.py --rounds 5 --json startup.json

Ready means: pycoreReady resolved (boot finished, the console answers) for pycore's page; NumPy
imported for the bare page. Times are from navigation start, measured by the page itself.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.harness import CHROMIUM, CHROMIUM_ARGS, Server

PAGES = {
    "bare": ("/bench/bare.html", "() => bareReady"),
    "pycore": ("/?calibrate=manual", "() => pycoreReady.then(() => performance.now())"),
}


def visit(pw, profile: str, url: str, ready: str) -> float:
    context = pw.chromium.launch_persistent_context(
        profile, executable_path=CHROMIUM, headless=True, args=[*CHROMIUM_ARGS, "--enable-unsafe-webgpu"])
    try:
        page = context.new_page()
        page.set_default_timeout(180_000)
        page.goto(url)
        return float(page.evaluate(ready))
    finally:
        context.close()


def wait_for_bytecode(url: str, timeout: float = 180.0) -> bool:
    """Wait until serve.py has compiled the wheel's modules (it does so in the background when it
    starts), so that every visit measured finds them, as a page opened a few seconds after
    `serve.py` starts does. False if it has none (no Node) by the timeout."""
    import time
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with urllib.request.urlopen(url + "/pycore-wheel.json") as res:
            if "bytecode" in json.loads(res.read()):
                return True
        time.sleep(0.5)
    print("startup.py: serve.py has no compiled bytecode for the wheel; measuring without it",
          file=sys.stderr)
    return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--later", type=int, default=2, help="later visits per round")
    parser.add_argument("--json", help="write the measurements here")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.later < 1:
        parser.error(f"--rounds and --later must be at least 1, got {args.rounds} and {args.later}")
    from playwright.sync_api import sync_playwright

    server = Server()
    bytecode = wait_for_bytecode(server.url)
    times: dict[str, dict[str, list[float]]] = {name: {"first": [], "later": []} for name in PAGES}
    try:
        with sync_playwright() as pw:
            for _ in range(args.rounds):
                for name, (path, ready) in PAGES.items():
                    with tempfile.TemporaryDirectory(prefix="pycore-startup-") as profile:
                        times[name]["first"].append(visit(pw, profile, server.url + path, ready))
                        for _ in range(args.later):
                            times[name]["later"].append(visit(pw, profile, server.url + path, ready))
    finally:
        server.stop()
    med = {name: {k: statistics.median(v) for k, v in t.items()} for name, t in times.items()}
    print(f"{'':8} {'first visit':>12} {'later visits':>13}   (median ms, {args.rounds} rounds)")
    for name in PAGES:
        print(f"{name:8} {med[name]['first']:12.0f} {med[name]['later']:13.0f}")
    first = med["pycore"]["first"] / med["bare"]["first"]
    later = med["pycore"]["later"] / med["bare"]["first"]
    print(f"pycore first visit / bare first visit: {first:.2f}  (target <= 1.05)")
    print(f"pycore later visit / bare first visit: {later:.2f}  (target <= 0.5)")
    if args.json:
        Path(args.json).write_text(json.dumps({"ms": times, "median_ms": med, "ratios": {
            "first": round(first, 3), "later": round(later, 3)}, "bytecode": bytecode}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
