"""Type stub of pycore's public API, written by scripts/stubs.py from the op table (do not edit)."""

import builtins
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from . import bench as bench
from . import fft as fft
from . import linalg as linalg
from . import nn as nn
from .array.dtypes import NarrowingWarning as NarrowingWarning
from .bench.calibrate import calibrate_async as calibrate_async
from .calls.batch import CommandBatch as CommandBatch
from .calls.datatypes import FInfo, IInfo, Info
from .calls.gpuarray import GpuArray as GpuArray
from .calls.sorting import UniqueAllResult, UniqueCountsResult, UniqueInverseResult
from .choice.selector import SELECTOR as SELECTOR
from .choice.selector import BackendSelector as BackendSelector
from .choice.selector import Calibration as Calibration
from .engine.device import CancelledWorkError as CancelledWorkError
from .tables.ops import OPS as OPS

__version__: str

def explain(op: str, *shapes: tuple[int, ...], on_gpu: tuple[builtins.bool, ...] | None = None, axis: Any = None,
            keepdims: builtins.bool = False) -> dict[str, Any]: ...
async def to_gpu_async(x: ArrayLike | GpuArray, dtype: Any = None) -> GpuArray: ...
async def init_async(transport: str | None = None) -> dict[str, Any]: ...
def info() -> dict[str, Any]: ...
def trace() -> list[dict[str, Any]]: ...

