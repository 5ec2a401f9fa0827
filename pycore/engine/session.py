"""One call's work on the GPU: pooled buffers, uploads, uniforms, commands, and the readback. The
executor (executor.py) runs a call's plans on a session; the call ends in `result_async`.

A `GpuSession` is opened per call (`async with GpuSession(device, op) as gpu:`); every buffer it
hands out goes back to the device's pool when the call ends, whatever happens (WebGPU orders queue
work, so a buffer reused by the next call is written only after this call's commands have read it).
Commands queued with `dispatch` and `copy` are encoded into one command buffer by `run_async`, inside
validation and out-of-memory error scopes. The submit's `Check` goes with every result it made
(a GpuView's `checks`), together with the checks of its inputs, so a rejected command raises at the
latest when a result that depends on it is read, never in an unrelated call, and never leaves zeros
behind silently. Uniform blocks are cached by content and pinned until the work using them is
submitted.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from pycore.engine import interrupts
from pycore.engine.device import (
    CancelledWorkError,
    Check,
    Device,
    GpuOutOfMemoryError,
    Produced,
    gpu_error,
    pending_of,
)
from pycore.engine.progress import report as report_progress
from pycore.engine.transport import COPY_DST, COPY_SRC, MAP_READ, STORAGE, Command, Copy, Dispatch

BACKLOG = 64  # submits left unsettled before a chain that never reads waits for them


# Usage of every data buffer: inputs, outputs and GpuArrays share one pool class, and any of them
# can be written, bound as storage, copied from and read back.
DATA_USAGE = STORAGE | COPY_SRC | COPY_DST


class GpuView:
    """A float32, C-ordered window on a GPU buffer: what programs bind instead of uploading, and
    what a program returns for a result that stays on the GPU. `checks`: the unsettled (or failed)
    error checks of the work that wrote it. Supports the little of ndarray's interface the programs
    use: shape, size, nbytes, ndim, reshape, and slicing along the first axis."""

    __slots__ = ("buffer", "checks", "offset", "shape")

    def __init__(self, buffer: Any, shape: tuple[int, ...], offset: int = 0,
                 checks: tuple[Check, ...] = ()) -> None:
        self.buffer, self.shape, self.offset, self.checks = buffer, tuple(shape), offset, checks

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return 4 * math.prod(self.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def reshape(self, *shape: Any) -> GpuView:
        """The same elements in another shape (NumPy's rules: one -1 stands for the rest).

        >>> GpuView(None, (4, 6)).reshape(-1).shape, GpuView(None, (4, 6)).reshape(3, -1).shape
        ((24,), (3, 8))
        """
        dims = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        size = math.prod(self.shape)
        if dims.count(-1) == 1:
            known = math.prod(d for d in dims if d != -1)
            if known == 0 or size % known:
                raise ValueError(f"cannot reshape a GpuView of shape {self.shape} into {dims}")
            dims = tuple(size // known if d == -1 else d for d in dims)
        if math.prod(dims) != size or any(d < 0 for d in dims):
            raise ValueError(f"cannot reshape a GpuView of shape {self.shape} into {dims}")
        return GpuView(self.buffer, tuple(int(d) for d in dims), self.offset, self.checks)

    def __getitem__(self, key: slice) -> GpuView:
        if not isinstance(key, slice) or key.step not in (None, 1):
            raise TypeError("GpuView supports only contiguous slices along the first axis")
        lo, hi, _ = key.indices(self.shape[0])
        hi = max(hi, lo)
        row = math.prod(self.shape[1:])
        return GpuView(self.buffer, (hi - lo, *self.shape[1:]), self.offset + 4 * lo * row, self.checks)


class GpuSession:
    def __init__(self, device: Device, op_name: str, keep_result: bool = False,
                 deferred: bool = False) -> None:
        """keep_result: the op's output stays on the GPU (result_async gives a GpuView) instead of
        being read. deferred: run_async only queues (a CommandBatch submits everything once, at
        the end)."""
        self.op_name = op_name
        self.keep_result = keep_result or deferred
        self.deferred = deferred
        self.device = device
        self.transport = device.transport
        self.pool = device.pool
        self.limits = device.limits
        self.max_binding = device.max_binding
        self.max_groups = device.max_groups
        self.cpu_adapter = device.cpu_adapter
        self.loop_cap = device.loop_cap
        self._held: list[Any] = []
        self._fresh: list[Any] = []  # buffers made (not reused) for this session
        self._commands: list[Command] = []
        self.planned: list[tuple[Any, list, list]] = []  # (plan, inputs, outputs) the executor ran
        self.produced: list[Produced] = []  # element-wise commands queued with it (Device.enqueue)
        self.claimed: list[Any] = []  # dropped buffers its fused kernels read (Device.claim)
        self._pins: list[bytes] = []  # uniform blocks queued commands use
        self._inherited: list[Check] = []  # checks of the inputs and of large allocations
        self.checks: tuple[Check, ...] = ()  # what the results so far depend on
        self.stages = {"buffers": 0.0, "upload": 0.0, "dispatch": 0.0, "readback": 0.0}

    async def __aenter__(self) -> GpuSession:
        return self

    async def __aexit__(self, exc_type: Any, *exc: object) -> None:
        self.close(failed=exc_type is not None)

    def close(self, failed: bool = False) -> None:
        """Give back every buffer still held and unpin the uniforms. After a failure, buffers made
        for this session are destroyed rather than pooled (an allocation may have failed)."""
        self.device.unpin(self._pins)
        claimed, self.claimed = self.claimed, []
        for buf in claimed:  # (dropped buffers a fused kernel of it was to read, never queued)
            self.device.release(buf)
        held, self._held = self._held, []
        fresh = {id(b) for b in self._fresh} if failed else set()
        for buf in held:
            if id(buf) in fresh:
                self.pool.discard(buf)
            else:
                self.device.release(buf)

    def release_all(self) -> list[Any]:
        """Hand over (and forget) every buffer this session still holds."""
        held, self._held = self._held, []
        return held

    # -- buffers
    def buffer(self, nbytes: int, usage: int, fresh: bool = False) -> Any:
        t = time.perf_counter()
        made = self.pool.allocations
        try:
            buf = self.pool.acquire(max(nbytes, 4), usage, fresh)
        except GpuOutOfMemoryError as exc:
            raise GpuOutOfMemoryError(f"{self.op_name}: allocating {nbytes:,} bytes failed: out of GPU "
                                      f"memory ({exc})") from None
        self._held.append(buf)
        if self.pool.allocations != made:
            self._fresh.append(buf)
            pending = self.device.take_allocation_check(buf)
            if pending is not None:  # settled with the next read, like a submit
                self._inherited.append(self.device.submitted(f"allocating {nbytes:,} bytes", pending))
        self.stages["buffers"] += time.perf_counter() - t
        return buf

    def upload(self, array: Any) -> tuple:
        """A binding of `array`: a host array (C-contiguous float32) is uploaded to a new buffer,
        a GpuView already on the device is bound where it lies: (buffer, nbytes[, offset])."""
        if isinstance(array, GpuView):
            align = self.limits.get("minStorageBufferOffsetAlignment", 256)
            if array.offset % align:
                raise ValueError(f"{self.op_name}: a part of a GpuArray at byte {array.offset} cannot be "
                                 f"bound (offsets must be multiples of {align}); use a smaller input")
            self.depend_on(array.checks)
            return array.buffer, max(array.nbytes, 4), array.offset
        recorder = self.device.recorder
        buf = self.buffer(array.nbytes, DATA_USAGE, fresh=recorder is not None)
        if recorder is not None:  # (a constant of a function being captured: see capture.py)
            recorder.uploaded(buf)
        t = time.perf_counter()
        if array.nbytes:
            self.transport.write_buffer(buf, array)
        self.stages["upload"] += time.perf_counter() - t
        return buf, max(array.nbytes, 4)

    def depend_on(self, checks: tuple[Check, ...]) -> None:
        """What this session computes depends on work with these checks."""
        if checks:
            self._inherited.extend(checks)

    def result_checks(self) -> tuple[Check, ...]:
        """The checks a result made so far depends on (its submits', its inputs', allocations')."""
        return pending_of([*self.checks, *self._inherited])

    def output(self, nbytes: int) -> tuple[Any, int]:
        """A storage buffer for results (only commands write it: one dropped since the last submit
        may serve, see Device.take_dropped)."""
        buf = self.device.take_dropped(nbytes, DATA_USAGE)
        if buf is None:
            return self.buffer(nbytes, DATA_USAGE), max(nbytes, 4)
        self._held.append(buf)
        return buf, max(nbytes, 4)

    def keep(self, buf: Any) -> None:
        """Let `buf` outlive this session (a GpuArray or a CommandBatch now owns it)."""
        self._held.remove(buf)

    async def result_async(self, dst: tuple[Any, int], shape: tuple[int, ...]) -> np.ndarray | GpuView:
        """The call's result, the float32 output `dst` of the queued work: read into a new host
        array, or, when the result stays on the GPU, that buffer as a GpuView (queued, not
        submitted; its checks those of the work it depends on)."""
        if not self.keep_result:
            out = np.empty(shape, np.float32)
            await self.run_async(read=(dst[0], out))
            return out
        await self.run_async()
        if not self.deferred:  # (a deferred session's buffers all go to its CommandBatch)
            self.keep(dst[0])
        return GpuView(dst[0], shape, checks=self.result_checks())

    async def read_part_async(self, dst: tuple[Any, int], part: np.ndarray) -> None:
        """Read the output `dst` of the queued work into `part` of a host result computed in parts
        (inputs past one binding); such a result cannot stay on the GPU (ValueError)."""
        if self.keep_result:
            raise ValueError(f"{self.op_name}: the result is too large to stay on the GPU in one binding "
                             f"(maxStorageBufferBindingSize is {self.max_binding:,} bytes)")
        await self.run_async(read=(dst[0], part))

    async def finish_scalar_async(self, dst: tuple[Any, int]) -> float | GpuView:
        """A reduction's end: element 0 of `dst` read back as a float; when deferred (a
        CommandBatch reads it later), a GpuView of it."""
        if self.deferred:
            return GpuView(dst[0], (), checks=self.result_checks())
        value = np.empty(1, np.float32)
        await self.run_async(read=(dst[0], value))
        return float(value[0])

    def uniform_words(self, words: np.ndarray) -> tuple[Any, int]:
        return self.device.uniform(words, self._pins), words.nbytes

    # -- commands
    async def pipeline_async(self, family: str, entry: str, bindings: tuple[str, ...],
                             source: Callable[[], str] | None = None, name: str | None = None) -> Any:
        """The cached pipeline; a first use compiles it, and the trace shows that as "compile".
        `source` and `name`: a generated kernel (see Device.pipeline_async)."""
        device = self.device
        key = device.pipeline_key(family, entry, name)
        pipeline = device.pipelines.get(key)
        if pipeline is not None:
            if source is not None:
                device.pipelines.move_to_end(key)  # (generated kernels: the most recently used stay)
            return pipeline
        t = time.perf_counter()
        label = ".".join(key)
        report_progress("compile", 0, 1, label)
        device.call_compiles += 1  # (meanwhile the open slice stays open: later calls may fuse into it)
        try:
            pipeline = await device.pipeline_async(family, entry, bindings, source, name)
        finally:
            device.call_compiles -= 1
        report_progress("compile", 1, 1, label)
        self.stages["compile"] = self.stages.get("compile", 0.0) + time.perf_counter() - t
        return pipeline

    def copy(self, src: Any, dst: Any, nbytes: int, src_offset: int = 0, dst_offset: int = 0) -> None:
        self._commands.append(Copy(src, dst, nbytes, src_offset, dst_offset))

    def dispatch(self, pipeline: Any, bindings: list[tuple[Any, int]], groups: tuple[int, int, int]
                 ) -> Dispatch:
        command = Dispatch(pipeline, bindings, groups)
        self._commands.append(command)
        return command

    async def run_async(self, read: tuple[Any, ...] | None = None, submit: bool = False) -> None:
        """Submit the queued commands as one command buffer; with `read=(buffer, out[, offset])`, also
        copy `out.nbytes` bytes of `buffer` (from byte `offset`) to a staging buffer and read them into `out`.

        Without a read nothing is awaited, and nothing is submitted yet (unless `submit`): the
        commands join the device's queue (see device.py), so ops whose results stay on the GPU
        cost no submit each, and their check is settled at the next read. With a read, its commands
        join the queue's last slice when work is held back there (else they are submitted apart),
        the queue is submitted, then every unsettled check and the mapping are awaited together, in
        one await, and the read raises if its own work, or work it depends on, was rejected. (Queued
        work is submitted slice by slice: Device.drain_async, its waits traced apart.)
        Stages: "dispatch" is encoding and submitting; "readback" is waiting for the GPU (its
        compute time included) and copying the result into NumPy memory."""
        if self.deferred:
            return
        device = self.device
        staging = None
        if read is not None:
            staging = self.buffer(read[1].nbytes, MAP_READ | COPY_DST)
            self.copy(read[0], staging, read[1].nbytes, src_offset=read[2] if len(read) > 2 else 0)
        t = time.perf_counter()
        commands, self._commands = self._commands, []
        inherited, self._inherited = self._inherited, []
        if read is None:
            produced, self.produced = self.produced, []
            claimed, self.claimed = self.claimed, []
            check = device.enqueue(self.op_name, commands, self._pins, submit, produced, claimed)
            self.checks = pending_of([*self.checks, *inherited, check])
            self.stages["dispatch"] += time.perf_counter() - t
            if len(device.checks) > BACKLOG:  # bound the backlog of a long chain with no reads
                await device.settle_async()
            return
        if device.recorder is not None:  # (a function being captured may not read: capture.py)
            device.recorder.reading(self.op_name)
        interrupts.check()
        raise_for(self.op_name, [c for c in inherited if c.cancelled])  # (nothing to wait for)
        if device.slices:  # queued work is held back: this read's commands (the copy to `staging`
            # last) join it, and go with its last submit: one submit and one error check per read
            claimed, self.claimed = self.claimed, []
            check = device.enqueue(self.op_name, commands, self._pins, False, (), claimed)
            self.checks = pending_of([*self.checks, check])
            commands = []
        await device.drain_async()  # (queued work, slice by slice: a wait for it is traced apart)
        t = time.perf_counter()
        device.flush()
        earlier = device.take_checks()
        others = [c for c in inherited if not c.settled and c not in earlier]  # taken by a read in flight
        try:
            earlier_errors, error, encode_ms = await self.transport.submit_and_read_async(
                commands, staging, read[1], [c.pending for c in earlier + others])
        except BaseException:  # (KeyboardInterrupt too): the next read settles what this one took
            device.checks[:0] = [c for c in earlier if not c.settled]
            self._held.remove(staging)
            self.pool.discard(staging)  # it may still be mapping: never reuse it
            raise
        device.unpin(self._pins)
        claimed, self.claimed = self.claimed, []
        for buf in claimed:  # (its work is submitted: they may go)
            device.release(buf)
        device.settled(earlier + others, earlier_errors)
        interrupts.check()
        self.stages["dispatch"] += encode_ms / 1e3
        self.stages["readback"] += time.perf_counter() - t - encode_ms / 1e3
        raise_for(self.op_name, [*inherited, *self.checks])
        if error:
            raise gpu_error(f"{self.op_name}: the GPU rejected the work", error)


def raise_for(reader: str, checks: list[Check] | tuple[Check, ...]) -> None:
    """Raise if work that a result depends on failed (an allocation's failure first: it names
    memory; work dropped by an interrupt last: CancelledWorkError), naming what failed."""
    failed = [c for c in checks if c.error]
    if failed:
        check = next((c for c in failed if c.op.startswith("allocating")),
                     next((c for c in failed if not c.cancelled), failed[0]))
        if check.cancelled:
            raise CancelledWorkError(f"{reader}: this result was computed by work {check.error} before the "
                                     f"GPU ran it ({check.op}); compute it again")
        what = check.op if check.op.startswith("allocating") else f"{check.op}, which this result depends on,"
        assert check.error is not None  # (every check in `failed` has an error)
        raise gpu_error(f"{reader}: {what} failed", check.error)
