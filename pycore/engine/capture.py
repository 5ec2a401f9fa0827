"""Capturing a function's GPU work once, and queueing it again on new inputs: what `pycore.jit`
runs on (calls/jit.py).

While a `Recorder` is attached to the device (`Device.recorder`, and `RECORDING` in the context of
the task that runs the function), every slice of queued work the device submits is kept, in order
and as it was submitted (after fusion); host data uploaded meanwhile goes to new buffers that the
recording keeps (their values are constants of the function); the uniform blocks used stay pinned;
a read raises `TracingError` (a value read back could steer the function, and a replay would not
read it); and auto runs every call on the GPU. `Recorder.finish` makes a `Captured` program of it:
of the buffers its commands bind, the inputs' are replaced at each run by the new inputs', the
results' by new buffers, and the rest (intermediates, the constants, arrays the function read
without taking them as arguments) the program keeps from the pool for its life. `Captured.run`
queues the same commands again, slice by slice as they were submitted: no Python call of the
function, no planning, no fusion, one enqueue per slice; an idle GPU is handed them at once
(`Device.hand_over`).

A run reuses the capture's intermediates in the order the capture used them, which is safe because
WebGPU runs a queue's work in order: a run writes each intermediate before it reads it, as the
capture did, and the next run's writes come after this run's reads. A program that cannot be run
this way is refused with the reason (`finish` returns it as text): it returns an input, or an array
made from host data, or one that existed before it ran; it writes into an array made from host
data (a run would find the values of the last run there); other work was queued on the device
while it ran; or a buffer it used is gone.

>>> from pycore.engine.transport import Dispatch
>>> _substituted(Dispatch("p", [("a", 16), ("b", 16, 256)], (1, 1, 1)), ((1, 0),), ["new"])
Dispatch(pipeline='p', bindings=[('a', 16), ('new', 16, 256)], groups=(1, 1, 1))
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from pycore.engine.device import Check, Device, expect_cost, pending_of
from pycore.engine.transport import Command, Copy, Dispatch

# The recording of the task that runs a function being captured (None elsewhere).
RECORDING: ContextVar[Recorder | None] = ContextVar("pycore_recording", default=None)


FOREIGN = "other work was queued on the device while it ran"  # (a reason that may not last: see jit.py)


class TracingError(RuntimeError):
    """A function being captured did what a replay could not repeat: it read a GPU value."""


def _buffers(command: Command) -> list[Any]:
    if type(command) is Dispatch:
        return [b[0] for b in command.bindings]
    assert isinstance(command, Copy)
    return [command.src, command.dst]


def _written(device: Device, command: Command) -> list[Any]:
    """The buffers `command` may write: a dispatch's storage bindings, a copy's destination."""
    if type(command) is Dispatch:
        kinds = device.binding_kinds.get(id(command.pipeline))
        if kinds is None:  # (not known: every binding may be written)
            return [b[0] for b in command.bindings]
        return [b[0] for b, kind in zip(command.bindings, kinds, strict=False) if kind == "write"]
    assert isinstance(command, Copy)
    return [command.dst]


def _substituted(command: Command, subs: tuple[tuple[int, int], ...], values: list[Any]) -> Command:
    """`command` with the buffer at each binding position (a copy: 0 source, 1 destination)
    replaced by values[k], for each (position, k) of `subs`."""
    if type(command) is Dispatch:
        bindings = list(command.bindings)
        for i, k in subs:
            bindings[i] = (values[k], *bindings[i][1:])
        return Dispatch(command.pipeline, bindings, command.groups)
    assert isinstance(command, Copy)
    src, dst = command.src, command.dst
    for i, k in subs:
        if i == 0:
            src = values[k]
        else:
            dst = values[k]
    return command._replace(src=src, dst=dst)


class Captured:
    """A captured program (see the module doc): its slices, each a list of (command, the
    positions of its bindings that take the k-th input or result: ((position, k), ...)), their
    predicted milliseconds and ops; the results' buffer classes; and what it keeps (buffers held
    in the pool, uniform blocks pinned) until `close`."""

    def __init__(self, device: Device, slices: list[tuple[list[tuple[Command, tuple]], float, str]],
                 inputs: int, results: list[tuple[int, int]], held: list[Any], pins: list[bytes]) -> None:
        self.device, self.slices, self.inputs, self.results = device, slices, inputs, results
        self.held, self.pins = held, pins
        self.kernels = sum(1 for commands, _, _ in slices for c, _ in commands if type(c) is Dispatch)
        self.commands = sum(len(commands) for commands, _, _ in slices)
        self.held_bytes = sum(device.pool.class_of(b)[0] for b in held)
        self.closed = False

    def run(self, name: str, inputs: list[Any], checks: list[Check]) -> tuple[list[Any], tuple[Check, ...]]:
        """Queue the program on these input buffers (in the capture's order, one per distinct input
        buffer), whose work has these checks: the new result buffers (from the pool; a new large
        one's allocation check goes with them), and the checks they depend on."""
        device = self.device
        pool = device.pool
        results: list[Any] = []
        fresh: list[Any] = []
        checks = list(checks)
        try:
            for size, usage in self.results:
                buf = device.take_dropped(size, usage)  # (a result is written before it is read)
                if buf is None:
                    allocated = pool.allocations
                    buf = pool.acquire(size, usage)
                    if pool.allocations != allocated:
                        fresh.append(buf)
                        pending = device.take_allocation_check(buf)
                        if pending is not None:  # (settled with the next read, like a submit)
                            checks.append(device.submitted(f"allocating {size:,} bytes", pending))
                results.append(buf)
            values = [*inputs, *results]
            for commands, ms, _ in self.slices:
                queued = [c if not subs else _substituted(c, subs, values) for c, subs in commands]
                expect_cost(name, ms)
                checks.append(device.enqueue(name, queued, []))
            device.hand_over()  # (nothing fuses into a replay's work: an idle GPU may start it now)
        except BaseException:
            for buf in results:
                if any(buf is f for f in fresh):
                    pool.discard(buf)  # (its allocation may have failed)
                else:
                    device.release(buf)
            raise
        return results, pending_of(checks)

    def pace(self, ms: float) -> None:
        """Have replays predicted to take `ms` of GPU time (measured: time_async) instead of the
        cost model's figures summed at capture, each slice keeping its share; what the queue paces
        submits by and a read decides by whether to wait for earlier work first (device.py)."""
        total = sum(m for _, m, _ in self.slices)
        n = len(self.slices)
        self.slices = [(commands, ms * (m / total if total > 0 else 1 / n), op)
                       for commands, m, op in self.slices]

    async def time_async(self, inputs: list[Any], reps: int = 20) -> float | None:
        """GPU milliseconds of one run's kernels on these input buffers, from timestamp queries
        (each dispatch `reps` times in a pass of its own, its mean; summed); None where the device
        has none. What the kernels cost, without the host's work or a submit's: for benchmarks
        (reps 20), and once at capture to pace the replays (jit.py's _paced_async, reps 1)."""
        device = self.device
        device.flush()  # (the inputs' queued work first)
        results = [device.pool.acquire(size, usage) for size, usage in self.results]
        try:
            values, total = [*inputs, *results], 0.0
            for commands, _, _ in self.slices:
                for command, subs in commands:
                    if type(command) is not Dispatch:
                        continue  # (timed are the kernels)
                    c = _substituted(command, subs, values) if subs else command
                    assert isinstance(c, Dispatch)
                    ms = await device.transport.time_dispatch_async(c.pipeline, c.bindings, c.groups, reps)
                    if ms is None:
                        return None
                    total += ms
        finally:
            for buf in results:
                device.release(buf)
        return total

    def close(self) -> None:
        """Give back what the program keeps (idempotent); nothing where its device is gone."""
        if self.closed:
            return
        self.closed = True
        device = self.device
        if device.lost is not None:
            return
        for buf in self.held:
            device.pool.unhold(buf)
        device.unpin(list(self.pins))
        self.held, self.pins = [], []


class Recorder:
    """What a function queued while it was captured (see the module doc). The device and the
    session call `submitted`, `queued`, `uploaded`, `pinned` and `reading` while it is attached."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self.slices: list[tuple[list[Command], float, str]] = []
        self.uploads: list[Any] = []  # buffers host data was uploaded to (held from then on)
        self.pins: list[bytes] = []  # uniform blocks pinned for the program
        self.foreign = False  # work of another task was queued meanwhile
        self.before = device.pool.in_use()  # the buffers that existed before (arrays, mostly)

    # -- what the device and the sessions tell it
    def submitted(self, commands: list[Command], ms: float, ops: str) -> None:
        self.slices.append((list(commands), ms, ops))

    def queued(self) -> None:
        if RECORDING.get() is not self:
            self.foreign = True

    def uploaded(self, buf: Any) -> None:
        self.device.pool.hold(buf)
        self.uploads.append(buf)

    def pinned(self, key: bytes) -> None:
        self.device.pins[key] += 1
        self.pins.append(key)

    def reading(self, op: str) -> None:
        if RECORDING.get() is self:
            raise TracingError(
                f"pycore.jit: {op} reads a GPU value back while the function is captured; a jitted "
                f"function must leave its results on the GPU (read them after it returns), and cannot "
                f"call what reads values to decide shapes (nonzero, unique_*, a linalg factorization)")

    # -- the end
    def abandon(self) -> None:
        """Let go of what the recording kept (the capture is not used)."""
        device = self.device
        if device.lost is not None:
            return
        for buf in self.uploads:
            device.pool.unhold(buf)
        device.unpin(self.pins)
        self.uploads = []

    def finish(self, inputs: list[Any], results: list[Any]) -> Captured | str:
        """The captured program whose inputs are these buffers (one per distinct input buffer, in
        order) and whose results are these (one per distinct result buffer), or why there is none
        (then what the recording kept is given back)."""
        why = self._refused(inputs, results)
        if why is not None:
            self.abandon()
            return why
        device, pool = self.device, self.device.pool
        slot = {id(b): k for k, b in enumerate([*inputs, *results])}
        uniforms = {id(b) for b in device.uniforms.values()}
        uploads = {id(b) for b in self.uploads}
        held: dict[int, Any] = {}
        slices = []
        for commands, ms, ops in self.slices:
            templated = []
            for command in commands:
                subs = []
                for i, buf in enumerate(_buffers(command)):
                    key = id(buf)
                    k = slot.get(key)
                    if k is not None:
                        subs.append((i, k))
                    elif key not in uniforms and key not in uploads and key not in held:
                        held[key] = buf
                templated.append((command, tuple(subs)))
            slices.append((templated, ms, ops))
        for buf in held.values():
            pool.hold(buf)
        return Captured(device, slices, len(inputs), [pool.class_of(b) for b in results],
                        [*held.values(), *self.uploads], self.pins)

    def _refused(self, inputs: list[Any], results: list[Any]) -> str | None:
        """Why these commands cannot be replayed (see the module doc), or None."""
        if self.foreign:
            return FOREIGN
        device, pool = self.device, self.device.pool
        uploads = {id(b) for b in self.uploads}
        given = {id(b) for b in inputs}
        for buf in results:
            if id(buf) in given:
                return "it returns one of its inputs (or a view of one)"
            if id(buf) in uploads:
                return "it returns an array made from host data"
            if id(buf) in self.before:
                return "it returns an array that existed before it ran"
        seen: set[int] = set()
        uniforms = {id(b) for b in device.uniforms.values()}
        for commands, _, _ in self.slices:
            for command in commands:
                for buf in _written(device, command):
                    if id(buf) in uploads:
                        return "it writes into an array made from host data"
                for buf in _buffers(command):
                    key = id(buf)
                    if key not in seen:
                        seen.add(key)
                        if key not in uniforms and key not in given and not pool.owns(buf):
                            return "a buffer it used is gone"
        for buf in results:
            if id(buf) not in seen:
                return "it returns an array no GPU work of it wrote"
        return None
