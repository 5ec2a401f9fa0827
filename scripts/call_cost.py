#!/usr/bin/env python3
"""Where a pycore call's time goes, through the browser transport on Dawn in Node (scripts/dawn.mjs)
on this machine's GPU (or lavapipe): the per-call cost against raw JavaScript, ops on GpuArrays
(host time per call, and whether consecutive calls wait for the GPU), chained matmuls against
TF.js, the relu -> scale -> add chain three ways, first-use compile times, and cProfile listings
of the hot paths. Writes JSON and prints a summary.

    python3 scripts/call_cost.py [--out call-cost.json] [--matrix-sizes 256,1024,2048,4096] [--chain 17]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.harness import Dawn

PROFILE = """
import cProfile, io, pstats, time
async def profile_calls(make_call, calls):
    await make_call()
    prof = cProfile.Profile()
    prof.enable()
    start = time.perf_counter()
    for _ in range(calls):
        await make_call()
    ms = (time.perf_counter() - start) * 1e3 / calls
    prof.disable()
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(22)
    return ms, text.getvalue()
"""

PRECOMPILE = """
import asyncio, time
start = time.perf_counter()
while pycore.info()["precompiled"]["done"] < pycore.info()["precompiled"]["total"]:
    await asyncio.sleep(0.01)
{"waited_after_init_s": time.perf_counter() - start, "progress": pycore.info()["precompiled"],
 "compile_ms": pycore.info()["pipelines_compiled_ms"]}
"""

SMALL = """
import statistics, time, js
from pyodide.ffi import to_js
from pycore.bench.peers import _raw_code
x = np.random.default_rng(1).standard_normal(1024, dtype=np.float32)
relu = lambda: pycore.relu_async(x, backend="gpu")
async def timed(fn, n):
    out = []
    for _ in range(n):
        t = time.perf_counter(); await fn(); out.append((time.perf_counter() - t) * 1e3)
    return out
await relu()
ours = []
raw = []
for r in range(10):
    ours += await timed(relu, 50)
    device = pycore.engine.runtime.RUNTIME.device.transport.js_device()
    raw += (await js.pycoreBaselines.rawOp(device, "relu", to_js([1024]), 50, None,
                                           _raw_code("relu", [1024]))).to_py()["runs"]
resolved = js.Promise.resolve(1)
awaits = await timed(lambda: resolved, 200)
trip_ms, trip_profile = await profile_calls(relu, 300)
t = await pycore.to_gpu_async(x)
resident = lambda: pycore.relu_async(t, backend="gpu")
res_ms, res_profile = await profile_calls(resident, 300)
# host time of consecutive resident calls, and the time to read the last one; the first 200 make
# their results' buffers, later rounds find them in the pool (steady state: the median of 5 rounds)
start = time.perf_counter()
ys = [await resident() for _ in range(200)]
host_ms = (time.perf_counter() - start) * 1e3 / 200
start = time.perf_counter()
await ys[-1].to_numpy_async()
read_ms = (time.perf_counter() - start) * 1e3
stages = [e["ms"] for e in pycore.trace()[-200:]]
stage_medians = {k: statistics.median(s.get(k, 0.0) for s in stages) for k in stages[-1]}
warm = []
for _ in range(5):
    del ys
    await pycore.engine.runtime.RUNTIME.device.transport.work_done_async()
    start = time.perf_counter()
    ys = [await resident() for _ in range(200)]
    warm.append((time.perf_counter() - start) * 1e3 / 200)
del ys
{"relu_1k_round_trip_ms": statistics.median(ours), "raw_js_round_trip_ms": statistics.median(raw),
 "ratio": statistics.median(ours) / statistics.median(raw),
 "await_resolved_promise_ms": statistics.median(awaits),
 "resident_relu_host_ms": host_ms, "resident_relu_host_warm_ms": statistics.median(warm),
 "resident_relu_host_warm_runs_ms": warm, "resident_then_read_ms": read_ms,
 "resident_stage_medians_ms": stage_medians,
 "profiles": {"round_trip": trip_profile, "resident": res_profile},
 "profiled_ms_per_call": {"round_trip": trip_ms, "resident": res_ms}}
