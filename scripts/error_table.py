#!/usr/bin/env python3
"""Measure the worst-case error of every op against float64, on WebGPU and on the NumPy path, in
headless Chromium (the cases and tolerances of tests/reference.py), and print a Markdown table.

    python3 scripts/error_table.py [--write-readme]

--write-readme replaces the table between the `errors` markers in README.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pycore.tables.ops import OPS
from scripts.readme import replace_section
from tests.harness import Server, boot, launch
from tests.reference import REFERENCES, case_ids

TOLERANCE_TEXT = {"exact": "exact", "onnx": "1e-3 abs or 1e-5 rel", "sum": "(log2 L + 16)·eps·Σ abs(x)",
                  "seq": "L·eps·Σ abs(terms)"}


def measure() -> dict[str, dict[str, dict[str, float]]]:
    from playwright.sync_api import sync_playwright

    worst: dict[str, dict[str, dict[str, float]]] = {}
    server = Server()
    try:
        with sync_playwright() as pw:
            for backend, webgpu in (("webgpu", True), ("numpy", False)):
                browser = launch(pw, webgpu=webgpu)
                page = boot(browser, server.url + "/")
                page.load_reference()
                for case_id in case_ids():
                    r = page.run_case(case_id, backend="gpu" if webgpu else "auto")
                    if not r["ok"]:
                        print(f"FAIL {backend} {case_id}: {r['problems']}", file=sys.stderr)
                    op = case_id.split(":")[0]
                    w = worst.setdefault(op, {}).setdefault(backend, {"abs": 0.0, "rel": 0.0, "used": 0.0,
                                                                      "fails": 0})
                    for key, got in (("abs", r["max_abs"]), ("rel", r["max_rel"]), ("used", r["used"])):
                        w[key] = max(w[key], got)
                    w["fails"] += not r["ok"]
                browser.close()
    finally:
        server.stop()
    return worst


def table(worst: dict) -> str:
    lines = ["| op | tolerance | WebGPU: max abs | max rel | tolerance used | NumPy path: max abs | max rel "
             "| tolerance used |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for op in OPS:
        fails = " (FAILED)" if worst[op]["webgpu"]["fails"] or worst[op]["numpy"]["fails"] else ""
        cells = [f"{w['abs']:.3g} | {w['rel']:.3g} | {w['used']:.2g}"
                 for w in (worst[op]["webgpu"], worst[op]["numpy"])]
        lines.append(f"| {op}{fails} | {TOLERANCE_TEXT[REFERENCES[op][1]]} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write-readme", action="store_true")
    args = ap.parse_args()
    worst = measure()
    text = table(worst)
    print(text)
    if args.write_readme:
        replace_section("errors", text)
    return 1 if any(w["fails"] for per in worst.values() for w in per.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
