"""CommandBatch: queue uploads and ops, run them all as one command buffer with one submit.

    batch = pycore.CommandBatch()
    x = batch.upload(data)                 # handles, not data: nothing runs yet
    y = batch.vec_add(batch.scale(batch.relu(x), 0.5), x)
    d = batch.dot(y, y)
    await batch.execute_async()            # one command buffer, one queue.submit()
    out = await batch.read_async(y)        # NumPy array; read_async(d) gives a float
    batch.release()                        # or: async with pycore.CommandBatch() as batch: ...

Batch methods are named like the ops without `_async` and take the same parameters; array inputs
may be handles of this batch, GpuArrays, or array-likes (uploaded as part of the batch). Shapes and
arguments are checked when an op is queued. Without WebGPU the batch runs on NumPy, step by step.
A GpuArray is read where it lies (a view or a non-float32 one is first copied to a float32,
contiguous buffer on the GPU), so keep it until the batch's results are read: its upload handle
raises RuntimeError once it is released. A handle belongs to its batch (a serial number, never
reused): another batch refuses it with ValueError.

Element-wise steps whose handles the caller no longer holds are fused into the step that consumes
them (pycore/kernels/fusion.py): above, relu and scale run inside vec_add's kernel, in one pass over the
data. A handle still held is computed and kept, so every handle you can name can be read.
"""

from __future__ import annotations

import itertools
import math
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from pycore.array.convert import as_float32
from pycore.calls.api import bind, signature_of
from pycore.calls.gpuarray import GpuArray
from pycore.calls.programs import PROGRAMS
from pycore.engine import interrupts
from pycore.engine.device import Check, Device
from pycore.engine.executor import execute_async, facts
from pycore.engine.runtime import RUNTIME
from pycore.engine.session import GpuSession, GpuView, raise_for
from pycore.kernels.fusion import fused_kernels
from pycore.tables.ops import OPS, Op

FUSED = object()  # the value of a step computed inside a fused kernel (never stored)
_SERIALS = itertools.count(1)  # each batch's serial number: unlike id(), never reused in the process


@dataclass(frozen=True)
class Handle:
    """A value a batch will compute: its shape is known when it is queued. It belongs to one batch
    (`batch_serial`: that batch's serial number, never given to another batch)."""

    batch_serial: int
    index: int
    shape: tuple[int, ...]
    op: str

    def __repr__(self) -> str:
        return f"Handle(#{self.index} {self.op}, shape={self.shape})"


