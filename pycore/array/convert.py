"""Turning what a user passes into the float32, C-contiguous arrays the kernels read."""

from __future__ import annotations

from typing import Any

import numpy as np

# dtype kinds that convert to float32: bool, signed and unsigned ints, floats.
_CONVERTIBLE = "biuf"


def as_float32(x: Any, name: str = "x") -> np.ndarray:
    """`x` as a C-contiguous float32 array of the same shape.

    Any array-like is accepted; bool, integer and float64 inputs are converted to float32 (integers
    above 2**24 and float64 values round to the nearest float32). Complex, object, string and
    datetime inputs raise TypeError naming the argument and its dtype, and so do masked arrays
    (their mask would be lost), as array.dtypes.as_array says.

    >>> as_float32([[1, 2], [3, 4]]).dtype
    dtype('float32')
    """
    if isinstance(x, np.ma.MaskedArray):
        raise TypeError(f"{name}: masked arrays are not supported (the mask would be lost); pass "
                        f"x.filled(value) or x.compressed()")
    try:
        arr = np.asarray(x)
    except Exception as exc:  # ragged lists and the like
        raise TypeError(f"{name}: cannot make an array of {type(x).__name__}: {exc}") from None
    if arr.dtype.kind not in _CONVERTIBLE:
        raise TypeError(f"{name}: dtype {arr.dtype} cannot be converted to float32 "
                        f"(pycore computes in float32; pass real numbers)")
    return np.asarray(arr, dtype=np.float32, order="C")  # (ascontiguousarray would make 0-d 1-d)
