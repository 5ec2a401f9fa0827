"""Where Ctrl+C lands (pycore/engine/interrupts.py): raised in the user's code, kept for pycore's next safe
point, passed on from the standard library, and raised once per key press."""

from __future__ import annotations

import os
import sys
import types

import pytest

from pycore.engine import interrupts


@pytest.fixture
def signals(monkeypatch):
    """The interrupt buffer and what was written to it, with a stand-in for Pyodide's `js`."""
    buffer = [0]
    fake = types.SimpleNamespace(Atomics=types.SimpleNamespace(
        store=lambda buf, i, value: buf.__setitem__(i, value), notify=lambda buf, i: None))
    monkeypatch.setitem(sys.modules, "js", fake)
    monkeypatch.setattr(interrupts.signal, "signal", lambda *args: None)
    interrupts.install(buffer, internal=("/console.py",))
    return buffer


def deliver(signum: int, filename: str) -> None:
    """Run the handler as if the signal arrived while code of `filename` was running."""
    code = compile("handler(signum, sys._getframe())", filename, "exec")
    exec(code, {"handler": interrupts._on_signal, "signum": signum, "sys": sys})


def test_in_the_users_code_it_raises_once(signals):
    with pytest.raises(KeyboardInterrupt):
        deliver(interrupts.SIGINT, "<console>")
    assert signals[0] == 0
    deliver(interrupts.REPOST, "<console>")  # one passed on earlier: ignored, the key was answered


def test_in_pycore_it_waits_for_the_next_safe_point(signals):
    deliver(interrupts.SIGINT, os.path.join(interrupts.PACKAGE, "engine", "device.py"))
    assert signals[0] == interrupts.REPOST  # passed on too: a readback may take it
    with pytest.raises(KeyboardInterrupt):
        interrupts.check()
    assert signals[0] == 0
    interrupts.check()  # once


def test_in_the_standard_library_or_the_host_it_is_passed_on(signals):
    for where in (os.path.join(interrupts.STDLIB, "asyncio", "events.py"), "<frozen abc>", "/console.py"):
        signals[0] = 0
        deliver(interrupts.SIGINT, where)
        assert signals[0] == interrupts.REPOST
    with pytest.raises(KeyboardInterrupt):  # and raised where it next lands in the user's code
        deliver(interrupts.REPOST, "<console>")


def test_a_readback_that_takes_it_answers_the_key(signals):
    deliver(interrupts.SIGINT, os.path.join(interrupts.STDLIB, "asyncio", "events.py"))
    interrupts.taken()  # (browser.py: the readback saw the buffer and raises)
    deliver(interrupts.REPOST, "<console>")  # nothing left to raise
    interrupts.check()
