"""The Python Array API standard's linear algebra: `tensordot_async` and `vecdot_async` of the main
namespace, and the `linalg` extension (`pycore.linalg.<name>_async`, its views also plain).

Where each function runs is one table, ROUTES, which explain() answers from too. The ones a GPU
kernel pays for are composed of pycore's n-d calls, so each step runs where backend="auto" puts it:
matmul (batched), tensordot (permuted, reshaped, one matmul), matrix_power (repeated squaring by
matmul), vecdot, outer, cross, trace and the vector and matrix norms (element-wise ops and
reductions; the matrix 2-norms and the nuclear norm need singular values). diagonal and
matrix_transpose are views. The factorizations (det, slogdet, inv, solve, cholesky, qr, svd,
svdvals, eigh, eigvalsh, pinv, matrix_rank) have no GPU kernel: they run on NumPy in float64 and
their results are narrowed to float32.

Results live where the inputs live (a GpuArray for any GpuArray input, else a NumPy array), and a
0-D result of host inputs is a NumPy scalar, as NumPy gives. The functions the standard restricts to
floating-point dtypes raise TypeError for integer and bool inputs (pycore's floating dtype is
float32); the others take int32 and uint32 too, and raise TypeError for bool. Bad shapes and axes
raise ValueError naming the argument; a singular matrix (inv, solve, where NumPy finds it exactly
singular) or one that is not positive definite (cholesky) raises numpy.linalg.LinAlgError, itself a
ValueError, as NumPy does.

>>> import asyncio, numpy as np, pycore
>>> asyncio.run(pycore.linalg.det_async(np.array([[2, 1], [1, 3]], np.float32)))
np.float32(5.0)
"""

from __future__ import annotations

import math
import numbers
import time
import types
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from pycore.array.dtypes import BOOL, COMPLEX64, FLOAT32, INT32, pycore_dtype
from pycore.array.layout import Layout, broadcast_shapes, normalize_axes, normalize_axis
from pycore.calls.api import extension_module
from pycore.calls.arguments import array_of, int_arg
from pycore.calls.creation import eye_async
from pycore.calls.gpuarray import GpuArray, to_gpu_async
from pycore.calls.manipulation import (
    astype_async,
    conj_async,
    expand_dims,
    matrix_transpose,
    permute_dims,
    reshape_async,
    stack_async,
)
from pycore.calls.nd import NDPUBLIC
from pycore.engine.runtime import RUNTIME

Array = Any  # a GpuArray or a NumPy array (array-likes are taken where an array is)


# ---------------------------------------------------------------- where each function runs


@dataclass(frozen=True)
class Route:
    """Where a linalg function runs: "gpu" (composed of pycore's n-d calls, each placed by auto),
    "numpy" (no GPU kernel) or "view" (no computation); how; and, for the composed ones, the call
    whose placement explain() reports (`step`: an n-d op's name)."""

    runs: str
    how: str
    step: str | None = None
    inputs: int = 1


_NUMPY = "factorizations run on NumPy: no GPU kernel (computed in float64, the result narrowed to float32)"
_NUMPY_COMPLEX = ("runs on NumPy: no GPU kernel (computed in float64; the complex results complex64, "
                  "uploaded for GpuArray inputs)")
ROUTES: dict[str, Route] = {
    "matmul": Route("gpu", "the batched matmul", "matmul", 2),
    "tensordot": Route("gpu", "the operands permuted and reshaped into one matmul", "matmul", 2),
    "matrix_power": Route("gpu", "repeated squaring by the batched matmul", "matmul"),
    "vecdot": Route("gpu", "a multiply, then a sum along the axis", "sum", 2),
    "outer": Route("gpu", "a broadcast multiply", "multiply", 2),
    "cross": Route("gpu", "multiplies and subtracts of the components, stacked", "multiply", 2),
    "trace": Route("gpu", "a sum along the diagonal (a strided view)", "sum"),
    "vector_norm": Route("gpu", "element-wise ops and a reduction over the axes", "sum"),
    "matrix_norm": Route("gpu", "element-wise ops and reductions (ord 'fro', 1, -1, inf, -inf); ord 2, -2 "
                                "and 'nuc' need singular values: NumPy", "sum"),
    "matrix_transpose": Route("view", "a view: no computation"),
    "diagonal": Route("view", "a strided view (stride: the row stride + 1): no computation"),
    **{name: Route("numpy", _NUMPY, None, 2 if name == "solve" else 1) for name in (
        "det", "slogdet", "inv", "solve", "cholesky", "qr", "svd", "svdvals", "eigh", "eigvalsh", "pinv",
        "matrix_rank")},
    **{name: Route("numpy", _NUMPY_COMPLEX) for name in ("eig", "eigvals")},
}


