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
    monkeypatch.setattr(interrupts, "_state", dict(interrupts._state))  # (restored after the test)
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


def test_in_generated_code_called_by_pycore_it_waits_for_the_safe_point(signals):
    """A NamedTuple's __new__ (code of "<string>") that pycore calls is pycore's bookkeeping."""
    pycore_file = os.path.join(interrupts.PACKAGE, "engine", "executor.py")
    inner = compile("handler(signum, sys._getframe())", "<string>", "exec")
    names = {"handler": interrupts._on_signal, "signum": interrupts.SIGINT, "sys": sys, "inner": inner}
    exec(compile("exec(inner, globals())", pycore_file, "exec"), names)
    assert signals[0] == interrupts.REPOST
    with pytest.raises(KeyboardInterrupt):
        interrupts.check()


def test_a_readback_that_takes_it_answers_the_key(signals):
    deliver(interrupts.SIGINT, os.path.join(interrupts.STDLIB, "asyncio", "events.py"))
    interrupts.taken()  # (browser.py: the readback saw the buffer and raises)
    deliver(interrupts.REPOST, "<console>")  # nothing left to raise
    interrupts.check()


@pytest.fixture
def console_signals(signals):
    """As `signals`, for a host whose interrupts are for the code of "<console>" only."""
    interrupts.install(signals, internal=("/console.py",), target="<console>")
    return signals


def under(filename: str, code: str, **names):
    """Run `code` (a statement) as code of `filename`: a call stack running that file."""
    exec(compile(code, filename, "exec"), {"interrupts": interrupts, "deliver": deliver, **names})


def test_with_a_target_other_code_passes_it_on_and_the_command_gets_it(console_signals):
    deliver(interrupts.SIGINT, "<exec>")  # a page request running beside the command: not for it
    assert console_signals[0] == interrupts.REPOST
    under("<exec>", "deliver(interrupts.REPOST, 'pycore-elsewhere.py')")
    assert console_signals[0] == interrupts.REPOST
    with pytest.raises(KeyboardInterrupt):
        under("<console>", "deliver(interrupts.REPOST, '<console>')")
    assert console_signals[0] == 0


def test_with_a_target_a_safe_point_or_a_readback_outside_it_leaves_it(console_signals):
    pycore_file = os.path.join(interrupts.PACKAGE, "engine", "device.py")
    under("<console>", "deliver(interrupts.SIGINT, pycore_file)", pycore_file=pycore_file)  # in a call
    interrupts.check()  # a background task's safe point (no "<console>" frame): not raised here
    assert interrupts.buffer() is None  # and its readbacks do not take the signal
    got: dict = {}
    under("<console>", "got['buffer'] = interrupts.buffer()", got=got)
    assert got["buffer"] is console_signals
    with pytest.raises(KeyboardInterrupt):
        under("<console>", "interrupts.check()")


def test_a_new_command_forgets_an_interrupt_that_was_not_raised(console_signals):
    deliver(interrupts.SIGINT, os.path.join(interrupts.PACKAGE, "engine", "device.py"))
    interrupts.forget()
    under("<console>", "interrupts.check()")  # nothing raised
    under("<console>", "deliver(interrupts.REPOST, '<console>')")  # a stale pass-on: ignored
