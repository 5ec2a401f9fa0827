"""No silent wrong answers, and a GPU that comes back: uniform blocks a batch still needs, errors that
belong to the reads that depend on them, device loss (in a call, in a batch, at random points of a
long workload) and memory at the device's limits. On both WebGPU transports unless noted."""

from __future__ import annotations

import pytest

from tests.conftest import boot
from tests.harness import Native

# Destroy the device behind pycore's back: the browser's GPUDevice itself; natively, the transport's
# destroy (wgpu-native reports no loss by itself, so its transport reports it, as it does when a
# call fails with "Parent device is lost").
LOSE = """
def lose_device():
    transport = pycore.engine.runtime.RUNTIME.device.transport
    (transport.device if transport.name == "browser" else transport).destroy()

async def until_lost():
    import asyncio
    for _ in range(200):  # the browser reports a loss asynchronously
        if pycore.engine.runtime.RUNTIME.device is None:
            return
        await asyncio.sleep(0.005)
"""


def test_a_batch_needing_more_parameter_blocks_than_the_cache_holds_is_right(gpu):
    r = gpu.py("""
x = np.random.default_rng(1).normal(size=1000).astype(np.float32)
async with pycore.CommandBatch() as b:
    hx = b.upload(x)
    hs = [b.scale(hx, 1.0 + i / 64) for i in range(600)]  # 600 distinct uniform blocks, one submit
    await b.execute_async()
    bad = [i for i, h in enumerate(hs)
           if not np.array_equal(await b.read_async(h), x * np.float32(1.0 + i / 64))]
dev = pycore.engine.runtime.RUNTIME.device
{"bad": bad, "errors": pycore.info()["gpu_errors"], "cached": len(dev.uniforms), "pinned": len(dev.pins)}
""")
    assert r["bad"] == [] and r["errors"] == [], r
    assert r["cached"] <= 512 and r["pinned"] == 0


def test_calls_running_while_a_batch_is_queued_cannot_evict_its_blocks(gpu):
    r = gpu.py("""
import asyncio
rng = np.random.default_rng(2)
x = rng.normal(size=4096).astype(np.float32)

async def batch():
    async with pycore.CommandBatch() as b:
        hx = b.upload(x)
        hs = [b.leaky_relu(b.scale(hx, 1.0 + i / 128), alpha=0.001 * i) for i in range(100)]
        await b.execute_async()  # compiles a fused kernel: the calls below run meanwhile
        return [await b.read_async(h) for h in hs]

async def call(i):
    return i, await pycore.scale_async(x, 3.0 + i / 1024, backend="gpu")

got, *calls = await asyncio.gather(batch(), *[call(i) for i in range(600)])
OPS = pycore.tables.ops.OPS
want = [OPS["leaky_relu"].numpy(x * np.float32(1.0 + i / 128), 0.001 * i) for i in range(100)]
{"batch_bad": [i for i, (g, w) in enumerate(zip(got, want)) if not np.allclose(g, w, rtol=1e-6)],
 "calls_bad": [i for i, y in calls if not np.array_equal(y, x * np.float32(3.0 + i / 1024))],
 "errors": pycore.info()["gpu_errors"]}
""")
    assert r == {"batch_bad": [], "calls_bad": [], "errors": []}


