"""Choosing the transport under CPython: native WebGPU through wgpu-py when it can, NumPy otherwise,
and pycore.info() saying which and why. Each choice runs in a fresh worker process."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from pycore.engine import transport
from tests.harness import Native

INFO = "info = await pycore.init_async()\n{k: info[k] for k in ('backend', 'transport', 'reason', 'tier')}"


def choose(wanted: str, setup: str = "") -> dict:
    worker = Native(transport=wanted)
    try:
        if setup:
            worker.py(setup)
        return worker.py(INFO)
    finally:
        worker.close()


def test_auto_picks_native_webgpu_when_wgpu_has_an_adapter():
    info = choose("auto")
    assert info["backend"] == "webgpu" and info["transport"] == "native"
    assert "wgpu-py" in info["reason"] and info["tier"].startswith("WebGPU (wgpu-native) — ")


def test_auto_without_wgpu_falls_back_to_numpy_and_says_how_to_fix_it():
    info = choose("auto", setup="import sys\nsys.modules['wgpu'] = None  # as if not installed")
    assert info["backend"] == "numpy" and info["transport"] == "none"
    assert "wgpu is not installed" in info["reason"] and "pip install wgpu" in info["reason"]


def test_the_browser_transport_is_refused_under_cpython():
    info = choose("browser")
    assert info["backend"] == "numpy" and "needs Pyodide" in info["reason"]


def test_numpy_can_be_asked_for():
    info = choose("numpy")
    assert info["backend"] == "numpy" and "asked for" in info["reason"]


def test_a_bad_transport_name_is_refused_by_name(monkeypatch):
    monkeypatch.setenv("PYCORE_TRANSPORT", "cuda")
    with pytest.raises(ValueError, match="must be one of auto, browser, native, numpy, got 'cuda'"):
        transport.wanted_transport()


def test_a_bad_transport_argument_is_refused_by_name():
    import pycore
    from tests.unit.test_cpython_api import run

    with pytest.raises(ValueError, match="init_async: transport must be one of auto, browser, native, numpy, "
                                         "got 'gpu'"):
        run(pycore.init_async(transport="gpu"))


def test_shutdown_gives_the_device_back_and_init_chooses_again():
    worker = Native()
    try:
        r = worker.py("""
from pycore.engine.runtime import RUNTIME
await pycore.init_async()
t = await pycore.to_gpu_async(np.ones(4))
first = RUNTIME.transport
RUNTIME.shutdown()
after = pycore.info()["backend"]
try:
    await t.to_numpy_async()
    error = None
except RuntimeError as exc:
    error = str(exc)
await pycore.init_async(transport="numpy")
{"first": first, "after": after, "error": error, "now": pycore.info()["backend"],
 "value": (await pycore.relu_async([-1.0, 2.0])).tolist()}
""")
    finally:
        worker.close()
    assert r["first"] == "native" and r["after"] == "numpy" and r["now"] == "numpy"
    assert r["error"] and r["value"] == [0.0, 2.0]


def test_init_async_with_another_transport_switches_to_it():
    worker = Native()
    try:
        r = worker.py("""
first = (await pycore.init_async())["transport"]
t = await pycore.to_gpu_async(np.ones(4))
b = pycore.CommandBatch()
h = b.relu([-1.0, 3.0])
await b.execute_async()
same = [(await pycore.init_async(name))["transport"] for name in ("native", "auto", None)]
kept = (await t.to_numpy_async()).tolist()
switched = await pycore.init_async("numpy")
try:
    await t.to_numpy_async()
    error = None
except RuntimeError as exc:
    error = str(exc)
relu = [(await pycore.relu_async([-1.0, 2.0])).tolist(), pycore.trace()[-1]["backend"]]
batch = (await b.read_async(h)).tolist()  # computed again on NumPy, as after a device loss
back = await pycore.init_async("auto")
{"first": first, "same": same, "kept": kept, "switched": [switched["backend"], switched["reason"]],
 "error": error, "relu": relu, "batch": batch, "back": [back["backend"], back["transport"]],
 "on_gpu": (await pycore.to_gpu_async([1.0])).device}
""")
    finally:
        worker.close()
    assert r["first"] == "native" and r["same"] == ["native"] * 3 and r["kept"] == [1.0] * 4
    assert r["switched"][0] == "numpy" and "asked for (transport='numpy')" in r["switched"][1]
    assert "lived on a GPU device that was lost (given back when init_async switched from transport " \
           "'native' to 'numpy')" in r["error"]
    assert r["relu"] == [[0.0, 2.0], "numpy"] and r["batch"] == [0.0, 3.0]
    assert r["back"] == ["webgpu", "native"] and r["on_gpu"] == "webgpu"


def test_both_transports_implement_the_whole_interface():
    import ast

    from pycore.engine.native import NativeTransport

    wanted = set(transport.Transport.__abstractmethods__)
    assert not NativeTransport.__abstractmethods__
    # pycore/engine/browser.py imports Pyodide's `js`, so read its class instead of importing it.
    tree = ast.parse((Path(transport.__file__).parent / "browser.py").read_text())
    browser = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "BrowserTransport")
    defined = {n.name for n in browser.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    assert wanted <= defined, wanted - defined
    assert len(inspect.getsource(transport.Transport).splitlines()) <= 80  # one screen


@pytest.mark.parametrize("argv, message", [
    (["--sizes", "1k"], "--sizes must be comma-separated integers, got '1k'"),
    (["--matrix-sizes", "64,x"], "--matrix-sizes must be comma-separated integers"),
])
def test_the_bench_command_line_names_a_bad_option(argv, message, capsys):
    from pycore.bench import main

    with pytest.raises(SystemExit) as done:
        main(["--native", *argv])
    assert done.value.code == 2 and message in capsys.readouterr().err


def test_every_bridge_function_called_from_python_is_one_bridge_js_returns():
    """bridge.js is a file of the package, beside the modules that call its functions."""
    import re

    from pycore.engine import bridge

    here = Path(transport.__file__).parent
    assert bridge.SOURCE_FILE == here / "bridge.js" and bridge.source() == bridge.SOURCE_FILE.read_text()
    called = set()
    for module in ("browser.py", "settings.py"):
        called |= set(re.findall(r"bridge\.functions\(\)\.(\w+)\(", (here / module).read_text()))
    assert {"create", "submit", "submitAndRead", "openStore"} <= called, called
    returned = bridge.source().split("\n  return {\n", 1)[1]
    for name in called:
        assert re.search(rf"^    (async )?{name}(\(|: )", returned, re.MULTILINE), name


def test_settings_are_files_natively_and_info_says_where():
    worker = Native()
    try:
        r = worker.py("""
import os
from pycore.engine import settings
info = await pycore.init_async()
path = settings.STORE.path("pycore.test")
settings.STORE.save("pycore.test", "kept")
kept = [path.read_text(), settings.STORE.load("pycore.test")]
settings.STORE.save("pycore.test", None)
[info["settings"], os.environ["PYCORE_CACHE_DIR"], type(settings.STORE).__name__, kept, path.exists()]
""")
    finally:
        worker.close()
    assert r == [f"files in {r[1]}", r[1], "FileStore", ["kept", "kept"], False]
