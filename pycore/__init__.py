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

import numpy as np

from .dispatch import run_elementwise_async
from .ops import OPS
from .runtime import RUNTIME

__all__ = ["OPS", "__version__", "info", "init_async", "relu_async", "trace"]


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
    """The most recent dispatches, oldest first: op, input shape, backend, milliseconds per stage.

    >>> import pycore
    >>> isinstance(pycore.trace(), list)
    True
    """
    return list(RUNTIME.trace)


async def relu_async(x: Any) -> np.ndarray:
    """max(x, 0) element-wise, as float32, for any array-like of any shape (NaN stays NaN).

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.relu_async([[-2, 3], [4, -5]]))
    array([[0., 3.],
           [4., 0.]], dtype=float32)
    """
    return await run_elementwise_async("relu", x)