class CommandBatch:
    def __init__(self) -> None:
        self._serial = next(_SERIALS)  # its handles carry it (an id() is reused once collected)
        self._steps: list[tuple[Op | None, list[Any], dict[str, Any]]] = []
        self._shapes: list[tuple[int, ...]] = []
        self._handles: list[weakref.ref[Handle]] = []  # whether the caller can still read a step
        self.fused: list[str] = []  # after execute: the fused kernels that ran (FusedKernel.name)
        self._values: list[Any] = []  # after execute: buffers (GPU) or arrays / floats (NumPy)
        self._device: Device | None = None  # the device it ran on
        self._buffers: list[Any] = []  # GPU buffers the batch owns until release()
        self._checks: tuple[Check, ...] = ()  # what its GPU results depend on
        self._copies: dict[int, GpuArray] = {}  # upload step -> a float32, contiguous copy it reads (GPU)
        self._on_gpu = False
        self._executing = False
        self.executed = False
        self.released = False
        # A batch dropped without release() gives its buffers back when it is collected.
        self._finalizer = weakref.finalize(self, _give_back, self._buffers, [None])

    if TYPE_CHECKING:  # the op methods (relu, vec_add, ...), set from the op table below
        def __getattr__(self, name: str) -> Callable[..., Handle]: ...

    # -- queueing
    def upload(self, x: Any) -> Handle:
        """Queue an upload of an array-like (float32) or a GpuArray (used where it lies)."""
        self._check_queueing("upload")
        value = x if isinstance(x, GpuArray) else as_float32(x, "x")
        return self._add(None, [value], {}, tuple(value.shape))

    def _queue(self, op: Op, signature: Any, args: tuple, kwargs: dict) -> Handle:
        self._check_queueing(op.name)
        inputs, params, _ = bind(op, signature, f"batch.{op.name}", args, kwargs)
        for x in inputs:
            if isinstance(x, Handle):
                self._check_handle(x, f"batch.{op.name}")
        values = [x if isinstance(x, (Handle, GpuArray)) else as_float32(x, name)
                  for x, name in zip(inputs, op.inputs, strict=True)]
        program = PROGRAMS[op.kind]
        shapes = [self._shapes[x.index] if isinstance(x, Handle) else tuple(x.shape) for x in values]
        program.check(op, shapes, params)
        problem = op.check(params) if op.check else None
        if problem:
            raise ValueError(f"{op.name}: {problem}")
        refs = [(x if isinstance(x, Handle) else self.upload(x)).index for x in values]  # once valid
        return self._add(op, refs, params, tuple(program.out_shape(tuple(shapes), params)))

    def _add(self, op: Op | None, inputs: list[Any], params: dict[str, Any],
             shape: tuple[int, ...]) -> Handle:
        self._steps.append((op, inputs, params))
        self._shapes.append(shape)
        handle = Handle(self._serial, len(self._steps) - 1, shape, op.name if op else "upload")
        self._handles.append(weakref.ref(handle))
        return handle

    def _check_handle(self, handle: Any, what: str) -> Handle:
        """`handle` if it is a Handle of this batch; else TypeError (not a Handle) or ValueError
        (another batch's, a collected one's too)."""
        if not isinstance(handle, Handle):
            raise TypeError(f"{what}: expected a Handle of this CommandBatch (what batch.upload() or a "
                            f"batch op returned), got {type(handle).__name__}")
        if handle.batch_serial != self._serial:
            raise ValueError(f"{what}: {handle!r} belongs to another CommandBatch")
        return handle

    def __len__(self) -> int:
        return len(self._steps)

    # -- running
    async def execute_async(self) -> None:
        """Run every queued step: on WebGPU as one command buffer and one submit. If the device is
        lost meanwhile, the whole batch runs on NumPy instead. A batch runs once: a second call
        raises RuntimeError, also while the first is still under way."""
        self._check_open()
        if self._executing:
            raise RuntimeError("this CommandBatch is executing already (another execute_async() is under "
                               "way): await that one, then read the results")
        if self.executed:
            raise RuntimeError("this CommandBatch was executed already; make a new one")
        self._executing = True
        try:
            await self._execute_async()
        finally:
            self._executing = False

    async def _execute_async(self) -> None:
        start = time.perf_counter()
        await RUNTIME.init_async()
        device = RUNTIME.device
        why = ""
        if device is not None:
            try:
                await self._execute_gpu_async(device)
            except BaseException as exc:  # (an interrupt too: the batch can run again, from scratch)
                self._drop_gpu_values()
                if not isinstance(exc, Exception) or not await RUNTIME.lost_during_async(device, exc):
                    raise
                why = f"; device lost during the batch ({device.lost}): ran on NumPy"
        if not self._on_gpu:
            self._execute_numpy()
        self.executed = True
        fused = f"; {len(self.fused)} fused kernels: {', '.join(self.fused)}" if self.fused else ""
        ms = round((time.perf_counter() - start) * 1e3, 4)
        RUNTIME.record({"op": "batch", "shapes": list(self._shapes),
                        "backend": "webgpu" if self._on_gpu else "numpy",
                        "why": f"CommandBatch of {len(self._steps)} steps{fused}{why}",
                        "ms": {"total": ms}, "total_ms": ms})

    async def _execute_gpu_async(self, device: Device) -> None:
        await self._copy_strided_inputs_async()
        gpu = GpuSession(device, "batch", deferred=True)
        self._device, self._on_gpu = device, True
        self._finalizer.detach()
        self._finalizer = weakref.finalize(self, _give_back, self._buffers, [device])
        try:
            await self._encode_async(gpu)
            gpu.deferred = False
            await gpu.run_async(submit=True)  # the one submit (with any work queued before it, in order)
        except BaseException:
            gpu.close(failed=True)
            raise
        self._buffers.extend(gpu.release_all())  # inputs and results: read until release()
        self._checks = gpu.result_checks()
        gpu.close()

    async def _copy_strided_inputs_async(self) -> None:
        """The batch's programs bind float32, C-contiguous buffers from their start: a GpuArray input
        that is not one (a view, another dtype) is copied so on the GPU first (queued ahead of the
        batch's submit), and the copy is kept until the batch is released."""
        for s, (op, inputs, _) in enumerate(self._steps):
            value = inputs[0] if op is None else None
            if (isinstance(value, GpuArray) and value.device == "webgpu" and not value._plain
                    and s not in self._copies):
                self._copies[s] = await value.astype_async(np.float32)

    async def _encode_async(self, gpu: GpuSession) -> None:
        elements = [math.prod(s) for s in self._shapes]
        kernels, inside = fused_kernels(
            self._steps, elements, lambda i: self._handles[i]() is not None,
            gpu.limits.get("maxStorageBuffersPerShaderStage", 8) - 1, gpu.max_binding // 16 * 4)
        for s, (op, inputs, params) in enumerate(self._steps):
            interrupts.check()  # (a safe point: between steps)
            if op is None:
                value = self._copies.get(s, inputs[0])
                view = value.view() if isinstance(value, GpuArray) else value
                self._values.append(gpu.upload(view) if view.size else None)
                continue
            if s in inside:
                self._values.append(FUSED)
                continue
            if not PROGRAMS[op.kind].needs_gpu([self._shapes[i] for i in inputs]):
                self._values.append(np.asarray(PROGRAMS[op.kind].numpy(
                    op, [np.zeros(self._shapes[i], np.float32) for i in inputs], params)))
                continue
            kernel = kernels.get(s)
            if kernel is not None:
                binds = [gpu.upload(self._input(i))[:2] for i in kernel.inputs]  # (each from its start)
                dst = (await execute_async(gpu, kernel.plan(elements[s], facts(gpu.device)), binds))[0]
                self.fused.append(kernel.name)
            else:
                views = [self._input(i) for i in inputs]
                result = await PROGRAMS[op.kind].gpu_async(gpu, op, views, params)
                dst = (result.buffer, 0)
            self._values.append(dst)

    def _input(self, i: int) -> GpuView | np.ndarray:
        """Step i's value as a program input: where it lies on the GPU, or the host array of a
        step that ran on NumPy (an empty input's reduction) or an empty upload."""
        value = self._values[i]
        if value is None or isinstance(value, np.ndarray):
            return np.zeros(self._shapes[i], np.float32) if value is None else \
                np.asarray(value, np.float32).reshape(self._shapes[i])
        return GpuView(value[0], self._shapes[i])

    def _execute_numpy(self) -> None:
        for op, inputs, params in self._steps:
            if op is None:
                value = inputs[0]
                if isinstance(value, GpuArray):
                    value = value.view()  # a host array here (else: the device is lost, and it says so)
                    if isinstance(value, GpuView):
                        raise RuntimeError("CommandBatch: a GpuArray input lives on the GPU, which "
                                           "the batch cannot use now; read it with to_numpy_async()")
                self._values.append(value)
                continue
            with np.errstate(all="ignore"):
                args = [self._values[i] for i in inputs]
                self._values.append(PROGRAMS[op.kind].numpy(op, args, params))

    def _drop_gpu_values(self) -> None:
        """Forget a GPU run that did not finish (its buffers went back with its session), or one
        whose results are gone."""
        self._values.clear()
        self.fused.clear()
        self._on_gpu, self._device = False, None
        self._release_copies()

    def _release_copies(self) -> None:
        for copy in self._copies.values():
            copy.release()
        self._copies.clear()

    async def read_async(self, handle: Handle) -> np.ndarray | float:
        """The value of a handle after execute_async: a float32 array, or a float for reductions.
        Raises if the GPU rejected the batch's work. If the device was lost after the batch ran,
        the batch is computed again on NumPy (from its host inputs) and read from there. The handle
        of an uploaded GpuArray reads that array where it lies, so reading it after the array was
        released raises RuntimeError (as using the array would); other handles have their own
        buffers. A handle of another batch raises ValueError, anything else TypeError."""
        self._check_open()
        self._check_handle(handle, "batch.read_async")
        if not self.executed:
            if self._executing:
                raise RuntimeError("batch.read_async: the batch is still executing; await its "
                                   "execute_async() first")
            raise RuntimeError("read_async before execute_async: the batch has not run yet")
        op, inputs, _ = self._steps[handle.index]
        if op is None and isinstance(inputs[0], GpuArray):  # read where that array lies: it must live
            try:
                inputs[0].check_usable()
            except RuntimeError as exc:
                raise RuntimeError(f"batch.read_async: {handle!r} is a GpuArray the batch read where it "
                                   f"lies ({exc}); keep the GpuArrays a batch uploads until you have "
                                   "read it") from None
        if self._on_gpu and self._device is not RUNTIME.device:
            self._rerun_on_numpy()
        value = self._values[handle.index]
        if value is FUSED:  # (only a copy of a handle dropped before execute_async could ask)
            raise RuntimeError(f"{handle!r} was fused into a later step and never stored: keep its "
                               "handle before execute_async to read it")
        scalar = handle.op in OPS and OPS[handle.op].kind == "reduce"
        if not self._on_gpu or isinstance(value, np.ndarray) or value is None:
            if value is None:  # an empty upload
                return np.zeros(handle.shape, np.float32)
            return float(value) if scalar else np.array(value, dtype=np.float32)
        out = np.empty(1 if scalar else handle.shape, np.float32)
        device = self._device
        assert device is not None  # (set while the batch's results are on the GPU)
        try:
            async with GpuSession(device, "batch.read") as reader:
                reader.depend_on(self._checks)
                if out.size:
                    await reader.run_async(read=(value[0], out))
                else:
                    await device.settle_async()
                    raise_for("batch.read", self._checks)
        except Exception as exc:
            if not await RUNTIME.lost_during_async(device, exc):
                raise
            self._rerun_on_numpy()
            return await self.read_async(handle)
        return float(out[0]) if scalar else out

    def _rerun_on_numpy(self) -> None:
        """The device the batch ran on is gone: compute every step again on NumPy."""
        self._give_back_buffers()
        self._drop_gpu_values()
        self._execute_numpy()

    def _give_back_buffers(self) -> None:
        buffers, device = list(self._buffers), self._device
        self._buffers.clear()
        if device is not None and device is RUNTIME.device:  # (a lost device took them all)
            for buf in buffers:
                device.release(buf)

    # -- life
    def _check_open(self) -> None:
        if self.released:
            raise RuntimeError("this CommandBatch was released")

    def _check_queueing(self, what: str) -> None:
        self._check_open()
        if self.executed:
            raise RuntimeError(f"batch.{what}: this CommandBatch was executed already; queue steps "
                               "before execute_async(), or make a new CommandBatch")

    def release(self) -> None:
        """Give every buffer of the batch back to the pool (idempotent)."""
        if self.released:
            return
        self.released = True
        self._finalizer.detach()
        self._give_back_buffers()
        self._values.clear()
        self._release_copies()

    async def __aenter__(self) -> CommandBatch:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.release()

    def __enter__(self) -> CommandBatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _give_back(buffers: list[Any], device: list[Device | None]) -> None:
    """A collected batch's buffers go back to the pool of the device they came from, if it is
    still the one in use."""
    if device[0] is not None and device[0] is RUNTIME.device:
        for buf in buffers:
            device[0].release(buf)
    buffers.clear()


def _batch_method(op: Op) -> Any:
    signature = signature_of(op, with_backend=False)  # built once, not per queued call

    def method(self: CommandBatch, *args: Any, **kwargs: Any) -> Handle:
        return self._queue(op, signature, args, kwargs)

    method.__name__ = method.__qualname__ = op.name
    method.__doc__ = f"Queue {op.public_name} ({op.summary}) and return a Handle to its result."
    method.__signature__ = signature  # type: ignore[attr-defined]
    return method


for _op in OPS.values():
    setattr(CommandBatch, _op.name, _batch_method(_op))
