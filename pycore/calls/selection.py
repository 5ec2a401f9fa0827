"""The Python Array API standard's selection, indexing and cumulative functions, with its names,
parameters and defaults, each as `<name>_async`: where, clip, take, take_along_axis,
cumulative_sum, cumulative_prod, diff, count_nonzero and nonzero.

Where results live, as in pycore/calls/placing.py: a GpuArray when any input is one (computed on
the GPU where it is in GPU memory), else a NumPy array. On the GPU, where, clip and the takes run
the selecting kernels (pycore/kernels/gather.py: one dispatch, each input read through its
strides and broadcast), the cumulative functions the scans (pycore/kernels/scan.py: a multi-pass
reduce-then-scan, no workgroup waiting on another); diff, count_nonzero and nonzero are made of
those and of the element-wise ops and reductions.

Out-of-bounds indices (which the standard leaves unspecified): indices on the host are checked
and raise IndexError; indices already in GPU memory are not read back to check them: the kernel
counts a negative index from the end, as NumPy does, and clamps one still out of range to the
axis (take(x, [7]) on an axis of 3 gives x[2]).

>>> import asyncio, numpy as np, pycore
>>> asyncio.run(pycore.where_async(np.array([True, False]), np.array([1, 2], np.int32), 0))
array([1, 0], dtype=int32)
"""

from __future__ import annotations

import numbers
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pycore.array.dtypes import BOOL, pycore_dtype, scalar_kind, wide
from pycore.array.dtypes import result_type as _promoted
from pycore.array.dtypes import scalar_value as _scalar_value
from pycore.array.layout import Layout, broadcast_shapes, normalize_axes, normalize_axis
from pycore.calls.arguments import array_arg, int_arg
from pycore.calls.gpuarray import (
    GpuArray,
    complex_view,
    host_pairs,
    narrowed_async,
    storage_of,
    widened_async,
)
from pycore.calls.manipulation import concat_async
from pycore.calls.nd import reduce_async, ufunc_async
from pycore.calls.placing import host_values, on_gpu, result_async
from pycore.engine.executor import facts, planned, run_plans_async
from pycore.engine.runtime import RUNTIME
from pycore.kernels.elementwise import Call, Expr, Operand, plan_expr
from pycore.kernels.gather import View, plan_select
from pycore.kernels.plan import SUFFIX, Plan, word_of
from pycore.kernels.scan import plan_scan
from pycore.tables.ufuncs import REDUCTIONS, UFUNCS

Array = Any  # a GpuArray or a NumPy array (array-likes are taken where an array is)


# ---------------------------------------------------------------- running a plan


def _layout(x: Any) -> Layout:
    return x.layout if isinstance(x, GpuArray) else Layout.contiguous(tuple(np.shape(x)))


def _spread(layout: Layout, shape: tuple[int, ...]) -> Layout:
    """`layout` broadcast to `shape` (new leading axes and axes of length 1 read with stride 0)."""
    lead = len(shape) - layout.ndim
    strides = [0] * lead + [
        0 if n == 1 and m != 1 else s
        for n, m, s in zip(layout.shape, shape[lead:], layout.strides, strict=True)
    ]
    return Layout(tuple(shape), tuple(strides), layout.offset)


