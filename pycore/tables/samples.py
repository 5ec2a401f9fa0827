"""The sample inputs' shapes an op is measured on at a size n, shared by the benchmark (bench.py)
and the calibration (calibrate.py). Matrix kinds read n as the side of a square.

>>> from pycore.tables.ops import OPS
>>> shapes_for(OPS["softmax"], 100_000), shapes_for(OPS["dot"], 10)
([(100, 1000)], [(10,), (10,)])
"""

from __future__ import annotations

from collections.abc import Callable

from pycore.tables.ops import Op

ROW = 1000  # rowwise ops run on (size // ROW, ROW)

# How a size n shapes each kind's inputs; an op with more inputs than listed (dot) gets the first
# shape for each.
SHAPES: dict[str, Callable[[int], list[tuple[int, ...]]]] = {
    "unary": lambda n: [(n,)],
    "binary": lambda n: [(n,), (n,)],
    "reduce": lambda n: [(n,)],
    "rowwise": lambda n: [(max(n // ROW, 1), min(n, ROW))],
    "matmul": lambda n: [(n, n), (n, n)],
    "conv2d": lambda n: [(n, n), (3, 3)],
}


def shapes_for(op: Op, n: int) -> list[tuple[int, ...]]:
    """The input shapes of `op` at benchmark size n."""
    shapes = SHAPES[op.kind](n)
    return shapes if len(shapes) == len(op.inputs) else [shapes[0]] * len(op.inputs)
