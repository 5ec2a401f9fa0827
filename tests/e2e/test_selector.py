"""backend="auto" in the browser: the selector's choices, explain(), calibration and its storage."""

from __future__ import annotations

from tests.conftest import boot


def test_calibration_is_measured_saved_and_reloaded(browser, server):
    page = boot(browser, server.url + "/")
    try:
        cal = page.py("await pycore.calibrate_async(repeats=3)")  # (a median of 3: one hiccup cannot move it)
        assert cal["source"].startswith("calibrated") and "WebGPU" in cal["source"]
        for key in ("dispatch_ms", "upload_gbps", "readback_gbps"):
            assert cal[key] > 0
        assert cal["gpu_gflops"]["matmul"] > 0 and cal["numpy_gflops"]["unary"] > 0
        page.page.reload()
        page.ready()
        again = page.py("pycore.SELECTOR.calibration.source")
        assert again == cal["source"]  # loaded from localStorage by init
        r = page.py("""
small = pycore.explain("relu", (100,))
big = pycore.explain("matmul", (512, 512), (512, 512))
await pycore.relu_async(np.ones(100))
{"small": small, "big": big, "traced": pycore.trace()[-1]}
""")
        assert r["small"]["choice"] == "numpy"  # a 100-element op never repays a GPU round trip
        # the measured rates decide (SwiftShader's matmul beat NumPy without BLAS on one CPU and lost
        # to it on a 2-core CPU without AVX-512): the choice follows explain's own predictions
        big = r["big"]
        assert big["calibration"] == cal["source"] and big["prediction_from"].startswith("calibrated"), big
        assert big["choice"] == big["predicted_choice"] == (
            "webgpu" if big["gpu_ms"] * big["margin"] <= big["numpy_ms"] else "numpy"), big
        assert r["traced"]["backend"] == "numpy" and "predicted" in r["traced"]["why"]
        assert set(r["big"]) >= {"gpu_ms", "numpy_ms", "choice", "why", "calibration", "margin"}
    finally:
        page.close()


def test_forced_backends(gpu_page, fallback_page):
    r = gpu_page.py("""
a = await pycore.relu_async([1.0, -1.0], backend="numpy")
b_backend = pycore.trace()[-1]["backend"]
c = await pycore.relu_async([1.0, -1.0], backend="gpu")
{"a": pycore.trace()[-2]["backend"], "c": pycore.trace()[-1]["backend"], "same": a.tolist() == c.tolist()}
""")
    assert r == {"a": "numpy", "c": "webgpu", "same": True}
    err = fallback_page.py("""
try:
    await pycore.relu_async([1.0], backend="gpu")
    err = None
except RuntimeError as exc:
    err = str(exc)
err
""")
    assert "backend='gpu'" in err and "no WebGPU device" in err