async def _planned_async(
    name: str, key: tuple, make: Callable[[list[Layout]], Plan], xs: Sequence[Any]
) -> GpuArray:
    """Run the plan `make(layouts of xs)` (cached by `key` and the layouts) on xs: GpuArrays where
    they are, host arrays (and host-held GpuArrays) uploaded; its output as a new GpuArray."""
    start = time.perf_counter()
    await RUNTIME.init_async()
    device = RUNTIME.device
    assert device is not None
    inputs = [np.asarray(x._host) if isinstance(x, GpuArray) and x._buffer is None else x for x in xs]
    layouts = [_layout(x) for x in inputs]
    f = facts(device)
    dtypes = tuple(x.dtype for x in inputs)
    plan = planned((name, *key, *layouts, dtypes, f), lambda: make(layouts))
    bound = [
        (*x.binding(), x.checks) if isinstance(x, GpuArray) else storage_of(np.asarray(x)) for x in inputs
    ]
    buf, checks, stages = await run_plans_async(device, name, [(plan, bound)], keep=True)
    ms = {k: v * 1e3 for k, v in stages.items()}
    ms["python"] = (time.perf_counter() - start) * 1e3 - sum(ms.values())
    RUNTIME.record(
        {
            "op": name,
            "shapes": [tuple(np.shape(x)) if not isinstance(x, GpuArray) else x.shape for x in inputs],
            "backend": "webgpu",
            "why": "a GpuArray input",
            "ms": ms,
            "total_ms": sum(ms.values()),
        }
    )
    spec = plan.outputs[0]
    return GpuArray(spec.shape, buffer=buf, checks=checks, device=device, dtype=spec.dtype)


async def _pairs_async(x: Any) -> Any:
    """An array's values as complex64 float32 pairs (*shape, 2): a view of a complex64 GpuArray,
    a real one converted first; a NumPy array's as a new array."""
    if isinstance(x, GpuArray):
        return (x if x.dtype.kind == "c" else await x.astype_async(np.complex64)).pairs()
    return host_pairs(np.asarray(x))


def _scalar(value: Any) -> bool:
    return not isinstance(value, (GpuArray, np.ndarray, np.generic)) and scalar_kind(value) is not None


def _shape_of(name: str, *xs: Any) -> tuple[int, ...]:
    try:
        return broadcast_shapes(*[tuple(x.shape) for x in xs])
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None


# ---------------------------------------------------------------- where, clip


async def where_async(condition: Any, x1: Any, x2: Any, /) -> Array:
    """x1's elements where `condition` (a bool array) is True, x2's elsewhere, all three broadcast
    together; x1 and x2 (one of them may be a Python scalar) promote to the result's dtype.

    >>> import asyncio, numpy as np, pycore
    >>> c = np.array([[True], [False]])
    >>> asyncio.run(pycore.where_async(c, np.array([1.5, 2.5], np.float32), -1))
    array([[ 1.5,  2.5],
           [-1. , -1. ]], dtype=float32)
    """
    cond = array_arg(condition, "condition")
    if cond.dtype != BOOL:
        raise TypeError(f"where: condition must have the bool dtype, got {cond.dtype}")
    if _scalar(x1) and _scalar(x2):
        raise TypeError("where: x1 and x2 are both Python scalars; at least one must be an array")
    a = x1 if _scalar(x1) else array_arg(x1, "x1")
    b = x2 if _scalar(x2) else array_arg(x2, "x2")
    dtype = _promoted(*[v if _scalar(v) else v.dtype for v in (a, b)])
    a, b = (
        np.array(_scalar_value(v, dtype, n), dtype) if _scalar(v) else v for v, n in ((a, "x1"), (b, "x2"))
    )
    xs = [cond, a, b]
    shape = _shape_of("where", *xs)
    if on_gpu(xs) and 0 not in shape and dtype.kind == "c":  # (the float32 pairs, the condition for both)
        c = cond.expand_dims(-1) if isinstance(cond, GpuArray) else np.expand_dims(cond, -1)
        return complex_view(await where_async(c, await _pairs_async(a), await _pairs_async(b)))
    if on_gpu(xs) and 0 not in shape:
        given = dtype  # (a packed dtype is selected in its 32-bit form, then packed)
        xs, dtype = [await widened_async(x) for x in xs], wide(dtype)
        return await narrowed_async(await _planned_async(
            "where",
            (shape, dtype),
            lambda ls: plan_select(
                "where",
                [View(_spread(lay, shape), x.dtype) for lay, x in zip(ls, xs, strict=True)],
                shape,
                dtype,
                facts(RUNTIME.device),
            ),
            xs,
        ), given)
    hs = [host_values(x) for x in xs]
    value = np.where(hs[0], hs[1].astype(dtype), hs[2].astype(dtype)).astype(dtype)
    return await result_async(np.broadcast_to(value, shape), any(isinstance(x, GpuArray) for x in xs))


