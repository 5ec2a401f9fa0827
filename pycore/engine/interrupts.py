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

A host that runs other Python beside the command being interrupted (the page answers scripts'
requests while a console command awaits the GPU; pycore calibrates and compiles in background
tasks) names the command's code (`target`: its file name, "<console>"): an interrupt is raised,
kept for a safe point, or taken by a readback only in a call stack that runs that code, and passed
on everywhere else. Without it, the first Python code that happened to run took the key press,
and the command went on.
"""

from __future__ import annotations

import os
import signal
import sys
import sysconfig
from typing import Any

SIGINT = int(signal.SIGINT)
REPOST = int(getattr(signal, "SIGUSR1", 10))
PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # pycore/ (this is pycore/engine/)
STDLIB = os.path.dirname(os.__file__)
SITE = sysconfig.get_paths()["purelib"]
_state: dict[str, Any] = {"buffer": None, "internal": (), "target": None, "outstanding": False,
                          "pending": False, "count": 0}


def install(buffer: Any, internal: tuple[str, ...] = (), target: str | None = None) -> None:
    """Handle the signals Pyodide reads from `buffer` (the Int32Array given to
    pyodide.setInterruptBuffer) as the module doc says; code in files named in `internal` (the
    host's own Python, such as its console) is never interrupted; with `target` (a file name), only
    a call stack running that file's code is."""
    _state.update(buffer=buffer, internal=tuple(internal), target=target, outstanding=False, pending=False)
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(REPOST, _on_signal)


def buffer() -> Any:
    """The interrupt buffer for a readback about to wait for the GPU: the one `install` was given,
    where the code running now is what an interrupt is for (see `target`); else None."""
    if _state["buffer"] is None or not _for_target(sys._getframe(1)):
        return None
    return _state["buffer"]


def check() -> None:
    """A safe point: raise the interrupt that came while pycore was busy, if one did (and the code
    running now is what it is for).

    >>> check()  # (nothing pending)
    """
    if _state["pending"] and _for_target(sys._getframe(1)):
        taken()
        raise KeyboardInterrupt


def forget() -> None:
    """A new command starts: an interrupt meant for the last one, and not raised, is void.

    >>> forget()
    """
    _state.update(outstanding=False, pending=False)


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


def _for_target(frame: Any) -> bool:
    """Whether `frame`'s call stack runs the code interrupts are for (any code, without a target)."""
    target = _state["target"]
    if target is None:
        return True
    while frame is not None:
        if frame.f_code.co_filename == target:
            return True
        frame = frame.f_back
    return False


def _internal(where: str) -> bool:
    # ("<string>": code the standard library generates, such as a NamedTuple's or a dataclass's
    # __new__ and __init__: the interrupt lands in whoever called it)
    if where.startswith(("<frozen ", "<string>")):
        return True
    if where.startswith(STDLIB) and not where.startswith(SITE):
        return True
    return any(where.endswith(name) for name in _state["internal"])


def _on_signal(signum: int, frame: Any) -> None:
    if signum == SIGINT:
        _state["outstanding"] = True
    elif not _state["outstanding"]:
        return  # passed on before the interrupt was raised
    if not _for_target(frame):  # other code than the command's (a page request, a background task)
        _repost()
        return
    caller = frame  # the innermost frame that is not the standard library's or the host's
    while caller is not None and _internal(caller.f_code.co_filename):
        caller = caller.f_back
    if caller is not None and caller.f_code.co_filename.startswith(PACKAGE):
        _state["pending"] = True
    elif caller is not None and caller is frame:
        taken()
        raise KeyboardInterrupt
    _repost()


def _repost() -> None:
    """Pass the interrupt on: Pyodide delivers it again a few dozen steps later (or a readback
    waiting for the GPU takes it)."""
    import js  # type: ignore[import-not-found]  # (installed only in Pyodide)

    js.Atomics.store(_state["buffer"], 0, REPOST)
    js.Atomics.notify(_state["buffer"], 0)
