"""The arguments of the Array API namespace's functions (calls/creation.py, manipulation.py,
datatypes.py, selection.py, sorting.py): arrays, ints, shapes, dtypes and devices checked and
converted, each bad one a clear exception naming the argument.

>>> from pycore.calls.arguments import result_device, shape_arg
>>> shape_arg(3), shape_arg([2, 0]), result_device([1, 2], "webgpu")
((3,), (2, 0), 'gpu')
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from pycore.array.dtypes import as_array, pycore_dtype
from pycore.calls.gpuarray import GpuArray

Array = Any  # a GpuArray or a NumPy array (array-likes are taken where an array is)


def array_arg(x: Any, name: str = "x") -> GpuArray | np.ndarray:
    """A GpuArray as it is, or anything else as a NumPy array of a pycore dtype."""
    if isinstance(x, GpuArray):
        x.check_usable()
        return x
    return as_array(x, name)


def array_of(x: Any, fn: str, name: str = "x") -> GpuArray | np.ndarray:
    """array_arg, its errors naming the function `fn` too.

    >>> array_of([1.5], "f").dtype
    dtype('float32')
    """
    try:
        return array_arg(x, name)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{fn}: {exc}") from None


def arrays_arg(arrays: Any, fn: str) -> list[GpuArray | np.ndarray]:
    """A tuple or list of one or more arrays (`fn`, the function's name, in its errors), each as array_arg
    makes it."""
    if not isinstance(arrays, (tuple, list)):
        raise TypeError(f"{fn}: arrays must be a tuple or list of arrays, got {type(arrays).__name__}")
    if not arrays:
        raise ValueError(f"{fn}: arrays must hold at least one array")
    return [array_arg(a, f"arrays[{i}]") for i, a in enumerate(arrays)]


def int_arg(value: Any, name: str, low: int | None = None) -> int:
    """An int (anything with __index__ but a bool), >= `low` when given."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an int, got bool {value!r}")
    try:
        n = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}") from None
    if low is not None and n < low:
        raise ValueError(f"{name} must be >= {low}, got {n}")
    return n


def shape_arg(shape: Any, name: str = "shape") -> tuple[int, ...]:
    """A shape: an int or a sequence of ints >= 0."""
    if isinstance(shape, (tuple, list)):
        return tuple(int_arg(n, f"{name}[{i}]", 0) for i, n in enumerate(shape))
    return (int_arg(shape, name, 0),)


def dtype_arg(dtype: Any, default: np.dtype) -> np.dtype:
    """A pycore dtype, `default` where dtype is None."""
    return default if dtype is None else pycore_dtype(dtype, "dtype")


def device_arg(device: Any) -> str | None:
    """None, "cpu" or "gpu" ("webgpu" and "numpy", a GpuArray's devices, stand for "gpu")."""
    if device is None or device == "cpu":
        return device
    if device in ("gpu", "webgpu", "numpy"):
        return "gpu"
    raise ValueError(f"device must be None, 'cpu' or 'gpu', got {device!r}")


def result_device(x: Any, device: Any) -> str:
    """Where a function of `x` puts its result: the device asked for, else x's."""
    found = device_arg(device)
    if found is not None:
        return found
    return "gpu" if isinstance(x, GpuArray) else "cpu"