async def _clipped_async(x: Any, lo: Any, hi: Any, shape: tuple[int, ...]) -> GpuArray:
    """clip on the GPU: one element-wise kernel (kernels/elementwise.py: maximum with min, then
    minimum with max, in x's 32-bit form, stored in x's dtype), which the queue's fusion can take
    into the work before and after it. Scalar bounds ride in the uniform words."""
    calc = wide(x.dtype)
    suffix = SUFFIX[calc.name]
    bounds = [b for b in (lo, hi) if b is not None]
    scalar = [isinstance(b, np.ndarray) and b.ndim == 0 for b in bounds]
    arrays = [x, *(b for b, s in zip(bounds, scalar, strict=True) if not s)]
    values = tuple((b.dtype.name, word_of(b[()], b.dtype)) for b, s in zip(bounds, scalar, strict=True) if s)

    def make(layouts: list[Layout]) -> Plan:
        at = iter(layouts)
        operands = [Operand(x.dtype, next(at))]
        for b, s in zip(bounds, scalar, strict=True):
            operands.append(Operand(b.dtype, None, b[()]) if s else Operand(b.dtype, next(at)))
        calls: list[Call] = []
        for name, given in (("maximum", lo is not None), ("minimum", hi is not None)):
            if given:  # (the bound first: where it equals x, x is kept, as NumPy's -0.0 clipped to 0.0)
                args = (len(calls) + 1, -len(calls) if calls else 0)
                calls.append(Call(f"{name}_{suffix}", args, calc, calc))
        if not calls:
            calls.append(Call(f"copy_{suffix}", (0,), calc, calc))
        last = calls[-1]
        calls[-1] = Call(last.function, last.args, calc, x.dtype)  # (stored in x's dtype)
        return plan_expr(Expr(tuple(operands), tuple(calls), shape), facts(RUNTIME.device))

    return await _planned_async("clip", (shape, lo is not None, hi is not None, values), make, arrays)


def _bound(value: Any, x: Any, name: str) -> Any:
    """clip's min or max: None, an array (converted to x's dtype on the way), or a Python scalar
    (as a 0-d array of x's dtype; an integer past the dtype's range is the range's end)."""
    if value is None:
        return None
    if _scalar(value):
        if isinstance(value, bool):
            raise TypeError(f"clip: {name} must be a number or an array, got bool {value!r}")
        if x.dtype.kind in "iu":
            if not isinstance(value, numbers.Integral):
                raise TypeError(f"clip: {name} must be an integer for x of dtype {x.dtype}, got {value!r}")
            info = np.iinfo(x.dtype)
            return np.array(min(max(int(value), int(info.min)), int(info.max)), x.dtype)
        return np.array(_scalar_value(value, x.dtype, name), x.dtype)
    found = array_arg(value, name)
    kinds = {"b": "bool", "i": "integer", "u": "integer", "f": "floating-point"}
    if kinds[found.dtype.kind] != kinds[x.dtype.kind]:
        raise TypeError(f"clip: {name} of dtype {found.dtype} does not match x's dtype {x.dtype} in kind")
    return found


