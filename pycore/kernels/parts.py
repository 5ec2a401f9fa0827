"""How work on a host array larger than one GPU storage binding is split into parts that fit: rows
of axis 0 (element-wise ops, reductions that keep axis 0 or combine partial results, row-wise ops
with their rows moved last, a matmul's rows of A and C) or flat element ranges (the fixed
element-wise and whole-array reduction kernels). The calls run one plan per part and join the
parts' results; what one part cannot hold (a single row past the limit) is an error naming it.

Pure arithmetic on shapes and limits, tested without a GPU.

>>> row_step((10, 1000), 8000), parts(10, 4)
(2, [slice(0, 4, None), slice(4, 8, None), slice(8, 10, None)])
"""

from __future__ import annotations

import math

from pycore.kernels.plan import Facts

FLAT_UNIT = 1024  # elements: a flat part starts at a multiple of this (256-byte aligned offsets)


def row_bytes(shape: tuple[int, ...], itemsize: int = 4) -> int:
    """Bytes of one row of axis 0 (of the whole array for 0-D and 1-D shapes' single elements).

    >>> row_bytes((7, 3, 5)), row_bytes((7,))
    (60, 4)
    """
    return itemsize * max(1, math.prod(shape[1:]))


def row_step(shape: tuple[int, ...], limit: int, itemsize: int = 4) -> int | None:
    """Rows of axis 0 per part, so that a part of an array of `shape` fits `limit` bytes; None when
    one row does not fit.

    >>> row_step((100, 256), 4096), row_step((4, 2048), 4096)
    (4, None)
    """
    row = row_bytes(shape, itemsize)
    return None if row > limit else max(1, limit // row)


def flat_step(facts: Facts, itemsize: int = 4) -> int:
    """Elements per part of a flat split: the most whole units of FLAT_UNIT elements in one binding.

    >>> flat_step(Facts(max_binding=10_000))
    2048
    """
    return max(FLAT_UNIT, facts.max_binding // itemsize // FLAT_UNIT * FLAT_UNIT)


def parts(length: int, step: int) -> list[slice]:
    """Slices of `step` items covering range(length) (the last one shorter); [] for length 0.

    >>> parts(5, 2)
    [slice(0, 2, None), slice(2, 4, None), slice(4, 5, None)]
    """
    if step < 1:
        raise ValueError(f"a part needs at least one item, got step {step}")
    return [slice(lo, min(lo + step, length)) for lo in range(0, length, step)]


def too_big(name: str, what: str, nbytes: int, limit: int) -> ValueError:
    """The error of a part that cannot fit one binding (`what`: the thing named, e.g. "one row of x")."""
    return ValueError(f"{name}: {what} needs {nbytes:,} bytes in one GPU binding, over this device's "
                      f"maxStorageBufferBindingSize of {limit:,} bytes")
