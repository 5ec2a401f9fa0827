"""One acquired WebGPU device and everything pycore keeps on it.

A `Device` owns its transport (transport.py), its buffer pool, its compiled pipelines, its cache of
uniform blocks, and the error checks of work submitted but not yet settled; it also holds the
adapter facts the programs ask about (computed once). When the device is lost, the runtime drops
the whole object: nothing of a lost device is used again.

Work whose results stay on the GPU is not submitted call by call: it is queued (`enqueue`) in
slices, each a command buffer of at most SLICE_MS of predicted GPU time (the cost model's figure for
each op, see `expect_cost`; at least one op's work) and QUEUED_DISPATCHES commands. A slice is
submitted once the GPU is predicted to be within AHEAD_MS of finishing what was submitted before
it: when the next op closes it, when the event loop next runs, when a dropped buffer of
CHECKED_ALLOCATION bytes or more is to be reused, and at the next read, which submits the rest
slice by slice with the interrupt checked between (`drain_async`). A replayed program's work
(pycore.jit), which nothing queued later fuses into, is handed to a GPU predicted idle at once
(`hand_over`), so that the GPU runs it while Python makes the next call. So the GPU is never handed more
than about two slices it has not started, and Ctrl+C drops what it has not been handed (`cancel`):
every result of dropped work raises `CancelledWorkError` when read, while its inputs stay valid.
An op that finds HOLD_MS of predicted work (or HOLD_BYTES of dropped buffers) held waits for the
GPU first (`keep_up_async`): a long queue costs its time as it is queued, and says so in the status
line (`queue_status`). Until a slice is submitted nothing it uses goes back to the pool or is
destroyed (`release`, pins); a buffer dropped meanwhile may only become the output of a later queued
command (`take_dropped`), which runs after the work that reads it; and uploads only ever write to
buffers no queued work reads, so holding work back never changes a result.

Element-wise kernels fuse while they are held (engine/executor.py composes them): a queued
element-wise command registers what it computes (`Produced`) for its output buffer, and a later
element-wise op reading that buffer whole may compute it again from its inputs instead, in its own
kernel. When the slice is submitted, a registered command whose output buffer was dropped since,
and which no other queued command binds, is left out: nobody can read what it would write. A
program that still holds an intermediate keeps it computed. An input of a fused kernel that was
dropped meanwhile (a temporary) is still intact unless a command took it as its output; the fused
kernel claims it (`claim`), so that none does until its own slice is submitted.

Errors the GPU reports are asynchronous: a submit returns a check, which is settled (in one await
with other checks) at the next read. A `Check` remembers its error, and every result buffer made
by that submit carries it, so a read raises for the work it depends on and for no other.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from typing import Any, NamedTuple

import numpy as np

from pycore.engine import interrupts
from pycore.engine.pool import BufferPool, size_class
from pycore.engine.progress import report as report_progress
from pycore.engine.transport import (
    COPY_DST,
    UNIFORM,
    Command,
    Dispatch,
    ShaderCompileError,
    Transport,
    is_lost_text,
)
from pycore.kernels.wgsl import wgsl_source

UNIFORM_CACHE = 512  # distinct uniform blocks kept on the GPU (32 bytes each) when none is in use
GENERATED_PIPELINES = 128  # generated (fused) kernels kept compiled, least recently used dropped
CHECKED_ALLOCATION = 16 << 20  # buffers this large are made inside an out-of-memory error scope
QUEUED_DISPATCHES = 64  # commands in one slice (one submit) at most
SLICE_MS = 100.0  # predicted GPU milliseconds in one slice at most (a single op's work may be more)
AHEAD_MS = 100.0  # a slice is submitted once the GPU has less than this left of earlier slices
# On a GPU (not a CPU adapter) both are GPU_PACE times larger: there the cost model's defaults
# overestimate a kernel's time, and slices of 100 ms held chained 4096² matmuls on an H100 to
# 27-37 TFLOP/s against 41 unpaced (scripts/core_bench.py's chains, alternated in one process)
GPU_PACE = 4.0
HOLD_MS = 2000.0  # an op waits for the GPU (keep_up_async) once this much queued work is held back
HOLD_BYTES = 256 << 20  # ... or once held-back work keeps this many bytes of dropped buffers
WAIT_MS = 20.0  # a read that would wait this long for earlier work waits for it first (traced apart)
# A replayed program (pycore.jit) hands its work to an idle GPU at once where it is predicted to
# take this long or more (see hand_over); 0 turns that off
HAND_OVER_MS = 1.0
REPORT_MS = 500.0  # queued work predicted to take this long shows in the status line
REPORT_EVERY_S = 0.2  # (at most this often)
# GPU bytes per millisecond an op whose cost the model does not predict is charged for the bytes
# its dispatches bind: twelve bytes per element of the element-wise vec_add at the default
# calibration's rates (selector.ADAPTER_DEFAULTS: 0.208 GFLOP/s on SwiftShader, 2.17 on an H100).
BYTES_PER_MS = {"cpu": 12 * 0.208e6, "gpu": 12 * 2.17e6}
CANCELLED = "cancelled by an interrupt"
_COST: ContextVar[tuple[str, float] | None] = ContextVar("pycore_queued_cost", default=None)


class GpuError(RuntimeError):
    """The GPU rejected work pycore submitted (a validation error: a bug, or a limit)."""


class GpuOutOfMemoryError(GpuError, MemoryError):
    """The GPU could not allocate the memory an op needed."""


class DeviceLostError(GpuError):
    """The WebGPU device was lost (driver reset, GPU removed, destroyed) while it was in use."""


class CancelledWorkError(RuntimeError):
    """A result read was computed by queued work that was dropped before the GPU ran it (an
    interrupt): compute it again."""


class Check:
    """The error check of one submit: `pending` (the transport's check; None while the work is
    still queued) until settled, then `error` (None: the GPU accepted the work). `cancelled`: the
    work was dropped before it was submitted (`error` says why)."""

    __slots__ = ("cancelled", "error", "op", "pending", "settled")
    error: str | None

    def __init__(self, op: str, pending: Any) -> None:
        self.op, self.pending, self.error, self.settled, self.cancelled = op, pending, None, False, False


def expect_cost(op: str, ms: float) -> None:
    """The next work `op` queues (in this task) is predicted to take `ms` of GPU time (the cost
    model's figure: selector.BackendSelector.work_ms); work queued without one is charged for the
    bytes it binds (BYTES_PER_MS)."""
    _COST.set((op, ms))


def joins(slice_ms: float, slice_commands: int, ms: float, commands: int, limit: float = SLICE_MS) -> bool:
    """Whether an op's work (`ms` predicted, `commands`) joins the open slice (`slice_ms` and
    `slice_commands` so far) rather than starting the next: an empty slice takes any work; a slice
    stays within `limit` ms (SLICE_MS, or the device's) and QUEUED_DISPATCHES.

    >>> joins(0.0, 0, 5000.0, 1), joins(60.0, 3, 30.0, 1), joins(60.0, 3, 50.0, 1)
    (True, True, False)
    """
    if slice_commands == 0:
        return True
    return slice_ms + ms <= limit and slice_commands + commands <= QUEUED_DISPATCHES


def slices_of(work: list[tuple[float, int]]) -> list[list[int]]:
    """How `enqueue` slices ops queued in this order ((predicted ms, commands) each): the indices
    of the ops in each slice.

    >>> slices_of([(40.0, 1), (40.0, 1), (40.0, 1), (250.0, 2), (1.0, 1)])
    [[0, 1], [2], [3], [4]]
    """
    out: list[list[int]] = []
    ms, commands = 0.0, 0
    for i, (op_ms, op_commands) in enumerate(work):
        if not out or not joins(ms, commands, op_ms, op_commands):
            out.append([])
            ms, commands = 0.0, 0
        out[-1].append(i)
        ms, commands = ms + op_ms, commands + op_commands
    return out


def _duration(ms: float) -> str:
    return f"{ms / 1e3:.1f} s" if ms >= 1e3 else f"{ms:.0f} ms"


def queue_status(kernels: int, ms: float, waiting: bool) -> str:
    """The status line's text for queued GPU work: `kernels` dispatches predicted to take `ms`,
    being queued or (`waiting`) waited for.

    >>> queue_status(12, 4100.0, True)
    'waiting for the GPU: 12 queued kernels, ~4.1 s predicted'
    >>> queue_status(200, 850.0, False)
    'GPU work queued: 200 kernels, ~850 ms predicted'
    """
    what = "kernel" if kernels == 1 else "kernels"
    if waiting:
        return f"waiting for the GPU: {kernels} queued {what}, ~{_duration(ms)} predicted"
    return f"GPU work queued: {kernels} {what}, ~{_duration(ms)} predicted"


class Slice:
    """Queued work for one submit: its commands, the ops that queued them, their predicted GPU
    milliseconds, the check the submit will report to, the uniform blocks it pins, and the
    buffers dropped meanwhile (pooled once it is submitted or dropped)."""

    __slots__ = ("after", "after_bytes", "check", "commands", "ms", "ops", "pins")

    def __init__(self, op: str) -> None:
        self.check = Check(op, None)
        self.commands: list[Command] = []
        self.ops: list[str] = []
        self.pins: list[bytes] = []
        self.after: list[Any] = []
        self.ms, self.after_bytes = 0.0, 0


class Produced:
    """A queued command, for fusion: what it computes as an element-wise expression (an
    elementwise.Expr, or None) of the bindings it reads (one per array operand), and as a float
    product with an epilogue (a matmul.Product, or None) of its own bindings (a, b, the
    epilogue's arrays); its output buffer, the release count when it was queued (an input dropped
    after it may be rewritten before a fused reader runs), and which commands read its output."""

    __slots__ = ("bound", "command", "expr", "inputs", "out", "product", "product_inputs", "readers",
                 "serial", "since")

    def __init__(self, command: Any, expr: Any, inputs: list[tuple], out: Any, product: Any = None,
                 product_inputs: list[tuple] | None = None) -> None:
        self.command, self.expr, self.inputs, self.out = command, expr, inputs, out
        self.product, self.product_inputs = product, product_inputs or []
        self.serial = -1  # the release count when queued (its output dropped after: see _fused_away)
        self.since = -1  # ... from which its inputs must stay unrewritten (earlier where its expression
        # came from earlier records: executor.fused)
        self.bound = False  # a fused kernel reads its output buffer (claimed): it runs
        self.readers: list[int] = []  # the queued commands that read its output (ids)


class Flight(NamedTuple):
    """A submitted slice the GPU may not have finished: the transport's mark after it, its predicted
    milliseconds and commands (kernels, and the odd copy), and when it is predicted to end
    (time.monotonic())."""

    mark: Any
    ms: float
    kernels: int
    end: float


def gpu_error(what: str, text: str) -> GpuError:
    """The exception for a transport's error text: out of memory, a lost device, or rejected work."""
    low = text.lower()
    if is_lost_text(text):
        return DeviceLostError(f"{what}: the WebGPU device was lost ({text})")
    if "out-of-memory" in low or "out of memory" in low or "outofmemory" in low:
        return GpuOutOfMemoryError(f"{what}: out of GPU memory ({text})")
    return GpuError(f"{what}: {text}")


def pending_of(checks: Iterable[Check]) -> tuple[Check, ...]:
    """The checks a new result inherits: those not yet settled, or settled with an error, each
    once (ops queued for one submit share its check: a chain would otherwise carry it once per op).

    >>> a, b = Check("relu", None), Check("scale", None)
    >>> [c.op for c in pending_of([a, b, a])]
    ['relu', 'scale']
    """
    return tuple(dict.fromkeys(c for c in checks if not c.settled or c.error))


class Device:
    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self.pool = BufferPool(self._create, transport.destroy_buffer)
        self.pipelines: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self.modules: dict[str, Any] = {}  # family (or generated kernel) -> GPUShaderModule
        self.compile_ms: dict[str, float] = {}
        self.uniforms: OrderedDict[bytes, Any] = OrderedDict()  # packed words -> uniform buffer
        self.pins: Counter[bytes] = Counter()  # uniform blocks that queued, unsubmitted work uses
        self.checks: list[Check] = []  # submitted, not yet settled
        self.errors: list[str] = []  # the last errors the GPU reported (info())
        self.allocations: dict[int, Any] = {}  # id(buffer) -> check of a large buffer's allocation
        self.lost: str | None = None
        self.acquired_at = time.monotonic()
        # queued work (see the module doc): slices held back, oldest first, and those submitted
        # that the GPU may not have finished
        self.slices: list[Slice] = []
        self.flight: deque[Flight] = deque()
        self.flight_ms = 0.0  # their predicted milliseconds in all
        self.bytes_per_ms = BYTES_PER_MS["cpu" if _is_cpu_adapter(transport.adapter_info) else "gpu"]
        self.on_wait: Callable[[float, str], None] | None = None  # (ms, why): the runtime traces a wait
        self._pump_scheduled: asyncio.AbstractEventLoop | None = None  # (the loop a pump waits on)
        self._interrupts = interrupts.count()  # interrupts seen: a new one drops held-back work
        self._reported = 0.0  # when the status line was last told about queued work
        self.compiling: dict[tuple[str, str], asyncio.Future] = {}  # compiles in flight, shared
        self.precompiled = {"done": 0, "total": 0}  # the background compile's progress
        # the plans of fixed-kernel calls on GpuArrays, replayed (engine.executor.remember); looked up
        # with dispatch.plan_key()'s answer, whose None (parameters that cannot be a key) finds nothing
        self.plans: dict[tuple | None, Any] = {}
        # fusion of held element-wise work (see the module doc): id(output buffer) -> its command,
        # id(buffer) -> the release count when it was dropped while work was held back
        self.produced: dict[int, Produced] = {}
        self.records: list[Produced] = []  # every registered command held back, in order
        self.released_at: dict[int, int] = {}
        self.rewritten_at: dict[int, int] = {}  # id(buffer) -> the count when a command took it, dropped
        self.releases = 0  # releases and takes of dropped buffers while work is held back
        self.fused_away = 0  # commands left out because a fused kernel computed their value
        self.fused_note: Any = None  # the Expr of the last fused kernel queued (for the call's trace entry)
        self.call_compiles = 0  # a call's compiles in flight (the pump leaves the open slice alone)
        self.fusion = True  # False: no element-wise work fuses or is left out (benchmarks of single ops)
        self.recorder: Any = None  # a function's capture under way (engine/capture.py's Recorder)
        self.binding_kinds: dict[int, tuple[str, ...]] = {}  # id(pipeline) -> its bindings' kinds
        # adapter facts, once
        self.limits = transport.limits
        self.adapter_info = transport.adapter_info
        self.cpu_adapter = _is_cpu_adapter(self.adapter_info)
        pace = 1.0 if self.cpu_adapter else GPU_PACE
        self.slice_ms, self.ahead_ms = SLICE_MS * pace, AHEAD_MS * pace  # (see GPU_PACE)
        self.loop_cap = _loop_cap(self.adapter_info)
        self.max_groups = self.limits.get("maxComputeWorkgroupsPerDimension", 65535)
        self.max_binding = _max_binding(self.limits)

    # -- buffers
    def _create(self, size: int, usage: int) -> Any:
        """A new buffer; a large one's allocation is checked (see take_allocation_check)."""
        if size < CHECKED_ALLOCATION:
            return self.transport.create_buffer(size, usage)
        try:
            buf, check = self.transport.create_buffer_checked(size, usage)
        except MemoryError as exc:
            raise GpuOutOfMemoryError(str(exc)) from None
        if check is not None:
            self.allocations[id(buf)] = check
        return buf

    def take_allocation_check(self, buf: Any) -> Any:
        """The pending check of `buf`'s allocation, if it was made large and not yet checked."""
        return self.allocations.pop(id(buf), None) if self.allocations else None

    def release(self, buf: Any) -> None:
        """Give `buf` back to the pool, once no queued work can still read it: when the slices held
        back now are submitted (or dropped). Meanwhile a queued command may take it as its output
        (take_dropped): the next op of a chain of large ones reuses it instead of allocating
        another, without hurrying the held work (which would end its fusion). A buffer a captured
        program holds (capture.py) goes to the pool at once: it is never handed out again, and no
        command may take it as its output while the program uses it."""
        if not self.slices or self.pool.held(buf):
            self.pool.release(buf)
            return
        self.released_at[id(buf)] = self.releases
        self.releases += 1
        last = self.slices[-1]
        last.after.append(buf)
        last.after_bytes += self.pool.class_of(buf)[0]

    def take_dropped(self, nbytes: int, usage: int) -> Any:
        """A buffer of this size and usage dropped while work was held back (see release), for a
        queued command to write, or None. Reusing it before that work is submitted is safe for a
        dispatch's or a copy's output and nothing else: the queued work that still reads it runs
        first (slices are submitted in order, and a command buffer runs in order), where an upload
        (writeBuffer, or a staging buffer's copy submitted at once) would land before that work."""
        wanted = None
        for held in reversed(self.slices):
            if held.after:
                wanted = wanted or (size_class(max(nbytes, 4)), usage)
                for i in range(len(held.after) - 1, -1, -1):
                    if self.pool.class_of(held.after[i]) == wanted:
                        held.after_bytes -= wanted[0]
                        buf = held.after.pop(i)
                        if self.records:  # (rewritten from now on: what read it cannot be computed again)
                            self.rewritten_at[id(buf)] = self.releases
                            self.releases += 1
                        return buf
        return None

    def claim(self, buffers: list[Any]) -> list[Any]:
        """Take out of the held slices' dropped buffers those a fused kernel is about to read
        (`buffers`), so that no command takes them as its output first; they go back with the
        slice that queues that kernel (enqueue's `after`). Returns the ones taken."""
        taken = []
        for buf in buffers:
            if id(buf) not in self.released_at:
                continue
            for held in self.slices:
                if any(b is buf for b in held.after):
                    held.after = [b for b in held.after if b is not buf]
                    held.after_bytes -= self.pool.class_of(buf)[0]
                    taken.append(buf)
                    break
        return taken

    # -- queued work (see the module doc)
    @property
    def queued(self) -> list[Command]:
        """The commands queued and not yet submitted, in order."""
        return [c for held in self.slices for c in held.commands]

    def enqueue(self, op: str, commands: list[Command], pins: list[bytes], submit: bool = False,
                produced: Iterable[Produced] = (), after: Iterable[Any] = ()) -> Check:
        """Queue `commands` (whose uniform blocks are `pins`, now the queue's) in the open slice, or
        a new one (see `joins`); returns the check its submit will report to. submit: submit
        everything queued now (a CommandBatch's execute), whatever the GPU has left to do.
        `produced`: what element-wise commands among them compute, for fusion (see Produced);
        `after`: dropped buffers they read (claimed), pooled once their slice is submitted."""
        self._note_interrupts()
        if self.recorder is not None:
            self.recorder.queued()
        if after:  # dropped buffers a fused kernel reads (claimed): their writers' values are needed
            # (one claimed only to keep a record's expression intact is bound by no command)
            read = {id(b[0]) for c in commands if type(c) is Dispatch for b in c.bindings}
            for buf in after:
                found = self.produced.get(id(buf)) if id(buf) in read else None
                if found is not None:
                    found.bound = True
        if self.produced:  # a command binding a registered output reads it (or, where the output
            for c in commands:  # was dropped since, can only write it: a reader needs a handle)
                for b in (c.bindings if type(c) is Dispatch else ((c.src,), (c.dst,))):  # type: ignore[union-attr]
                    key = id(b[0])
                    found = self.produced.get(key)
                    if found is not None and found.command is not c:
                        if self.released_at.get(key, -1) < found.serial:
                            found.readers.append(id(c))
                        else:  # (rewritten: no one reads what it wrote any more through this buffer)
                            del self.produced[key]
        for record in produced if self.fusion else ():
            record.serial = self.releases
            if record.since < 0:
                record.since = self.releases
            self.produced[id(record.out)] = record
            self.records.append(record)
        expected = _COST.get()
        if expected is not None and expected[0] == op:
            ms = expected[1]
            _COST.set(None)  # (more work of the same call is charged for its bytes)
        else:
            ms = self._bytes_ms(commands)
        last = self.slices[-1] if self.slices else None
        if last is None or not joins(last.ms, len(last.commands), ms, len(commands), self.slice_ms):
            last = Slice(op)
            self.slices.append(last)
            if not submit:
                self._schedule_pump(0.0)
        last.commands.extend(commands)
        for buf in after:
            last.after.append(buf)
            last.after_bytes += self.pool.class_of(buf)[0]
        last.ops.append(op)
        last.pins.extend(pins)
        pins.clear()
        last.ms += ms
        check = last.check
        if submit:
            self.flush()
        else:
            self.submit_ready()
            if self.slices and (len(self.slices) > 1 or self.slices[0].ms >= REPORT_MS):
                self._report_queued()
        return check

    def _bytes_ms(self, commands: list[Command]) -> float:
        """The predicted GPU milliseconds of commands the cost model did not predict."""
        bound = sum(b[1] for c in commands if type(c) is Dispatch for b in c.bindings)
        return bound / self.bytes_per_ms

    def flush(self) -> None:
        """Submit everything queued now, slice by slice (nothing is awaited): for work that must
        follow it in the GPU's queue, or no longer wait (the pool's counts)."""
        self._note_interrupts()
        while self.slices:
            self._submit(self.slices.pop(0))

    def hand_over(self) -> None:
        """Submit everything queued now if the GPU is predicted to have finished what it was
        given and the queued work is predicted to take HAND_OVER_MS or more: for work nothing
        queued later fuses into (a replayed program's), so that the GPU runs it while Python goes
        on to the next call instead of waiting for the next read. A GPU adapter only, where
        predictions come from timestamps (pycore.jit's pacing), or from the cost model's
        overestimates, which then hold the work back until a read; a CPU adapter's submit costs
        more than the overlap gains."""
        if not self.slices or self.cpu_adapter or HAND_OVER_MS <= 0 or self.recorder is not None:
            return
        if self.flight and self.flight[-1].end > time.monotonic():
            return  # (the GPU is predicted busy: the work joins the next submit)
        if sum(held.ms for held in self.slices) >= HAND_OVER_MS:
            self.flush()

    def submit_ready(self, everything: bool = False) -> None:
        """Submit the slices the GPU can take now: while it has less than AHEAD_MS of submitted
        work left (as far as the transport tells, else as predicted), the closed slices (all of
        them, the open one too, with `everything`)."""
        self._note_interrupts()
        slices = self.slices
        if not slices or not (everything or len(slices) > 1 or len(slices[0].commands) >= QUEUED_DISPATCHES):
            return  # (nothing to submit: the GPU's progress need not be asked)
        self._retire()
        while self.slices and (everything or len(self.slices) > 1
                               or len(self.slices[0].commands) >= QUEUED_DISPATCHES):
            if len(self.flight) > 1 and self.flight_ms >= self.ahead_ms:  # (two in flight at least:
                return  # the GPU has the next slice while it runs one, and never waits for the host)
            self._submit(self.slices.pop(0))

    def inlinable(self, buf: Any) -> Produced | None:
        """The held element-wise command whose output is `buf`, where a fused kernel may compute
        its value again instead of reading `buf`: no command took one of its inputs as an output
        since it was queued (a dropped input is still intact until then: see claim). (Its output
        rewritten, it is no longer registered: see enqueue.)"""
        found = self.produced.get(id(buf))
        if found is None:
            return None
        rewritten = self.rewritten_at
        if rewritten and any(rewritten.get(id(b[0]), -1) >= found.since
                             for b in (*found.inputs, *found.product_inputs)):
            return None
        return found

    def dropped(self, record: Produced) -> bool:
        """Whether the program dropped `record`'s output since it was queued (so unless a command
        left in reads it, the command is left out)."""
        return self.released_at.get(id(record.out), -1) >= record.serial

    def _fused_away(self, held: Slice) -> None:
        """Leave out of `held` the registered commands whose output was dropped since they were
        queued and that no command left in reads (fused kernels computed their values), and
        forget the records of its commands."""
        mine = {id(c) for c in held.commands}
        dead: set[int] = set()
        kept = []
        for record in reversed(self.records):  # (a reader is queued after what it reads: decided first)
            if id(record.command) not in mine:
                kept.append(record)
                continue
            key = id(record.out)
            if self.produced.get(key) is record:
                del self.produced[key]
            if (not record.bound and self.released_at.get(key, -1) >= record.serial
                    and all(r in dead for r in record.readers)):  # (read only by commands left out)
                dead.add(id(record.command))
        self.records = kept[::-1]
        if dead:
            held.commands = [c for c in held.commands if id(c) not in dead]
            self.fused_away += len(dead)

    def _submit(self, held: Slice) -> None:
        if self.records:
            self._fused_away(held)
        if not self.slices:  # (the last held slice: no record or release count is needed after it)
            self.produced.clear()
            self.records.clear()
            self.released_at.clear()
            self.rewritten_at.clear()
        if not held.commands:  # (all of it fused away: nothing to submit, nothing to report)
            held.check.settled = True
            self._let_go(held)
            return
        check = held.check
        check.op = ", ".join(dict.fromkeys(held.ops))  # (the ops, in order, each once)
        if self.recorder is not None:
            self.recorder.submitted(held.commands, held.ms, check.op)
        try:
            check.pending = self.transport.submit(held.commands)
            self.checks.append(check)
        except BaseException as exc:  # (an interrupt too): what depends on this work raises when read
            check.error, check.settled = f"never submitted ({type(exc).__name__}: {exc})", True
            raise
        finally:
            self._let_go(held)
        now = time.monotonic()
        begins = max(now, self.flight[-1].end) if self.flight else now
        self.flight.append(Flight(self.transport.mark(), held.ms, len(held.commands), begins + held.ms / 1e3))
        self.flight_ms += held.ms

    def _let_go(self, held: Slice) -> None:
        """A slice was submitted or dropped: its uniform blocks and the buffers dropped meanwhile go."""
        self.unpin(held.pins)
        for buf in held.after:
            if self.records:  # (pooled: what a later record reads there may be overwritten)
                self.rewritten_at[id(buf)] = self.releases
                self.releases += 1
            self.pool.release(buf)
        held.after.clear()

    def _retire(self) -> None:
        """Forget the submitted slices the GPU has finished (as the transport tells, or where it
        cannot, as predicted)."""
        flight, now = self.flight, time.monotonic()
        while flight:
            done = self.transport.marked(flight[0].mark)
            if not (done or (done is None and flight[0].end <= now)):
                return
            self._landed()

    def _landed(self) -> Flight:
        """The oldest submitted slice is finished: forget it."""
        landed = self.flight.popleft()
        self.flight_ms = self.flight_ms - landed.ms if self.flight else 0.0
        return landed

    def cancel(self, why: str) -> int:
        """Drop every slice not yet submitted: its check gets the error `CANCELLED (why)`, so every
        result of it raises CancelledWorkError when read. Returns how many commands were dropped."""
        dropped, self.slices = self.slices, []
        self.produced.clear()
        self.records.clear()
        self.released_at.clear()
        self.rewritten_at.clear()
        for held in dropped:
            check = held.check
            check.op = ", ".join(dict.fromkeys(held.ops))
            check.error, check.settled, check.cancelled = f"{CANCELLED} ({why})", True, True
            self._let_go(held)
        return sum(len(held.commands) for held in dropped)

    def _note_interrupts(self) -> None:
        """An interrupt raised since the device last looked (in the user's code, say) drops the
        work held back."""
        seen = interrupts.count()
        if seen != self._interrupts:
            self._interrupts = seen
            self.cancel("KeyboardInterrupt")

    def backlogged(self) -> bool:
        """Whether so much queued work is held back that the next op should wait (keep_up_async)."""
        if len(self.slices) < 2:
            return False
        return (sum(held.ms for held in self.slices) > HOLD_MS
                or sum(held.after_bytes for held in self.slices) > HOLD_BYTES)

    def pending_work(self) -> tuple[int, float]:
        """Queued dispatches the GPU has not finished (held back, or submitted and not known to
        be done), and their predicted milliseconds."""
        self._retire()
        kernels = sum(len(h.commands) for h in self.slices) + sum(f.kernels for f in self.flight)
        return kernels, sum(h.ms for h in self.slices) + self.flight_ms

    def _report_queued(self) -> None:
        now = time.monotonic()
        if now - self._reported < REPORT_EVERY_S:
            return
        self._reported = now
        kernels, ms = self.pending_work()
        if ms >= REPORT_MS:
            report_progress("gpu", 0, 1, queue_status(kernels, ms, waiting=False))

    async def drain_async(self, keep_ms: float | None = None) -> None:
        """Submit the slices held back, each once the GPU can take it (submit_ready), waiting
        for the GPU between them and checking the interrupt after each wait; then, unless
        `keep_ms`, wait for the submitted work too if WAIT_MS or more of it is predicted left. With
        `keep_ms`, stop once no more than that much is held back. The status line says what is
        waited for; a wait is traced as its own entry (on_wait). An interrupt (KeyboardInterrupt,
        or the task cancelled) drops what is still held back (cancel) and is raised."""
        self._note_interrupts()
        if not self.slices and not self.flight:
            return
        start, waited = time.perf_counter(), False
        kernels, ms = self.pending_work()
        ops = ", ".join(dict.fromkeys(op for held in self.slices for op in held.ops))
        try:
            while True:
                if keep_ms is None:
                    self.submit_ready(everything=True)
                    if not self.slices:
                        self._retire()
                        if not self.flight or self.flight_ms < WAIT_MS:
                            break
                else:
                    self.submit_ready()
                    if sum(h.ms for h in self.slices) <= keep_ms or not self.flight:
                        break
                if not self.flight:  # (nothing submitted to wait for: an empty open slice)
                    self.flush()
                    continue
                self._report_waiting()
                waited = True
                mark = self.flight[0].mark
                await self.transport.wait_marked_async(mark)
                self._finished(mark)
                interrupts.check()
        except BaseException as exc:
            if not isinstance(exc, Exception):  # an interrupt, a cancelled task
                self.cancel(type(exc).__name__)
                self._interrupts = interrupts.count()  # (this interrupt is answered)
            raise
        finally:
            if waited:
                report_progress("gpu", 1, 1, "")
                if self.on_wait is not None:
                    took = (time.perf_counter() - start) * 1e3
                    self.on_wait(took, f"{kernels} queued kernels ({ops or 'submitted before'}), "
                                       f"predicted {ms:.4g} ms")

    async def keep_up_async(self) -> None:
        """Before an op queues more: while too much queued work is held back (backlogged), wait
        for the GPU until half of HOLD_MS is left (drain_async)."""
        if self.backlogged():
            await self.drain_async(keep_ms=HOLD_MS / 2)

    def _report_waiting(self) -> None:
        kernels, ms = self.pending_work()
        report_progress("gpu", 0, 1, queue_status(kernels, ms, waiting=True))

    def _finished(self, mark: Any) -> None:
        """The work up to `mark` has finished: forget its slices and the earlier ones (all of them
        for a transport that keeps no marks: its wait was for all the work submitted)."""
        while self.flight:
            if self._landed().mark is mark and mark is not None:
                return

    def _schedule_pump(self, delay_s: float) -> None:
        """Submit what the GPU can take when the event loop next runs (after `delay_s`), and go on
        doing so while slices are held back, so that held-back work runs while Python waits. On the
        loop running now: a pump scheduled on another one (a loop that `asyncio.run` closed since,
        say) may never run, so it does not count."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop: the next read, or a full slice, submits
        if self._pump_scheduled is loop:
            return
        self._pump_scheduled = loop

        def pump() -> None:
            if self._pump_scheduled is loop:
                self._pump_scheduled = None
            if self.lost is not None:
                return
            self.submit_ready(everything=not self.call_compiles)  # (a call compiling will queue more)
            if self.slices:  # (the GPU is busy: look again when its oldest slice should be done)
                left = self.flight[0].end - time.monotonic() if self.flight else 0.0
                self._schedule_pump(min(max(left, 0.005), 0.1))

        if delay_s > 0:
            loop.call_later(delay_s, pump)
        else:
            loop.call_soon(pump)

    # -- uniform blocks
    def uniform(self, words: np.ndarray, pins: list[bytes]) -> Any:
        """The uniform buffer holding `words`, made and written once, then shared by every call
        that passes the same values. The block is pinned (its key appended to `pins`) until the
        caller's work is submitted: an unsubmitted block is never destroyed to make room."""
        key = words.tobytes()
        self.pins[key] += 1
        pins.append(key)
        if self.recorder is not None:  # (a captured program keeps it)
            self.recorder.pinned(key)
        buf = self.uniforms.get(key)
        if buf is None:
            buf = self.transport.create_buffer(words.nbytes, UNIFORM | COPY_DST, "uniform")
            self.transport.write_buffer(buf, words)
            self.uniforms[key] = buf
            self._trim_uniforms()
        else:
            self.uniforms.move_to_end(key)
        return buf

    def unpin(self, pins: list[bytes]) -> None:
        """The work that used these blocks was submitted (or dropped): they may go."""
        for key in pins:
            left = self.pins[key] - 1
            if left > 0:
                self.pins[key] = left
            else:
                del self.pins[key]
        pins.clear()
        self._trim_uniforms()

    def _trim_uniforms(self) -> None:
        if len(self.uniforms) <= UNIFORM_CACHE:
            return
        # Submitted work may still read a block: destroy() lets it finish first (WebGPU's rule).
        for key in [k for k in self.uniforms if k not in self.pins][:len(self.uniforms) - UNIFORM_CACHE]:
            self.transport.destroy_buffer(self.uniforms.pop(key))

    # -- error checks
    def submitted(self, op: str, pending: Any) -> Check:
        check = Check(op, pending)
        self.checks.append(check)
        return check

    def take_checks(self) -> list[Check]:
        checks, self.checks = self.checks, []
        return checks

    def settled(self, checks: list[Check], errors: list[str | None]) -> None:
        """Record the errors of checks settled together."""
        for check, error in zip(checks, errors, strict=True):
            check.pending, check.error, check.settled = None, error, True
            if error:
                self.errors = [*self.errors[-7:], f"{check.op}: {error}"]

    async def settle_async(self) -> None:
        """Submit what is queued (drain_async), then wait for every unsettled check (one await);
        errors stay with their checks."""
        await self.drain_async()
        self.flush()
        checks = self.take_checks()
        if checks:
            self.settled(checks, await self.transport.settle_async([c.pending for c in checks]))

    # -- pipelines
    @staticmethod
    def pipeline_key(family: str, entry: str, name: str | None = None) -> tuple[str, str]:
        """The cache key of a pipeline: a generated kernel's `name` tells it from its siblings."""
        return (family, entry if name is None else f"{entry}:{name}")

    async def pipeline_async(self, family: str, entry: str, bindings: tuple[str, ...],
                             source: Callable[[], str] | None = None, name: str | None = None) -> Any:
        """The compiled pipeline for one WGSL entry point, created once (asynchronously, so a
        compile never blocks the page); its compile time is kept for info(). The source is
        shaders/<family>.wgsl, or `source()` for a generated kernel (called only to compile it;
        the GENERATED_PIPELINES most recently used generated kernels stay compiled)."""
        key = self.pipeline_key(family, entry, name)
        pipeline = self.pipelines.get(key)
        if pipeline is not None:
            if source is not None:
                self.pipelines.move_to_end(key)
            return pipeline
        if key in self.compiling:  # (the background compile, or a concurrent call, got there first)
            return await asyncio.shield(self.compiling[key])
        done = self.compiling[key] = asyncio.get_running_loop().create_future()
        done.add_done_callback(lambda f: f.cancelled() or f.exception())  # (retrieved: no warning)
        try:
            pipeline = await self._compile_async(key, family, entry, bindings, source, name)
        except BaseException as exc:
            done.set_exception(exc)
            raise
        finally:
            del self.compiling[key]
        done.set_result(pipeline)
        return pipeline

    async def _compile_async(self, key: tuple[str, str], family: str, entry: str, bindings: tuple[str, ...],
                             source: Callable[[], str] | None, name: str | None) -> Any:
        label, start = ".".join(key), time.perf_counter()
        module_key = family if source is None else label
        module = self.modules.get(module_key)
        try:
            if module is None:
                module = self.transport.create_shader_module(
                    wgsl_source(family) if source is None else source(), module_key)
                self.modules[module_key] = module
            pipeline = await self.transport.create_pipeline_async(module, entry, label, bindings)
        except ShaderCompileError as exc:
            if is_lost_text(str(exc)):
                raise DeviceLostError(f"compiling {label}: the WebGPU device was lost ({exc})") from None
            what = f"shaders/{family}.wgsl" + ("" if source is None else f" (generated: {name})")
            raise GpuError(f"{what} does not compile:\n{exc}") from None
        self.compile_ms[label] = round((time.perf_counter() - start) * 1e3, 3)
        self.pipelines[key] = pipeline
        self.binding_kinds[id(pipeline)] = bindings
        if source is not None:
            self._trim_generated()
        return pipeline

    async def precompile_async(self, kernels: list[tuple]) -> None:
        """Compile these (family, entry, bindings[, source, name]) pipelines one after another, in
        the background: a call that needs one meanwhile waits for that compile only (its trace shows
        "compile")."""
        self.precompiled = {"done": 0, "total": len(kernels)}
        for family, entry, bindings, *generated in kernels:
            if self.lost is not None:
                return
            try:
                await self.pipeline_async(family, entry, bindings, *generated)
            except Exception as exc:  # (the call that needs it will raise)
                self.errors = [*self.errors[-7:], f"compiling {family}.{entry}: {exc}"]
            self.precompiled["done"] += 1

    def _trim_generated(self) -> None:
        generated = [k for k in self.pipelines if ":" in k[1]]
        for key in generated[:max(0, len(generated) - GENERATED_PIPELINES)]:
            del self.pipelines[key]
            self.modules.pop(".".join(key), None)
            self.compile_ms.pop(".".join(key), None)

    # -- the end
    def destroy(self) -> None:
        self.transport.destroy()


def _adapter_text(info: dict[str, Any], keys: tuple[str, ...]) -> str:
    return " ".join(str(info.get(k, "")) for k in keys).lower()


def _is_cpu_adapter(info: dict[str, Any]) -> bool:
    """Whether the adapter is a CPU implementation (SwiftShader, lavapipe/llvmpipe), where kernels
    that lean on workgroup memory and barriers run slower than ones that do not."""
    text = _adapter_text(info, ("architecture", "description", "device"))
    return (info.get("adapter_type") == "CPU" or bool(info.get("isFallbackAdapter"))
            or any(name in text for name in ("swiftshader", "llvmpipe", "lavapipe")))


def _loop_cap(info: dict[str, Any]) -> int | None:
    """Loop iterations one shader invocation may run in all, if the driver caps them: llvmpipe
    (lavapipe) silently leaves every loop once an invocation has run 65,535 iterations (measured:
    a matmul with K / 4 = 65,600 came back wrong). None elsewhere."""
    text = _adapter_text(info, ("vendor", "description", "device"))
    return 65_535 if any(name in text for name in ("llvmpipe", "lavapipe")) else None


def _max_binding(limits: dict[str, int]) -> int:
    """The largest byte size pycore binds or allocates as one buffer: the binding limit, a multiple
    of 256, and 64 KiB under maxBufferSize where that is small. (SwiftShader advertises 1 GiB but
    cannot allocate exactly 1 GiB: its driver pads each allocation.)

    >>> _max_binding({"maxStorageBufferBindingSize": 1 << 30, "maxBufferSize": 1 << 30})
    1073676288
    >>> _max_binding({"maxStorageBufferBindingSize": 2**31 - 4, "maxBufferSize": 1 << 40})
    2147483392
    """
    binding = limits.get("maxStorageBufferBindingSize", 128 << 20)
    size = limits.get("maxBufferSize", 256 << 20)
    if size <= 4 << 30:
        size -= 64 << 10
    return min(binding, size) // 256 * 256