def explain_linalg(name: str, shapes: list[tuple[int, ...]], on_gpu: list[bool],
                   explain: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """explain() of linalg function `name` on inputs of these shapes: where it runs and why; for the
    composed ones, what `explain` says of the step that does the work (its prediction)."""
    route = ROUTES[name]
    if len(shapes) != route.inputs:
        raise ValueError(f"explain: linalg.{name} takes {route.inputs} input shape(s), got {len(shapes)}")
    matrices = name not in ("vecdot", "outer", "cross", "vector_norm", "tensordot", "matmul")
    for i, s in enumerate(shapes):
        if matrices and len(s) < 2:
            raise ValueError(f"explain: linalg.{name}'s input {i} must have at least 2 dimensions, got {s}")
    if route.runs != "gpu":
        return {"op": f"linalg.{name}", "choice": route.runs, "predicted_choice": route.runs,
                "why": route.how, "gpu_ms": None, "numpy_ms": None, "measured_ms": None,
                "backend_available": RUNTIME.backend, "last_call": None, "off": False}
    flags = tuple(on_gpu) if on_gpu else (False,) * len(shapes)
    x = shapes[0]
    if name in ("matmul", "matrix_power"):
        got = explain("matmul", x, shapes[-1], on_gpu=(flags[0], flags[-1]))
    elif name == "tensordot":
        k = min(2, len(x), len(shapes[1]))
        got = explain("matmul", (math.prod(x[:len(x) - k]), math.prod(x[len(x) - k:])),
                      (math.prod(shapes[1][:k]), math.prod(shapes[1][k:])), on_gpu=flags)
    elif name in ("vecdot", "cross"):
        got = explain("multiply", *shapes, on_gpu=flags)
    elif name == "outer":
        got = explain("multiply", (*x, 1), (1, *shapes[1]), on_gpu=flags)
    elif name == "trace":
        got = explain("sum", (*x[:-2], min(x[-2:])), on_gpu=flags, axis=-1)
    elif name == "matrix_norm":
        got = explain("sum", x, on_gpu=flags, axis=(-2, -1))
    else:
        got = explain("sum", x, on_gpu=flags)
    got["op"] = f"linalg.{name}"
    got["why"] = f"{route.how}; its {route.step}: {got['why']}"
    return got


# ---------------------------------------------------------------- arguments and results


def _array(x: Any, fn: str, name: str = "x") -> GpuArray | np.ndarray:
    return array_of(x, fn, name)


def _floating(x: Any, fn: str, name: str = "x", complex_ok: bool = True) -> GpuArray | np.ndarray:
    """x, which must have a floating-point dtype (float32, or complex64 where `complex_ok`): TypeError
    for integers and bool, as the standard's floating-point-only functions ask."""
    x = _array(x, fn, name)
    if x.dtype != FLOAT32 and not (complex_ok and x.dtype == COMPLEX64):
        kinds = "float32 or complex64" if complex_ok else "float32"
        raise TypeError(f"{fn}: {name} must have a floating-point dtype ({kinds}), got {x.dtype}")
    return x


def _numeric(x: Any, fn: str, name: str = "x") -> GpuArray | np.ndarray:
    x = _array(x, fn, name)
    if x.dtype == BOOL:
        raise TypeError(f"{fn}: {name} must have a numeric dtype, got bool")
    return x


def _matrices(x: Any, fn: str, square: bool = False, name: str = "x") -> None:
    if x.ndim < 2:
        raise ValueError(f"{fn}: {name} must have at least 2 dimensions (a stack of matrices), "
                         f"got shape {tuple(x.shape)}")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{fn}: {name} must be a (stack of) square matrices, got shape {tuple(x.shape)}")


def _int(value: Any, fn: str, name: str) -> int:
    return int_arg(value, f"{fn}: {name}")


def _gpu(*xs: Any) -> bool:
    return any(isinstance(x, GpuArray) for x in xs)


async def _out(value: Any, gpu: bool) -> Any:
    """A result where the inputs live: a GpuArray for GpuArray inputs (uploaded if it was computed
    on the host), else a NumPy array (a 0-D one as a NumPy scalar, as NumPy's reductions give)."""
    if isinstance(value, GpuArray):
        return value
    if not gpu and (isinstance(value, (numbers.Number, np.generic)) or np.ndim(value) == 0):
        return np.asarray(value)[()]
    value = np.asarray(value, order="C")
    return await to_gpu_async(value) if gpu else value


async def _host(x: Any) -> np.ndarray:
    return await x.to_numpy_async() if isinstance(x, GpuArray) else np.asarray(x)


async def _on_numpy(fn: str, xs: Sequence[Any], compute: Callable[..., Any]) -> Any:
    """`compute` of the inputs' values in float64 (complex128 for complex64; NumPy); its arrays
    narrowed to float32, complex64 or int32 and placed where the inputs live; recorded in the trace."""
    start = time.perf_counter()
    values = [(await _host(x)).astype(np.complex128 if x.dtype.kind == "c" else np.float64) for x in xs]
    with np.errstate(all="ignore"):
        found = compute(*values)
    gpu = _gpu(*xs)

    async def narrowed(v: Any) -> Any:
        v = np.asarray(v)
        return await _out(v.astype(INT32 if v.dtype.kind in "iub" else COMPLEX64 if v.dtype.kind == "c"
                                   else FLOAT32), gpu)

    if isinstance(found, tuple):
        result: Any = type(found)(*[await narrowed(v) for v in found])
    else:
        result = await narrowed(found)
    ms = (time.perf_counter() - start) * 1e3
    RUNTIME.record({"op": f"linalg.{fn}", "shapes": [tuple(x.shape) for x in xs], "backend": "numpy",
                    "why": _NUMPY, "ms": {"compute": ms}, "total_ms": ms})
    return result


def _call(name: str) -> Callable[..., Awaitable[Any]]:
    return NDPUBLIC[f"{name}_async"]  # type: ignore[no-any-return]


async def _scalar_op(name: str, x: Any, *args: Any) -> Any:
    """Element-wise op `name` of x (and args): on a NumPy scalar (a reduction's 0-D result of host
    values) in float32 with NumPy, else pycore's call."""
    if isinstance(x, (int, float, np.generic)):
        f = {"sqrt": np.sqrt, "pow": np.power}[name]
        with np.errstate(all="ignore"):
            return f(np.float32(x), *[np.float32(a) for a in args])
    return await _call(name)(x, *args)


# ---------------------------------------------------------------- the main namespace's


async def matmul_async(x1: Any, x2: Any, /) -> Array:
    """x1 @ x2 (the batched matmul of pycore.matmul_async): (..., m, k) @ (..., k, n) -> (..., m, n),
    the batch axes broadcast, a 1-D operand as a row (x1) or a column (x2); int32 and uint32
    operands multiply in their dtype, the others in float32.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.linalg.matmul_async(np.eye(2, dtype=np.float32), np.ones((2, 1), np.float32)))
    array([[1.],
           [1.]], dtype=float32)
    """
    a, b = _numeric(x1, "matmul", "x1"), _numeric(x2, "matmul", "x2")
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"matmul: x1 and x2 must have at least 1 dimension, got shapes {tuple(a.shape)} "
                         f"and {tuple(b.shape)}")
    return await _call("matmul")(a, b)


