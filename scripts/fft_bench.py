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

For the first two cases (2^20 points, fft2 of 2048 x 2048; with --small 2^14 and 256 x 256), and
on Dawn only, also pycore against jax-js (npm @jax-js/jax, pinned in package.json, on its own WebGPU
device in the same process: web/bench/baselines.js's jaxFft), both measured alike: a chain of
COUNT transforms on complex data already on the GPU, fft and inverse fft in turn (each reading
the one before's result, so values stay finite), one sync at the end; the wall time of the chain
(median of ROUNDS, after a warm-up chain) / COUNT:

- pycore: pycore's public fft cannot take or keep complex values on the GPU yet (its complex
  results are NumPy arrays), so each transform is what such a call would run: the fft plan of the
  call (plan_fft, the inverse's with the 1/n scale) through the executor
  (`run_plans_async(..., keep=True)`, one session per transform: Python's host work, the encode
  and the queueing each time) on the interleaved (..., 2) float32 buffer of the transform before;
  the sync is `device.settle_async()` and the queue's work-done promise;
- jax-js: `numpy.fft.fftn` / `ifftn` on its {real, imag} float32 arrays, eagerly and as `jax.jit`
  functions (its fft is a routine that jit does not fuse), the sync `jax.blockUntilReady`; checked
  to have run on its WebGPU backend, its values checked against NumPy.

Ratios: jax-js ms / pycore ms (> 1: pycore is faster; the faster of jax-js's eager and jitted
chains), and NumPy (in the same Pyodide, one transform, best of ROUNDS) ms / pycore ms.

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

CHAIN_SNIPPET = r'''
import statistics
from pycore.array.dtypes import FLOAT32
from pycore.bench.peers import _baselines_module, jax_fft_async, jax_fft_input
from pycore.calls.gpuarray import GpuArray
from pycore.engine.executor import run_plans_async

notes = []
module = await _baselines_module(notes.append)
chains = {"count": COUNT, "rounds": ROUNDS, "cases": {}, "notes": notes}

async def pycore_chain(shape, axes):
    fwd = plan_fft(shape, tuple(Transform(a, shape[a]) for a in axes), False, f)
    inv = plan_fft(shape, tuple(Transform(a, shape[a], 1.0 / shape[a]) for a in axes), True, f)
    x = jax_fft_input(shape)
    g = await pycore.to_gpu_async(x.view(np.float32).reshape(*shape, 2))
    async def chain(k):
        y = g
        for i in range(k):
            plan = inv if i % 2 else fwd
            bound = (*y.binding(), y.checks)
            buf, checks, _ = await run_plans_async(dev, "fft chain", [(plan, [bound])], keep=True)
            y = GpuArray((*shape, 2), buffer=buf, checks=checks, device=dev, dtype=FLOAT32)
        await dev.settle_async()
        await dev.transport.work_done_async()
        return y
    first = await (await chain(1)).to_numpy_async()
    want = np.fft.fftn(x.astype(np.complex128), axes=axes)
    error = float(np.linalg.norm(first.view(np.complex64).reshape(shape) - want) / np.linalg.norm(want))
    await chain(COUNT)
    runs = []
    for _ in range(ROUNDS):
        t = time.perf_counter()
        await chain(COUNT)
        runs.append((time.perf_counter() - t) * 1e3 / COUNT)
    g.release()
    return {"ms": statistics.median(runs), "runs": runs, "rel_error": error}

for label, shape, axes in CASES[:2]:
    row = {"pycore": await pycore_chain(shape, axes)}
    if module is not None:
        for jitted in (False, True):
            key = "jax_jit" if jitted else "jax"
            try:
                row[key] = await jax_fft_async(module, shape, axes, COUNT, ROUNDS, jitted)
            except Exception as exc:
                row[key] = {"failed": f"{type(exc).__name__}: {exc}"}
    chains["cases"][label] = row
json.dumps(chains)
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
    from tests.harness import gpu_worker

    cases, reps, rounds, count = (SMALL, 3, 2, 4) if args.small else (LARGE, 20, 5, 20)
    snippet = (f"CASES = {cases!r}\nREPS = {reps}\nROUNDS = {rounds}\n" + SNIPPET)
    worker = gpu_worker(args.native)
    if worker is None:
        return 1
    result = json.loads(worker.py(snippet))
    if not args.native:  # (the yardstick runs in the JavaScript beside Pyodide)
        result["chains"] = json.loads(worker.py(f"COUNT = {count}\n" + CHAIN_SNIPPET))
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
    chains = result.get("chains")
    if chains:
        print(f"\nchains of {chains['count']} resident transforms (fft, ifft in turn), one sync; ms per "
              f"transform, median of {chains['rounds']}:")
        print(f"{'case':30s} {'pycore':>9s} {'jax-js':>9s} {'jax jit':>9s} {'jax/pycore':>10s} "
              f"{'NumPy/pycore':>12s}  jax-js backend")
        for label, row in chains["cases"].items():
            ours = row["pycore"]["ms"]
            jax = [row[k]["ms"] for k in ("jax", "jax_jit") if "ms" in row.get(k, {})]
            cells = [f"{row[k]['ms']:9.3f}" if "ms" in row.get(k, {}) else f"{'-':>9s}"
                     for k in ("jax", "jax_jit")]
            versus = f"{min(jax) / ours:10.2f}" if jax else f"{'-':>10s}"
            numpy_ratio = result["cases"][label]["numpy_ms"] / ours
            where = next((f"{row[k]['backend']} ({row[k]['adapter']}), error {row[k]['error']:.1e}"
                          for k in ("jax", "jax_jit") if "ms" in row.get(k, {})),
                         "; ".join(row[k]["failed"] for k in ("jax", "jax_jit") if "failed" in row.get(k, {}))
                         or "no jax-js")
            print(f"{label:30s} {ours:9.3f} {cells[0]} {cells[1]} {versus} {numpy_ratio:12.1f}  {where}")
        for note in chains["notes"]:
            print(f"note: {note}")
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
