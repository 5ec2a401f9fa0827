"""GpuArray in the browser: results stay on the GPU, chains skip transfers, lifetimes are enforced."""

from __future__ import annotations

from tests.conftest import boot


def test_chain_stays_on_the_gpu_and_matches_numpy(gpu):
    r = gpu.py("""
t = r = s = a = None  # (snippets share a namespace: arrays an earlier one left in these go back now)
x = np.random.default_rng(1).normal(size=(300, 200)).astype(np.float32)
before = pycore.info()["memory"]["bytes_in_use"]
t = await pycore.to_gpu_async(x)
r = await pycore.relu_async(t)
s = await pycore.scale_async(r, 0.5)
a = await pycore.vec_add_async(s, t)
kinds = [type(v).__name__ for v in (t, r, s, a)]
live = pycore.info()["memory"]["bytes_in_use"] - before
readbacks = [e["ms"].get("readback", 0) for e in pycore.trace()[-3:]]
got = await a.to_numpy_async()
total = await pycore.sum_async(a)  # (a 0-D GpuArray: it stays on the GPU)
kinds.append(type(total).__name__)
total = float(await total.to_numpy_async())
for v in (t, r, s, a):
    v.release()
{"kinds": kinds, "live": live, "nbytes": t.nbytes, "readbacks": readbacks,
 "equal": bool(np.array_equal(got, np.maximum(x, 0) * np.float32(0.5) + x)),
 "sum": total, "ref_sum": float(got.astype(np.float64).sum()), "shape": list(got.shape),
 "after": pycore.info()["memory"]["bytes_in_use"] - before, "repr": repr(t)}
""")
    assert r["kinds"] == ["GpuArray"] * 5
    assert r["live"] >= 4 * r["nbytes"] and r["after"] == 0
    assert r["readbacks"] == [0, 0, 0]
    assert r["equal"] and r["shape"] == [300, 200]
    assert abs(r["sum"] - r["ref_sum"]) < 1e-2
    assert "released" in r["repr"] and "device='webgpu'" in r["repr"]


def test_mixed_inputs_stay_on_the_gpu_and_released_arrays_refuse_use(gpu):
    r = gpu.py("""
x = np.arange(6, dtype=np.float32)
t = await pycore.to_gpu_async(x)
mixed = await pycore.vec_add_async(t, x)
with await pycore.to_gpu_async(x) as u:
    pass
errors = []
for call in (lambda: pycore.relu_async(u), lambda: u.to_numpy_async()):
    try:
        await call()
    except RuntimeError as exc:
        errors.append(str(exc))
t.release(); t.release()
{"mixed": type(mixed).__name__, "value": (await mixed.to_numpy_async()).tolist(), "errors": errors}
""")
    assert r["mixed"] == "GpuArray" and r["value"] == [0, 2, 4, 6, 8, 10]  # a GpuArray input keeps it there
    assert len(r["errors"]) == 2 and all("was released" in e for e in r["errors"])


def test_garbage_collected_arrays_give_their_buffers_back(gpu):
    r = gpu.py("""
import gc
t = y = None  # (snippets share a namespace: arrays an earlier one left in these go back now)
before = pycore.info()["memory"]["bytes_in_use"]
for _ in range(50):
    t = await pycore.to_gpu_async(np.ones(10_000, np.float32))
    y = await pycore.relu_async(t)
del t, y
gc.collect()
pycore.info()["memory"]["bytes_in_use"] - before
""")
    assert r == 0


def test_a_chain_of_large_results_reuses_their_buffers(gpu):
    # each result of 16 MB that the chain drops goes back to the pool at once (its queued reader
    # submitted first), so the next op reuses it: without that, every op allocated a new buffer
    r = gpu.py("""
from pycore.engine.runtime import RUNTIME
x = np.linspace(-1, 1, 2048 * 2048, dtype=np.float32).reshape(2048, 2048)
t = await pycore.to_gpu_async(x)
pool = RUNTIME.device.pool
before = pool.stats()["allocations"]
y = t
for i in range(8):
    y = await pycore.scale_async(y, -1.0, backend="gpu")
got = await y.to_numpy_async()
made = pool.stats()["allocations"] - before
del t, y
{"made": made, "ok": bool(np.array_equal(got, x))}
""")
    assert r["ok"] and r["made"] <= 3, r


