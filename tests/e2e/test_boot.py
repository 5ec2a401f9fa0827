"""The page boots on WebGPU, names its versions and adapter, and fetches nothing from elsewhere."""

from __future__ import annotations

from urllib.parse import urlsplit

from tests.conftest import boot
from tests.e2e.test_console import type_line
from tests.unit.test_serve import wheel_facts


def test_boot_reports_webgpu_with_the_adapters_real_limits(gpu_page):
    info = gpu_page.ready()
    assert info["backend"] == "webgpu", info["reason"]
    assert info["adapter"]["architecture"] == "swiftshader"  # what these CPU-only machines have
    # The device was requested with the adapter's limits, not the 128 MiB defaults.
    assert info["limits"]["maxStorageBufferBindingSize"] > 128 << 20
    assert info["limits"]["maxComputeWorkgroupsPerDimension"] >= 65535
    assert gpu_page.py("pycore.info()['backend']") == "webgpu"


def test_status_bar_and_stages(gpu_page):
    page = gpu_page.page
    versions = page.inner_text("#versions")
    for needle in ("Python 3.14", "Pyodide 314.0.7", "NumPy 2.4.6", "pycore 0.1.0"):
        assert needle in versions
    assert page.inner_text("#tier").startswith("WebGPU — google")
    assert page.locator("#stages li.done").count() == 4
    assert page.is_hidden("#error-panel")
    assert page.evaluate("typeof globalThis.pyodide.runPythonAsync") == "function"


def test_page_is_cross_origin_isolated_for_a_fine_clock(gpu_page):
    # serve.py's COOP/COEP headers: the clock the benchmarks and calibration use ticks in 5 µs.
    assert gpu_page.page.evaluate("crossOriginIsolated") is True
    steps = gpu_page.py("""
import time
t = [time.perf_counter() for _ in range(3000)]
sorted({round((b - a) * 1e6) for a, b in zip(t, t[1:]) if b != a})[:1]
""")
    assert steps and steps[0] <= 20, steps


def test_every_request_stays_on_the_servers_origin(gpu_page, server):
    origin = urlsplit(server.url)
    assert len(gpu_page.requests) > 5
    foreign = [u for u in gpu_page.requests
               if urlsplit(u)[:2] != origin[:2] and not u.startswith("data:")]
    assert foreign == []
    assert any(u.endswith("pyodide.asm.wasm") for u in gpu_page.requests)
    assert any("/wheels/numpy-" in u for u in gpu_page.requests)


def test_vendored_numpy_works_in_the_browser(gpu_page):
    result = gpu_page.py("""
import numpy as np
rng = np.random.default_rng(42)
a = rng.standard_normal((40, 40))
b = rng.standard_normal((40, 40))
inv_ok = bool(np.allclose(np.linalg.inv(a) @ a, np.eye(40), atol=1e-8))
solve_ok = bool(np.allclose(a @ np.linalg.solve(a, b), b, atol=1e-8))
ufunc = np.exp(np.log1p(np.arange(5.0)))
eig = np.linalg.eigvalsh(a + a.T)
{"version": np.__version__, "inv": inv_ok, "solve": solve_ok, "ufunc": ufunc.tolist(),
 "matmul": float((a @ b)[3, 7]), "ref": float(sum(a[3, k] * b[k, 7] for k in range(40))),
 "eig_sorted": bool(np.all(np.diff(eig) >= 0)), "fft": np.fft.fft([1.0, 0, 0, 0]).real.tolist()}
""")
    assert result["version"] == "2.4.6"
    assert result["inv"] and result["solve"] and result["eig_sorted"]
    assert result["ufunc"] == [1.0, 2.0, 3.0, 4.0, 5.0] or all(
        abs(u - v) < 1e-12 for u, v in zip(result["ufunc"], [1, 2, 3, 4, 5], strict=True))
    assert abs(result["matmul"] - result["ref"]) < 1e-12
    assert result["fft"] == [1.0, 1.0, 1.0, 1.0]


def test_the_console_takes_input_before_python_is_up_and_runs_it_then(browser, server):
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(server.url + "/?calibrate=manual")
        box = page.locator("#console-input")
        box.wait_for(state="visible")
        assert page.evaluate("() => document.getElementById('boot').classList.contains('finished')") is False
        box.fill("'typed early', 6 * 7")
        box.press("Enter")
        assert "starting Python" in page.inner_text("#console-status")
        assert "1 queued" in page.inner_text("#console-status")
        page.evaluate("() => pycoreReady")
        page.wait_for_function("document.querySelector('#console').getAttribute('aria-busy') === 'false'")
        out = page.inner_text("#console-output")
        assert out.index("Compute:") < out.index(">>> 'typed early'")  # the banner first, then it
        assert out.rstrip().endswith("('typed early', 42)")
    finally:
        context.close()


def test_the_page_works_without_storage(browser, server):
    """localStorage that refuses every write (full, or disabled by the user)."""
    refuse = """for (const name of self.Storage ? ["setItem", "removeItem"] : []) {  // (a page has storage)
      Storage.prototype[name] = () => { throw new DOMException("storage is full", "QuotaExceededError"); };
    }"""
    page = boot(browser, server.url + "/", init_script=refuse)
    try:
        cal = page.py("await pycore.calibrate_async(repeats=1)")  # saving it is refused: still measured
        assert cal["source"].startswith("calibrated")
        type_line(page.page, "1 + 1")
        assert page.page.inner_text("#console-output").rstrip().endswith(">>> 1 + 1\n2")
    finally:
        page.close()


def test_pycore_is_imported_from_the_bytecode_serve_py_compiled(browser, server):
    assert "bytecode" in wheel_facts(server)  # (built in the background: a page loaded now gets it)
    page = boot(browser, server.url + "/")
    try:
        r = page.py("""
import importlib, pycore.calls.api
source = pycore.calls.api.__spec__.origin
with open(pycore.calls.api.__cached__, "rb") as f:
    head = f.read(16)
folder = source.rsplit("/", 1)[0]
{"flags": int.from_bytes(head[4:8], "little"),
 "next_to_source": pycore.calls.api.__cached__.startswith(folder)}
""")
        assert r == {"flags": 3, "next_to_source": True}  # the checked-hash .pyc from serve.py, used
        # and such a .pyc never runs once its source changed (same size, same mtime even)
        assert page.py("""
import os, py_compile, sys
os.makedirs("/tmp/stale", exist_ok=True)
with open("/tmp/stale/stale_mod.py", "w") as f:
    f.write("X = 1\\n")
py_compile.compile("/tmp/stale/stale_mod.py", invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
stat = os.stat("/tmp/stale/stale_mod.py")
with open("/tmp/stale/stale_mod.py", "w") as f:
    f.write("X = 2\\n")
os.utime("/tmp/stale/stale_mod.py", ns=(stat.st_atime_ns, stat.st_mtime_ns))
sys.path.insert(0, "/tmp/stale")
import stale_mod
stale_mod.X
""") == 2
    finally:
        page.close()
