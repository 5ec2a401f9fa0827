"""Ctrl+C where Python runs in a browser worker: KeyboardInterrupt raised in the user's code, never
in pycore's own background work.

Pyodide polls the page's interrupt buffer (a SharedArrayBuffer) every few dozen Python steps and
runs the SIGINT handler in whatever Python code is running then. While the user's code awaits the
GPU, that may be a callback of the event loop or pycore's background compile, where a
KeyboardInterrupt would be lost (and the user's loop would go on). The handler installed here
raises only inside a task that is not pycore's own; anywhere else it signals the buffer again, so
the interrupt reaches the user's code at its next Python steps, or the readback it is waiting for
(which watches the buffer: see browser.py). An interrupt passed on for over GIVE_UP_S is raised
wherever it lands.
"""

from __future__ import annotations

import asyncio
import signal
import time
import weakref
from typing import Any

SIGINT = 2
BACKGROUND: weakref.WeakSet[asyncio.Task] = weakref.WeakSet()  # pycore's own tasks: never interrupted
_buffer: list[Any] = []  # [the interrupt buffer] once installed
_reposted_at: list[float] = []  # [when an interrupt was first passed on] while it is
GIVE_UP_S = 1.0  # passed on for longer (no user task is running?): raised wherever it lands


def background(task: asyncio.Task) -> asyncio.Task:
    """Mark `task` as pycore's own background work (see the module doc); returns it."""
    BACKGROUND.add(task)
    return task


def install(buffer: Any) -> None:
    """Route SIGINT from `buffer` (the Int32Array Pyodide polls: pyodide.setInterruptBuffer) as
    the module doc says."""
    _buffer[:] = [buffer]
    signal.signal(signal.SIGINT, _on_sigint)


def _on_sigint(signum: int, frame: Any) -> None:
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no event loop running: plain synchronous code, the user's
        task = None
    now = time.monotonic()
    since = _reposted_at[0] if _reposted_at else now
    if (task is not None and task not in BACKGROUND) or now - since > GIVE_UP_S:
        _reposted_at.clear()
        raise KeyboardInterrupt
    _reposted_at[:] = [since]
    import js  # type: ignore[import-not-found]  # (installed only in Pyodide)

    js.Atomics.store(_buffer[0], 0, SIGINT)  # not here: deliver it again, to the user's code
    js.Atomics.notify(_buffer[0], 0)
