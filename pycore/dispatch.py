"""Running an op from the table: argument checks, backend choice, and the GPU round trip.

GPU path of an element-wise op: take pooled buffers, upload, dispatch the kernel over a 2-D grid of
256-thread workgroups, copy to a staging buffer, map it and read straight into the NumPy result.
Inputs larger than the device's binding limit are processed in chunks that fit it.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .arrays import as_float32
from .ops import OPS, Op
from .runtime import RUNTIME

WORKGROUP_SIZE = 256  # matches @workgroup_size in shaders/elementwise.wgsl


def grid(n_groups: int, max_per_dim: int) -> tuple[int, int, int]:
    """Workgroups (x, y, 1) covering `n_groups`, each dimension within the device limit.

    >>> grid(10, 65535), grid(70000, 65535)
    ((10, 1, 1), (35000, 2, 1))
    """
    if n_groups <= max_per_dim:
        return (max(n_groups, 1), 1, 1)
    y = -(-n_groups // max_per_dim)
    x = -(-n_groups // y)
    if y > max_per_dim:
        raise ValueError(f"{n_groups} workgroups exceed the device's {max_per_dim}² grid")
    return (x, y, 1)


def chunk_elements(limits: dict[str, int]) -> int:
    """Most float32 elements one binding may hold on this device (a multiple of 256)."""
    nbytes = min(limits.get("maxStorageBufferBindingSize", 128 << 20), limits.get("maxBufferSize", 256 << 20))
    return (nbytes // 4) // WORKGROUP_SIZE * WORKGROUP_SIZE


def _record(op: Op, shape: tuple[int, ...], backend: str, stages: dict[str, float]) -> None:
    RUNTIME.trace.append({"op": op.name, "shape": shape, "backend": backend,
                          "ms": {k: round(v * 1e3, 4) for k, v in stages.items()},
                          "total_ms": round(sum(stages.values()) * 1e3, 4)})


async def run_elementwise_async(name: str, x: Any) -> np.ndarray:
    """Apply the unary element-wise op `name` to `x`; float32 result of x's shape."""
    op = OPS[name]
    start = time.perf_counter()
    arr = as_float32(x, "x")
    await RUNTIME.init_async()
    if RUNTIME.backend != "webgpu" or arr.size == 0:
        out = op.numpy(arr)
        _record(op, arr.shape, "numpy", {"compute": time.perf_counter() - start})
        return out
    try:
        return await _elementwise_gpu_async(op, arr, start)
    except Exception:
        if RUNTIME.backend == "webgpu":
            raise
        # The device was lost while this op ran: the runtime has switched to NumPy.
        out = op.numpy(arr)
        _record(op, arr.shape, "numpy", {"compute": time.perf_counter() - start})
        return out


async def _elementwise_gpu_async(op: Op, arr: np.ndarray, start: float) -> np.ndarray:
    device, pool = RUNTIME.device, RUNTIME.pool
    webgpu = _webgpu()
    pipeline = await RUNTIME.pipeline_async(op.family, op.entry)
    out = np.empty_like(arr)
    flat_in, flat_out = arr.reshape(-1), out.reshape(-1)
    step = chunk_elements(device.limits)
    max_dim = device.limits.get("maxComputeWorkgroupsPerDimension", 65535)
    stages = {"buffers": 0.0, "upload": 0.0, "dispatch": 0.0, "readback": 0.0}
    stages["setup"] = time.perf_counter() - start
    for lo in range(0, flat_in.size, step):
        part_in, part_out = flat_in[lo:lo + step], flat_out[lo:lo + step]
        nbytes = part_in.nbytes
        t0 = time.perf_counter()
        src = pool.acquire(nbytes, webgpu.STORAGE | webgpu.COPY_DST)
        dst = pool.acquire(nbytes, webgpu.STORAGE | webgpu.COPY_SRC)
        staging = pool.acquire(nbytes, webgpu.MAP_READ | webgpu.COPY_DST)
        try:
            t1 = time.perf_counter()
            device.write_buffer(src, part_in)
            t2 = time.perf_counter()
            device.push_error_scopes()
            groups = grid(-(-part_in.size // WORKGROUP_SIZE), max_dim)
            device.encode_dispatch(pipeline, [(src, nbytes), (dst, nbytes)], groups, (dst, staging, nbytes))
            error = await device.pop_error_scopes_async()
            if error:
                raise RuntimeError(f"{op.name}: the GPU rejected the dispatch: {error}")
            t3 = time.perf_counter()
            await device.read_buffer_async(staging, part_out)
            t4 = time.perf_counter()
        finally:
            if RUNTIME.pool is pool:  # not lost meanwhile
                for buf in (src, dst, staging):
                    pool.release(buf)
        stages["buffers"] += t1 - t0
        stages["upload"] += t2 - t1
        stages["dispatch"] += t3 - t2
        stages["readback"] += t4 - t3
    _record(op, arr.shape, "webgpu", stages)
    return out


def _webgpu() -> Any:
    from . import webgpu

    return webgpu