"""

MATMUL = """
import statistics, time
rows = []
for n in SIZES:
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = (rng.standard_normal((n, n), dtype=np.float32) / np.float32(np.sqrt(n)))
    ta, tb = await pycore.to_gpu_async(a), await pycore.to_gpu_async(b)
    async def chain(count):
        x = ta
        for _ in range(count):
            x = await pycore.matmul_async(x, tb, backend="gpu")
        await x.to_numpy_async()
    async def timed(count):
        t = time.perf_counter(); await chain(count); return (time.perf_counter() - t) * 1e3
    await chain(COUNT)
    reps = 5 if n <= 2048 else 3
    # per matmul in a chain, the final read excluded: (chain of COUNT - chain of 1) / (COUNT - 1),
    # the two lengths alternating; the same for TF.js
    full, one = [], []
    for _ in range(reps):
        full.append(await timed(COUNT)); one.append(await timed(1))
    full_ms, one_ms = sorted(full)[len(full) // 2], sorted(one)[len(one) // 2]
    ours = (full_ms - one_ms) / (COUNT - 1)
    tf_full = (await js.pycoreBaselines.tfjsMatmulChain(n, COUNT, reps)).to_py()["ms"] * COUNT
    tf_one = (await js.pycoreBaselines.tfjsMatmulChain(n, 1, reps)).to_py()["ms"]
    tf = (tf_full - tf_one) / (COUNT - 1)
    trip = []
    for _ in range(reps):
        t = time.perf_counter()
        await pycore.matmul_async(a, b, backend="gpu")
        trip.append((time.perf_counter() - t) * 1e3)
    trip_stages = [e["ms"] for e in pycore.trace()[-reps:]]
    trip_stages = {k: statistics.median(st.get(k, 0.0) for st in trip_stages) for k in trip_stages[-1]}
    tf_trip = (await js.pycoreBaselines.tfjsOp("matmul", to_js([n]), reps)).to_py()["ms"]
    ta.release(); tb.release()
    rows.append({"n": n, "pycore_chain_ms": ours, "tfjs_chain_ms": tf, "pycore_tflops": 2 * n**3 / ours / 1e9,
                 "pycore_chain_total_ms": [full_ms, one_ms], "tfjs_chain_total_ms": [tf_full, tf_one],
                 "tfjs_tflops": 2 * n**3 / tf / 1e9, "pycore_round_trip_ms": sorted(trip)[len(trip) // 2],
                 "tfjs_round_trip_ms": tf_trip, "pycore_round_trip_stages_ms": trip_stages})
rows
"""

CHAIN = """
n = 1 << 20
rng = np.random.default_rng(2)
x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
async def eager():
    tx, ty = await pycore.to_gpu_async(x), await pycore.to_gpu_async(y)
    r = await pycore.relu_async(tx, backend="gpu")
    r = await pycore.vec_add_async(await pycore.scale_async(r, 0.5, backend="gpu"), ty, backend="gpu")
    return await r.to_numpy_async()
async def batch():
    async with pycore.CommandBatch() as b:
        h = b.vec_add(b.scale(b.relu(b.upload(x)), 0.5), b.upload(y))
        await b.execute_async()
        return await b.read_async(h)
async def trips():
    r = await pycore.relu_async(x, backend="gpu")
    r = await pycore.scale_async(r, 0.5, backend="gpu")
    return await pycore.vec_add_async(r, y, backend="gpu")
out = {}
for name, fn in (("eager_gpuarrays", eager), ("command_batch", batch), ("round_trips", trips)):
    await fn()
    times = []
    for _ in range(15):
        t = time.perf_counter(); await fn(); times.append((time.perf_counter() - t) * 1e3)
    out[name + "_ms"] = sorted(times)[7]
out["eager_over_batch"] = out["eager_gpuarrays_ms"] / out["command_batch_ms"]
out
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="call-cost.json")
    ap.add_argument("--matrix-sizes", default="256,1024,2048,4096")
    ap.add_argument("--chain", type=int, default=17, help="matmuls per chain")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.matrix_sizes.split(",") if s]
    worker = Dawn()
    try:
        info = worker.ready()
        if info["backend"] != "webgpu":
            raise SystemExit(f"call_cost.py: Dawn found no WebGPU adapter ({info['reason']})")
        first_compiles = worker.py(PROFILE + PRECOMPILE)
        small = worker.py(SMALL)
        matmul = worker.py("import js\nfrom pyodide.ffi import to_js\n"
                           + MATMUL.replace("SIZES", repr(sizes)).replace("COUNT", str(args.chain)))
        chain = worker.py("import time\n" + CHAIN)
        compiles = worker.py("pycore.info()['pipelines_compiled_ms']")
        result = {"tier": info["tier"], "adapter": info["adapter"], "small": small, "matmul": matmul,
                  "chain": chain, "compile_ms": compiles, "background_compile": first_compiles}
    finally:
        worker.close()
    Path(args.out).write_text(json.dumps(result, indent=1))
    s = small
    print(f"{result['tier']}\n"
          f"relu 1K round trip: pycore {s['relu_1k_round_trip_ms']:.4f} ms, "
          f"raw JS {s['raw_js_round_trip_ms']:.4f} ms "
          f"({s['ratio']:.2f}x); await of a resolved promise {s['await_resolved_promise_ms']:.4f} ms\n"
          f"relu 1K on a GpuArray: {s['resident_relu_host_ms']:.4f} ms host time per call (200 in a row; "
          f"{s['resident_relu_host_warm_ms']:.4f} with their buffers pooled), "
          f"then the read {s['resident_then_read_ms']:.3f} ms; stages {s['resident_stage_medians_ms']}")
    for r in matmul:
        print(f"matmul {r['n']}²: chained pycore {r['pycore_chain_ms']:.3f} ms "
              f"({r['pycore_tflops']:.1f} TFLOP/s), "
              f"TF.js {r['tfjs_chain_ms']:.3f} ms ({r['tfjs_tflops']:.1f}); round trip pycore "
              f"{r['pycore_round_trip_ms']:.2f}, TF.js {r['tfjs_round_trip_ms']:.2f} ms")
    print(f"chain on 1M: {json.dumps({k: round(v, 3) for k, v in chain.items()})}")
    pre = first_compiles
    print(f"background compile after init: {pre['progress']['done']} of {pre['progress']['total']} kernels "
          f"ready {pre['waited_after_init_s'] * 1e3:.0f} ms after init_async returned; "
          f"per kernel ms: {pre['compile_ms']}")
    print("\n--- profile: relu 1K round trip ---\n" + s["profiles"]["round_trip"][:3500])
    print("\n--- profile: relu 1K on a GpuArray ---\n" + s["profiles"]["resident"][:3500])
    return 0


if __name__ == "__main__":
    sys.exit(main())
