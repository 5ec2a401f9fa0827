"""The JavaScript half of the browser transport: pycore/engine/bridge.js, a file of the package (the wheel
carries it beside this module), read once and evaluated once with Pyodide's run_js.

Its functions do in one FFI call what would otherwise take dozens: encoding a whole submit,
copying between the WebAssembly heap and GPU buffers (browser.py), opening the IndexedDB settings
store (settings.py). Importing this module needs no Pyodide; calling `functions()` does.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

SOURCE_FILE = Path(__file__).with_name("bridge.js")

_functions: Any = None  # the evaluated bridge, made once
_heap: list[Any] = []  # [Pyodide's Emscripten module or None], looked up once


@cache
def source() -> str:
    """The text of bridge.js: one JavaScript expression, a function of Pyodide's Emscripten module
    that returns the bridge's functions."""
    return SOURCE_FILE.read_text(encoding="utf-8")


def heap_module() -> Any:
    """Pyodide's Emscripten module if it exposes the heap (the pinned Pyodide does), else None."""
    if not _heap:
        import pyodide_js  # type: ignore[import-not-found]
        from pyodide.ffi import jsnull  # type: ignore[import-not-found]

        def present(value: Any) -> bool:  # (JS null/undefined reach Python as jsnull/None)
            return value is not None and value is not jsnull

        module = getattr(pyodide_js, "_module", None)
        _heap.append(module if present(module) and present(getattr(module, "HEAPU8", None)) else None)
    return _heap[0]


def functions() -> Any:
    """The bridge's functions (a JavaScript object), made once."""
    global _functions
    if _functions is None:
        from pyodide.code import run_js  # type: ignore[import-not-found]

        _functions = run_js(source())(heap_module())
    return _functions
