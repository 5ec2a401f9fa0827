"""Neural-network building blocks: `pycore.nn.<name>_async` (layer_norm, rms_norm, logsumexp,
one_hot, embedding, cross_entropy, scaled_dot_product_attention, conv, max_pool, avg_pool, and
max_pool2d, avg_pool2d for 4-D x).

Each is composed of pycore's public n-d calls (element-wise functions, reductions with axis and
keepdims, the batched matmul, softmax and log_softmax, take, take_along_axis, where, stack, concat,
reshape and strided views), or for GpuArrays of a kernel of its own (layer_norm and rms_norm over
the last axis, conv with small windows, scaled_dot_product_attention, the pools), so each step
runs where those calls run: on the GPU for GpuArray inputs (results are GpuArrays there), on NumPy
for host arrays (results are NumPy arrays; 0-D ones NumPy scalars, as the reductions give). ROUTES
says how each is composed and how many calls it makes.

Floating inputs are float32 or float16 (TypeError for other dtypes, naming the argument), and results
have the inputs' floating dtype (float16 ones computed in float32 where softmax and matmul do); indices
are integers. Bad shapes, axes, sizes and options raise ValueError naming the argument.

>>> import asyncio, numpy as np, pycore
>>> asyncio.run(pycore.nn.logsumexp_async(np.array([0.0, 0.0], np.float32)))
np.float32(0.6931472)
"""

from __future__ import annotations

import itertools
import math
import numbers
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pycore.array.dtypes import BOOL, FLOAT16, FLOAT32, pycore_dtype, result_type
from pycore.array.layout import broadcast_shapes, normalize_axes, normalize_axis
from pycore.calls.api import extension_module
from pycore.calls.arguments import array_of
from pycore.calls.gpuarray import GpuArray
from pycore.calls.namespace import NSPUBLIC
from pycore.calls.nd import NDPUBLIC, attended_async, convolved_async, normalized_rows_async, pooled_async
from pycore.calls.selection import SELPUBLIC
from pycore.kernels.attention import MAX_DIM
from pycore.kernels.conv import DIRECT_TAPS

Array = Any  # a GpuArray or a NumPy array (array-likes are taken where an array is)
_CALLS: dict[str, Callable[..., Any]] = {**NDPUBLIC, **NSPUBLIC, **SELPUBLIC}

# How each function is composed, and the calls (kernel launches on the GPU) one call makes.
ROUTES: dict[str, str] = {
    "layer_norm": "a GpuArray over its last axis (weight, bias: vectors): one kernel (the row's mean and "
                  "variance, then each element; rowwise.wgsl); otherwise mean, subtract, var, add eps, "
                  "sqrt, divide over the axes (+ multiply weight, + add bias): 6 to 8 calls",
    "rms_norm": "a GpuArray over its last axis (weight: a vector): one kernel (rowwise.wgsl); otherwise "
                "square, mean, add eps, sqrt, divide (+ multiply weight): 5 or 6 calls",
    "logsumexp": "max, isfinite, where (the shift: 0 where the max is not finite), subtract, exp, sum, "
                 "log, add (+ a reshape view): 8 calls",
    "one_hot": "arange, equal (broadcast against the classes), astype: 3 calls",
    "embedding": "take along the table's rows (indices of any shape): 1 call",
    "cross_entropy": "log_softmax, take_along_axis, negative (+ mean over the classes, 2 multiplies and "
                     "an add for label smoothing) (+ mean or sum): 3 to 8 calls",
    "scaled_dot_product_attention": "a float32 or float16 GpuArray q with heads of at most 128 (k, v float32 "
                                    "or float16, the mask bool or floating): one kernel (attention.wgsl: "
                                    "tiles of keys folded into a running softmax, the scores never stored; "
                                    "with few blocks of queries or causal ones, the keys in parts, then "
                                    "attention_parts.wgsl combining them) (+ astype to a float16 result); "
                                    "otherwise multiply q by the scale, matmul q k^T (batched), where or "
                                    "add of the masks, softmax, matmul by v: 4 to 6 calls",
    "conv": "a float32 or float16 GpuArray with a window of at most 64 taps (channels per group x kernel "
            "elements): one kernel (conv.wgsl) (+ astype to a float16 result); otherwise concat per padded "
            "axis, stack of the prod(kernel) strided views (im2col), one batched matmul of the groups (+ add "
            "bias): 2 to 6 calls",
    "max_pool": "a float32 or float16 GpuArray: one kernel (pool.wgsl: each window walked in place, the "
                "padding never stored; on llvmpipe a window of at most 65,535 loop iterations) (+ astype "
                "to a float16 result); otherwise concat per padded axis "
                "(-inf), stack of the prod(kernel) strided window views, max: 2 to 5 calls",
    "avg_pool": "a float32 or float16 GpuArray: one kernel (pool.wgsl) (+ astype to a float16 result); "
                "otherwise concat per padded axis (zeros), stack of the prod(kernel) strided window views, "
                "mean (or sum, then divide by each window's count: count_include_pad=False, ceil_mode): 2 to "
                "6 calls",
    "max_pool2d": "max_pool of 4-D x",
    "avg_pool2d": "avg_pool of 4-D x",
}


