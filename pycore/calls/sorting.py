"""The Python Array API standard's sorting, searching and set functions, each as `<name>_async`:
sort, argsort, searchsorted, nonzero, isin, unique_values, unique_counts, unique_inverse,
unique_all.

On a GpuArray (in GPU memory) sort and argsort run a stable sort on the GPU (pycore/kernels/sort.py:
a workgroup per row for rows of up to 1024 elements, an LSD radix sort of longer rows), and
searchsorted a binary search per query; their results are GpuArrays. On host arrays they are
NumPy's, with the same results. Indices are int32 (pycore's index dtype). NaN sorts after every
number (first when descending), -0.0 equals +0.0, and every sort is stable, descending ones too:
equal values keep the order they had.

>>> import asyncio, numpy as np, pycore
>>> asyncio.run(pycore.argsort_async(np.array([3, 1, 2, 1], np.int32), descending=True))
array([0, 2, 1, 3], dtype=int32)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from pycore.array.dtypes import BOOL, result_type, scalar_kind, wide
from pycore.array.layout import Layout, normalize_axis
from pycore.calls.arguments import array_arg
from pycore.calls.creation import zeros_async
from pycore.calls.gpuarray import GpuArray, narrowed_async, storage_of, widened_async
from pycore.calls.manipulation import astype_async, reshape_async
from pycore.calls.nd import ufunc_async
from pycore.calls.placing import host_values, on_gpu, result_async
from pycore.calls.selection import count_nonzero_async, take_async
from pycore.engine.executor import facts, planned, run_plans_async
from pycore.engine.runtime import RUNTIME
from pycore.kernels.plan import Plan
from pycore.kernels.sort import plan_search, plan_sort
from pycore.tables.ufuncs import UFUNCS

Array = Any  # a GpuArray or a NumPy array (array-likes are taken where an array is)
INDEX = np.dtype(np.int32)


def _flag(value: Any, name: str, fn: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{fn}: {name} must be a bool, got {type(value).__name__} {value!r}")
    return bool(value)


def _bound(x: GpuArray | np.ndarray) -> Any:
    return (*x.binding(), x.checks) if isinstance(x, GpuArray) else storage_of(np.asarray(x))


async def _run_async(name: str, plan: Plan, xs: list[Any]) -> GpuArray:
    """Run `plan` on `xs` (GpuArrays, host arrays uploaded) into a new GpuArray (its first output)."""
    start = time.perf_counter()
    device = RUNTIME.device
    assert device is not None
    buf, checks, stages = await run_plans_async(device, name, [(plan, [_bound(x) for x in xs])], keep=True)
    ms = {k: v * 1e3 for k, v in stages.items()}
    ms["python"] = (time.perf_counter() - start) * 1e3 - sum(ms.values())
    RUNTIME.record({"op": name, "shapes": [tuple(np.shape(x)) if not isinstance(x, GpuArray) else x.shape
                                           for x in xs], "backend": "webgpu", "why": "a GpuArray input",
                    "ms": ms, "total_ms": sum(ms.values())})
    spec = plan.outputs[0]
    return GpuArray(spec.shape, buffer=buf, checks=checks, device=device, dtype=spec.dtype)


def _layout(x: GpuArray | np.ndarray) -> Layout:
    return x.layout if isinstance(x, GpuArray) else Layout.contiguous(np.shape(x))


def _numpy_argsort(h: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """NumPy's stable argsort; descending: largest first, equal values in their order (NaN first)."""
    if not descending:
        return np.argsort(h, axis=axis, kind="stable").astype(INDEX)
    back = np.flip(np.argsort(np.flip(h, axis), axis=axis, kind="stable"), axis)
    return (h.shape[axis] - 1 - back).astype(INDEX)


async def _sorted_async(fn: str, x: Any, axis: Any, descending: Any, stable: Any, indices: bool) -> Array:
    x = array_arg(x)
    descending = _flag(descending, "descending", fn)
    _flag(stable, "stable", fn)  # (every sort here is stable)
    if x.ndim == 0:
        raise ValueError(f"{fn}: x must have at least one dimension, got a 0-d array")
    ax = normalize_axis(axis, x.ndim)
    out_dtype = INDEX if indices else x.dtype
    if on_gpu([x]) and x.size:
        assert isinstance(x, GpuArray) and RUNTIME.device is not None
        x = await widened_async(x)  # (a packed dtype sorts in its 32-bit form: the same order)
        f = facts(RUNTIME.device)
        layout = x.layout
        key = ("sort", layout, ax, x.dtype.name, descending, indices, f)
        plan = planned(key, lambda: plan_sort(layout, ax, x.dtype, f, descending=descending, indices=indices))
        return await narrowed_async(await _run_async(fn, plan, [x]), out_dtype)
    h = host_values(x)
    order = _numpy_argsort(h, ax, descending)
    value = order if indices else np.take_along_axis(h, order.astype(np.intp), ax)
    return await result_async(value.astype(out_dtype, copy=False), isinstance(x, GpuArray))


