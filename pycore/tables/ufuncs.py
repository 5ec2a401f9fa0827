"""The n-d op tables: element-wise ops with broadcasting (`UFUNCS`) and reductions over axes
(`REDUCTIONS`), under NumPy's names, each declared once: which dtypes it takes and gives, its WGSL
(a function of shaders/ufuncs.wgsl or shaders/reductions.wgsl, from which kernels/elementwise.py
and kernels/reduction.py generate the kernels), its NumPy implementation (the fallback, with the
kernel's semantics and dtypes) and an example. The public `*_async` functions are made from these
tables (calls.py); adding an op is one entry here and its WGSL function.

dtype rules ("takes"): "numeric" (the integer and float dtypes; bool inputs raise TypeError), "float"
(float16 and float32 stay; integers and bools are converted to float32, as NumPy's true division and
transcendentals give a float), "any", "bool" (other dtypes are converted: nonzero is True),
"integer" (the integer dtypes and bool; float inputs raise TypeError), "int" (the integer dtypes
only). "gives": "same" (the promoted dtype), "bool", or for reductions a fixed dtype or "sum" (bool
counts as int32). The packed dtypes (int8, int16, uint8, uint16, float16) are computed in their
32-bit form (`dtypes.wide`) on both backends and rounded once to the result's dtype.

complex64 ("complex"): "gpu" where the op has a `<name>_c64` function (shaders/complex.wgsl), ""
where the op takes real numbers only (complex inputs raise TypeError, as the standard says). abs
gives float32.

Accuracy: `ulps` is the largest error of a float result on the GPU, in float32 units in the last
place against the exact value (0: exact, as NumPy's float32), or `atol` absolutely where that is
larger (logaddexp near 0). Measured on the CPU adapters (SwiftShader, lavapipe); the NumPy backend
gives NumPy's own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from pycore.array.dtypes import BOOL, FLOAT16, FLOAT32, INT32, UINT32, promote, wide


@dataclass(frozen=True, kw_only=True)
class Ufunc:
    name: str
    nin: int
    takes: str  # "numeric" | "float" | "any" | "bool" | "integer" | "int"
    gives: str  # "same" | "bool"
    numpy: Callable[..., Any]  # arrays of the compute dtype -> result (cast to the result dtype after)
    summary: str
    example: str
    shows: str
    flops: float = 1.0  # per element (the cost model)
    aliases: tuple[str, ...] = ()  # older names that call this op
    ulps: float = 0.0  # the GPU's largest error of a float result, in float32 ULPs (0: exact)
    atol: float = 0.0  # or this absolute error, where the result nears a zero that cancellation makes
    complex: str = ""  # complex64 inputs: "gpu" | "" (real numbers only: TypeError)

    @property
    def kind(self) -> str:  # (the cost model's rate class)
        return "binary" if self.nin == 2 else "unary"

    def compute_dtype(self, dtype: np.dtype) -> np.dtype:
        """The dtype inputs promoted to `dtype` are computed in (or TypeError)."""
        if dtype.kind == "c":
            if self.takes == "bool":  # (the logical ops: nonzero is True)
                return BOOL
            if not self.complex:
                raise TypeError(f"{self.name}: complex inputs are not supported (it takes real numbers)")
            return dtype
        if self.takes == "float":
            return dtype if dtype.kind == "f" else FLOAT32
        if self.takes == "bool":
            return BOOL
        if self.takes in ("integer", "int") and dtype.kind == "f":
            raise TypeError(f"{self.name}: float inputs are not supported (it takes integers"
                            f"{' and bools' if self.takes == 'integer' else ''})")
        if self.takes == "int" and dtype == BOOL:
            raise TypeError(f"{self.name}: bool inputs are not supported (it takes integers)")
        if self.takes == "numeric" and dtype == BOOL:
            raise TypeError(
                f"{self.name}: bool inputs are not supported (pass numbers, or convert with "
                f"astype); for bools use logical_and, logical_or or logical_xor"
            )
        return dtype

    def result_dtype(self, compute: np.dtype) -> np.dtype:
        if self.gives == "bool":
            return BOOL
        return FLOAT32 if compute.kind == "c" and self.name == "abs" else compute


def _binary(
    name: str,
    takes: str,
    gives: str,
    fn: Callable[..., Any],
    summary: str,
    example: str,
    shows: str,
    aliases: tuple[str, ...] = (),
    ulps: float = 0.0,
    atol: float = 0.0,
    flops: float = 1.0,
) -> Ufunc:
    return Ufunc(
        name=name,
        nin=2,
        takes=takes,
        gives=gives,
        numpy=fn,
        summary=summary,
        example=example,
        shows=shows,
        aliases=aliases,
        ulps=ulps,
        atol=atol,
        flops=flops,
    )


def _unary(name: str, takes: str, gives: str, fn: Callable[..., Any], summary: str, example: str,
           shows: str, ulps: float = 0.0, flops: float = 1.0) -> Ufunc:
    return Ufunc(name=name, nin=1, takes=takes, gives=gives, numpy=fn, summary=summary, example=example,
                 shows=shows, ulps=ulps, flops=flops)


def _int_power(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Integer powers as the GPU's: wrapping; a negative exponent gives the integer part of 1 / x^-y
    (1 for x = 1, ±1 for x = -1, else 0), where NumPy refuses."""
    x, y = np.broadcast_arrays(x, y)
    out = np.power(x, np.where(y < 0, 0, y))
    if y.dtype.kind == "i":
        neg = y < 0
        out = np.where(neg, 0, out)
        out = np.where(neg & (x == 1), 1, out)
        out = np.where(neg & (x == -1), np.where(y % 2 == 1, -1, 1), out)
    return np.asarray(out, dtype=x.dtype)


