"""Type stub of pycore's public API, written by scripts/stubs.py from the op table (do not edit)."""

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from . import bench as bench
from .batch import CommandBatch as CommandBatch
from .calibrate import calibrate_async as calibrate_async
from .gpuarray import GpuArray as GpuArray
from .gpuarray import to_gpu_async as to_gpu_async
from .ops import OPS as OPS
from .selector import SELECTOR as SELECTOR
from .selector import BackendSelector as BackendSelector
from .selector import Calibration as Calibration

__version__: str

def explain(op: str, *shapes: tuple[int, ...], on_gpu: tuple[bool, ...] | None = None) -> dict[str, Any]: ...
async def init_async(transport: str | None = None) -> dict[str, Any]: ...
def info() -> dict[str, Any]: ...
def trace() -> list[dict[str, Any]]: ...

async def relu_async(x: ArrayLike | GpuArray, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """max(x, 0) element-wise; NaN stays NaN."""
async def leaky_relu_async(x: ArrayLike | GpuArray, alpha: float = 0.01, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x if x >= 0 else alpha * x."""
async def elu_async(x: ArrayLike | GpuArray, alpha: float = 1.0, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x if x > 0 else alpha * (exp(x) - 1)."""
async def sigmoid_async(x: ArrayLike | GpuArray, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """1 / (1 + exp(-x)), stable for both signs (sigmoid(-inf) = 0)."""
async def tanh_async(x: ArrayLike | GpuArray, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """tanh(x) in a form that never overflows (tanh(±inf) = ±1)."""
async def swish_async(x: ArrayLike | GpuArray, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x * sigmoid(x) (SiLU); swish(-inf) = 0."""
async def gelu_async(x: ArrayLike | GpuArray, approximate: bool = True, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """GELU, tanh approximation (approximate=False: the erf form, to ~2e-7); gelu(-inf) = 0."""
async def clip_async(x: ArrayLike | GpuArray, min: float, max: float, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x limited to [min, max] (min <= max required); NaN stays NaN."""
async def scale_async(x: ArrayLike | GpuArray, s: float, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x * s."""
async def vec_add_async(a: ArrayLike | GpuArray, b: ArrayLike | GpuArray, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """a + b element-wise (same shapes)."""
async def vec_sub_async(a: ArrayLike | GpuArray, b: ArrayLike | GpuArray, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """a - b element-wise (same shapes)."""
async def vec_mul_async(a: ArrayLike | GpuArray, b: ArrayLike | GpuArray, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """a * b element-wise (same shapes)."""
async def softmax_async(x: ArrayLike | GpuArray, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """exp(x - max) / sum(exp(x - max)) over the last axis of 1-D or 2-D x."""
async def log_softmax_async(x: ArrayLike | GpuArray, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x - max - log(sum(exp(x - max))) over the last axis of 1-D or 2-D x."""
async def sum_async(x: ArrayLike | GpuArray, *, backend: str = "auto") -> float:
    """The sum of all elements, as a float (0.0 for an empty array)."""
async def max_async(x: ArrayLike | GpuArray, *, backend: str = "auto") -> float:
    """The largest element, as a float; NaN if any element is NaN; empty input is an error."""
async def min_async(x: ArrayLike | GpuArray, *, backend: str = "auto") -> float:
    """The smallest element, as a float; NaN if any element is NaN; empty input is an error."""
async def dot_async(a: ArrayLike | GpuArray, b: ArrayLike | GpuArray, *, backend: str = "auto") -> float:
    """sum(a * b) over two arrays of one shape, as a float."""
async def matmul_async(a: ArrayLike | GpuArray, b: ArrayLike | GpuArray, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """(m, k) @ (k, n) -> (m, n) for any m, k, n."""
async def convolve2d_async(image: ArrayLike | GpuArray, kernel: ArrayLike | GpuArray, mode: str = 'valid', *, backend: str = "auto") -> np.ndarray | GpuArray:
    """True 2-D convolution (kernel flipped, as scipy.signal.convolve2d); mode "valid" or "same"."""