def test_a_chain_of_small_results_writes_into_the_buffers_it_dropped(gpu):
    # nothing is submitted between these calls, yet each result can be written into a buffer an
    # earlier result gave up: queued work that still reads it runs first (a command buffer runs in
    # order), so the chain allocates a couple of buffers, not one per op, and computes the same
    r = gpu.py("""
from pycore.engine.runtime import RUNTIME
x = np.linspace(-1, 1, 1000, dtype=np.float32)
t = await pycore.to_gpu_async(x)
y = await pycore.scale_async(t, -1.0, backend="gpu")  # (its plan is made here)
pool = RUNTIME.device.pool
before = pool.stats()["allocations"]
for i in range(41):
    y = await pycore.scale_async(y, -1.0, backend="gpu")
    z = await pycore.vec_add_async(y, t, backend="gpu")  # another reader of y, kept a moment
got, total = await y.to_numpy_async(), await z.to_numpy_async()
made = pool.stats()["allocations"] - before
del t, y, z
{"made": made, "ok": bool(np.array_equal(got, x)) and bool(np.array_equal(total, x + x))}
""")
    assert r["ok"] and r["made"] <= 6, r


def test_lost_device_makes_gpu_arrays_fail_clearly(browser, server):
    page = boot(browser, server.url + "/")
    try:
        r = page.py("""
import asyncio
t = await pycore.to_gpu_async([1.0, 2.0])
pycore.engine.runtime.RUNTIME.device.destroy()
for _ in range(100):
    if pycore.info()["backend"] != "webgpu":
        break
    await asyncio.sleep(0.01)
errors = []
for use in (lambda: pycore.relu_async(t), t.to_numpy_async):
    try:
        await use()
        errors.append(None)
    except RuntimeError as exc:
        errors.append(str(exc))
fresh = await pycore.to_gpu_async([3.0])  # on the new device
value = await (await pycore.relu_async(fresh)).to_numpy_async()
{"errors": errors, "device": fresh.device, "value": value.tolist()}
""")
        assert all(e and "device that was lost" in e for e in r["errors"]), r["errors"]
        assert r["device"] == "webgpu" and r["value"] == [3.0]
    finally:
        page.close()


def test_on_the_fallback_gpu_arrays_hold_host_data(fallback_page):
    r = fallback_page.py("""
t = await pycore.to_gpu_async([[1.0, -2.0]])
y = await pycore.relu_async(t)
{"device": t.device, "type": type(y).__name__, "value": (await y.to_numpy_async()).tolist()}
""")
    assert r == {"device": "numpy", "type": "GpuArray", "value": [[1.0, 0.0]]}


