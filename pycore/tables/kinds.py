"""The kernel kinds of the fixed-kernel ops, each declared once: where its hand-written WGSL lives
(or that its kernels are generated), how a benchmark or calibration size n shapes its sample
inputs, and the n calibration measures it at. The op table (ops.py) names each op's kind; the
selector's defaults (pycore.choice.selector) have a rate per kind; the class that checks, plans and
runs a kind is in pycore.calls.programs. Adding a kind: an entry here, its class there, and its
default rates (a unit test names what is missing).

>>> KINDS["rowwise"].shapes(100_000), KINDS["matmul"].sample_size
([(100, 1000)], 256)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

ROW = 1000  # rowwise samples run on (size // ROW, ROW)


@dataclass(frozen=True)
class Kind:
    name: str
    family: str  # shaders/<family>.wgsl of its ops' WGSL; "generated": from a declaration (kernels/)
    shapes: Callable[[int], list[tuple[int, ...]]]  # sample input shapes at size n (an op with
    # more inputs than listed, such as dot, gets the first shape for each)
    sample_size: int  # calibration's n: big enough that the fixed cost does not hide the rate (an
    # element-wise op crosses over near 1M elements), small enough to measure every op in seconds


KINDS: dict[str, Kind] = {k.name: k for k in [
    Kind("unary", "elementwise", lambda n: [(n,)], 1 << 20),
    Kind("binary", "binary", lambda n: [(n,), (n,)], 1 << 20),
    Kind("rowwise", "generated", lambda n: [(max(n // ROW, 1), min(n, ROW))], 1 << 18),
    Kind("reduce", "generated", lambda n: [(n,)], 1 << 18),
    Kind("matmul", "matmul", lambda n: [(n, n), (n, n)], 256),  # (n: the side of a square)
    Kind("conv2d", "conv2d", lambda n: [(n, n), (3, 3)], 256),
]}
