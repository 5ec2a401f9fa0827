"""The Python Array API standard's creation, manipulation and data-type functions, with its names,
parameters and defaults, each as `<name>_async` (the data-type functions are plain functions).

Where results live: a function of arrays returns a GpuArray when any input is one and a NumPy array
otherwise. A creation function's `device=` says where: None or "cpu" a NumPy array, "gpu" (or
"webgpu", a GpuArray's device) a GpuArray filled on the GPU (held on the host where there is no
WebGPU, as to_gpu_async does); a `*_like` function's device is its input's unless given.

On GpuArrays, the functions that only rearrange elements (permute_dims, matrix_transpose,
expand_dims, squeeze, broadcast_to, broadcast_arrays, moveaxis, flip, unstack, meshgrid, and
reshape where the strides allow) return views: no copy, no dispatch. The others run the placing
kernels (pycore/kernels/place.py): one dispatch per region of the output, each copying an input
view into it, filling it with a value or a ramp, or writing a diagonal, optionally masked to a
triangle. On host arrays every function is NumPy's.

>>> import asyncio, numpy as np, pycore
>>> asyncio.run(pycore.concat_async([np.array([1, 2], np.int32), np.array([3], np.int32)]))
array([1, 2, 3], dtype=int32)
"""

from __future__ import annotations

import inspect
import math
import numbers
import operator
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pycore.array.dtypes import BOOL, FLOAT32, INT32, UINT32, as_array, pycore_dtype
from pycore.array.dtypes import result_type as _promoted
from pycore.array.dtypes import scalar_value as _scalar_value
from pycore.array.layout import Layout, broadcast_shapes, normalize_axes, normalize_axis
from pycore.calls.gpuarray import GpuArray, storage_of, to_gpu_async
from pycore.engine.executor import facts, run_plans_async
from pycore.engine.runtime import RUNTIME
from pycore.kernels.place import Part, plan_place

Array = Any  # a GpuArray or a NumPy array (array-likes are taken where an array is)


# ---------------------------------------------------------------- arguments


def _array(x: Any, name: str = "x") -> GpuArray | np.ndarray:
    """A GpuArray as it is, or anything else as a NumPy array of a pycore dtype."""
    if isinstance(x, GpuArray):
        x.check_usable()
        return x
    return as_array(x, name)


def _arrays(arrays: Any, fn: str) -> list[GpuArray | np.ndarray]:
    if not isinstance(arrays, (tuple, list)):
        raise TypeError(f"{fn}: arrays must be a tuple or list of arrays, got {type(arrays).__name__}")
    if not arrays:
        raise ValueError(f"{fn}: arrays must hold at least one array")
    return [_array(a, f"arrays[{i}]") for i, a in enumerate(arrays)]


def _int(value: Any, name: str, low: int | None = None) -> int:
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an int, got bool {value!r}")
    try:
        n = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}") from None
    if low is not None and n < low:
        raise ValueError(f"{name} must be >= {low}, got {n}")
    return n


def _shape(shape: Any, name: str = "shape") -> tuple[int, ...]:
    """A shape: an int or a sequence of ints >= 0."""
    if isinstance(shape, (tuple, list)):
        return tuple(_int(n, f"{name}[{i}]", 0) for i, n in enumerate(shape))
    return (_int(shape, name, 0),)


def _dtype(dtype: Any, default: np.dtype) -> np.dtype:
    return default if dtype is None else pycore_dtype(dtype, "dtype")


DEVICES = ("cpu", "gpu")


def _device(device: Any) -> str | None:
    """None, "cpu" or "gpu" ("webgpu" and "numpy", a GpuArray's devices, stand for "gpu")."""
    if device is None or device == "cpu":
        return device
    if device in ("gpu", "webgpu", "numpy"):
        return "gpu"
    raise ValueError(f"device must be None, 'cpu' or 'gpu', got {device!r}")


def _where(x: Any, device: Any) -> str:
    """Where a function of `x` puts its result: the device asked for, else x's."""
    found = _device(device)
    if found is not None:
        return found
    return "gpu" if isinstance(x, GpuArray) else "cpu"


def _on_gpu(xs: Sequence[Any]) -> bool:
    """Whether a function of these inputs runs its kernels: one of them is a GpuArray in GPU memory."""
    return RUNTIME.device is not None and any(isinstance(x, GpuArray) and x._buffer is not None for x in xs)


def _host(x: Any) -> np.ndarray:
    """A NumPy array's or a host-held GpuArray's values (a GpuArray held on the host)."""
    if isinstance(x, GpuArray):
        assert x._host is not None
        return x._host
    return np.asarray(x)


# ---------------------------------------------------------------- running a plan


async def _placed_async(name: str, parts: Callable[[list[Layout]], list[Part]], xs: Sequence[Any],
                        shape: tuple[int, ...], dtype: np.dtype) -> GpuArray:
    """Run the parts `parts(layouts of xs)` (on GpuArrays, host arrays uploaded) into a new GpuArray."""
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


async def _result_async(value: np.ndarray, gpu: bool) -> Any:
    """A NumPy result, uploaded (or held on the host where there is no WebGPU) when `gpu`."""
    value = np.asarray(value, order="C")
    return await to_gpu_async(value) if gpu else value


