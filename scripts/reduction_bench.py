#!/usr/bin/env python3
"""Reductions and `pow` against a copy kernel, from GPU timestamps with many dispatches a pass.

Dawn's timestamps move in steps of about 1.3 µs a dispatch when a pass holds 20 dispatches: 5–6%
of a reduction of 16M float32 elements (21–25 µs on an H200). This script times each kernel with
`--reps` dispatches a pass (200: steps of about 0.3 µs), `--rounds` rounds each starting with a
different kernel, and prints each kernel's share of the copy's bandwidth (bytes read and written:
a reduction reads its input once, `pow` reads two and writes one), best and median, for sum, max,
min, mean, argmax and argmin along rows, along columns, over both axes and over a 1-D array of the
same elements, and `pow` with positive bases and with half of them negative. Every timed plan's
result is checked against NumPy first (the reductions against float64, the arg reductions'
indices equal; `pow` against NumPy's float32 `power`, NaN where it is NaN): the largest difference
over the largest finite reference value.

    python3 scripts/reduction_bench.py [--native] [--sides 4096,8192] [--reps 200] [--rounds 7]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SNIPPET = r'''
import json, time
import numpy as np
import pycore
from pycore.array.layout import Layout
from pycore.engine.executor import facts, run_plans_async, time_plan_async
from pycore.kernels.elementwise import Operand, plan_elementwise
from pycore.kernels.reduction import Combine, plan_reduction
from pycore.tables.ufuncs import REDUCTIONS

async def reduction_bench(sides, reps, rounds):
    dev = pycore.engine.runtime.RUNTIME.device
    f = facts(dev)
    f32 = np.dtype(np.float32)
    rng = np.random.default_rng(0)
    out = {"adapter": pycore.info().get("adapter"), "reps": reps, "rounds": rounds, "sides": {}}
    for side in sides:
        host = (rng.standard_normal((side, side)) * 3).astype(np.float32)
        exponents = (rng.standard_normal((side, side)) * 3).astype(np.float32)
        a = await pycore.to_gpu_async(host)
        positive = await pycore.to_gpu_async(np.abs(host))
        y = await pycore.to_gpu_async(exponents)
        x = Operand(f32, a.layout)
        cases = {"copy": (plan_elementwise("bench", "copy_f32", [x], f32, f32, a.shape, f), [a], host, 2)}
        pow_plan = plan_elementwise("bench", "pow_f32", [x, x], f32, f32, a.shape, f)
        with np.errstate(all="ignore"):
            cases["pow, positive bases"] = (pow_plan, [positive, y], np.power(np.abs(host), exponents), 3)
            cases["pow, half negative"] = (pow_plan, [a, y], np.power(host, exponents), 3)
        wide = host.astype(np.float64)
        for name in ("sum", "max", "min", "mean", "argmax", "argmin"):
            r = REDUCTIONS[name]
            acc = r.acc_dtype(f32)
            c = Combine(r.function, acc, r.identity(acc), arg=r.arg, finish=r.finish)
            ref = getattr(np, name)
            for label, layout, axes, want in (
                ("rows", a.layout, (1,), ref(wide, axis=1)),
                ("columns", a.layout, (0,), ref(wide, axis=0)),
                ("both axes", a.layout, (0, 1), ref(wide)),
                ("1-D", Layout.contiguous((side * side,)), (0,), ref(wide.ravel())),
            ):
                plan = plan_reduction(c, layout, axes, f32, f, r.result_dtype(f32), name)
                cases[f"{name} {label}"] = (plan, [a], want, 1)
        errors = {}
        for key, (plan, inputs, want, _) in cases.items():
            bound = [g.binding() + (g.checks,) for g in inputs]
            got, _, _ = await run_plans_async(dev, "check", [(plan, bound)], False)
            got = np.asarray(got).reshape(np.shape(want))
            if key.startswith("arg"):
                errors[key] = 0.0 if np.array_equal(got, want) else 1.0
            else:
                both = np.isfinite(want)
                scale = max(float(np.max(np.abs(want[both]))), 1e-30) if both.any() else 1.0
                same_specials = bool(np.array_equal(np.isnan(got), np.isnan(want)))
                errors[key] = (float(np.max(np.abs(got[both] - want[both]))) / scale if both.any() else 0.0
                               ) if same_specials else 1.0
        if await time_plan_async(dev, cases["copy"][0], [a.binding()], reps=1) is None:
            return json.dumps({**out, "no_timestamps": True, "errors": errors})
        start = time.perf_counter()
        while time.perf_counter() - start < 0.5:  # (the GPU's clocks up first)
            await time_plan_async(dev, cases["copy"][0], [a.binding()], reps=reps)
        times = {k: [] for k in cases}
        keys = list(cases)
        for i in range(rounds):
            for key in keys[i % len(keys):] + keys[:i % len(keys)]:
                plan, inputs, _, _ = cases[key]
                times[key].append(await time_plan_async(dev, plan, [g.binding() for g in inputs], reps=reps))
        out["sides"][str(side)] = {
            k: {"best_ms": min(v), "median_ms": sorted(v)[len(v) // 2], "words": cases[k][3],
                "error": errors[k], "kernels": [s.kernel.name for s in cases[k][0].steps]}
            for k, v in times.items()}
        for g in (a, positive, y):
            g.release()
    return json.dumps(out)
'''


def run_snippet(sides: list[int], reps: int, rounds: int) -> str:
    """The worker code that measures `sides` (each a side of a square float32 array)."""
    return SNIPPET + f"\nawait reduction_bench({sides!r}, {reps}, {rounds})\n"


def report(result: dict[str, Any]) -> str:
    """The printed table: each kernel's best and median ms, and its share of the copy's bandwidth."""
    lines = [f"adapter: {result['adapter']}  ({result['reps']} dispatches a pass, {result['rounds']} rounds)"]
    for side, rows in result["sides"].items():
        copy = rows["copy"]
        n = int(side) ** 2
        lines.append(f"{side} x {side} float32 ({n / 2**20:g}M elements): best ms, of copy; "
                     "median ms, of copy; error against NumPy")
        for name, row in rows.items():
            share = [row["words"] / 2 * copy[k] / row[k] if row[k] else float("nan")  # (0: under a step)
                     for k in ("best_ms", "median_ms")]
            lines.append(f"  {name:22s} {row['best_ms']:8.4f} {share[0]:6.3f}   {row['median_ms']:8.4f} "
                         f"{share[1]:6.3f}   {row['error']:.1e}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--native", action="store_true", help="wgpu-py instead of Dawn")
    parser.add_argument("--sides", default="4096,8192")
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    from tests.harness import run_bench

    sides = [int(s) for s in args.sides.split(",")]
    return run_bench(run_snippet(sides, args.reps, args.rounds), report, args.native, args.out)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