REPLAYS = """
from pycore.engine.device import Check
from pycore.calls.gpuarray import GpuArray
from pycore.calls.programs import PROGRAMS
from pycore.engine.runtime import RUNTIME
device = RUNTIME.device
rng = np.random.default_rng(3)
x = rng.standard_normal((64, 48), dtype=np.float32)
z = rng.standard_normal((64, 48), dtype=np.float32)
w = rng.standard_normal((48, 32), dtype=np.float32)
t, u, v = await pycore.to_gpu_async(x), await pycore.to_gpu_async(z), await pycore.to_gpu_async(w)
device.plans.clear()
want = {"add": x + z, "twice": x + x, "swap": z + x, "relu": np.maximum(x, 0),
        "scale": x * np.float32(0.25), "softmax": pycore.tables.ops.OPS["softmax"].numpy(x),
        "matmul": x.astype(np.float64) @ w}
async def calls():
    got = {"twice": await pycore.vec_add_async(t, t, backend="gpu"),  # one array twice: no plan
           "add": await pycore.vec_add_async(t, u, backend="gpu"),
           "swap": await pycore.vec_add_async(u, t, backend="gpu"),
           "relu": await pycore.relu_async(t, backend="gpu"),
           "scale": await pycore.scale_async(t, 0.25, backend="gpu"),
           "softmax": await pycore.softmax_async(t, backend="gpu"),
           "matmul": await pycore.matmul_async(t, v, backend="gpu")}
    return {k: await a.to_numpy_async() for k, a in got.items()}
def bad(got):
    return [k for k, a in got.items() if float(np.abs(a - want[k]).max()) > 1e-4]
first = await calls()
planned = len(device.plans)
again = await calls()  # replayed
twice_after = await pycore.vec_add_async(t, t, backend="gpu")  # the (t, u) plan, with t twice
twice_ok = bool(np.allclose(await twice_after.to_numpy_async(), x + x))
# a program's settings changing gives new plans
PROGRAMS["matmul"].tiled = device.cpu_adapter  # the other kernel than the adapter's choice
m = await (await pycore.matmul_async(t, v, backend="gpu")).to_numpy_async()
PROGRAMS["matmul"].tiled = None
after = len(device.plans)
# parameters equal as numbers but not as bits get plans of their own
zeros = [np.signbit(await (await pycore.scale_async(t, s, backend="gpu")).to_numpy_async()).tolist()
         for s in (0.0, -0.0)]
signs_ok = zeros == [np.signbit(x * np.float32(0.0)).tolist(), np.signbit(x * np.float32(-0.0)).tolist()]
# an input whose work failed: the replayed result raises when read, naming it
failed = Check("inject", None)
failed.error, failed.settled = "validation error: injected", True
t._checks = (failed,)
y = await pycore.relu_async(t, backend="gpu")
try:
    await y.to_numpy_async()
    raised = None
except pycore.engine.device.GpuError as exc:
    raised = str(exc)
{"bad_first": bad(first), "bad_again": bad(again), "planned": planned, "after": after, "signs_ok": signs_ok,
 "twice_ok": twice_ok, "matmul_ok": float(np.abs(m - want["matmul"]).max()) < 1e-4, "raised": raised}
"""


def test_repeated_calls_on_gpu_arrays_replay_their_dispatch(gpu):
    r = gpu.py(REPLAYS)
    assert r["bad_first"] == [] and r["bad_again"] == [], r
    # a plan per fixed-kernel op and shapes (relu, scale, matmul); vec_add (the n-d add) and softmax
    # replay through the n-d core's own plans (checked by the values again)
    assert r["planned"] == 3, r
    assert r["after"] == 4 and r["twice_ok"] and r["matmul_ok"] and r["signs_ok"], r
    assert r["raised"] and "inject" in r["raised"], r


def test_large_uploads_go_through_staging_buffers_and_arrive_intact(gpu):
    r = gpu.py("""
rng = np.random.default_rng(5)
sizes = [(1 << 18) + 3, 1 << 20, 1 << 20, 1 << 20, 3_000_001]  # (three of one size: staging in flight)
xs = [rng.standard_normal(n).astype(np.float32) for n in sizes]
gs = [await pycore.to_gpu_async(x) for x in xs]
doubled = await pycore.multiply_async(gs[1], 2.0)  # (queued, read after the next uploads)
again = [await pycore.to_gpu_async(x[::-1].copy()) for x in xs[1:4]]  # (the staging buffers reused or
ok = [bool(np.array_equal(await g.to_numpy_async(), x)) for g, x in zip(gs, xs)]  # new ones made)
ok += [bool(np.array_equal(await g.to_numpy_async(), x[::-1])) for g, x in zip(again, xs[1:4])]
ok.append(bool(np.array_equal(await doubled.to_numpy_async(), xs[1] * 2)))
u8 = rng.integers(0, 256, 2_500_003, dtype=np.uint8)
ok.append(bool(np.array_equal(await (await pycore.to_gpu_async(u8)).to_numpy_async(), u8)))
staged = pycore.info()["memory"]["upload_staging_bytes"]  # (the browser transport stages uploads;
{"ok": ok, "staged": staged, "transport": pycore.info()["transport"]}  # native: wgpu's own writes)
""")
    assert all(r["ok"]) and len(r["ok"]) == 10
    if r["transport"] == "browser":  # (a 4 MiB staging buffer for each upload in flight at once)
        assert r["staged"] >= 3 * 4 * (1 << 20)
    else:
        assert r["staged"] == 0