async def clip_async(x: Any, /, min: Any = None, max: Any = None, *, backend: str = "auto") -> Array:  # noqa: A002
    """x's elements limited to [min, max] (each a Python scalar, an array broadcasting with x, or
    None: no limit), in x's dtype: raised to min, then lowered to max (where min > max, max). A
    NaN in x, min or max gives NaN. Scalar bounds must have min <= max (ValueError if not).
    backend: "auto" (the GPU where an input is a GpuArray in GPU memory), "gpu" or "numpy".

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.clip_async([-2.0, 0.5, 3.0], 0.0, 1.0))
    array([0. , 0.5, 1. ], dtype=float32)
    """
    if backend not in ("auto", "gpu", "numpy"):
        raise ValueError(f"clip: backend must be one of 'auto', 'gpu', 'numpy', got {backend!r}")
    x = array_arg(x)
    if x.dtype == BOOL:
        raise TypeError("clip: x must have a numeric dtype, got bool")
    if (
        _scalar(min)
        and _scalar(max)
        and not isinstance(min, bool)
        and not isinstance(max, bool)
        and min > max
    ):
        raise ValueError(f"clip: min ({min}) is greater than max ({max})")
    lo, hi = _bound(min, x, "min"), _bound(max, x, "max")
    xs = [x] + [v for v in (lo, hi) if v is not None]
    shape = _shape_of("clip", *xs)
    dtype = x.dtype
    if backend == "gpu":
        await RUNTIME.init_async()
        if RUNTIME.device is None:
            raise RuntimeError(f"clip: backend='gpu' asked for, but there is no WebGPU device: "
                               f"{RUNTIME.reason}")
    gpu = backend == "gpu" or (backend == "auto" and on_gpu(xs))
    if gpu and 0 not in shape:
        out = await _clipped_async(x, lo, hi, shape)
        return out if any(isinstance(v, GpuArray) for v in xs) else await out.to_numpy_async()
    value = await _host_async(x)
    with np.errstate(all="ignore"):
        if lo is not None:
            value = np.maximum(value, (await _host_async(lo)).astype(dtype))
        if hi is not None:
            value = np.minimum(value, (await _host_async(hi)).astype(dtype))
    value = np.broadcast_to(value, shape).astype(dtype)
    return await result_async(value, any(isinstance(v, GpuArray) for v in xs))


async def _host_async(x: Any) -> np.ndarray:
    """A host array's values, or a GpuArray's (read from the GPU where it lives there)."""
    return await x.to_numpy_async() if isinstance(x, GpuArray) else np.asarray(x)


# ---------------------------------------------------------------- take, take_along_axis


def _indices(indices: Any, fn: str) -> GpuArray | np.ndarray:
    found = array_arg(indices, "indices")
    if found.dtype.kind not in "iu":
        raise TypeError(f"{fn}: indices must have an integer dtype (int32 or uint32), got {found.dtype}")
    return found


def _check_bounds(fn: str, indices: Any, n: int, axis: int) -> None:
    """IndexError for host indices out of [-n, n) (indices in GPU memory are clamped instead)."""
    if isinstance(indices, GpuArray) and indices._buffer is not None and indices.device == "webgpu":
        if n == 0 and indices.size:
            raise IndexError(f"{fn}: cannot take from axis {axis} of length 0")
        return
    h = host_values(indices)
    if h.size and (int(h.max()) >= n or int(h.min()) < -n):
        bad = int(h.max()) if int(h.max()) >= n else int(h.min())
        raise IndexError(f"{fn}: index {bad} is out of bounds for axis {axis} with size {n}")