async def _call(name: str, *args: Any, **kwargs: Any) -> Any:
    return await _CALLS[f"{name}_async"](*args, **kwargs)


# ---------------------------------------------------------------- arguments


def _array(x: Any, fn: str, name: str) -> GpuArray | np.ndarray:
    return array_of(x, fn, name)


def _floating(x: Any, fn: str, name: str = "x") -> GpuArray | np.ndarray:
    x = _array(x, fn, name)
    if x.dtype.kind != "f":
        raise TypeError(f"{fn}: {name} must have a floating-point dtype (float32, float16), got {x.dtype}")
    return x


def _integers(x: Any, fn: str, name: str) -> GpuArray | np.ndarray:
    x = _array(x, fn, name)
    if x.dtype.kind not in "iu":
        raise TypeError(f"{fn}: {name} must have an integer dtype, got {x.dtype}")
    return x


def _int(value: Any, fn: str, name: str, low: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{fn}: {name} must be an int, got {value!r}")
    if int(value) < low:
        raise ValueError(f"{fn}: {name} must be >= {low}, got {value}")
    return int(value)


def _tuple(value: Any, d: int, fn: str, name: str, low: int) -> tuple[int, ...]:
    """An int or a sequence of d ints (each >= low) as a d-tuple."""
    values = list(value) if isinstance(value, (tuple, list)) else [value] * d
    if len(values) != d:
        raise ValueError(f"{fn}: {name} must be an int or {d} ints, got {value!r}")
    return tuple(_int(v, fn, name, low) for v in values)


def _number(value: Any, fn: str, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{fn}: {name} must be a real number, got {value!r}")
    return float(value)


def _shaped_like(value: Any, x: Any, fn: str, name: str) -> GpuArray | np.ndarray:
    """A floating operand (weight, bias, mask) that must broadcast to x's shape without growing it."""
    value = _floating(value, fn, name)
    try:
        fits = broadcast_shapes(tuple(value.shape), tuple(x.shape)) == tuple(x.shape)
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"{fn}: {name} of shape {tuple(value.shape)} does not broadcast to {tuple(x.shape)}")
    return value


def _on_gpu(*xs: Any) -> bool:
    return any(isinstance(x, GpuArray) for x in xs)


async def _as(value: Any, dtype: np.dtype) -> Any:
    """value in dtype (the inputs' floating dtype: softmax and matmul give float32 for float16)."""
    return value if value.dtype == dtype else _scalar(await _call("astype", value, dtype))


def _scalar(value: Any) -> Any:
    """A 0-D host result as a NumPy scalar (as the reductions give); anything else as it is."""
    return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value


# ---------------------------------------------------------------- normalization


def _norm_axes(x: Any, normalized_shape: Any, axes: Any, fn: str) -> tuple[int, ...]:
    if (normalized_shape is None) == (axes is None):
        raise TypeError(f"{fn}: give either normalized_shape or axes (exactly one)")
    if axes is not None:
        try:
            return normalize_axes(axes, x.ndim)
        except (TypeError, ValueError, IndexError) as exc:
            raise ValueError(f"{fn}: axes {axes!r}: {exc}") from None
    shape = (normalized_shape,) if isinstance(normalized_shape, numbers.Integral) else normalized_shape
    if not isinstance(shape, (tuple, list)) or not all(isinstance(s, numbers.Integral) for s in shape):
        raise TypeError(f"{fn}: normalized_shape must be an int or a tuple of ints, got {normalized_shape!r}")
    n = len(shape)
    if n == 0 or n > x.ndim or tuple(x.shape[x.ndim - n:]) != tuple(int(s) for s in shape):
        raise ValueError(f"{fn}: normalized_shape {tuple(shape)} is not the trailing shape of x "
                         f"{tuple(x.shape)}")
    return tuple(range(x.ndim - n, x.ndim))


async def _fused_norm(fn: str, x: Any, axes: tuple[int, ...], weight: Any, bias: Any, eps: float) -> Any:
    """The norm in one kernel (rowwise.wgsl), where it can be: x a GpuArray on the GPU normalized
    over its last axis, weight and bias None or vectors of that axis' length; else None (the
    composition runs), also where the adapter cannot take the rows."""
    last = x.ndim - 1
    if not (isinstance(x, GpuArray) and x.device == "webgpu" and axes == (last,) and x.size):
        return None
    if any(v is not None and tuple(v.shape) != (x.shape[last],) for v in (weight, bias)):
        return None
    try:
        return await normalized_rows_async(fn, x, last, weight, bias, eps)
    except ValueError:  # (rows past what the adapter takes: composed of other calls)
        return None


async def _affine(y: Any, weight: Any, bias: Any) -> Any:
    if weight is not None:
        y = await _call("multiply", y, weight)
    if bias is not None:
        y = await _call("add", y, bias)
    return y


async def layer_norm_async(x: Any, /, normalized_shape: Any = None, weight: Any = None, bias: Any = None,
                           eps: float = 1e-5, *, axes: Any = None) -> Array:
    """Layer normalization: (x - mean) / sqrt(var + eps) * weight + bias, the mean and the (biased)
    variance over the trailing `normalized_shape` (an int or a tuple, as PyTorch's) or over `axes`
    (any axes, as JAX's; give one of them). weight and bias broadcast to x's shape.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.nn.layer_norm_async(np.array([[1, 2, 3]], np.float32), 3)).round(4)
    array([[-1.2247,  0.    ,  1.2247]], dtype=float32)
    """
    fn = "layer_norm"
    x = _floating(x, fn)
    found = _norm_axes(x, normalized_shape, axes, fn)
    weight = None if weight is None else _shaped_like(weight, x, fn, "weight")
    bias = None if bias is None else _shaped_like(bias, x, fn, "bias")
    eps = _number(eps, fn, "eps")
    fused = await _fused_norm(fn, x, found, weight, bias, eps)
    if fused is not None:
        return fused
    mean = await _call("mean", x, axis=found, keepdims=True)
    centred = await _call("subtract", x, mean)
    var = await _call("var", x, axis=found, keepdims=True)
    root = await _call("sqrt", await _call("add", var, eps))
    return await _affine(await _call("divide", centred, root), weight, bias)


async def rms_norm_async(x: Any, /, axes: Any = -1, weight: Any = None, eps: float = 1e-6) -> Array:
    """Root-mean-square normalization: x / sqrt(mean(x^2 over `axes`) + eps) * weight (weight
    broadcasts to x's shape).

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.nn.rms_norm_async(np.array([[3, 4]], np.float32), -1, eps=0.0)).round(4)
    array([[0.8485, 1.1314]], dtype=float32)
    """
    fn = "rms_norm"
    x = _floating(x, fn)
    if axes is None:
        raise TypeError(f"{fn}: axes must be an int or a tuple of ints, got None")
    found = _norm_axes(x, None, axes, fn)
    weight = None if weight is None else _shaped_like(weight, x, fn, "weight")
    eps = _number(eps, fn, "eps")
    fused = await _fused_norm(fn, x, found, weight, None, eps)
    if fused is not None:
        return fused
    ms = await _call("mean", await _call("square", x), axis=found, keepdims=True)
    root = await _call("sqrt", await _call("add", ms, eps))
    return await _affine(await _call("divide", x, root), weight, None)


# ---------------------------------------------------------------- reductions and indices


async def logsumexp_async(x: Any, /, axis: Any = None, keepdims: bool = False) -> Array:
    """log(sum(exp(x))) over `axis` (an int, a tuple, None: every axis), computed shifted by the max so
    that large values do not overflow: rows of -inf give -inf, rows with +inf give +inf, NaN gives NaN.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.nn.logsumexp_async(np.array([[1000, 1000], [-np.inf, -np.inf]], np.float32), 1))
    array([1000.6932,      -inf], dtype=float32)
    """
    fn = "logsumexp"
    x = _floating(x, fn)
    if not isinstance(keepdims, (bool, np.bool_)):
        raise TypeError(f"{fn}: keepdims must be True or False, got {keepdims!r}")
    try:
        found = tuple(range(x.ndim)) if axis is None else normalize_axes(axis, x.ndim)
    except (TypeError, ValueError, IndexError) as exc:
        raise ValueError(f"{fn}: axis {axis!r}: {exc}") from None
    if any(x.shape[a] == 0 for a in found):
        raise ValueError(f"{fn}: x has no values along axis {axis!r} (shape {tuple(x.shape)})")
    top = await _call("max", x, axis=found, keepdims=True)
    shift = await _call("where", await _call("isfinite", top), top, 0.0)
    total = await _call("sum", await _call("exp", await _call("subtract", x, shift)), axis=found,
                        keepdims=True)
    out = await _call("add", await _call("log", total), shift)
    if keepdims:
        return out
    shape = tuple(n for i, n in enumerate(x.shape) if i not in found)
    return _scalar(await _call("reshape", out, shape))


async def one_hot_async(indices: Any, /, num_classes: int, dtype: Any = None) -> Array:
    """indices (integers, any shape) as one-hot vectors along a new last axis of num_classes: 1 where
    the class is the index, 0 elsewhere (an index outside [0, num_classes) gives a row of zeros); dtype
    None: float32.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.nn.one_hot_async(np.array([2, 0], np.int32), 3))
    array([[0., 0., 1.],
           [1., 0., 0.]], dtype=float32)
    """
    fn = "one_hot"
    indices = _integers(indices, fn, "indices")
    num_classes = _int(num_classes, fn, "num_classes", 1)
    try:
        dtype = FLOAT32 if dtype is None else pycore_dtype(dtype, "dtype")
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{fn}: {exc}") from None
    kind = "uint32" if indices.dtype == np.uint32 else "int32"
    classes = await _call("arange", num_classes, dtype=kind, device="gpu" if _on_gpu(indices) else None)
    wide = await _call("reshape", indices, (*indices.shape, 1))
    return await _call("astype", await _call("equal", wide, classes), dtype)


async def embedding_async(indices: Any, table: Any, /) -> Array:
    """The rows of `table` (num_embeddings, dim) at `indices` (integers, any shape): shape
    (*indices.shape, dim). IndexError for an index outside the table.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.nn.embedding_async(np.array([1, 1], np.int32), np.eye(2, dtype=np.float32)))
    array([[0., 1.],
           [0., 1.]], dtype=float32)
    """
    fn = "embedding"
    indices = _integers(indices, fn, "indices")
    table = _array(table, fn, "table")
    if table.ndim != 2:
        raise ValueError(f"{fn}: table must be 2-D (num_embeddings, dim), got shape {tuple(table.shape)}")
    return await _call("take", table, indices, axis=0)


_REDUCTIONS = ("mean", "sum", "none")


async def cross_entropy_async(logits: Any, targets: Any, /, axis: int = -1, reduction: str = "mean",
                              label_smoothing: float = 0.0) -> Array:
    """The cross-entropy of `logits` (classes along `axis`) against `targets`, class indices of the
    logits' shape without that axis: -log_softmax(logits)[target], mixed with label_smoothing times the
    mean of -log_softmax over the classes (as PyTorch's); reduction "mean", "sum" or "none".

    >>> import asyncio, numpy as np, pycore
    >>> logits = np.array([[0, 0], [0, np.log(3)]], np.float32)
    >>> targets = np.array([0, 1], np.int32)
    >>> loss = asyncio.run(pycore.nn.cross_entropy_async(logits, targets, reduction="none"))
    >>> loss.round(4)
    array([0.6931, 0.2877], dtype=float32)
    """
    fn = "cross_entropy"
    logits = _floating(logits, fn, "logits")
    targets = _integers(targets, fn, "targets")
    if logits.ndim == 0:
        raise ValueError(f"{fn}: logits must have a class axis, got a 0-D array")
    try:
        axis = normalize_axis(axis, logits.ndim)
    except (TypeError, ValueError, IndexError) as exc:
        raise ValueError(f"{fn}: axis {axis!r}: {exc}") from None
    rest = tuple(n for i, n in enumerate(logits.shape) if i != axis)
    if tuple(targets.shape) != rest:
        raise ValueError(f"{fn}: targets of shape {tuple(targets.shape)} must have the logits' shape without "
                         f"axis {axis}: {rest}")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{fn}: reduction must be one of {', '.join(map(repr, _REDUCTIONS))}, "
                         f"got {reduction!r}")
    smoothing = _number(label_smoothing, fn, "label_smoothing")
    if not 0.0 <= smoothing <= 1.0:
        raise ValueError(f"{fn}: label_smoothing must be in [0, 1], got {label_smoothing}")
    logp = await _call("log_softmax", logits, axis)
    wide = await _call("expand_dims", targets, axis=axis)
    picked = await _call("take_along_axis", logp, wide, axis=axis)
    loss = await _call("negative", await _call("reshape", picked, rest))
    if smoothing:
        spread = await _call("mean", logp, axis=axis)
        loss = await _call("subtract", await _call("multiply", loss, 1.0 - smoothing),
                           await _call("multiply", spread, smoothing))
    if reduction != "none":
        loss = await _call(reduction, loss)
    return await _as(loss, logits.dtype)


