"""One acquired WebGPU device and everything pycore keeps on it.

A `Device` owns its transport (transport.py), its buffer pool, its compiled pipelines, its cache of
uniform blocks, and the error checks of work submitted but not yet settled; it also holds the
adapter facts the programs ask about (computed once). When the device is lost, the runtime drops
the whole object: nothing of a lost device is used again.

Work whose results stay on the GPU is not submitted call by call: it is queued (`enqueue`) and
submitted as one command buffer (`flush`) before the next read, when QUEUED_DISPATCHES commands wait,
when a dropped buffer of CHECKED_ALLOCATION bytes or more is to be reused, or when the event loop
next runs, whichever comes first, as TF.js's WebGPU backend does. Until then nothing that queued
work uses goes back to the pool or is destroyed (`release`, pins); a buffer dropped meanwhile may
only become the output of a later queued command (`take_dropped`), which runs after the work that
reads it; and uploads only ever write to buffers no queued work reads, so deferring never changes
a result.

Errors the GPU reports are asynchronous: a submit returns a check, which is settled (in one await
with other checks) at the next read. A `Check` remembers its error, and every result buffer made
by that submit carries it, so a read raises for the work it depends on and for no other.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from .pool import BufferPool, size_class
from .shaders import wgsl_source
from .transport import COPY_DST, UNIFORM, Command, ShaderCompileError, Transport, is_lost_text

UNIFORM_CACHE = 512  # distinct uniform blocks kept on the GPU (32 bytes each) when none is in use
GENERATED_PIPELINES = 128  # generated (fused) kernels kept compiled, least recently used dropped
CHECKED_ALLOCATION = 16 << 20  # buffers this large are made inside an out-of-memory error scope
QUEUED_DISPATCHES = 64  # queued commands are submitted at the latest when this many wait


class GpuError(RuntimeError):
    """The GPU rejected work pycore submitted (a validation error: a bug, or a limit)."""


class GpuOutOfMemoryError(GpuError, MemoryError):
    """The GPU could not allocate the memory an op needed."""


class DeviceLostError(GpuError):
    """The WebGPU device was lost (driver reset, GPU removed, destroyed) while it was in use."""


class Check:
    """The error check of one submit: `pending` (the transport's check; None while the work is
    still queued) until settled, then `error` (None: the GPU accepted the work)."""

    __slots__ = ("error", "op", "pending", "settled")
    error: str | None

    def __init__(self, op: str, pending: Any) -> None:
        self.op, self.pending, self.error, self.settled = op, pending, None, False


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
        # work queued for one submit (see the module doc)
        self.queued: list[Command] = []
        self.queued_ops: list[str] = []
        self.queued_check: Check | None = None
        self.queued_pins: list[bytes] = []
        self.after_flush: list[Any] = []  # buffers to pool once the queued work is submitted
        self._flush_scheduled = False
        self.compiling: dict[tuple[str, str], asyncio.Future] = {}  # compiles in flight, shared
        self.precompiled = {"done": 0, "total": 0}  # the background compile's progress
        # the plans of fixed-kernel calls on GpuArrays, replayed (engine.executor.remember); looked up
        # with dispatch.plan_key()'s answer, whose None (parameters that cannot be a key) finds nothing
        self.plans: dict[tuple | None, Any] = {}
        # adapter facts, once
        self.limits = transport.limits
        self.adapter_info = transport.adapter_info
        self.cpu_adapter = _is_cpu_adapter(self.adapter_info)
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
        """Give `buf` back to the pool, once no queued work can still read it. A large buffer
        (CHECKED_ALLOCATION or more) does not wait: the queue is submitted now, so that the next op
        of a chain of large ones reuses it instead of allocating another (the GPU runs submits in
        order, so later work that writes it runs after the work that reads it)."""
        if not self.queued:
            self.pool.release(buf)
        elif self.pool.class_of(buf)[0] < CHECKED_ALLOCATION:
            self.after_flush.append(buf)
        else:
            try:
                self.flush()
            finally:
                self.pool.release(buf)

    def take_dropped(self, nbytes: int, usage: int) -> Any:
        """A buffer of this size and usage dropped since the last submit (see release), for a
        queued command to write, or None. Reusing it before the submit is safe for a dispatch's or
        a copy's output and nothing else: the queued work that still reads it runs first (a command
        buffer runs in order), where an upload (writeBuffer) would land before that work."""
        if self.after_flush:
            wanted = (size_class(max(nbytes, 4)), usage)
            for i in range(len(self.after_flush) - 1, -1, -1):
                if self.pool.class_of(self.after_flush[i]) == wanted:
                    return self.after_flush.pop(i)
        return None

    # -- work queued for one submit
    def enqueue(self, op: str, commands: list[Command], pins: list[bytes], submit: bool = False) -> Check:
        """Queue `commands` (whose uniform blocks are `pins`, now the queue's) for the next submit;
        returns the check that submit will report to. submit: submit the queue now (a
        CommandBatch's execute), not when the event loop next runs."""
        if self.queued_check is None:
            self.queued_check = Check(op, None)
            if not submit:
                self._schedule_flush()
        self.queued.extend(commands)
        self.queued_ops.append(op)
        self.queued_pins.extend(pins)
        pins.clear()
        check = self.queued_check
        if submit or len(self.queued) >= QUEUED_DISPATCHES:
            self.flush()
        return check

    def flush(self) -> None:
        """Submit the queued work as one command buffer (nothing is awaited)."""
        if not self.queued:
            return
        commands, self.queued = self.queued, []
        check, self.queued_check = self.queued_check, None
        assert check is not None  # (queued work always has its check: see enqueue)
        ops, self.queued_ops = self.queued_ops, []
        check.op = ", ".join(dict.fromkeys(ops))  # (the ops, in order, each once)
        try:
            check.pending = self.transport.submit(commands)
            self.checks.append(check)
        except BaseException as exc:  # (an interrupt too): what depends on this work raises when read
            check.error, check.settled = f"never submitted ({type(exc).__name__}: {exc})", True
            raise
        finally:
            self.unpin(self.queued_pins)
            released, self.after_flush = self.after_flush, []
            for buf in released:
                self.pool.release(buf)

    def _schedule_flush(self) -> None:
        if self._flush_scheduled:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop: the next read or a full queue submits
        self._flush_scheduled = True

        def flush() -> None:
            self._flush_scheduled = False
            if self.lost is None:
                self.flush()

        loop.call_soon(flush)

    # -- uniform blocks
    def uniform(self, words: np.ndarray, pins: list[bytes]) -> Any:
        """The uniform buffer holding `words`, made and written once, then shared by every call
        that passes the same values. The block is pinned (its key appended to `pins`) until the
        caller's work is submitted: an unsubmitted block is never destroyed to make room."""
        key = words.tobytes()
        self.pins[key] += 1
        pins.append(key)
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
        """Submit what is queued, then wait for every unsettled check (one await); errors stay
        with their checks."""
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