_NAN_C = complex(np.nan, np.nan)


def _sign(x: np.ndarray) -> np.ndarray:
    """NumPy's sign; of a complex x, x / |x| as the standard says: NaN + NaN i for a NaN part (NumPy
    gives 1j for NaN + inf i), and no overflow on the way (x is scaled by its larger part first)."""
    if np.asarray(x).dtype.kind != "c":
        return np.sign(x)
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        m = np.maximum(np.abs(x.real), np.abs(x.imag))
        u = x / np.where(m > 0, m, 1)
        inf_re, inf_im = np.isinf(x.real), np.isinf(x.imag)  # (one infinite part: its direction)
        axis = np.where(inf_re, np.sign(x.real), 0) + 1j * np.where(inf_im, np.sign(x.imag), 0)
        u = np.where(inf_re ^ inf_im, axis, u)
        found = np.where(m > 0, u / np.abs(u), 0).astype(x.dtype)
    return np.where(np.isnan(x.real) | np.isnan(x.imag), np.asarray(_NAN_C, x.dtype), found)


def _nan_parts(fn: Callable[..., Any]) -> Callable[..., Any]:
    """NumPy's complex product or quotient with the standard's NaN + NaN i wherever an operand has
    a NaN part (NumPy's quotient may keep an infinite part); real operands as NumPy's."""
    def run(*xs: Any) -> Any:
        found = fn(*xs)
        if np.asarray(found).dtype.kind != "c":
            return found
        nan = np.zeros((), bool)
        for x in xs:
            x = np.asarray(x)
            nan = nan | (np.isnan(x.real) | np.isnan(x.imag) if x.dtype.kind == "c" else np.isnan(x))
        return np.where(nan, np.asarray(_NAN_C, np.asarray(found).dtype), found)
    return run


def _expm1(x: np.ndarray) -> np.ndarray:
    """NumPy's expm1; of a complex x, e^x - 1 with exp's special values (the standard's: e^(inf + 0i)
    - 1 is inf + 0i, where NumPy's expm1 gives inf + NaN i) and its real part without cancellation
    near 0 (expm1(a) cos(b) - 2 sin(b / 2)^2).

    >>> _expm1(np.array([complex(np.inf, 0), complex(-np.inf, np.inf), 1e-9j, complex(-0.0, 0)])).tolist()
    [(inf+0j), (-1+0j), (-5e-19+1e-09j), 0j]
    """
    x = np.asarray(x)
    if x.dtype.kind != "c":
        return np.expm1(x)
    a, b = x.real, x.imag
    with np.errstate(all="ignore"):
        real = np.expm1(a) * np.cos(b) - 2 * np.sin(b / 2) ** 2
        real = np.where(real == 0, 0.0, real)  # (+0: expm1(-0 + 0i) is 0 + 0i, the standard says)
        imag = np.where(b == 0, b, np.exp(a) * np.sin(b))  # (a zero imaginary part stays, signed)
        finite = np.isfinite(a) & np.isfinite(b)
        special = np.exp(x) - 1
        found = np.empty(x.shape, x.dtype)  # (parts set apart: real + 1j * imag is NaN + ... for an inf imag)
        found.real = np.where(finite, real, special.real)
        found.imag = np.where(finite, imag, special.imag)
    return found


def _log1p(x: np.ndarray) -> np.ndarray:
    """NumPy's log1p; of a complex x, log(1 + x) with its real part accurate near 0 (NumPy's
    complex64 log1p is log|1 + x|, 0 for x = 1e-9 + 1e-9i): log|1 + x| = log1p(2a + a² + b²) / 2
    for x = a + bi, in float64 (whose products of float32 parts are exact), log's special values
    for the non-finite.

    >>> _log1p(np.array([1e-9 + 1e-9j, complex(-1, 0), complex(np.inf, np.nan)], np.complex64)).tolist()
    [(9.999999717180685e-10+9.999999717180685e-10j), (-inf+0j), (inf+nanj)]
    """
    x = np.asarray(x)
    if x.dtype.kind != "c":
        return np.log1p(x)
    a, b = x.real.astype(np.float64), x.imag.astype(np.float64)
    with np.errstate(all="ignore"):
        special = np.log(1 + x.astype(np.complex128))
        finite = np.isfinite(a) & np.isfinite(b)
        found = np.empty(x.shape, x.dtype)
        found.real = np.where(finite, 0.5 * np.log1p(a * (2 + a) + b * b), special.real)
        found.imag = np.where(finite, np.arctan2(b, 1 + a), special.imag)
    return found


def _tanh(x: np.ndarray) -> np.ndarray:
    """NumPy's tanh; of a complex x with an infinite real part, ±1 + 0i with the zero's sign that
    of the imaginary part, as the standard says (NumPy's and C99's take the sign of sin(2 im)).

    >>> _tanh(np.array([complex(np.inf, 2.0), complex(-np.inf, -2.0)], np.complex64)).tolist()
    [(1+0j), (-1-0j)]
    """
    found = np.tanh(x)
    if found.dtype.kind == "c":
        edge = np.isinf(x.real)
        if edge.any():
            found = np.array(found)
            found.imag[edge] = np.copysign(0.0, x.imag[edge])
    return found


