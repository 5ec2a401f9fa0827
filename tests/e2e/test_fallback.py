"""Without WebGPU the page says so, and the same calls give the same answers on NumPy."""

from __future__ import annotations

import pytest

from tests.conftest import boot

SAME_CALL = """
x = np.random.default_rng(3).normal(size=(64, 33)).astype(np.float32)
y = await pycore.relu_async(x)
{"backend": pycore.trace()[-1]["backend"], "sum": float(y.astype(np.float64).sum()),
 "equal": bool(np.array_equal(y, np.maximum(x, 0))), "info": pycore.info()}
"""


def test_null_adapter_falls_back_to_numpy_with_the_same_answer(fallback_page, gpu_page):
    info = fallback_page.ready()
    assert info["backend"] == "numpy" and "requestAdapter() returned null" in info["reason"]
    badge = fallback_page.page.inner_text("#tier")
    assert badge.startswith("NumPy fallback") and len(badge) < 40  # short; a click says why
    assert not fallback_page.page.locator("#tier-help").is_visible()
    fallback_page.page.click("#tier")
    help_text = fallback_page.page.inner_text("#tier-help")
    assert "requestAdapter() returned null" in help_text and "--enable-unsafe-webgpu" in help_text
    fallback_page.page.click("#tier")
    assert not fallback_page.page.locator("#tier-help").is_visible()
    on_cpu, on_gpu = fallback_page.py(SAME_CALL), gpu_page.py(SAME_CALL)
    assert on_cpu["backend"] == "numpy" and on_gpu["backend"] == "webgpu"
    assert on_cpu["equal"] and on_gpu["equal"] and on_cpu["sum"] == on_gpu["sum"]


def test_missing_navigator_gpu(browser, server):
    page = boot(browser, server.url + "/",
                init_script="delete (self.WorkerNavigator ?? self.Navigator).prototype.gpu;")
    try:
        info = page.ready()
        assert info["backend"] == "numpy" and "navigator.gpu is missing" in info["reason"]
        page.page.click("#tier")
        assert "navigator.gpu is missing" in page.page.inner_text("#tier-help")
        assert page.py(SAME_CALL)["equal"]
    finally:
        page.close()


def test_lost_device_falls_back_at_once_then_gets_a_new_device(browser, server):
    page = boot(browser, server.url + "/")
    try:
        assert page.ready()["backend"] == "webgpu"
        result = page.py("""
import asyncio
pycore.engine.runtime.RUNTIME.device.transport.device.destroy()  # behind pycore's back
for _ in range(100):  # the loss is reported asynchronously
    if pycore.info()["backend"] != "webgpu":
        break
    await asyncio.sleep(0.01)
lost_info = pycore.info()
""" + SAME_CALL.replace("relu_async(x)", 'relu_async(x, backend="gpu")')
                          .replace('"info": pycore.info()', '"info": pycore.info(), "lost_info": lost_info'))
        assert result["lost_info"]["backend"] == "numpy" and "device lost" in result["lost_info"]["reason"]
        assert result["backend"] == "webgpu" and result["equal"]  # the call got a new device
        info = result["info"]
        assert info["device_recoveries"] == 1 and "after the last was lost" in info["reason"]
        box = page.page.locator("#console-input")
        box.fill("1")
        box.press("Enter")
        page.page.wait_for_function("document.querySelector('#tier').textContent.startsWith('WebGPU')")
    finally:
        page.close()


@pytest.mark.parametrize("route, stage, needle", [
    ("**/pyodide*/pyodide.asm.wasm", "Python runtime", "application/wasm"),
    ("**/wheels/numpy-*.whl", "NumPy", "numpy"),
])
def test_a_broken_stage_shows_the_error_panel(browser, server, route, stage, needle):
    context = browser.new_context()
    try:
        page = context.new_page()
        if "wasm" in route:  # the classic: a wrong MIME type makes loadPyodide hang
            def wrong_type(r):
                resp = r.fetch()
                r.fulfill(response=resp, headers={**resp.headers, "content-type": "text/plain"})
        else:
            def wrong_type(r):
                r.fulfill(status=404, body="gone")
        page.route(route, wrong_type)
        page.goto(server.url + "/?stageTimeout=8000")
        error = page.evaluate("() => pycoreReady.then(() => null, (e) => e.message)")
        assert error and needle in error
        page.wait_for_selector("#error-panel:not([hidden])")
        assert page.inner_text("#error-stage") == stage
        assert needle in page.inner_text("#error-message")
        assert page.locator("#stages li.failed").count() == 1
        assert not page.locator("#console-input").is_visible()  # no prompt without Python behind it
    finally:
        context.close()