# ---------------------------------------------------------------- attention


async def scaled_dot_product_attention_async(q: Any, k: Any, v: Any, /, mask: Any = None,
                                             is_causal: bool = False, scale: float | None = None) -> Array:
    """softmax(q k^T * scale + mask) v on (..., heads, seq, dim) arrays (any leading batch axes,
    broadcast): q (..., L, D), k (..., S, D), v (..., S, Dv) -> (..., L, Dv). scale None: 1/sqrt(D).
    mask broadcasts to (..., L, S): bool (True: attend) or float (added to the scores); is_causal
    keeps key j for query i where j <= i (the top-left-aligned lower triangle, as PyTorch's). A row
    that masks every key gives NaN, as PyTorch's.

    >>> import asyncio, numpy as np, pycore
    >>> q = k = np.eye(2, dtype=np.float32)[None]
    >>> v = np.array([[[1, 0], [0, 1]]], np.float32)
    >>> asyncio.run(pycore.nn.scaled_dot_product_attention_async(q, k, v, is_causal=True)).round(4)
    array([[[1.    , 0.    ],
            [0.3302, 0.6698]]], dtype=float32)
    """
    fn = "scaled_dot_product_attention"
    q, k, v = (_floating(a, fn, n) for a, n in ((q, "q"), (k, "k"), (v, "v")))
    for a, n in ((q, "q"), (k, "k"), (v, "v")):
        if a.ndim < 2:
            raise ValueError(f"{fn}: {n} must be (..., seq, dim), got shape {tuple(a.shape)}")
    if k.shape[-1] != q.shape[-1]:
        raise ValueError(f"{fn}: k's dim {k.shape[-1]} must equal q's {q.shape[-1]}")
    if v.shape[-2] != k.shape[-2]:
        raise ValueError(f"{fn}: v's seq {v.shape[-2]} must equal k's {k.shape[-2]}")
    try:
        batch = broadcast_shapes(tuple(q.shape[:-2]), tuple(k.shape[:-2]), tuple(v.shape[:-2]))
    except ValueError:
        raise ValueError(f"{fn}: the batch axes of q {tuple(q.shape)}, k {tuple(k.shape)} and v "
                         f"{tuple(v.shape)} do not broadcast") from None
    if not isinstance(is_causal, (bool, np.bool_)):
        raise TypeError(f"{fn}: is_causal must be True or False, got {is_causal!r}")
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else _number(scale, fn, "scale")
    scores_shape = (*batch, q.shape[-2], k.shape[-2])
    if mask is not None:
        mask = _array(mask, fn, "mask")
        if mask.dtype.kind not in "bf":
            raise TypeError(f"{fn}: mask must be bool or floating, got {mask.dtype}")
        try:
            fits = broadcast_shapes(tuple(mask.shape), scores_shape) == scores_shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"{fn}: mask of shape {tuple(mask.shape)} does not broadcast to the scores' "
                             f"shape {scores_shape}")
    fused = await _fused_attention(q, k, v, mask, bool(is_causal), scale)
    if fused is not None:
        return fused
    scores = await _call("matmul", await _call("multiply", q, scale), await _call("matrix_transpose", k))
    if mask is not None:
        scores = (await _call("where", mask, scores, -math.inf) if mask.dtype.kind == "b"
                  else await _call("add", scores, mask))
    if is_causal:
        scores = await _call("where", np.tri(q.shape[-2], k.shape[-2], dtype=bool), scores, -math.inf)
    out = await _call("matmul", await _call("softmax", scores, -1), v)
    return await _as(out, result_type(q.dtype, k.dtype, v.dtype))


