#!/usr/bin/env python3
"""Speed of the fft extension's GPU transforms (pycore/kernels/fft.py), measured in one process
(Dawn in Node by default: the browser transport on whatever adapter Dawn finds; `--native` for
wgpu-py), against NumPy's pocketfft on the same complex64 values in the same process:

- kernel times from GPU timestamp queries (engine.executor.time_plan_async: each kernel of the
  plan dispatched `reps` times in a pass of its own, its mean, summed) of the plans the calls run,
  on data already on the GPU: a 2^20-point fft, fft2 of 2048 x 2048, a batch of 1024-point rows
  and a 10^6-point fft by Bluestein's chirp-z; GFLOP/s as 5 N log2 N per transform of N;
- the wall time of the whole call from host arrays (`pycore.fft.fft_async(x, backend="gpu")`:
  upload, kernels, readback), best of a few;
- NumPy's time for the same transform (best of a few), and the GPU result's error against NumPy
  in float64 (relative to the norm).

    python3 scripts/fft_bench.py [--native] [--small] [--out FILE.json]

`--small` runs small sizes (2^14, 256 x 256, 64 x 1024, 10,000), for CPU adapters (lavapipe).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SNIPPET = r'''
import json, math, time, numpy as np, pycore
from pycore.engine.executor import facts, time_plan_async
from pycore.engine.runtime import RUNTIME
from pycore.kernels.fft import Transform, plan_fft

await pycore.init_async()
dev = RUNTIME.device
f = facts(dev)
rng = np.random.default_rng(0)
out = {"adapter": str(pycore.info()["adapter"]), "cases": {}}

def best_ms(fn, rounds):
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return min(times)

async def best_async_ms(make, rounds):
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        await make()
        times.append((time.perf_counter() - t) * 1e3)
    return min(times)

for label, shape, axes in CASES:
    x = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)
    transforms = tuple(Transform(a, shape[a]) for a in axes)
    plan = plan_fft(shape, transforms, False, f)
    g = await pycore.to_gpu_async(x.view(np.float32).reshape(*shape, 2))
    kernel_ms = await time_plan_async(dev, plan, [g.binding()], REPS)
    call = lambda: pycore.fft.fftn_async(x, axes=axes, backend="gpu")
    got = await call()  # (compiles the kernels; the result checked)
    call_ms = await best_async_ms(call, ROUNDS)
    numpy_ms = best_ms(lambda: np.fft.fftn(x, axes=axes), ROUNDS)
    want = np.fft.fftn(x.astype(np.complex128), axes=axes)
    flops = sum(5 * math.prod(shape) * math.log2(shape[a]) for a in axes)
    out["cases"][label] = {
        "kernel_ms": kernel_ms, "gflops": None if kernel_ms is None else flops / kernel_ms / 1e6,
        "call_ms": call_ms, "numpy_ms": numpy_ms,
        "kernels": [s.kernel.entry for s in plan.steps],
        "rel_error": float(np.linalg.norm(got - want) / np.linalg.norm(want)),
    }
    g.release()
json.dumps(out)
'''

LARGE = [("fft 2^20", (1, 1 << 20), (1,)), ("fft2 2048 x 2048", (2048, 2048), (0, 1)),
         ("fft 4096 x 1024-point rows", (4096, 1024), (1,)), ("fft 10^6 (Bluestein)", (1, 10**6), (1,))]
SMALL = [("fft 2^14", (1, 1 << 14), (1,)), ("fft2 256 x 256", (256, 256), (0, 1)),
         ("fft 64 x 1024-point rows", (64, 1024), (1,)), ("fft 10^4 (Bluestein)", (1, 10**4), (1,))]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--native", action="store_true", help="wgpu-py instead of Dawn")
    parser.add_argument("--small", action="store_true", help="small sizes, for CPU adapters")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    from tests.harness import Dawn, Native

    cases, reps, rounds = (SMALL, 3, 2) if args.small else (LARGE, 20, 5)
    snippet = (f"CASES = {cases!r}\nREPS = {reps}\nROUNDS = {rounds}\n" + SNIPPET)
    worker = Native() if args.native else Dawn()
    info = worker.ready()
    if info.get("backend", "webgpu") != "webgpu" or info.get("transport") == "none":
        print(f"no WebGPU adapter: {info.get('reason')}", file=sys.stderr)
        return 1
    result = json.loads(worker.py(snippet))
    worker.close()
    print(f"adapter: {result['adapter']}")
    print(f"{'case':30s} {'kernels ms':>10s} {'GFLOP/s':>8s} {'call ms':>9s} {'NumPy ms':>9s} "
          f"{'NumPy/kernels':>13s} {'rel error':>9s}  kernels")
    for label, r in result["cases"].items():
        k = r["kernel_ms"]
        ratio = f"{r['numpy_ms'] / k:13.1f}" if k else f"{'-':>13s}"
        gflops = f"{r['gflops']:8.2f}" if k else f"{'-':>8s}"
        kms = f"{k:10.4f}" if k else f"{'-':>10s}"
        print(f"{label:30s} {kms} {gflops} {r['call_ms']:9.2f} {r['numpy_ms']:9.2f} {ratio} "
              f"{r['rel_error']:9.2e}  {' '.join(r['kernels'])}")
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
