#!/usr/bin/env python3
"""Element-wise functions against their arithmetic alone and a copy, from GPU timestamps.

For each function this times, in one process, the element-wise kernel on resident data, the same
function's arithmetic with no memory traffic (`pycore.bench.arithmetic`: values made from a hash of
each thread's index, one sum written a thread; the `copy` row's is the hash alone) and the copy of
the same dtype; it prints each kernel's share of the copy's bandwidth (the bytes it reads and
writes) beside "alone / kernel": near 1, the function's arithmetic, not its bytes, sets the
kernel's pace. Values are uniform in (-3, 3) (a complex value's parts, and both operands of
`pow` and `atan2`: half of pow's bases negative). Every kernel's result is checked against NumPy
first (float64 / complex128): the largest difference over the largest finite reference magnitude.

    python3 scripts/arith_bench.py [--native] [--complex-values 8388608] [--reps 100] [--rounds 7]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# (name as printed, function, dtype, array operands, a complex scalar operand)
CASES = [
    ("complex64 copy", "copy", "complex64", 1, None),
    ("complex64 sqrt", "sqrt", "complex64", 1, None),
    ("complex64 exp", "exp", "complex64", 1, None),
    ("complex64 expm1", "expm1", "complex64", 1, None),
    ("complex64 log", "log", "complex64", 1, None),
    ("complex64 log1p", "log1p", "complex64", 1, None),
    ("complex64 sin", "sin", "complex64", 1, None),
    ("complex64 tanh", "tanh", "complex64", 1, None),
    ("complex64 asinh", "asinh", "complex64", 1, None),
    ("complex64 acos", "acos", "complex64", 1, None),
    ("complex64 atanh", "atanh", "complex64", 1, None),
    ("complex64 pow(x, 2.5+0.5j)", "pow", "complex64", 1, 2.5 + 0.5j),
    ("float32 copy", "copy", "float32", 1, None),
    ("float32 exp", "exp", "float32", 1, None),
    ("float32 log1p", "log1p", "float32", 1, None),
    ("float32 asinh", "asinh", "float32", 1, None),
    ("float32 atan2", "atan2", "float32", 2, None),
    ("float32 pow", "pow", "float32", 2, None),
]

SNIPPET = r'''
import json, time
import numpy as np
import pycore
from pycore.bench.arithmetic import plan_arithmetic
from pycore.engine.executor import facts, run_plans_async, time_plan_async
from pycore.kernels.elementwise import Operand, plan_elementwise

async def arith_bench(cases, n_complex, reps, rounds):
    dev = pycore.engine.runtime.RUNTIME.device
    f = facts(dev)
    rng = np.random.default_rng(0)
    sizes = {"complex64": n_complex, "float32": 2 * n_complex}  # (the same bytes)
    parts = rng.uniform(-3, 3, (2, n_complex))
    host = {"complex64": [(parts[0] + 1j * parts[1]).astype(np.complex64)],
            "float32": [rng.uniform(-3, 3, 2 * n_complex).astype(np.float32) for _ in range(2)]}
    arrays = {k: [await pycore.to_gpu_async(h) for h in v] for k, v in host.items()}
    out = {"adapter": pycore.info().get("adapter"), "reps": reps, "rounds": rounds, "sizes": sizes,
           "cases": {}}
    plans = {}
    errors = {}
    for label, fn, dt, arity, scalar in cases:
        dtype = np.dtype(dt)
        ins = arrays[dt][:arity]
        ops = [Operand(dtype, a.layout) for a in ins]
        if scalar is not None:
            ops.append(Operand(dtype, None, np.complex64(scalar)))
        kernel = plan_elementwise("bench", f"{fn}_{'c64' if dt == 'complex64' else 'f32'}", ops, dtype, dtype,
                                  ins[0].shape, f)
        alone = plan_arithmetic(fn, dtype, sizes[dt], arity, scalar)
        plans[label] = (kernel, ins, alone, arity + 1 if dt == "float32" else 2)
        bound = [a.binding() + (a.checks,) for a in ins]
        got, _, _ = await run_plans_async(dev, "check", [(kernel, bound)], False)
        wide = [h.astype(np.complex128 if dt == "complex64" else np.float64) for h in host[dt][:arity]]
        with np.errstate(all="ignore"):
            if fn == "copy":
                want = wide[0]
            elif scalar is not None:
                want = np.power(wide[0], complex(scalar))
            else:
                want = getattr(np, {"asinh": "arcsinh", "acos": "arccos", "atanh": "arctanh",
                                    "atan2": "arctan2", "pow": "power"}.get(fn, fn))(*wide)
        got = np.asarray(got)
        if dt == "complex64" and got.dtype != np.complex64:  # (stored as float32 pairs)
            got = got.view(np.complex64)
        got = got.reshape(want.shape)
        both = np.isfinite(want)
        scale = max(float(np.max(np.abs(want[both]))), 1e-30) if both.any() else 1.0
        same_nan = bool(np.array_equal(np.isnan(got), np.isnan(want)))
        errors[label] = float(np.max(np.abs(got[both] - want[both]))) / scale if same_nan else 1.0
    copy = plans["complex64 copy"]
    if await time_plan_async(dev, copy[0], [copy[1][0].binding()], reps=1) is None:
        return json.dumps({**out, "no_timestamps": True, "errors": errors})
    start = time.perf_counter()
    while time.perf_counter() - start < 1.0:  # (the GPU's clocks up first)
        await time_plan_async(dev, copy[0], [copy[1][0].binding()], reps=reps)
    times = {(k, part): [] for k in plans for part in ("kernel", "alone")}
    keys = list(times)
    for i in range(rounds):
        for key in keys[i % len(keys):] + keys[:i % len(keys)]:
            kernel, ins, alone, _ = plans[key[0]]
            plan, bound = (kernel, [a.binding() for a in ins]) if key[1] == "kernel" else (alone, [])
            times[key].append(await time_plan_async(dev, plan, bound, reps=reps))
    for k, (_, _, _, words) in plans.items():
        row = {"words": words, "error": errors[k]}
        for part in ("kernel", "alone"):
            v = times[(k, part)]
            row[part] = {"best_ms": min(v), "median_ms": sorted(v)[len(v) // 2]}
        out["cases"][k] = row
    for v in arrays.values():
        for a in v:
            a.release()
    return json.dumps(out)
'''


def run_snippet(n_complex: int, reps: int, rounds: int, cases: list[tuple] | None = None) -> str:
    """The worker code that measures `cases` (default CASES) on `n_complex` complex64 values (twice
    as many float32 ones)."""
    return SNIPPET + f"\nawait arith_bench({(cases or CASES)!r}, {n_complex}, {reps}, {rounds})\n"


def report(result: dict[str, Any]) -> str:
    """The printed table: each kernel's best and median ms and share of the copy's bandwidth, its
    arithmetic alone, and the two's ratio."""
    sizes = result["sizes"]
    lines = [f"adapter: {result['adapter']}  ({result['reps']} dispatches a pass, {result['rounds']} rounds; "
             f"{sizes['complex64']:,} complex64 values, {sizes['float32']:,} float32 ones)",
             "kernel: best ms, of the copy; median ms, of the copy | the arithmetic alone: best ms, "
             "median ms | alone / kernel (best) | error against NumPy"]
    for name, row in result["cases"].items():
        copy = result["cases"][f"{name.split()[0]} copy"]["kernel"]
        k, a = row["kernel"], row["alone"]
        share = [row["words"] / 2 * copy[m] / k[m] if k[m] else float("nan")
                 for m in ("best_ms", "median_ms")]
        ratio = a["best_ms"] / k["best_ms"] if k["best_ms"] else float("nan")
        lines.append(f"  {name:27s} {k['best_ms']:8.4f} {share[0]:6.3f} {k['median_ms']:8.4f} "
                     f"{share[1]:6.3f} | {a['best_ms']:8.4f} {a['median_ms']:8.4f} | {ratio:5.2f} | "
                     f"{row['error']:.1e}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--native", action="store_true", help="wgpu-py instead of Dawn")
    parser.add_argument("--complex-values", type=int, default=1 << 23)
    parser.add_argument("--reps", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    from tests.harness import run_bench

    return run_bench(run_snippet(args.complex_values, args.reps, args.rounds), report, args.native, args.out)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
