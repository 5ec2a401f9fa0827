"""Fixtures shared by the suites: serve.py in a subprocess and headless Chromium through Playwright,
each started once per test session; pages booted once and shared where a test does not need its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harness import ARTIFACTS, CHROMIUM, ROOT, Booted, Server, boot, launch

__all__ = ["ARTIFACTS", "ROOT", "Booted", "boot"]


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
