"""Where an array's elements lie in its buffer: shape, strides and offset, all in elements.

A `Layout` is what a GpuArray adds to its buffer. Views are new layouts over the same buffer, so
they never copy and never dispatch: `transpose`, `getitem` (integers, slices with any step,
None, Ellipsis), `reshape` (where the strides allow it; None otherwise, and the caller copies),
`expand_dims`, `squeeze` and `broadcast_to` (stride 0). Kernels read inputs through their
layouts; `collapse` merges dimensions that are contiguous in every operand, so a kernel does
the least index arithmetic the data allows.

>>> v = Layout.contiguous((4, 6)).transpose((1, 0)).getitem((slice(None, None, -2),))
>>> v.shape, v.strides, v.offset
((3, 4), (-2, 6), 5)
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


def _contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _is_int(item: Any) -> bool:
    """An integer index: an int or a NumPy integer (a 0-d one too), not a bool or an array."""
    if isinstance(item, bool):
        return False
    try:
        operator.index(item)
    except TypeError:
        return False
    return True


def normalize_axis(axis: int, ndim: int, name: str = "axis") -> int:
    """`axis` as a non-negative axis of an ndim-dimensional array, or an error naming both.

    >>> normalize_axis(-1, 3)
    2
    >>> normalize_axis(3, 3)
    Traceback (most recent call last):
    ValueError: axis 3 is out of range for an array of 3 dimension(s) (valid: -3 to 2)
    """
    if isinstance(axis, bool) or not isinstance(axis, int):
        try:
            if isinstance(axis, bool):  # (operator.index takes True as 1: NumPy refuses it)
                raise TypeError
            axis = operator.index(axis)
        except TypeError:
            raise TypeError(f"{name} must be an int, got {type(axis).__name__} {axis!r}") from None
    if not -ndim <= axis < ndim:
        raise ValueError(
            f"{name} {axis} is out of range for an array of {ndim} dimension(s) "
            f"(valid: {-ndim} to {ndim - 1})"
            if ndim
            else f"{name} {axis} is out of range for a 0-d array (it has no axes)"
        )
    return axis % ndim


def normalize_axes(axis: int | Sequence[int] | None, ndim: int, name: str = "axis") -> tuple[int, ...]:
    """A reduction's axes, sorted, each once: None means all of them.

    >>> normalize_axes(None, 3), normalize_axes((-1, 0), 3)
    ((0, 1, 2), (0, 2))
    """
    if axis is None:
        return tuple(range(ndim))
    axes: list[Any] = [axis] if not isinstance(axis, (tuple, list)) else list(axis)
    found = [normalize_axis(a, ndim, name) for a in axes]
    if len(set(found)) != len(found):
        raise ValueError(f"{name} {tuple(axes)} names an axis twice")
    return tuple(sorted(found))


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape that arrays of these shapes broadcast to (NumPy's rules), or ValueError naming them.

    >>> broadcast_shapes((4096, 256), (256,)), broadcast_shapes((8, 1, 3), (5, 1))
    ((4096, 256), (8, 5, 3))
    >>> broadcast_shapes((3,), (4,))
    Traceback (most recent call last):
    ValueError: shapes (3,) and (4,) do not broadcast: 3 and 4 differ in the last axis (and neither is 1)
    """
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for shape in shapes:
        for i, n in enumerate(shape):
            j = ndim - len(shape) + i
            if out[j] == 1:
                out[j] = n
            elif n != 1 and n != out[j]:
                where = "the last axis" if j == ndim - 1 else f"axis {j - ndim} (from the end)"
                raise ValueError(
                    f"shapes {' and '.join(str(tuple(s)) for s in shapes)} do not broadcast: "
                    f"{out[j]} and {n} differ in {where} (and neither is 1)"
                )
    return tuple(out)


