"""The Python Array API standard's manipulation functions, with its names, parameters and defaults,
each as `<name>_async`: reshape, the view functions (permute_dims, matrix_transpose, expand_dims,
squeeze, broadcast_to, broadcast_arrays, moveaxis, flip, unstack: also plain), concat, stack,
roll, tile, repeat and astype.

Where results live: a GpuArray when any input is one, a NumPy array otherwise (astype's `device=`
says otherwise where given). On GpuArrays the view functions, and reshape where the strides allow,
return views: no copy, no dispatch. The others run the placing kernels (calls/placing.py): one
dispatch per region of the output, each copying an input view into it. On host arrays every
function is NumPy's.

>>> import asyncio, numpy as np, pycore
>>> asyncio.run(pycore.concat_async([np.array([1, 2], np.int32), np.array([3], np.int32)]))
array([1, 2, 3], dtype=int32)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from pycore.array.dtypes import pycore_dtype
from pycore.array.dtypes import result_type as _promoted
from pycore.array.layout import Layout, broadcast_shapes, normalize_axes, normalize_axis
from pycore.calls.arguments import Array, array_arg, arrays_arg, int_arg, result_device, shape_arg
from pycore.calls.gpuarray import GpuArray, to_gpu_async
from pycore.calls.placing import moved_async, whole
from pycore.kernels.place import Part


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
    x = array_arg(x)
    dims = shape_arg(shape) if not isinstance(shape, (tuple, list)) else tuple(
        int_arg(n, f"shape[{i}]", -1) for i, n in enumerate(shape))
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
    x = array_arg(x)
    if not isinstance(axes, (tuple, list)):
        raise TypeError(f"permute_dims: axes must be a tuple of ints, got {type(axes).__name__}")
    found = tuple(normalize_axis(a, x.ndim, "axes") for a in axes)
    if sorted(found) != list(range(x.ndim)):
        raise ValueError(f"permute_dims: axes {tuple(axes)} is not a permutation of x's {x.ndim} axes")
    return x.transpose(found) if isinstance(x, GpuArray) else np.permute_dims(x, found)


def matrix_transpose(x: Any, /) -> Array:
    """x's matrices (its last two axes) transposed: a view."""
    x = array_arg(x)
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose: x must have at least 2 dimensions, got shape {tuple(x.shape)}")
    return x.mT if isinstance(x, GpuArray) else np.matrix_transpose(x)


def expand_dims(x: Any, /, axis: Any = 0) -> Array:
    """x with a new axis of length 1 at `axis` (of the result; a tuple: one at each): a view."""
    x = array_arg(x)
    many = isinstance(axis, (tuple, list))
    ndim = x.ndim + (len(axis) if many else 1)
    for a in axis if many else (axis,):  # (the standard's IndexError for an axis out of range)
        if isinstance(a, (int, np.integer)) and not isinstance(a, bool) and not -ndim <= a < ndim:
            raise IndexError(f"expand_dims: axis {a} is out of range for a result of {ndim} dimension(s) "
                             f"(valid: {-ndim} to {ndim - 1})")
    axes = normalize_axes(tuple(axis) if many else axis, ndim)
    if not isinstance(x, GpuArray):
        return np.expand_dims(x, axes)
    for a in axes:
        x = x.expand_dims(a)
    return x


def squeeze(x: Any, /, axis: Any) -> Array:
    """x without the axes named (an int or a tuple; each of length 1, else ValueError): a view."""
    x = array_arg(x)
    axes = normalize_axes(tuple(axis) if isinstance(axis, (tuple, list)) else axis, x.ndim)
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} has length {x.shape[a]}, not 1")
    return x.squeeze(axes) if isinstance(x, GpuArray) else np.squeeze(x, axes)


def broadcast_to(x: Any, /, shape: Any) -> Array:
    """x repeated along axes of length 1 (and new leading ones) to `shape`: a view."""
    x = array_arg(x)
    dims = shape_arg(shape)
    try:
        fits = len(dims) >= x.ndim and broadcast_shapes(tuple(x.shape), dims) == dims
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"broadcast_to: x of shape {tuple(x.shape)} does not broadcast to {dims}")
    return x.broadcast_to(dims) if isinstance(x, GpuArray) else np.broadcast_to(x, dims)