async def take_async(x: Any, indices: Any, /, *, axis: Any = None) -> Array:
    """The elements of x at `indices` (an integer array; negative ones count from the end) along
    `axis` (None: x must be 1-D): the result has x's axes with `axis` replaced by indices' axes.
    Host indices out of range raise IndexError; GPU indices are clamped (see the module's doc).

    >>> import asyncio, numpy as np, pycore
    >>> x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    >>> asyncio.run(pycore.take_async(x, np.array([2, -3], np.int32), axis=1))
    array([[3, 1],
           [6, 4]], dtype=int32)
    """
    x = array_arg(x)
    idx = _indices(indices, "take")
    if axis is None:
        if x.ndim != 1:
            raise ValueError(
                f"take: axis must be given for x of {x.ndim} dimensions (shape {tuple(x.shape)})"
            )
        axis = 0
    if x.ndim == 0:
        raise ValueError("take: x must have at least 1 dimension, got a 0-d array")
    a = normalize_axis(int_arg(axis, "axis"), x.ndim)
    n = x.shape[a]
    _check_bounds("take", idx, n, a)
    shape = (*x.shape[:a], *idx.shape, *x.shape[a + 1 :])
    xs = [x, idx]
    if on_gpu(xs) and 0 not in shape and x.dtype.kind == "c":  # (the float32 pairs along the same axis)
        return complex_view(await take_async(await _pairs_async(x), idx, axis=a))
    if on_gpu(xs) and 0 not in shape:
        k, given = idx.ndim, x.dtype
        x = await widened_async(x)  # (gathered in its 32-bit form, then packed)
        xs = [x, idx]

        def make(ls: list[Layout]) -> Plan:
            xl, il = ls
            x_view = Layout(shape, (*xl.strides[:a], *([0] * k), *xl.strides[a + 1 :]), xl.offset)
            i_view = Layout(shape, (*([0] * a), *il.strides, *([0] * (x.ndim - a - 1))), il.offset)
            return plan_select(
                "gather",
                [View(x_view, x.dtype), View(i_view, idx.dtype)],
                shape,
                x.dtype,
                facts(RUNTIME.device),
                axis=(n, xl.strides[a]),
            )

        return await narrowed_async(await _planned_async("take", (a,), make, xs), given)
    value = (
        np.take(host_values(x), host_values(idx).astype(np.int64), axis=a)
        if 0 not in shape
        else np.empty(shape, x.dtype)
    )
    return await result_async(value, any(isinstance(v, GpuArray) for v in xs))


async def take_along_axis_async(x: Any, indices: Any, /, *, axis: Any = -1) -> Array:
    """The elements of x at `indices` along `axis`, position by position: indices has x's number of
    dimensions, and its other axes broadcast with x's; the result has indices' length along axis.

    >>> import asyncio, numpy as np, pycore
    >>> x = np.array([[10, 30, 20], [60, 40, 50]], np.int32)
    >>> asyncio.run(pycore.take_along_axis_async(x, np.array([[0, 2], [1, 1]], np.int32), axis=1))
    array([[10, 20],
           [40, 40]], dtype=int32)
    """
    x = array_arg(x)
    idx = _indices(indices, "take_along_axis")
    if x.ndim == 0:
        raise ValueError("take_along_axis: x must have at least 1 dimension, got a 0-d array")
    if idx.ndim != x.ndim:
        raise ValueError(
            f"take_along_axis: indices must have x's {x.ndim} dimensions, got shape {tuple(idx.shape)}"
        )
    a = normalize_axis(int_arg(axis, "axis"), x.ndim)
    n = x.shape[a]
    try:
        others = broadcast_shapes(
            *[tuple(1 if d == a else m for d, m in enumerate(v.shape)) for v in (x, idx)]
        )
    except ValueError as exc:
        raise ValueError(
            f"take_along_axis: x's and indices' axes other than {a} do not broadcast ({exc})"
        ) from None
    shape = tuple(idx.shape[a] if d == a else m for d, m in enumerate(others))
    _check_bounds("take_along_axis", idx, n, a)
    xs = [x, idx]
    if on_gpu(xs) and 0 not in shape and x.dtype.kind == "c":  # (the float32 pairs, each index for both)
        i2 = idx.expand_dims(-1) if isinstance(idx, GpuArray) else np.expand_dims(idx, -1)
        return complex_view(await take_along_axis_async(await _pairs_async(x), i2, axis=a))
    if on_gpu(xs) and 0 not in shape:
        given = x.dtype
        x = await widened_async(x)  # (gathered in its 32-bit form, then packed)
        xs = [x, idx]

        def make(ls: list[Layout]) -> Plan:
            xl, il = ls
            flat = Layout(tuple(1 if d == a else m for d, m in enumerate(xl.shape)), xl.strides, xl.offset)
            return plan_select(
                "gather",
                [View(_spread(flat, shape), x.dtype), View(_spread(il, shape), idx.dtype)],
                shape,
                x.dtype,
                facts(RUNTIME.device),
                axis=(n, xl.strides[a]),
            )

        return await narrowed_async(await _planned_async("take_along_axis", (a, shape), make, xs), given)
    if 0 not in shape:
        hx = np.broadcast_to(host_values(x), tuple(n if d == a else m for d, m in enumerate(shape)))
        value = np.take_along_axis(hx, np.broadcast_to(host_values(idx).astype(np.int64), shape), axis=a)
    else:
        value = np.empty(shape, x.dtype)
    return await result_async(value, any(isinstance(v, GpuArray) for v in xs))


