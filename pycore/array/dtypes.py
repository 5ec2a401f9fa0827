"""The dtypes pycore computes in, how inputs become one of them, and how they promote.

pycore's dtypes are bool, int8, int16, int32, uint8, uint16, uint32, float16, float32 and
complex64: every dtype of the Python Array API standard that fits WebGPU's 32-bit words. The 32-bit
ones are one word per element on the GPU (bool too: one u32 0 or 1); complex64 is two, its real and
imaginary float32 parts (NumPy's layout, so transfers copy bytes as they are). int8, uint8, int16,
uint16 and float16 are *packed*: four or two elements to a word, so they take a quarter or half
of the memory and the bandwidth; kernels unpack them into their 32-bit form (`wide`) to compute
(int8 as i32, float16 as f32, which WGSL gives every adapter, with or without `shader-f16`) and
round on the way back (integers
wrap, float16 rounds to nearest even, past 65504 to inf). Every backend uses the same rules, so a
result's dtype never depends on where it was computed.

Inputs (`as_array`): NumPy arrays of these dtypes are taken as they are. float64, complex128 and
int64/uint64 arrays are narrowed to float32 / complex64 / int32 / uint32, as JAX does without 64-bit
mode, with a one-time `NarrowingWarning` per dtype; integers that do not fit raise OverflowError.
Python lists and scalars take the default dtypes (int32, float32, complex64, bool) without a
warning. Object, string, bytes, datetime and structured inputs raise TypeError naming the dtype;
masked arrays raise TypeError (their mask would be lost).

Promotion (`result_type`) is NumPy 2's table with 64-bit results narrowed to 32 bits: within a kind
it is the Array API standard's (int8 with uint8 gives int16, int32 with uint32 gives int64, narrowed
to int32), across kinds NumPy's (an integer with float16 gives the float that holds it: float16 for
8-bit integers, else float32). Python scalars are weak (NEP 50): `x * 2` keeps x's dtype, a scalar
of a higher kind (`int8 + 2.5`, `float32 * 1j`) gives that kind's default dtype, and an int scalar
out of an integer dtype's range raises OverflowError. Any real dtype with complex64 gives complex64.

>>> result_type(np.dtype("int32"), 2.5), result_type(np.dtype("uint8"), np.dtype("int8"))
(dtype('float32'), dtype('int16'))
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

FLOAT32 = np.dtype(np.float32)
FLOAT16 = np.dtype(np.float16)
INT32 = np.dtype(np.int32)
INT16 = np.dtype(np.int16)
INT8 = np.dtype(np.int8)
UINT32 = np.dtype(np.uint32)
UINT16 = np.dtype(np.uint16)
UINT8 = np.dtype(np.uint8)
COMPLEX64 = np.dtype(np.complex64)
BOOL = np.dtype(np.bool_)
DTYPES = (BOOL, INT8, INT16, INT32, UINT8, UINT16, UINT32, FLOAT16, FLOAT32, COMPLEX64)  # by kind
NUMERIC = DTYPES[1:]
INTEGER = (INT8, INT16, INT32, UINT8, UINT16, UINT32)
PACKED = (INT8, INT16, UINT8, UINT16, FLOAT16)  # several elements to a u32 word on the GPU
_WIDE = {INT8: INT32, INT16: INT32, UINT8: UINT32, UINT16: UINT32, FLOAT16: FLOAT32}
_NARROW = {"f": FLOAT32, "i": INT32, "u": UINT32, "c": COMPLEX64}
_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}  # kinds, in promotion order
_warned: set[str] = set()


class NarrowingWarning(UserWarning):
    """A 64-bit input was narrowed to 32 bits (once per dtype). Silence it with
    `warnings.filterwarnings("ignore", category=pycore.NarrowingWarning)`, or convert first
    (`x.astype(np.float32)`)."""


def _narrowed(dtype: np.dtype, to: np.dtype) -> None:
    if dtype.name in _warned:
        return
    _warned.add(dtype.name)
    warnings.warn(
        f"{dtype.name} input narrowed to {to.name}: WebGPU has no 64-bit types (float64 values "
        f"round to the nearest float32, past 3.4e38 to inf). Convert with .astype(np.{to.name}) "
        f"to choose, or silence with warnings.filterwarnings('ignore', "
        f"category=pycore.NarrowingWarning)",
        NarrowingWarning,
        stacklevel=4,
    )


def pycore_dtype(dtype: Any, name: str = "x") -> np.dtype:
    """The pycore dtype that `dtype` stands for (np.float32, "int32", bool, ...), or TypeError.

    >>> pycore_dtype("float32"), pycore_dtype(bool)
    (dtype('float32'), dtype('bool'))
    """
    try:
        found = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{name}: {dtype!r} is not a dtype") from None
    if found not in DTYPES:
        raise TypeError(
            f"{name}: dtype {found} is not supported on WebGPU; pycore's dtypes are "
            f"{', '.join(d.name for d in DTYPES)}"
        )
    return found


def as_array(x: Any, name: str = "x") -> np.ndarray:
    """`x` as a NumPy array of a pycore dtype (the module doc says which), same shape.

    >>> as_array([1, 2]).dtype, as_array(np.arange(3, dtype=np.uint8)).dtype, as_array(1.5).dtype
    (dtype('int32'), dtype('uint8'), dtype('float32'))
    >>> as_array(np.array([2**40]), "b")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    OverflowError: b: int64 values outside int32's range [-2147483648, 2147483647] (largest magnitude ...)
    """
    if isinstance(x, np.ma.MaskedArray):
        raise TypeError(
            f"{name}: masked arrays are not supported (the mask would be lost); pass "
            f"x.filled(value) or x.compressed()"
        )
    explicit = isinstance(x, (np.ndarray, np.generic))
    try:
        arr = np.asarray(x)
    except Exception as exc:  # ragged lists and the like
        raise TypeError(f"{name}: cannot make an array of {type(x).__name__}: {exc}") from None
    dtype = arr.dtype
    if dtype in DTYPES:
        return arr
    to = _NARROW.get(dtype.kind)
    if to is None:
        raise TypeError(
            f"{name}: dtype {dtype} is not supported: pycore computes in "
            f"{', '.join(d.name for d in DTYPES)} (pass numbers or booleans)"
        )
    if dtype.kind in "iu" and arr.size:
        info = np.iinfo(to)  # type: ignore[type-var]  # (`to` is int32 or uint32 here)
        low, high = arr.min(), arr.max()
        if low < info.min or high > info.max:
            worst = max(abs(int(low)), abs(int(high)))
            raise OverflowError(
                f"{name}: {dtype} values outside {to.name}'s range [{info.min}, {info.max}] "
                f"(largest magnitude {worst})"
            )
    if explicit:
        _narrowed(dtype, to)
    with np.errstate(over="ignore"):
        return arr.astype(to)


def scalar_kind(value: Any) -> str | None:
    """ "b", "i", "f" or "c" for a Python (or NumPy) bool, int, float or complex scalar; None for
    anything else."""
    if isinstance(value, (bool, np.bool_)):
        return "b"
    if isinstance(value, (int, np.integer)):
        return "i"
    if isinstance(value, (float, np.floating)):
        return "f"
    if isinstance(value, (complex, np.complexfloating)):
        return "c"
    return None


def promote(a: np.dtype, b: np.dtype) -> np.dtype:
    """The dtype two arrays of dtypes a and b promote to (the module doc's rules).

    >>> promote(INT32, UINT32), promote(BOOL, INT8), promote(UINT32, FLOAT16), promote(INT8, FLOAT16)
    (dtype('int32'), dtype('int8'), dtype('float32'), dtype('float16'))
    >>> promote(INT32, COMPLEX64)
    dtype('complex64')
    """
    if a == b:
        return a
    return _narrow(np.promote_types(a, b))


def _narrow(found: np.dtype) -> np.dtype:
    """A NumPy result dtype as pycore's: 64-bit reals and complex128 to their 32-bit forms."""
    wide64 = (found.itemsize == 8 and found.kind != "c") or found.itemsize == 16
    return _NARROW[found.kind] if wide64 else found


def wide(dtype: np.dtype) -> np.dtype:
    """The 32-bit dtype a kernel computes a dtype's values in (itself for the 32-bit ones).

    >>> wide(INT8), wide(FLOAT16), wide(BOOL)
    (dtype('int32'), dtype('float32'), dtype('bool'))
    """
    return _WIDE.get(dtype, dtype)


_DEFAULT = {"b": BOOL, "i": INT32, "f": FLOAT32, "c": COMPLEX64}


def result_type(*operands: Any) -> np.dtype:
    """The dtype that arrays (given by their dtypes) and Python scalars promote to. Scalars are
    weak: they take the arrays' dtype unless they are of a higher kind.

    >>> result_type(INT32, 2.5), result_type(BOOL, 1), result_type(UINT32, 7), result_type(1, 2.0)
    (dtype('float32'), dtype('int32'), dtype('uint32'), dtype('float32'))
    >>> result_type(FLOAT32, 1j), result_type(FLOAT16, COMPLEX64)
    (dtype('complex64'), dtype('complex64'))
    """
    arrays = [o for o in operands if isinstance(o, np.dtype)]
    scalars = [k for o in operands if not isinstance(o, np.dtype) and (k := scalar_kind(o))]
    if not arrays:  # scalars only: their defaults
        return _DEFAULT[max(scalars, key=_RANK.__getitem__)]
    found = np.result_type(*arrays, *[_WEAK[k] for k in scalars])  # (NumPy 2 takes them as weak)
    return _narrow(found)


_WEAK = {"b": False, "i": 0, "f": 0.0, "c": 0j}


def scalar_value(value: Any, dtype: np.dtype, name: str = "x") -> Any:
    """A Python scalar as a NumPy scalar of `dtype`; OverflowError for an int out of its range.

    >>> scalar_value(3, UINT32), scalar_value(-1, UINT32)
    Traceback (most recent call last):
    OverflowError: x: Python int -1 is out of uint32's range [0, 4294967295]
    """
    if dtype.kind in "iu" and not isinstance(value, (bool, np.bool_)):
        info = np.iinfo(dtype)
        if not info.min <= int(value) <= info.max:
            raise OverflowError(
                f"{name}: Python int {int(value)} is out of {dtype.name}'s range [{info.min}, {info.max}]"
            )
    with np.errstate(over="ignore"):
        return dtype.type(value)
