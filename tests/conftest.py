"""Fixtures shared by the suites: serve.py in a subprocess and headless Chromium through Playwright,
each started once per test session; pages booted once and shared where a test does not need its own;
and pycore on the native transport (wgpu-py) in a worker process.

The test process itself runs pycore on NumPy ($PYCORE_TRANSPORT=numpy), whatever is installed, so
the CPython unit tests test the NumPy path; `gpu` runs a test on both WebGPU transports.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harness import ARTIFACTS, CHROMIUM, ROOT, Booted, Dawn, Native, Server, boot, launch

__all__ = ["ARTIFACTS", "ROOT", "Booted", "boot"]

os.environ["PYCORE_TRANSPORT"] = "numpy"


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The unit tests first (in their order, then the end-to-end tests in theirs): Playwright's
    sync API keeps an event loop running in this process from its first use on, and the unit
    tests may call asyncio.run()."""
    items.sort(key=lambda item: 0 if Path(str(item.path)).parts[-2:-1] == ("unit",) else 1)
os.environ["PYCORE_CACHE_DIR"] = tempfile.mkdtemp(prefix="pycore-test-cache-")  # calibrations go here


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    srv = Server()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def playwright_instance() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)")
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def browser(playwright_instance: Any) -> Iterator[Any]:
    """Chromium with WebGPU enabled."""
    b = launch(playwright_instance, webgpu=True)
    yield b
    b.close()


@pytest.fixture(scope="session")
def browser_no_webgpu(playwright_instance: Any) -> Iterator[Any]:
    """Chromium as it ships: WebGPU on a CPU-only adapter is blocklisted, requestAdapter() is null."""
    b = launch(playwright_instance, webgpu=False)
    yield b
    b.close()


@pytest.fixture(scope="session")
def gpu_page(browser: Any, server: Server) -> Iterator[Booted]:
    """The app booted on WebGPU, shared by the tests that only read from it. Its selector margin is
    0, so backend="auto" always picks the GPU here: these tests exercise the GPU path."""
    page = boot(browser, server.url + "/")
    page.py("pycore.SELECTOR.margin = 0.0")
    yield page
    page.close()


@pytest.fixture(scope="session")
def fallback_page(browser_no_webgpu: Any, server: Server) -> Iterator[Booted]:
    """The app booted where requestAdapter() returns null."""
    page = boot(browser_no_webgpu, server.url + "/")
    yield page
    page.close()


def started(worker: Any, usable: bool, why: str) -> Iterator[Any]:
    """A GPU worker for the session, margin 0 like gpu_page; the test fails saying `why` if it has
    no WebGPU."""
    if not usable:
        worker.close()
        pytest.fail(why)
    worker.py("pycore.SELECTOR.margin = 0.0")
    yield worker
    worker.close()


@pytest.fixture(scope="session")
def native() -> Iterator[Native]:
    """pycore on wgpu-py's native WebGPU (lavapipe on a machine without a GPU)."""
    worker = Native()
    info = worker.ready()
    yield from started(worker, info["transport"] == "native",
                       f"the native transport is not available: {info['reason']}")


@pytest.fixture(scope="session")
def dawn() -> Iterator[Dawn]:
    """pycore's browser transport on Dawn in Node (scripts/dawn.mjs): Mesa 25's lavapipe on a machine
    without a GPU (scripts/lavapipe.sh), a real GPU where there is one."""
    worker = Dawn()
    info = worker.ready()
    yield from started(worker, info["backend"] == "webgpu",
                       f"Dawn has no WebGPU adapter here: {info['reason']} (run: bash scripts/lavapipe.sh)")


GPU_TARGETS = {"browser": "gpu_page", "native": "native", "dawn": "dawn"}


@pytest.fixture(scope="session", params=list(GPU_TARGETS))
def gpu(request: pytest.FixtureRequest) -> Any:
    """pycore on WebGPU: in the browser (gpu_page), natively (native), and through the browser
    transport on Dawn (dawn). All answer `py`."""
    return request.getfixturevalue(GPU_TARGETS[request.param])