async def _fused_attention(q: Any, k: Any, v: Any, mask: Any, causal: bool, scale: float) -> Any:
    """The attention in one kernel (kernels/attention.py), where it can run: q a float32 or float16
    GpuArray on the GPU, k, v float32 or float16 and the mask bool, float32 or float16 (converted to
    float32 first), heads of at most MAX_DIM, something to attend; else None (matmul, softmax and
    matmul run), also where the device cannot take the shapes. float16 operands are read as such
    and computed in float32; a float16 result (all three float16) is rounded from the kernel's
    float32 one."""
    floats = (FLOAT32, FLOAT16)
    if not (isinstance(q, GpuArray) and q.device == "webgpu" and q.dtype in floats and q.size):
        return None
    if k.dtype not in floats or v.dtype not in floats or not (k.size and v.size):
        return None
    if max(q.shape[-1], v.shape[-1]) > MAX_DIM or (mask is not None and mask.dtype not in (*floats, BOOL)):
        return None
    if any(isinstance(a, GpuArray) and a.device != "webgpu" for a in (k, v, mask)):
        return None
    if mask is not None and mask.dtype == FLOAT16:
        mask = await _call("astype", mask, FLOAT32)
    try:
        out = await attended_async(q, k, v, mask, causal, scale)
    except ValueError as exc:
        if getattr(exc, "pycore_unfit", False):
            return None
        raise
    return await _as(out, result_type(q.dtype, k.dtype, v.dtype))


