"""The op table: the single source of truth for every operation pycore offers.

One `Op` entry says what kind of kernel runs it (which program in `programs.py` shapes, checks and
dispatches it), where its WGSL lives (family file and entry point), its inputs and parameters, its
NumPy implementation (the fallback path, with the kernel's semantics), its FLOP and byte counts (for
the cost model) and a runnable example (for the docstring and the README). The public `*_async`
functions are generated from this table (`api.py`), and the tests iterate over it; adding an op
means one entry here, one WGSL entry point in `shaders/<family>.wgsl`, and one test case.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

Shapes = tuple[tuple[int, ...], ...]

F32 = np.float32


@dataclass(frozen=True)
class Param:
    name: str
    default: Any  # `REQUIRED` when the caller must give it
    doc: str
    sample: Any = None  # a typical value, for the benchmarks, when there is no default

    @property
    def typical(self) -> Any:
        return self.sample if self.default is REQUIRED else self.default


REQUIRED = object()


@dataclass(frozen=True)
class Op:
    name: str
    kind: str  # "unary" | "binary" | "rowwise" | "reduce" | "matmul" | "conv2d"  (see programs.py)
    family: str  # shaders/<family>.wgsl
    entry: str  # the WGSL entry point
    inputs: tuple[str, ...]  # names of the array arguments
    numpy: Callable[..., Any]  # float32 arrays (+ params) -> float32 array, or a float for reductions
    flops: Callable[[Shapes], float]  # floating-point operations for these input shapes
    summary: str
    example: str  # an expression whose value the docstring shows (checked by doctest)
    shows: str  # the repr of that value
    params: tuple[Param, ...] = ()
    check: Callable[[dict[str, Any]], str | None] | None = None  # params -> error message, if any
    variant: Callable[[dict[str, Any]], str] | None = None  # params -> another entry point
    combine: str = ""  # reductions: how partial results combine, "sum", "max" or "min"

    @property
    def public_name(self) -> str:
        return f"{self.name}_async"

    def entry_for(self, params: dict[str, Any]) -> str:
        """The WGSL entry point that computes this op with these parameters."""
        return self.variant(params) if self.variant else self.entry

    def typical_params(self) -> dict[str, Any]:
        """Parameters for a benchmark call: the defaults, and a sample value where there is none."""
        return {p.name: p.typical for p in self.params}



def per_element(flops: float) -> Callable[[Shapes], float]:
    return lambda shapes: flops * int(np.prod(shapes[0]))


# ---------------------------------------------------------------- NumPy implementations
# Each mirrors its kernel: same formula, same NaN/inf behaviour, float32 throughout.

def _relu(x):
    # NaN stays NaN (NaN < 0 is false), as in the kernel. np.where, not np.maximum: the latter is
    # 5x slower in Pyodide's NumPy (measured at 256K elements).
    return np.where(x < 0, F32(0), x)


def _leaky_relu(x, alpha):
    return np.where(x < 0, x * F32(alpha), x)


def _elu(x, alpha):
    with np.errstate(over="ignore"):
        return np.where(x > 0, x, F32(alpha) * (np.exp(np.minimum(x, F32(0))) - F32(1))).astype(F32)


def _sigmoid(x):
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, F32(1) / (F32(1) + e), e / (F32(1) + e)).astype(F32)


def _tanh(x):
    return np.tanh(x)  # NumPy's is exact to float32 and safe for every input


def _gate(x, s):
    """x * s, but 0 where s == 0 (so -inf * 0 gives 0, the limit, not NaN)."""
    with np.errstate(invalid="ignore"):
        return np.where(s == 0, F32(0), x * s).astype(F32)


def _swish(x):
    return _gate(x, _sigmoid(x))


def _gelu(x, approximate=True):
    with np.errstate(over="ignore", invalid="ignore"):
        if approximate:
            u = F32(0.7978845608028654) * (x + F32(0.044715) * x * x * x)
            return _gate(x, _sigmoid(F32(2) * u))
        return _gate(x, (F32(0.5) * (F32(1) + _erf(F32(0.7071067811865476) * x))).astype(F32))


def _erf(x):
    """erf by Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7), as the kernel computes it."""
    a = np.abs(x)
    t = F32(1) / (F32(1) + F32(0.3275911) * a)
    poly = t * (F32(0.254829592) + t * (F32(-0.284496736) + t * (F32(1.421413741)
                + t * (F32(-1.453152027) + t * F32(1.061405429)))))
    return (np.sign(x) * (F32(1) - poly * np.exp(-a * a))).astype(F32)


def _clip(x, min, max):  # noqa: A002 (NumPy's own names)
    return np.where(x < F32(min), F32(min), np.where(x > F32(max), F32(max), x)).astype(F32)


def _scale(x, s):
    return x * F32(s)


def _softmax(x):
    m = np.max(x, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore"):
        e = np.exp(x - m)
        return (e / np.sum(e, axis=-1, keepdims=True)).astype(F32)


def _log_softmax(x):
    m = np.max(x, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (x - (m + np.log(np.sum(np.exp(x - m), axis=-1, keepdims=True)))).astype(F32)


def _max(x):
    return float(np.max(x))  # NaN if any element is NaN


def _min(x):
    return float(np.min(x))


def _conv2d(image, kernel, mode="valid"):
    kh, kw = kernel.shape
    if mode == "same":
        image = np.pad(image, ((kh // 2, (kh - 1) // 2), (kw // 2, (kw - 1) // 2)))
    windows = np.lib.stride_tricks.sliding_window_view(image, (kh, kw))
    return np.einsum("ijkl,kl->ij", windows, kernel[::-1, ::-1], dtype=F32).astype(F32)


OPS: dict[str, Op] = {
    op.name: op
    for op in [
        # ---- element-wise, one input
        Op("relu", "unary", "elementwise", "relu", ("x",), _relu, per_element(1),
           "max(x, 0) element-wise; NaN stays NaN.",
           "pycore.relu_async([-1.0, 0.5, 2.0])",
           'array([0. , 0.5, 2. ], dtype=float32)'),
        Op("leaky_relu", "unary", "elementwise", "leaky_relu", ("x",), _leaky_relu, per_element(2),
           "x if x >= 0 else alpha * x.",
           "pycore.leaky_relu_async([-2.0, 3.0], alpha=0.5)",
           'array([-1.,  3.], dtype=float32)',
           (Param("alpha", 0.01, "slope for negative inputs"),)),
        Op("elu", "unary", "elementwise", "elu", ("x",), _elu, per_element(4),
           "x if x > 0 else alpha * (exp(x) - 1).",
           "pycore.elu_async([-1.0, 0.0, 2.0])",
           'array([-0.6321206,  0.       ,  2.       ], dtype=float32)',
           (Param("alpha", 1.0, "value approached as x -> -inf is -alpha"),)),
        Op("sigmoid", "unary", "elementwise", "sigmoid", ("x",), _sigmoid, per_element(5),
           "1 / (1 + exp(-x)), stable for both signs (sigmoid(-inf) = 0).",
           "pycore.sigmoid_async([-20.0, 0.0, 20.0])",
           'array([2.0611537e-09, 5.0000000e-01, 1.0000000e+00], dtype=float32)'),
        Op("tanh", "unary", "elementwise", "tanh_", ("x",), _tanh, per_element(6),
           "tanh(x) in a form that never overflows (tanh(±inf) = ±1).",
           "pycore.tanh_async([-100.0, 0.0, 0.5])",
           'array([-1.       ,  0.       ,  0.4621172], dtype=float32)'),
        Op("swish", "unary", "elementwise", "swish", ("x",), _swish, per_element(6),
           "x * sigmoid(x) (SiLU); swish(-inf) = 0.",
           "pycore.swish_async([-1.0, 0.0, 1.0])",
           'array([-0.2689414,  0.       ,  0.7310586], dtype=float32)'),
        Op("gelu", "unary", "elementwise", "gelu", ("x",), _gelu, per_element(12),
           "GELU, tanh approximation (approximate=False: the erf form, to ~2e-7); gelu(-inf) = 0.",
           "pycore.gelu_async([-3.0, 0.0, 1.0])",
           'array([-0.00363739,  0.        ,  0.841192  ], dtype=float32)',
           (Param("approximate", True, "True: tanh approximation; False: erf form"),),
           variant=lambda p: "gelu" if p["approximate"] else "gelu_erf"),
        Op("clip", "unary", "elementwise", "clip", ("x",), _clip, per_element(2),
           "x limited to [min, max] (min <= max required); NaN stays NaN.",
           "pycore.clip_async([-2.0, 0.5, 3.0], 0.0, 1.0)",
           'array([0. , 0.5, 1. ], dtype=float32)',
           (Param("min", REQUIRED, "lower bound", -1.0), Param("max", REQUIRED, "upper bound", 1.0)),
           check=lambda p: f"min ({p['min']}) is greater than max ({p['max']})" if p["min"] > p["max"]
           else None),
        Op("scale", "unary", "elementwise", "scale", ("x",), _scale, per_element(1),
           "x * s.",
           "pycore.scale_async([1.0, -2.0], 3.0)",
           'array([ 3., -6.], dtype=float32)',
           (Param("s", REQUIRED, "the factor", 2.0),)),
        # ---- element-wise, two inputs of one shape
        Op("vec_add", "binary", "binary", "vec_add", ("a", "b"), np.add, per_element(1),
           "a + b element-wise (same shapes).",
           "pycore.vec_add_async([1.0, 2.0], [10.0, 20.0])",
           'array([11., 22.], dtype=float32)'),
        Op("vec_sub", "binary", "binary", "vec_sub", ("a", "b"), np.subtract, per_element(1),
           "a - b element-wise (same shapes).",
           "pycore.vec_sub_async([1.0, 2.0], [10.0, 20.0])",
           'array([ -9., -18.], dtype=float32)'),
        Op("vec_mul", "binary", "binary", "vec_mul", ("a", "b"), np.multiply, per_element(1),
           "a * b element-wise (same shapes).",
           "pycore.vec_mul_async([1.0, 2.0], [10.0, 20.0])",
           'array([10., 40.], dtype=float32)'),
        # ---- over the last axis of 1-D or 2-D input, one fused dispatch
        Op("softmax", "rowwise", "rowwise", "softmax", ("x",), _softmax, per_element(5),
           "exp(x - max) / sum(exp(x - max)) over the last axis of 1-D or 2-D x.",
           "pycore.softmax_async([[1.0, 1.0], [0.0, 1000.0]])",
           'array([[0.5, 0.5],\n       [0. , 1. ]], dtype=float32)'),
        Op("log_softmax", "rowwise", "rowwise", "log_softmax", ("x",), _log_softmax, per_element(5),
           "x - max - log(sum(exp(x - max))) over the last axis of 1-D or 2-D x.",
           "pycore.log_softmax_async([0.0, 0.0])",
           'array([-0.6931472, -0.6931472], dtype=float32)'),
        # ---- reductions to a Python float, entirely on the GPU
        Op("sum", "reduce", "reduce", "reduce", ("x",), lambda x: float(np.sum(x, dtype=F32)), per_element(1),
           "The sum of all elements, as a float (0.0 for an empty array).",
           "pycore.sum_async([[1.0, 2.0], [3.0, 4.5]])",
           '10.5', combine="sum"),
        Op("max", "reduce", "reduce", "reduce", ("x",), _max, per_element(1),
           "The largest element, as a float; NaN if any element is NaN; empty input is an error.",
           "pycore.max_async([3.0, -1.0, 7.5])",
           '7.5', combine="max"),
        Op("min", "reduce", "reduce", "reduce", ("x",), _min, per_element(1),
           "The smallest element, as a float; NaN if any element is NaN; empty input is an error.",
           "pycore.min_async([3.0, -1.0, 7.5])",
           '-1.0', combine="min"),
        Op("dot", "reduce", "reduce", "dot_products", ("a", "b"),
           lambda a, b: float(np.sum(a * b, dtype=F32)), per_element(2),
           "sum(a * b) over two arrays of one shape, as a float.",
           "pycore.dot_async([1.0, 2.0, 3.0], [4.0, 5.0, 6.0])",
           '32.0', combine="sum"),
        # ---- linear algebra and images
        Op("matmul", "matmul", "matmul", "matmul", ("a", "b"), np.matmul,
           lambda s: 2.0 * s[0][0] * s[0][1] * s[1][1],
           "(m, k) @ (k, n) -> (m, n) for any m, k, n.",
           "pycore.matmul_async([[1.0, 2.0], [3.0, 4.0]], [[1.0], [1.0]])",
           'array([[3.],\n       [7.]], dtype=float32)'),
        Op("convolve2d", "conv2d", "conv2d", "convolve2d", ("image", "kernel"), _conv2d,
           lambda s: 2.0 * int(np.prod(s[1])) * int(np.prod(s[0])),
           'True 2-D convolution (kernel flipped, as scipy.signal.convolve2d); mode "valid" or "same".',
           "pycore.convolve2d_async([[1.0, 2.0], [3.0, 4.0]], [[0.0, 1.0]], mode='same')",
           'array([[0., 1.],\n       [0., 3.]], dtype=float32)',
           (Param("mode", "valid", '"valid" (no padding) or "same" (zero padding, output like image)'),)),
    ]
}