def _tan(x: np.ndarray) -> np.ndarray:
    """NumPy's tan; of a complex x, -i tanh(ix) (as the standard defines it, and the GPU computes
    it: of an infinite imaginary part, 0 ± 1i with the zero's sign that of the real part).

    >>> _tan(np.array([complex(2.0, np.inf), complex(-2.0, -np.inf)], np.complex64)).tolist()
    [1j, (-0-1j)]
    """
    x = np.asarray(x)
    if x.dtype.kind != "c":
        return np.tan(x)
    iz = np.empty_like(x)  # (parts set apart: 1j * x is NaN + ... for an infinite part)
    iz.real, iz.imag = -x.imag, x.real
    t = _tanh(iz)
    found = np.empty_like(x)
    found.real, found.imag = t.imag, -t.real
    return found


def _power(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    kind = np.result_type(x, y).kind
    if kind == "c":
        return _complex_power(x, y)
    return np.power(x, y) if kind == "f" else _int_power(x, y)


def _complex_power(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Complex x ** y as the GPU's: NumPy's, with a base of 0 giving 0 where Re y > 0 (exp(y log 0),
    the standard's rule) and NaN + NaN i for any other y but 0 (NumPy's own power gives NaN for
    every complex y; builds that call C's cpowf give the standard's values).

    >>> _complex_power(np.zeros(3, np.complex64), np.array([2, 1 + 1j, -1], np.complex64)).tolist()
    [0j, 0j, (nan+nanj)]
    """
    with np.errstate(all="ignore"):
        out = np.asarray(np.power(x, y))
    zero = (np.asarray(x) == 0) & (np.asarray(y) != 0)
    if not zero.any():
        return out
    at_zero = np.where(np.asarray(y).real > 0, 0, complex(np.nan, np.nan))
    return np.where(zero, at_zero, out).astype(out.dtype)


UFUNCS: dict[str, Ufunc] = {
    u.name: u
    for u in [
        _binary(
            "add",
            "numeric",
            "same",
            np.add,
            "x1 + x2 element-wise, broadcasting; integers wrap.",
            "pycore.add_async([[1, 2], [3, 4]], [10, 20])",
            "array([[11, 22],\n       [13, 24]], dtype=int32)",
            ("vec_add",),
        ),
        _binary(
            "subtract",
            "numeric",
            "same",
            np.subtract,
            "x1 - x2 element-wise, broadcasting; integers wrap.",
            "pycore.subtract_async([1.0, 2.0], 0.5)",
            "array([0.5, 1.5], dtype=float32)",
            ("vec_sub",),
        ),
        _binary(
            "multiply",
            "numeric",
            "same",
            _nan_parts(np.multiply),
            "x1 * x2 element-wise, broadcasting; integers wrap.",
            "pycore.multiply_async([[1.0], [2.0]], [3.0, 4.0])",
            "array([[3., 4.],\n       [6., 8.]], dtype=float32)",
            ("vec_mul",),
        ),
        _binary(
            "divide",
            "float",
            "same",
            _nan_parts(np.divide),
            "x1 / x2 (true division; integers give float32).",
            "pycore.divide_async([1, 3], 2)",
            "array([0.5, 1.5], dtype=float32)",
            ulps=2.5,  # (WGSL's bound for division)
        ),
        _binary(
            "floor_divide",
            "numeric",
            "same",
            np.floor_divide,
            "x1 // x2 as NumPy's: rounded toward -inf (floats as its divmod; where a float quotient passes "
            "2^21, a GPU whose division is not correctly rounded may give the integer next to NumPy's: "
            "within 4 ULP); an integer divided by 0 gives 0.",
            "pycore.floor_divide_async([7, -7], 2)",
            "array([ 3, -4], dtype=int32)",
            ulps=4,  # (an H100's division is within 2 ULP: the quotient's nearest integer may be one off)
        ),
        _binary(
            "remainder",
            "numeric",
            "same",
            np.remainder,
            "x1 % x2 with the divisor's sign, as NumPy's; an integer remainder by 0 gives 0.",
            "pycore.remainder_async([7, -7], 3)",
            "array([1, 2], dtype=int32)",
        ),
        _binary(
            "maximum",
            "numeric",
            "same",
            np.maximum,
            "The larger of x1 and x2 element-wise; NaN wins.",
            "pycore.maximum_async([1.0, 5.0], [3.0, 2.0])",
            "array([3., 5.], dtype=float32)",
        ),
        _binary(
            "minimum",
            "numeric",
            "same",
            np.minimum,
            "The smaller of x1 and x2 element-wise; NaN wins.",
            "pycore.minimum_async([1.0, 5.0], [3.0, 2.0])",
            "array([1., 2.], dtype=float32)",
        ),
        _binary(
            "equal",
            "any",
            "bool",
            np.equal,
            "x1 == x2 element-wise (NaN equals nothing).",
            "pycore.equal_async([1, 2, 3], 2)",
            "array([False,  True, False])",
        ),
        _binary(
            "not_equal",
            "any",
            "bool",
            np.not_equal,
            "x1 != x2 element-wise.",
            "pycore.not_equal_async([1, 2, 3], 2)",
            "array([ True, False,  True])",
        ),
        _binary(
            "less",
            "any",
            "bool",
            np.less,
            "x1 < x2 element-wise.",
            "pycore.less_async([1.0, 2.0], 1.5)",
            "array([ True, False])",
        ),
        _binary(
            "less_equal",
            "any",
            "bool",
            np.less_equal,
            "x1 <= x2 element-wise.",
            "pycore.less_equal_async([1.0, 2.0], 1.0)",
            "array([ True, False])",
        ),
        _binary(
            "greater",
            "any",
            "bool",
            np.greater,
            "x1 > x2 element-wise.",
            "pycore.greater_async([1.0, 2.0], 1.5)",
            "array([False,  True])",
        ),
        _binary(
            "greater_equal",
            "any",
            "bool",
            np.greater_equal,
            "x1 >= x2 element-wise.",
            "pycore.greater_equal_async([1.0, 2.0], 2.0)",
            "array([False,  True])",
        ),
        _binary(
            "logical_and",
            "bool",
            "bool",
            np.logical_and,
            "x1 and x2 element-wise (nonzero is True).",
            "pycore.logical_and_async([True, True, False], [True, False, False])",
            "array([ True, False, False])",
        ),
        _binary(
            "logical_or",
            "bool",
            "bool",
            np.logical_or,
            "x1 or x2 element-wise (nonzero is True).",
            "pycore.logical_or_async([True, False], [False, False])",
            "array([ True, False])",
        ),
        _binary(
            "logical_xor",
            "bool",
            "bool",
            np.logical_xor,
            "x1 xor x2 element-wise (nonzero is True).",
            "pycore.logical_xor_async([True, True], [True, False])",
            "array([False,  True])",
        ),
        Ufunc(
            name="logical_not",
            nin=1,
            takes="bool",
            gives="bool",
            numpy=np.logical_not,
            summary="not x element-wise (nonzero is True).",
            example="pycore.logical_not_async([0, 1, 2])",
            shows="array([ True, False, False])",
        ),
        _binary(
            'pow',
            'numeric',
            'same',
            _power,
            "x1 ** x2: floats as C's pow (pow(x, ±0) and pow(1, y) are 1, a negative base with a non-"
            'integer exponent gives NaN); integers by repeated multiplication, wrapping, where a '
            'negative exponent gives the integer part of 1 / x1 ** -x2 (NumPy raises ValueError there); '
            "complex64 as NumPy's: a real integer exponent under 100 by repeated squaring, others as "
            'exp(x2 * log(x1)) in float32, whose error grows with |x2 log x1| (0 ** x2 is 0 where '
            'Re x2 > 0, else NaN parts).',
            'pycore.pow_async([2, 3, 4], 2)',
            'array([ 4,  9, 16], dtype=int32)',
            ulps=3,
            flops=40,
        ),
        _binary(
            'atan2',
            'float',
            'same',
            np.atan2,
            "The angle of the point (x2, x1) in [-π, π], with C's signed zeros and infinities.",
            'pycore.atan2_async([1.0, -1.0], [-1.0, -1.0])',
            'array([ 2.3561945, -2.3561945], dtype=float32)',
            ulps=4,  # (3.8 measured on a GPU whose division is not correctly rounded)
            flops=30,
        ),
        _binary(
            'hypot',
            'float',
            'same',
            np.hypot,
            'sqrt(x1² + x2²) without overflow or underflow on the way; inf if either is infinite, even '
            'with a NaN.',
            'pycore.hypot_async([3.0, 1e30], [4.0, 1e30])',
            'array([5.0000000e+00, 1.4142135e+30], dtype=float32)',
            ulps=2,
            flops=8,
        ),
        _binary(
            'logaddexp',
            'float',
            'same',
            np.logaddexp,
            'log(e^x1 + e^x2) without overflow.',
            'pycore.logaddexp_async([0.0, 1000.0], [0.0, 1000.0])',
            'array([6.9314718e-01, 1.0006932e+03], dtype=float32)',
            ulps=3,
            atol=2.4e-07,
            flops=45,
        ),
        _binary(
            'copysign',
            'float',
            'same',
            np.copysign,
            'The magnitude of x1 with the sign (bit) of x2.',
            'pycore.copysign_async([1.0, 2.0], [-0.0, 3.0])',
            'array([-1.,  2.], dtype=float32)',
        ),
        _binary(
            'nextafter',
            'float',
            'same',
            np.nextafter,
            'The next float32 after x1 toward x2 (x2 when equal), on the bits: subnormals included.',
            'pycore.nextafter_async([1.0, 1.0], [2.0, 0.0])',
            'array([1.0000001 , 0.99999994], dtype=float32)',
        ),
        _binary(
            'bitwise_and',
            'integer',
            'same',
            np.bitwise_and,
            'x1 & x2 (and for bools).',
            'pycore.bitwise_and_async([12, 10], 6)',
            'array([4, 2], dtype=int32)',
        ),
        _binary(
            'bitwise_or',
            'integer',
            'same',
            np.bitwise_or,
            'x1 | x2 (or for bools).',
            'pycore.bitwise_or_async([12, 10], 6)',
            'array([14, 14], dtype=int32)',
        ),
        _binary(
            'bitwise_xor',
            'integer',
            'same',
            np.bitwise_xor,
            'x1 ^ x2 (xor for bools).',
            'pycore.bitwise_xor_async([12, 10], 6)',
            'array([10, 12], dtype=int32)',
        ),
        _binary(
            'bitwise_left_shift',
            'int',
            'same',
            np.left_shift,
            "x1 << x2; a count of 32 or more, or a negative one, gives 0, as NumPy's.",
            'pycore.bitwise_left_shift_async([1, 3], [4, 40])',
            'array([16,  0], dtype=int32)',
        ),
        _binary(
            'bitwise_right_shift',
            'int',
            'same',
            np.right_shift,
            'x1 >> x2, arithmetic for int32; a count of 32 or more, or a negative one, gives 0 (-1 for '
            "a negative int32), as NumPy's.",
            'pycore.bitwise_right_shift_async([-16, 16], [2, 40])',
            'array([-4,  0], dtype=int32)',
        ),
        _unary(
            'abs',
            'numeric',
            'same',
            np.abs,
            "|x| element-wise; integers keep their dtype, and abs of int32's minimum wraps to itself, "
            "as NumPy's.",
            'pycore.abs_async([-1.5, 2.0, -0.0])',
            'array([1.5, 2. , 0. ], dtype=float32)',
        ),
        _unary(
            'negative',
            'numeric',
            'same',
            np.negative,
            '-x element-wise; integers wrap (uint32 too).',
            'pycore.negative_async([1, -2, 3])',
            'array([-1,  2, -3], dtype=int32)',
        ),
        _unary(
            'positive',
            'numeric',
            'same',
            np.positive,
            '+x element-wise (a copy).',
            'pycore.positive_async([1.5, -2.0])',
            'array([ 1.5, -2. ], dtype=float32)',
        ),
        _unary(
            'sign',
            'numeric',
            'same',
            _sign,
            '-1, 0 or 1 by the sign of x (0 for ±0, NaN for NaN); of a complex x, x / |x|.',
            'pycore.sign_async([-3.0, 0.0, 2.5])',
            'array([-1.,  0.,  1.], dtype=float32)',
        ),
        _unary(
            'square',
            'numeric',
            'same',
            np.square,
            'x * x element-wise; integers wrap.',
            'pycore.square_async([[1, -2], [3, 4]])',
            'array([[ 1,  4],\n       [ 9, 16]], dtype=int32)',
        ),
        _unary(
            'sqrt',
            'float',
            'same',
            np.sqrt,
            'The square root; NaN for x < 0, -0 for -0.',
            'pycore.sqrt_async([4, 2])',
            'array([2.       , 1.4142135], dtype=float32)',
            ulps=1,
            flops=4,
        ),
        _unary(
            'exp',
            'float',
            'same',
            np.exp,
            'e^x.',
            'pycore.exp_async([0.0, 1.0, -1.0])',
            'array([1.        , 2.718282  , 0.36787942], dtype=float32)',
            ulps=2,
            flops=20,
        ),
        _unary(
            'expm1',
            'float',
            'same',
            _expm1,
            'e^x - 1, accurate for x near 0.',
            'pycore.expm1_async([1e-6, 1.0])',
            'array([1.0000005e-06, 1.7182819e+00], dtype=float32)',
            ulps=2,
            flops=20,
        ),
        _unary(
            'log',
            'float',
            'same',
            np.log,
            'The natural logarithm; -inf for ±0, NaN for x < 0.',
            'pycore.log_async([1.0, 2.718281828, 0.0])',
            'array([  0.,   1., -inf], dtype=float32)',
            ulps=1.5,
            flops=20,
        ),
        _unary(
            'log1p',
            'float',
            'same',
            _log1p,
            'log(1 + x), accurate for x near 0.',
            'pycore.log1p_async([1e-6, 1.0])',
            'array([9.999995e-07, 6.931472e-01], dtype=float32)',
            ulps=3,
            flops=25,
        ),
        _unary(
            'log2',
            'float',
            'same',
            np.log2,
            'The base-2 logarithm.',
            'pycore.log2_async([1, 8, 0.5])',
            'array([ 0.,  3., -1.], dtype=float32)',
            ulps=2,
            flops=20,
        ),
        _unary(
            'log10',
            'float',
            'same',
            np.log10,
            'The base-10 logarithm.',
            'pycore.log10_async([1, 100, 0.5])',
            'array([ 0.       ,  2.0000002, -0.30103  ], dtype=float32)',
            ulps=2,
            flops=20,
        ),
        _unary(
            'sin',
            'float',
            'same',
            np.sin,
            'The sine (radians), for every float32 x: its reduction by multiples of π/2 is exact (Payne '
            "and Hanek's past 2^16).",
            'pycore.sin_async([0.0, 1.5707964, 3.0])',
            'array([0.     , 1.     , 0.14112], dtype=float32)',
            ulps=3,
            flops=25,
        ),
        _unary(
            'cos',
            'float',
            'same',
            np.cos,
            'The cosine (radians), reduced as sin.',
            'pycore.cos_async([0.0, 1.0, 3.1415927])',
            'array([ 1.       ,  0.5403023, -1.       ], dtype=float32)',
            ulps=3,
            flops=25,
        ),
        _unary(
            'tan',
            'float',
            'same',
            _tan,
            'The tangent (radians), reduced as sin.',
            'pycore.tan_async([0.0, 0.7853982, -1.0])',
            'array([ 0.       ,  1.       , -1.5574077], dtype=float32)',
            ulps=5,
            flops=30,
        ),
        _unary(
            'asin',
            'float',
            'same',
            np.asin,
            'The inverse sine in [-π/2, π/2]; NaN for |x| > 1.',
            'pycore.asin_async([0.0, 0.5, 1.0])',
            'array([0.       , 0.5235988, 1.5707964], dtype=float32)',
            ulps=3,
            flops=25,
        ),
        _unary(
            'acos',
            'float',
            'same',
            np.acos,
            'The inverse cosine in [0, π]; NaN for |x| > 1.',
            'pycore.acos_async([1.0, 0.5, -1.0])',
            'array([0.       , 1.0471976, 3.1415927], dtype=float32)',
            ulps=2,
            flops=25,
        ),
        _unary(
            'atan',
            'float',
            'same',
            np.atan,
            'The inverse tangent in [-π/2, π/2].',
            'pycore.atan_async([0.0, 1.0, -1e30])',
            'array([ 0.       ,  0.7853982, -1.5707964], dtype=float32)',
            ulps=3,
            flops=25,
        ),
        _unary(
            'sinh',
            'float',
            'same',
            np.sinh,
            'The hyperbolic sine.',
            'pycore.sinh_async([0.0, 1.0, -2.0])',
            'array([ 0.       ,  1.1752012, -3.6268604], dtype=float32)',
            ulps=2.5,
            flops=25,
        ),
        _unary(
            'cosh',
            'float',
            'same',
            np.cosh,
            'The hyperbolic cosine.',
            'pycore.cosh_async([0.0, 1.0, -2.0])',
            'array([1.       , 1.5430807, 3.7621956], dtype=float32)',
            ulps=2.5,
            flops=25,
        ),
        _unary(
            'tanh',
            'float',
            'same',
            _tanh,
            'The hyperbolic tangent (the standard\'s: every float dtype and complex64; the activation '
            'of the same name, float32 only, is CommandBatch\'s tanh).',
            'pycore.tanh_async([0.0, 1.0, -2.0])',
            'array([ 0.       ,  0.7615942, -0.9640276], dtype=float32)',
            ulps=3,
            flops=25,
        ),
        _unary(
            'asinh',
            'float',
            'same',
            np.asinh,
            'The inverse hyperbolic sine.',
            'pycore.asinh_async([0.0, 1.0, -1e20])',
            'array([  0.       ,   0.8813736, -46.74485  ], dtype=float32)',
            ulps=2.5,
            flops=35,
        ),
        _unary(
            'acosh',
            'float',
            'same',
            np.acosh,
            'The inverse hyperbolic cosine; NaN for x < 1.',
            'pycore.acosh_async([1.0, 2.0, 1e20])',
            'array([ 0.      ,  1.316958, 46.74485 ], dtype=float32)',
            ulps=3,
            flops=35,
        ),
        _unary(
            'atanh',
            'float',
            'same',
            np.atanh,
            'The inverse hyperbolic tangent; ±inf for ±1, NaN for |x| > 1.',
            'pycore.atanh_async([0.0, 0.5, -1.0])',
            'array([0.        , 0.54930615,       -inf], dtype=float32)',
            ulps=2.5,
            flops=35,
        ),
        _unary(
            'floor',
            'numeric',
            'same',
            np.floor,
            'The largest integer <= x; integers keep their dtype (the identity).',
            'pycore.floor_async([-1.5, 2.5])',
            'array([-2.,  2.], dtype=float32)',
        ),
        _unary(
            'ceil',
            'numeric',
            'same',
            np.ceil,
            'The smallest integer >= x; integers keep their dtype.',
            'pycore.ceil_async([-1.5, 2.5])',
            'array([-1.,  3.], dtype=float32)',
        ),
        _unary(
            'trunc',
            'numeric',
            'same',
            np.trunc,
            'x rounded toward 0; integers keep their dtype.',
            'pycore.trunc_async([-1.5, 2.5])',
            'array([-1.,  2.], dtype=float32)',
        ),
        _unary(
            'round',
            'numeric',
            'same',
            np.round,
            'x rounded to the nearest integer, halves to even; integers keep their dtype.',
            'pycore.round_async([0.5, 1.5, 2.5, -0.5])',
            'array([ 0.,  2.,  2., -0.], dtype=float32)',
        ),
        _unary(
            'isnan',
            'any',
            'bool',
            np.isnan,
            'Whether x is NaN (never for integers and bools).',
            "pycore.isnan_async([1.0, float('nan')])",
            'array([False,  True])',
        ),
        _unary(
            'isinf',
            'any',
            'bool',
            np.isinf,
            'Whether x is +inf or -inf.',
            "pycore.isinf_async([1.0, float('-inf')])",
            'array([False,  True])',
        ),
        _unary(
            'isfinite',
            'any',
            'bool',
            np.isfinite,
            'Whether x is neither infinite nor NaN.',
            "pycore.isfinite_async([1.0, float('inf'), float('nan')])",
            'array([ True, False, False])',
        ),
        _unary(
            'signbit',
            'any',
            'bool',
            np.signbit,
            "Whether x's sign bit is set (True for -0.0 and a negative NaN).",
            'pycore.signbit_async([-0.0, 0.0, -2.0])',
            'array([ True, False,  True])',
        ),
        _unary(
            'bitwise_invert',
            'integer',
            'same',
            np.bitwise_invert,
            '~x: every bit flipped; not x for bools.',
            'pycore.bitwise_invert_async([0, 5, -1])',
            'array([-1, -6,  0], dtype=int32)',
        ),
        _unary(
            'reciprocal',
            'float',
            'same',
            _nan_parts(np.reciprocal),
            '1 / x (integers give float32).',
            'pycore.reciprocal_async([2, 4])',
            'array([0.5 , 0.25], dtype=float32)',
            ulps=2.5,
        ),
    ]
}


@dataclass(frozen=True, kw_only=True)
class Reduction:
    name: str
    function: str  # the combine function of shaders/reductions.wgsl
    takes: str  # "numeric" | "any" | "bool"
    gives: str  # "same" | "sum" (bool -> int32) | "float32" | "int32" | "bool"
    identity: Callable[[np.dtype], Any]  # per accumulator dtype; None: empty reductions raise
    numpy: Callable[..., Any]
    summary: str
    example: str
    shows: str
    finish: str = ""  # "" | "scale" | "sqrt"
    arg: bool = False
    two_pass: bool = False  # var and std: the mean, then the sum of squared deviations
    empty_ok: bool = True  # NumPy gives a value for an empty reduction (False: ValueError)
    flops: float = 1.0
    kind: str = "reduce"
    complex: str = ""  # complex64 inputs: "pairs" (the float32 pairs reduce: sum, mean), "gpu" (a
    # complex64 accumulator: prod), "bool" (all, any: nonzero is True), "" (real numbers only: TypeError)

    def acc_dtype(self, dtype: np.dtype) -> np.dtype:
        """The accumulator's dtype for inputs of `dtype` (a 32-bit one: packed dtypes widen; the
        float32 pairs of a complex64 input, or complex64 itself for a product)."""
        if dtype.kind == "c":
            return dtype if self.complex == "gpu" else FLOAT32
        if self.gives == "float32":
            return FLOAT32
        if self.takes == "bool":
            return BOOL
        if self.gives == "sum":
            return INT32 if dtype == BOOL else wide(dtype)
        return wide(dtype)

    def result_dtype(self, dtype: np.dtype) -> np.dtype:
        """The result's dtype for inputs of `dtype`: the standard's (a sum of small integers is the
        default integer of their signedness; float16 stays float16)."""
        if self.arg:
            return INT32
        if dtype.kind == "c" and self.gives != "bool":
            return dtype
        if dtype == FLOAT16 and self.gives != "bool":
            return FLOAT16
        return dtype if self.gives == "same" else self.acc_dtype(dtype)


def _extreme(high: bool) -> Callable[[np.dtype], Any]:
    def identity(dtype: np.dtype) -> Any:
        if dtype.kind == "f":
            return -np.inf if high else np.inf
        if dtype == BOOL:
            return not high
        info = np.iinfo(dtype)
        return info.min if high else info.max

    return identity


def _np_var(x: np.ndarray, axis: Any, keepdims: bool, correction: float = 0.0) -> Any:
    return np.var(x, axis=axis, keepdims=keepdims, ddof=correction, dtype=np.float64)


def _np_std(x: np.ndarray, axis: Any, keepdims: bool, correction: float = 0.0) -> Any:
    return np.std(x, axis=axis, keepdims=keepdims, ddof=correction, dtype=np.float64)


def _np_arg(fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(x: np.ndarray, axis: Any, keepdims: bool) -> Any:
        if axis is None:
            found = fn(x.reshape(-1), axis=0)
            return np.reshape(found, (1,) * x.ndim) if keepdims else found
        (ax,) = axis
        return fn(x, axis=ax, keepdims=keepdims)

    return run


COMPLEX_GPU = ("add", "subtract", "multiply", "divide", "equal", "not_equal", "abs", "negative", "positive",
               "sign", "square", "sqrt", "exp", "log", "log2", "log10", "isnan", "isinf", "isfinite",
               "reciprocal", "round", "expm1", "log1p", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin",
               "acos", "atan", "asinh", "acosh", "atanh", "pow")
for _name in COMPLEX_GPU:
    UFUNCS[_name] = replace(UFUNCS[_name], complex="gpu")


REDUCTIONS: dict[str, Reduction] = {
    r.name: r
    for r in [
        Reduction(
            name="sum",
            function="sum",
            takes="any",
            gives="sum",
            identity=lambda d: 0,
            numpy=lambda x, axis, keepdims: np.sum(
                x, axis=axis, keepdims=keepdims, dtype=np.int32 if x.dtype == BOOL else x.dtype
            ),
            summary="The sum over `axis` (all axes when None); bools count as int32; integers wrap.",
            example="pycore.sum_async([[1.0, 2.0], [3.0, 4.5]], axis=0)",
            shows="array([4. , 6.5], dtype=float32)",
        ),
        Reduction(
            name="prod",
            function="prod",
            takes="any",
            gives="sum",
            identity=lambda d: 1,
            numpy=lambda x, axis, keepdims: np.prod(
                x, axis=axis, keepdims=keepdims, dtype=np.int32 if x.dtype == BOOL else x.dtype
            ),
            summary="The product over `axis` (all axes when None); integers wrap.",
            example="pycore.prod_async([[1, 2], [3, 4]], axis=1)",
            shows="array([ 2, 12], dtype=int32)",
        ),
        Reduction(
            name="max",
            function="max",
            takes="any",
            gives="same",
            identity=_extreme(True),
            numpy=lambda x, axis, keepdims: np.max(x, axis=axis, keepdims=keepdims),
            empty_ok=False,
            summary="The largest element over `axis`; NaN if any is NaN; an empty reduction is an error.",
            example="pycore.max_async([[3.0, -1.0], [7.5, 0.0]], axis=1)",
            shows="array([3. , 7.5], dtype=float32)",
        ),
        Reduction(
            name="min",
            function="min",
            takes="any",
            gives="same",
            identity=_extreme(False),
            numpy=lambda x, axis, keepdims: np.min(x, axis=axis, keepdims=keepdims),
            empty_ok=False,
            summary="The smallest element over `axis`; NaN if any is NaN; an empty reduction is an error.",
            example="pycore.min_async([[3.0, -1.0], [7.5, 0.0]], axis=1)",
            shows="array([-1.,  0.], dtype=float32)",
        ),
        Reduction(
            name="mean",
            function="sum",
            takes="any",
            gives="float32",
            identity=lambda d: 0.0,
            finish="scale",
            numpy=lambda x, axis, keepdims: np.mean(
                x, axis=axis, keepdims=keepdims, dtype=np.complex128 if x.dtype.kind == "c" else np.float64),
            summary="The arithmetic mean over `axis`, in float32 (compensated sums); NaN for no elements.",
            example="pycore.mean_async([[1, 2], [3, 5]], axis=0)",
            shows="array([2. , 3.5], dtype=float32)",
        ),
        Reduction(
            name="var",
            function="sum",
            takes="any",
            gives="float32",
            identity=lambda d: 0.0,
            finish="scale",
            two_pass=True,
            numpy=_np_var,
            flops=3.0,
            summary="The variance over `axis` (two passes: the mean, then squared deviations), "
            "divided by N - correction.",
            example="pycore.var_async([1.0, 2.0, 3.0, 4.0])",
            shows="np.float32(1.25)",
        ),
        Reduction(
            name="std",
            function="sum",
            takes="any",
            gives="float32",
            identity=lambda d: 0.0,
            finish="sqrt",
            two_pass=True,
            numpy=_np_std,
            flops=3.0,
            summary="The standard deviation over `axis`: the square root of var.",
            example="pycore.std_async([[1.0, 3.0], [2.0, 2.0]], axis=1)",
            shows="array([1., 0.], dtype=float32)",
        ),
        Reduction(
            name="argmax",
            function="argmax",
            takes="any",
            gives="int32",
            identity=_extreme(True),
            arg=True,
            numpy=_np_arg(np.argmax),
            empty_ok=False,
            summary="The index of the largest element along `axis` (of the flattened array when None); "
            "the first on ties and the first NaN, as NumPy's.",
            example="pycore.argmax_async([[1.0, 9.0], [4.0, 2.0]], axis=1)",
            shows="array([1, 0], dtype=int32)",
        ),
        Reduction(
            name="argmin",
            function="argmin",
            takes="any",
            gives="int32",
            identity=_extreme(False),
            arg=True,
            numpy=_np_arg(np.argmin),
            empty_ok=False,
            summary="The index of the smallest element along `axis` (of the flattened array when None).",
            example="pycore.argmin_async([[1.0, 9.0], [4.0, 2.0]], axis=0)",
            shows="array([0, 1], dtype=int32)",
        ),
        Reduction(
            name="all",
            function="all",
            takes="bool",
            gives="bool",
            identity=lambda d: True,
            numpy=lambda x, axis, keepdims: np.all(x, axis=axis, keepdims=keepdims),
            summary="Whether every element over `axis` is nonzero (True for no elements).",
            example="pycore.all_async([[True, False], [True, True]], axis=1)",
            shows="array([False,  True])",
        ),
        Reduction(
            name="any",
            function="any",
            takes="bool",
            gives="bool",
            identity=lambda d: False,
            numpy=lambda x, axis, keepdims: np.any(x, axis=axis, keepdims=keepdims),
            summary="Whether any element over `axis` is nonzero (False for no elements).",
            example="pycore.any_async([0, 0, 3])",
            shows="np.True_",
        ),
    ]
}

for _name, _how in {"sum": "pairs", "mean": "pairs", "prod": "gpu", "all": "bool", "any": "bool"}.items():
    REDUCTIONS[_name] = replace(REDUCTIONS[_name], complex=_how)


def flops_of(function: str) -> float:
    """The arithmetic per element (`Ufunc.flops`) of a ufunc's WGSL function (`<name>_<type>`, as
    the kernel generators see it); 1 for any other function.

    >>> flops_of("exp_f32"), flops_of("floor_divide_i32"), flops_of("relu_f")
    (20.0, 1.0, 1.0)
    """
    u = UFUNCS.get(function.rpartition("_")[0])
    return float(u.flops) if u is not None else 1.0


def promoted(dtypes: list[np.dtype]) -> np.dtype:
    found = dtypes[0]
    for d in dtypes[1:]:
        found = promote(found, d)
    return found


__all__ = ["REDUCTIONS", "UFUNCS", "UINT32", "Reduction", "Ufunc", "flops_of"]
