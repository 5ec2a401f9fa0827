"""The namespace the standard's test suite (data-apis/array-api-tests) runs against: pycore_sync.xp
plus placeholders for the four 64-bit dtype names pycore does not have. Harness only, not adapter.

The suite reads xp.float64 (and int64, uint64, complex128) at import time even when
ARRAY_API_TESTS_SKIP_DTYPES names them, so it cannot be imported against a namespace without them.
The placeholders are not dtypes: nothing in pycore accepts them, they equal only themselves, and
with ARRAY_API_TESTS_SKIP_DTYPES=uint64,int64,float64,complex128 no strategy draws them.

$AAT_DEVICE=gpu: creation functions default to device="gpu", so that every array is a GpuArray
and pycore's GPU path runs (on WebGPU where $PYCORE_TRANSPORT gives a device).
"""

from __future__ import annotations

import os
import types
from collections.abc import Callable
from typing import Any

from pycore_sync import xp as _xp


class Missing64BitDtype:
    """Stands for a 64-bit dtype name pycore lacks."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}: not a pycore dtype>"


def _copy(ns: types.ModuleType) -> types.ModuleType:
    out = types.ModuleType(ns.__name__, ns.__doc__)
    out.__dict__.update({k: v for k, v in vars(ns).items() if k not in ("__name__", "__doc__")})
    return out


Before = Callable[[tuple[Any, ...], dict[str, Any]], None]


def _wrapped(fn: Callable[..., Any], before: Before) -> Callable[..., Any]:
    """fn, with `before(args, kwargs)` run first (it may change kwargs, or reject the call)."""
    def f(*args: Any, **kwargs: Any) -> Any:
        before(args, kwargs)
        return fn(*args, **kwargs)
    f.__name__ = f.__qualname__ = fn.__name__
    f.__wrapped__ = fn  # type: ignore[attr-defined]
    return f


xp = _copy(_xp)
for _name in ("int64", "uint64", "float64", "complex128"):
    assert not hasattr(_xp, _name)
    setattr(xp, _name, Missing64BitDtype(_name))

if os.environ.get("AAT_DEVICE") == "gpu":
    def _on_gpu(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if kwargs.get("device") is None:
            kwargs["device"] = "gpu"

    for _name in ("asarray", "zeros", "ones", "empty", "full", "arange", "linspace", "eye", "from_dlpack"):
        setattr(xp, _name, _wrapped(getattr(xp, _name), _on_gpu))