def _tensordot_axes(axes: Any, a: Any, b: Any) -> tuple[list[int], list[int]]:
    if isinstance(axes, (tuple, list)):
        if len(axes) != 2 or not all(isinstance(s, (tuple, list)) for s in axes):
            raise TypeError(f"tensordot: axes must be an int or a pair of sequences of ints, got {axes!r}")
        first = [_int(i, "tensordot", "axes[0]") for i in axes[0]]
        second = [_int(i, "tensordot", "axes[1]") for i in axes[1]]
        if len(first) != len(second):
            raise ValueError(f"tensordot: axes {axes!r} names {len(first)} axes of x1 and {len(second)} "
                             "of x2")
        first = [normalize_axis(i, a.ndim, "axes[0]") for i in first]
        second = [normalize_axis(j, b.ndim, "axes[1]") for j in second]
        if len(set(first)) != len(first) or len(set(second)) != len(second):
            raise ValueError(f"tensordot: axes {axes!r} names an axis twice")
        return first, second
    n = _int(axes, "tensordot", "axes")
    if n < 0 or n > min(a.ndim, b.ndim):
        raise ValueError(f"tensordot: axes={n} must be in 0 ... {min(a.ndim, b.ndim)} for shapes "
                         f"{tuple(a.shape)} and {tuple(b.shape)}")
    return list(range(a.ndim - n, a.ndim)), list(range(n))


async def tensordot_async(x1: Any, x2: Any, /, *, axes: Any = 2) -> Array:
    """The sum of products of x1 and x2 over the axes `axes` names: an int N (x1's last N axes with
    x2's first N) or a pair of sequences (x1's axes, x2's axes, contracted in pairs). The result has
    x1's other axes, then x2's. On the GPU as one matmul of the operands permuted and reshaped.

    >>> import asyncio, numpy as np, pycore
    >>> a, b = np.arange(6, dtype=np.float32).reshape(2, 3), np.ones((3, 2), np.float32)
    >>> asyncio.run(pycore.tensordot_async(a, b, axes=1))
    array([[ 3.,  3.],
           [12., 12.]], dtype=float32)
    """
    a, b = _numeric(x1, "tensordot", "x1"), _numeric(x2, "tensordot", "x2")
    first, second = _tensordot_axes(axes, a, b)
    for i, j in zip(first, second, strict=True):
        if a.shape[i] != b.shape[j]:
            raise ValueError(f"tensordot: x1's axis {i} (length {a.shape[i]}) and x2's axis {j} (length "
                             f"{b.shape[j]}) must have one length")
    free_a = [i for i in range(a.ndim) if i not in first]
    free_b = [j for j in range(b.ndim) if j not in second]
    k = math.prod(a.shape[i] for i in first)
    m, n = math.prod(a.shape[i] for i in free_a), math.prod(b.shape[j] for j in free_b)
    left = await reshape_async(permute_dims(a, (*free_a, *first)), (m, k))
    right = await reshape_async(permute_dims(b, (*second, *free_b)), (k, n))
    product = await _call("matmul")(left, right)
    shape = (*[a.shape[i] for i in free_a], *[b.shape[j] for j in free_b])
    if not shape:
        return await _out(np.asarray(await _host(product)).reshape(()), False)
    return await reshape_async(product, shape)


def _negative_axis(axis: Any, fn: str, *xs: Any) -> int:
    a = _int(axis, fn, "axis")
    low = min(-1, *[-x.ndim for x in xs])
    if not low <= a <= -1:
        raise ValueError(f"{fn}: axis must be a negative int in {low} ... -1 (counted from the last axis), "
                         f"got {axis}")
    return a


