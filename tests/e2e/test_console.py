"""The console behaves like Python's: blocks, top-level await, _, tracebacks, completion, history."""

from __future__ import annotations

import re

from playwright.sync_api import expect


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
    expect(box).to_have_value("pycore.relu_async(")  # (the completion comes from the Python worker)
    box.fill("")
    type_line(page, "41 + 1")
    box.press("ArrowUp")
    assert box.input_value() == "41 + 1"
    box.press("ArrowDown")
    assert box.input_value() == ""


def test_results_are_pretty_printed_and_long_output_is_elided_between_items(gpu_page):
    page = gpu_page.page
    type_line(page, "{'name': 'relu', 'sizes': list(range(40)), 'nested': {'a': [1.5] * 3}}")
    out = output_after(page, ">>> {'name'")
    assert "{'name': 'relu',\n 'sizes': [0, 1, 2," in out  # pprint: one key a line, items packed
    type_line(page, "np.arange(6, dtype=np.float32).reshape(2, 3)")
    assert "array([[0., 1., 2.],\n       [3., 4., 5.]], dtype=float32)" in output_after(
        page, ">>> np.arange(6")
    type_line(page, "g = await pycore.to_gpu_async(np.ones((4, 8))); g")
    assert "GpuArray(shape=(4, 8), dtype=float32, nbytes=128, device='webgpu')" in output_after(
        page, ">>> g =")
    type_line(page, "' '.join(str(10 ** 12 + i) for i in range(5000))")  # one line of 70 KB
    out = output_after(page, ">>> ' '.join(")
    assert "more characters) ..." in out and len(out) < 4000
    shown = out.split("\n")[1]  # whole numbers on both sides of the gap, never a cut one
    assert re.fullmatch(r"'(\d{13} )+\.\.\. \([\d,]+ more characters\) \.\.\.( \d{13})+'", shown), shown
    type_line(page, "list(range(100000))")  # many lines: the middle ones go, whole
    out = output_after(page, ">>> list(range(100000))")
    assert "more lines) ..." in out and out.rstrip().endswith("99999]")


def test_syntax_errors_are_named_syntaxerror(gpu_page):
    page = gpu_page.page
    type_line(page, "def f(:")
    out = output_after(page, ">>> def f(:")
    assert "SyntaxError" in out and "_IncompleteInputError" not in out
    gpu_page.page.evaluate("() => pycoreConsole.run('x = [1,\\n     2,\\nfor')")
    page.wait_for_function("document.querySelector('#console').getAttribute('aria-busy') === 'false'")
    out = output_after(page, ">>> x = [1,")
    assert "SyntaxError" in out and "_IncompleteInputError" not in out


def test_argument_errors_end_in_the_users_frame_internal_errors_keep_pycores(gpu_page):
    page = gpu_page.page
    type_line(page, "await pycore.matmul_async(np.ones((2, 3)), np.ones((2, 3)))")
    out = output_after(page, ">>> await pycore.matmul_async")
    assert 'File "<console>", line 1' in out and "pycore/" not in out
    assert out.rstrip().endswith("must equal b's rows (2)")
    type_line(page, "await pycore.relu_async(np.ones(3), backend='tpu')")
    assert "pycore/" not in output_after(page, ">>> await pycore.relu_async(np.ones(3), backend")
    # a failure inside pycore (here: a program made to fail) keeps them
    type_line(page, "from pycore.calls.programs import PROGRAMS; PROGRAMS['unary'].numpy = lambda *a: 1 / 0")
    type_line(page, "await pycore.relu_async(np.ones(3), backend='numpy')")
    type_line(page, "del PROGRAMS['unary'].numpy")
    out = output_after(page, ">>> await pycore.relu_async(np.ones(3), backend='numpy')")
    assert "pycore/calls/dispatch.py" in out and "ZeroDivisionError" in out


def test_a_forgotten_await_gets_a_hint(gpu_page):
    page = gpu_page.page
    type_line(page, "pycore.relu_async(np.array([-1.0, 3.0]))")
    out = output_after(page, ">>> pycore.relu_async(np.array")
    assert "<coroutine object" in out and "forget `await`" in out
    type_line(page, "await _")
    assert "array([0., 3.], dtype=float32)" in output_after(page, ">>> await _")


def test_multi_line_paste_runs_as_one_block(gpu_page):
    page = gpu_page.page
    pasted = "def double(x):\n    return 2 * x\nvalues = [double(i) for i in range(3)]\nvalues"
    page.locator("#console-input").fill(pasted)
    page.locator("#console-input").press("Enter")
    page.wait_for_function("document.querySelector('#console').getAttribute('aria-busy') === 'false'")
    out = output_after(page, ">>> def double(x):")
    assert "...     return 2 * x" in out and out.rstrip().endswith("[0, 2, 4]")
    assert page.inner_text("#console-prompt").strip() == ">>>"


def test_numpy_and_pycore_are_preimported(gpu_page):
    page = gpu_page.page
    type_line(page, "np.__name__, pycore.info()['backend']")
    assert "('numpy', 'webgpu')" in output_after(page, ">>> np.__name__")


def test_history_is_kept_across_reloads(browser, server):
    from tests.conftest import boot

    page = boot(browser, server.url + "/")
    try:
        type_line(page.page, "'remembered' + '!'")
        page.page.reload()
        page.ready()
        page.page.wait_for_selector("#console-input:not([disabled])")
        box = page.page.locator("#console-input")
        box.press("ArrowUp")
        assert box.input_value() == "'remembered' + '!'"
    finally:
        page.close()
