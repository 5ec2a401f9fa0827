"""A thin synchronous Python Array API namespace over pycore, for the standard's own test suite.

pycore's computing functions are async (`await pycore.add_async(x, y)`). This module exposes them
as the standard's synchronous namespace `xp` (`xp.add(x, y)`), each call run to completion by
`asyncio.run` in a fresh event loop (so nothing in pycore may depend on the loop it is awaited
from), and an `Array` class, the standard's array object, whose operators, indexing and
conversions are made of pycore calls. It adds no computation of its own: every value an `Array`
holds comes from pycore, and the wrapped data (NumPy arrays, NumPy scalars or GpuArrays, as pycore
returns them) is never handed to NumPy's operators.

    >>> from pycore_sync import xp
    >>> x = xp.asarray([1, 2, 3])
    >>> int(xp.sum(x + 1))
    9

$PYCORE_SYNC_LOOP=persistent runs every call on one event loop instead (kept to compare with).

Writes (`x[key] = v`, `x += y`): pycore has no in-place assignment, so the new values are computed
by pycore calls as a new array; where x holds a writable NumPy array they are then stored into it
with numpy.copyto (a store of pycore's result, no computation), so that arrays sharing x's memory
(asarray(x, copy=False), views) see the write as the standard's copy/view semantics say. Elsewhere
(a GpuArray, a NumPy scalar, a read-only array) x is rebound to the new array.
$PYCORE_SYNC_INPLACE=rebind always rebinds (nothing shared sees the write).
"""

from __future__ import annotations

import asyncio
import math
import os
import types
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import numpy as np

import pycore
from pycore import GpuArray

T = TypeVar("T")

# -- running a coroutine to completion ---------------------------------------------------------

LOOP_MODE = os.environ.get("PYCORE_SYNC_LOOP", "fresh")
if LOOP_MODE not in ("fresh", "persistent"):
    raise ValueError(f"PYCORE_SYNC_LOOP must be 'fresh' or 'persistent', got {LOOP_MODE!r}")
_loop: asyncio.AbstractEventLoop | None = None
INPLACE_MODE = os.environ.get("PYCORE_SYNC_INPLACE", "store")
if INPLACE_MODE not in ("store", "rebind"):
    raise ValueError(f"PYCORE_SYNC_INPLACE must be 'store' or 'rebind', got {INPLACE_MODE!r}")


async def _awaited(aw: Awaitable[T]) -> T:
    return await aw


def run(aw: Awaitable[T]) -> T:
    """The result of `aw`: in a fresh event loop per call (asyncio.run), or on one persistent loop."""
    if LOOP_MODE == "fresh":
        return asyncio.run(_awaited(aw))
    global _loop
    if _loop is None or _loop.is_closed():
        _loop = asyncio.new_event_loop()
    return _loop.run_until_complete(_awaited(aw))


# -- wrapping and unwrapping -------------------------------------------------------------------

def _is_data(v: Any) -> bool:
    """Whether `v` is an array pycore returned: a NumPy array or scalar (a 0-D result), a GpuArray."""
    return isinstance(v, (np.ndarray, np.generic, GpuArray))


def unwrap(v: Any) -> Any:
    """pycore's argument for `v`: an Array's data, also inside tuples, lists and slices."""
    if isinstance(v, Array):
        return v._data
    if isinstance(v, (tuple, list)) and not hasattr(v, "_fields"):
        return type(v)(unwrap(e) for e in v)
    if isinstance(v, slice):
        return slice(unwrap(v.start), unwrap(v.stop), unwrap(v.step))
    return v


def wrap(v: Any) -> Any:
    """pycore's result `v` for the caller: arrays as Array, also inside tuples, namedtuples and lists."""
    if _is_data(v):
        return Array(v)
    if isinstance(v, tuple) and hasattr(v, "_fields"):  # (unique_all's, eigh's, qr's, svd's, slogdet's)
        return type(v)(*(wrap(e) for e in v))
    if isinstance(v, (tuple, list)):
        return type(v)(wrap(e) for e in v)
    return v