async def _moved_async(name: str, xs: Sequence[Any], shape: tuple[int, ...], dtype: np.dtype,
                       parts: Callable[[list[Layout]], list[Part]],
                       numpy: Callable[[list[np.ndarray]], np.ndarray]) -> Any:
    """A function of arrays `xs` whose result (`shape`, `dtype`) is made of regions: on the GPU
    where an input is a GpuArray in GPU memory, else NumPy's (`numpy` of the host arrays)."""
    if _on_gpu(xs):
        return await _placed_async(name, parts, xs, shape, dtype)
    value = np.asarray(numpy([_host(x) for x in xs])).astype(dtype, copy=False)
    return await _result_async(value, any(isinstance(x, GpuArray) for x in xs))


async def _created_async(name: str, where: str, shape: tuple[int, ...], dtype: np.dtype,
                         parts: Callable[[], list[Part]], numpy: Callable[[], np.ndarray]) -> Any:
    """A creation function's result: filled on the GPU for device "gpu" (where there is one)."""
    if where == "gpu":
        await RUNTIME.init_async()
        if RUNTIME.device is not None:
            return await _placed_async(name, lambda _: parts(), [], shape, dtype)
        return await to_gpu_async(np.asarray(numpy()).astype(dtype, copy=False))
    return np.asarray(np.asarray(numpy()).astype(dtype, copy=False), order="C")


def _whole(shape: tuple[int, ...]) -> Layout:
    return Layout.contiguous(shape)


# ---------------------------------------------------------------- creation


async def asarray_async(obj: Any, /, *, dtype: Any = None, device: Any = None,
                        copy: bool | None = None) -> Array:
    """`obj` (an array, a nested sequence, a Python scalar, a buffer) as an array of `dtype` (pycore's
    dtype for it when None) on `device` (None: where obj is; a NumPy array for anything but a
    GpuArray). copy: True always copies, False never does (ValueError where it would have to).

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.asarray_async([[1, 2], [3, 4]], dtype="float32"))
    array([[1., 2.],
           [3., 4.]], dtype=float32)
    """
    if copy not in (None, True, False):
        raise TypeError(f"asarray: copy must be True, False or None, got {copy!r}")
    want = None if dtype is None else pycore_dtype(dtype, "dtype")
    where = _where(obj, device)
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
    arr = as_array(obj, "obj")
    if want is not None and want != arr.dtype:
        arr = arr.astype(want)
    if where == "gpu":
        if copy is False:
            raise ValueError("asarray: copy=False, but device='gpu' copies a host array to the GPU")
        return await to_gpu_async(arr)
    shares = isinstance(obj, np.ndarray) and np.shares_memory(arr, obj)
    if copy is False and not shares:
        raise ValueError(f"asarray: copy=False, but making an array of {type(obj).__name__} needs a copy")
    if copy and (shares or not isinstance(obj, np.ndarray)):
        return arr.copy() if shares else arr
    return arr


async def zeros_async(shape: Any, *, dtype: Any = None, device: Any = None) -> Array:
    """An array of `shape` filled with zeros (dtype float32 unless given).

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.zeros_async((2, 3), dtype="int32"))
    array([[0, 0, 0],
           [0, 0, 0]], dtype=int32)
    """
    return await full_async(shape, 0, dtype=_dtype(dtype, FLOAT32), device=device)


async def ones_async(shape: Any, *, dtype: Any = None, device: Any = None) -> Array:
    """An array of `shape` filled with ones (dtype float32 unless given).

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.ones_async(3))
    array([1., 1., 1.], dtype=float32)
    """
    return await full_async(shape, 1, dtype=_dtype(dtype, FLOAT32), device=device)


async def empty_async(shape: Any, *, dtype: Any = None, device: Any = None) -> Array:
    """An array of `shape` whose values are unspecified (pycore writes zeros; dtype float32 unless
    given).

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.empty_async((2, 2))).shape
    (2, 2)
    """
    return await full_async(shape, 0, dtype=_dtype(dtype, FLOAT32), device=device)


_KIND_DEFAULT = {"b": BOOL, "i": INT32, "f": FLOAT32}


def _fill_value(value: Any, dtype: Any) -> tuple[Any, np.dtype]:
    if isinstance(value, (bool, np.bool_)):
        kind = "b"
    elif isinstance(value, numbers.Integral):
        kind = "i"
    elif isinstance(value, numbers.Real):
        kind = "f"
    else:
        raise TypeError(f"fill_value must be a bool, int or float, got {type(value).__name__} {value!r}")
    found = _dtype(dtype, _KIND_DEFAULT[kind])
    return _scalar_value(value, found, "fill_value"), found


