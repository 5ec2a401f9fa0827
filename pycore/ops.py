"""The op table: the single source of truth for every operation pycore offers.

One `Op` entry says where its GPU kernel lives (shader family file and entry point), how many inputs
it takes, its NumPy implementation (the fallback path, with the same semantics as the kernel), and
its FLOP and byte counts per element (for the cost model). The public `*_async` functions, the
dispatcher and the tests are all driven from `OPS`; adding an op means one entry here, one WGSL
entry point in `shaders/<family>.wgsl`, and one test case.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Op:
    name: str
    family: str  # shaders/<family>.wgsl
    entry: str  # the WGSL entry point in that file
    arity: int  # number of array inputs
    numpy: Callable[..., np.ndarray]  # float32 arrays in, float32 array out
    flops_per_element: float
    bytes_per_element: int  # bytes moved host<->GPU per output element (inputs + output)
    summary: str

    @property
    def public_name(self) -> str:
        return f"{self.name}_async"


def _relu(x: np.ndarray) -> np.ndarray:
    # np.maximum propagates NaN, like the kernel's `select(v, 0, v < 0)`.
    return np.maximum(x, np.float32(0))


OPS: dict[str, Op] = {
    op.name: op
    for op in [
        Op("relu", "elementwise", "relu", 1, _relu, flops_per_element=1, bytes_per_element=8,
           summary="max(x, 0) element-wise; NaN stays NaN"),
    ]
}