def call(fn: Callable[..., Awaitable[Any]], *args: Any, **kwargs: Any) -> Any:
    """fn(*args, **kwargs) of pycore, run to completion, arguments unwrapped and results wrapped."""
    return wrap(run(fn(*unwrap(args), **{k: unwrap(v) for k, v in kwargs.items()})))


def _sync(fn: Callable[..., Awaitable[Any]], name: str) -> Callable[..., Any]:
    def f(*args: Any, **kwargs: Any) -> Any:
        return call(fn, *args, **kwargs)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = fn.__doc__
    f.__wrapped__ = fn  # type: ignore[attr-defined]  # (inspect.signature: pycore's parameters)
    return f


def _passthrough(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """A sync pycore function (result_type, finfo, ...), its Array arguments unwrapped."""
    def f(*args: Any, **kwargs: Any) -> Any:
        return fn(*unwrap(args), **{k: unwrap(v) for k, v in kwargs.items()})
    f.__name__ = f.__qualname__ = name
    f.__doc__ = fn.__doc__
    f.__wrapped__ = fn  # type: ignore[attr-defined]
    return f


# -- indexing, composed of pycore calls -------------------------------------------------------

def _device(x: Any) -> str:
    return "gpu" if isinstance(x, GpuArray) else "cpu"


async def _basic_getitem(x: Any, key: tuple[Any, ...]) -> Any:
    """x[key] for ints, slices, None and Ellipsis: a GpuArray's view (pycore's own indexing)."""
    g = x if isinstance(x, GpuArray) else await pycore.to_gpu_async(x)
    view = g[key]
    return view if isinstance(x, GpuArray) else await view.to_numpy_async()


async def _mask_getitem(x: Any, mask: Any) -> Any:
    """x[mask] for a boolean array, the sole index: nonzero of the flattened mask, then take."""
    m, shape = mask.ndim, tuple(x.shape)
    if m > len(shape) or any(ks not in (xs, 0) for ks, xs in zip(mask.shape, shape, strict=False)):
        raise IndexError(f"boolean index of shape {tuple(mask.shape)} does not fit an array of shape {shape}")
    rest, dev = shape[m:], _device(x)
    if m == 0:  # (True adds an axis of 1, False one of 0)
        flat = await pycore.expand_dims_async(x, axis=0)
        picked = await pycore.reshape_async(mask, (1,))
    else:
        flat = await pycore.reshape_async(x, (math.prod(shape[:m]), *rest))
        picked = await pycore.reshape_async(mask, (-1,))
    if math.prod(mask.shape) == 0:
        none = await pycore.zeros_async(0, dtype=pycore.int32, device=dev)
        return await pycore.take_async(flat, none, axis=0)
    (where,) = await pycore.nonzero_async(picked)
    return await pycore.take_async(flat, where, axis=0)


async def _integer_array_getitem(x: Any, key: tuple[Any, ...]) -> Any:
    """x[key] for a tuple of ints and integer arrays, one per axis (the standard's integer array
    indexing): the indices broadcast, made non-negative, raveled, then one take of the flat array."""
    shape, dev = tuple(x.shape), _device(x)
    if len(key) != len(shape) or not all(isinstance(k, int) or _is_data(k) for k in key):
        raise IndexError("integer array indexing takes one int or integer array per axis "
                         f"(the standard's subset), got {len(key)} entries for {len(shape)} axes")
    idx = [await pycore.asarray_async(k, dtype=pycore.int32, device=dev) if isinstance(k, int) else k
           for k in key]
    idx = list(await pycore.broadcast_arrays_async(*idx))
    out_shape = tuple(idx[0].shape)
    flat: Any = 0
    for k, (i, n) in enumerate(zip(idx, shape, strict=True)):
        i = await pycore.where_async(await pycore.less_async(i, 0), await pycore.add_async(i, n), i)
        stride = math.prod(shape[k + 1:])
        term = await pycore.multiply_async(i, stride) if stride != 1 else i
        flat = term if k == 0 else await pycore.add_async(flat, term)
    flat = await pycore.reshape_async(await pycore.astype_async(flat, pycore.int32), (-1,))
    out = await pycore.take_async(await pycore.reshape_async(x, (-1,)), flat, axis=0)
    return await pycore.reshape_async(out, out_shape)


async def _host_int(k: Any) -> int:
    """The integer a 0-D integer array holds, read back to the host."""
    host = await k.to_numpy_async() if isinstance(k, GpuArray) else k
    return int(host.item())


async def getitem_async(x: Any, key: Any) -> Any:
    """x[key] per the standard: basic indexing, integer array indexing or a boolean mask."""
    key = unwrap(key)
    key = key if isinstance(key, tuple) else (key,)
    # slice bounds given as 0-D arrays: their integers, read here (not by __index__ inside pycore's
    # own coroutine, which for a GpuArray would have to start a nested event loop)
    key = tuple([slice(*[await _host_int(b) if _is_data(b) else b for b in (k.start, k.stop, k.step)])
                 if isinstance(k, slice) else k for k in key])
    arrays = [k for k in key if _is_data(k)]
    if not arrays:
        return await _basic_getitem(x, key)
    if any(pycore.isdtype(k.dtype, "bool") for k in arrays):
        if len(key) != 1:
            raise IndexError("a boolean array index must be the sole index")
        return await _mask_getitem(x, key[0])
    if not all(pycore.isdtype(k.dtype, "integral") for k in arrays):
        raise IndexError(f"arrays used as indices must be of integer or boolean dtype, got {arrays[0].dtype}")
    if all(k.ndim == 0 for k in arrays):  # (a 0-D integer array stands for the integer it holds)
        return await _basic_getitem(x, tuple([await _host_int(k) if _is_data(k) else k for k in key]))
    return await _integer_array_getitem(x, key)


async def setitem_async(x: Any, key: Any, value: Any) -> Any:
    """x with x[key] = value, as a new array (pycore has no setitem): the flat positions key selects
    (the same getitem of arange(x.size)), sorted; each position of x finds its value by
    searchsorted, and `where` keeps x's own value at positions not selected."""
    shape, dev = tuple(x.shape), _device(x)
    size = math.prod(shape)
    positions = await pycore.reshape_async(
        await pycore.arange_async(size, dtype=pycore.int32, device=dev), shape)
    chosen = await getitem_async(positions, key)
    v = unwrap(value)
    v = await (pycore.astype_async(v, x.dtype) if _is_data(v)
               else pycore.asarray_async(v, dtype=x.dtype, device=dev))
    v = await pycore.broadcast_to_async(v, tuple(chosen.shape))  # (ValueError where it does not fit)
    n = math.prod(chosen.shape)
    if n == 0:
        return x
    chosen = await pycore.reshape_async(chosen, (n,))
    v = await pycore.reshape_async(v, (n,))
    order = await pycore.argsort_async(chosen)
    chosen, v = await pycore.take_async(chosen, order), await pycore.take_async(v, order)
    every = await pycore.arange_async(size, dtype=pycore.int32, device=dev)
    at = await pycore.clip_async(await pycore.searchsorted_async(chosen, every), 0, n - 1)
    hit = await pycore.equal_async(await pycore.take_async(chosen, at), every)
    flat = await pycore.where_async(hit, await pycore.take_async(v, at),
                                    await pycore.reshape_async(x, (size,)))
    return await pycore.reshape_async(flat, shape)


# -- the array object --------------------------------------------------------------------------

_Operand = Any  # an Array or a Python scalar (bool, int, float, complex)
_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")  # (__array_namespace__ takes any)
_SCALARS = (bool, int, float, complex)


def _binary(name: str, reflected: bool = False) -> Callable[[Array, _Operand], Any]:
    fn = getattr(pycore, f"{name}_async")

    def op(self: Array, other: _Operand) -> Any:
        if not isinstance(other, (Array, *_SCALARS)):
            return NotImplemented
        return call(fn, other, self) if reflected else call(fn, self, other)
    return op


def _inplace(name: str) -> Callable[[Array, _Operand], Any]:
    fn = getattr(pycore, f"{name}_async")

    def op(self: Array, other: _Operand) -> Any:
        if not isinstance(other, (Array, *_SCALARS)):
            return NotImplemented
        out = run(fn(self._data, unwrap(other)))
        if out.dtype != self.dtype:  # (the standard: an in-place op keeps the left operand's dtype...)
            raise TypeError(f"in-place {name} would change the array's dtype {self.dtype} to {out.dtype}")
        if tuple(out.shape) != self.shape:  # (... and its shape)
            raise ValueError(f"in-place {name} would change the array's shape {self.shape} "
                             f"to {tuple(out.shape)}")
        self._write(out)
        return self
    return op


def _unary(name: str) -> Callable[[Array], Any]:
    fn = getattr(pycore, f"{name}_async")
    return lambda self: call(fn, self)


class Array:
    """The standard's array object over what a pycore call returned (a NumPy array or scalar, or a
    GpuArray); its operators are pycore's functions, its indexing composed of pycore calls."""

    __slots__ = ("_data",)
    __hash__ = None  # type: ignore[assignment]  # (== is element-wise)

    def __init__(self, data: Any) -> None:
        if isinstance(data, Array) or not _is_data(data):
            raise TypeError(f"Array wraps what a pycore call returned, got {type(data).__name__}")
        self._data = data

    def __repr__(self) -> str:
        return f"Array({self._data!r})"

    # attributes
    @property
    def dtype(self) -> Any:
        return self._data.dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._data.shape)

    @property
    def ndim(self) -> int:
        return len(self._data.shape)

    @property
    def size(self) -> int:
        return math.prod(self._data.shape)

    @property
    def device(self) -> str:
        return _device(self._data)

    @property
    def T(self) -> Array:  # noqa: N802 (the standard's name)
        if self.ndim != 2:
            raise ValueError(f"T is for 2-D arrays (use mT or permute_dims), this one has {self.ndim} dims")
        return Array(run(pycore.permute_dims_async(self._data, (1, 0))))

    @property
    def mT(self) -> Array:  # noqa: N802
        return Array(run(pycore.matrix_transpose_async(self._data)))

    def to_device(self, device: Any, /, *, stream: Any = None) -> Array:
        if stream is not None:
            raise ValueError("to_device: pycore has no streams (stream must be None)")
        return Array(run(pycore.asarray_async(self._data, device=device)))

    def __array_namespace__(self, /, *, api_version: str | None = None) -> types.ModuleType:
        if api_version is not None and api_version not in _VERSIONS:
            raise ValueError(f"unsupported api_version {api_version!r}")
        return xp

    # operators: pycore's element-wise functions
    __add__, __radd__, __iadd__ = _binary("add"), _binary("add", True), _inplace("add")
    __sub__, __rsub__, __isub__ = _binary("subtract"), _binary("subtract", True), _inplace("subtract")
    __mul__, __rmul__, __imul__ = _binary("multiply"), _binary("multiply", True), _inplace("multiply")
    __truediv__, __rtruediv__, __itruediv__ = _binary("divide"), _binary("divide", True), _inplace("divide")
    __floordiv__, __rfloordiv__ = _binary("floor_divide"), _binary("floor_divide", True)
    __ifloordiv__ = _inplace("floor_divide")
    __mod__, __rmod__, __imod__ = _binary("remainder"), _binary("remainder", True), _inplace("remainder")
    __pow__, __rpow__, __ipow__ = _binary("pow"), _binary("pow", True), _inplace("pow")
    __matmul__, __rmatmul__, __imatmul__ = _binary("matmul"), _binary("matmul", True), _inplace("matmul")
    __and__, __rand__ = _binary("bitwise_and"), _binary("bitwise_and", True)
    __iand__ = _inplace("bitwise_and")
    __or__, __ror__, __ior__ = _binary("bitwise_or"), _binary("bitwise_or", True), _inplace("bitwise_or")
    __xor__, __rxor__ = _binary("bitwise_xor"), _binary("bitwise_xor", True)
    __ixor__ = _inplace("bitwise_xor")
    __lshift__, __rlshift__ = _binary("bitwise_left_shift"), _binary("bitwise_left_shift", True)
    __ilshift__ = _inplace("bitwise_left_shift")
    __rshift__, __rrshift__ = _binary("bitwise_right_shift"), _binary("bitwise_right_shift", True)
    __irshift__ = _inplace("bitwise_right_shift")
    __lt__, __le__ = _binary("less"), _binary("less_equal")
    __gt__, __ge__ = _binary("greater"), _binary("greater_equal")
    __eq__, __ne__ = _binary("equal"), _binary("not_equal")
    __abs__, __neg__, __pos__ = _unary("abs"), _unary("negative"), _unary("positive")
    __invert__ = _unary("bitwise_invert")

    # indexing
    def __getitem__(self, key: Any) -> Array:
        return Array(run(getitem_async(self._data, key)))

    def __setitem__(self, key: Any, value: Any) -> None:
        self._write(run(setitem_async(self._data, key, value)))

    def _write(self, new: Any) -> None:
        """Make `new` (pycore's result, of this array's shape and dtype) this array's value: stored
        into a writable NumPy buffer (so memory shared with it sees the write), else rebound."""
        old = self._data
        if (INPLACE_MODE == "store" and isinstance(old, np.ndarray) and old.flags.writeable
                and not isinstance(new, GpuArray) and new is not old):
            np.copyto(old, new, casting="no")
        else:
            self._data = new

    # Python scalars: the one value read back to the host (a GpuArray's through to_numpy_async)
    def _item(self) -> Any:
        if self.size != 1:
            raise ValueError(f"only an array of one element converts to a Python scalar, "
                             f"this one has shape {self.shape}")
        host = run(self._data.to_numpy_async()) if isinstance(self._data, GpuArray) else self._data
        return host.item()

    def __bool__(self) -> bool:
        return bool(self._item())

    def __int__(self) -> int:
        return int(self._item())

    def __float__(self) -> float:
        return float(self._item())

    def __complex__(self) -> complex:
        return complex(self._item())

    def __index__(self) -> int:
        if not pycore.isdtype(self.dtype, "integral"):
            raise TypeError(f"only an integer array can be an index, this one is {self.dtype}")
        return int(self._item())

    # DLPack: pycore's host arrays export NumPy's buffer; a GpuArray has no DLPack export
    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: bool | None = None) -> Any:
        if not hasattr(self._data, "__dlpack__"):
            raise BufferError(f"pycore's {type(self._data).__name__} has no __dlpack__")
        given = (("max_version", max_version), ("dl_device", dl_device), ("copy", copy))
        kw = {k: v for k, v in given if v is not None}
        return self._data.__dlpack__(stream=stream, **kw)

    def __dlpack_device__(self) -> tuple[Any, int]:
        if not hasattr(self._data, "__dlpack_device__"):
            raise BufferError(f"pycore's {type(self._data).__name__} has no __dlpack_device__")
        return self._data.__dlpack_device__()  # type: ignore[no-any-return]


