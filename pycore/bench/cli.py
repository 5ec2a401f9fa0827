"""The command line: `python3 -m pycore.bench [--native] [--quick] [--out FILE]` runs the sweep in
this process and writes the JSON and the table (scripts/bench.py runs it in a browser)."""

from __future__ import annotations

import sys
from typing import Any

from pycore.bench.harness import run_async
from pycore.bench.report import format_report
from pycore.engine.runtime import RUNTIME


# -- the command line: `python3 -m pycore.bench --native` (scripts/bench.py shares these options)
def add_arguments(ap: Any) -> None:
    """The sweep's options, shared by this module's command line and scripts/bench.py."""
    ap.add_argument("--out", default="bench-results.json", help="where to write the JSON")
    ap.add_argument("--quick", action="store_true", help="a few functions at two sizes")
    ap.add_argument("--ops", help="comma-separated function names of pycore's namespace, with keyword "
                                  "arguments where they matter: add,exp,sum(axis=0),sort,matmul "
                                  "(default: pycore/bench/functions.py's DEFAULT)")
    ap.add_argument("--sizes", help="comma-separated element counts (default 1K,10K,100K,1M,4M)")
    ap.add_argument("--matrix-sizes", help="comma-separated matrix sizes (default 64..1024)")
    ap.add_argument("--repeats", type=int, default=5, help="timed runs per cell (median; default 5)")


def split_names(text: str) -> tuple[str, ...]:
    """Comma-separated function names, each with its keyword arguments (commas inside parentheses
    are the arguments').

    >>> split_names("add, sum(axis=0, keepdims=True),sort")
    ('add', 'sum(axis=0, keepdims=True)', 'sort')
    """
    import re

    return tuple(name.strip() for name in re.split(r",(?![^()]*\))", text) if name.strip())


def call_kwargs(args: Any) -> dict[str, Any]:
    """run_async's keyword arguments from parsed add_arguments options."""
    def ints(option: str, text: str) -> tuple[int, ...]:
        try:
            return tuple(int(x.replace("_", "")) for x in text.split(",") if x.strip())
        except ValueError:
            raise ValueError(f"bench: {option} must be comma-separated integers, got {text!r}") from None

    call: dict[str, Any] = {"repeats": args.repeats, "quick": args.quick}
    if args.ops:
        call["ops"] = split_names(args.ops)
    if args.sizes:
        call["sizes"] = ints("--sizes", args.sizes)
    if args.matrix_sizes is not None:
        call["matrix_sizes"] = ints("--matrix-sizes", args.matrix_sizes)
    return call


def write_result(result: dict[str, Any], out: str) -> None:
    """Write the JSON to `out` and print the table."""
    import json
    from pathlib import Path

    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1) + "\n")
    print(format_report(result))
    print(f"\nwrote {path}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run the sweep in this Python process (natively: wgpu-py, or NumPy alone)."""
    import argparse
    import asyncio

    ap = argparse.ArgumentParser(prog="python3 -m pycore.bench",
                                 description="pycore's benchmarks in this process (see scripts/bench.py "
                                             "for the browser)")
    add_arguments(ap)
    ap.add_argument("--native", action="store_true",
                    help="insist on the native WebGPU transport (wgpu-py); fail if it is unavailable")
    args = ap.parse_args(argv)

    try:
        kwargs = call_kwargs(args)
    except ValueError as exc:
        ap.error(str(exc))

    async def go() -> dict[str, Any]:
        await RUNTIME.init_async("native" if args.native else None)
        if args.native and RUNTIME.transport != "native":
            raise SystemExit(f"pycore.bench: no native WebGPU: {RUNTIME.reason}")
        return await run_async(**kwargs)

    write_result(asyncio.run(go()), args.out)
    return 0