# ---------------------------------------------------------------- cumulative_sum, cumulative_prod


async def _cumulative_async(op: str, x: Any, axis: Any, dtype: Any, include_initial: Any) -> Array:
    fn = f"cumulative_{op}"
    x = array_arg(x)
    if x.dtype == BOOL:
        raise TypeError(f"{fn}: x must have a numeric dtype, got bool")
    found = REDUCTIONS["sum"].result_dtype(x.dtype) if dtype is None else pycore_dtype(dtype, "dtype")
    if found == BOOL:
        raise TypeError(f"{fn}: dtype must be a numeric dtype, got bool")
    if not isinstance(include_initial, (bool, np.bool_)):
        raise TypeError(f"{fn}: include_initial must be True or False, got {include_initial!r}")
    incl = bool(include_initial)
    if axis is None:
        if x.ndim > 1:
            raise ValueError(
                f"{fn}: axis must be given for x of {x.ndim} dimensions (shape {tuple(x.shape)})"
            )
        if x.ndim == 0:
            x = x.reshape((1,))
        a = 0
    else:
        a = normalize_axis(int_arg(axis, "axis"), x.ndim)
    shape = tuple(x.shape)
    out_shape = tuple(m + incl if d == a else m for d, m in enumerate(shape))
    if (x.dtype.kind == "c") != (found.kind == "c"):
        raise TypeError(f"{fn}: dtype {found} does not hold the sums of {x.dtype} values")
    if on_gpu([x]) and 0 not in shape:  # (complex64: vec2s; anything else in 32 bits)
        x = await widened_async(x)  # (scanned in 32 bits; a packed result is packed after)
        return await narrowed_async(await _planned_async(
            fn,
            (a, wide(found), incl),
            lambda ls: plan_scan(op, ls[0], a, x.dtype, wide(found), incl, facts(RUNTIME.device)),
            [x],
        ), found)
    numpy = np.cumulative_sum if op == "sum" else np.cumulative_prod
    with np.errstate(all="ignore"):
        calc = wide(found)  # (as the GPU: in 32 bits, each result rounded once)
        value = numpy(host_values(x).astype(calc), axis=a, dtype=calc, include_initial=incl).astype(found)
    return await result_async(value.reshape(out_shape), isinstance(x, GpuArray))


async def cumulative_sum_async(
    x: Any, /, *, axis: Any = None, dtype: Any = None, include_initial: Any = False
) -> Array:
    """The cumulative sums of x along `axis` (None: x must be 1-D, or 0-d), in `dtype` (x's unless
    given; integers wrap); include_initial: each row starts with 0 (the axis one longer). On the
    GPU, float32 sums are summed as a tree within blocks of 2048 elements (1024 complex64 ones) and
    over the blocks: the error grows with log(n), to within about (log2(n) + 16) float32 ULPs of
    the sums of |x|.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.cumulative_sum_async(np.array([[1, 2, 3], [4, 5, 6]], np.int32), axis=1))
    array([[ 1,  3,  6],
           [ 4,  9, 15]], dtype=int32)
    """
    return await _cumulative_async("sum", x, axis, dtype, include_initial)


async def cumulative_prod_async(
    x: Any, /, *, axis: Any = None, dtype: Any = None, include_initial: Any = False
) -> Array:
    """The cumulative products of x along `axis` (None: x must be 1-D, or 0-d), in `dtype` (x's
    unless given; integers wrap); include_initial: each row starts with 1 (the axis one longer).

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.cumulative_prod_async(np.array([1.0, 2.0, 3.0], np.float32), include_initial=True))
    array([1., 1., 2., 6.], dtype=float32)
    """
    return await _cumulative_async("prod", x, axis, dtype, include_initial)


