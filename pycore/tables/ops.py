"""The op table: the single source of truth for every operation pycore offers.

One `Op` entry, in keyword form, says what kind of kernel runs it (which program in `programs.py`
shapes, checks and dispatches it), where its WGSL lives (family file and entry point, which default
to the kind's file and the op's name), its inputs and parameters, its NumPy implementation (the
fallback path, with the kernel's semantics), its FLOP count (for the cost model) and a runnable
example (for the docstring and the README). The public `*_async`
functions are generated from this table (`api.py`), and the tests iterate over it; adding an op
means one entry here, its WGSL in `shaders/<family>.wgsl` (for an element-wise op, one `<entry>_f`
function: its kernel is generated), and one float64 reference in tests/reference.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pycore.array.layout import conv_shape, matmul_shape
from pycore.tables.kinds import KINDS

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


@dataclass(frozen=True, kw_only=True)
class Op:
    name: str
    kind: str  # a kernel kind of kinds.KINDS (the class that runs it: pycore/calls/programs.py)
    inputs: tuple[str, ...]  # names of the array arguments
    numpy: Callable[..., Any]  # float32 arrays (+ params) -> float32 array, or a float for reductions
    flops: Callable[[Shapes], float]  # floating-point operations for these input shapes
    summary: str
    example: str  # an expression whose value the docstring shows (checked by doctest)
    shows: str  # the repr of that value
    family: str = ""  # shaders/<family>.wgsl; "" means the kind's family (kinds.KINDS)
    entry: str = ""  # the WGSL entry point; "" means the op's name
    params: tuple[Param, ...] = ()
    check: Callable[[dict[str, Any]], str | None] | None = None  # params -> error message, if any
    variant: Callable[[dict[str, Any]], str] | None = None  # params -> another entry point
    combine: str = ""  # reductions: how partial results combine, "sum", "max" or "min"

    def __post_init__(self) -> None:
        object.__setattr__(self, "family", self.family or KINDS[self.kind].family)
        object.__setattr__(self, "entry", self.entry or self.name)

    @property
    def public_name(self) -> str:
        return f"{self.name}_async"

    def entry_for(self, params: dict[str, Any]) -> str:
        """The WGSL entry point that computes this op with these parameters."""
        return self.variant(params) if self.variant else self.entry

    def out_shape(self, shapes: Shapes, params: dict[str, Any] | None = None) -> tuple[int, ...]:
        """The shape of the op's result for inputs of these shapes (checked ones).

        >>> OPS["matmul"].out_shape(((8, 3, 4), (4, 5))), OPS["sum"].out_shape(((3, 4),))
        ((8, 3, 5), ())
        """
        if self.kind == "reduce":
            return ()
        if self.kind == "matmul":
            return matmul_shape(shapes[0], shapes[1])
        if self.kind == "conv2d":
            return conv_shape(shapes[0], shapes[1], (params or {}).get("mode", "valid"))
        return tuple(shapes[0])

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


def _softmax(x, axis=-1):
    m = np.max(x, axis=axis, keepdims=True)
    with np.errstate(invalid="ignore"):
        e = np.exp(x - m)
        return (e / np.sum(e, axis=axis, keepdims=True)).astype(F32)


def _log_softmax(x, axis=-1):
    # (x - max) - log(sum), in that order: max + log(sum) rounds to a large max's float32 spacing
    m = np.max(x, axis=axis, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        shifted = x - m
        return (shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))).astype(F32)


def _max(x):
    return float(np.max(x))  # NaN if any element is NaN


def _min(x):
    return float(np.min(x))


def _matmul_flops(s: Shapes) -> float:
    a, b = s
    m, n = (a[-2] if len(a) > 1 else 1), (b[-1] if len(b) > 1 else 1)
    batch = max(int(np.prod(a[:-2])), int(np.prod(b[:-2])))
    return 2.0 * batch * m * a[-1] * n


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
        Op(name="relu", kind="unary", inputs=("x",),
           numpy=_relu, flops=per_element(1),
           summary="max(x, 0) element-wise; NaN stays NaN.",
           example="pycore.relu_async([-1.0, 0.5, 2.0])",
           shows='array([0. , 0.5, 2. ], dtype=float32)'),
        Op(name="leaky_relu", kind="unary", inputs=("x",),
           numpy=_leaky_relu, flops=per_element(2),
           summary="x if x >= 0 else alpha * x.",
           example="pycore.leaky_relu_async([-2.0, 3.0], alpha=0.5)",
           shows='array([-1.,  3.], dtype=float32)',
           params=(Param("alpha", 0.01, "slope for negative inputs"),)),
        Op(name="elu", kind="unary", inputs=("x",),
           numpy=_elu, flops=per_element(4),
           summary="x if x > 0 else alpha * (exp(x) - 1).",
           example="pycore.elu_async([-1.0, 0.0, 2.0])",
           shows='array([-0.6321206,  0.       ,  2.       ], dtype=float32)',
           params=(Param("alpha", 1.0, "value approached as x -> -inf is -alpha"),)),
        Op(name="sigmoid", kind="unary", inputs=("x",),
           numpy=_sigmoid, flops=per_element(5),
           summary="1 / (1 + exp(-x)), stable for both signs (sigmoid(-inf) = 0).",
           example="pycore.sigmoid_async([-20.0, 0.0, 20.0])",
           shows='array([2.0611537e-09, 5.0000000e-01, 1.0000000e+00], dtype=float32)'),
        Op(name="tanh", kind="unary", entry="tanh_", inputs=("x",),
           numpy=_tanh, flops=per_element(6),
           summary="tanh(x) in a form that never overflows (tanh(±inf) = ±1).",
           example="pycore.tanh_async([-100.0, 0.0, 0.5])",
           shows='array([-1.       ,  0.       ,  0.4621172], dtype=float32)'),
        Op(name="swish", kind="unary", inputs=("x",),
           numpy=_swish, flops=per_element(6),
           summary="x * sigmoid(x) (SiLU); swish(-inf) = 0.",
           example="pycore.swish_async([-1.0, 0.0, 1.0])",
           shows='array([-0.2689414,  0.       ,  0.7310586], dtype=float32)'),
        Op(name="gelu", kind="unary", inputs=("x",),
           numpy=_gelu, flops=per_element(12),
           summary="GELU, tanh approximation (approximate=False: the erf form, to ~2e-7); gelu(-inf) = 0.",
           example="pycore.gelu_async([-3.0, 0.0, 1.0])",
           shows='array([-0.00363739,  0.        ,  0.841192  ], dtype=float32)',
           params=(Param("approximate", True, "True: tanh approximation; False: erf form"),),
           variant=lambda p: "gelu" if p["approximate"] else "gelu_erf"),
        Op(name="clip", kind="unary", inputs=("x",),
           numpy=_clip, flops=per_element(2),
           summary="x limited to [min, max] (min <= max required); NaN stays NaN.",
           example="pycore.clip_async([-2.0, 0.5, 3.0], 0.0, 1.0)",
           shows='array([0. , 0.5, 1. ], dtype=float32)',
           params=(Param("min", REQUIRED, "lower bound", -1.0), Param("max", REQUIRED, "upper bound", 1.0)),
           check=lambda p: f"min ({p['min']}) is greater than max ({p['max']})" if p["min"] > p["max"]
           else None),
        Op(name="scale", kind="unary", inputs=("x",),
           numpy=_scale, flops=per_element(1),
           summary="x * s.",
           example="pycore.scale_async([1.0, -2.0], 3.0)",
           shows='array([ 3., -6.], dtype=float32)',
           params=(Param("s", REQUIRED, "the factor", 2.0),)),
        # ---- element-wise, two inputs of one shape
        Op(name="vec_add", kind="binary", inputs=("a", "b"),
           numpy=np.add, flops=per_element(1),
           summary="a + b element-wise (same shapes).",
           example="pycore.vec_add_async([1.0, 2.0], [10.0, 20.0])",
           shows='array([11., 22.], dtype=float32)'),
        Op(name="vec_sub", kind="binary", inputs=("a", "b"),
           numpy=np.subtract, flops=per_element(1),
           summary="a - b element-wise (same shapes).",
           example="pycore.vec_sub_async([1.0, 2.0], [10.0, 20.0])",
           shows='array([ -9., -18.], dtype=float32)'),
        Op(name="vec_mul", kind="binary", inputs=("a", "b"),
           numpy=np.multiply, flops=per_element(1),
           summary="a * b element-wise (same shapes).",
           example="pycore.vec_mul_async([1.0, 2.0], [10.0, 20.0])",
           shows='array([10., 40.], dtype=float32)'),
        # ---- over the last axis of n-d input, one fused dispatch
        Op(name="softmax", kind="rowwise", inputs=("x",),
           numpy=_softmax, flops=per_element(5),
           summary="exp(x - max) / sum(exp(x - max)) along `axis` (the last by default), any number of "
                   "dimensions.",
           example="pycore.softmax_async([[1.0, 1.0], [0.0, 1000.0]])",
           shows='array([[0.5, 0.5],\n       [0. , 1. ]], dtype=float32)',
           params=(Param("axis", -1, "the axis softmax runs along"),)),
        Op(name="log_softmax", kind="rowwise", inputs=("x",),
           numpy=_log_softmax, flops=per_element(5),
           summary="(x - max) - log(sum(exp(x - max))) along `axis` (the last by default), any number of "
                   "dimensions.",
           example="pycore.log_softmax_async([0.0, 0.0])",
           shows='array([-0.6931472, -0.6931472], dtype=float32)',
           params=(Param("axis", -1, "the axis log_softmax runs along"),)),
        # ---- reductions to a Python float, entirely on the GPU
        Op(name="sum", kind="reduce", inputs=("x",),
           numpy=lambda x: float(np.sum(x, dtype=F32)), flops=per_element(1),
           summary="The sum of all elements, as a float (0.0 for an empty array).",
           example="pycore.sum_async([[1.0, 2.0], [3.0, 4.5]])",
           shows='10.5',
           combine="sum"),
        Op(name="max", kind="reduce", inputs=("x",),
           numpy=_max, flops=per_element(1),
           summary="The largest element, as a float; NaN if any element is NaN; empty input is an "
                   "error.",
           example="pycore.max_async([3.0, -1.0, 7.5])",
           shows='7.5',
           combine="max"),
        Op(name="min", kind="reduce", inputs=("x",),
           numpy=_min, flops=per_element(1),
           summary="The smallest element, as a float; NaN if any element is NaN; empty input is an "
                   "error.",
           example="pycore.min_async([3.0, -1.0, 7.5])",
           shows='-1.0',
           combine="min"),
        Op(name="dot", kind="reduce", inputs=("a", "b"),
           numpy=lambda a, b: float(np.sum(a * b, dtype=F32)), flops=per_element(2),
           summary="numpy.dot: of two 1-D arrays, sum(a * b) as a float; of a 0-d one, a scale; else "
                   "a sum over a's last axis and b's second-to-last (a matmul).",
           example="pycore.dot_async([1.0, 2.0, 3.0], [4.0, 5.0, 6.0])",
           shows='32.0',
           combine="sum"),
        # ---- linear algebra and images
        Op(name="matmul", kind="matmul", inputs=("a", "b"),
           numpy=np.matmul, flops=_matmul_flops,
           summary="a @ b as numpy.matmul: (..., m, k) @ (..., k, n) -> (..., m, n), batch axes "
                   "broadcast, a 1-D operand as a row (a) or a column (b); integer operands in int32 or "
                   "uint32 (wrapping), others in float32.",
           example="pycore.matmul_async([[1.0, 2.0], [3.0, 4.0]], [[1.0], [1.0]])",
           shows='array([[3.],\n       [7.]], dtype=float32)'),
        Op(name="convolve2d", kind="conv2d", inputs=("image", "kernel"),
           numpy=_conv2d, flops=lambda s: 2.0 * int(np.prod(s[1])) * int(np.prod(s[0])),
           summary='True 2-D convolution (kernel flipped, as scipy.signal.convolve2d); mode "valid" or '
                   '"same".',
           example="pycore.convolve2d_async([[1.0, 2.0], [3.0, 4.0]], [[0.0, 1.0]], mode='same')",
           shows='array([[0., 1.],\n       [0., 3.]], dtype=float32)',
           params=(Param("mode", "valid",
                         '"valid" (no padding) or "same" (zero padding, output like image)'),)),
    ]
}