async def sort_async(x: Any, /, *, axis: Any = -1, descending: Any = False, stable: Any = True) -> Array:
    """A sorted copy of `x` along `axis`: ascending (NaN last), or descending (NaN first); stable
    (equal values, such as -0.0 and 0.0, keep their order). On a GpuArray a GPU sort.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.sort_async(np.array([[3.0, np.nan, -1.0], [2.0, 0.5, 2.0]], np.float32)))
    array([[-1. ,  3. ,  nan],
           [ 0.5,  2. ,  2. ]], dtype=float32)
    """
    return await _sorted_async("sort", x, axis, descending, stable, indices=False)


async def argsort_async(x: Any, /, *, axis: Any = -1, descending: Any = False, stable: Any = True) -> Array:
    """The indices (int32) that sort `x` along `axis`, as sort_async orders it (stable: equal
    values' indices in increasing order, descending too). On a GpuArray a GPU sort.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.argsort_async(np.array([2.0, np.nan, 1.0, 2.0], np.float32)))
    array([2, 0, 3, 1], dtype=int32)
    """
    return await _sorted_async("argsort", x, axis, descending, stable, indices=True)


async def searchsorted_async(x1: Any, x2: Any, /, *, side: Any = "left", sorter: Any = None) -> Array:
    """The indices (int32, x2's shape) at which inserting x2's values keeps the 1-D `x1` sorted
    (ascending, NaN last; or sorted by the permutation `sorter`): side "left" the first such
    place, "right" the last. On GpuArrays a binary search per value on the GPU.

    >>> import asyncio, numpy as np, pycore
    >>> x1 = np.array([1.0, 2.0, 2.0, 5.0], np.float32)
    >>> asyncio.run(pycore.searchsorted_async(x1, np.array([2.0, 0.0, 9.0], np.float32), side="right"))
    array([3, 0, 4], dtype=int32)
    """
    fn = "searchsorted"
    a, v = array_arg(x1, "x1"), array_arg(x2, "x2")
    if a.ndim != 1:
        raise ValueError(f"{fn}: x1 must be one-dimensional, got shape {a.shape}")
    if side not in ("left", "right"):
        raise ValueError(f"{fn}: side must be 'left' or 'right', got {side!r}")
    s = None
    if sorter is not None:
        s = array_arg(sorter, "sorter")
        if s.dtype.kind not in "iu" or s.shape != a.shape:
            raise ValueError(f"{fn}: sorter must be an integer array of x1's shape {a.shape}, got "
                             f"{s.dtype} {s.shape}")
    dt = result_type(a.dtype, v.dtype)
    if on_gpu([a, v] + ([s] if s is not None else [])) and v.size and a.size:
        assert RUNTIME.device is not None
        dt = wide(dt)  # (a packed dtype is searched in its 32-bit form)
        if a.dtype != dt:
            a = await astype_async(a, dt)
        strided = isinstance(v, GpuArray) and v.layout.strides != Layout.contiguous(v.shape).strides
        if v.dtype != dt or strided:  # (the queries are read in order: a C-ordered copy)
            v = await astype_async(v, dt)
        if s is not None and s.dtype != INDEX:
            s = await astype_async(s, INDEX)
        f = facts(RUNTIME.device)
        la, lv, ls = _layout(a), _layout(v), (_layout(s) if s is not None else None)
        plan = planned(("search", la, lv, ls, dt.name, side, f),
                       lambda: plan_search(la, lv, dt, side, f, ls))
        return await _run_async(fn, plan, [a, v] + ([s] if s is not None else []))
    ha, hv = host_values(a).astype(dt, copy=False), host_values(v).astype(dt, copy=False)
    hs = None if s is None else host_values(s).astype(np.intp)
    found = np.searchsorted(ha, hv, side=side, sorter=hs).astype(INDEX)
    gpu = any(isinstance(t, GpuArray) for t in (a, v, s))
    return await result_async(np.asarray(found).reshape(np.shape(hv)), gpu)


# ---------------------------------------------------------------- unique


class UniqueAllResult(NamedTuple):
    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class UniqueCountsResult(NamedTuple):
    values: Array
    counts: Array


class UniqueInverseResult(NamedTuple):
    values: Array
    inverse_indices: Array


