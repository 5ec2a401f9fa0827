"""Where the Array API namespace's functions run and put their results, and running their placing
plans (pycore/kernels/place.py: one dispatch per region of the output, each copying an input view
into it, filling it with a value or a ramp, or writing a diagonal). A function of GpuArrays in GPU
memory runs its kernels (on_gpu); otherwise it computes on the host values (host_values) and gives
a GpuArray when any input was one (result_async). moved_async and created_async do this for the
functions whose results are made of regions; placed_async runs the plan.

>>> import asyncio, numpy as np
>>> from pycore.calls.placing import moved_async
>>> x = np.array([1, 2, 3], np.int32)
>>> asyncio.run(moved_async("flip", [x], (3,), x.dtype, lambda layouts: [], lambda hs: hs[0][::-1]))
array([3, 2, 1], dtype=int32)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from pycore.array.dtypes import FLOAT32, wide
from pycore.array.layout import Layout
from pycore.calls.gpuarray import GpuArray, narrowed_async, storage_of, to_gpu_async, widened_async
from pycore.engine.executor import facts, run_plans_async
from pycore.engine.runtime import RUNTIME
from pycore.kernels.place import Part, complex_planes, plan_place
from pycore.kernels.plan import packed


def on_gpu(xs: Sequence[Any]) -> bool:
    """Whether a function of these inputs runs its kernels: one of them is a GpuArray in GPU memory."""
    return RUNTIME.device is not None and any(isinstance(x, GpuArray) and x._buffer is not None for x in xs)


def host_values(x: Any) -> np.ndarray:
    """A NumPy array's or a host-held GpuArray's values (a GpuArray held on the host; an empty one's,
    which has none to read)."""
    if isinstance(x, GpuArray):
        if x._host is not None:
            return x._host
        if x.size == 0:
            return np.empty(x.shape, x.dtype)
        raise RuntimeError(f"a GpuArray of shape {x.shape} in GPU memory has no host values here "
                           "(a bug in pycore: its caller should have run on the GPU)")
    return np.asarray(x)


async def placed_async(name: str, parts: Callable[[list[Layout]], list[Part]], xs: Sequence[Any],
                       shape: tuple[int, ...], dtype: np.dtype) -> GpuArray:
    """Run the parts `parts(layouts of xs)` (on GpuArrays, host arrays uploaded) into a new GpuArray.
    A packed dtype's regions are placed in its 32-bit form (a region may start inside a word),
    then packed by one conversion; complex64 regions are placed as the float32 planes of their
    real and imaginary parts (`complex_planes`), packed inputs widened first."""
    if packed(dtype) or (dtype.kind == "c" and any(packed(x.dtype) for x in xs if hasattr(x, "dtype"))):
        xs = [await widened_async(x) for x in xs]

        def widened(layouts: list[Layout]) -> list[Part]:
            return [replace(p, dtype=wide(p.dtype)) if p.dtype is not None else p for p in parts(layouts)]

        return await narrowed_async(await placed_async(name, widened, xs, shape, wide(dtype)), dtype)
    planes = dtype.kind == "c"
    start = time.perf_counter()
    await RUNTIME.init_async()
    device = RUNTIME.device
    assert device is not None
    inputs = [np.asarray(x._host, order="C") if isinstance(x, GpuArray) and x._buffer is None else x
              for x in xs]
    if math.prod(shape) == 0:
        return await to_gpu_async(np.empty(shape, dtype))
    layouts = [x.layout if isinstance(x, GpuArray) else Layout.contiguous(np.shape(x)) for x in inputs]
    f = facts(device)
    if planes:
        plan = plan_place(complex_planes(parts(layouts)), (*shape, 2), FLOAT32, f)
    else:
        plan = plan_place(parts(layouts), shape, dtype, f)
    bound = [(*x.binding(), x.checks) if isinstance(x, GpuArray) else storage_of(np.asarray(x))
             for x in inputs]
    buf, checks, stages = await run_plans_async(device, name, [(plan, bound)], keep=True)
    ms = {k: v * 1e3 for k, v in stages.items()}
    ms["python"] = (time.perf_counter() - start) * 1e3 - sum(ms.values())
    RUNTIME.record({"op": name, "shapes": [tuple(np.shape(x)) if not isinstance(x, GpuArray) else x.shape
                                           for x in inputs], "backend": "webgpu",
                    "why": "a GpuArray input" if xs else "device='gpu'", "ms": ms,
                    "total_ms": sum(ms.values())})
    return GpuArray(shape, buffer=buf, checks=checks, device=device, dtype=dtype)


async def result_async(value: np.ndarray, gpu: bool) -> Any:
    """A NumPy result, uploaded (or held on the host where there is no WebGPU) when `gpu`."""
    value = np.asarray(value, order="C")
    return await to_gpu_async(value) if gpu else value


async def moved_async(name: str, xs: Sequence[Any], shape: tuple[int, ...], dtype: np.dtype,
                      parts: Callable[[list[Layout]], list[Part]],
                      numpy: Callable[[list[np.ndarray]], np.ndarray]) -> Any:
    """A function of arrays `xs` whose result (`shape`, `dtype`) is made of regions: on the GPU
    where an input is a GpuArray in GPU memory, else NumPy's (`numpy` of the host arrays)."""
    if on_gpu(xs):
        return await placed_async(name, parts, xs, shape, dtype)
    value = np.asarray(numpy([host_values(x) for x in xs])).astype(dtype, copy=False)
    return await result_async(value, any(isinstance(x, GpuArray) for x in xs))


async def created_async(name: str, where: str, shape: tuple[int, ...], dtype: np.dtype,
                        parts: Callable[[], list[Part]], numpy: Callable[[], np.ndarray]) -> Any:
    """A creation function's result: filled on the GPU for device "gpu" (where there is one)."""
    if where == "gpu":
        await RUNTIME.init_async()
        if RUNTIME.device is not None:
            return await placed_async(name, lambda _: parts(), [], shape, dtype)
        return await to_gpu_async(np.asarray(numpy()).astype(dtype, copy=False))
    return np.asarray(np.asarray(numpy()).astype(dtype, copy=False), order="C")


def whole(shape: tuple[int, ...]) -> Layout:
    """The layout of a whole new (contiguous) output of `shape`, to cut regions from."""
    return Layout.contiguous(shape)

