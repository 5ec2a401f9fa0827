"""The Python Array API standard's data-type functions, plain functions (they run no kernel):
result_type, can_cast, isdtype, finfo and iinfo (their FInfo and IInfo objects), and the inspection
namespace, __array_namespace_info__ (an Info). The dtypes themselves, and the promotion rules
result_type applies, are pycore/array/dtypes.py's.

>>> import pycore
>>> pycore.result_type(pycore.int32, 2.5), pycore.isdtype(pycore.bool, "numeric")
(dtype('float32'), False)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pycore.array.dtypes import COMPLEX64, DTYPES, FLOAT16, FLOAT32, INT32, pycore_dtype
from pycore.array.dtypes import result_type as _promoted
from pycore.calls.arguments import device_arg
from pycore.calls.gpuarray import GpuArray
from pycore.engine.runtime import RUNTIME


def _dtype_of(x: Any, name: str) -> np.dtype:
    if isinstance(x, (GpuArray, np.ndarray)):
        return pycore_dtype(x.dtype, name)
    return pycore_dtype(x, name)


def result_type(*arrays_and_dtypes: Any) -> np.dtype:
    """The dtype arrays and dtypes (and Python scalars, weakly) promote to, by pycore's rules.

    >>> import pycore
    >>> pycore.result_type(pycore.int32, pycore.float32), pycore.result_type(pycore.uint32, 7)
    (dtype('float32'), dtype('uint32'))
    """
    if not arrays_and_dtypes:
        raise ValueError("result_type: at least one array or dtype is needed")
    found: list[Any] = []
    for i, a in enumerate(arrays_and_dtypes):
        if isinstance(a, (bool, int, float, complex)) and not isinstance(a, np.generic):
            found.append(a)
        else:
            found.append(_dtype_of(a, f"arrays_and_dtypes[{i}]"))
    if all(not isinstance(f, np.dtype) for f in found):
        raise ValueError("result_type: at least one array or dtype is needed (Python scalars alone have "
                         "none)")
    return _promoted(*found)


def can_cast(from_: Any, to: Any, /) -> bool:
    """Whether `from_` (a dtype, or an array's) can be cast to `to` by the standard's type promotion
    rules, which join integers with integers and floating-point dtypes (real and complex) with each
    other, at a dtype that holds both: int8 to int16, uint8 to int16 or float32 to complex64 is
    True; bool to int32, int32 to float32, uint32 to int32 and complex64 to float32 are False, as
    array_api_strict says.

    >>> import pycore
    >>> pycore.can_cast(pycore.uint8, pycore.int16), pycore.can_cast(pycore.bool, pycore.int32)
    (True, False)
    """
    a, b = _dtype_of(from_, "from_"), pycore_dtype(to, "to")
    if a == b:
        return True
    if {a.kind, b.kind} <= {"i", "u"} or {a.kind, b.kind} <= {"f", "c"}:
        return bool(np.promote_types(a, b) == b)
    return False


KINDS = {"bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
         "real floating": "f", "complex floating": "c", "numeric": "iufc"}


def isdtype(dtype: Any, kind: Any) -> bool:
    """Whether `dtype` is of `kind`: a dtype, a kind name ("bool", "signed integer", "unsigned
    integer", "integral", "real floating", "complex floating", "numeric"), or a tuple of them.

    >>> import pycore
    >>> pycore.isdtype(pycore.uint32, "integral"), pycore.isdtype(pycore.float32, ("bool", "numeric"))
    (True, True)
    """
    found = pycore_dtype(dtype, "dtype")
    if isinstance(kind, tuple):
        return any(isdtype(found, k) for k in kind)
    if isinstance(kind, str):
        if kind not in KINDS:
            raise ValueError(f"isdtype: kind must be a dtype, one of {', '.join(map(repr, KINDS))}, or a "
                             f"tuple of them; got {kind!r}")
        return found.kind in KINDS[kind]
    return found == pycore_dtype(kind, "kind")


@dataclass(frozen=True)
class FInfo:
    """Machine limits of a floating-point dtype (the Array API's finfo object)."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: np.dtype


@dataclass(frozen=True)
class IInfo:
    """Machine limits of an integer dtype (the Array API's iinfo object)."""

    bits: int
    max: int
    min: int
    dtype: np.dtype


def finfo(type: Any, /) -> FInfo:  # noqa: A002 (the standard's name)
    """The limits of a floating-point dtype (or an array's): bits, eps, max, min, smallest_normal;
    of complex64, its float32 parts' (dtype float32), as the standard says.

    >>> import pycore
    >>> pycore.finfo(pycore.float32).bits, pycore.finfo(pycore.float32).eps
    (32, 1.1920928955078125e-07)
    """
    found = _dtype_of(type, "type")
    if found.kind == "c":
        found = FLOAT32
    if found.kind != "f":
        raise TypeError(f"finfo: type must be a floating-point dtype (float32, float16, complex64), "
                        f"got {found}")
    f = np.finfo(found)
    return FInfo(int(f.bits), float(f.eps), float(f.max), float(f.min), float(f.smallest_normal), found)


def iinfo(type: Any, /) -> IInfo:  # noqa: A002 (the standard's name)
    """The limits of an integer dtype (or an array's): bits, max, min.

    >>> import pycore
    >>> pycore.iinfo(pycore.uint32).max, pycore.iinfo(pycore.int32).min
    (4294967295, -2147483648)
    """
    found = _dtype_of(type, "type")
    if found.kind not in "iu":
        raise TypeError(f"iinfo: type must be an integer dtype (int32 or uint32), got {found}")
    i = np.iinfo(found)
    return IInfo(int(i.bits), int(i.max), int(i.min), found)


class Info:
    """The Array API's inspection namespace of pycore (`pycore.__array_namespace_info__()`)."""

    def capabilities(self) -> dict[str, Any]:
        """What pycore supports: no boolean indexing, no data-dependent output shapes."""
        return {"boolean indexing": False, "data-dependent shapes": False, "max dimensions": None}

    def default_device(self) -> str:
        """Where creation functions put their result without device=: "cpu" (a NumPy array)."""
        return "cpu"

    def devices(self) -> tuple[str, ...]:
        """The devices: "cpu" (NumPy arrays), and "gpu" (GpuArrays) where WebGPU is up."""
        return ("cpu", "gpu") if RUNTIME.device is not None else ("cpu",)

    def default_dtypes(self, *, device: Any = None) -> dict[str, Any]:
        """The default dtypes: float32, complex64 and int32."""
        device_arg(device)
        return {"real floating": FLOAT32, "complex floating": COMPLEX64, "integral": INT32, "indexing": INT32}

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, np.dtype]:
        """The standard's dtypes pycore has, by name, those of `kind` (as isdtype takes it) when
        given. (float16, pycore's too, is not one of the standard's.)"""
        device_arg(device)
        return {d.name: d for d in DTYPES if d != FLOAT16 and (kind is None or isdtype(d, kind))}


def __array_namespace_info__() -> Info:  # noqa: N807 (the standard's name)
    """The Array API's inspection namespace: capabilities(), default_device(), devices(),
    default_dtypes(), dtypes().

    >>> import pycore
    >>> sorted(pycore.__array_namespace_info__().dtypes(kind="integral"))
    ['int16', 'int32', 'int8', 'uint16', 'uint32', 'uint8']
    """
    return Info()


DATATYPES: dict[str, Callable[..., Any]] = {f.__name__: f for f in (
    result_type, can_cast, isdtype, finfo, iinfo, __array_namespace_info__)}
