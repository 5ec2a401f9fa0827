"""pycore where Python-in-the-browser users already are: the offline JupyterLite site that
scripts/lite.py builds (examples/pycore.ipynb run cell by cell in the notebook UI, on WebGPU), and
the pycore wheel installed with micropip in Pyodide's own console page."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harness import ROOT, Server

pytestmark = pytest.mark.e2e
NOTEBOOK = json.loads((ROOT / "examples" / "pycore.ipynb").read_text())
IDLE = "() => document.querySelector('.jp-Notebook-ExecutionIndicator')?.dataset.status === 'idle'"


@pytest.fixture(scope="module")
def lite_site() -> Path:
    """The site, built as the README says (JupyterLite from PyPI, Pyodide from node_modules)."""
    if not all(importlib.util.find_spec(m) for m in ("jupyterlite_core", "jupyterlite_pyodide_kernel")):
        pytest.fail("JupyterLite is not installed: pip install -e '.[test]' (scripts/test.sh does)")
    from scripts import lite

    return lite.build()


@pytest.fixture(params=["webgpu", "numpy"])
def tier(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def page(request: pytest.FixtureRequest, server: Server) -> Iterator[Any]:
    """A page of Chromium with WebGPU, or (tier "numpy") without it."""
    tier = request.getfixturevalue("tier") if "tier" in request.fixturenames else "webgpu"
    browser = request.getfixturevalue("browser" if tier == "webgpu" else "browser_no_webgpu")
    context = browser.new_context()
    page = context.new_page()
    page.requests = []  # every URL the page and its workers asked for
    context.on("request", lambda r: page.requests.append(r.url))
    yield page
    context.close()


def off_origin(page: Any, server: Server) -> list[str]:
    return [u for u in page.requests if not u.startswith(server.url + "/") and not u.startswith("data:")]


def run_cell(page: Any, index: int, timeout_s: float = 120) -> str:
    """Run code cell `index` (Shift+Enter on it) and wait for its execution count: its text after."""
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    cell.locator(".jp-InputArea-prompt").click()  # select it (command mode), not its editor
    page.keyboard.press("Shift+Enter")
    prompt = cell.locator(".jp-InputArea-prompt")
    page.wait_for_function("(el) => /\\[\\d+\\]/.test(el.textContent)", arg=prompt.element_handle(),
                           timeout=timeout_s * 1e3)
    page.wait_for_function(IDLE, timeout=timeout_s * 1e3)
    return cell.inner_text()


def test_the_example_notebook_runs_in_jupyterlite_on_webgpu_and_on_numpy(tier, page, server, lite_site):
    page.goto(server.url + "/lite/notebooks/index.html?path=pycore.ipynb")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    page.wait_for_function(IDLE, timeout=120_000)
    outputs = {}
    for i, cell in enumerate(NOTEBOOK["cells"]):
        if cell["cell_type"] == "code":
            outputs["".join(cell["source"]).splitlines()[0]] = run_cell(page, i)

    def output(first_line: str) -> str:
        return outputs[first_line]

    assert "Error" not in output("%pip install pycore")
    info = output("import numpy as np")
    assert f"'backend': '{tier}'" in info, info
    assert "array([0. , 0. , 0. , 0. , 0. , 0.5, 1. , 1.5, 2. ], dtype=float32)" in output(
        "x = np.linspace(-2, 2, 9, dtype=np.float32)")
    matmul = output("rng = np.random.default_rng(0)")
    assert f"{tier} max |error| vs float64:" in matmul, matmul
    assert float(matmul.rsplit("vs float64: ", 1)[1].split()[0]) < 1e-3
    assert f"device='{tier}'" in output("t = await pycore.to_gpu_async(a)")
    assert ("'gpu':" in output("import time")) == (tier == "webgpu")
    error = output("await pycore.matmul_async(np.ones((2, 3)), np.ones((2, 3)))")
    assert "ValueError: matmul: a is (2, 3) and b is (2, 3)" in error
    assert "skipping hidden" in error and "dispatch.py" not in error  # pycore's own frames left out
    errors = [text for first, text in outputs.items() if "Traceback" in text or "Error:" in text]
    assert len(errors) == 1, errors  # only the cell that shows an error on purpose
    if tier == "numpy":
        assert off_origin(page, server) == []
        return

    # Settings (the calibration) go to IndexedDB in the kernel's worker, which has no localStorage.
    assert "'settings': 'IndexedDB'" in info, info
    page.locator(".jp-Notebook .jp-Cell").last.locator(".jp-InputArea-prompt").click()
    page.keyboard.press("b")  # a new cell below the last
    page.keyboard.press("Enter")
    page.keyboard.type("from pycore.engine.settings import STORE; STORE.save('pycore.test', 'kept'); "
                       "STORE.load('pycore.test')")
    page.keyboard.press("Shift+Enter")
    page.wait_for_function(IDLE, timeout=60_000)
    page.wait_for_timeout(500)
    stored = page.evaluate("""() => new Promise((resolve, reject) => {
      const req = indexedDB.open("pycore", 1);
      req.onerror = () => reject(req.error);
      req.onsuccess = () => {
        const get = req.result.transaction("settings").objectStore("settings").get("pycore.test");
        get.onsuccess = () => resolve(get.result ?? null);
      };
    })""")
    assert stored == "kept"
    assert off_origin(page, server) == []


def test_the_wheel_installs_with_micropip_in_pyodides_own_console(page, server):
    page.goto(server.url + "/pyodide/console.html")
    page.wait_for_function("() => document.querySelector('.terminal-output')?.innerText.includes('Welcome')",
                           timeout=60_000)
    wheel = json.loads(page.evaluate("() => fetch('/pycore-wheel.json').then((r) => r.text())"))["url"]
    for line in ["import micropip", f"await micropip.install('{server.url}{wheel}')",
                 "import numpy as np, pycore",
                 "(await pycore.relu_async(np.array([-1.0, 2.0]))).tolist(), pycore.info()['backend']"]:
        page.keyboard.type(line)
        page.keyboard.press("Enter")  # (the terminal takes no input while a line runs)
        page.wait_for_function("() => !$.terminal.active().paused()", timeout=60_000)
    page.wait_for_function("() => document.querySelector('.terminal-output').innerText.includes('webgpu')",
                           timeout=60_000)
    text = page.locator(".terminal-output").inner_text().replace("\xa0", " ")  # (the terminal's spaces)
    assert "([0.0, 2.0], 'webgpu')" in text, text
    assert "Traceback" not in text, text
    assert off_origin(page, server) == []