async def _unique_async(x: Any) -> tuple[bool, tuple[int, ...], np.ndarray, np.ndarray, np.ndarray]:
    """(whether x is a GpuArray, its shape, a flag per sorted element: the first of its value, the
    sorted values, the permutation that sorts) of x flattened; the stable sort on the GPU where x
    is there, the rest on the host."""
    x = array_arg(x)
    gpu = isinstance(x, GpuArray)
    flat = await reshape_async(x, (-1,))
    perm = np.asarray(await _value_async(await argsort_async(flat)), np.intp)
    values = host_values(x).reshape(-1)[perm] if not on_gpu([x]) else (
        await _value_async(flat))[perm]
    new = np.ones(values.shape, bool)
    new[1:] = values[1:] != values[:-1]  # (NaN != NaN: each NaN is a value of its own)
    return gpu, x.shape, new, values, perm


async def _value_async(x: Any) -> np.ndarray:
    return await x.to_numpy_async() if isinstance(x, GpuArray) else np.asarray(x)


def _groups(new: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, n)).astype(INDEX)
    return starts, counts


async def _out_async(gpu: bool, *values: np.ndarray) -> tuple[Any, ...]:
    return tuple([await result_async(v, gpu) for v in values])


UNIQUE_NOTE = ("Set functions sort x flattened (stably, on the GPU for a GpuArray), then find the "
               "groups of equal values on the host from the sorted values and the permutation (one "
               "pass: the output's size depends on the data) and upload the results.")


async def unique_values_async(x: Any, /) -> Array:
    """The unique values of `x` (flattened), ascending; each NaN is a value of its own, -0.0 and
    0.0 one value.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.unique_values_async(np.array([[2, 1], [2, 3]], np.int32)))
    array([1, 2, 3], dtype=int32)
    """
    gpu, _, new, values, _ = await _unique_async(x)
    return (await _out_async(gpu, values[new]))[0]


async def unique_counts_async(x: Any, /) -> UniqueCountsResult:
    """The unique values of `x` (flattened, ascending) and how often each occurs (int32).

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.unique_counts_async(np.array([2, 1, 2], np.int32))).counts
    array([1, 2], dtype=int32)
    """
    gpu, _, new, values, _ = await _unique_async(x)
    _, counts = _groups(new, values.size)
    return UniqueCountsResult(*await _out_async(gpu, values[new], counts))


async def unique_inverse_async(x: Any, /) -> UniqueInverseResult:
    """The unique values of `x` (flattened, ascending) and, in x's shape, the index of each
    element's value among them (int32): values[inverse_indices] is x.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.unique_inverse_async(np.array([5, 3, 5], np.int32))).inverse_indices
    array([1, 0, 1], dtype=int32)
    """
    gpu, shape, new, values, perm = await _unique_async(x)
    inverse = np.empty(values.size, INDEX)
    inverse[perm] = np.cumsum(new) - 1
    return UniqueInverseResult(*await _out_async(gpu, values[new], inverse.reshape(shape)))


async def unique_all_async(x: Any, /) -> UniqueAllResult:
    """The unique values of `x` (flattened, ascending), the flat index of each one's first
    occurrence, each element's index among them (x's shape) and each one's count (all int32).

    >>> import asyncio, numpy as np, pycore
    >>> r = asyncio.run(pycore.unique_all_async(np.array([5, 3, 5], np.int32)))
    >>> r.indices, r.counts
    (array([1, 0], dtype=int32), array([1, 2], dtype=int32))
    """
    gpu, shape, new, values, perm = await _unique_async(x)
    starts, counts = _groups(new, values.size)
    inverse = np.empty(values.size, INDEX)
    inverse[perm] = np.cumsum(new) - 1
    return UniqueAllResult(*await _out_async(gpu, values[new], perm[starts].astype(INDEX),
                                             inverse.reshape(shape), counts))


async def nonzero_async(x: Any, /) -> tuple[Array, ...]:
    """The indices of x's nonzero elements (True; NaN counts, -0.0 does not), one int32 array per
    axis, in C order. On a GpuArray on the GPU: the count is read back (the result's size depends
    on it), and a stable argsort of the zero flags puts the nonzero elements' flat indices first,
    in order; their coordinates follow by integer division.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.nonzero_async(np.array([[0, 3], [5, 0]], np.int32)))
    (array([0, 1], dtype=int32), array([1, 0], dtype=int32))
    """
    a = array_arg(x, "x")
    if a.ndim == 0:
        raise ValueError("nonzero: x must have at least one dimension, got a 0-D array")
    if not on_gpu([a]):
        return tuple(np.asarray(i, INDEX) for i in np.nonzero(host_values(a)))
    flat = await reshape_async(a, (-1,))
    zero = await ufunc_async(UFUNCS["equal"], (flat, False if a.dtype == BOOL else 0))
    counted = await count_nonzero_async(await ufunc_async(UFUNCS["logical_not"], (zero,)))
    count = int(await counted.to_numpy_async() if isinstance(counted, GpuArray) else counted)
    if count == 0:
        return tuple([await zeros_async((0,), dtype=INDEX, device="gpu") for _ in a.shape])
    at = (await argsort_async(zero))[:count]  # (False sorts first: the nonzero ones, in order)
    coords = []
    for size in reversed(a.shape[1:]):
        coords.append(await ufunc_async(UFUNCS["remainder"], (at, size)))
        at = await ufunc_async(UFUNCS["floor_divide"], (at, size))
    return (at, *reversed(coords))


