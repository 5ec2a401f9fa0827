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

Element-wise steps whose handles the caller no longer holds are fused into the step that consumes
them (pycore/fusion.py): above, relu and scale run inside vec_add's kernel, in one pass over the
data. A handle still held is computed and kept, so every handle you can name can be read.
"""

from __future__ import annotations

import time
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from .api import bind, signature_of
from .arrays import as_float32
from .fusion import FusedKernel, plan
from .gpu import GpuSession
from .gpuarray import GpuArray, GpuView
from .ops import OPS, Op
from .programs import PROGRAMS
from .runtime import RUNTIME

FUSED = object()  # the value of a step computed inside a fused kernel (never stored)


@dataclass(frozen=True)
class Handle:
    """A value a batch will compute: its shape is known when it is queued."""

    batch_id: int
    index: int
    shape: tuple[int, ...]
    op: str

    def __repr__(self) -> str:
        return f"Handle(#{self.index} {self.op}, shape={self.shape})"


class CommandBatch:
    def __init__(self) -> None:
        self._steps: list[tuple[Op | None, list[Any], dict[str, Any]]] = []
        self._shapes: list[tuple[int, ...]] = []
        self._handles: list[weakref.ref[Handle]] = []  # whether the caller can still read a step
        self.fused: list[str] = []  # after execute: the fused kernels that ran (FusedKernel.name)
        self._values: list[Any] = []  # after execute: buffers (GPU) or arrays / floats (NumPy)
        self._session: GpuSession | None = None
        self._kept: list[Any] = []  # result buffers the batch owns until release()
        self._on_gpu = False
        self.executed = False
        self.released = False

    # -- queueing
    def upload(self, x: Any) -> Handle:
        """Queue an upload of an array-like (float32) or a GpuArray (used where it lies)."""
        self._check_open()
        value = x if isinstance(x, GpuArray) else as_float32(x, "x")
        return self._add(None, [value], {}, tuple(value.shape))

    def _queue(self, op: Op, signature: Any, args: tuple, kwargs: dict) -> Handle:
        self._check_open()
        inputs, params, _ = bind(op, signature, f"batch.{op.name}", args, kwargs)
        for x in inputs:
            if isinstance(x, Handle) and x.batch_id != id(self):
                raise ValueError(f"batch.{op.name}: {x!r} belongs to another CommandBatch")
        values = [x if isinstance(x, (Handle, GpuArray)) else as_float32(x, name)
                  for x, name in zip(inputs, op.inputs, strict=True)]
        program = PROGRAMS[op.kind]
        shapes = [self._shapes[x.index] if isinstance(x, Handle) else tuple(x.shape) for x in values]
        program.check(op, [GpuView(None, s) for s in shapes], params)
        problem = op.check(params) if op.check else None
        if problem:
            raise ValueError(f"{op.name}: {problem}")
        refs = [(x if isinstance(x, Handle) else self.upload(x)).index for x in values]  # once valid
        return self._add(op, refs, params, tuple(program.out_shape(tuple(shapes), params)))

    def _add(self, op: Op | None, inputs: list[Any], params: dict[str, Any],
             shape: tuple[int, ...]) -> Handle:
        self._steps.append((op, inputs, params))
        self._shapes.append(shape)
        handle = Handle(id(self), len(self._steps) - 1, shape, op.name if op else "upload")
        self._handles.append(weakref.ref(handle))
        return handle

    def __len__(self) -> int:
        return len(self._steps)

    # -- running
    async def execute_async(self) -> None:
        """Run every queued step: on WebGPU as one command buffer and one submit."""
        self._check_open()
        if self.executed:
            raise RuntimeError("this CommandBatch was executed already; make a new one")
        start = time.perf_counter()
        await RUNTIME.init_async()
        self._on_gpu = RUNTIME.backend == "webgpu"
        if self._on_gpu:
            await self._execute_gpu_async()
        else:
            self._execute_numpy()
        self.executed = True
        fused = f"; {len(self.fused)} fused kernels: {', '.join(self.fused)}" if self.fused else ""
        RUNTIME.record({"op": "batch", "shapes": list(self._shapes),
                              "backend": "webgpu" if self._on_gpu else "numpy",
                              "why": f"CommandBatch of {len(self._steps)} steps{fused}",
                              "ms": {"total": round((time.perf_counter() - start) * 1e3, 4)},
                              "total_ms": round((time.perf_counter() - start) * 1e3, 4)})

    async def _execute_gpu_async(self) -> None:
        gpu = self._session = GpuSession("batch", deferred=True)
        elements = [int(np.prod(s, dtype=np.int64)) for s in self._shapes]
        trees = plan(self._steps, elements, lambda i: self._handles[i]() is not None,
                     gpu.limits.get("maxStorageBuffersPerShaderStage", 8) - 1, gpu.max_binding // 16 * 4)
        inside = {i for tree in trees.values() for i in tree.folded()}
        for s, (op, inputs, params) in enumerate(self._steps):
            if op is None:
                value = inputs[0]
                view = value.view() if isinstance(value, GpuArray) else value
                self._values.append(gpu.upload(view) if view.size else None)
                continue
            if s in inside:
                self._values.append(FUSED)
                continue
            if not PROGRAMS[op.kind].needs_gpu([GpuView(None, self._shapes[i]) for i in inputs]):
                self._values.append(np.asarray(PROGRAMS[op.kind].numpy(
                    op, [np.zeros(self._shapes[i], np.float32) for i in inputs], params)))
                continue
            if s in trees:
                kernel = FusedKernel(trees[s])
                binds = [gpu.upload(self._input(i)) for i in kernel.inputs]
                gpu.result = (await kernel.dispatch_async(gpu, binds, elements[s]))[0]
                gpu.keep(gpu.result)
                self.fused.append(kernel.name)
            else:
                views = [self._input(i) for i in inputs]
                gpu.result = None
                await PROGRAMS[op.kind].gpu_async(gpu, op, views, params)
            self._kept.append(gpu.result)
            self._values.append((gpu.result, 0))
        gpu.deferred = False
        await gpu.run_async()  # the one submit

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
                self._values.append(value._host if isinstance(value, GpuArray) else value)
                continue
            with np.errstate(all="ignore"):
                args = [self._values[i] for i in inputs]
                self._values.append(PROGRAMS[op.kind].numpy(op, args, params))

    async def read_async(self, handle: Handle) -> np.ndarray | float:
        """The value of a handle after execute_async: a float32 array, or a float for reductions."""
        self._check_open()
        if not self.executed:
            raise RuntimeError("read_async before execute_async: the batch has not run yet")
        if handle.batch_id != id(self):
            raise ValueError(f"{handle!r} belongs to another CommandBatch")
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
        if out.size:
            async with GpuSession("batch.read") as reader:
                await reader.run_async(read=(value[0], out))
        return float(out[0]) if scalar else out

    # -- life
    def _check_open(self) -> None:
        if self.released:
            raise RuntimeError("this CommandBatch was released")

    def release(self) -> None:
        """Give every buffer of the batch back to the pool (idempotent)."""
        if self.released:
            return
        self.released = True
        session, self._session = self._session, None
        if session is not None and RUNTIME.pool is session.pool:  # (a lost device took them all)
            for buf in session.release_all() + self._kept:
                session.pool.release(buf)
        self._kept.clear()
        self._values.clear()

    async def __aenter__(self) -> CommandBatch:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.release()

    def __enter__(self) -> CommandBatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


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
