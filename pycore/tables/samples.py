"""The sample inputs' shapes an op is measured on at a size n, shared by the benchmark (bench.py)
and the calibration (calibrate.py), from its kind's declaration (kinds.py). Matrix kinds read n
as the side of a square.

>>> from pycore.tables.ops import OPS
>>> shapes_for(OPS["softmax"], 100_000), shapes_for(OPS["dot"], 10)
([(100, 1000)], [(10,), (10,)])
"""

from __future__ import annotations

from pycore.tables.kinds import KINDS
from pycore.tables.ops import Op


def shapes_for(op: Op, n: int) -> list[tuple[int, ...]]:
    """The input shapes of `op` at benchmark size n."""
    shapes = KINDS[op.kind].shapes(n)
    return shapes if len(shapes) == len(op.inputs) else [shapes[0]] * len(op.inputs)