async def isin_async(x1: Any, x2: Any, /, *, invert: Any = False) -> Array:
    """Whether each element of x1 equals some element of x2 (bool, x1's shape; NaN equals nothing,
    -0.0 equals 0.0), or is in none of them with `invert`. Both are promoted to one dtype. On
    GpuArrays on the GPU: x2 sorted, a binary search for each element of x1, and the element found
    compared.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.isin_async(np.array([1, 2, 3], np.int32), np.array([3, 1], np.int32)))
    array([ True, False,  True])
    """
    invert = _flag(invert, "invert", "isin")
    if (scalar_kind(x1) is None) != (scalar_kind(x2) is None):  # a Python scalar: weak, as in a ufunc
        scalar, other = (x2, x1) if scalar_kind(x1) is None else (x1, x2)
        array = array_arg(other, "x1" if other is x1 else "x2")
        dtype = result_type(array.dtype, scalar)
        shape = array.shape if other is x1 else ()
        if dtype.kind in "iu" and not np.iinfo(dtype).min <= int(scalar) <= np.iinfo(dtype).max:
            where = "gpu" if isinstance(array, GpuArray) else "cpu"
            none = await zeros_async(shape, dtype=BOOL, device=where)
            return await ufunc_async(UFUNCS["logical_not"], (none,)) if invert else none  # (equal to none)
        value = np.asarray(dtype.type(scalar))
        a, b = (array, value) if other is x1 else (value, array)
    else:
        a, b = array_arg(x1, "x1"), array_arg(x2, "x2")
        dtype = result_type(a.dtype, b.dtype)
    if not on_gpu([a, b]):
        found = np.isin(host_values(a).astype(dtype), host_values(b).astype(dtype), invert=invert)
        return np.asarray(found, BOOL)
    a, b = await astype_async(a, dtype, copy=False), await astype_async(b, dtype, copy=False)
    if b.size == 0:
        none = await zeros_async(a.shape, dtype=BOOL, device="gpu")
        return await ufunc_async(UFUNCS["logical_not"], (none,)) if invert else none
    ordered = await sort_async(await reshape_async(b, (-1,)))
    at = await ufunc_async(UFUNCS["minimum"], (await searchsorted_async(ordered, a), b.size - 1))
    found = await ufunc_async(UFUNCS["equal"], (await take_async(ordered, at), a))
    return await ufunc_async(UFUNCS["logical_not"], (found,)) if invert else found


for _f in (unique_values_async, unique_counts_async, unique_inverse_async, unique_all_async):
    _f.__doc__ = f"{(_f.__doc__ or '').split(chr(10) + chr(10))[0]} {UNIQUE_NOTE}\n\n" + \
        (_f.__doc__ or "").split("\n\n", 1)[1]

# How each runs on GpuArrays: docs/api.md's table.
ON_GPU: dict[str, str] = {
    "sort": "a stable sort: per-row bitonic (rows <= 1024), else an LSD radix sort (sort.wgsl)",
    "argsort": "a stable sort: per-row bitonic (rows <= 1024), else an LSD radix sort (sort.wgsl)",
    "searchsorted": "a binary search per value (search.wgsl)",
    "nonzero": "a count read back, a stable argsort of the zero flags, integer division",
    "isin": "sort of x2, a binary search per element, equal's kernel",
    **{name: "a GPU argsort, the groups found on the host, the results uploaded"
       for name in ("unique_values", "unique_counts", "unique_inverse", "unique_all")},
}


SORTING: dict[str, Callable[..., Any]] = {f.__name__: f for f in (
    sort_async, argsort_async, searchsorted_async, nonzero_async, isin_async, unique_values_async,
    unique_counts_async, unique_inverse_async, unique_all_async)}
for _f in SORTING.values():
    _f.__module__ = "pycore"
for _c in (UniqueAllResult, UniqueCountsResult, UniqueInverseResult):
    _c.__module__ = "pycore"

SORTPUBLIC: dict[str, Any] = dict(SORTING)

__all__ = ["SORTPUBLIC", "UniqueAllResult", "UniqueCountsResult", "UniqueInverseResult", "argsort_async",
           "isin_async", "nonzero_async", "searchsorted_async", "sort_async", "unique_all_async",
           "unique_counts_async", "unique_inverse_async", "unique_values_async"]
