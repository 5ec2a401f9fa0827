"""Arrays that live in a GPU buffer, so chains of ops skip the uploads and readbacks between them.

`t = await pycore.to_gpu_async(x)` makes a GpuArray; every op accepts it, and when any of an op's
array inputs is a GpuArray the result is one too, on the GPU (host operands are uploaded as part of
the call; a reduction over every axis gives a 0-D GpuArray). Read it with
`await t.to_numpy_async()`; free it with `t.release()` or a `with` block (a GpuArray that is
garbage-collected gives its buffer back too). Without a WebGPU device, GpuArrays
hold their data in host memory, so the same code runs on the NumPy fallback.

A GpuArray is a buffer, a dtype (one of pycore's: dtypes.py) and a layout: shape, strides and
offset, in elements (pycore/array/layout.py). Views (`x.T`, `x.mT`, `x.transpose()`, `x[1:, ::-2]`,
`x.reshape()` where the strides allow it, `x.expand_dims()`, `x.squeeze()`, `x.broadcast_to()`)
are new GpuArrays over the same buffer: no copy, no dispatch, no await. Ops read them through
their strides.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from pycore.array.dtypes import BOOL, FLOAT32, as_array, pycore_dtype, wide
from pycore.array.layout import Layout
from pycore.engine.device import Check, Device
from pycore.engine.executor import facts, planned, replay, run_plans_async
from pycore.engine.runtime import RUNTIME
from pycore.engine.session import GpuSession, GpuView
from pycore.kernels.elementwise import Operand, plan_elementwise
from pycore.kernels.plan import SUFFIX, item_bytes, storage_bytes

DLPACK_CPU, DLPACK_WEBGPU = 1, 15  # DLPack's DLDeviceType of host and WebGPU memory (kDLCPU, kDLWebGPU)


class GpuArray:
    """An array in GPU memory (or in host memory on the NumPy fallback).

    >>> import asyncio, pycore
    >>> async def demo():
    ...     with await pycore.to_gpu_async([[-1.0, 2.0]]) as t:
    ...         y = await pycore.relu_async(t)       # stays on the device
    ...         return y.shape, t.T.shape, await y.to_numpy_async()
    >>> asyncio.run(demo())
    ((1, 2), (2, 1), array([[0., 2.]], dtype=float32))
    """

    def __init__(self, shape: tuple[int, ...], buffer: Any = None, host: np.ndarray | None = None,
                 checks: tuple[Check, ...] = (), device: Device | None = None, dtype: Any = FLOAT32,
                 layout: Layout | None = None, base: GpuArray | None = None) -> None:
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype) if host is None else host.dtype
        self.device = "numpy" if buffer is None else "webgpu"
        self.layout = layout if layout is not None else Layout.contiguous(self.shape)
        self._buffer, self._host = buffer, host
        self._checks = checks  # the error checks of the work that wrote it, until settled
        self._released = False
        self._device = device  # the Device that holds `buffer`
        self._base = base  # the array that owns the buffer, for a view
        self._bound: int | None = None  # bytes of the buffer an n-d kernel binds (see binding)
        # what the fixed-kernel ops bind as it is: float32, C-contiguous from the buffer's start
        self._plain = (self.dtype == FLOAT32 and self.layout.offset == 0 and self.layout.is_contiguous
                       and (host is None or host.flags.c_contiguous))
        if buffer is not None and base is None:
            self._finalizer = weakref.finalize(self, _give_back, self._device, buffer)

    @classmethod
    def of(cls, result: GpuView | np.ndarray, device: Device | None = None) -> GpuArray:
        """The GpuArray of a program's result: a GpuView it kept on `device`, or a host array."""
        if isinstance(result, GpuView):
            return cls(result.shape, buffer=result.buffer, checks=result.checks, device=device)
        return cls(result.shape, host=result)

    # -- facts
    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        """size * itemsize, as NumPy counts it (a bool takes 4 bytes on the GPU)."""
        return self.size * self.dtype.itemsize

    @property
    def strides(self) -> tuple[int, ...]:
        """Steps between neighbours along each axis, in elements (not bytes, unlike NumPy)."""
        if self._host is not None:
            return tuple(s // self.dtype.itemsize for s in self._host.strides)
        return self.layout.strides

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d GpuArray")
        return self.shape[0]

    def __repr__(self) -> str:
        state = " released" if self._released or (self._base is not None and self._base._released) else ""
        view = "" if self._base is None else ", view"
        return (f"GpuArray(shape={self.shape}, dtype={self.dtype.name}, nbytes={self.nbytes}, "
                f"device={self.device!r}{view}{state})")

    # -- no silent conversions: the data is on the GPU, and reading it is an await
    def _no_sync(self, what: str) -> TypeError:
        return TypeError(f"{what} of a GpuArray would read the GPU synchronously; "
                         f"use `await x.to_numpy_async()` (the data is on device {self.device!r})")

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise self._no_sync("numpy.asarray()")

    def __float__(self) -> float:
        raise self._no_sync("float()")

    def __int__(self) -> int:
        raise self._no_sync("int()")

    def __bool__(self) -> bool:
        raise self._no_sync("bool()")

    def __index__(self) -> int:
        raise self._no_sync("Using as an index")

    def __iter__(self) -> Any:
        raise self._no_sync("Iterating")

    # -- DLPack: the standard's export protocol, which this memory cannot take part in
    def __dlpack_device__(self) -> tuple[int, int]:
        """DLPack's (device type, device id) of this array: (15, 0), kDLWebGPU, for GPU memory;
        (1, 0), kDLCPU, on the NumPy fallback.

        >>> import numpy as np, pycore
        >>> pycore.GpuArray((2,), host=np.zeros(2, np.float32)).__dlpack_device__()
        (1, 0)
        """
        return (DLPACK_CPU if self._buffer is None else DLPACK_WEBGPU, 0)

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: bool | None = None) -> Any:
        """Always BufferError, as the standard says for data that cannot be exported: WebGPU never
        maps GPU memory to a pointer a DLPack consumer could read, and a GpuArray's values are read
        with an await on every backend (`await x.to_numpy_async()` gives a NumPy array, which
        exports; `pycore.from_dlpack_async` takes GpuArrays as they are)."""
        where = ("the GPU's, which WebGPU never maps to a pointer" if self._buffer is not None else
                 "held by the NumPy fallback, but read with an await on every backend")
        raise BufferError(f"__dlpack__: a GpuArray cannot be exported through DLPack (its memory is "
                          f"{where}); read it with `await x.to_numpy_async()` and export the NumPy array")

    # -- life
    def check_usable(self) -> None:
        """Raise a clear error if this array can no longer be used."""
        owner = (self if self._base is None else self._base)
        if self._released or owner._released:
            view = owner is not self and owner._released
            what = "the array this view was taken of" if view else "this GpuArray"
            raise RuntimeError(f"{what} {owner.shape} was released; its data is gone")
        device = self._device
        gone = device is None or device.lost is not None or device is not RUNTIME.device
        if self._buffer is not None and gone:
            why = device.lost if device is not None and device.lost else RUNTIME.device_lost
            raise RuntimeError(f"this GpuArray {self.shape} lived on a GPU device that was lost "
                               f"({why}); its data is gone")

    def release(self) -> None:
        """Give the GPU buffer back to pycore's pool now (idempotent). A view's release only ends
        the view; releasing the array it was taken of ends its views too."""
        if self._released:
            return
        self._released = True
        if self._buffer is not None and self._base is None:
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

    def __copy__(self) -> GpuArray:
        """copy.copy(x): a view of the same buffer (no GPU work), which ends with x (using it after
        x's release raises); `await x.copy_async()` makes a copy with a buffer of its own."""
        return self._view(self.layout, self._host)

    def __deepcopy__(self, memo: dict[int, Any]) -> GpuArray:
        raise TypeError("copy.deepcopy() of a GpuArray would copy GPU memory synchronously; use "
                        "`await x.copy_async()` (a copy on the device) or `await x.to_numpy_async()`")

    # -- views: no copy, no dispatch
    def _view(self, layout: Layout | None, host: Any) -> GpuArray:
        self.check_usable()
        if self._buffer is None:  # (the layout too: reshape says where a copy is needed, as on the GPU)
            return GpuArray(host.shape, host=host, layout=layout,
                            base=(self if self._base is None else self._base))
        assert layout is not None
        return GpuArray(layout.shape, buffer=self._buffer, checks=self._checks, device=self._device,
                        dtype=self.dtype, layout=layout, base=(self if self._base is None else self._base))

    def transpose(self, *axes: Any) -> GpuArray:
        """The axes permuted (reversed with none given), as ndarray.transpose: a view."""
        one = len(axes) == 1 and isinstance(axes[0], (tuple, list))
        order = axes[0] if one or axes == (None,) else axes
        order = None if order in ((), None) else tuple(order)
        layout = self.layout.transpose(order)
        return self._view(layout, None if self._host is None else self._host.transpose(order))

    @property
    def T(self) -> GpuArray:  # noqa: N802 (NumPy's name)
        """The axes reversed: a view."""
        return self.transpose()

    @property
    def mT(self) -> GpuArray:  # noqa: N802 (the Array API standard's name)
        """The last two axes swapped (a stack of matrices transposed): a view."""
        if self.ndim < 2:
            raise ValueError(f"mT needs at least 2 dimensions, this GpuArray has {self.ndim}")
        order = (*range(self.ndim - 2), self.ndim - 1, self.ndim - 2)
        return self.transpose(order)

    def __getitem__(self, key: Any) -> GpuArray:
        """Basic indexing (ints, slices with any step, None, ...): a view."""
        layout = self.layout.getitem(key)
        return self._view(layout, None if self._host is None else self._host[key])

    def reshape(self, *shape: Any) -> GpuArray:
        """The same elements in another shape: a view where the strides allow it; otherwise a
        ValueError that says to copy first (`await x.copy_async()`), since a copy is GPU work."""
        dims = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        layout = self.layout.reshape(dims)
        if layout is None:
            raise ValueError(f"reshaping this GpuArray view of shape {self.shape} into {tuple(dims)} needs a "
                             f"copy: `(await x.copy_async()).reshape(...)`")
        return self._view(layout, None if self._host is None else self._host.reshape(layout.shape))

    def expand_dims(self, axis: int) -> GpuArray:
        """A new axis of length 1 at `axis`: a view."""
        layout = self.layout.expand_dims(axis)
        return self._view(layout, None if self._host is None else np.expand_dims(self._host, axis))

    def squeeze(self, axis: int | Sequence[int] | None = None) -> GpuArray:
        """Axes of length 1 removed (all, or the ones named): a view."""
        layout = self.layout.squeeze(axis)
        return self._view(layout, None if self._host is None else self._host.reshape(layout.shape))

    def broadcast_to(self, shape: Sequence[int]) -> GpuArray:
        """A view with `shape`, repeating along broadcast axes (stride 0), as numpy.broadcast_to."""
        layout = self.layout.broadcast_to(shape)
        return self._view(layout, None if self._host is None else np.broadcast_to(self._host, layout.shape))

    async def copy_async(self) -> GpuArray:
        """A C-contiguous copy (one dispatch on the GPU; a host copy on the fallback)."""
        return await self._copy_async(self.dtype)

    async def astype_async(self, dtype: Any) -> GpuArray:
        """A C-contiguous copy converted to `dtype` (any of pycore's), as
        ndarray.astype: floats to ints truncate, nonzero is True."""
        return await self._copy_async(pycore_dtype(dtype, "dtype"))

    async def _copy_async(self, dtype: np.dtype, function: str = "copy") -> GpuArray:
        """The strided kernel with `<function>_<type>` (a copy, or conj), converting on the way
        (queued, no readback). complex64 converts to bool only (TypeError otherwise)."""
        self.check_usable()
        if self.dtype.kind == "c" and dtype.kind not in "cb":
            raise TypeError(f"astype: complex64 does not convert to {dtype.name} (the standard leaves it "
                            f"out: take real(x), imag or abs first)")
        device = self._device
        if self._buffer is None or device is None or self.size == 0:
            host = np.ascontiguousarray(await self.to_numpy_async(), dtype=dtype)
            if function == "conj":
                host = np.conj(host)
            return GpuArray(self.shape, host=host) if self._buffer is None else await to_gpu_async(host)
        operand = Operand(self.dtype, self.layout)
        key = (function, self.dtype.name, self.layout, dtype.name, facts(device))
        held = wide(dtype)  # (a packed dtype is converted in its 32-bit form, then stored)
        plan = planned(key, lambda: plan_elementwise(function, f"{function}_{SUFFIX[held.name]}", [operand],
                                                     held, dtype, self.shape, facts(device)))
        bound = [(*self.binding(), self._checks)]
        try:
            queued = replay(device, "copy", plan, bound)  # (queued at once where its kernel is compiled)
        except Exception:  # (a session runs it again, and says what failed: full memory, say)
            queued = None
        if queued is None:
            buf, checks, _ = await run_plans_async(device, "copy", [(plan, bound)], keep=True)
        else:
            buf, checks = queued
        return GpuArray(self.shape, buffer=buf, checks=checks, device=device, dtype=dtype)

    def pairs(self) -> GpuArray:
        """A complex64 array's values as float32 pairs: a view of shape (*shape, 2), the real parts
        at [..., 0] and the imaginary parts at [..., 1] (no copy, no dispatch).

        >>> import asyncio, numpy as np, pycore
        >>> z = asyncio.run(pycore.asarray_async(np.array([1 + 2j, 3 - 4j], np.complex64), device="gpu"))
        >>> z.pairs().shape, z.pairs().dtype
        ((2, 2), dtype('float32'))
        """
        if self.dtype.kind != "c":
            raise TypeError(f"pairs: x must be complex64, got {self.dtype}")
        self.check_usable()
        if self._buffer is None:
            assert self._host is not None
            return GpuArray((*self.shape, 2), host=np.stack([self._host.real, self._host.imag], axis=-1))
        return GpuArray((*self.shape, 2), buffer=self._buffer, checks=self._checks, device=self._device,
                        dtype=FLOAT32, layout=self.layout.pairs(),
                        base=(self if self._base is None else self._base))

    # -- data
    def view(self) -> GpuView | np.ndarray:
        """What a fixed-kernel program binds: a GpuView of the buffer, or the host array on the
        fallback (a float32, C-contiguous array from its buffer's start: see `_plain`)."""
        self.check_usable()
        if self._buffer is None:
            assert self._host is not None
            return self._host if self._plain else np.ascontiguousarray(self._host, np.float32)
        self._checks = tuple(c for c in self._checks if not c.settled or c.error)
        return GpuView(self._buffer, self.shape, checks=self._checks)

    def binding(self) -> tuple[Any, int]:
        """(buffer, bytes) an n-d kernel binds: the buffer from its start up to this array's last
        element (its layout's offset and strides go into the kernel's uniform words)."""
        self.check_usable()
        if self._checks:
            self._checks = tuple(c for c in self._checks if not c.settled or c.error)
        if self._bound is None:
            self._bound = max(4, storage_bytes((self.layout.span()[1],), self.dtype))
        return self._buffer, self._bound

    @property
    def checks(self) -> tuple[Check, ...]:
        return self._checks

    async def to_numpy_async(self) -> np.ndarray:
        """Read the array back into a new NumPy array of its dtype."""
        self.check_usable()
        if self._buffer is None:
            return np.array(self._host, order="C")  # (C order, as read from a GPU)
        count = math.prod(self.shape)
        if not count:
            return np.empty(self.shape, self.dtype)
        low, high = self.layout.span()
        size = item_bytes(self.dtype)
        low = low * size // 4 * 4 // size  # (reads start and end on whole words)
        raw = np.empty(storage_bytes((high - low,), self.dtype) // size,
                       np.uint32 if self.dtype == BOOL else self.dtype)
        device = self._device
        assert device is not None
        try:
            async with GpuSession(device, "to_numpy") as gpu:
                self.binding()  # (drops the settled checks)
                gpu.depend_on(self._checks)
                await gpu.run_async(read=(self._buffer, raw, size * low))
        except Exception as exc:
            if await RUNTIME.lost_during_async(device, exc):
                self.check_usable()  # says the device was lost
            raise
        self.check_usable()  # the device may have been lost while reading
        lay = self.layout
        if lay.is_contiguous:
            values = raw[lay.offset - low:lay.offset - low + count].reshape(self.shape)
            if self.dtype != BOOL:
                return values  # (the words read are the result: no copy)
        else:
            values = np.lib.stride_tricks.as_strided(raw[lay.offset - low:], self.shape,
                                                     [s * size for s in lay.strides]) if all(
                s >= 0 for s in lay.strides) else _gather(raw, lay, low)
        out = np.empty(self.shape, self.dtype)
        out[...] = values if self.dtype != BOOL else values != 0
        return out