# -- the namespace -----------------------------------------------------------------------------

# Sync in pycore already (no computation): passed through, Array arguments unwrapped. Where a name
# exists both ways (broadcast_shapes), the sync one is used.
_SYNC = ("result_type", "can_cast", "isdtype", "finfo", "iinfo", "broadcast_shapes",
         "__array_namespace_info__")
_DTYPES = ("bool", "int8", "int16", "int32", "uint8", "uint16", "uint32", "float16", "float32", "complex64")
_CONSTANTS = ("e", "pi", "inf", "nan", "newaxis")  # (taken from pycore only if it has them)


def _namespace(name: str, source: Any, extras: dict[str, Any]) -> types.ModuleType:
    ns = types.ModuleType(name, f"pycore's {name.split('.', 1)[-1]} functions, synchronous")
    for attr in dir(source):
        if attr.endswith("_async") and callable(getattr(source, attr)):
            plain = attr.removesuffix("_async")
            setattr(ns, plain, _sync(getattr(source, attr), plain))
    for attr, value in extras.items():
        setattr(ns, attr, value)
    return ns


xp = _namespace("pycore_sync", pycore, {
    **{n: _passthrough(getattr(pycore, n), n) for n in _SYNC},
    **{n: getattr(pycore, n) for n in _DTYPES + _CONSTANTS if hasattr(pycore, n)},
    "__array_api_version__": getattr(pycore, "__array_api_version__", "2024.12"),
    "linalg": _namespace("pycore_sync.linalg", pycore.linalg, {}),
    "fft": _namespace("pycore_sync.fft", pycore.fft, {}),
    "Array": Array,
})