def test_work_the_gpu_rejects_fails_the_reads_that_depend_on_it_and_no_other(gpu):
    # A buffer destroyed behind pycore's back makes the GPU reject every submit that uses it.
    r = gpu.py("""
from pycore.engine.device import GpuError
x = np.arange(8, dtype=np.float32)
t = await pycore.to_gpu_async(x)
t._finalizer.detach()  # (its broken buffer must not go back to the pool)
t._buffer.destroy()
y = await pycore.relu_async(t)                   # a GpuArray: nothing is read yet
z = await pycore.scale_async(y, 2.0)             # depends on y
b = pycore.CommandBatch()
hb = b.relu(b.upload(t))
await b.execute_async()
unrelated = await pycore.relu_async(x - 4, backend="gpu")  # settles the checks, must not raise
out = {"unrelated": unrelated.tolist()}
for name, read in [("y", y.to_numpy_async), ("z", z.to_numpy_async), ("batch", lambda: b.read_async(hb)),
                   ("batch again", lambda: b.read_async(hb))]:
    try:
        await read()
        out[name] = None
    except GpuError as exc:
        out[name] = str(exc)
after = await pycore.vec_add_async(x, x, backend="gpu")
out["after"] = after.tolist()
pycore.engine.runtime.RUNTIME.device.pool.discard(t._buffer)  # (the destroyed buffer)
y.release(); z.release(); b.release()
del t, y, z, b
out
""")
    assert r["unrelated"] == [0, 0, 0, 0, 0, 1, 2, 3] and r["after"] == [2.0 * i for i in range(8)]
    for name in ("y", "z", "batch", "batch again"):
        assert r[name] and "failed" in r[name], (name, r[name])
    assert r["y"].startswith("to_numpy: relu") and r["z"].startswith("to_numpy: relu")


def test_a_lost_device_is_replaced_at_the_next_call(gpu):
    r = gpu.py(LOSE + """
rng = np.random.default_rng(3)
x = rng.normal(size=(64, 64)).astype(np.float32)
t = await pycore.to_gpu_async(x)
b = pycore.CommandBatch()
hb = b.softmax(b.upload(x))
await b.execute_async()
lose_device()
await until_lost()
during = pycore.info()
y = await pycore.matmul_async(x, x)                 # the first call after the loss gets a new device
info = pycore.info()
try:
    await pycore.relu_async(t)
    old_array = None
except RuntimeError as exc:
    old_array = str(exc)
batch_value = await b.read_async(hb)                 # recomputed on NumPy from the batch's host input
b2 = pycore.CommandBatch()
h2 = b2.relu(b2.upload(x))
await b2.execute_async()
events = [e["why"] for e in pycore.trace() if e["op"] == "device"]
{"during": during["backend"], "during_reason": during["reason"], "backend": info["backend"],
 "recoveries": info["device_recoveries"], "losses": info["device_losses"],
 "matmul": float(np.abs(y - x.astype(np.float64) @ x).max()), "matmul_backend": pycore.trace()[-3]["backend"],
 "old_array": old_array, "events": events,
 "batch": bool(np.allclose(batch_value, pycore.tables.ops.OPS["softmax"].numpy(x), atol=1e-6)),
 "batch2": bool(np.array_equal(await b2.read_async(h2), np.maximum(x, 0))),
 "batch2_backend": pycore.trace()[-1]["backend"]}
""")
    assert r["during"] == "numpy" and "device lost" in r["during_reason"]
    assert r["backend"] == "webgpu" and r["recoveries"] >= 1 and r["losses"] == r["recoveries"]
    assert r["matmul"] < 1e-3
    assert "device that was lost" in r["old_array"]
    assert any("lost" in e for e in r["events"]) and any("new WebGPU device" in e for e in r["events"])
    assert r["batch"] and r["batch2"] and r["batch2_backend"] == "webgpu"


def test_a_batch_holding_an_array_of_a_lost_device_fails_alone(gpu):
    # a GpuArray of a device that was lost, put in a CommandBatch on the new device, fails with a
    # clear error naming it; the healthy device and the arrays on it are untouched
    r = gpu.py(LOSE + """
x = np.arange(8, dtype=np.float32) - 3
stale = await pycore.to_gpu_async(x)
lose_device()
await until_lost()
fresh = await pycore.to_gpu_async(x * 2)              # the first call after the loss gets a new device
healthy = pycore.engine.runtime.RUNTIME.device
b = pycore.CommandBatch()
h = b.relu(b.upload(stale))
try:
    await b.execute_async()
    await b.read_async(h)
    error = None
except (RuntimeError, ValueError) as exc:
    error = f"{type(exc).__name__}: {exc}"
after = pycore.engine.runtime.RUNTIME.device
{"error": error, "same_device": after is healthy, "lost": None if after is None else after.lost,
 "fresh": (await fresh.to_numpy_async()).tolist(), "want": (x * 2).tolist(),
 "relu": (await (await pycore.relu_async(fresh)).to_numpy_async()).tolist()}
""")
    assert r["error"] and "lost" in r["error"], r
    assert r["same_device"] and r["lost"] is None, r
    assert r["fresh"] == r["want"] and r["relu"] == [max(v, 0.0) for v in r["want"]], r