def broadcast_arrays(*arrays: Any) -> tuple[Array, ...]:
    """The arrays broadcast to their common shape: views."""
    xs = [array_arg(a, f"arrays[{i}]") for i, a in enumerate(arrays)]
    try:
        shape = broadcast_shapes(*[tuple(x.shape) for x in xs])
    except ValueError as exc:
        raise ValueError(f"broadcast_arrays: {exc}") from None
    return tuple(broadcast_to(x, shape) for x in xs)


def moveaxis(x: Any, source: Any, destination: Any, /) -> Array:
    """x with axes `source` moved to positions `destination` (ints, or tuples of one length), the
    others in their order: a view."""
    x = array_arg(x)
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
    x = array_arg(x)
    axes = normalize_axes(tuple(axis) if isinstance(axis, (tuple, list)) else axis, x.ndim)
    key = tuple(slice(None, None, -1) if a in axes else slice(None) for a in range(x.ndim))
    return x[key] if isinstance(x, GpuArray) else np.flip(x, axes)


def broadcast_shapes_(*shapes: Any) -> tuple[int, ...]:
    """The shape that arrays of these shapes broadcast to (ValueError naming them where they do
    not): shapes only, no arrays."""
    return broadcast_shapes(*[shape_arg(s, f"shapes[{k}]") for k, s in enumerate(shapes)])


def _real_valued(x: Any, fn: str) -> Array:
    x = array_arg(x)
    if x.dtype.kind not in "iuf":
        raise TypeError(f"{fn}: x must have a numeric dtype, got {x.dtype}")
    return x


def real(x: Any, /) -> Array:
    """The real part of x: x itself for pycore's real-valued dtypes (no copy, no dispatch); of a
    complex64 array, its real parts as float32: a view of a GpuArray's buffer, a copy of a NumPy
    array's."""
    x = array_arg(x)
    if x.dtype.kind == "c":
        return x.pairs()[..., 0] if isinstance(x, GpuArray) else x.real.copy()
    return _real_valued(x, "real")


def conj(x: Any, /) -> Array:
    """The complex conjugate of x: x itself for pycore's real-valued dtypes (no copy, no dispatch);
    of a complex64 NumPy array, its conjugate. A complex64 GpuArray's conjugate runs a kernel:
    `await pycore.conj_async(x)` (TypeError here)."""
    x = array_arg(x)
    if x.dtype.kind == "c":
        if isinstance(x, GpuArray):
            raise TypeError("conj: a complex64 GpuArray's conjugate runs a kernel: use "
                            "`await pycore.conj_async(x)`")
        return np.conj(x)
    return _real_valued(x, "conj")


async def conj_async(x: Any, /) -> Array:
    """The complex conjugate of x: x itself for pycore's real-valued dtypes (no copy, no dispatch);
    of a complex64 array, its conjugate (one kernel for a GpuArray).

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.conj_async(np.array([1 + 2j], np.complex64)))
    array([1.-2.j], dtype=complex64)
    """
    x = array_arg(x)
    if isinstance(x, GpuArray) and x.dtype.kind == "c":
        return await x._copy_async(x.dtype, "conj")
    return conj(x)


async def imag_async(x: Any, /) -> Array:
    """The imaginary part of x: of a complex64 array, float32 (a view of a GpuArray's buffer, a
    copy of a NumPy array's); of pycore's real-valued dtypes, zeros of x's dtype where x lives (as
    NumPy's imag).

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.imag_async(np.array([1 + 2j, 3 - 1j], np.complex64)))
    array([ 2., -1.], dtype=float32)
    """
    x = array_arg(x)
    if x.dtype.kind == "c":
        return x.pairs()[..., 1] if isinstance(x, GpuArray) else x.imag.copy()
    x = _real_valued(x, "imag")
    shape = tuple(x.shape)
    return await moved_async("imag", [x], shape, x.dtype,
                             lambda layouts: [Part(whole(shape), "value", values=(0,))],
                             lambda hs: np.zeros(shape, x.dtype))