def complex_view(pairs: Any) -> Any:
    """A new float32 result of shape (..., 2) (contiguous: real and imaginary parts, as a kernel
    of the pairs wrote it) as the complex64 array of shape (...) it holds: a view of its buffer, or
    of a NumPy array's memory."""
    if isinstance(pairs, np.ndarray):
        return np.ascontiguousarray(pairs, np.float32).view(np.complex64)[..., 0]
    assert pairs.layout == Layout.contiguous(pairs.shape) and pairs.shape[-1] == 2
    if pairs._buffer is None:
        return GpuArray(pairs.shape[:-1], host=complex_view(pairs._host))
    return GpuArray(pairs.shape[:-1], buffer=pairs._buffer, checks=pairs._checks, device=pairs._device,
                    dtype=np.complex64, base=pairs if pairs._base is None else pairs._base)


def host_pairs(x: np.ndarray) -> np.ndarray:
    """A complex NumPy array's values as float32 pairs of shape (*x.shape, 2) (C-contiguous)."""
    return np.ascontiguousarray(x, np.complex64).view(np.float32).reshape(*x.shape, 2)


async def widened_async(x: Any) -> Any:
    """x with a packed dtype (int8, int16, uint8, uint16, float16) in its 32-bit form (`wide`),
    for kernels that read 32-bit elements: a GpuArray converted on the GPU, a NumPy array on the
    host; anything else as it is."""
    if isinstance(x, GpuArray) and x.dtype != wide(x.dtype):
        return await x.astype_async(wide(x.dtype))
    if isinstance(x, np.ndarray) and x.dtype != wide(x.dtype):
        return x.astype(wide(x.dtype))
    return x


