"""Choosing the backend per call: a small cost model, calibrated in the user's own browser.

Predicted GPU time  = fixed cost per call + bytes uploaded / upload bandwidth
                      + bytes read back / readback bandwidth + FLOPs / GPU rate
Predicted NumPy time = FLOPs / NumPy rate (+ reading back inputs that live on the GPU)

FLOP counts come from the op table; bytes from the shapes, minus inputs already on the GPU (and the
result, when it stays there). The GPU is chosen when predicted_gpu * margin <= predicted_numpy:
margin 1.0 picks the faster prediction, 2.0 demands a 2x win (the reference library's rule,
compute > 5 x transfer, is a margin-like ratio; here every term is a time, so one margin suffices).
Rates are per kind of work: "matmul" (matmul, convolve2d) and "stream" (everything else).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from .ops import Op

STORAGE_KEY = "pycore.calibration.v1"
COMPUTE_KINDS = {"matmul", "conv2d"}


@dataclass
class Calibration:
    """Measured (or default) speeds of this browser and device. Times in ms, rates in GFLOP/s,
    bandwidths in GB/s. The defaults are deliberately modest: without calibration, the GPU is used
    only where it wins by a wide margin on ordinary hardware."""

    dispatch_ms: float = 1.0
    upload_gbps: float = 2.0
    readback_gbps: float = 1.0
    gpu_gflops: dict[str, float] = field(default_factory=lambda: {"stream": 10.0, "matmul": 100.0})
    numpy_gflops: dict[str, float] = field(default_factory=lambda: {"stream": 0.5, "matmul": 0.3})
    source: str = "defaults (run pycore.calibrate_async() to measure this browser)"

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Calibration:
        return cls(**json.loads(text))


def rate_kind(op: Op) -> str:
    return "matmul" if op.kind in COMPUTE_KINDS else "stream"


@dataclass
class Prediction:
    op: str
    gpu_ms: float
    numpy_ms: float
    choice: str  # "webgpu" or "numpy"
    why: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class BackendSelector:
    """Predicts both backends' times for a call and picks one (see the module doc).

    >>> from pycore.ops import OPS
    >>> sel = BackendSelector(Calibration(dispatch_ms=2.0))
    >>> sel.predict(OPS["relu"], [(1000,)]).choice
    'numpy'
    >>> sel.predict(OPS["matmul"], [(1024, 1024), (1024, 1024)]).choice
    'webgpu'

    """

    def __init__(self, calibration: Calibration | None = None, margin: float = 1.0) -> None:
        self.calibration = calibration or Calibration()
        self.margin = margin

    def predict(self, op: Op, shapes: list[tuple[int, ...]], on_gpu: list[bool] | None = None,
                result_on_gpu: bool = False) -> Prediction:
        from .programs import PROGRAMS

        c = self.calibration
        on_gpu = on_gpu or [False] * len(shapes)
        sizes = [4 * _count(s) for s in shapes]
        out_bytes = 4 * _count(PROGRAMS[op.kind].out_shape(tuple(shapes)))
        flops = op.flops(tuple(shapes))
        kind = rate_kind(op)
        upload = sum(b for b, g in zip(sizes, on_gpu, strict=True) if not g)
        readback = 0 if result_on_gpu else out_bytes
        gpu_ms = (c.dispatch_ms + upload / (c.upload_gbps * 1e6) + readback / (c.readback_gbps * 1e6)
                  + flops / (c.gpu_gflops[kind] * 1e6))
        fetch = sum(b for b, g in zip(sizes, on_gpu, strict=True) if g)
        numpy_ms = flops / (c.numpy_gflops[kind] * 1e6)
        if fetch:
            numpy_ms += c.dispatch_ms + fetch / (c.readback_gbps * 1e6)
        choice = "webgpu" if gpu_ms * self.margin <= numpy_ms else "numpy"
        why = (f"predicted webgpu {gpu_ms:.3g} ms x margin {self.margin:g} "
               f"{'<=' if choice == 'webgpu' else '>'} numpy {numpy_ms:.3g} ms")
        return Prediction(op.name, round(gpu_ms, 4), round(numpy_ms, 4), choice, why)


def _count(shape: tuple[int, ...]) -> int:
    n = 1
    for s in shape:
        n *= int(s)
    return n


SELECTOR = BackendSelector()
