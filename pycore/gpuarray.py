"""Arrays that live in a GPU buffer, so chains of ops skip the uploads and readbacks between them.

`t = await pycore.to_gpu_async(x)` makes a GpuArray; every op accepts it, and when all of an op's
array inputs are GpuArrays the result is one too (reductions still return a float). Read it with
`await t.to_numpy_async()`; free it with `t.release()` or a `with` block (a GpuArray that is
garbage-collected gives its buffer back too). Without a WebGPU device, GpuArrays hold their data
in host memory, so the same code runs on the NumPy fallback.
"""

from __future__ import annotations

import math
import weakref
from typing import Any

import numpy as np

from .arrays import as_float32
from .device import Check, Device
from .gpu import GpuSession, GpuView
from .runtime import RUNTIME


class _Float32Shape:
    """size, nbytes and ndim of anything with a float32 `shape`."""

    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return 4 * self.size

    @property
    def ndim(self) -> int:
        return len(self.shape)


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

    def __init__(self, shape: tuple[int, ...], buffer: Any = None, host: np.ndarray | None = None,
                 checks: tuple[Check, ...] = (), device: Device | None = None) -> None:
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(np.float32)
        self.device = "numpy" if buffer is None else "webgpu"
        self._buffer, self._host = buffer, host
        self._checks = checks  # the error checks of the work that wrote it, until settled
        self._released = False
        self._device = device  # the Device that holds `buffer`
        if buffer is not None:
            self._finalizer = weakref.finalize(self, _give_back, self._device, buffer)

    @classmethod
    def of(cls, result: GpuView | np.ndarray, device: Device | None = None) -> GpuArray:
        """The GpuArray of a program's result: a GpuView it kept on `device`, or a host array."""
        if isinstance(result, GpuView):
            return cls(result.shape, buffer=result.buffer, checks=result.checks, device=device)
        return cls(result.shape, host=result)

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
        if self._buffer is not None and (self._device is None or self._device.lost is not None
                                         or self._device is not RUNTIME.device):
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
        if self._buffer is None:
            assert self._host is not None  # (on the host, and not released: check_usable passed)
            return self._host
        self._checks = tuple(c for c in self._checks if not c.settled or c.error)
        return GpuView(self._buffer, self.shape, checks=self._checks)

    async def to_numpy_async(self) -> np.ndarray:
        """Read the array back into a new float32 NumPy array."""
        self.check_usable()
        if self._buffer is None:
            assert self._host is not None  # (on the host, and not released: check_usable passed)
            return self._host.copy()
        out = np.empty(self.shape, np.float32)
        if out.size:
            view, device = self.view(), self._device
            assert isinstance(view, GpuView) and device is not None  # (a buffer, on its device)
            try:
                async with GpuSession(device, "to_numpy") as gpu:
                    gpu.depend_on(view.checks)
                    await gpu.run_async(read=(self._buffer, out))
            except Exception as exc:
                if await RUNTIME.lost_during_async(device, exc):
                    self.check_usable()  # says the device was lost
                raise
            self.check_usable()  # the device may have been lost while reading
        return out


def _give_back(device: Device | None, buffer: Any) -> None:
    if device is not None and device is RUNTIME.device:  # a lost device's buffers went with it
        device.release(buffer)


async def to_gpu_async(x: Any) -> GpuArray:
    """Upload an array-like (converted to float32) and keep it on the GPU.

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.to_gpu_async([1, 2, 3])).shape
    (3,)
    """
    arr = as_float32(x, "x")
    await RUNTIME.init_async()
    if RUNTIME.device is None:
        return GpuArray(arr.shape, host=arr.copy())
    device = RUNTIME.device
    if arr.nbytes > device.max_binding:
        raise ValueError(f"to_gpu: x needs {arr.nbytes:,} bytes, over this device's "
                         f"maxStorageBufferBindingSize of {device.max_binding:,} bytes")
    try:
        async with GpuSession(device, "to_gpu") as gpu:
            buf, _ = gpu.upload(arr)
            gpu.keep(buf)
    except Exception as exc:
        if await RUNTIME.lost_during_async(device, exc):  # lost meanwhile: keep it on the host
            return GpuArray(arr.shape, host=arr.copy())
        raise
    if device is not RUNTIME.device:
        return GpuArray(arr.shape, host=arr.copy())
    return GpuArray(arr.shape, buffer=buf, checks=gpu.result_checks(), device=device)