def test_device_lost_while_a_batch_executes_runs_it_on_numpy(gpu):
    r = gpu.py(LOSE + """
x = np.linspace(-3, 3, 5000, dtype=np.float32)
transport = pycore.engine.runtime.RUNTIME.device.transport
real = type(transport).submit
def submit_then_lose(self, commands):
    lose_device()
    return real(self, commands)
type(transport).submit = submit_then_lose
try:
    b = pycore.CommandBatch()
    h = b.vec_add(b.scale(b.relu(b.upload(x)), 2.0), b.upload(x))
    s = b.sum(h)
    await b.execute_async()
finally:
    type(transport).submit = real
await until_lost()
got, total = await b.read_async(h), await b.read_async(s)
want = np.maximum(x, 0) * 2 + x
{"equal": bool(np.allclose(got, want)), "sum": abs(total - float(want.astype(np.float64).sum())),
 "backend_now": (await pycore.relu_async(x[:4], backend="gpu")) is not None and pycore.info()["backend"]}
""")
    assert r["equal"] and r["sum"] < 1e-2 and r["backend_now"] == "webgpu"


FAULTS = LOSE + """
import random
from pycore.engine.device import DeviceLostError
rng = np.random.default_rng(7)
pick = random.Random(7)
transport_cls = type(pycore.engine.runtime.RUNTIME.device.transport)
names = ["submit", "submit_and_read_async", "write_buffer", "create_pipeline_async"]
real = {n: getattr(transport_cls, n) for n in names}
losses = [0]

def faulty(name):
    method = real[name]
    def wrapper(self, *args, **kwargs):
        if pick.random() < 0.02 and pycore.engine.runtime.RUNTIME.device is not None:
            losses[0] += 1
            lose_device()
        return method(self, *args, **kwargs)
    return wrapper

for n in names:
    setattr(transport_cls, n, faulty(n))
wrong, lost_errors, checked = [], 0, 0
try:
    for step in range(STEPS):
        kind = step % 5
        x = rng.normal(size=(48, 40)).astype(np.float32)
        w = rng.normal(size=(40, 24)).astype(np.float32)
        try:
            if kind == 0:
                got, want = await pycore.gelu_async(x), pycore.tables.ops.OPS["gelu"].numpy(x)
            elif kind == 1:
                got, want = await pycore.matmul_async(x, w), x.astype(np.float64) @ w
            elif kind == 2:
                t = await pycore.to_gpu_async(x)
                u = await pycore.softmax_async(await pycore.relu_async(t))
                got, want = await u.to_numpy_async(), pycore.tables.ops.OPS["softmax"].numpy(np.maximum(x, 0))
            elif kind == 3:
                async with pycore.CommandBatch() as b:
                    h = b.vec_add(b.scale(b.relu(b.upload(x)), 0.5), b.upload(x))
                    s = b.sum(h)
                    await b.execute_async()
                    got = await b.read_async(h)
                    want = np.maximum(x, 0) * np.float32(0.5) + x
                    total = await b.read_async(s)
                if abs(total - float(want.astype(np.float64).sum())) > 1e-2:
                    wrong.append((step, "batch sum", total))
            else:
                got, want = await pycore.sum_async(x), float(x.astype(np.float64).sum())
        except RuntimeError as exc:  # only a GpuArray of a lost device may fail, and it must say so
            if "lost" not in str(exc):
                wrong.append((step, "error", str(exc)[:200]))
            lost_errors += 1
            continue
        checked += 1
        if not np.allclose(got, want, rtol=1e-4, atol=1e-3):
            wrong.append((step, kind, float(np.nanmax(np.abs(np.asarray(got) - want)))))
finally:
    for n in names:
        setattr(transport_cls, n, real[n])
final = await pycore.relu_async(np.ones(4, np.float32), backend="gpu")
t = u = None  # the last step's arrays
import gc
gc.collect()
info = pycore.info()
{"wrong": wrong, "losses": losses[0], "lost_errors": lost_errors, "checked": checked,
 "backend": info["backend"], "recoveries": info["device_recoveries"],
 "counted_losses": info["device_losses"], "memory": info["memory"]}
"""