async def vecdot_async(x1: Any, x2: Any, /, *, axis: Any = -1) -> Array:
    """The dot products of x1's and x2's vectors along `axis` (a negative int: counted from the last
    axis, the other axes broadcast): sum(conj(x1) * x2, axis=axis) (conj: complex x1 only), on the
    GPU as a multiply and a sum.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.vecdot_async(np.array([[1, 2], [3, 4]], np.int32), np.array([1, 1], np.int32)))
    array([3, 7], dtype=int32)
    """
    a, b = _numeric(x1, "vecdot", "x1"), _numeric(x2, "vecdot", "x2")
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"vecdot: x1 and x2 must have at least 1 dimension, got shapes {tuple(a.shape)} "
                         f"and {tuple(b.shape)}")
    ax = _negative_axis(axis, "vecdot", a, b)
    la = a.shape[ax] if -ax <= a.ndim else 1
    lb = b.shape[ax] if -ax <= b.ndim else 1
    if la != lb:
        raise ValueError(f"vecdot: x1 and x2 must have one length along axis {ax}, got {la} and {lb}")
    try:
        broadcast_shapes(tuple(a.shape), tuple(b.shape))
    except ValueError as exc:
        raise ValueError(f"vecdot: {exc}") from None
    product = await _call("multiply")(await conj_async(a) if a.dtype.kind == "c" else a, b)
    narrow = {"dtype": product.dtype} if product.dtype.kind in "iu" and product.dtype.itemsize < 4 else {}
    return await _out(await _call("sum")(product, axis=ax, **narrow), _gpu(a, b))  # (in x1's and x2's dtype)


# ---------------------------------------------------------------- the linalg extension: GPU


def diagonal(x: Any, /, *, offset: Any = 0) -> Array:
    """The diagonals of x's matrices (its last two axes): offset 0 the main one, > 0 above it, < 0
    below; a view (on a GpuArray a strided one: stride = the row stride + the column stride).

    >>> import numpy as np, pycore
    >>> pycore.linalg.diagonal(np.arange(9, dtype=np.int32).reshape(3, 3), offset=1)
    array([1, 5], dtype=int32)
    """
    x = _array(x, "diagonal")
    k = _int(offset, "diagonal", "offset")
    _matrices(x, "diagonal")
    if not isinstance(x, GpuArray):
        return np.diagonal(x, offset=k, axis1=-2, axis2=-1)
    rows, cols = x.shape[-2:]
    n = max(0, min(rows + min(k, 0), cols - max(k, 0)))
    lay = x.layout
    sr, sc = lay.strides[-2:]
    start = lay.offset + (max(0, -k) * sr + max(0, k) * sc if n else 0)
    layout = Layout((*lay.shape[:-2], n), (*lay.strides[:-2], sr + sc), start)
    host = None if x._host is None else np.diagonal(x._host, offset=k, axis1=-2, axis2=-1)
    return x._view(layout, host)


async def diagonal_async(x: Any, /, *, offset: Any = 0) -> Array:
    """The diagonals of x's matrices (a view): the awaitable form of pycore.linalg.diagonal.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.linalg.diagonal_async(np.arange(4, dtype=np.int32).reshape(2, 2)))
    array([0, 3], dtype=int32)
    """
    return diagonal(x, offset=offset)


async def matrix_transpose_async(x: Any, /) -> Array:
    """x's matrices (its last two axes) transposed (a view): the awaitable form of
    pycore.linalg.matrix_transpose.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.linalg.matrix_transpose_async(np.zeros((5, 2, 3), np.float32))).shape
    (5, 3, 2)
    """
    return matrix_transpose(x)


async def trace_async(x: Any, /, *, offset: Any = 0, dtype: Any = None) -> Array:
    """The sums of x's matrices' diagonals (offset as diagonal's), in `dtype` (None: x's dtype),
    on the GPU as a sum along the diagonal view.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.linalg.trace_async(np.arange(9, dtype=np.int32).reshape(3, 3)))
    np.int32(12)
    """
    x = _numeric(x, "trace")
    k = _int(offset, "trace", "offset")
    want = None if dtype is None else pycore_dtype(dtype, "dtype")
    if want == BOOL:
        raise TypeError("trace: dtype must be a numeric dtype, got bool")
    _matrices(x, "trace")
    d = diagonal(x, offset=k)
    if want is not None and want != d.dtype:
        d = await astype_async(d, want)
    return await _out(await _call("sum")(d, axis=-1), _gpu(x))


async def outer_async(x1: Any, x2: Any, /) -> Array:
    """The outer product of vectors x1 (length m) and x2 (length n): the (m, n) products, on the GPU
    as one broadcast multiply.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.linalg.outer_async(np.array([1, 2], np.int32), np.array([1, 10], np.int32)))
    array([[ 1, 10],
           [ 2, 20]], dtype=int32)
    """
    a, b = _numeric(x1, "outer", "x1"), _numeric(x2, "outer", "x2")
    for name, v in (("x1", a), ("x2", b)):
        if v.ndim != 1:
            raise ValueError(f"outer: {name} must be 1-D, got shape {tuple(v.shape)}")
    return await _call("multiply")(expand_dims(a, axis=1), expand_dims(b, axis=0))


async def cross_async(x1: Any, x2: Any, /, *, axis: Any = -1) -> Array:
    """The cross products of x1's and x2's 3-vectors along `axis` (a negative int; the other axes
    broadcast), on the GPU from the components' views: multiplies, subtracts and a stack.

    >>> import asyncio, numpy as np, pycore
    >>> e0, e1 = np.array([1, 0, 0], np.float32), np.array([0, 1, 0], np.float32)
    >>> asyncio.run(pycore.linalg.cross_async(e0, e1))
    array([0., 0., 1.], dtype=float32)
    """
    a, b = _numeric(x1, "cross", "x1"), _numeric(x2, "cross", "x2")
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"cross: x1 and x2 must have at least 1 dimension, got shapes {tuple(a.shape)} "
                         f"and {tuple(b.shape)}")
    ax = _negative_axis(axis, "cross", a, b)
    for name, v in (("x1", a), ("x2", b)):
        if -ax > v.ndim or v.shape[ax] != 3:
            raise ValueError(f"cross: {name} must have length 3 along axis {ax}, got shape {tuple(v.shape)}")
    try:
        broadcast_shapes(tuple(a.shape), tuple(b.shape))
    except ValueError as exc:
        raise ValueError(f"cross: {exc}") from None

    def part(v: Any, i: int) -> Any:
        return v[(Ellipsis, i, *[slice(None)] * (-ax - 1))]

    mul, sub = _call("multiply"), _call("subtract")
    parts = []
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        parts.append(await sub(await mul(part(a, j), part(b, k)), await mul(part(a, k), part(b, j))))
    return await stack_async(parts, axis=ax)