async def narrowed_async(x: Any, dtype: np.dtype) -> Any:
    """A result computed in a 32-bit dtype as `dtype` (rounded or wrapped as astype), where it is."""
    if isinstance(x, GpuArray) and x.dtype != dtype:
        return await x.astype_async(dtype)
    if isinstance(x, np.ndarray) and x.dtype != dtype:
        return x.astype(dtype)
    return x


def _gather(raw: np.ndarray, layout: Layout, low: int) -> np.ndarray:
    """The elements of `layout` (any strides, negative too) from `raw`, which starts at element `low`."""
    index = np.full(layout.shape, layout.offset - low, dtype=np.int64)
    for axis, (n, s) in enumerate(zip(layout.shape, layout.strides, strict=True)):
        shape = [1] * layout.ndim
        shape[axis] = n
        index = index + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return raw[index]


def _give_back(device: Device | None, buffer: Any) -> None:
    if device is not None and device is RUNTIME.device:  # a lost device's buffers went with it
        device.release(buffer)


def storage_of(arr: np.ndarray) -> np.ndarray:
    """A host array as the GPU stores it: C-contiguous 4-byte words (bool as uint32 0/1; the packed
    dtypes' elements several to a word, the last word padded with zeros).

    >>> storage_of(np.array([1, 2, 3], np.uint8)).view(np.uint32)
    array([197121], dtype=uint32)
    """
    if arr.dtype == BOOL:
        return np.ascontiguousarray(arr, dtype=np.uint32)
    flat = np.ascontiguousarray(arr).reshape(-1)
    spare = -flat.nbytes % 4
    if spare:
        flat = np.concatenate([flat, np.zeros(spare // flat.dtype.itemsize, flat.dtype)])
    return flat if arr.ndim == 1 or spare else np.ascontiguousarray(arr)


async def to_gpu_async(x: Any, dtype: Any = None) -> GpuArray:
    """Upload an array-like and keep it on the GPU. Its dtype: `dtype` if given, else pycore's
    for x (its own where it is one of pycore's; 64-bit NumPy inputs are narrowed with a warning).

    >>> import asyncio, pycore
    >>> t = asyncio.run(pycore.to_gpu_async([1, 2, 3]))
    >>> t.shape, t.dtype
    ((3,), dtype('int32'))
    """
    if isinstance(x, GpuArray):
        x.check_usable()
        if dtype is not None and pycore_dtype(dtype, "dtype") != x.dtype:
            x = await x.astype_async(dtype)
        if x.device == "webgpu" or RUNTIME.device is None:
            return x  # already where it should be (as numpy.asarray returns its input)
        x = await x.to_numpy_async()  # held on the host, and now there is a GPU
    arr = as_array(x, "x")
    if dtype is not None:
        arr = arr.astype(pycore_dtype(dtype, "dtype"))
    await RUNTIME.init_async()
    if RUNTIME.device is None:
        return GpuArray(arr.shape, host=np.array(arr, order="C"))
    device = RUNTIME.device
    data = storage_of(arr)
    if data.nbytes > device.max_binding:
        raise ValueError(f"to_gpu: x needs {data.nbytes:,} bytes in one GPU binding, over this device's "
                         f"binding limit of {device.max_binding:,} bytes (maxStorageBufferBindingSize, "
                         f"rounded down to what pycore allocates)")
    try:
        async with GpuSession(device, "to_gpu") as gpu:
            buf, _ = gpu.upload(data)
            gpu.keep(buf)
    except Exception as exc:
        if await RUNTIME.lost_during_async(device, exc):  # lost meanwhile: keep it on the host
            return GpuArray(arr.shape, host=np.array(arr, order="C"))
        raise
    if device is not RUNTIME.device:
        return GpuArray(arr.shape, host=np.array(arr, order="C"))
    return GpuArray(arr.shape, buffer=buf, checks=gpu.result_checks(), device=device, dtype=arr.dtype)