async def add_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 + x2 element-wise, broadcasting; integers wrap."""
async def vec_add_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 + x2 element-wise, broadcasting; integers wrap."""
async def subtract_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 - x2 element-wise, broadcasting; integers wrap."""
async def vec_sub_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 - x2 element-wise, broadcasting; integers wrap."""
async def multiply_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 * x2 element-wise, broadcasting; integers wrap."""
async def vec_mul_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 * x2 element-wise, broadcasting; integers wrap."""
async def divide_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 / x2 (true division; integers give float32)."""
async def floor_divide_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 // x2 as NumPy's: rounded toward -inf (floats as its divmod; where a float quotient passes 2^21, a GPU whose division is not correctly rounded may give the integer next to NumPy's: within 4 ULP); an integer divided by 0 gives 0."""
async def remainder_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 % x2 with the divisor's sign, as NumPy's; an integer remainder by 0 gives 0."""
async def maximum_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """The larger of x1 and x2 element-wise; NaN wins."""
async def minimum_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """The smaller of x1 and x2 element-wise; NaN wins."""
async def equal_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 == x2 element-wise (NaN equals nothing)."""
async def not_equal_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 != x2 element-wise."""
async def less_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 < x2 element-wise."""
async def less_equal_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 <= x2 element-wise."""
async def greater_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 > x2 element-wise."""
async def greater_equal_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 >= x2 element-wise."""
async def logical_and_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 and x2 element-wise (nonzero is True)."""
async def logical_or_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 or x2 element-wise (nonzero is True)."""
async def logical_xor_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 xor x2 element-wise (nonzero is True)."""
async def logical_not_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """not x element-wise (nonzero is True)."""
async def pow_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 ** x2: floats as C's pow (pow(x, ±0) and pow(1, y) are 1, a negative base with a non-integer exponent gives NaN); integers by repeated multiplication, wrapping, where a negative exponent gives the integer part of 1 / x1 ** -x2 (NumPy raises ValueError there); complex64 as NumPy's: a real integer exponent under 100 by repeated squaring, others as exp(x2 * log(x1)) in float32, whose error grows with |x2 log x1| (0 ** x2 is 0 where Re x2 > 0, else NaN parts)."""
async def atan2_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """The angle of the point (x2, x1) in [-π, π], with C's signed zeros and infinities."""
async def hypot_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """sqrt(x1² + x2²) without overflow or underflow on the way; inf if either is infinite, even with a NaN."""
async def logaddexp_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """log(e^x1 + e^x2) without overflow."""
async def copysign_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """The magnitude of x1 with the sign (bit) of x2."""
async def nextafter_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """The next float32 after x1 toward x2 (x2 when equal), on the bits: subnormals included."""
async def bitwise_and_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 & x2 (and for bools)."""
async def bitwise_or_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 | x2 (or for bools)."""
async def bitwise_xor_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 ^ x2 (xor for bools)."""
async def bitwise_left_shift_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 << x2; a count of 32 or more, or a negative one, gives 0, as NumPy's."""
async def bitwise_right_shift_async(x1: ArrayLike | GpuArray | float, x2: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x1 >> x2, arithmetic for int32; a count of 32 or more, or a negative one, gives 0 (-1 for a negative int32), as NumPy's."""
async def abs_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """|x| element-wise; integers keep their dtype, and abs of int32's minimum wraps to itself, as NumPy's."""
async def negative_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """-x element-wise; integers wrap (uint32 too)."""
async def positive_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """+x element-wise (a copy)."""
async def sign_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """-1, 0 or 1 by the sign of x (0 for ±0, NaN for NaN); of a complex x, x / |x|."""
async def square_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x * x element-wise; integers wrap."""
async def sqrt_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """The square root; NaN for x < 0, -0 for -0."""
async def exp_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """e^x."""
async def expm1_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """e^x - 1, accurate for x near 0."""
async def log_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """The natural logarithm; -inf for ±0, NaN for x < 0."""
async def log1p_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """log(1 + x), accurate for x near 0."""
async def log2_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """The base-2 logarithm."""
async def log10_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """The base-10 logarithm."""
async def sin_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """The sine (radians), for every float32 x: its reduction by multiples of π/2 is exact (Payne and Hanek's past 2^16)."""
async def cos_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """The cosine (radians), reduced as sin."""
async def tan_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """The tangent (radians), reduced as sin."""
async def asin_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """The inverse sine in [-π/2, π/2]; NaN for |x| > 1."""
async def acos_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """The inverse cosine in [0, π]; NaN for |x| > 1."""
async def atan_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """The inverse tangent in [-π/2, π/2]."""
async def sinh_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """The hyperbolic sine."""
async def cosh_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """The hyperbolic cosine."""
async def tanh_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """The hyperbolic tangent (the standard's: every float dtype and complex64; the activation of the same name, float32 only, is CommandBatch's tanh)."""
async def asinh_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """The inverse hyperbolic sine."""
async def acosh_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """The inverse hyperbolic cosine; NaN for x < 1."""
async def atanh_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """The inverse hyperbolic tangent; ±inf for ±1, NaN for |x| > 1."""
async def floor_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """The largest integer <= x; integers keep their dtype (the identity)."""
async def ceil_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """The smallest integer >= x; integers keep their dtype."""
async def trunc_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x rounded toward 0; integers keep their dtype."""
async def round_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x rounded to the nearest integer, halves to even; integers keep their dtype."""
async def isnan_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """Whether x is NaN (never for integers and bools)."""
async def isinf_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """Whether x is +inf or -inf."""
async def isfinite_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """Whether x is neither infinite nor NaN."""
async def signbit_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """Whether x's sign bit is set (True for -0.0 and a negative NaN)."""
async def bitwise_invert_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """~x: every bit flipped; not x for bools."""
async def reciprocal_async(x: ArrayLike | GpuArray | float, /, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """1 / x (integers give float32)."""
async def sum_async(x: ArrayLike | GpuArray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: builtins.bool = False, backend: str = "auto") -> Any:
    """The sum over `axis` (all axes when None); bools count as int32; integers wrap."""
async def prod_async(x: ArrayLike | GpuArray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: builtins.bool = False, backend: str = "auto") -> Any:
    """The product over `axis` (all axes when None); integers wrap."""
async def max_async(x: ArrayLike | GpuArray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: builtins.bool = False, backend: str = "auto") -> Any:
    """The largest element over `axis`; NaN if any is NaN; an empty reduction is an error."""
async def min_async(x: ArrayLike | GpuArray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: builtins.bool = False, backend: str = "auto") -> Any:
    """The smallest element over `axis`; NaN if any is NaN; an empty reduction is an error."""
async def mean_async(x: ArrayLike | GpuArray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: builtins.bool = False, backend: str = "auto") -> Any:
    """The arithmetic mean over `axis`, in float32 (compensated sums); NaN for no elements."""
async def var_async(x: ArrayLike | GpuArray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: builtins.bool = False, correction: float = 0.0, backend: str = "auto") -> Any:
    """The variance over `axis` (two passes: the mean, then squared deviations), divided by N - correction."""
async def std_async(x: ArrayLike | GpuArray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: builtins.bool = False, correction: float = 0.0, backend: str = "auto") -> Any:
    """The standard deviation over `axis`: the square root of var."""
async def argmax_async(x: ArrayLike | GpuArray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: builtins.bool = False, backend: str = "auto") -> Any:
    """The index of the largest element along `axis` (of the flattened array when None); the first on ties and the first NaN, as NumPy's."""
async def argmin_async(x: ArrayLike | GpuArray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: builtins.bool = False, backend: str = "auto") -> Any:
    """The index of the smallest element along `axis` (of the flattened array when None)."""
async def all_async(x: ArrayLike | GpuArray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: builtins.bool = False, backend: str = "auto") -> Any:
    """Whether every element over `axis` is nonzero (True for no elements)."""
async def any_async(x: ArrayLike | GpuArray, /, *, axis: int | tuple[int, ...] | None = None, keepdims: builtins.bool = False, backend: str = "auto") -> Any:
    """Whether any element over `axis` is nonzero (False for no elements)."""
async def relu_async(x: ArrayLike | GpuArray, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """max(x, 0) element-wise; NaN stays NaN."""
async def leaky_relu_async(x: ArrayLike | GpuArray, alpha: float = 0.01, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x if x >= 0 else alpha * x."""
async def elu_async(x: ArrayLike | GpuArray, alpha: float = 1.0, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x if x > 0 else alpha * (exp(x) - 1)."""
async def sigmoid_async(x: ArrayLike | GpuArray, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """1 / (1 + exp(-x)), stable for both signs (sigmoid(-inf) = 0)."""
async def swish_async(x: ArrayLike | GpuArray, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x * sigmoid(x) (SiLU); swish(-inf) = 0."""
async def gelu_async(x: ArrayLike | GpuArray, approximate: builtins.bool = True, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """GELU, tanh approximation (approximate=False: the erf form, to ~2e-7); gelu(-inf) = 0."""
async def scale_async(x: ArrayLike | GpuArray, s: float, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """x * s."""
async def softmax_async(x: ArrayLike | GpuArray, axis: int = -1, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """exp(x - max) / sum(exp(x - max)) along `axis` (the last by default), any number of dimensions."""
async def log_softmax_async(x: ArrayLike | GpuArray, axis: int = -1, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """(x - max) - log(sum(exp(x - max))) along `axis` (the last by default), any number of dimensions."""
async def dot_async(a: ArrayLike | GpuArray, b: ArrayLike | GpuArray, *, backend: str = "auto") -> float:
    """numpy.dot: of two 1-D arrays, sum(a * b) as a float; of a 0-d one, a scale; else a sum over a's last axis and b's second-to-last (a matmul)."""
async def matmul_async(a: ArrayLike | GpuArray, b: ArrayLike | GpuArray, *, backend: str = "auto") -> np.ndarray | GpuArray:
    """a @ b as numpy.matmul: (..., m, k) @ (..., k, n) -> (..., m, n), batch axes broadcast, a 1-D operand as a row (a) or a column (b); integer operands in int32 or uint32 (wrapping), others in float32."""
async def convolve2d_async(image: ArrayLike | GpuArray, kernel: ArrayLike | GpuArray, mode: str = 'valid', *, backend: str = "auto") -> np.ndarray | GpuArray:
    """True 2-D convolution (kernel flipped, as scipy.signal.convolve2d); mode "valid" or "same"."""
async def asarray_async(obj: Any, /, *, dtype: Any = None, device: Any = None, copy: builtins.bool | None = None) -> Any:
    """`obj` (an array, a nested sequence, a Python scalar, a buffer) as an array of `dtype` (pycore's dtype for it when None) on `device` (None: where obj is; a NumPy array for anything but a GpuArray or a sequence holding GpuArrays, whose elements are stacked on the GPU). copy: True always copies, False never does (ValueError where it would have to)."""
async def from_dlpack_async(x: Any, /, *, device: Any = None, copy: builtins.bool | None = None) -> Any:
    """An array from any object with the DLPack protocol (`__dlpack__`: NumPy, PyTorch and JAX arrays on the CPU, ...), on `device` (None or "cpu": a NumPy array sharing x's memory where its dtype is one of pycore's; "gpu": a GpuArray). Dtypes as asarray's. A GpuArray (whose memory DLPack cannot export) is taken as `asarray_async` takes it."""
async def zeros_async(shape: Any, *, dtype: Any = None, device: Any = None) -> Any:
    """An array of `shape` filled with zeros (dtype float32 unless given)."""
async def ones_async(shape: Any, *, dtype: Any = None, device: Any = None) -> Any:
    """An array of `shape` filled with ones (dtype float32 unless given)."""
async def empty_async(shape: Any, *, dtype: Any = None, device: Any = None) -> Any:
    """An array of `shape` whose values are unspecified (pycore writes zeros; dtype float32 unless given)."""
async def full_async(shape: Any, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Any:
    """An array of `shape` filled with `fill_value` (dtype: given, else bool, int32 or float32 by fill_value's kind)."""
async def zeros_like_async(x: Any, /, *, dtype: Any = None, device: Any = None) -> Any:
    """Zeros of x's shape, dtype (unless given) and device (unless given)."""
async def ones_like_async(x: Any, /, *, dtype: Any = None, device: Any = None) -> Any:
    """Ones of x's shape, dtype (unless given) and device (unless given)."""
async def empty_like_async(x: Any, /, *, dtype: Any = None, device: Any = None) -> Any:
    """An array of x's shape, dtype and device (unless given) whose values are unspecified."""
async def full_like_async(x: Any, /, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Any:
    """`fill_value` in x's shape, dtype and device (unless given)."""
async def arange_async(start: Any, /, stop: Any = None, step: Any = 1, *, dtype: Any = None, device: Any = None) -> Any:
    """Evenly spaced values in [start, stop), `step` apart (arange(n): 0 to n - 1). dtype: given, else float32 if any argument is a float, else int32."""
async def linspace_async(start: Any, stop: Any, /, num: Any, *, dtype: Any = None, device: Any = None, endpoint: builtins.bool = True) -> Any:
    """`num` evenly spaced float32 values from start to stop (stop included when endpoint); complex64 where start or stop is complex, or dtype says so."""
async def eye_async(n_rows: Any, n_cols: Any = None, /, *, k: Any = 0, dtype: Any = None, device: Any = None) -> Any:
    """An n_rows x n_cols (n_cols = n_rows when None) array with ones on diagonal k (0: the main one, > 0 above it, < 0 below), zeros elsewhere (dtype float32 unless given)."""
async def tril_async(x: Any, /, *, k: Any = 0) -> Any:
    """The lower triangle of x's matrices (its last two axes): elements on and below diagonal k kept, the rest zero."""
async def triu_async(x: Any, /, *, k: Any = 0) -> Any:
    """The upper triangle of x's matrices (its last two axes): elements on and above diagonal k kept, the rest zero."""
async def meshgrid_async(*arrays: Any, indexing: str = 'xy') -> tuple[Any, ...]:
    """Coordinate grids of 1-D arrays: one array per input, each of the grid's shape (lengths in input order for indexing "ij"; the first two swapped for "xy", the Cartesian one). On GpuArrays, broadcast views."""
async def reshape_async(x: Any, /, shape: Any, *, copy: builtins.bool | None = None) -> Any:
    """x's elements in another shape (one -1 stands for the rest): a view where the strides allow it, else a copy (copy=True: always a copy; copy=False: a ValueError where a copy is needed)."""
async def concat_async(arrays: Any, /, *, axis: Any = 0) -> Any:
    """The arrays joined along an existing axis (their other lengths equal; axis=None: flattened first), in the dtype they promote to."""
async def stack_async(arrays: Any, /, *, axis: Any = 0) -> Any:
    """The arrays (of one shape) joined along a new axis at `axis` of the result, in the dtype they promote to."""
async def roll_async(x: Any, /, shift: Any, *, axis: Any = None) -> Any:
    """x's elements shifted by `shift` along `axis` (ints, or tuples paired up; None: the flattened array), those pushed past the end coming back at the start."""
async def tile_async(x: Any, repetitions: Any, /) -> Any:
    """x repeated `repetitions[i]` times along each axis i (the shorter of x's shape and repetitions padded with leading 1s)."""
async def repeat_async(x: Any, repeats: Any, /, *, axis: Any = None) -> Any:
    """Each element of x repeated along `axis` (None: of the flattened array): `repeats` times (an int), or repeats[i] times for element i (a 1-D integer array of that axis's length, or of 1)."""
async def astype_async(x: Any, dtype: Any, /, *, copy: builtins.bool = True, device: Any = None) -> Any:
    """x converted to `dtype` (floats to ints truncate, nonzero is True): a new array unless copy is False and x already has that dtype (and device)."""
async def imag_async(x: Any, /) -> Any:
    """The imaginary part of x: of a complex64 array, float32 (a view of a GpuArray's buffer, a copy of a NumPy array's); of pycore's real-valued dtypes, zeros of x's dtype where x lives (as NumPy's imag)."""
async def permute_dims_async(x: Any, /, axes: Any) -> Any:
    """x's axes permuted (`axes`: a permutation of 0 ... ndim - 1): a view. The awaitable form of pycore.permute_dims."""
async def matrix_transpose_async(x: Any, /) -> Any:
    """x's matrices (its last two axes) transposed: a view. The awaitable form of pycore.matrix_transpose."""
async def expand_dims_async(x: Any, /, axis: Any = 0) -> Any:
    """x with a new axis of length 1 at `axis` (of the result; a tuple: one at each): a view. The awaitable form of pycore.expand_dims."""
async def squeeze_async(x: Any, /, axis: Any) -> Any:
    """x without the axes named (an int or a tuple; each of length 1, else ValueError): a view. The awaitable form of pycore.squeeze."""
async def broadcast_to_async(x: Any, /, shape: Any) -> Any:
    """x repeated along axes of length 1 (and new leading ones) to `shape`: a view. The awaitable form of pycore.broadcast_to."""
async def broadcast_arrays_async(*arrays: Any) -> tuple[Any, ...]:
    """The arrays broadcast to their common shape: views. The awaitable form of pycore.broadcast_arrays."""
async def moveaxis_async(x: Any, source: Any, destination: Any, /) -> Any:
    """x with axes `source` moved to positions `destination` (ints, or tuples of one length), the others in their order: a view. The awaitable form of pycore.moveaxis."""
async def flip_async(x: Any, /, *, axis: Any = None) -> Any:
    """x's elements in reverse order along `axis` (an int, a tuple, or None: every axis): a view. The awaitable form of pycore.flip."""
async def unstack_async(x: Any, /, *, axis: Any = 0) -> tuple[Any, ...]:
    """x split along `axis` into its x.shape[axis] slices, each without that axis: views. The awaitable form of pycore.unstack."""
async def broadcast_shapes_async(*shapes: Any) -> tuple[int, ...]:
    """The shape that arrays of these shapes broadcast to (ValueError naming them where they do not): shapes only, no arrays. The awaitable form of pycore.broadcast_shapes."""
async def real_async(x: Any, /) -> Any:
    """The real part of x: x itself for pycore's real-valued dtypes (no copy, no dispatch); of a complex64 array, its real parts as float32: a view of a GpuArray's buffer, a copy of a NumPy array's. The awaitable form of pycore.real."""
async def conj_async(x: Any, /) -> Any:
    """The complex conjugate of x: x itself for pycore's real-valued dtypes (no copy, no dispatch); of a complex64 array, its conjugate (one kernel for a GpuArray)."""
def permute_dims(x: Any, /, axes: Any) -> Any:
    """x's axes permuted (`axes`: a permutation of 0 ... ndim - 1): a view."""
def matrix_transpose(x: Any, /) -> Any:
    """x's matrices (its last two axes) transposed: a view."""
def expand_dims(x: Any, /, axis: Any = 0) -> Any:
    """x with a new axis of length 1 at `axis` (of the result; a tuple: one at each): a view."""
def squeeze(x: Any, /, axis: Any) -> Any:
    """x without the axes named (an int or a tuple; each of length 1, else ValueError): a view."""
def broadcast_to(x: Any, /, shape: Any) -> Any:
    """x repeated along axes of length 1 (and new leading ones) to `shape`: a view."""
def broadcast_arrays(*arrays: Any) -> tuple[Any, ...]:
    """The arrays broadcast to their common shape: views."""
def moveaxis(x: Any, source: Any, destination: Any, /) -> Any:
    """x with axes `source` moved to positions `destination` (ints, or tuples of one length), the others in their order: a view."""
def flip(x: Any, /, *, axis: Any = None) -> Any:
    """x's elements in reverse order along `axis` (an int, a tuple, or None: every axis): a view."""
def unstack(x: Any, /, *, axis: Any = 0) -> tuple[Any, ...]:
    """x split along `axis` into its x.shape[axis] slices, each without that axis: views."""
def broadcast_shapes(*shapes: Any) -> tuple[int, ...]:
    """The shape that arrays of these shapes broadcast to (ValueError naming them where they do not): shapes only, no arrays."""
def real(x: Any, /) -> Any:
    """The real part of x: x itself for pycore's real-valued dtypes (no copy, no dispatch); of a complex64 array, its real parts as float32: a view of a GpuArray's buffer, a copy of a NumPy array's."""
def conj(x: Any, /) -> Any:
    """The complex conjugate of x: x itself for pycore's real-valued dtypes (no copy, no dispatch); of a complex64 NumPy array, its conjugate. A complex64 GpuArray's conjugate runs a kernel: `await pycore.conj_async(x)` (TypeError here)."""
def result_type(*arrays_and_dtypes: Any) -> np.dtype:
    """The dtype arrays and dtypes (and Python scalars, weakly) promote to, by pycore's rules."""
def can_cast(from_: Any, to: Any, /) -> builtins.bool:
    """Whether `from_` (a dtype, or an array's) can be cast to `to` by the standard's type promotion rules, which join integers with integers and floating-point dtypes (real and complex) with each other, at a dtype that holds both: int8 to int16, uint8 to int16 or float32 to complex64 is True; bool to int32, int32 to float32, uint32 to int32 and complex64 to float32 are False, as array_api_strict says."""
def isdtype(dtype: Any, kind: Any) -> builtins.bool:
    """Whether `dtype` is of `kind`: a dtype, a kind name ("bool", "signed integer", "unsigned integer", "integral", "real floating", "complex floating", "numeric"), or a tuple of them."""
def finfo(type: Any, /) -> FInfo:
    """The limits of a floating-point dtype (or an array's): bits, eps, max, min, smallest_normal; of complex64, its float32 parts' (dtype float32), as the standard says."""
def iinfo(type: Any, /) -> IInfo:
    """The limits of an integer dtype (or an array's): bits, max, min."""
def __array_namespace_info__() -> Info:
    """The Array API's inspection namespace: capabilities(), default_device(), devices(), default_dtypes(), dtypes()."""
bool: np.dtype[Any]
int8: np.dtype[Any]
int16: np.dtype[Any]
int32: np.dtype[Any]
uint8: np.dtype[Any]
uint16: np.dtype[Any]
uint32: np.dtype[Any]
float16: np.dtype[Any]
float32: np.dtype[Any]
complex64: np.dtype[Any]
e: float
pi: float
inf: float
nan: float
newaxis: None
__array_api_version__: str
async def where_async(condition: Any, x1: Any, x2: Any, /) -> Any:
    """x1's elements where `condition` (a bool array) is True, x2's elsewhere, all three broadcast together; x1 and x2 (one of them may be a Python scalar) promote to the result's dtype."""
async def clip_async(x: Any, /, min: Any = None, max: Any = None, *, backend: str = 'auto') -> Any:
    """x's elements limited to [min, max] (each a Python scalar, an array broadcasting with x, or None: no limit), in x's dtype: raised to min, then lowered to max (where min > max, max). A NaN in x, min or max gives NaN. Scalar bounds must have min <= max (ValueError if not). backend: "auto" (the GPU where an input is a GpuArray in GPU memory), "gpu" or "numpy"."""
async def take_async(x: Any, indices: Any, /, *, axis: Any = None) -> Any:
    """The elements of x at `indices` (an integer array; negative ones count from the end) along `axis` (None: x must be 1-D): the result has x's axes with `axis` replaced by indices' axes. Host indices out of range raise IndexError; GPU indices are clamped (see the module's doc)."""
async def take_along_axis_async(x: Any, indices: Any, /, *, axis: Any = -1) -> Any:
    """The elements of x at `indices` along `axis`, position by position: indices has x's number of dimensions, and its other axes broadcast with x's; the result has indices' length along axis."""
async def cumulative_sum_async(x: Any, /, *, axis: Any = None, dtype: Any = None, include_initial: Any = False) -> Any:
    """The cumulative sums of x along `axis` (None: x must be 1-D, or 0-d), in `dtype` (x's unless given; integers wrap); include_initial: each row starts with 0 (the axis one longer). On the GPU, float32 sums are summed as a tree within blocks of 2048 elements (1024 complex64 ones) and over the blocks: the error grows with log(n), to within about (log2(n) + 16) float32 ULPs of the sums of |x|."""
async def cumulative_prod_async(x: Any, /, *, axis: Any = None, dtype: Any = None, include_initial: Any = False) -> Any:
    """The cumulative products of x along `axis` (None: x must be 1-D, or 0-d), in `dtype` (x's unless given; integers wrap); include_initial: each row starts with 1 (the axis one longer)."""
async def diff_async(x: Any, /, *, axis: Any = -1, n: Any = 1, prepend: Any = None, append: Any = None) -> Any:
    """The n-th differences of x along `axis` (x[1:] - x[:-1], n times), after joining `prepend` and `append` (arrays of x's shape but along axis, or Python scalars: one element) to x along it; the axis n shorter (none left: empty). Integers wrap."""
async def count_nonzero_async(x: Any, /, *, axis: Any = None, keepdims: Any = False) -> Any:
    """How many elements of x are nonzero (True; NaN counts, -0.0 does not) along `axis` (an int, a tuple, or None: every axis), as int32: a Python int when every axis is counted without keepdims (as pycore's reductions give), else an array (a GpuArray for a GpuArray input)."""
async def sort_async(x: Any, /, *, axis: Any = -1, descending: Any = False, stable: Any = True) -> Any:
    """A sorted copy of `x` along `axis`: ascending (NaN last), or descending (NaN first); stable (equal values, such as -0.0 and 0.0, keep their order). On a GpuArray a GPU sort."""
async def argsort_async(x: Any, /, *, axis: Any = -1, descending: Any = False, stable: Any = True) -> Any:
    """The indices (int32) that sort `x` along `axis`, as sort_async orders it (stable: equal values' indices in increasing order, descending too). On a GpuArray a GPU sort."""
async def searchsorted_async(x1: Any, x2: Any, /, *, side: Any = 'left', sorter: Any = None) -> Any:
    """The indices (int32, x2's shape) at which inserting x2's values keeps the 1-D `x1` sorted (ascending, NaN last; or sorted by the permutation `sorter`): side "left" the first such place, "right" the last. On GpuArrays a binary search per value on the GPU."""
async def nonzero_async(x: Any, /) -> tuple[Any, ...]:
    """The indices of x's nonzero elements (True; NaN counts, -0.0 does not), one int32 array per axis, in C order. On a GpuArray on the GPU: the count is read back (the result's size depends on it), and a stable argsort of the zero flags puts the nonzero elements' flat indices first, in order; their coordinates follow by integer division."""
async def isin_async(x1: Any, x2: Any, /, *, invert: Any = False) -> Any:
    """Whether each element of x1 equals some element of x2 (bool, x1's shape; NaN equals nothing, -0.0 equals 0.0), or is in none of them with `invert`. Both are promoted to one dtype. On GpuArrays on the GPU: x2 sorted, a binary search for each element of x1, and the element found compared."""
async def unique_values_async(x: Any, /) -> Any:
    """The unique values of `x` (flattened), ascending; each NaN is a value of its own, -0.0 and 0.0 one value. Set functions sort x flattened (stably, on the GPU for a GpuArray), then find the groups of equal values on the host from the sorted values and the permutation (one pass: the output's size depends on the data) and upload the results."""
async def unique_counts_async(x: Any, /) -> UniqueCountsResult:
    """The unique values of `x` (flattened, ascending) and how often each occurs (int32). Set functions sort x flattened (stably, on the GPU for a GpuArray), then find the groups of equal values on the host from the sorted values and the permutation (one pass: the output's size depends on the data) and upload the results."""
async def unique_inverse_async(x: Any, /) -> UniqueInverseResult:
    """The unique values of `x` (flattened, ascending) and, in x's shape, the index of each element's value among them (int32): values[inverse_indices] is x. Set functions sort x flattened (stably, on the GPU for a GpuArray), then find the groups of equal values on the host from the sorted values and the permutation (one pass: the output's size depends on the data) and upload the results."""
async def unique_all_async(x: Any, /) -> UniqueAllResult:
    """The unique values of `x` (flattened, ascending), the flat index of each one's first occurrence, each element's index among them (x's shape) and each one's count (all int32). Set functions sort x flattened (stably, on the GPU for a GpuArray), then find the groups of equal values on the host from the sorted values and the permutation (one pass: the output's size depends on the data) and upload the results."""
async def tensordot_async(x1: Any, x2: Any, /, *, axes: Any = 2) -> Any:
    """The sum of products of x1 and x2 over the axes `axes` names: an int N (x1's last N axes with x2's first N) or a pair of sequences (x1's axes, x2's axes, contracted in pairs). The result has x1's other axes, then x2's. On the GPU as one matmul of the operands permuted and reshaped."""
async def vecdot_async(x1: Any, x2: Any, /, *, axis: Any = -1) -> Any:
    """The dot products of x1's and x2's vectors along `axis` (a negative int: counted from the last axis, the other axes broadcast): sum(conj(x1) * x2, axis=axis) (conj: complex x1 only), on the GPU as a multiply and a sum."""
