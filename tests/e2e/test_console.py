"""The console behaves like Python's: blocks, top-level await, _, tracebacks, completion, history."""

from __future__ import annotations

from tests.conftest import ARTIFACTS


def type_line(page, text: str) -> None:
    box = page.locator("#console-input")
    box.fill(text)
    box.press("Enter")
    page.wait_for_function("document.querySelector('#console').getAttribute('aria-busy') === 'false'")


def output_after(page, marker: str) -> str:
    text = page.inner_text("#console-output")
    return text[text.rindex(marker):]


def test_banner_names_versions_and_backend(gpu_page):
    text = gpu_page.page.inner_text("#console-output")
    assert "Python 3.14" in text and "pycore 0.1.0" in text and "Compute: WebGPU" in text


def test_multi_line_block_with_continuation_prompt(gpu_page):
    page = gpu_page.page
    type_line(page, "for i in range(3):")
    assert page.inner_text("#console-prompt").strip() == "..."
    type_line(page, "    print('row', i * 10)")
    type_line(page, "")
    assert page.inner_text("#console-prompt").strip() == ">>>"
    out = output_after(page, ">>> for i in range(3):")
    assert "... " in out and "row 0\nrow 10\nrow 20" in out


def test_top_level_await_repr_and_underscore(gpu_page):
    page = gpu_page.page
    type_line(page, "y = await pycore.relu_async(np.array([-1.5, 0.5, 2.0]))")
    type_line(page, "y")
    assert "array([0. , 0.5, 2. ], dtype=float32)" in output_after(page, ">>> y\n")
    type_line(page, "_ * 2")
    assert "array([0., 1., 4.], dtype=float32)" in output_after(page, ">>> _ * 2")


def test_traceback_is_trimmed_to_user_code(gpu_page):
    page = gpu_page.page
    type_line(page, "def boom(): return {}['missing']")
    type_line(page, "")
    type_line(page, "boom()")
    out = output_after(page, ">>> boom()")
    assert "Traceback (most recent call last):" in out and "KeyError: 'missing'" in out
    assert 'File "<console>"' in out
    assert "_pyodide" not in out and "pyodide/console.py" not in out
    type_line(page, "1 + 1")  # the console still works afterwards
    assert output_after(page, ">>> 1 + 1").strip().endswith("2")


def test_tab_completion_and_history(gpu_page):
    page = gpu_page.page
    box = page.locator("#console-input")
    box.fill("pycore.relu_as")
    box.press("Tab")
    assert box.input_value() == "pycore.relu_async("
    box.fill("")
    type_line(page, "41 + 1")
    box.press("ArrowUp")
    assert box.input_value() == "41 + 1"
    box.press("ArrowDown")
    assert box.input_value() == ""


def test_numpy_and_pycore_are_preimported(gpu_page):
    page = gpu_page.page
    type_line(page, "np.__name__, pycore.info()['backend']")
    assert "('numpy', 'webgpu')" in output_after(page, ">>> np.__name__")
    # The README's screenshot: the console after this module's session.
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "console.png"))