def test_auto_settles_a_close_call_by_measuring(gpu):
    # Injected numbers make the two predictions for a 4096-element relu 10% apart; auto then times
    # both backends on real calls and keeps the faster, and explain() shows what it measured.
    r = gpu.py("""
import pycore.choice.selector as selector
from pycore.choice.selector import Calibration
saved = (pycore.SELECTOR.calibration, pycore.SELECTOR.margin, selector.CORRECT_AFTER)
selector.CORRECT_AFTER = 1 << 30  # (the injected rates stay: corrections by use are tested apart)
pycore.SELECTOR.calibration = Calibration(dispatch_ms=0.9, numpy_call_ms=1.0)
pycore.SELECTOR.margin = 1.0
pycore.SELECTOR.forget_measurements()
x = np.linspace(-1, 1, 4096, dtype=np.float32)
try:
    ran, ok = [], True
    n = pycore.SELECTOR.samples
    for _ in range(2 * n + 2):
        y = await pycore.relu_async(x)
        ok = ok and bool(np.array_equal(y, np.maximum(x, 0)))
        ran.append(pycore.trace()[-1]["backend"])
    seen = pycore.SELECTOR.measured(pycore.tables.ops.OPS["relu"], [(4096,)])
    out = {"n": n, "ran": ran, "ok": ok, "explain": pycore.explain("relu", (4096,)), "seen": seen,
           "why": pycore.trace()[-1]["why"]}
finally:
    pycore.SELECTOR.calibration, pycore.SELECTOR.margin, selector.CORRECT_AFTER = saved
    pycore.SELECTOR.forget_measurements()
out
""")
    assert r["ok"]
    n = r["n"]
    assert r["ran"][:2 * n] == ["webgpu", "numpy"] * n, r["ran"]
    faster = min(r["seen"], key=lambda b: sorted(r["seen"][b])[n // 2])
    assert r["ran"][2 * n:] == [faster, faster] and r["explain"]["choice"] == faster
    assert r["why"].startswith("measured here") and r["explain"]["predicted_choice"] == "webgpu"
    assert all(len(t) == n and min(t) > 0 for t in r["seen"].values()), r["seen"]


def test_auto_runs_on_numpy_what_the_gpu_cannot_take(gpu):
    # A 1 x 1.1M image and a product with 10M columns need more workgroups per dimension than a
    # device has: auto (margin 0 here: it would pick the GPU) raised what backend="gpu" raises.
    r = gpu.py("""
image, kernel = np.linspace(-1, 1, 1_100_000, dtype=np.float32).reshape(1, -1), np.float32([[2.0]])
a, b = np.float32([[3.0]]), np.arange(10_000_000, dtype=np.float32).reshape(1, -1)
out = {}
for name, call, ref in (("conv", lambda **k: pycore.convolve2d_async(image, kernel, **k), image * 2),
                        ("matmul", lambda **k: pycore.matmul_async(a, b, **k), b * 3)):
    got = await call()
    out[name] = [bool(np.array_equal(got, ref)), pycore.trace()[-1]["backend"], pycore.trace()[-1]["why"]]
    try:
        await call(backend="gpu")
    except ValueError as exc:
        out[name].append(str(exc))
plan = pycore.explain("convolve2d", (1, 1_100_000), (1, 1))
out["explain"] = [plan["choice"], plan["why"]]
out
""")
    for name, needs in (("conv", "an output of 1 x 1100000 needs more than the device's"),
                        ("matmul", "n = 10000000 columns needs more than the device's")):
        equal, backend, why, error = r[name]
        assert equal and backend == "numpy", r[name]
        assert why.startswith("the GPU cannot take these shapes") and needs in why and why.endswith("NumPy")
        assert needs in error and "workgroups per dimension" in error
    assert r["explain"][0] == "numpy" and "cannot take these shapes" in r["explain"][1]


CALIBRATION_TEXT = "(document.getElementById('calibration')?.textContent ?? '')"


def calibration_done(page) -> int:
    """Steps done so far, as the page's header shows them ("calibrating 7/44")."""
    text = page.evaluate(f"() => {CALIBRATION_TEXT}")
    return int(text.split()[1].split("/")[0]) if text.startswith("calibrating") else -1


def test_the_page_calibrates_itself_when_idle_gives_way_and_resumes(browser, server):
    page = boot(browser, server.url + "/?calibrate=background")
    p = page.page
    try:
        assert page.py("pycore.SELECTOR.calibration.source").startswith("defaults measured on a CPU adapter")
        p.wait_for_function(f"/calibrating ([3-9]|\\d\\d)\\//.test({CALIBRATION_TEXT})", timeout=60_000)
        # the user's calls come first: while they keep coming, no step starts (one under way may end).
        # Steps done are counted from the saved state, in the worker, once the user's calls run.
        before = calibration_done(p)
        r = page.py("""
import json, time
from pycore.bench.calibrate import PARTIAL, storage_key
from pycore.engine.runtime import RUNTIME
from pycore.engine.settings import STORE
def steps_done():
    saved = STORE.load(storage_key(RUNTIME.device) + PARTIAL)
    return len(json.loads(saved)["done"]) if saved else 0
await pycore.relu_async(np.ones(1000), backend="gpu")
first = steps_done()
t = time.perf_counter()
while time.perf_counter() - t < 3:
    await pycore.relu_async(np.ones(1000), backend="gpu")
[first, steps_done()]""")
        assert r[1] <= r[0] + 1, r
        partial = p.evaluate("() => Object.keys(localStorage).filter((k) => k.endsWith(':partial'))")
        assert len(partial) == 1 and "swiftshader" in partial[0]  # kept per adapter
        # a reload resumes where it stopped
        p.reload()
        page.ready()
        p.wait_for_function(f"/calibrating \\d+\\//.test({CALIBRATION_TEXT})", timeout=60_000)
        assert calibration_done(p) > before
        p.wait_for_function(f"{CALIBRATION_TEXT} === 'calibrated'", timeout=180_000)
        r = page.py("""cal = pycore.SELECTOR.calibration
{"source": cal.source, "traced": [e["op"] for e in pycore.trace()],
 "matmul": cal.gpu_gflops.get("matmul")}""")
        assert "(in the background)" in r["source"] and r["matmul"] > 0
        assert r["traced"] == []  # its calls are not the user's: not in the trace
        keys = p.evaluate("() => Object.keys(localStorage).filter((k) => k.startsWith('pycore.calibration'))")
        assert len(keys) == 1 and not keys[0].endswith(":partial")
        # the next visit uses it at once
        p.reload()
        page.ready()
        assert page.py("pycore.SELECTOR.calibration.source") == r["source"]
    finally:
        page.close()


def test_auto_keeps_work_on_the_gpu_behind_queued_kernels(gpu):
    # Injected numbers make NumPy the cost model's pick for a small add; on GpuArrays behind queued
    # GPU work auto still runs it on the GPU (NumPy would wait for that work and read back), and
    # with nothing queued the cost model decides.
    r = gpu.py("""
import asyncio
import pycore.choice.selector as selector
from pycore.choice.selector import Calibration
from pycore.engine.runtime import RUNTIME
saved = (pycore.SELECTOR.calibration, pycore.SELECTOR.margin, selector.CORRECT_AFTER)
selector.CORRECT_AFTER = 1 << 30
slow = dict(Calibration().gpu_gflops, binary=1e-6)  # (element-wise binary ops: the GPU rated slow)
pycore.SELECTOR.calibration = Calibration(gpu_gflops=slow, upload_gbps=1000.0, readback_gbps=1000.0,
                                          numpy_call_ms=0.001)
pycore.SELECTOR.margin = 1.0
pycore.SELECTOR.forget_measurements()
try:
    a = await pycore.to_gpu_async(np.ones((256, 256), np.float32))
    await a.to_numpy_async()
    for _ in range(100):  # (until the GPU is known to be idle)
        if RUNTIME.device.pending_work()[0] == 0:
            break
        await asyncio.sleep(0.01)
    idle = RUNTIME.device.pending_work()[0] == 0
    y = await pycore.add_async(a, 1.0)
    alone = pycore.trace()[-1]["backend"]
    z = await pycore.matmul_async(a, a, backend="gpu")
    queued = RUNTIME.device.pending_work()[0]
    w = await pycore.add_async(z, 1.0)
    behind = (pycore.trace()[-1]["backend"], pycore.trace()[-1]["why"])
    value = await w.to_numpy_async()
    out = {"idle": idle, "alone": alone, "queued": queued, "behind": behind,
           "ok": bool(np.array_equal(value, np.full((256, 256), 257.0, np.float32)))}
finally:
    pycore.SELECTOR.calibration, pycore.SELECTOR.margin, selector.CORRECT_AFTER = saved
    pycore.SELECTOR.forget_measurements()
a = y = z = w = None
out
""")
    assert r["ok"] and r["idle"] and r["alone"] == "numpy", r
    assert r["queued"] > 0 and r["behind"][0] == "webgpu" and "queued kernel" in r["behind"][1], r