def fault_run(target, steps: int) -> dict:
    r = target.py(FAULTS.replace("STEPS", str(steps)))
    assert r["wrong"] == [], r["wrong"]
    assert r["losses"] >= 3, r  # the seed loses the device several times
    assert r["backend"] == "webgpu" and r["recoveries"] == r["counted_losses"] >= 1
    assert r["checked"] >= steps * 0.8
    assert r["memory"]["buffers_in_use"] == 0
    return r


def test_random_device_losses_in_a_long_workload_give_no_wrong_answer_in_the_browser(browser, server):
    page = boot(browser, server.url + "/")  # its own page: the device is lost many times
    try:
        fault_run(page, 400)
    finally:
        page.close()


def test_random_device_losses_in_a_long_workload_give_no_wrong_answer_natively():
    worker = Native()
    try:
        assert worker.ready()["transport"] == "native"
        fault_run(worker, 400)
    finally:
        worker.close()


def test_an_out_of_memory_allocation_names_memory_and_auto_falls_back(gpu):
    # A failed allocation, as the transport reports it (the browser: an out-of-memory error scope
    # around createBuffer, settled with the read; natively: at once).
    r = gpu.py("""
from pycore.engine.device import GpuOutOfMemoryError
dev = pycore.engine.runtime.RUNTIME.device
transport = dev.transport
cls = type(transport)
real = cls.create_buffer_checked
def failing(self, size, usage, label=""):
    if self.name == "native":
        raise MemoryError(f"Out of memory allocating {size} bytes")
    import js
    buf, _ = real(self, size, usage, label)
    return buf, js.Promise.resolve("out-of-memory error: could not allocate")
x = np.ones(6_000_000, np.float32)  # 24 MB: a checked allocation
dev.pool.clear()
in_use_before = pycore.info()["memory"]["buffers_in_use"]
cls.create_buffer_checked = failing
try:
    try:
        await pycore.relu_async(x, backend="gpu")
        forced = None
    except GpuOutOfMemoryError as exc:
        forced = str(exc)
    auto = await pycore.relu_async(x, backend="auto")
    why = pycore.trace()[-1]["why"]
finally:
    cls.create_buffer_checked = real
ok = await pycore.relu_async(x, backend="gpu")
{"forced": forced, "is_memory_error": issubclass(GpuOutOfMemoryError, MemoryError),
 "auto": bool(np.array_equal(auto, x)), "why": why, "ok": bool(np.array_equal(ok, x)),
 "in_use": pycore.info()["memory"]["buffers_in_use"] - in_use_before}
""")
    assert r["forced"] and "memory" in r["forced"].lower() and "24,000,000 bytes" in r["forced"], r
    assert r["is_memory_error"] and r["auto"] and "out of memory" in r["why"] and r["ok"]
    assert r["in_use"] == 0


def test_buffers_at_the_binding_limit_allocate_on_swiftshader(gpu_page):
    # SwiftShader advertises 1 GiB buffers but cannot allocate exactly 1 GiB: the pool must never
    # round a request up to it, and the chunked path must use chunks it can allocate.
    r = gpu_page.py("""
errors_before = pycore.info()["gpu_errors"]
x = np.ones(270_000_000, np.float32)          # 1.08 GB: past one binding, summed in chunks
total = float(await pycore.sum_async(x, backend="gpu"))  # (of host values: a NumPy scalar)
t = await pycore.to_gpu_async(x[:pycore.engine.runtime.RUNTIME.device.max_binding // 4])
part = float(await (await pycore.sum_async(t)).to_numpy_async())  # (of a GpuArray: a 0-D GpuArray)
t.release()
del x
{"total": total, "part": part, "max_binding": pycore.engine.runtime.RUNTIME.device.max_binding,
 "new_errors": pycore.info()["gpu_errors"] != errors_before}
""")
    assert r["total"] == 270_000_000.0 and r["part"] == r["max_binding"] // 4 and not r["new_errors"]


