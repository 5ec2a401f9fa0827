"""The Python Array API standard's creation functions, with its names, parameters and defaults,
each as `<name>_async`: asarray, zeros, ones, empty, full, their `*_like` forms, arange, linspace,
eye, tril, triu and meshgrid.

Where results live: a creation function's `device=` says where: None or "cpu" a NumPy array, "gpu"
(or "webgpu", a GpuArray's device) a GpuArray filled on the GPU (held on the host where there is no
WebGPU, as to_gpu_async does); a `*_like` function's device is its input's unless given. tril and
triu of a GpuArray give a GpuArray (a NumPy array of host arrays), meshgrid of GpuArrays broadcast
views. On the GPU each fills its output with the placing kernels (calls/placing.py): a value, a
ramp, a diagonal, or an input copied into a triangle.

>>> import asyncio, pycore
>>> asyncio.run(pycore.arange_async(4, device="gpu")).shape
(4,)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from pycore.array.dtypes import BOOL, COMPLEX64, FLOAT32, INT32, as_array, pycore_dtype
from pycore.array.dtypes import result_type as _promoted
from pycore.array.dtypes import scalar_value as _scalar_value
from pycore.calls.arguments import Array, array_arg, dtype_arg, int_arg, result_device, shape_arg
from pycore.calls.gpuarray import GpuArray, to_gpu_async
from pycore.calls.placing import created_async, moved_async, whole
from pycore.kernels.place import Part


async def asarray_async(obj: Any, /, *, dtype: Any = None, device: Any = None,
                        copy: bool | None = None) -> Array:
    """`obj` (an array, a nested sequence, a Python scalar, a buffer) as an array of `dtype` (pycore's
    dtype for it when None) on `device` (None: where obj is; a NumPy array for anything but a
    GpuArray or a sequence holding GpuArrays, whose elements are stacked on the GPU). copy: True
    always copies, False never does (ValueError where it would have to).

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.asarray_async([[1, 2], [3, 4]], dtype="float32"))
    array([[1., 2.],
           [3., 4.]], dtype=float32)
    """
    if copy not in (None, True, False):
        raise TypeError(f"asarray: copy must be True, False or None, got {copy!r}")
    want = None if dtype is None else pycore_dtype(dtype, "dtype")
    where = result_device(obj, device)
    if isinstance(obj, GpuArray):
        obj.check_usable()
        converts = want is not None and want != obj.dtype
        if where == "cpu":
            if copy is False:
                raise ValueError("asarray: copy=False, but a GpuArray must be copied to make a NumPy array")
            value = await obj.to_numpy_async()
            return value.astype(want) if converts else value
        if converts or copy:
            if copy is False:
                raise ValueError(f"asarray: copy=False, but converting {obj.dtype} to {want} needs a copy")
            return await obj.astype_async(want or obj.dtype)
        return obj
    if isinstance(obj, (list, tuple)) and _holds_gpuarrays(obj):  # (device None: the GPU, as its arrays)
        return await _stacked_async(obj, want, "gpu" if device is None else where, copy)
    arr = as_array(obj, "obj")
    if want is not None and want != arr.dtype:
        arr = arr.astype(want)
    if where == "gpu":
        if copy is False:
            raise ValueError("asarray: copy=False, but device='gpu' copies a host array to the GPU")
        return await to_gpu_async(arr)
    shares = isinstance(obj, np.ndarray) and (arr is obj or arr.base is obj or np.shares_memory(arr, obj))
    if copy is False and not shares:
        raise ValueError(f"asarray: copy=False, but making an array of {type(obj).__name__} needs a copy")
    if copy and (shares or not isinstance(obj, np.ndarray)):
        return arr.copy() if shares else arr
    return arr


def _holds_gpuarrays(obj: Any) -> bool:
    """Whether a nested sequence holds a GpuArray (at any depth)."""
    return any(isinstance(e, GpuArray) or (isinstance(e, (list, tuple)) and _holds_gpuarrays(e)) for e in obj)


async def _stacked_async(obj: Any, want: Any, where: str, copy: bool | None) -> Array:
    """asarray of a nested sequence holding GpuArrays (and Python scalars or arrays of one shape at
    each level): on the GPU, its elements stacked along a new first axis, in the dtype they promote
    to (Python scalars weakly) or `want`; on the host ("cpu"), their values read back."""
    from pycore.calls.manipulation import stack_async  # (manipulation's functions use creation's)

    if copy is False:
        raise ValueError("asarray: copy=False, but making an array of a sequence needs a copy")
    if where == "cpu":
        host = as_array(await _host_nested_async(obj), "obj")
        return host if want is None else host.astype(want)
    nested = [isinstance(e, (list, tuple)) and _holds_gpuarrays(e) for e in obj]
    items = [await _stacked_async(e, None, where, None) if deep else e
             for e, deep in zip(obj, nested, strict=True)]
    dtype = want or _promoted(*[e.dtype if isinstance(e, (GpuArray, np.ndarray)) else e for e in items])
    parts = [await asarray_async(e, dtype=dtype, device="gpu") for e in items]
    return await stack_async(parts)


async def _host_nested_async(obj: Any) -> Any:
    """A nested sequence with its GpuArrays read back (NumPy arrays in their places)."""
    if isinstance(obj, GpuArray):
        return await obj.to_numpy_async()
    if isinstance(obj, (list, tuple)):
        return [await _host_nested_async(e) for e in obj]
    return obj


async def from_dlpack_async(x: Any, /, *, device: Any = None, copy: bool | None = None) -> Array:
    """An array from any object with the DLPack protocol (`__dlpack__`: NumPy, PyTorch and JAX
    arrays on the CPU, ...), on `device` (None or "cpu": a NumPy array sharing x's memory where its
    dtype is one of pycore's; "gpu": a GpuArray). Dtypes as asarray's. A GpuArray (whose memory
    DLPack cannot export) is taken as `asarray_async` takes it.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.from_dlpack_async(np.arange(3, dtype=np.int32)))
    array([0, 1, 2], dtype=int32)
    """
    if isinstance(x, GpuArray):  # (its __dlpack__ cannot export: it moves as asarray moves it)
        return await asarray_async(x, device=device, copy=copy)
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"from_dlpack: x must support the DLPack protocol (__dlpack__), got "
                        f"{type(x).__name__}")
    if copy not in (None, True, False):
        raise TypeError(f"from_dlpack: copy must be True, False or None, got {copy!r}")
    host = np.from_dlpack(x, copy=copy)  # (copy=True copies here: no second copy after it)
    return await asarray_async(host, device=device, copy=False if copy is False else None)


async def zeros_async(shape: Any, *, dtype: Any = None, device: Any = None) -> Array:
    """An array of `shape` filled with zeros (dtype float32 unless given).

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.zeros_async((2, 3), dtype="int32"))
    array([[0, 0, 0],
           [0, 0, 0]], dtype=int32)
    """
    return await full_async(shape, 0, dtype=dtype_arg(dtype, FLOAT32), device=device)


async def ones_async(shape: Any, *, dtype: Any = None, device: Any = None) -> Array:
    """An array of `shape` filled with ones (dtype float32 unless given).

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.ones_async(3))
    array([1., 1., 1.], dtype=float32)
    """
    return await full_async(shape, 1, dtype=dtype_arg(dtype, FLOAT32), device=device)


async def empty_async(shape: Any, *, dtype: Any = None, device: Any = None) -> Array:
    """An array of `shape` whose values are unspecified (pycore writes zeros; dtype float32 unless
    given).

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.empty_async((2, 2))).shape
    (2, 2)
    """
    return await full_async(shape, 0, dtype=dtype_arg(dtype, FLOAT32), device=device)


_KIND_DEFAULT = {"b": BOOL, "i": INT32, "f": FLOAT32, "c": COMPLEX64}


def _fill_value(value: Any, dtype: Any) -> tuple[Any, np.dtype]:
    if isinstance(value, (bool, np.bool_)):
        kind = "b"
    elif isinstance(value, numbers.Integral):
        kind = "i"
    elif isinstance(value, numbers.Real):
        kind = "f"
    elif isinstance(value, numbers.Complex):
        kind = "c"
    else:
        raise TypeError(f"fill_value must be a bool, int, float or complex, got {type(value).__name__} "
                        f"{value!r}")
    found = dtype_arg(dtype, _KIND_DEFAULT[kind])
    if kind == "c" and found.kind != "c":
        raise TypeError(f"fill_value: a complex value {value!r} does not fit dtype {found}")
    return _scalar_value(value, found, "fill_value"), found


async def full_async(shape: Any, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Array:
    """An array of `shape` filled with `fill_value` (dtype: given, else bool, int32 or float32 by
    fill_value's kind).

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.full_async((2,), 7))
    array([7, 7], dtype=int32)
    """
    dims = shape_arg(shape)
    value, found = _fill_value(fill_value, dtype)
    where = result_device(None, device)
    return await created_async("full", where, dims, found,
                               lambda: [Part(whole(dims), "value", values=(value,))],
                               lambda: np.full(dims, value, found))


def _like(x: Any, dtype: Any, device: Any) -> tuple[tuple[int, ...], np.dtype, Any]:
    x = array_arg(x)
    return tuple(x.shape), dtype_arg(dtype, x.dtype), result_device(x, device)


async def zeros_like_async(x: Any, /, *, dtype: Any = None, device: Any = None) -> Array:
    """Zeros of x's shape, dtype (unless given) and device (unless given).

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.zeros_like_async(np.array([1, 2], np.uint32)))
    array([0, 0], dtype=uint32)
    """
    shape, found, where = _like(x, dtype, device)
    return await full_async(shape, False if found == BOOL else 0, dtype=found, device=where)


async def ones_like_async(x: Any, /, *, dtype: Any = None, device: Any = None) -> Array:
    """Ones of x's shape, dtype (unless given) and device (unless given).

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.ones_like_async(np.zeros(2, np.float32)))
    array([1., 1.], dtype=float32)
    """
    shape, found, where = _like(x, dtype, device)
    return await full_async(shape, True if found == BOOL else 1, dtype=found, device=where)


async def empty_like_async(x: Any, /, *, dtype: Any = None, device: Any = None) -> Array:
    """An array of x's shape, dtype and device (unless given) whose values are unspecified.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.empty_like_async(np.zeros((2, 3), np.int32))).shape
    (2, 3)
    """
    shape, found, where = _like(x, dtype, device)
    return await full_async(shape, False if found == BOOL else 0, dtype=found, device=where)


async def full_like_async(x: Any, /, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Array:
    """`fill_value` in x's shape, dtype and device (unless given).

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.full_like_async(np.zeros(2, np.float32), 2.5))
    array([2.5, 2.5], dtype=float32)
    """
    shape, found, where = _like(x, dtype, device)
    _fill_value(fill_value, None)  # (its kind is checked; the value converts to x's dtype)
    return await full_async(shape, fill_value, dtype=found, device=where)


def _real(value: Any, name: str) -> int | float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be an int or a float, got {type(value).__name__} {value!r}")
    return int(value) if isinstance(value, numbers.Integral) else float(value)


def _number(value: Any, name: str) -> int | float | complex:
    if isinstance(value, (complex, np.complexfloating)):
        return complex(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be an int, a float or a complex, got {type(value).__name__} {value!r}")
    return _real(value, name)


async def arange_async(start: Any, /, stop: Any = None, step: Any = 1, *, dtype: Any = None,
                       device: Any = None) -> Array:
    """Evenly spaced values in [start, stop), `step` apart (arange(n): 0 to n - 1). dtype: given,
    else float32 if any argument is a float, else int32.

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.arange_async(2, 11, 3))
    array([2, 5, 8], dtype=int32)
    """
    start, step = _real(start, "start"), _real(step, "step")
    if stop is None:
        start, stop = 0, start
    stop = _real(stop, "stop")
    if step == 0:
        raise ValueError("arange: step must not be 0")
    floats = any(isinstance(v, float) for v in (start, stop, step))
    found = dtype_arg(dtype, FLOAT32 if floats else INT32)
    if found == BOOL:
        raise TypeError("arange: dtype bool is not a numeric dtype")
    n = max(0, math.ceil((stop - start) / step)) if floats else len(range(int(start), int(stop), int(step)))
    if found.kind in "iu" and n:
        _scalar_value(start, found, "start")
        _scalar_value(start + (n - 1) * step, found, "stop")
    with np.errstate(over="ignore"):  # (NumPy's: the first two values in the dtype, their difference
        first = found.type(start)  # the step, wrapping as the kernel's integers do)
        delta = (found.type(start + step) - first if found.kind == "f"
                 else np.array(step % 2**(8 * found.itemsize), f"u{found.itemsize}").view(found)[()])
    return await created_async(
        "arange", result_device(None, device), (n,), found,
        lambda: [Part(whole((n,)), "ramp", values=(first, delta, n, first))],
        lambda: np.arange(start, stop, step, dtype=found if found.kind == "f" else np.int64))


async def linspace_async(start: Any, stop: Any, /, num: Any, *, dtype: Any = None, device: Any = None,
                         endpoint: bool = True) -> Array:
    """`num` evenly spaced float32 values from start to stop (stop included when endpoint);
    complex64 where start or stop is complex, or dtype says so.

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.linspace_async(0, 1, 5))
    array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)
    """
    complex_ends = any(isinstance(v, (complex, np.complexfloating)) for v in (start, stop))
    start, stop = (_number(start, "start"), _number(stop, "stop"))
    n = int_arg(num, "num", 0)
    if not isinstance(endpoint, (bool, np.bool_)):
        raise TypeError(f"linspace: endpoint must be True or False, got {endpoint!r}")
    found = dtype_arg(dtype, COMPLEX64 if complex_ends else FLOAT32)
    if found not in (FLOAT32, COMPLEX64) or (complex_ends and found != COMPLEX64):
        raise TypeError(f"linspace: dtype must be a floating-point dtype (float32, or complex64 for complex "
                        f"ends), got {found}")
    div = (n - 1) if endpoint else n
    step = (stop - start) / div if div > 0 else 0.0
    last = n - 1 if endpoint and n > 1 else n
    with np.errstate(over="ignore"):
        values = (found.type(start), found.type(step), last, found.type(stop))
    return await created_async("linspace", result_device(None, device), (n,), found,
                               lambda: [Part(whole((n,)), "ramp", values=values)],
                               lambda: np.linspace(start, stop, n, endpoint=bool(endpoint)).astype(found))


async def eye_async(n_rows: Any, n_cols: Any = None, /, *, k: Any = 0, dtype: Any = None,
                    device: Any = None) -> Array:
    """An n_rows x n_cols (n_cols = n_rows when None) array with ones on diagonal k (0: the main
    one, > 0 above it, < 0 below), zeros elsewhere (dtype float32 unless given).

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.eye_async(2, 3, k=1, dtype="int32"))
    array([[0, 1, 0],
           [0, 0, 1]], dtype=int32)
    """
    rows = int_arg(n_rows, "n_rows", 0)
    cols = rows if n_cols is None else int_arg(n_cols, "n_cols", 0)
    diagonal = int_arg(k, "k")
    found = dtype_arg(dtype, FLOAT32)
    return await created_async("eye", result_device(None, device), (rows, cols), found,
                               lambda: [Part(whole((rows, cols)), "diagonal", values=(diagonal,))],
                               lambda: np.eye(rows, cols, diagonal, dtype=found))


async def _triangle_async(name: str, x: Any, k: Any) -> Array:
    x = array_arg(x)
    diagonal = int_arg(k, "k")
    if x.ndim < 2:
        raise ValueError(f"{name}: x must have at least 2 dimensions, got shape {tuple(x.shape)}")
    shape = tuple(x.shape)
    return await moved_async(
        name, [x], shape, x.dtype,
        lambda ls: [Part(whole(shape), "copy", source=ls[0], dtype=x.dtype, values=(diagonal,),
                         triangle=name)],
        lambda hs: getattr(np, name)(hs[0], diagonal))


async def tril_async(x: Any, /, *, k: Any = 0) -> Array:
    """The lower triangle of x's matrices (its last two axes): elements on and below diagonal k
    kept, the rest zero.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.tril_async(np.ones((2, 3), np.int32)))
    array([[1, 0, 0],
           [1, 1, 0]], dtype=int32)
    """
    return await _triangle_async("tril", x, k)


async def triu_async(x: Any, /, *, k: Any = 0) -> Array:
    """The upper triangle of x's matrices (its last two axes): elements on and above diagonal k
    kept, the rest zero.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.triu_async(np.ones((2, 3), np.int32), k=1))
    array([[0, 1, 1],
           [0, 0, 1]], dtype=int32)
    """
    return await _triangle_async("triu", x, k)


async def meshgrid_async(*arrays: Any, indexing: str = "xy") -> tuple[Array, ...]:
    """Coordinate grids of 1-D arrays: one array per input, each of the grid's shape (lengths in
    input order for indexing "ij"; the first two swapped for "xy", the Cartesian one). On
    GpuArrays, broadcast views.

    >>> import asyncio, numpy as np, pycore
    >>> x, y = np.array([1, 2, 3], np.int32), np.array([4, 5], np.int32)
    >>> xs, ys = asyncio.run(pycore.meshgrid_async(x, y))
    >>> xs.shape, ys[:, 0].tolist()
    ((2, 3), [4, 5])
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    xs = [array_arg(a, f"arrays[{i}]") for i, a in enumerate(arrays)]
    for i, a in enumerate(xs):
        if a.ndim != 1:
            raise ValueError(f"meshgrid: arrays[{i}] must be 1-D, got shape {tuple(a.shape)}")
    shape = [a.shape[0] for a in xs]
    if indexing == "xy" and len(xs) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    out: list[Any] = []
    for i, a in enumerate(xs):
        at = (1 - i if i < 2 else i) if indexing == "xy" and len(xs) > 1 else i
        dims = [1] * len(xs)
        dims[at] = a.shape[0]
        if isinstance(a, GpuArray):
            out.append(a.reshape(dims).broadcast_to(tuple(shape)))
        else:
            out.append(np.broadcast_to(a.reshape(dims), tuple(shape)).copy())
    return tuple(out)


# How each runs for a GPU result (device="gpu", or a GpuArray's *_like): docs/api.md's table.
ON_GPU: dict[str, str] = {
    "asarray": "an upload (a GpuArray input: as it is, or astype's kernel)",
    "from_dlpack": "an upload",
    **{name: "a fill kernel (place.wgsl)" for name in ("zeros", "ones", "empty", "full", "zeros_like",
                                                       "ones_like", "empty_like", "full_like")},
    "arange": "a ramp kernel (place.wgsl)", "linspace": "a ramp kernel (place.wgsl)",
    "eye": "a diagonal kernel (place.wgsl)", "tril": "a masked copy kernel (place.wgsl)",
    "triu": "a masked copy kernel (place.wgsl)", "meshgrid": "views (broadcast), no dispatch",
}


CREATION: dict[str, Callable[..., Any]] = {f.__name__: f for f in (
    asarray_async, from_dlpack_async, zeros_async, ones_async, empty_async, full_async, zeros_like_async,
    ones_like_async, empty_like_async, full_like_async, arange_async, linspace_async, eye_async, tril_async,
    triu_async, meshgrid_async)}
