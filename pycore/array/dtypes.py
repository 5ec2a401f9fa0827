"""The dtypes pycore computes in, how inputs become one of them, and how they promote.

WebGPU has 32-bit types only, so pycore's dtypes are float32, int32, uint32 and bool (stored as
one u32 per element on the GPU: WGSL has no storage type narrower than 32 bits, and a packed
form would need atomics to write). Every backend uses the same rules, so a result's dtype never
depends on where it was computed.

Inputs (`as_array`): NumPy arrays of these dtypes are taken as they are; narrower ones widen
(float16 -> float32, int8/int16 -> int32, uint8/uint16 -> uint32). float64 and int64/uint64 arrays
are narrowed to float32 / int32 / uint32, as JAX does without 64-bit mode, with a one-time
`NarrowingWarning` per dtype; integers that do not fit raise OverflowError. Python lists and
scalars take the default dtypes (int32, float32, bool) without a warning. Complex, object, string,
bytes, datetime and structured inputs raise TypeError naming the dtype; masked arrays raise
TypeError (their mask would be lost).

Promotion (`result_type`) follows the Python Array API standard within a kind (bool < int < float,
int32 and uint32 joined as int64 would be, narrowed to int32) and NumPy 2 across kinds (an integer
with a float gives float32). Python scalars are weak (NEP 50): `x * 2` keeps x's dtype, a scalar of
a higher kind (`int32 + 2.5`) gives that kind's default dtype, and an int scalar out of an integer
dtype's range raises OverflowError.

>>> result_type(np.dtype("int32"), 2.5), result_type(np.dtype("float32"), 2)
(dtype('float32'), dtype('float32'))
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

FLOAT32 = np.dtype(np.float32)
INT32 = np.dtype(np.int32)
UINT32 = np.dtype(np.uint32)
BOOL = np.dtype(np.bool_)
DTYPES = (BOOL, INT32, UINT32, FLOAT32)  # pycore's dtypes, by kind
NUMERIC = (INT32, UINT32, FLOAT32)
INTEGER = (INT32, UINT32)

# What a NumPy dtype of each kind and size becomes: (kind, itemsize) -> (dtype, narrowed?)
_WIDEN = {
    ("f", 2): (FLOAT32, False),
    ("f", 4): (FLOAT32, False),
    ("i", 1): (INT32, False),
    ("i", 2): (INT32, False),
    ("i", 4): (INT32, False),
    ("u", 1): (UINT32, False),
    ("u", 2): (UINT32, False),
    ("u", 4): (UINT32, False),
    ("b", 1): (BOOL, False),
}
_NARROW = {"f": FLOAT32, "i": INT32, "u": UINT32}
_RANK = {"b": 0, "u": 1, "i": 1, "f": 2}  # kinds, in promotion order
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
    (dtype('int32'), dtype('uint32'), dtype('float32'))
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
    found = _WIDEN.get((dtype.kind, dtype.itemsize))
    if found is not None:
        return arr.astype(found[0])
    to = _NARROW.get(dtype.kind)
    if to is None:
        raise TypeError(
            f"{name}: dtype {dtype} is not supported: pycore computes in "
            f"{', '.join(d.name for d in DTYPES)} (pass real numbers or booleans)"
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
    """ "b", "i" or "f" for a Python (or NumPy) bool, int or float scalar; None for anything else."""
    if isinstance(value, (bool, np.bool_)):
        return "b"
    if isinstance(value, (int, np.integer)):
        return "i"
    if isinstance(value, (float, np.floating)):
        return "f"
    return None


def promote(a: np.dtype, b: np.dtype) -> np.dtype:
    """The dtype two arrays of dtypes a and b promote to (the module doc's rules).

    >>> promote(INT32, UINT32), promote(BOOL, INT32), promote(UINT32, FLOAT32)
    (dtype('int32'), dtype('int32'), dtype('float32'))
    """
    if a == b:
        return a
    ra, rb = _RANK[a.kind], _RANK[b.kind]
    if ra != rb:
        return a if ra > rb else b
    return INT32  # int32 with uint32: int64, narrowed


_DEFAULT = {"b": BOOL, "i": INT32, "f": FLOAT32}


def result_type(*operands: Any) -> np.dtype:
    """The dtype that arrays (given by their dtypes) and Python scalars promote to. Scalars are
    weak: they take the arrays' dtype unless they are of a higher kind.

    >>> result_type(INT32, 2.5), result_type(BOOL, 1), result_type(UINT32, 7), result_type(1, 2.0)
    (dtype('float32'), dtype('int32'), dtype('uint32'), dtype('float32'))
    """
    arrays = [o for o in operands if isinstance(o, np.dtype)]
    scalars = [k for o in operands if not isinstance(o, np.dtype) and (k := scalar_kind(o))]
    if not arrays:  # scalars only: their defaults
        arrays, scalars = [_DEFAULT[k] for k in scalars], []
    found = arrays[0]
    for d in arrays[1:]:
        found = promote(found, d)
    for k in scalars:
        if _RANK[k] > _RANK[found.kind]:
            found = promote(found, _DEFAULT[k])
    return found


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