@pytest.mark.parametrize("snippet, needle", [
    ("b = pycore.CommandBatch(); h = b.relu(b.upload([1.0])); await b.execute_async(); b.relu(h)",
     "executed already"),
    ("await pycore.leaky_relu_async([1.0], alpha=10**400)", "alpha is too large"),
])
def test_misuse_gets_a_clear_error(gpu, snippet, needle):
    r = gpu.py(f"""
try:
    {snippet}
    error = None
except (RuntimeError, ValueError) as exc:
    error = str(exc)
error
""")
    assert r and needle in r


def test_long_fused_chains_and_dropped_batches(gpu):
    r = gpu.py("""
import gc
x = np.linspace(-1, 1, 1024, dtype=np.float32)
b = pycore.CommandBatch()
h = b.upload(x)
for i in range(1200):  # one long chain of dropped handles: fused in kernels of at most 32 steps
    h = b.scale(h, 1.0 if i % 2 else -1.0)
await b.execute_async()
chain = bool(np.array_equal(await b.read_async(h), x))
kernels = len(b.fused)
b.release()
base = pycore.info()["memory"]["bytes_in_use"]
for _ in range(5):  # batches dropped without release() give their buffers back when collected
    d = pycore.CommandBatch()
    d.relu(d.upload(x))
    await d.execute_async()
    del d
gc.collect()
compiled = [k for k in pycore.engine.runtime.RUNTIME.device.pipelines if k[0] == "generated"]
{"chain": chain, "kernels": kernels, "leaked": pycore.info()["memory"]["bytes_in_use"] - base,
 "compiled_fused": len(compiled)}
""")
    assert r["chain"] and 1200 // 32 <= r["kernels"] <= 1200 // 16
    assert r["leaked"] == 0 and r["compiled_fused"] <= 128


def test_native_loss_found_through_a_failing_call_falls_back_then_recovers():
    # wgpu-native reports no loss by itself: a call that fails with "Parent device is lost" must
    # switch pycore to NumPy (the call answered there), and the next call gets a new device.
    worker = Native()
    try:
        assert worker.ready()["transport"] == "native"
        r = worker.py("""
x = np.random.default_rng(4).normal(size=(33, 20)).astype(np.float32)
await pycore.relu_async(x, backend="gpu")
pycore.engine.runtime.RUNTIME.device.transport.device.destroy()  # the raw wgpu device, behind pycore's back
y = await pycore.softmax_async(x, backend="gpu")  # needs a new pipeline: wgpu says the device is lost
first = pycore.trace()[-1]
z = await pycore.gelu_async(x, backend="gpu")
OPS = pycore.tables.ops.OPS
{"softmax": bool(np.allclose(y, OPS["softmax"].numpy(x), atol=1e-6)), "first": first["backend"],
 "why": first["why"], "gelu": bool(np.allclose(z, OPS["gelu"].numpy(x), atol=1e-5)),
 "then": pycore.trace()[-1]["backend"], "recoveries": pycore.info()["device_recoveries"]}
""")
        assert r["softmax"] and r["first"] == "numpy" and "device lost during the call" in r["why"], r
        assert r["gelu"] and r["then"] == "webgpu" and r["recoveries"] == 1
    finally:
        worker.close()


def test_matmul_past_the_loop_cap_on_gpu_arrays_is_refused_clearly(native):
    # lavapipe caps a shader invocation's loops: host inputs are split along K on the host; inputs
    # already on the GPU cannot be, and say so (was: a TypeError from inside pycore).
    r = native.py("""
k = 4 * 65_600
a = np.ones((2, k), np.float32)
b = np.ones((k, 4), np.float32)
ta, tb = await pycore.to_gpu_async(a), await pycore.to_gpu_async(b)
try:
    await pycore.matmul_async(ta, tb, backend="gpu")
    error = None
except ValueError as exc:
    error = str(exc)
host = await pycore.matmul_async(a, b, backend="gpu")
ta.release(); tb.release()
{"error": error, "host": float(host[0, 0]), "cap": pycore.engine.runtime.RUNTIME.device.loop_cap}
""")
    if r["cap"]:
        assert "loop iterations" in r["error"] and "backend='numpy'" in r["error"], r
    assert r["host"] == 4 * 65_600