def matmul_shape(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """The shape of a @ b as numpy.matmul gives it (1-D operands as a row or a column, dropped
    from the result; batch axes broadcast), or ValueError naming the shapes.

    >>> matmul_shape((8, 512, 64), (64, 512)), matmul_shape((3,), (2, 3, 4)), matmul_shape((5, 3), (3,))
    ((8, 512, 512), (2, 4), (5,))
    """
    a, b = tuple(a), tuple(b)
    for name, shape in (("a", a), ("b", b)):
        if len(shape) == 0:
            raise ValueError(f"matmul: {name} must have at least 1 dimension, got a 0-d array")
    ka, kb = a[-1], (b[-2] if len(b) > 1 else b[0])
    if ka != kb:
        if len(a) == 2 and len(b) == 2:
            raise ValueError(f"matmul: a is {a} and b is {b}: a's columns ({a[1]}) "
                             f"must equal b's rows ({b[0]})")
        raise ValueError(f"matmul: a {a} and b {b} do not match: a's last axis ({ka}) must equal b's "
                         f"{'second-to-last' if len(b) > 1 else 'only'} axis ({kb})")
    try:
        batch = broadcast_shapes(a[:-2], b[:-2])
    except ValueError as exc:
        raise ValueError(f"matmul: the batch axes of a {a} and b {b} do not broadcast ({exc})") from None
    return (*batch, *(a[-2:-1]), *(b[-1:] if len(b) > 1 else ()))


def conv_shape(image: Sequence[int], kernel: Sequence[int], mode: str) -> tuple[int, int]:
    """The shape of a 2-D convolution's output: the image's ("same"), or where the whole kernel
    fits ("valid").

    >>> conv_shape((64, 48), (3, 5), "valid"), conv_shape((64, 48), (3, 5), "same")
    ((62, 44), (64, 48))
    """
    (h, w), (kh, kw) = image, kernel
    return (h, w) if mode == "same" else (h - kh + 1, w - kw + 1)


@dataclass(frozen=True)
class Layout:
    shape: tuple[int, ...]
    strides: tuple[int, ...]  # elements
    offset: int = 0  # elements

    @classmethod
    def contiguous(cls, shape: tuple[int, ...], offset: int = 0) -> Layout:
        shape = tuple(int(n) for n in shape)
        return cls(shape, _contiguous_strides(shape), offset)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def is_contiguous(self) -> bool:
        """C-contiguous: element i lies at offset + i (axes of length 1 may have any stride)."""
        step = 1
        for n, s in zip(reversed(self.shape), reversed(self.strides), strict=True):
            if n != 1 and s != step:
                return False
            step *= n
        return True

    def pairs(self) -> Layout:
        """This layout of complex elements as one of their float32 halves: a last axis of 2 (the
        real part, then the imaginary one), every stride and the offset doubled.

        >>> Layout((3,), (2,), 1).pairs()
        Layout(shape=(3, 2), strides=(4, 1), offset=2)
        """
        return Layout((*self.shape, 2), (*(2 * s for s in self.strides), 1), 2 * self.offset)

    def span(self) -> tuple[int, int]:
        """The lowest and one past the highest element index the layout touches (offset, offset
        for an empty array).

        >>> Layout((3, 4), (-2, 6), 5).span()
        (1, 24)
        """
        if self.size == 0:
            return self.offset, self.offset
        low = high = self.offset
        for n, s in zip(self.shape, self.strides, strict=True):
            if s < 0:
                low += (n - 1) * s
            else:
                high += (n - 1) * s
        return low, high + 1

    # -- views
    def transpose(self, axes: Sequence[int] | None = None) -> Layout:
        """Axes permuted (reversed when None), as numpy.transpose."""
        if axes is None:
            axes = tuple(reversed(range(self.ndim)))
        found = [normalize_axis(a, self.ndim, "axes") for a in axes]
        if sorted(found) != list(range(self.ndim)):
            raise ValueError(f"axes {tuple(axes)} is not a permutation of the {self.ndim} axes")
        return Layout(tuple(self.shape[a] for a in found), tuple(self.strides[a] for a in found), self.offset)

    def getitem(self, key: Any) -> Layout:
        """The view `x[key]` for basic indexing: ints, slices (any step), None and Ellipsis.

        >>> Layout.contiguous((2, 3, 4)).getitem((1, ..., None, slice(None, None, 2))).shape
        (3, 1, 2)
        """
        items = list(key) if isinstance(key, tuple) else [key]
        for item in items:
            if not (item is None or item is Ellipsis or isinstance(item, slice) or _is_int(item)):
                raise TypeError(
                    f"index {item!r}: only integers, slices, None and ... index a GpuArray "
                    f"(a view, no copy); arrays of indices are not supported"
                )
        if sum(item is Ellipsis for item in items) > 1:
            raise IndexError("an index can only have a single ellipsis ('...')")
        used = sum(1 for item in items if item is not None and item is not Ellipsis)
        if used > self.ndim:
            raise IndexError(
                f"too many indices: the array is {self.ndim}-dimensional, but {used} were indexed"
            )
        at = next((k for k, item in enumerate(items) if item is Ellipsis), None)  # (`is`: no array ==)
        if at is not None:
            items[at : at + 1] = [slice(None)] * (self.ndim - used)
        else:
            items += [slice(None)] * (self.ndim - used)
        shape, strides, offset, axis = [], [], self.offset, 0
        for item in items:
            if item is None:
                shape.append(1)
                strides.append(0)
                continue
            n, s = self.shape[axis], self.strides[axis]
            if isinstance(item, slice):
                start, stop, step = item.indices(n)
                count = len(range(start, stop, step))
                shape.append(count)
                strides.append(s * step)
                if count:
                    offset += start * s
            else:
                i = operator.index(item)
                if not -n <= i < n:
                    raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
                offset += (i % n) * s
            axis += 1
        return Layout(tuple(shape), tuple(strides), offset)

    def reshape(self, shape: Sequence[int]) -> Layout | None:
        """The same elements in another shape without a copy, or None where the strides do not
        allow it (NumPy's rule: one -1 stands for the rest; a bad shape is a ValueError).

        >>> grid = Layout.contiguous((4, 6))
        >>> grid.reshape((3, -1)).shape, grid.transpose().reshape((24,))
        ((3, 8), None)
        """
        dims = resolve_shape(shape, self.size, self.shape)
        if self.size == 0 or self.is_contiguous:
            return Layout.contiguous(dims, self.offset)
        # split/merge runs of axes: each run of old axes must be contiguous among themselves
        old = [(n, s) for n, s in zip(self.shape, self.strides, strict=True) if n != 1]
        new_strides: list[int] = []
        i = 0
        pending = [d for d in dims]
        j = 0
        while j < len(pending):
            d = pending[j]
            if d == 1:
                new_strides.append(0)
                j += 1
                continue
            # take old axes until their product reaches a multiple matching a run of new axes
            run_old, prod_old = [old[i]], old[i][0]
            i += 1
            run_new, prod_new = [j], d
            j += 1
            while prod_old != prod_new:
                if prod_old < prod_new:
                    run_old.append(old[i])
                    prod_old *= old[i][0]
                    i += 1
                else:
                    while j < len(pending) and pending[j] == 1:
                        run_new.append(j)
                        j += 1
                    run_new.append(j)
                    prod_new *= pending[j]
                    j += 1
            for (_, s_a), (n_b, s_b) in itertools.pairwise(run_old):
                if s_a != s_b * n_b:
                    return None
            step = run_old[-1][1]
            strides_run = []
            for k in reversed(run_new):
                strides_run.append(step if pending[k] != 1 else 0)
                step *= pending[k]
            new_strides.extend(reversed(strides_run))
        return Layout(dims, tuple(new_strides), self.offset)

    def expand_dims(self, axis: int) -> Layout:
        """A new axis of length 1 at `axis` (of the result: -1 appends one)."""
        at = normalize_axis(axis, self.ndim + 1)
        return Layout(
            (*self.shape[:at], 1, *self.shape[at:]),
            (*self.strides[:at], 0, *self.strides[at:]),
            self.offset,
        )

    def squeeze(self, axis: int | Sequence[int] | None = None) -> Layout:
        """Axes of length 1 removed (all of them when None; a named axis must have length 1)."""
        if axis is None:
            drop = {i for i, n in enumerate(self.shape) if n == 1}
        else:
            drop = set(normalize_axes(axis, self.ndim))
            for a in drop:
                if self.shape[a] != 1:
                    raise ValueError(f"cannot squeeze axis {a}: its length is {self.shape[a]}, not 1")
        keep = [i for i in range(self.ndim) if i not in drop]
        return Layout(tuple(self.shape[i] for i in keep), tuple(self.strides[i] for i in keep), self.offset)

    def broadcast_to(self, shape: Sequence[int]) -> Layout:
        """A read-only view with `shape` (stride 0 along broadcast axes), as numpy.broadcast_to."""
        shape = tuple(int(n) for n in shape)
        if len(shape) < self.ndim or broadcast_shapes(self.shape, shape) != shape:
            raise ValueError(f"cannot broadcast shape {self.shape} to {shape}")
        lead = len(shape) - self.ndim
        strides = [0] * lead + [
            0 if n == 1 and m != 1 else s
            for n, m, s in zip(self.shape, shape[lead:], self.strides, strict=True)
        ]
        return Layout(shape, tuple(strides), self.offset)


def resolve_shape(shape: Sequence[int] | int, size: int, old: tuple[int, ...] = ()) -> tuple[int, ...]:
    """A requested shape with its one -1 filled in, checked against `size` elements.

    >>> resolve_shape((2, -1), 6)
    (2, 3)
    """
    dims = [shape] if isinstance(shape, int) else list(shape)
    try:
        dims = [operator.index(d) for d in dims]
    except TypeError:
        raise TypeError(f"shape {tuple(dims)} must hold integers") from None
    if dims.count(-1) > 1 or any(d < -1 for d in dims):
        raise ValueError(f"shape {tuple(dims)}: at most one -1, and no other negative lengths")
    if -1 in dims:
        known = math.prod(d for d in dims if d != -1)
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape an array of shape {old} ({size} elements) into {tuple(dims)}")
        dims = [size // known if d == -1 else d for d in dims]
    if math.prod(dims) != size:
        raise ValueError(f"cannot reshape an array of shape {old} ({size} elements) into {tuple(dims)}")
    return tuple(dims)


def collapse(
    shape: tuple[int, ...], strides: Sequence[tuple[int, ...]]
) -> tuple[tuple[int, ...], list[tuple[int, ...]]]:
    """Merge neighbouring axes that are contiguous in every operand (and drop axes of length 1):
    the fewest axes that index the same elements. Returns (shape, one strides tuple per operand);
    at least one axis.

    >>> collapse((4, 6, 8), [(48, 8, 1), (0, 8, 1)])
    ((4, 48), [(48, 1), (0, 1)])
    """
    axes = [i for i, n in enumerate(shape) if n != 1]
    out_shape: list[int] = []
    out_strides: list[list[int]] = [[] for _ in strides]
    for i in axes:
        n = shape[i]
        if out_shape and all(st[-1] == s[i] * n for st, s in zip(out_strides, strides, strict=True)):
            out_shape[-1] *= n
            for st, s in zip(out_strides, strides, strict=True):
                st[-1] = s[i]
            continue
        out_shape.append(n)
        for st, s in zip(out_strides, strides, strict=True):
            st.append(s[i])
    if not out_shape:
        return (1,), [(0,) for _ in strides]
    return tuple(out_shape), [tuple(st) for st in out_strides]
