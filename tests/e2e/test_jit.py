"""`pycore.jit` (calls/jit.py, engine/capture.py) on WebGPU — in the browser (SwiftShader), natively
(wgpu-py) and on Dawn: a function of GpuArrays captured at a call and replayed by the next ones
gives what its calls give, on new inputs each time (the benchmark's pipelines, float64 references);
host inputs are uploaded at each call, host constants it makes are kept; results that are views
come back as views; a call on host values inside runs on NumPy (a constant); a new shape, dtype or
static value is captured apart; a function that reads a GPU value raises TracingError and leaves
no buffer behind; one that returns its input runs its calls and says why; an array it reads from
outside stays valid for it after the program drops it; clear() gives the kept buffers back; an
argument that is neither an array nor hashable is refused.
"""

from __future__ import annotations

JIT = '''
import gc
from pycore.bench.pipelines import PIPELINES
from pycore.engine.runtime import RUNTIME
rng = np.random.default_rng(5)
failures = []

def close(label, got, want, tol=1e-4):
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or not np.allclose(got.astype(np.float64), want, rtol=tol, atol=tol,
                                                   equal_nan=True):
        failures.append(f"{label}: {got.shape} {got.ravel()[:4].tolist()} != {want.shape} "
                        f"{want.ravel()[:4].tolist()}")

def in_use():
    gc.collect()
    pycore.info()  # (submits what is queued: dropped buffers are pooled)
    return RUNTIME.device.pool.stats()["bytes_in_use"]

# 1. every pipeline of the benchmark: four calls on new inputs each, as the float64 reference says
replayed = {}
for name, p in PIPELINES.items():
    step = pycore.jit(p.run_async)
    for call in range(4):
        xs = p.make(p.small, np.random.default_rng(call))
        gs = [await pycore.to_gpu_async(x) for x in xs]
        y = await step(*gs)
        close(f"{name} call {call}", await y.to_numpy_async(), p.reference(*xs), p.tolerance * 10)
    replayed[name] = [c["replayed"] for c in step.captures()]
    step.clear()
last = [e for e in pycore.trace() if e["op"].startswith("jit")][-1]

# 2. host arguments are uploaded at every call; constants made inside are kept; views come back as views
async def shifted(x, w, scale):
    y = await pycore.matmul_async(x, w)
    y = await pycore.add_async(y, np.arange(y.shape[-1], dtype=np.float32))
    y = await pycore.multiply_async(y, scale)
    y = await pycore.multiply_async(y, await pycore.sqrt_async(np.array([4.0], np.float32)))  # (on NumPy)
    y = await pycore.multiply_async(y, 0.5)
    return {"y": y, "t": y.T, "rows": (y[1:], await pycore.sum_async(y, axis=0)), "k": 3}

step = pycore.jit(shifted)
w_host = rng.standard_normal((5, 4)).astype(np.float32)
w = await pycore.to_gpu_async(w_host)
for call in range(3):
    x_host = rng.standard_normal((6, 5)).astype(np.float32)
    out = await step(x_host, w, 2.0)
    want = (x_host.astype(np.float64) @ w_host + np.arange(4)) * 2
    close(f"y {call}", await out["y"].to_numpy_async(), want)
    close(f"t {call}", await out["t"].to_numpy_async(), want.T)
    close(f"rows {call}", await out["rows"][0].to_numpy_async(), want[1:])
    close(f"sum {call}", await out["rows"][1].to_numpy_async(), want.sum(0))
views = (out["t"]._base is not None, out["rows"][0]._base is out["t"]._base, out["k"])
# a new scale, a new shape: captured apart
out = await step(x_host, w, 3.0)
close("scale 3", await out["y"].to_numpy_async(), (x_host.astype(np.float64) @ w_host + np.arange(4)) * 3)
x8 = rng.standard_normal((8, 5)).astype(np.float32)
out = await step(x8, w, 2.0)
close("8 rows", await out["y"].to_numpy_async(), (x8.astype(np.float64) @ w_host + np.arange(4)) * 2)
signatures = len(step.captures())
del out
before_clear = in_use()
held = sum(c.get("held_bytes", 0) for c in step.captures())
step.clear()
after_clear = in_use()

# 3. an array from outside: the program's buffer stays valid for the function after it is dropped
bias = await pycore.to_gpu_async(np.full(4, 10.0, np.float32))
async def biased(x):
    return await pycore.add_async(x, bias)
step = pycore.jit(biased)
for call in range(3):
    x_host = rng.standard_normal((3, 4)).astype(np.float32)
    close(f"outside {call}", await (await step(x_host)).to_numpy_async(), x_host + 10.0)
    if call == 1:
        del bias
        gc.collect()
        filler = await pycore.to_gpu_async(np.full(4, -1.0, np.float32))  # (would take a freed buffer)

# 4. a function that reads: TracingError, and nothing left held
async def reads(x):
    y = await pycore.exp_async(x)
    if (await y.to_numpy_async()).sum() > 0:
        return y
    return x

step = pycore.jit(reads)
x = await pycore.to_gpu_async(np.ones((4, 4), np.float32))
base = in_use()
try:
    await step(x)
    traced = "no error"
except pycore.TracingError as exc:
    traced = str(exc)
leak = in_use() - base

# 5. a function that returns its input: runs its calls, and says why
async def same(x):
    await pycore.exp_async(x)
    return x
step = pycore.jit(same)
for call in range(2):
    got = await step(x)
refused = step.captures()
try:
    await step(x, [1, {2}])
    unhashable = "no error"
except TypeError as exc:
    unhashable = str(exc)
{"failures": failures, "replayed": replayed, "last": last["why"], "views": views, "signatures": signatures,
 "held": held, "freed": before_clear - after_clear, "traced": traced, "leak": leak, "refused": refused,
 "same": got is x, "unhashable": unhashable}
'''


def test_jitted_functions_replay_what_their_calls_compute(gpu):
    r = gpu.py(JIT)
    assert r["failures"] == [], r["failures"]
    assert all(r["replayed"][name] == [True] for name in r["replayed"]), r["replayed"]
    assert r["last"].startswith("replayed the "), r["last"]
    assert r["views"] == [True, True, 3], r["views"]
    assert r["signatures"] == 3
    assert r["held"] > 0 and r["freed"] == r["held"], (r["held"], r["freed"])
    assert "to_numpy" in r["traced"] and "jit" in r["traced"], r["traced"]
    assert r["leak"] == 0
    assert r["refused"] == [{"replayed": False, "why": "it returns one of its inputs (or a view of one)"}]
    assert r["same"] is True
    assert r["unhashable"].startswith("pycore.jit: argument 1[1] (set) is neither an array nor hashable"), r
