"""Ctrl+C where Python runs in a browser worker: KeyboardInterrupt raised in the user's code or at
one of pycore's safe points, once per key press, never in the middle of pycore's, asyncio's or the
standard library's bookkeeping.

Pyodide polls the page's interrupt buffer (a SharedArrayBuffer) every few dozen Python steps and
runs the signal's handler in whatever Python code is running then. A KeyboardInterrupt raised
there could land inside asyncio (a future left without its callbacks), inside pycore between two
steps that belong together, or in an event-loop callback, where it is lost and the user's loop goes
on. The handler installed here looks at where it runs:

- in the user's code (or a library that is not pycore or the standard library): it raises;
- in pycore, or in the standard library called by pycore: it notes the interrupt, which pycore
  raises at its next safe point (`check`: before an op starts, between a batch's steps, before and
  after a readback), and passes it on;
- elsewhere in the standard library (asyncio and Pyodide's runtime included), or in the host's own
  Python (`internal`): it passes it on.

Passing it on writes another signal (REPOST) into the buffer: Pyodide delivers it to the handler
again a few dozen steps later, or a readback waiting for the GPU takes it (see browser.py). Once
the interrupt is raised, signals passed on before are ignored: one key press, one KeyboardInterrupt.
"""

from __future__ import annotations

import os
import signal
import sysconfig
from typing import Any

SIGINT = int(signal.SIGINT)
REPOST = int(getattr(signal, "SIGUSR1", 10))
PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # pycore/ (this is pycore/engine/)
STDLIB = os.path.dirname(os.__file__)
SITE = sysconfig.get_paths()["purelib"]
_state: dict[str, Any] = {"buffer": None, "internal": (), "outstanding": False, "pending": False, "count": 0}


def install(buffer: Any, internal: tuple[str, ...] = ()) -> None:
    """Handle the signals Pyodide reads from `buffer` (the Int32Array given to
    pyodide.setInterruptBuffer) as the module doc says; code in files named in `internal` (the
    host's own Python, such as its console) is never interrupted."""
    _state.update(buffer=buffer, internal=tuple(internal), outstanding=False, pending=False)
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(REPOST, _on_signal)


def buffer() -> Any:
    """The interrupt buffer `install` was given (None before): readbacks wait on it too."""
    return _state["buffer"]


def check() -> None:
    """A safe point: raise the interrupt that came while pycore was busy, if one did.

    >>> check()  # (nothing pending)
    """
    if _state["pending"]:
        taken()
        raise KeyboardInterrupt


def count() -> int:
    """How many interrupts were raised so far: GPU work queued before one and not yet submitted is
    dropped (Device.cancel).

    >>> isinstance(count(), int)
    True
    """
    return _state["count"]


def taken() -> None:
    """The interrupt is being raised (here, or by a readback that saw the buffer): forget it."""
    _state.update(outstanding=False, pending=False, count=_state["count"] + 1)
    if _state["buffer"] is not None:
        import js  # type: ignore[import-not-found]  # (installed only in Pyodide)

        js.Atomics.store(_state["buffer"], 0, 0)


def _internal(where: str) -> bool:
    if where.startswith("<frozen ") or (where.startswith(STDLIB) and not where.startswith(SITE)):
        return True
    return any(where.endswith(name) for name in _state["internal"])


def _on_signal(signum: int, frame: Any) -> None:
    if signum == SIGINT:
        _state["outstanding"] = True
    elif not _state["outstanding"]:
        return  # passed on before the interrupt was raised
    caller = frame  # the innermost frame that is not the standard library's or the host's
    while caller is not None and _internal(caller.f_code.co_filename):
        caller = caller.f_back
    if caller is not None and caller.f_code.co_filename.startswith(PACKAGE):
        _state["pending"] = True
    elif caller is not None and caller is frame:
        taken()
        raise KeyboardInterrupt
    import js  # type: ignore[import-not-found]  # (installed only in Pyodide)

    js.Atomics.store(_state["buffer"], 0, REPOST)
    js.Atomics.notify(_state["buffer"], 0)