def test_queued_work_keeps_its_inputs_until_it_is_submitted(gpu):
    # Ops on GpuArrays are queued, not submitted one by one: an input released meanwhile must not
    # be handed to an upload (writeBuffer runs before a later submit) while queued work reads it.
    r = gpu.py("""
import gc
rng = np.random.default_rng(11)
bad = []
for round_ in range(20):
    x = rng.normal(size=4096).astype(np.float32)
    t = await pycore.to_gpu_async(x)
    y = await pycore.scale_async(await pycore.relu_async(t), 2.0)   # queued
    t.release()                                                   # its buffer: not free yet
    del t
    gc.collect()
    other = await pycore.to_gpu_async(np.full(4096, 1e6, np.float32))  # an upload of the same size
    z = await pycore.vec_add_async(x, x, backend="gpu")             # a round trip submits the queue
    if not np.array_equal(await y.to_numpy_async(), np.maximum(x, 0) * 2) or not np.array_equal(z, x + x):
        bad.append(round_)
    other.release()
queued = len(pycore.engine.runtime.RUNTIME.device.queued)
{"bad": bad, "queued_after_reads": queued}
""")
    assert r == {"bad": [], "queued_after_reads": 0}


def test_ops_on_gpu_arrays_share_one_submit_until_a_read(gpu):
    r = gpu.py("""
dev = pycore.engine.runtime.RUNTIME.device
transport = type(dev.transport)
real = transport.submit
submits = []
transport.submit = lambda self, commands: (submits.append(len(commands)), real(self, commands))[1]
away = dev.fused_away
try:
    t = await pycore.to_gpu_async(np.arange(1024, dtype=np.float32))
    for _ in range(10):
        t = await pycore.scale_async(t, 1.0)
    during = len(submits)
    value = await t.to_numpy_async()
finally:
    transport.submit = real
{"during": during, "after": submits, "fused": dev.fused_away - away,
 "right": bool(np.array_equal(value, np.arange(1024)))}
""")
    # one submit for the ten ops' work and the read's copy: their kernels, less those fusion left
    # out, and the copy
    assert r["during"] == 0 and r["after"] == [11 - r["fused"]] and r["right"], r


