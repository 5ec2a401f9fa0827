#!/usr/bin/env python3
"""The pipeline benchmark (pycore/bench/pipelines.py) in one process: pycore's browser transport in
Pyodide on Dawn (Node, scripts/dawn.mjs) on whatever adapter Dawn finds, with TF.js's WebGPU backend
and jax-js (eager and jitted) doing the same work beside it, a raw-JS transfer floor and a copy
kernel's bandwidth on pycore's device.

Eight pipelines written as a user writes them (a dense layer, column standardization of a 25 MB
table, a k-means step, a blur + clip chain over 8 images of 512 x 512, attention over 8 x 8 heads of
512 tokens and over 8 heads of 4096 tokens, a layer-norm + GELU MLP block, a softmax cross-entropy
loss), each timed resident (inputs on the GPU, chains of COUNT runs, the last result read back) and
round trip (host arrays in, host result out), every library's result checked against float64 NumPy.

    python3 scripts/pipeline_bench.py [--small] [--count N] [--repeats N] [--only a,b] [--out FILE.json]

`--small` runs the small sizes, for CPU adapters (lavapipe): plumbing and correctness, not speed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SNIPPET = '''
from pycore.bench.pipelines import format_pipelines, run_pipelines_async
r = await run_pipelines_async(small=SMALL, names=NAMES, count=COUNT, repeats=REPEATS)
r["table"] = format_pipelines(r)
r
'''


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="small sizes, for CPU adapters")
    parser.add_argument("--count", type=int, default=None, help="runs per resident chain (10; small 2)")
    parser.add_argument("--repeats", type=int, default=None, help="timed chains and round trips (5; small 1)")
    parser.add_argument("--only", default=None, help="comma-separated pipeline names")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    from tests.harness import Dawn

    count = args.count or (2 if args.small else 10)
    repeats = args.repeats or (1 if args.small else 5)
    names = tuple(args.only.split(",")) if args.only else None
    worker = Dawn()
    info = worker.ready()
    if info.get("backend", "webgpu") != "webgpu" or info.get("transport") == "none":
        print(f"no WebGPU adapter: {info.get('reason')}", file=sys.stderr)
        worker.close()
        return 1
    try:
        result = worker.py(f"SMALL = {args.small}\nNAMES = {names!r}\nCOUNT = {count}\nREPEATS = {repeats}\n"
                           + SNIPPET)
    finally:
        worker.close()
    print(result.pop("table"))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
