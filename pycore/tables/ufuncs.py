"""The n-d op tables: element-wise ops with broadcasting (`UFUNCS`) and reductions over axes
(`REDUCTIONS`), under NumPy's names, each declared once: which dtypes it takes and gives, its WGSL
(a function of shaders/ufuncs.wgsl or shaders/reductions.wgsl, from which kernels/elementwise.py
and kernels/reduction.py generate the kernels), its NumPy implementation (the fallback, with the
kernel's semantics and dtypes) and an example. The public `*_async` functions are made from these
tables (calls.py); adding an op is one entry here and its WGSL function.

dtype rules ("takes"): "numeric" (int32, uint32, float32; bool inputs raise TypeError), "float"
(integers and bools are converted to float32, as NumPy's true division and transcendentals give a
float), "any", "bool" (other dtypes are converted: nonzero is True). "gives": "same" (the promoted
dtype), "bool", or for reductions a fixed dtype or "sum" (bool counts as int32).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pycore.array.dtypes import BOOL, FLOAT32, INT32, UINT32, promote


@dataclass(frozen=True, kw_only=True)
class Ufunc:
    name: str
    nin: int
    takes: str  # "numeric" | "float" | "any" | "bool"
    gives: str  # "same" | "bool"
    numpy: Callable[..., Any]  # arrays of the compute dtype -> result (cast to the result dtype after)
    summary: str
    example: str
    shows: str
    flops: float = 1.0  # per element (the cost model)
    aliases: tuple[str, ...] = ()  # older names that call this op

    @property
    def kind(self) -> str:  # (the cost model's rate class)
        return "binary" if self.nin == 2 else "unary"

    def compute_dtype(self, dtype: np.dtype) -> np.dtype:
        """The dtype inputs promoted to `dtype` are computed in (or TypeError)."""
        if self.takes == "float":
            return FLOAT32
        if self.takes == "bool":
            return BOOL
        if self.takes == "numeric" and dtype == BOOL:
            raise TypeError(
                f"{self.name}: bool inputs are not supported (pass numbers, or convert with "
                f"astype); for bools use logical_and, logical_or or logical_xor"
            )
        return dtype

    def result_dtype(self, compute: np.dtype) -> np.dtype:
        return BOOL if self.gives == "bool" else compute


def _binary(
    name: str,
    takes: str,
    gives: str,
    fn: Callable[..., Any],
    summary: str,
    example: str,
    shows: str,
    aliases: tuple[str, ...] = (),
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
    )


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
            np.multiply,
            "x1 * x2 element-wise, broadcasting; integers wrap.",
            "pycore.multiply_async([[1.0], [2.0]], [3.0, 4.0])",
            "array([[3., 4.],\n       [6., 8.]], dtype=float32)",
            ("vec_mul",),
        ),
        _binary(
            "divide",
            "float",
            "same",
            np.divide,
            "x1 / x2 (true division; integers give float32).",
            "pycore.divide_async([1, 3], 2)",
            "array([0.5, 1.5], dtype=float32)",
        ),
        _binary(
            "floor_divide",
            "numeric",
            "same",
            np.floor_divide,
            "x1 // x2 as NumPy's: rounded toward -inf (floats exactly as its divmod); an integer divided "
            "by 0 gives 0.",
            "pycore.floor_divide_async([7, -7], 2)",
            "array([ 3, -4], dtype=int32)",
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

    def acc_dtype(self, dtype: np.dtype) -> np.dtype:
        """The accumulator's dtype for inputs of `dtype`."""
        if self.gives == "float32":
            return FLOAT32
        if self.takes == "bool":
            return BOOL
        if self.gives == "sum":
            return INT32 if dtype == BOOL else dtype
        return dtype

    def result_dtype(self, dtype: np.dtype) -> np.dtype:
        if self.arg:
            return INT32
        return self.acc_dtype(dtype)


def _extreme(high: bool) -> Callable[[np.dtype], Any]:
    def identity(dtype: np.dtype) -> Any:
        if dtype == FLOAT32:
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
            numpy=lambda x, axis, keepdims: np.mean(x, axis=axis, keepdims=keepdims, dtype=np.float64),
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
            shows="1.25",
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
            shows="True",
        ),
    ]
}


def promoted(dtypes: list[np.dtype]) -> np.dtype:
    found = dtypes[0]
    for d in dtypes[1:]:
        found = promote(found, d)
    return found


__all__ = ["REDUCTIONS", "UFUNCS", "UINT32", "Reduction", "Ufunc"]
