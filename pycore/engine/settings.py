"""Settings kept between sessions (the selector's calibration): text under keys, in the store of
the environment pycore runs in.

- In Pyodide: the page's localStorage; in a worker, which has none, the copy its page hands over
  as `pycoreSettings` (web/worker.js), else IndexedDB (a JupyterLite kernel, say: opened once a
  device is acquired, see `Store.open_async`); else nothing is kept, and `where` says why.
- Under CPython: one JSON file per key under $PYCORE_CACHE_DIR (default ~/.cache/pycore).

`STORE` is the store in use: `load` and `save` text, `where` it is kept in words (info()). A store
never checks what it keeps: calibrate.py does (selector.parse_saved) before using anything loaded.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

from pycore.engine import bridge

MAX_CHARS = 64 * 1024  # the longest text kept under a key (a file store reads no further)


class Store:
    """Where settings are kept. This one keeps nothing."""

    @property
    def where(self) -> str:
        """Where, in words (info())."""
        return "not kept"

    def load(self, key: str) -> str | None:
        """The text kept under `key`, None if none; may raise for what cannot be read (the caller,
        calibrate.py, discards it and checks what it can read before using it)."""
        return None

    def save(self, key: str, text: str | None) -> None:
        """Keep `text` under `key` (None forgets it)."""

    async def open_async(self, timeout_s: float = 2.0) -> None:
        """Get ready to answer `load` synchronously (called when a device is acquired)."""


class FileStore(Store):
    """One JSON file per key under $PYCORE_CACHE_DIR (default ~/.cache/pycore), looked up on each use."""

    def path(self, key: str) -> Path:
        root = os.environ.get("PYCORE_CACHE_DIR") or Path.home() / ".cache" / "pycore"
        return Path(root) / (re.sub(r"[^\w.-]", "_", key) + ".json")

    @property
    def where(self) -> str:
        return f"files in {self.path('x').parent}"

    def load(self, key: str) -> str | None:
        """The text kept under `key`, None if there is none. Raises ValueError for a file over
        MAX_CHARS bytes or not UTF-8, OSError for one that cannot be read (a directory)."""
        try:
            with self.path(key).open("rb") as f:
                data = f.read(MAX_CHARS + 1)
        except (FileNotFoundError, NotADirectoryError):
            return None
        if len(data) > MAX_CHARS:
            raise ValueError(f"the file is over {MAX_CHARS} bytes")
        return data.decode("utf-8")  # (UnicodeDecodeError is a ValueError)

    def save(self, key: str, text: str | None) -> None:
        """Write the file whole (a temporary file renamed over it), or remove it; a file that
        cannot be written or removed is left as it is, without an error (settings are a cache)."""
        path = self.path(key)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            if text is None:
                path.unlink(missing_ok=True)
                return
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(text.encode("utf-8"))
            os.replace(tmp, path)
        except OSError:
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass


# The page's stores, looked up in this order as globals of the JavaScript context, and their words.
PAGE_STORES = {"localStorage": "localStorage", "pycoreSettings": "the page's localStorage (pycoreSettings)"}


class BrowserStore(Store):
    """The page's localStorage (in a worker, the copy its page handed over, or IndexedDB), looked up
    on each use: a store a page provides later is found then."""

    def __init__(self) -> None:
        self._worker: list[Any] = []  # [the IndexedDB store, or the reason there is none], once opened

    def _found(self) -> tuple[Any, str]:
        """The store (None if there is none) and where it is, in words."""
        import js  # type: ignore[import-not-found]  # Pyodide only

        for name, words in PAGE_STORES.items():
            store = getattr(js, name, None)
            if _present(store):
                return store, words
        if not self._worker:
            return None, "not kept: no localStorage here"
        store = self._worker[0]
        return (None, f"not kept: {store}") if isinstance(store, str) else (store, "IndexedDB")

    @property
    def where(self) -> str:
        return self._found()[1]

    def load(self, key: str) -> str | None:
        store = self._found()[0]
        text = store.getItem(key) if store is not None else None
        return str(text) if _present(text) else None

    def save(self, key: str, text: str | None) -> None:
        store = self._found()[0]
        if store is None:
            return
        if text is None:
            store.removeItem(key)
        else:
            store.setItem(key, text)

    async def open_async(self, timeout_s: float = 2.0) -> None:
        """In a worker with neither localStorage nor a store from its page, open the IndexedDB
        store (once; bridge.js reads every value at once, so that loads stay synchronous): loads
        then find what earlier sessions saved."""
        if self._worker or self._found()[0] is not None:
            return
        store = await bridge.functions().openStore(timeout_s * 1e3)
        self._worker.append(str(store) if isinstance(store, str) else store)


def _present(value: Any) -> bool:
    """JS null/undefined reach Python as jsnull/None; both mean 'absent' (`is None` is not enough)."""
    from pyodide.ffi import jsnull  # type: ignore[import-not-found]

    return value is not None and value is not jsnull


STORE: Store = BrowserStore() if sys.platform == "emscripten" else FileStore()
