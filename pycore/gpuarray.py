"""Arrays that live in a GPU buffer, so chains of ops skip the uploads and readbacks between them.

`t = await pycore.to_gpu_async(x)` makes a GpuArray; every op accepts it, and when all of an op's
array inputs are GpuArrays the result is one too (reductions still return a float). Read it with
`await t.to_numpy_async()`; free it with `t.release()` or a `with` block (a GpuArray that is
garbage-collected gives its buffer back too). Without a WebGPU device, GpuArrays hold their data
in host memory, so the same code runs on the NumPy fallback.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from .runtime import RUNTIME


class _Float32Shape:
    """size, nbytes and ndim of anything with a float32 `shape`."""

    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        return 4 * self.size

    @property
    def ndim(self) -> int:
        return len(self.shape)


class GpuView(_Float32Shape):
    """A float32, C-ordered window on a GPU buffer: what programs bind instead of uploading.
    Supports the little of ndarray's interface the programs use: shape, size, nbytes, ndim,
    reshape, and slicing along the first axis."""

    def __init__(self, buffer: Any, shape: tuple[int, ...], offset: int = 0) -> None:
        self.buffer, self.shape, self.offset = buffer, tuple(shape), offset


    def reshape(self, *shape: Any) -> GpuView:
        new = np.empty(self.shape, dtype=np.bool_).reshape(*shape).shape  # NumPy's shape rules, no data
        return GpuView(self.buffer, new, self.offset)

    def __getitem__(self, key: slice) -> GpuView:
        if not isinstance(key, slice) or key.step not in (None, 1):
            raise TypeError("GpuView supports only contiguous slices along the first axis")
        lo, hi, _ = key.indices(self.shape[0])
        hi = max(hi, lo)
        row = int(np.prod(self.shape[1:], dtype=np.int64))
        return GpuView(self.buffer, (hi - lo, *self.shape[1:]), self.offset + 4 * lo * row)


class GpuArray(_Float32Shape):
    """A float32 array in GPU memory (or in host memory on the NumPy fallback).

    >>> import asyncio, pycore
    >>> async def demo():
    ...     with await pycore.to_gpu_async([[-1.0, 2.0]]) as t:
    ...         y = await pycore.relu_async(t)       # stays on the device
    ...         return y.shape, await y.to_numpy_async()
    >>> asyncio.run(demo())
    ((1, 2), array([[0., 2.]], dtype=float32))
    """

    def __init__(self, shape: tuple[int, ...], buffer: Any = None, host: np.ndarray | None = None) -> None:
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(np.float32)
        self.device = "numpy" if buffer is None else "webgpu"
        self._buffer, self._host = buffer, host
        self._generation = RUNTIME.generation
        self._released = False
        if buffer is not None:
            pool = RUNTIME.pool
            self._finalizer = weakref.finalize(self, _give_back, pool, buffer, RUNTIME.generation)

    # -- facts
    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d GpuArray")
        return self.shape[0]

    def __repr__(self) -> str:
        state = " released" if self._released else ""
        return (f"GpuArray(shape={self.shape}, dtype=float32, nbytes={self.nbytes}, "
                f"device={self.device!r}{state})")

    # -- life
    def check_usable(self) -> None:
        """Raise a clear error if this array can no longer be used."""
        if self._released:
            raise RuntimeError(f"this GpuArray {self.shape} was released; its data is gone")
        if self._buffer is not None and self._generation != RUNTIME.generation:
            raise RuntimeError(f"this GpuArray {self.shape} lived on a GPU device that was lost "
                               f"({RUNTIME.device_lost}); its data is gone")

    def release(self) -> None:
        """Give the GPU buffer back to pycore's pool now (idempotent)."""
        if self._released:
            return
        self._released = True
        if self._buffer is not None:
            self._finalizer()
        self._buffer = self._host = None

    def __enter__(self) -> GpuArray:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    async def __aenter__(self) -> GpuArray:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.release()

    # -- data
    def view(self) -> GpuView | np.ndarray:
        """What a program binds: a GpuView of the buffer, or the host array on the fallback."""
        self.check_usable()
        return self._host if self._buffer is None else GpuView(self._buffer, self.shape)

    async def to_numpy_async(self) -> np.ndarray:
        """Read the array back into a new float32 NumPy array."""
        self.check_usable()
        if self._buffer is None:
            return self._host.copy()
        from .gpu import GpuSession

        out = np.empty(self.shape, np.float32)
        if out.size:
            async with GpuSession("to_numpy") as gpu:
                await gpu.run_async(read=(self._buffer, out))
        return out


def _give_back(pool: Any, buffer: Any, generation: int) -> None:
    if generation == RUNTIME.generation and RUNTIME.pool is pool:
        pool.release(buffer)


async def to_gpu_async(x: Any) -> GpuArray:
    """Upload an array-like (converted to float32) and keep it on the GPU.

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.to_gpu_async([1, 2, 3])).shape
    (3,)
    """
    from .arrays import as_float32

    arr = as_float32(x, "x")
    await RUNTIME.init_async()
    if RUNTIME.backend != "webgpu":
        return GpuArray(arr.shape, host=arr.copy())
    from .gpu import GpuSession

    async with GpuSession("to_gpu") as gpu:
        if arr.nbytes > gpu.max_binding:
            raise ValueError(f"to_gpu: x needs {arr.nbytes:,} bytes, over this device's "
                             f"maxStorageBufferBindingSize of {gpu.max_binding:,} bytes")
        buf, _ = gpu.upload(arr)
        gpu.keep(buf)
    return GpuArray(arr.shape, buffer=buf)