# ---------------------------------------------------------------- convolution and pooling


async def _pad(x: Any, pads: Sequence[tuple[int, int]], value: float) -> Any:
    """x with its trailing len(pads) axes padded by (before, after) values each: a concat per axis."""
    first = x.ndim - len(pads)
    for i, (lo, hi) in enumerate(pads):
        if lo == hi == 0:
            continue
        axis = first + i
        parts = []
        for n in (lo, hi):
            shape = list(x.shape)
            shape[axis] = n
            parts.append(np.full(shape, value, x.dtype))
        x = await _call("concat", [parts[0], x, parts[1]], axis=axis)
    return x


async def _windows(x: Any, kernel: tuple[int, ...], stride: tuple[int, ...], dilation: tuple[int, ...],
                   out: tuple[int, ...]) -> Any:
    """(N, C, prod(kernel), *out): each kernel offset's strided view of a padded x, stacked (im2col)."""
    views = []
    for offset in itertools.product(*(range(n) for n in kernel)):
        index = tuple(slice(o * d, o * d + s * (m - 1) + 1, s)
                      for o, d, s, m in zip(offset, dilation, stride, out, strict=True))
        views.append(x[(slice(None), slice(None), *index)])
    return await _call("stack", views, axis=2)


def _out_size(n: int, k: int, s: int, d: int, lo: int, hi: int) -> int:
    return (n + lo + hi - d * (k - 1) - 1) // s + 1