def test_an_interrupted_read_drops_the_queued_work_and_the_next_small_op_is_fast(gpu):
    """Ops queued on GpuArrays, then a read that waits for them is interrupted during its third wait
    for the GPU (as Ctrl+C during that wait would be): the work not yet submitted is dropped, a
    4-element op right after submits only its own kernel (it waits for the slices already
    submitted, about 2 x SLICE_MS),
    the dropped results raise when read, and the inputs stay readable."""
    r = gpu.py("""
import gc, time
from pycore.engine import interrupts
from pycore.engine.device import CancelledWorkError
from pycore.engine.runtime import RUNTIME
async def interrupted_read():
    dev = RUNTIME.device
    gc.collect()
    in_use = pycore.info()["memory"]["buffers_in_use"]
    host = np.random.default_rng(5).random((256, 256)).astype(np.float32) / 256
    x = await pycore.to_gpu_async(host)
    y = await pycore.matmul_async(x, x, backend="gpu")
    before = await y.to_numpy_async()  # (compiled, and read: valid whatever follows)
    # queue until 8 slices are held back (the read then waits at least 3 times, submitting a slice
    # after each wait): each matmul predicted at 5 ms and two slices in flight at most, whatever the
    # cost model learned from earlier calls; a transport that cannot tell when a slice is done, the
    # native one, counts it done when its predicted time has passed, so there each matmul is
    # predicted at 50 ms, longer than a call takes on a slow host (at 5 ms, slices were retired as
    # fast as they filled and none was held)
    ahead, dev.ahead_ms = dev.ahead_ms, 0.0
    predicted = 50.0 if pycore.info()["transport"] == "native" else 5.0
    pycore.SELECTOR.work_ms = lambda *args, **kwargs: predicted
    z, n = y, 0
    try:
        while len(dev.slices) < 8 and n < 5000:
            z = await pycore.matmul_async(z, x, backend="gpu")
            n += 1
    finally:
        del pycore.SELECTOR.work_ms
    held_at_read = len(dev.slices)
    transport = type(dev.transport)
    real, waits = transport.wait_marked_async, []
    async def interrupted_in_the_third_wait(self, mark):
        waits.append(1)
        if len(waits) == 3:
            interrupts._state["pending"] = True  # (what Ctrl+C sets while pycore waits)
        await real(self, mark)
    transport.wait_marked_async = interrupted_in_the_third_wait
    # (what is submitted once the interrupt is pending: the dropped work must not be among it)
    real_submit, real_submit_read, late, reading = (transport.submit, transport.submit_and_read_async,
                                                    [], [])
    counting = False  # (from the interrupted read's return: a slice the pump submitted during its
    # wait, before the interrupt was noticed, is work already submitted)
    def counted(commands):
        if counting and not reading:
            late.extend(type(c).__name__ for c in commands)
    def submit(self, commands):
        counted(commands)
        return real_submit(self, commands)
    async def submit_and_read_async(self, commands, *args):
        counted(commands)
        reading.append(1)  # (a transport's read may submit through its own submit)
        try:
            return await real_submit_read(self, commands, *args)
        finally:
            reading.pop()
    transport.submit, transport.submit_and_read_async = submit, submit_and_read_async
    # (the page's interrupts are for its console's code: this snippet stands in for it)
    target, interrupts._state["target"] = interrupts._state["target"], None
    t = time.perf_counter()
    try:
        await z.to_numpy_async()
        raised = None
    except KeyboardInterrupt:
        raised = "KeyboardInterrupt"
    finally:
        transport.wait_marked_async = real
        dev.ahead_ms = ahead
        interrupts._state["target"] = target
    interrupted_s = time.perf_counter() - t
    t = time.perf_counter()
    counting = True
    try:
        small = await pycore.relu_async(np.array([-1.0, 2.0, -3.0, 4.0], np.float32), backend="gpu")
    finally:
        transport.submit, transport.submit_and_read_async = real_submit, real_submit_read
    small_s = time.perf_counter() - t
    try:
        await z.to_numpy_async()
        dropped = None
    except CancelledWorkError as exc:
        dropped = str(exc)
    waits_traced = [e for e in pycore.trace() if e["op"] == "wait for queued work"]
    inputs_read = [bool(np.array_equal(await x.to_numpy_async(), host)),
                   bool(np.array_equal(await y.to_numpy_async(), before))]
    for a in (x, y, z):
        a.release()
    del x, y, z, a
    gc.collect()
    return {"raised": raised, "n": n, "held_at_read": held_at_read,
            "interrupted_s": interrupted_s, "small_s": small_s,
            "small": small.tolist(), "late": late, "dropped": dropped, "inputs_read": inputs_read,
            "waits_traced": len(waits_traced), "held": len(dev.queued),
            "leaked": pycore.info()["memory"]["buffers_in_use"] - in_use}
await interrupted_read()
""")
    assert r["raised"] == "KeyboardInterrupt", r
    assert r["small"] == [0.0, 2.0, 0.0, 4.0], r
    # once the interrupted read has returned, the only kernel submitted is the small op's own (a
    # dispatch, and the copy that reads it): the held matmuls never reach the GPU, so the small op
    # waits only for the slices submitted before the interrupt
    assert r["late"].count("Dispatch") == 1, r
    assert r["dropped"] and "cancelled by an interrupt (KeyboardInterrupt)" in r["dropped"], r
    assert "matmul" in r["dropped"] and "compute it again" in r["dropped"]
    assert r["inputs_read"] == [True, True] and r["held"] == 0 and r["leaked"] == 0
    assert r["waits_traced"] >= 1  # the interrupted read's wait, charged to the queued work