# ---------------------------------------------------------------- diff, count_nonzero


async def diff_async(
    x: Any, /, *, axis: Any = -1, n: Any = 1, prepend: Any = None, append: Any = None
) -> Array:
    """The n-th differences of x along `axis` (x[1:] - x[:-1], n times), after joining `prepend`
    and `append` (arrays of x's shape but along axis, or Python scalars: one element) to x along
    it; the axis n shorter (none left: empty). Integers wrap.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.diff_async(np.array([1, 4, 9, 16], np.int32), prepend=0))
    array([1, 3, 5, 7], dtype=int32)
    """
    x = array_arg(x)
    if x.dtype == BOOL:
        raise TypeError("diff: x must have a numeric dtype, got bool")
    if x.ndim == 0:
        raise ValueError("diff: x must have at least 1 dimension, got a 0-d array")
    a = normalize_axis(int_arg(axis, "axis"), x.ndim)
    times = int_arg(n, "n", 0)
    parts: list[Any] = []
    for value, name in ((prepend, "prepend"), (x, "x"), (append, "append")):
        if value is None:
            continue
        if name != "x" and _scalar(value):
            dt = _promoted(x.dtype, value)
            one = np.full(
                tuple(1 if d == a else m for d, m in enumerate(x.shape)), _scalar_value(value, dt, name), dt
            )
            parts.append(one)
            continue
        found = value if name == "x" else array_arg(value, name)
        if found.dtype == BOOL:
            raise TypeError(f"diff: {name} must have a numeric dtype, got bool")
        parts.append(found)
    y = parts[0] if len(parts) == 1 else await concat_async(parts, axis=a)
    subtract = UFUNCS["subtract"]
    for _ in range(times):
        m = y.shape[a]
        if m == 0:
            break
        head = (slice(None),) * a
        y = await ufunc_async(subtract, (y[(*head, slice(1, None))], y[(*head, slice(None, m - 1))]))
    return y


async def count_nonzero_async(x: Any, /, *, axis: Any = None, keepdims: Any = False) -> Any:
    """How many elements of x are nonzero (True; NaN counts, -0.0 does not) along `axis` (an int,
    a tuple, or None: every axis), as int32: a Python int when every axis is counted without
    keepdims (as pycore's reductions give), else an array (a GpuArray for a GpuArray input).

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.count_nonzero_async(np.array([[0, 1, 2], [0, 0, 3]], np.int32), axis=1))
    array([2, 1], dtype=int32)
    """
    x = array_arg(x)
    if not isinstance(keepdims, (bool, np.bool_)):
        raise TypeError(f"count_nonzero: keepdims must be True or False, got {keepdims!r}")
    normalize_axes(tuple(axis) if isinstance(axis, (tuple, list)) else axis, x.ndim)
    mask = x if x.dtype == BOOL else await ufunc_async(UFUNCS["not_equal"], (x, 0))
    return await reduce_async(REDUCTIONS["sum"], mask, axis, bool(keepdims), "auto")


# ---------------------------------------------------------------- the public names

# How each runs on GpuArrays: docs/api.md's table.
ON_GPU: dict[str, str] = {
    "where": "a select kernel (gather.wgsl)", "clip": "a clip kernel (gather.wgsl)",
    "take": "a gather kernel (gather.wgsl)", "take_along_axis": "a gather kernel (gather.wgsl)",
    "cumulative_sum": "a scan: block totals, their scan, the blocks (scan.wgsl)",
    "cumulative_prod": "a scan: block totals, their scan, the blocks (scan.wgsl)",
    "diff": "concat's kernels, then subtract's", "count_nonzero": "not_equal's kernel, then a sum",
}


SELPUBLIC: dict[str, Callable[..., Any]] = {
    f.__name__: f
    for f in (
        where_async,
        clip_async,
        take_async,
        take_along_axis_async,
        cumulative_sum_async,
        cumulative_prod_async,
        diff_async,
        count_nonzero_async,
    )
}
for _f in SELPUBLIC.values():
    _f.__module__ = "pycore"