def _padding(padding: Any, d: int, kernel: tuple[int, ...], dilation: tuple[int, ...],
             stride: tuple[int, ...], fn: str) -> list[tuple[int, int]]:
    if padding == "valid":
        return [(0, 0)] * d
    if padding == "same":
        if any(s != 1 for s in stride):
            raise ValueError(f"{fn}: padding 'same' needs stride 1, got stride {stride}")
        totals = [di * (k - 1) for k, di in zip(kernel, dilation, strict=True)]
        return [(t // 2, t - t // 2) for t in totals]
    return [(p, p) for p in _tuple(padding, d, fn, "padding", 0)]


async def conv_async(x: Any, w: Any, /, bias: Any = None, stride: Any = 1, padding: Any = 0,
                     dilation: Any = 1, groups: int = 1) -> Array:
    """The 1-D, 2-D or 3-D convolution (cross-correlation, as PyTorch's convNd) of x (N, C, *spatial)
    with w (O, C // groups, *kernel): (N, O, *out), out = (n + 2 padding - dilation (k - 1) - 1) //
    stride + 1. stride, padding and dilation: an int or one per spatial axis (padding also "valid" or
    "same"); groups divides C and O; bias (O,) is added per output channel.

    >>> import asyncio, numpy as np, pycore
    >>> x = np.arange(5, dtype=np.float32)[None, None]
    >>> asyncio.run(pycore.nn.conv_async(x, np.array([[[1, -1]]], np.float32)))
    array([[[-1., -1., -1., -1.]]], dtype=float32)
    """
    fn = "conv"
    x, w = _floating(x, fn, "x"), _floating(w, fn, "w")
    d = x.ndim - 2
    if d not in (1, 2, 3):
        raise ValueError(f"{fn}: x must be (N, C, *spatial) with 1 to 3 spatial axes, got shape "
                         f"{tuple(x.shape)}")
    if w.ndim != x.ndim:
        raise ValueError(f"{fn}: w must be (O, C // groups, *kernel) with {d} kernel axes, got shape "
                         f"{tuple(w.shape)}")
    groups = _int(groups, fn, "groups", 1)
    n, c, o = x.shape[0], x.shape[1], w.shape[0]
    if c % groups or o % groups:
        raise ValueError(f"{fn}: groups {groups} must divide x's channels {c} and w's output channels {o}")
    if w.shape[1] != c // groups:
        raise ValueError(f"{fn}: w's input channels {w.shape[1]} must be x's channels {c} // groups {groups}")
    kernel = tuple(int(k) for k in w.shape[2:])
    if 0 in kernel:
        raise ValueError(f"{fn}: w's kernel {kernel} must not be empty")
    stride = _tuple(stride, d, fn, "stride", 1)
    dilation = _tuple(dilation, d, fn, "dilation", 1)
    pads = _padding(padding, d, kernel, dilation, stride, fn)
    out = tuple(_out_size(m, k, s, di, lo, hi) for m, k, s, di, (lo, hi)
                in zip(x.shape[2:], kernel, stride, dilation, pads, strict=True))
    if any(m < 1 for m in out):
        raise ValueError(f"{fn}: the kernel {kernel} (dilation {dilation}) is larger than x's padded spatial "
                         f"shape {tuple(x.shape[2:])} + padding {pads}")
    if bias is not None:
        bias = _floating(bias, fn, "bias")
        if tuple(bias.shape) != (o,):
            raise ValueError(f"{fn}: bias must have shape ({o},), got {tuple(bias.shape)}")
    dtype = result_type(x.dtype, w.dtype, *([] if bias is None else [bias.dtype]))
    direct = await _direct_conv(x, w, bias, stride, tuple(pads), dilation, groups)
    if direct is not None:
        return await _as(direct, dtype)  # (the kernel's result is float32)
    cols = await _windows(await _pad(x, pads, 0.0), kernel, stride, dilation, out)
    k, size = math.prod(kernel), math.prod(out)
    cols = await _call("reshape", cols, (n, groups, c // groups * k, size))
    weights = await _call("reshape", w, (groups, o // groups, c // groups * k))
    y = await _call("reshape", await _call("matmul", weights, cols), (n, o, *out))
    if bias is not None:
        y = await _call("add", y, await _call("reshape", bias, (o,) + (1,) * d))
    return await _as(y, dtype)


async def _direct_conv(x: Any, w: Any, bias: Any, stride: tuple[int, ...], pads: tuple[tuple[int, int], ...],
                       dilation: tuple[int, ...], groups: int) -> Any:
    """The convolution in one kernel (kernels/conv.py), where it pays and can run: x a float32 or
    float16 GpuArray on the GPU, w and bias float32 or float16 (read as such, summed in float32), a
    window of at most DIRECT_TAPS taps (channels per group x kernel elements); else None (im2col and
    the matmul run), also where the device cannot take the shapes."""
    floats = (FLOAT32, FLOAT16)
    if not (isinstance(x, GpuArray) and x.device == "webgpu" and x.dtype in floats and x.size):
        return None
    if any(v is not None and v.dtype not in floats for v in (w, bias)):
        return None
    if math.prod(w.shape[1:]) > DIRECT_TAPS:
        return None
    if any(isinstance(v, GpuArray) and v.device != "webgpu" for v in (w, bias)):
        return None
    try:
        return await convolved_async(x, w, bias, stride, pads, dilation, groups)
    except ValueError as exc:
        if getattr(exc, "pycore_unfit", False):
            return None
        raise


def _pool_size(n: int, span: int, stride: int, pad: int, ceil_mode: bool) -> int:
    """Windows of `span` (dilated kernel) `stride` apart over n + 2 pad, the last one cut short
    (floor) or, with ceil_mode, kept where it starts inside x or its padding before.

    >>> _pool_size(6, 2, 2, 0, False), _pool_size(7, 2, 2, 0, False), _pool_size(7, 2, 2, 0, True)
    (3, 3, 4)
    """
    out = (n + 2 * pad - span + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= n + pad:
        out -= 1
    return out


def _flag(value: Any, fn: str, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{fn}: {name} must be True or False, got {value!r}")
    return bool(value)


def _counts(n: int, kernel: int, stride: int, pad: int, out: int, include_pad: bool) -> np.ndarray:
    """How many taps of each of `out` windows an average divides by along one axis: those inside
    x padded by `pad` on each side (include_pad) or inside x only."""
    starts = np.arange(out) * stride - pad
    lo, hi = (-pad, n + pad) if include_pad else (0, n)
    return np.minimum(starts + kernel, hi) - np.maximum(starts, lo)


async def _pool(x: Any, kernel_size: Any, stride: Any, padding: Any, dilation: Any, ceil_mode: Any,
                fn: str, reduce: str, include_pad: Any = True, dims: int | None = None) -> Any:
    """A max ("max") or average ("avg") pool of x (N, C, *spatial) over 1 to 3 spatial axes (or
    exactly `dims`): one direct kernel for a float32 or float16 GpuArray, else composed of calls."""
    x = _floating(x, fn)
    d = x.ndim - 2
    if dims is not None and d != dims:
        raise ValueError(f"{fn}: x must be (N, C, *spatial) with {dims} spatial axes, got shape "
                         f"{tuple(x.shape)}")
    if d not in (1, 2, 3):
        raise ValueError(f"{fn}: x must be (N, C, *spatial) with 1 to 3 spatial axes, got shape "
                         f"{tuple(x.shape)}")
    kernel = _tuple(kernel_size, d, fn, "kernel_size", 1)
    strides = kernel if stride is None else _tuple(stride, d, fn, "stride", 1)
    pads = _tuple(padding, d, fn, "padding", 0)
    dilations = _tuple(dilation, d, fn, "dilation", 1)
    ceil_mode, include_pad = _flag(ceil_mode, fn, "ceil_mode"), _flag(include_pad, fn, "count_include_pad")
    spans = tuple(di * (k - 1) + 1 for k, di in zip(kernel, dilations, strict=True))
    if any(2 * p > span for p, span in zip(pads, spans, strict=True)):
        raise ValueError(f"{fn}: padding {pads} must be at most half the kernel_size {kernel}"
                         + ("" if all(di == 1 for di in dilations) else f" dilated by {dilations} ({spans})"))
    out = tuple(_pool_size(m, span, s, p, ceil_mode)
                for m, span, s, p in zip(x.shape[2:], spans, strides, pads, strict=True))
    if any(m < 1 for m in out):
        raise ValueError(f"{fn}: kernel_size {kernel} is larger than x's padded spatial shape "
                         f"{tuple(x.shape[2:])} + padding {pads}")
    if isinstance(x, GpuArray) and x.device == "webgpu" and x.dtype in (FLOAT32, FLOAT16) and x.size:
        try:
            pooled = await pooled_async(x, reduce, kernel, strides, pads, dilations, out, include_pad)
            return await _as(pooled, x.dtype)  # (the kernel's result is float32)
        except ValueError as exc:
            if not getattr(exc, "pycore_unfit", False):
                raise
    # composed: x padded (to the end of the last window), the strided window views stacked, reduced
    ends = [(o - 1) * s + span - (m + p)
            for o, s, span, m, p in zip(out, strides, spans, x.shape[2:], pads, strict=True)]
    fill = -math.inf if reduce == "max" else 0.0
    padded = await _pad(x, [(p, max(e, 0)) for p, e in zip(pads, ends, strict=True)], fill)
    cols = await _windows(padded, kernel, strides, dilations, out)
    if reduce == "max":
        return await _call("max", cols, axis=2)
    if include_pad and all(e <= p for e, p in zip(ends, pads, strict=True)):
        return await _call("mean", cols, axis=2)  # (every window counts all its taps)
    counts = np.ones(out, np.float64)
    for a, (m, k, s, p, o) in enumerate(zip(x.shape[2:], kernel, strides, pads, out, strict=True)):
        counts = counts * _counts(m, k, s, p, o, include_pad).reshape((-1,) + (1,) * (d - 1 - a))
    return await _call("divide", await _call("sum", cols, axis=2), counts.astype(x.dtype))


async def max_pool_async(x: Any, /, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                         ceil_mode: bool = False) -> Array:
    """The max of each window of x (N, C, *spatial), 1 to 3 spatial axes, as PyTorch's max_poolNd:
    windows of kernel_size taps `dilation` apart, `stride` apart (None: kernel_size), over x padded
    by `padding` (-inf, at most half the dilated kernel) on each side; ceil_mode keeps a last,
    partial window that starts inside x or its padding before. kernel_size, stride, padding and
    dilation: an int or one per spatial axis. NaN propagates. (N, C, *out).

    >>> import asyncio, numpy as np, pycore
    >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> asyncio.run(pycore.nn.max_pool_async(x, 2))
    array([[[[ 5.,  7.],
             [13., 15.]]]], dtype=float32)
    >>> asyncio.run(pycore.nn.max_pool_async(np.arange(5, dtype=np.float32)[None, None], 2, ceil_mode=True))
    array([[[1., 3., 4.]]], dtype=float32)
    """
    return await _pool(x, kernel_size, stride, padding, dilation, ceil_mode, "max_pool", "max")


async def avg_pool_async(x: Any, /, kernel_size: Any, stride: Any = None, padding: Any = 0,
                         ceil_mode: bool = False, count_include_pad: bool = True) -> Array:
    """The mean of each window of x (N, C, *spatial), 1 to 3 spatial axes, as PyTorch's avg_poolNd:
    windows of kernel_size, `stride` apart (None: kernel_size), over x padded by `padding` (zeros,
    at most half the kernel) on each side; ceil_mode keeps a last, partial window that starts
    inside x or its padding before. Each window's sum is divided by its taps inside x and the
    padding (count_include_pad, the default) or inside x only; a partial window's taps past the
    padding never count. (N, C, *out).

    >>> import asyncio, numpy as np, pycore
    >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> asyncio.run(pycore.nn.avg_pool_async(x, 2))
    array([[[[ 2.5,  4.5],
             [10.5, 12.5]]]], dtype=float32)
    >>> ones = np.ones((1, 1, 3), np.float32)
    >>> asyncio.run(pycore.nn.avg_pool_async(ones, 3, 1, 1, count_include_pad=False))
    array([[[1., 1., 1.]]], dtype=float32)
    """
    return await _pool(x, kernel_size, stride, padding, 1, ceil_mode, "avg_pool", "avg", count_include_pad)


async def max_pool2d_async(x: Any, /, kernel_size: Any, stride: Any = None, padding: Any = 0,
                           dilation: Any = 1, ceil_mode: bool = False) -> Array:
    """max_pool of x (N, C, H, W) only: (N, C, H_out, W_out).

    >>> import asyncio, numpy as np, pycore
    >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> asyncio.run(pycore.nn.max_pool2d_async(x, 3, 1, 1))[0, 0, 0]
    array([5., 6., 7., 7.], dtype=float32)
    """
    return await _pool(x, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d", "max", dims=2)


async def avg_pool2d_async(x: Any, /, kernel_size: Any, stride: Any = None, padding: Any = 0,
                           ceil_mode: bool = False, count_include_pad: bool = True) -> Array:
    """avg_pool of x (N, C, H, W) only: (N, C, H_out, W_out).

    >>> import asyncio, numpy as np, pycore
    >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> asyncio.run(pycore.nn.avg_pool2d_async(x, 2))
    array([[[[ 2.5,  4.5],
             [10.5, 12.5]]]], dtype=float32)
    """
    return await _pool(x, kernel_size, stride, padding, 1, ceil_mode, "avg_pool2d", "avg", count_include_pad,
                       dims=2)


# ---------------------------------------------------------------- the module

NN: dict[str, Callable[..., Any]] = {f.__name__: f for f in (
    layer_norm_async, rms_norm_async, logsumexp_async, one_hot_async, embedding_async, cross_entropy_async,
    scaled_dot_product_attention_async, conv_async, max_pool_async, avg_pool_async, max_pool2d_async,
    avg_pool2d_async)}
for _f in NN.values():
    _f.__module__ = "pycore.nn"


def make_module() -> types.ModuleType:
    """The `pycore.nn` module (registered in sys.modules): its functions and ROUTES."""
    return extension_module("nn", __doc__, NN, {"ROUTES": ROUTES})