async def full_async(shape: Any, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Array:
    """An array of `shape` filled with `fill_value` (dtype: given, else bool, int32 or float32 by
    fill_value's kind).

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.full_async((2,), 7))
    array([7, 7], dtype=int32)
    """
    dims = _shape(shape)
    value, found = _fill_value(fill_value, dtype)
    where = _where(None, device)
    return await _created_async("full", where, dims, found,
                                lambda: [Part(_whole(dims), "value", values=(value,))],
                                lambda: np.full(dims, value, found))


def _like(x: Any, dtype: Any, device: Any) -> tuple[tuple[int, ...], np.dtype, Any]:
    x = _array(x)
    return tuple(x.shape), _dtype(dtype, x.dtype), _where(x, device)


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
    found = _dtype(dtype, FLOAT32 if floats else INT32)
    if found == BOOL:
        raise TypeError("arange: dtype bool is not a numeric dtype")
    n = max(0, math.ceil((stop - start) / step)) if floats else len(range(int(start), int(stop), int(step)))
    if found.kind in "iu" and n:
        _scalar_value(start, found, "start")
        _scalar_value(start + (n - 1) * step, found, "stop")
    with np.errstate(over="ignore"):  # (NumPy's: the first two values in the dtype, their difference
        first = found.type(start)  # the step)
        delta = (found.type(start + step) - first if found.kind == "f"
                 else np.array(step % 2**32, np.uint32).view(found)[()])  # (wraps as the kernel's u32/i32 do)
    return await _created_async(
        "arange", _where(None, device), (n,), found,
        lambda: [Part(_whole((n,)), "ramp", values=(first, delta, n, first))],
        lambda: np.arange(start, stop, step, dtype=found if found.kind == "f" else np.int64))


async def linspace_async(start: Any, stop: Any, /, num: Any, *, dtype: Any = None, device: Any = None,
                         endpoint: bool = True) -> Array:
    """`num` evenly spaced float32 values from start to stop (stop included when endpoint).

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.linspace_async(0, 1, 5))
    array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)
    """
    start, stop = _real(start, "start"), _real(stop, "stop")
    n = _int(num, "num", 0)
    if not isinstance(endpoint, (bool, np.bool_)):
        raise TypeError(f"linspace: endpoint must be True or False, got {endpoint!r}")
    found = _dtype(dtype, FLOAT32)
    if found != FLOAT32:
        raise TypeError(f"linspace: dtype must be a floating-point dtype (float32), got {found}")
    div = (n - 1) if endpoint else n
    step = (stop - start) / div if div > 0 else 0.0
    last = n - 1 if endpoint and n > 1 else n
    with np.errstate(over="ignore"):
        values = (np.float32(start), np.float32(step), last, np.float32(stop))
    return await _created_async("linspace", _where(None, device), (n,), found,
                                lambda: [Part(_whole((n,)), "ramp", values=values)],
                                lambda: np.linspace(start, stop, n, endpoint=bool(endpoint)))


async def eye_async(n_rows: Any, n_cols: Any = None, /, *, k: Any = 0, dtype: Any = None,
                    device: Any = None) -> Array:
    """An n_rows x n_cols (n_cols = n_rows when None) array with ones on diagonal k (0: the main
    one, > 0 above it, < 0 below), zeros elsewhere (dtype float32 unless given).

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.eye_async(2, 3, k=1, dtype="int32"))
    array([[0, 1, 0],
           [0, 0, 1]], dtype=int32)
    """
    rows = _int(n_rows, "n_rows", 0)
    cols = rows if n_cols is None else _int(n_cols, "n_cols", 0)
    diagonal = _int(k, "k")
    found = _dtype(dtype, FLOAT32)
    return await _created_async("eye", _where(None, device), (rows, cols), found,
                                lambda: [Part(_whole((rows, cols)), "diagonal", values=(diagonal,))],
                                lambda: np.eye(rows, cols, diagonal, dtype=found))


async def _triangle_async(name: str, x: Any, k: Any) -> Array:
    x = _array(x)
    diagonal = _int(k, "k")
    if x.ndim < 2:
        raise ValueError(f"{name}: x must have at least 2 dimensions, got shape {tuple(x.shape)}")
    shape = tuple(x.shape)
    return await _moved_async(
        name, [x], shape, x.dtype,
        lambda ls: [Part(_whole(shape), "copy", source=ls[0], dtype=x.dtype, values=(diagonal,),
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
    xs = [_array(a, f"arrays[{i}]") for i, a in enumerate(arrays)]
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


# ---------------------------------------------------------------- manipulation


async def reshape_async(x: Any, /, shape: Any, *, copy: bool | None = None) -> Array:
    """x's elements in another shape (one -1 stands for the rest): a view where the strides allow
    it, else a copy (copy=True: always a copy; copy=False: a ValueError where a copy is needed).

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.reshape_async(np.arange(6, dtype=np.int32), (2, -1)))
    array([[0, 1, 2],
           [3, 4, 5]], dtype=int32)
    """
    if copy not in (None, True, False):
        raise TypeError(f"reshape: copy must be True, False or None, got {copy!r}")
    x = _array(x)
    dims = _shape(shape) if not isinstance(shape, (tuple, list)) else tuple(
        _int(n, f"shape[{i}]", -1) for i, n in enumerate(shape))
    if not isinstance(x, GpuArray):
        return np.reshape(x, dims, copy=copy)
    if copy:
        return (await x.copy_async()).reshape(dims)
    if x.layout.reshape(dims) is None:  # (a view whose strides do not allow it; a host-held one too)
        if copy is False:
            raise ValueError(f"reshape: copy=False, but reshaping this view of shape {x.shape} into {dims} "
                             "needs a copy")
        return (await x.copy_async()).reshape(dims)
    return x.reshape(dims)


def permute_dims(x: Any, /, axes: Any) -> Array:
    """x's axes permuted (`axes`: a permutation of 0 ... ndim - 1): a view."""
    x = _array(x)
    if not isinstance(axes, (tuple, list)):
        raise TypeError(f"permute_dims: axes must be a tuple of ints, got {type(axes).__name__}")
    found = tuple(normalize_axis(a, x.ndim, "axes") for a in axes)
    if sorted(found) != list(range(x.ndim)):
        raise ValueError(f"permute_dims: axes {tuple(axes)} is not a permutation of x's {x.ndim} axes")
    return x.transpose(found) if isinstance(x, GpuArray) else np.permute_dims(x, found)


def matrix_transpose(x: Any, /) -> Array:
    """x's matrices (its last two axes) transposed: a view."""
    x = _array(x)
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose: x must have at least 2 dimensions, got shape {tuple(x.shape)}")
    return x.mT if isinstance(x, GpuArray) else np.matrix_transpose(x)


def expand_dims(x: Any, /, axis: Any = 0) -> Array:
    """x with a new axis of length 1 at `axis` (of the result; a tuple: one at each): a view."""
    x = _array(x)
    many = isinstance(axis, (tuple, list))
    ndim = x.ndim + (len(axis) if many else 1)
    axes = normalize_axes(tuple(axis) if many else axis, ndim)
    if not isinstance(x, GpuArray):
        return np.expand_dims(x, axes)
    for a in axes:
        x = x.expand_dims(a)
    return x


def squeeze(x: Any, /, axis: Any) -> Array:
    """x without the axes named (an int or a tuple; each of length 1, else ValueError): a view."""
    x = _array(x)
    axes = normalize_axes(tuple(axis) if isinstance(axis, (tuple, list)) else axis, x.ndim)
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} has length {x.shape[a]}, not 1")
    return x.squeeze(axes) if isinstance(x, GpuArray) else np.squeeze(x, axes)


def broadcast_to(x: Any, /, shape: Any) -> Array:
    """x repeated along axes of length 1 (and new leading ones) to `shape`: a view."""
    x = _array(x)
    dims = _shape(shape)
    try:
        fits = len(dims) >= x.ndim and broadcast_shapes(tuple(x.shape), dims) == dims
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"broadcast_to: x of shape {tuple(x.shape)} does not broadcast to {dims}")
    return x.broadcast_to(dims) if isinstance(x, GpuArray) else np.broadcast_to(x, dims)


def broadcast_arrays(*arrays: Any) -> tuple[Array, ...]:
    """The arrays broadcast to their common shape: views."""
    xs = [_array(a, f"arrays[{i}]") for i, a in enumerate(arrays)]
    try:
        shape = broadcast_shapes(*[tuple(x.shape) for x in xs])
    except ValueError as exc:
        raise ValueError(f"broadcast_arrays: {exc}") from None
    return tuple(broadcast_to(x, shape) for x in xs)


def moveaxis(x: Any, source: Any, destination: Any, /) -> Array:
    """x with axes `source` moved to positions `destination` (ints, or tuples of one length), the
    others in their order: a view."""
    x = _array(x)
    src = list(source) if isinstance(source, (tuple, list)) else [source]
    dst = list(destination) if isinstance(destination, (tuple, list)) else [destination]
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: source {source!r} and destination {destination!r} must name as many "
                         "axes")
    src = [normalize_axis(a, x.ndim, "source") for a in src]
    dst = [normalize_axis(a, x.ndim, "destination") for a in dst]
    for name, axes in (("source", src), ("destination", dst)):
        if len(set(axes)) != len(axes):
            raise ValueError(f"moveaxis: {name} {tuple(axes)} names an axis twice")
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return permute_dims(x, tuple(order))


def flip(x: Any, /, *, axis: Any = None) -> Array:
    """x's elements in reverse order along `axis` (an int, a tuple, or None: every axis): a view."""
    x = _array(x)
    axes = normalize_axes(tuple(axis) if isinstance(axis, (tuple, list)) else axis, x.ndim)
    key = tuple(slice(None, None, -1) if a in axes else slice(None) for a in range(x.ndim))
    return x[key] if isinstance(x, GpuArray) else np.flip(x, axes)


def unstack(x: Any, /, *, axis: Any = 0) -> tuple[Array, ...]:
    """x split along `axis` into its x.shape[axis] slices, each without that axis: views."""
    x = _array(x)
    if x.ndim < 1:
        raise ValueError("unstack: x must have at least 1 dimension, got a 0-d array")
    a = normalize_axis(axis, x.ndim)
    return tuple(x[(slice(None),) * a + (i,)] for i in range(x.shape[a]))


async def concat_async(arrays: Any, /, *, axis: Any = 0) -> Array:
    """The arrays joined along an existing axis (their other lengths equal; axis=None: flattened
    first), in the dtype they promote to.

    >>> import asyncio, numpy as np, pycore
    >>> a, b = np.array([[1, 2]], np.int32), np.array([[3.5, 4]], np.float32)
    >>> asyncio.run(pycore.concat_async([a, b], axis=0))
    array([[1. , 2. ],
           [3.5, 4. ]], dtype=float32)
    """
    xs = _arrays(arrays, "concat")
    dtype = _promoted(*[x.dtype for x in xs])
    if axis is None:
        sizes = [x.size for x in xs]
        shape: tuple[int, ...] = (sum(sizes),)

        def flat(layouts: list[Layout]) -> list[Part]:
            parts, at = [], 0
            for j, (x, layout) in enumerate(zip(xs, layouts, strict=True)):
                parts.append(Part(Layout.contiguous(tuple(x.shape), at), "copy", source=layout, dtype=x.dtype,
                                  index=j))
                at += x.size
            return parts

        return await _moved_async("concat", xs, shape, dtype, flat,
                                  lambda hs: np.concatenate([h.reshape(-1).astype(dtype) for h in hs]))
    for i, x in enumerate(xs):
        if x.ndim == 0:
            raise ValueError(f"concat: arrays[{i}] is 0-d; only arrays of 1 or more dimensions join along "
                             "an axis")
    ndim = xs[0].ndim
    for i, x in enumerate(xs):
        if x.ndim != ndim:
            raise ValueError(f"concat: arrays[{i}] has {x.ndim} dimension(s), arrays[0] has {ndim}")
    a = normalize_axis(axis, ndim)
    for i, x in enumerate(xs):
        if any(n != m for d, (n, m) in enumerate(zip(x.shape, xs[0].shape, strict=True)) if d != a):
            raise ValueError(f"concat: arrays[{i}] of shape {tuple(x.shape)} does not match arrays[0] of "
                             f"shape {tuple(xs[0].shape)} but along axis {a}")
    shape = tuple(sum(x.shape[a] for x in xs) if d == a else n for d, n in enumerate(xs[0].shape))

    def joined(layouts: list[Layout]) -> list[Part]:
        out, parts, at = _whole(shape), [], 0
        for j, (x, layout) in enumerate(zip(xs, layouts, strict=True)):
            key = (slice(None),) * a + (slice(at, at + x.shape[a]),)
            parts.append(Part(out.getitem(key), "copy", source=layout, dtype=x.dtype, index=j))
            at += x.shape[a]
        return parts

    return await _moved_async("concat", xs, shape, dtype, joined,
                              lambda hs: np.concatenate([h.astype(dtype) for h in hs], axis=a))


async def stack_async(arrays: Any, /, *, axis: Any = 0) -> Array:
    """The arrays (of one shape) joined along a new axis at `axis` of the result, in the dtype they
    promote to.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.stack_async([np.array([1, 2], np.int32), np.array([3, 4], np.int32)], axis=1))
    array([[1, 3],
           [2, 4]], dtype=int32)
    """
    xs = _arrays(arrays, "stack")
    dtype = _promoted(*[x.dtype for x in xs])
    for i, x in enumerate(xs):
        if tuple(x.shape) != tuple(xs[0].shape):
            raise ValueError(f"stack: arrays[{i}] of shape {tuple(x.shape)} differs from arrays[0]'s "
                             f"{tuple(xs[0].shape)}")
    a = normalize_axis(axis, xs[0].ndim + 1)
    shape = (*xs[0].shape[:a], len(xs), *xs[0].shape[a:])

    def stacked(layouts: list[Layout]) -> list[Part]:
        out = _whole(shape)
        return [Part(out.getitem((slice(None),) * a + (j,)), "copy", source=layout, dtype=x.dtype, index=j)
                for j, (x, layout) in enumerate(zip(xs, layouts, strict=True))]

    return await _moved_async("stack", xs, shape, dtype, stacked,
                              lambda hs: np.stack([h.astype(dtype) for h in hs], axis=a))


async def roll_async(x: Any, /, shift: Any, *, axis: Any = None) -> Array:
    """x's elements shifted by `shift` along `axis` (ints, or tuples paired up; None: the flattened
    array), those pushed past the end coming back at the start.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.roll_async(np.array([1, 2, 3, 4], np.int32), 1))
    array([4, 1, 2, 3], dtype=int32)
    """
    x = _array(x)
    shape = tuple(x.shape)
    shifts = list(shift) if isinstance(shift, (tuple, list)) else [shift]
    shifts = [_int(s, "shift") for s in shifts]
    if axis is None:
        if len(shifts) != 1:
            raise ValueError(f"roll: with axis=None, shift must be one int, got {shift!r}")
        axes, dims = [0], (x.size,)
    else:
        named = list(axis) if isinstance(axis, (tuple, list)) else [axis]
        if len(shifts) == 1:
            shifts *= len(named)
        if len(shifts) != len(named):
            raise ValueError(f"roll: shift {shift!r} and axis {axis!r} must have one length")
        axes, dims = [normalize_axis(a, x.ndim) for a in named], shape
    total = [0] * len(dims)
    for s, a in zip(shifts, axes, strict=True):
        total[a] += s
    moves = [(a, total[a] % dims[a]) for a in range(len(dims)) if dims[a] and total[a] % dims[a]]

    def rolled(layouts: list[Layout]) -> list[Part]:
        src = layouts[0]
        if axis is None:  # (the flattened array: x's layout flattens, a copy first where it did not)
            flat = src.reshape((x.size,))
            assert flat is not None
            src = flat
        parts = []
        for pieces in _pieces(moves):  # (one piece, a whole copy, where nothing moves)
            out_key, in_key = [slice(None)] * len(dims), [slice(None)] * len(dims)
            for (a, s), wrapped in pieces:
                n = dims[a]
                out_key[a], in_key[a] = ((slice(0, s), slice(n - s, n)) if wrapped
                                         else (slice(s, n), slice(0, n - s)))
            parts.append(Part(_whole(dims).getitem(tuple(out_key)), "copy", source=src.getitem(tuple(in_key)),
                              dtype=x.dtype))
        return parts

    if (axis is None and isinstance(x, GpuArray)
            and x.layout.reshape((x.size,)) is None):
        x = await x.copy_async()  # (a view whose elements do not flatten without a copy)
    result = await _moved_async("roll", [x], dims, x.dtype, rolled,
                                lambda hs: np.roll(hs[0], shifts[0] if axis is None else tuple(shifts),
                                                   axis=None if axis is None else tuple(axes)).reshape(dims))
    return result.reshape(shape)


def _pieces(moves: list[tuple[int, int]]) -> list[list[tuple[tuple[int, int], bool]]]:
    """Every choice of a side (the wrapped start, or the rest) of each rolled axis."""
    found: list[list[tuple[tuple[int, int], bool]]] = [[]]
    for move in moves:
        found = [[*f, (move, side)] for f in found for side in (True, False)]
    return found


async def tile_async(x: Any, repetitions: Any, /) -> Array:
    """x repeated `repetitions[i]` times along each axis i (the shorter of x's shape and
    repetitions padded with leading 1s).

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.tile_async(np.array([[1, 2]], np.int32), (2, 2)))
    array([[1, 2, 1, 2],
           [1, 2, 1, 2]], dtype=int32)
    """
    x = _array(x)
    if not isinstance(repetitions, (tuple, list)):
        raise TypeError(f"tile: repetitions must be a tuple of ints, got {type(repetitions).__name__}")
    reps = [_int(r, f"repetitions[{i}]", 0) for i, r in enumerate(repetitions)]
    ndim = max(x.ndim, len(reps))
    reps = [1] * (ndim - len(reps)) + reps
    dims = [1] * (ndim - x.ndim) + list(x.shape)
    shape = tuple(r * n for r, n in zip(reps, dims, strict=True))
    pairs = tuple(v for r, n in zip(reps, dims, strict=True) for v in (r, n))

    def tiled(layouts: list[Layout]) -> list[Part]:
        src = layouts[0]
        strides = [0] * (ndim - x.ndim) + list(src.strides)
        source = Layout(pairs, tuple(v for s in strides for v in (0, s)), src.offset)
        return [Part(_whole(pairs), "copy", source=source, dtype=x.dtype)]

    return await _moved_async("tile", [x], shape, x.dtype, tiled, lambda hs: np.tile(hs[0], reps))


async def repeat_async(x: Any, repeats: Any, /, *, axis: Any = None) -> Array:
    """Each element of x repeated along `axis` (None: of the flattened array): `repeats` times (an
    int), or repeats[i] times for element i (a 1-D integer array of that axis's length, or of 1).

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.repeat_async(np.array([[1, 2], [3, 4]], np.int32), np.array([1, 2]), axis=0))
    array([[1, 2],
           [3, 4],
           [3, 4]], dtype=int32)
    """
    x = _array(x)
    if isinstance(repeats, (GpuArray, np.ndarray, list, tuple)):
        counts = np.asarray(await repeats.to_numpy_async() if isinstance(repeats, GpuArray) else repeats)
        if counts.dtype.kind not in "iu" or counts.ndim != 1:
            raise TypeError(f"repeat: repeats must be an int or a 1-D integer array, got {counts.dtype} of "
                            f"shape {counts.shape}")
    else:
        counts = np.array([_int(repeats, "repeats")])
    if (counts < 0).any():
        raise ValueError("repeat: repeats must be >= 0")
    if axis is None:
        if isinstance(x, GpuArray) and x.layout.reshape((x.size,)) is None:
            x = await x.copy_async()
        x = x.reshape((x.size,))
        a = 0
    else:
        a = normalize_axis(axis, x.ndim)
    n = x.shape[a]
    if counts.size not in (1, n):
        raise ValueError(f"repeat: repeats has {counts.size} entries, axis {a} of x has {n}")
    counts = np.broadcast_to(counts, (n,)).astype(np.int64)
    shape = tuple(int(counts.sum()) if d == a else m for d, m in enumerate(x.shape))
    runs: list[list[int]] = []  # (first element, elements, times each), for runs of equal counts
    for i, c in enumerate(counts.tolist()):
        if runs and runs[-1][2] == c and runs[-1][0] + runs[-1][1] == i:
            runs[-1][1] += 1
        else:
            runs.append([i, 1, c])

    def repeated(layouts: list[Layout]) -> list[Part]:
        src, out = layouts[0], _whole(shape)
        parts, at = [], 0
        for first, length, times in runs:
            if not times:
                continue
            region = out.getitem((slice(None),) * a + (slice(at, at + length * times),))
            st = region.strides[a]
            split = Layout((*region.shape[:a], length, times, *region.shape[a + 1:]),
                           (*region.strides[:a], st * times, st, *region.strides[a + 1:]), region.offset)
            part = src.getitem((slice(None),) * a + (slice(first, first + length),))
            source = Layout(split.shape, (*part.strides[:a], part.strides[a], 0, *part.strides[a + 1:]),
                            part.offset)
            parts.append(Part(split, "copy", source=source, dtype=x.dtype))
            at += length * times
        return parts

    return await _moved_async("repeat", [x], shape, x.dtype, repeated,
                              lambda hs: np.repeat(hs[0], counts, axis=a))


async def astype_async(x: Any, dtype: Any, /, *, copy: bool = True, device: Any = None) -> Array:
    """x converted to `dtype` (floats to ints truncate, nonzero is True): a new array unless copy is
    False and x already has that dtype (and device).

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.astype_async(np.array([1.7, -0.5, 0], np.float32), "int32"))
    array([1, 0, 0], dtype=int32)
    """
    x = _array(x)
    found = pycore_dtype(dtype, "dtype")
    if not isinstance(copy, (bool, np.bool_)):
        raise TypeError(f"astype: copy must be True or False, got {copy!r}")
    where = _where(x, device)
    if isinstance(x, GpuArray):
        if where == "cpu":
            return (await x.to_numpy_async()).astype(found)
        return x if not copy and found == x.dtype else await x.astype_async(found)
    if where == "gpu":
        return await to_gpu_async(x.astype(found))
    return x.astype(found, copy=bool(copy))


# ---------------------------------------------------------------- data types


def _dtype_of(x: Any, name: str) -> np.dtype:
    if isinstance(x, (GpuArray, np.ndarray)):
        return pycore_dtype(x.dtype, name)
    return pycore_dtype(x, name)


def result_type(*arrays_and_dtypes: Any) -> np.dtype:
    """The dtype arrays and dtypes (and Python scalars, weakly) promote to, by pycore's rules.

    >>> import pycore
    >>> pycore.result_type(pycore.int32, pycore.float32), pycore.result_type(pycore.uint32, 7)
    (dtype('float32'), dtype('uint32'))
    """
    if not arrays_and_dtypes:
        raise ValueError("result_type: at least one array or dtype is needed")
    found: list[Any] = []
    for i, a in enumerate(arrays_and_dtypes):
        if isinstance(a, (bool, int, float)) and not isinstance(a, np.generic):
            found.append(a)
        else:
            found.append(_dtype_of(a, f"arrays_and_dtypes[{i}]"))
    if all(not isinstance(f, np.dtype) for f in found):
        raise ValueError("result_type: at least one array or dtype is needed (Python scalars alone have "
                         "none)")
    return _promoted(*found)



def can_cast(from_: Any, to: Any, /) -> bool:
    """Whether `from_` (a dtype, or an array's) can be cast to `to` by the standard's type promotion
    rules, which join two dtypes only within a kind, at the wider one: among pycore's dtypes (each
    the only one of its width) that is the same dtype (bool to int32 or int32 to float32 is False,
    as array_api_strict says).

    >>> import pycore
    >>> pycore.can_cast(pycore.int32, pycore.int32), pycore.can_cast(pycore.bool, pycore.int32)
    (True, False)
    """
    return bool(_dtype_of(from_, "from_") == pycore_dtype(to, "to"))


KINDS = {"bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
         "real floating": "f", "complex floating": "c", "numeric": "iuf"}


def isdtype(dtype: Any, kind: Any) -> bool:
    """Whether `dtype` is of `kind`: a dtype, a kind name ("bool", "signed integer", "unsigned
    integer", "integral", "real floating", "complex floating", "numeric"), or a tuple of them.

    >>> import pycore
    >>> pycore.isdtype(pycore.uint32, "integral"), pycore.isdtype(pycore.float32, ("bool", "numeric"))
    (True, True)
    """
    found = pycore_dtype(dtype, "dtype")
    if isinstance(kind, tuple):
        return any(isdtype(found, k) for k in kind)
    if isinstance(kind, str):
        if kind not in KINDS:
            raise ValueError(f"isdtype: kind must be a dtype, one of {', '.join(map(repr, KINDS))}, or a "
                             f"tuple of them; got {kind!r}")
        return found.kind in KINDS[kind]
    return found == pycore_dtype(kind, "kind")


@dataclass(frozen=True)
class FInfo:
    """Machine limits of a floating-point dtype (the Array API's finfo object)."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: np.dtype


@dataclass(frozen=True)
class IInfo:
    """Machine limits of an integer dtype (the Array API's iinfo object)."""

    bits: int
    max: int
    min: int
    dtype: np.dtype


def finfo(type: Any, /) -> FInfo:  # noqa: A002 (the standard's name)
    """The limits of a floating-point dtype (or an array's): bits, eps, max, min, smallest_normal.

    >>> import pycore
    >>> pycore.finfo(pycore.float32).bits, pycore.finfo(pycore.float32).eps
    (32, 1.1920928955078125e-07)
    """
    found = _dtype_of(type, "type")
    if found.kind != "f":
        raise TypeError(f"finfo: type must be a floating-point dtype (float32), got {found}")
    f = np.finfo(found)
    return FInfo(int(f.bits), float(f.eps), float(f.max), float(f.min), float(f.smallest_normal), found)


def iinfo(type: Any, /) -> IInfo:  # noqa: A002 (the standard's name)
    """The limits of an integer dtype (or an array's): bits, max, min.

    >>> import pycore
    >>> pycore.iinfo(pycore.uint32).max, pycore.iinfo(pycore.int32).min
    (4294967295, -2147483648)
    """
    found = _dtype_of(type, "type")
    if found.kind not in "iu":
        raise TypeError(f"iinfo: type must be an integer dtype (int32 or uint32), got {found}")
    i = np.iinfo(found)
    return IInfo(int(i.bits), int(i.max), int(i.min), found)


class Info:
    """The Array API's inspection namespace of pycore (`pycore.__array_namespace_info__()`)."""

    def capabilities(self) -> dict[str, Any]:
        """What pycore supports: no boolean indexing, no data-dependent output shapes."""
        return {"boolean indexing": False, "data-dependent shapes": False, "max dimensions": None}

    def default_device(self) -> str:
        """Where creation functions put their result without device=: "cpu" (a NumPy array)."""
        return "cpu"

    def devices(self) -> list[str]:
        """The devices: "cpu" (NumPy arrays), and "gpu" (GpuArrays) where WebGPU is up."""
        return ["cpu", "gpu"] if RUNTIME.device is not None else ["cpu"]

    def default_dtypes(self, *, device: Any = None) -> dict[str, Any]:
        """The default dtypes: float32 and int32 (pycore has no complex dtype: None)."""
        _device(device)
        return {"real floating": FLOAT32, "complex floating": None, "integral": INT32, "indexing": INT32}

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, np.dtype]:
        """pycore's dtypes by name, those of `kind` (as isdtype takes it) when given."""
        _device(device)
        return {d.name: d for d in (BOOL, INT32, UINT32, FLOAT32) if kind is None or isdtype(d, kind)}


def __array_namespace_info__() -> Info:  # noqa: N807 (the standard's name)
    """The Array API's inspection namespace: capabilities(), default_device(), devices(),
    default_dtypes(), dtypes().

    >>> import pycore
    >>> sorted(pycore.__array_namespace_info__().dtypes())
    ['bool', 'float32', 'int32', 'uint32']
    """
    return Info()



# ---------------------------------------------------------------- the public names

# The view functions' examples (each also `<name>_async`, awaitable for a uniform namespace).
_VIEW_EXAMPLES = {
    "permute_dims": ("pycore.permute_dims(np.zeros((2, 3, 4), np.float32), (2, 0, 1)).shape", "(4, 2, 3)"),
    "matrix_transpose": ("pycore.matrix_transpose(np.zeros((5, 2, 3), np.float32)).shape", "(5, 3, 2)"),
    "expand_dims": ("pycore.expand_dims(np.zeros((2, 3), np.float32), axis=1).shape", "(2, 1, 3)"),
    "squeeze": ("pycore.squeeze(np.zeros((2, 1, 3), np.float32), axis=1).shape", "(2, 3)"),
    "broadcast_to": ("pycore.broadcast_to(np.array([1, 2], np.int32), (2, 2))",
                     "array([[1, 2],\n       [1, 2]], dtype=int32)"),
    "broadcast_arrays": ("[x.shape for x in pycore.broadcast_arrays(np.ones((3, 1), 'f4'), "
                         "np.ones(4, 'f4'))]", "[(3, 4), (3, 4)]"),
    "moveaxis": ("pycore.moveaxis(np.zeros((2, 3, 4), np.float32), 0, -1).shape", "(3, 4, 2)"),
    "flip": ("pycore.flip(np.array([[1, 2], [3, 4]], np.int32), axis=1)",
             "array([[2, 1],\n       [4, 3]], dtype=int32)"),
    "unstack": ("pycore.unstack(np.array([[1, 2], [3, 4]], np.int32), axis=1)[0]",
                "array([1, 3], dtype=int32)"),
}
VIEWS: dict[str, Callable[..., Any]] = {
    "permute_dims": permute_dims, "matrix_transpose": matrix_transpose, "expand_dims": expand_dims,
         "squeeze": squeeze, "broadcast_to": broadcast_to, "broadcast_arrays": broadcast_arrays,
         "moveaxis": moveaxis, "flip": flip, "unstack": unstack}
for _name, _fn in VIEWS.items():
    _expr, _shows = _VIEW_EXAMPLES[_name]
    _fn.__doc__ = (f"{_fn.__doc__}\n\n    >>> import numpy as np, pycore\n    >>> {_expr}\n    "
                   + _shows.replace("\n", "\n    "))


def _awaitable(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """`fn` (a view function: no dispatch) as `<name>_async`, for a namespace of awaitables."""

    async def public(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    expr, shows = _VIEW_EXAMPLES[name]
    summary = (fn.__doc__ or "").split("\n\n")[0]
    call = expr.replace(f"pycore.{name}(", f"asyncio.run(pycore.{name}_async(", 1)
    opened = call.index(f"pycore.{name}_async(") + len(f"pycore.{name}_async(")
    depth, end = 1, opened
    while depth:  # (the closing parenthesis of the call, to close asyncio.run's after it)
        depth += {"(": 1, ")": -1}.get(call[end], 0)
        end += 1
    call = call[:end] + ")" + call[end:]
    public.__name__ = public.__qualname__ = f"{name}_async"
    public.__module__ = "pycore"
    public.__doc__ = (f"{summary} The awaitable form of pycore.{name}.\n\n"
                      f"    >>> import asyncio, numpy as np, pycore\n    >>> {call}\n    "
                      + shows.replace("\n", "\n    "))
    public.__signature__ = inspect.signature(fn)  # type: ignore[attr-defined]
    return public


# The standard's functions that run kernels (or may), as `<name>_async`, then the view functions
# (sync, and `<name>_async`), the data-type functions, the dtypes and the inspection namespace.
KERNELED: dict[str, Callable[..., Any]] = {f.__name__: f for f in (
    asarray_async, zeros_async, ones_async, empty_async, full_async, zeros_like_async, ones_like_async,
    empty_like_async, full_like_async, arange_async, linspace_async, eye_async, tril_async, triu_async,
    meshgrid_async, reshape_async, concat_async, stack_async, roll_async, tile_async, repeat_async,
    astype_async)}
for _f in (*KERNELED.values(), *VIEWS.values(), result_type, can_cast, isdtype, finfo, iinfo,
           __array_namespace_info__):
    _f.__module__ = "pycore"

NSPUBLIC: dict[str, Any] = {
    **KERNELED,
    **{f"{name}_async": _awaitable(fn, name) for name, fn in VIEWS.items()},
    **VIEWS,
    "result_type": result_type, "can_cast": can_cast, "isdtype": isdtype, "finfo": finfo, "iinfo": iinfo,
    "__array_namespace_info__": __array_namespace_info__,
    "float32": FLOAT32, "int32": INT32, "uint32": UINT32, "bool": BOOL,
}