def _ord(ord: Any, fn: str) -> float:  # noqa: A002 (the standard's name)
    if isinstance(ord, (bool, np.bool_)) or not isinstance(ord, numbers.Real):
        raise TypeError(f"{fn}: ord must be a number, got {ord!r}")
    return float(ord)


async def vector_norm_async(x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Array:  # noqa: A002
    """The vector p-norms of x over `axis` (an int, a tuple of ints, None: every axis): ord 2 (the
    default, sqrt(sum(x**2))), 1, inf (the largest |x|), -inf (the smallest), 0 (the count of nonzero
    elements) or any other p: sum(|x|**p)**(1/p). float32, or complex64 (the norms of its
    magnitudes); on the GPU as element-wise ops and a reduction (sums of squares overflow past
    1.8e19, as NumPy's float32 norm does).

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.linalg.vector_norm_async(np.array([3, 4], np.float32)))
    np.float32(5.0)
    """
    x = _floating(x, "vector_norm")
    if x.dtype == COMPLEX64:  # (a complex vector's norms are those of its magnitudes)
        x = await _call("abs")(x)
    p = _ord(ord, "vector_norm")
    if not isinstance(keepdims, bool):
        raise TypeError(f"vector_norm: keepdims must be True or False, got {keepdims!r}")
    axes = normalize_axes(tuple(axis) if isinstance(axis, (tuple, list)) else axis, x.ndim)
    gpu = _gpu(x)
    kw: dict[str, Any] = {"axis": None if axis is None else axes, "keepdims": keepdims}
    size = math.prod(x.shape[a] for a in axes)
    if size == 0 and p == math.inf:  # (the largest |x| of none: 0, as NumPy's)
        return await _out(await _call("sum")(await _call("abs")(x), **kw), gpu)
    if size == 0 and p == -math.inf:
        raise ValueError(f"vector_norm: ord={ord} of an empty axis of shape {tuple(x.shape)} has no value")
    if p == 2:
        found = await _scalar_op("sqrt", await _call("sum")(await _call("multiply")(x, x), **kw))
    elif p == 1:
        found = await _call("sum")(await _call("abs")(x), **kw)
    elif p == math.inf:
        found = await _call("max")(await _call("abs")(x), **kw)
    elif p == -math.inf:
        found = await _call("min")(await _call("abs")(x), **kw)
    elif p == 0:
        count = await _call("sum")(await _call("not_equal")(x, 0.0), **kw)
        found = float(count) if isinstance(count, int) else await astype_async(count, FLOAT32)
    else:
        powers = await _call("pow")(await _call("abs")(x), p)
        found = await _scalar_op("pow", await _call("sum")(powers, **kw), 1.0 / p)
    return await _out(found, gpu)


async def _singular_values(x: Any) -> np.ndarray:
    values = await _host(x)
    return np.linalg.svd(values.astype(np.complex128 if values.dtype.kind == "c" else np.float64),
                         compute_uv=False)


async def matrix_norm_async(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Array:  # noqa: A002
    """The matrix norms of x's matrices (its last two axes): ord "fro" (the default, Frobenius), 1 or
    -1 (the largest or smallest column sum of |x|), inf or -inf (row sums) on the GPU as element-wise
    ops and reductions; 2, -2 (the largest, smallest singular value) and "nuc" (their sum) on NumPy.
    float32 or complex64 (the entry-wise norms of its magnitudes).

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.linalg.matrix_norm_async(np.array([[1, -2], [3, 4]], np.float32), ord=1))
    np.float32(6.0)
    """
    x = _floating(x, "matrix_norm")
    _matrices(x, "matrix_norm")
    if not isinstance(keepdims, bool):
        raise TypeError(f"matrix_norm: keepdims must be True or False, got {keepdims!r}")
    if ord not in ("fro", "nuc") and (isinstance(ord, str) or _ord(ord, "matrix_norm") not in (
            1, -1, 2, -2, math.inf, -math.inf)):
        raise ValueError(f"matrix_norm: ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, got {ord!r}")
    if x.shape[-1] == 0 or x.shape[-2] == 0:
        if ord != "fro":
            raise ValueError(f"matrix_norm: ord={ord!r} of empty matrices of shape {tuple(x.shape)} has no "
                             "value")
    gpu = _gpu(x)
    if x.dtype == COMPLEX64 and ord not in ("nuc", 2, -2):  # (the entry-wise norms: of the magnitudes)
        x = await _call("abs")(x)
    if ord in ("nuc", 2, -2):
        s = await _singular_values(x)
        pick = {"nuc": lambda: s.sum(-1), 2: lambda: s.max(-1), -2: lambda: s.min(-1)}[ord]
        found = np.asarray(pick(), np.float64).astype(FLOAT32)
        if keepdims:
            found = found[..., None, None]
        return await _out(found, gpu)
    if ord == "fro":
        total = await _call("sum")(await _call("multiply")(x, x), axis=(-2, -1), keepdims=keepdims)
        return await _out(await _scalar_op("sqrt", total), gpu)
    sums = await _call("sum")(await _call("abs")(x), axis=-2 if abs(ord) == 1 else -1)
    found = await _call("max" if ord > 0 else "min")(sums, axis=-1, keepdims=keepdims)
    if keepdims:
        found = expand_dims(found, axis=-1)
    return await _out(found, gpu)


async def matrix_power_async(x: Any, n: Any, /) -> Array:
    """x's square matrices raised to the integer power n (n = 0: identity matrices; n < 0: the
    inverse's power), on the GPU by repeated squaring with the batched matmul (the inverse on NumPy).
    float32 or complex64.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.linalg.matrix_power_async(np.array([[1, 1], [0, 1]], np.float32), 3))
    array([[1., 3.],
           [0., 1.]], dtype=float32)
    """
    x = _floating(x, "matrix_power")
    k = _int(n, "matrix_power", "n")
    _matrices(x, "matrix_power", square=True)
    if k == 0:
        eye = await eye_async(x.shape[-1], dtype=x.dtype, device="gpu" if _gpu(x) else None)
        if isinstance(eye, GpuArray):
            return await eye.broadcast_to(x.shape).copy_async()
        return np.broadcast_to(eye, x.shape).copy()
    if k < 0:
        x = await inv_async(x)
        k = -k
    matmul = _call("matmul")
    result, square = None, x
    while True:
        if k & 1:
            result = square if result is None else await matmul(result, square)
        k >>= 1
        if not k:
            break
        square = await matmul(square, square)
    if result is x:
        return await x.copy_async() if isinstance(x, GpuArray) else np.array(x)
    return result


# ---------------------------------------------------------------- the linalg extension: NumPy


class SlogdetResult(NamedTuple):
    """slogdet's result: the signs of the determinants and the natural logs of their magnitudes."""

    sign: Any
    logabsdet: Any


class QRResult(NamedTuple):
    """qr's result: Q (orthonormal columns) and R (upper triangular)."""

    Q: Any
    R: Any


class SVDResult(NamedTuple):
    """svd's result: U, the singular values S (descending), Vh."""

    U: Any
    S: Any
    Vh: Any


class EighResult(NamedTuple):
    """eigh's result: the eigenvalues (ascending) and the eigenvectors (columns)."""

    eigenvalues: Any
    eigenvectors: Any


def _square(x: Any, fn: str) -> Any:
    x = _floating(x, fn)
    _matrices(x, fn, square=True)
    return x


async def det_async(x: Any, /) -> Array:
    """The determinants of x's square matrices (on NumPy, float64, narrowed to float32).

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.linalg.det_async(np.array([[1, 2], [3, 4]], np.float32)))
    np.float32(-2.0)
    """
    return await _on_numpy("det", [_square(x, "det")], np.linalg.det)


async def slogdet_async(x: Any, /) -> SlogdetResult:
    """The signs and the natural logs of the magnitudes of the determinants of x's square matrices
    (sign 0 and logabsdet -inf for a singular one), as SlogdetResult(sign, logabsdet); on NumPy.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.linalg.slogdet_async(np.array([[0, 1], [1, 0]], np.float32)))
    SlogdetResult(sign=np.float32(-1.0), logabsdet=np.float32(0.0))
    """
    return await _on_numpy("slogdet", [_square(x, "slogdet")],  # type: ignore[no-any-return]
                           lambda v: SlogdetResult(*np.linalg.slogdet(v)))


async def inv_async(x: Any, /) -> Array:
    """The inverses of x's square matrices (on NumPy; numpy.linalg.LinAlgError for a singular one).

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.linalg.inv_async(np.array([[2, 0], [0, 4]], np.float32)))
    array([[0.5 , 0.  ],
           [0.  , 0.25]], dtype=float32)
    """
    return await _on_numpy("inv", [_square(x, "inv")], np.linalg.inv)


async def solve_async(x1: Any, x2: Any, /) -> Array:
    """The solutions X of x1 @ X = x2 for x1's square matrices: x2 a vector (1-D: one right-hand side
    for every matrix) or a stack of matrices (..., M, K), the batch axes broadcast; on NumPy
    (numpy.linalg.LinAlgError for a singular x1).

    >>> import asyncio, numpy as np, pycore
    >>> a, b = np.array([[2, 0], [0, 4]], np.float32), np.array([2, 2], np.float32)
    >>> asyncio.run(pycore.linalg.solve_async(a, b))
    array([1. , 0.5], dtype=float32)
    """
    a, b = _square(x1, "solve"), _floating(x2, "solve", "x2")
    m = a.shape[-1]
    if b.ndim == 0 or (b.ndim == 1 and b.shape[0] != m) or (b.ndim > 1 and b.shape[-2] != m):
        raise ValueError(f"solve: x2 of shape {tuple(b.shape)} does not fit x1 of shape {tuple(a.shape)} "
                         f"(x2 must be (M,) or (..., M, K) with M = {m})")
    try:
        if b.ndim > 1:
            broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    except ValueError as exc:
        raise ValueError(f"solve: {exc}") from None

    def compute(va: np.ndarray, vb: np.ndarray) -> np.ndarray:
        if vb.ndim == 1:  # (one vector for every matrix of the stack)
            return np.linalg.solve(va, np.broadcast_to(vb[:, None], (*va.shape[:-1], 1)))[..., 0]
        return np.linalg.solve(va, vb)

    return await _on_numpy("solve", [a, b], compute)


async def cholesky_async(x: Any, /, *, upper: bool = False) -> Array:
    """The Cholesky factors of x's symmetric positive-definite matrices: lower triangular L with
    x = L @ L.T, or (upper=True) U with x = U.T @ U; on NumPy (numpy.linalg.LinAlgError where a
    matrix is not positive definite).

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.linalg.cholesky_async(np.array([[4, 2], [2, 2]], np.float32)))
    array([[2., 0.],
           [1., 1.]], dtype=float32)
    """
    if not isinstance(upper, bool):
        raise TypeError(f"cholesky: upper must be True or False, got {upper!r}")
    return await _on_numpy("cholesky", [_square(x, "cholesky")], lambda v: np.linalg.cholesky(v, upper=upper))


async def qr_async(x: Any, /, *, mode: str = "reduced") -> QRResult:
    """The QR factorizations of x's matrices (M, N), as QRResult(Q, R): mode "reduced" (Q (M, K),
    R (K, N), K = min(M, N)) or "complete" (Q (M, M), R (M, N)); on NumPy.

    >>> import asyncio, numpy as np, pycore
    >>> [a.shape for a in asyncio.run(pycore.linalg.qr_async(np.ones((4, 2), np.float32)))]
    [(4, 2), (2, 2)]
    """
    x = _floating(x, "qr")
    _matrices(x, "qr")
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode must be 'reduced' or 'complete', got {mode!r}")
    return await _on_numpy("qr", [x], lambda v: QRResult(*np.linalg.qr(v, mode=mode)))  # type: ignore[no-any-return,call-overload]


async def svd_async(x: Any, /, *, full_matrices: bool = True) -> SVDResult:
    """The singular value decompositions x = U @ diag(S) @ Vh of x's matrices (M, N), as
    SVDResult(U, S, Vh), S descending: full_matrices=True U (M, M) and Vh (N, N), else (M, K) and
    (K, N), K = min(M, N); on NumPy.

    >>> import asyncio, numpy as np, pycore
    >>> found = asyncio.run(pycore.linalg.svd_async(np.ones((4, 2), np.float32), full_matrices=False))
    >>> [a.shape for a in found]
    [(4, 2), (2,), (2, 2)]
    """
    x = _floating(x, "svd")
    _matrices(x, "svd")
    if not isinstance(full_matrices, bool):
        raise TypeError(f"svd: full_matrices must be True or False, got {full_matrices!r}")
    return await _on_numpy("svd", [x],  # type: ignore[no-any-return]
                           lambda v: SVDResult(*np.linalg.svd(v, full_matrices=full_matrices)))


async def svdvals_async(x: Any, /) -> Array:
    """The singular values of x's matrices, descending; on NumPy.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.linalg.svdvals_async(np.array([[3, 0], [0, -4]], np.float32)))
    array([4., 3.], dtype=float32)
    """
    x = _floating(x, "svdvals")
    _matrices(x, "svdvals")
    return await _on_numpy("svdvals", [x], lambda v: np.linalg.svd(v, compute_uv=False))


async def eigh_async(x: Any, /) -> EighResult:
    """The eigenvalues (ascending) and eigenvectors (columns) of x's symmetric matrices (from the lower
    triangles), as EighResult(eigenvalues, eigenvectors); on NumPy.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.linalg.eigh_async(np.array([[2, 0], [0, 1]], np.float32))).eigenvalues
    array([1., 2.], dtype=float32)
    """
    return await _on_numpy("eigh", [_square(x, "eigh")],  # type: ignore[no-any-return]
                           lambda v: EighResult(*np.linalg.eigh(v)))


class EigResult(NamedTuple):
    """eig's result: the eigenvalues and the right eigenvectors (columns), complex64."""

    eigenvalues: Any
    eigenvectors: Any


async def _complex_on_numpy(fn: str, x: Any, compute: Callable[[np.ndarray], Any]) -> Any:
    """`compute` of x's values in float64 (NumPy), its complex64 results where x lives (uploaded
    for a GpuArray); recorded in the trace."""
    start = time.perf_counter()
    values = (await _host(x)).astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    with np.errstate(all="ignore"):
        found = compute(values)
    if isinstance(x, GpuArray):
        found = (type(found)(*[await to_gpu_async(v) for v in found]) if isinstance(found, tuple)
                 else await to_gpu_async(found))
    ms = (time.perf_counter() - start) * 1e3
    RUNTIME.record({"op": f"linalg.{fn}", "shapes": [tuple(x.shape)], "backend": "numpy",
                    "why": ROUTES[fn].how, "ms": {"compute": ms}, "total_ms": ms})
    return found


async def eig_async(x: Any, /) -> EigResult:
    """The eigenvalues and right eigenvectors (columns) of x's square matrices, as
    EigResult(eigenvalues, eigenvectors), complex64 always (as the standard says, even where they
    are real); computed on NumPy, GpuArrays for a GpuArray x.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.linalg.eig_async(np.array([[0, -1], [1, 0]], np.float32))).eigenvalues
    array([0.+1.j, 0.-1.j], dtype=complex64)
    """
    def both(v: np.ndarray) -> EigResult:
        w, vec = np.linalg.eig(v)
        return EigResult(np.asarray(w, np.complex64), np.asarray(vec, np.complex64))

    return await _complex_on_numpy("eig", _square(x, "eig"), both)  # type: ignore[no-any-return]


async def eigvals_async(x: Any, /) -> Any:
    """The eigenvalues of x's square matrices, complex64 always; computed on NumPy (a GpuArray for a
    GpuArray x).

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.linalg.eigvals_async(np.array([[2, 0], [0, 3]], np.float32)))
    array([2.+0.j, 3.+0.j], dtype=complex64)
    """
    return await _complex_on_numpy("eigvals", _square(x, "eigvals"),
                                   lambda v: np.asarray(np.linalg.eigvals(v), np.complex64))


async def eigvalsh_async(x: Any, /) -> Array:
    """The eigenvalues (ascending) of x's symmetric matrices (from the lower triangles); on NumPy.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.linalg.eigvalsh_async(np.array([[2, 1], [1, 2]], np.float32)))
    array([1., 3.], dtype=float32)
    """
    return await _on_numpy("eigvalsh", [_square(x, "eigvalsh")], np.linalg.eigvalsh)


async def _rtol(rtol: Any, x: Any, fn: str) -> np.ndarray:
    """rtol as float64 values that broadcast against x's stack (None: max(M, N) * float32's eps)."""
    if rtol is None:
        return np.asarray(max(x.shape[-2:]) * float(np.finfo(FLOAT32).eps))
    if isinstance(rtol, (bool, np.bool_)):
        raise TypeError(f"{fn}: rtol must be a float or an array of floats, got bool")
    value = (await _host(rtol)) if isinstance(rtol, GpuArray) else np.asarray(rtol)
    if value.dtype.kind not in "iuf":
        raise TypeError(f"{fn}: rtol must be a float or an array of floats, got dtype {value.dtype}")
    try:
        fits = np.broadcast_shapes(value.shape, tuple(x.shape[:-2])) == tuple(x.shape[:-2])
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"{fn}: rtol of shape {value.shape} does not broadcast against x's stack "
                         f"{tuple(x.shape[:-2])}")
    return value.astype(np.float64)


async def pinv_async(x: Any, /, *, rtol: Any = None) -> Array:
    """The Moore-Penrose pseudo-inverses of x's matrices (M, N) -> (N, M): singular values at or below
    rtol times the largest are taken as zero (rtol None: max(M, N) * float32's eps); on NumPy.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.linalg.pinv_async(np.array([[2, 0], [0, 0]], np.float32)))
    array([[0.5, 0. ],
           [0. , 0. ]], dtype=float32)
    """
    x = _floating(x, "pinv")
    _matrices(x, "pinv")
    tol = await _rtol(rtol, x, "pinv")
    return await _on_numpy("pinv", [x], lambda v: np.linalg.pinv(v, rtol=tol))


async def matrix_rank_async(x: Any, /, *, rtol: Any = None) -> Array:
    """The ranks of x's matrices: how many singular values exceed rtol times the largest (rtol None:
    max(M, N) * float32's eps); int32, on NumPy.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.linalg.matrix_rank_async(np.array([[1, 2], [2, 4]], np.float32)))
    np.int32(1)
    """
    x = _floating(x, "matrix_rank")
    _matrices(x, "matrix_rank")
    tol = await _rtol(rtol, x, "matrix_rank")

    def rank(v: np.ndarray) -> np.ndarray:
        s = np.linalg.svd(v, compute_uv=False)
        if s.shape[-1] == 0:
            return np.zeros(s.shape[:-1], INT32)
        return np.count_nonzero(s > s.max(-1, keepdims=True) * tol[..., None], axis=-1)

    return await _on_numpy("matrix_rank", [x], rank)


# ---------------------------------------------------------------- the public names

# The main namespace's (pycore.tensordot_async, pycore.vecdot_async).
LAPUBLIC: dict[str, Callable[..., Any]] = {"tensordot_async": tensordot_async, "vecdot_async": vecdot_async}

# The linalg extension's, in the standard's order, then the plain views.
LINALG: dict[str, Callable[..., Any]] = {f.__name__: f for f in (
    cholesky_async, cross_async, det_async, diagonal_async, eig_async, eigh_async, eigvals_async,
    eigvalsh_async, inv_async,
    matmul_async, matrix_norm_async, matrix_power_async, matrix_rank_async, matrix_transpose_async,
    outer_async, pinv_async, qr_async, slogdet_async, solve_async, svd_async, svdvals_async,
    tensordot_async, trace_async, vecdot_async, vector_norm_async)}
LINALG["diagonal"] = diagonal
LINALG["matrix_transpose"] = matrix_transpose
for _f in (*LAPUBLIC.values(), *LINALG.values()):
    if _f is not matrix_transpose:
        _f.__module__ = "pycore.linalg" if _f not in LAPUBLIC.values() else "pycore"


def make_module() -> types.ModuleType:
    """The `pycore.linalg` module (registered in sys.modules): the extension's functions, its result
    types, and ROUTES (where each runs)."""
    return extension_module("linalg", __doc__, LINALG, {
        "SlogdetResult": SlogdetResult, "QRResult": QRResult, "SVDResult": SVDResult,
        "EighResult": EighResult, "EigResult": EigResult, "ROUTES": ROUTES})