def unstack(x: Any, /, *, axis: Any = 0) -> tuple[Array, ...]:
    """x split along `axis` into its x.shape[axis] slices, each without that axis: views."""
    x = array_arg(x)
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
    xs = arrays_arg(arrays, "concat")
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

        return await moved_async("concat", xs, shape, dtype, flat,
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
        out, parts, at = whole(shape), [], 0
        for j, (x, layout) in enumerate(zip(xs, layouts, strict=True)):
            key = (slice(None),) * a + (slice(at, at + x.shape[a]),)
            parts.append(Part(out.getitem(key), "copy", source=layout, dtype=x.dtype, index=j))
            at += x.shape[a]
        return parts

    return await moved_async("concat", xs, shape, dtype, joined,
                             lambda hs: np.concatenate([h.astype(dtype) for h in hs], axis=a))


async def stack_async(arrays: Any, /, *, axis: Any = 0) -> Array:
    """The arrays (of one shape) joined along a new axis at `axis` of the result, in the dtype they
    promote to.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.stack_async([np.array([1, 2], np.int32), np.array([3, 4], np.int32)], axis=1))
    array([[1, 3],
           [2, 4]], dtype=int32)
    """
    xs = arrays_arg(arrays, "stack")
    dtype = _promoted(*[x.dtype for x in xs])
    for i, x in enumerate(xs):
        if tuple(x.shape) != tuple(xs[0].shape):
            raise ValueError(f"stack: arrays[{i}] of shape {tuple(x.shape)} differs from arrays[0]'s "
                             f"{tuple(xs[0].shape)}")
    a = normalize_axis(axis, xs[0].ndim + 1)
    shape = (*xs[0].shape[:a], len(xs), *xs[0].shape[a:])

    def stacked(layouts: list[Layout]) -> list[Part]:
        out = whole(shape)
        return [Part(out.getitem((slice(None),) * a + (j,)), "copy", source=layout, dtype=x.dtype, index=j)
                for j, (x, layout) in enumerate(zip(xs, layouts, strict=True))]

    return await moved_async("stack", xs, shape, dtype, stacked,
                             lambda hs: np.stack([h.astype(dtype) for h in hs], axis=a))


async def roll_async(x: Any, /, shift: Any, *, axis: Any = None) -> Array:
    """x's elements shifted by `shift` along `axis` (ints, or tuples paired up; None: the flattened
    array), those pushed past the end coming back at the start.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.roll_async(np.array([1, 2, 3, 4], np.int32), 1))
    array([4, 1, 2, 3], dtype=int32)
    """
    x = array_arg(x)
    shape = tuple(x.shape)
    shifts = list(shift) if isinstance(shift, (tuple, list)) else [shift]
    shifts = [int_arg(s, "shift") for s in shifts]
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
            parts.append(Part(whole(dims).getitem(tuple(out_key)), "copy", source=src.getitem(tuple(in_key)),
                              dtype=x.dtype))
        return parts

    if (axis is None and isinstance(x, GpuArray)
            and x.layout.reshape((x.size,)) is None):
        x = await x.copy_async()  # (a view whose elements do not flatten without a copy)
    result = await moved_async("roll", [x], dims, x.dtype, rolled,
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
    x = array_arg(x)
    if not isinstance(repetitions, (tuple, list)):
        raise TypeError(f"tile: repetitions must be a tuple of ints, got {type(repetitions).__name__}")
    reps = [int_arg(r, f"repetitions[{i}]", 0) for i, r in enumerate(repetitions)]
    ndim = max(x.ndim, len(reps))
    reps = [1] * (ndim - len(reps)) + reps
    dims = [1] * (ndim - x.ndim) + list(x.shape)
    shape = tuple(r * n for r, n in zip(reps, dims, strict=True))
    pairs = tuple(v for r, n in zip(reps, dims, strict=True) for v in (r, n))

    def tiled(layouts: list[Layout]) -> list[Part]:
        src = layouts[0]
        strides = [0] * (ndim - x.ndim) + list(src.strides)
        source = Layout(pairs, tuple(v for s in strides for v in (0, s)), src.offset)
        return [Part(whole(pairs), "copy", source=source, dtype=x.dtype)]

    return await moved_async("tile", [x], shape, x.dtype, tiled, lambda hs: np.tile(hs[0], reps))


async def repeat_async(x: Any, repeats: Any, /, *, axis: Any = None) -> Array:
    """Each element of x repeated along `axis` (None: of the flattened array): `repeats` times (an
    int), or repeats[i] times for element i (a 1-D integer array of that axis's length, or of 1).

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.repeat_async(np.array([[1, 2], [3, 4]], np.int32), np.array([1, 2]), axis=0))
    array([[1, 2],
           [3, 4],
           [3, 4]], dtype=int32)
    """
    x = array_arg(x)
    if isinstance(repeats, (GpuArray, np.ndarray, list, tuple)):
        counts = np.asarray(await repeats.to_numpy_async() if isinstance(repeats, GpuArray) else repeats)
        if counts.dtype.kind not in "iu" or counts.ndim != 1:
            raise TypeError(f"repeat: repeats must be an int or a 1-D integer array, got {counts.dtype} of "
                            f"shape {counts.shape}")
    else:
        counts = np.array([int_arg(repeats, "repeats")])
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
        src, out = layouts[0], whole(shape)
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

    return await moved_async("repeat", [x], shape, x.dtype, repeated,  # (intp: 32 bits in Pyodide)
                             lambda hs: np.repeat(hs[0], counts.astype(np.intp), axis=a))


async def astype_async(x: Any, dtype: Any, /, *, copy: bool = True, device: Any = None) -> Array:
    """x converted to `dtype` (floats to ints truncate, nonzero is True): a new array unless copy is
    False and x already has that dtype (and device).

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.astype_async(np.array([1.7, -0.5, 0], np.float32), "int32"))
    array([1, 0, 0], dtype=int32)
    """
    x = array_arg(x)
    found = pycore_dtype(dtype, "dtype")
    if x.dtype.kind == "c" and found.kind not in "cb":
        raise TypeError(f"astype: complex64 does not convert to {found.name} (the standard leaves it out: "
                        f"take real(x), imag or abs first)")
    if not isinstance(copy, (bool, np.bool_)):
        raise TypeError(f"astype: copy must be True or False, got {copy!r}")
    where = result_device(x, device)
    if isinstance(x, GpuArray):
        if where == "cpu":
            return (await x.to_numpy_async()).astype(found)
        return x if not copy and found == x.dtype else await x.astype_async(found)
    if where == "gpu":
        return await to_gpu_async(x.astype(found))
    return x.astype(found, copy=bool(copy))


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
    "broadcast_shapes": ("pycore.broadcast_shapes((3, 1), (4,))", "(3, 4)"),
    "real": ("pycore.real(np.array([1.5, -2.0], np.float32))", "array([ 1.5, -2. ], dtype=float32)"),
    "conj": ("pycore.conj(np.array([1, -2], np.int32))", "array([ 1, -2], dtype=int32)"),
}
broadcast_shapes_.__name__ = broadcast_shapes_.__qualname__ = "broadcast_shapes"
VIEWS: dict[str, Callable[..., Any]] = {
    "permute_dims": permute_dims, "matrix_transpose": matrix_transpose, "expand_dims": expand_dims,
    "squeeze": squeeze, "broadcast_to": broadcast_to, "broadcast_arrays": broadcast_arrays,
    "moveaxis": moveaxis, "flip": flip, "unstack": unstack, "broadcast_shapes": broadcast_shapes_,
    "real": real, "conj": conj}
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


# The functions that run kernels (or may), as `<name>_async`; the view functions, sync and awaitable.
# How each runs on a GpuArray: docs/api.md's table.
ON_GPU: dict[str, str] = {
    **{name: "a view, no dispatch" for name in ("permute_dims", "matrix_transpose", "expand_dims", "squeeze",
                                                "broadcast_to", "broadcast_arrays", "moveaxis", "flip",
                                                "unstack", "real")},
    "conj": "a view of real dtypes; a kernel (strided.wgsl) for complex64",
    "broadcast_shapes": "shapes only",
    "reshape": "a view where the strides allow, else a copy kernel (place.wgsl)",
    **{name: "copy kernels into regions of the output (place.wgsl)" for name in ("concat", "stack", "roll",
                                                                                "tile", "repeat")},
    "astype": "a conversion kernel (strided.wgsl)",
    "imag": "a view of complex64's imaginary parts; a fill kernel (place.wgsl): zeros for real dtypes",
}


MANIPULATION: dict[str, Callable[..., Any]] = {f.__name__: f for f in (
    reshape_async, concat_async, stack_async, roll_async, tile_async, repeat_async, astype_async,
    imag_async)}
VIEWS_ASYNC: dict[str, Callable[..., Any]] = {f"{name}_async": _awaitable(fn, name)
                                               for name, fn in VIEWS.items()}
VIEWS_ASYNC["conj_async"] = conj_async  # (a kernel for a complex64 GpuArray)
