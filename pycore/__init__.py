"""pycore: GPU compute for Python in the browser.

Operations are `async` and named `*_async`. In Pyodide with WebGPU they run WGSL compute shaders on
the user's GPU; elsewhere (no WebGPU, no adapter, a lost device, or plain CPython) the same call runs
on NumPy with the same semantics. Results are float32 NumPy arrays.

>>> import asyncio, numpy as np, pycore
>>> asyncio.run(pycore.relu_async(np.array([-1.0, 0.5])))
array([0. , 0.5], dtype=float32)
"""

from __future__ import annotations

__version__ = "0.1.0"

from typing import Any

from .api import PUBLIC
from .ops import OPS
from .runtime import RUNTIME

globals().update(PUBLIC)  # relu_async, softmax_async, matmul_async, ... (see ops.OPS)

__all__ = ["OPS", "__version__", "info", "init_async", "trace", *PUBLIC]


async def init_async() -> dict[str, Any]:
    """Acquire the WebGPU adapter and device (with the adapter's full limits), or settle on the
    NumPy fallback and record why. Idempotent; ops call it themselves. Returns `info()`.

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.init_async())["backend"] in ("webgpu", "numpy")
    True
    """
    await RUNTIME.init_async()
    return RUNTIME.info()


def info() -> dict[str, Any]:
    """The backend in use ("webgpu" or "numpy") and why, adapter info, device limits and
    features, versions, GPU memory counters and pipeline compile times.

    >>> import pycore
    >>> sorted(pycore.info())[:3]
    ['adapter', 'backend', 'device_lost']
    """
    return RUNTIME.info()


def trace() -> list[dict[str, Any]]:
    """The most recent dispatches, oldest first: op, input shapes, backend, milliseconds per stage.

    >>> import pycore
    >>> isinstance(pycore.trace(), list)
    True
    """
    return list(RUNTIME.trace)
