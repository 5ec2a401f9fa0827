"""Progress of long work: a benchmark, a calibration, a call waiting for its kernel to compile.

pycore reports with `report(task, done, total, detail)`; whoever shows it (the page's console, a
script) subscribes with `listen`. A listener that raises is dropped, never the work.

>>> seen = []
>>> stop = listen(lambda *event: seen.append(event))
>>> report("calibrate", 1, 4, "relu")
>>> stop(); report("calibrate", 2, 4, "gelu")
>>> seen
[('calibrate', 1, 4, 'relu')]
"""

from __future__ import annotations

from collections.abc import Callable

Listener = Callable[[str, int, int, str], object]
_LISTENERS: list[Listener] = []


def listen(listener: Listener) -> Callable[[], None]:
    """Call `listener(task, done, total, detail)` on every report; returns a function that stops it."""
    _LISTENERS.append(listener)

    def stop() -> None:
        if listener in _LISTENERS:
            _LISTENERS.remove(listener)
    return stop


def report(task: str, done: int, total: int, detail: str = "") -> None:
    """`done` of `total` steps of `task` are finished; `detail` names the current one."""
    for listener in list(_LISTENERS):
        try:
            listener(task, done, total, detail)
        except Exception:
            _LISTENERS.remove(listener)
