"""pycore against the Array API standard's reference namespace (array_api_strict) on inputs drawn by
hypothesis: every element-wise function of the standard that pycore has, on each pycore dtype and
pair of dtypes the standard promotes, with broadcasting and special values, and the statistical
reductions over random axes with keepdims. Where the standard computes, pycore must give the same
shape, dtype and values; where it raises TypeError, pycore may compute (NumPy's wider rules) but
never silently with another dtype than NumPy's narrowed to 32 bits.

pycore has no 64-bit dtypes (WebGPU has none), so the pairs the standard promotes to int64 (int32,
int16 or int8 with uint32) are not drawn, and the standard's default integer (int64, the sum of an
int32 array) is compared as pycore's int32 where the values fit. The standard has no float16."""

from __future__ import annotations

import math

import array_api_strict as xp
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import pycore
from pycore.tables.ufuncs import REDUCTIONS, UFUNCS
from tests.unit.test_cpython_api import run

DTYPES = ["float32", "int8", "int16", "int32", "uint8", "uint16", "uint32", "bool"]
PAIRS = [(a, b) for a in DTYPES for b in DTYPES if np.promote_types(a, b) != np.int64]
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                    database=None, derandomize=True)
NARROW = {"int64": "int32", "uint64": "uint32", "float64": "float32"}
STANDARD = [name for name in UFUNCS if hasattr(xp, name)]  # (the standard's element-wise names)


def elements(dtype: str) -> st.SearchStrategy:
    if dtype == "float32":
        return st.floats(width=32, allow_nan=True, allow_infinity=True, allow_subnormal=False)
    if dtype[0] in "iu":
        info = np.iinfo(dtype)
        small = st.integers(max(-40, int(info.min)), 40)  # (shifts, pow)
        return st.integers(int(info.min), int(info.max)) | small
    return st.booleans()


def shapes_that_broadcast(n: int) -> st.SearchStrategy:
    return hnp.mutually_broadcastable_shapes(num_shapes=n, min_dims=0, max_dims=3, max_side=4).map(
        lambda bs: bs.input_shapes)


def standard(fn: str, *arrays: np.ndarray, **kw):
    """array_api_strict's answer as NumPy, or the TypeError it raises; None where it refuses the
    values (ValueError: the standard leaves them undefined, as a negative shift)."""
    try:
        return np.asarray(getattr(xp, fn)(*[xp.asarray(a) for a in arrays], **kw))
    except TypeError as exc:
        return exc
    except ValueError:
        assume(False)


def agree(name: str, got, want: np.ndarray, inputs: tuple) -> None:
    where = f"{name}{tuple(a.dtype.name + str(a.shape) for a in inputs)}"
    if type(got) in (bool, int, float):  # (pycore's full reduction: a Python scalar of the result's kind)
        expected = np.dtype(NARROW.get(want.dtype.name, want.dtype.name))
        assert want.shape == () and type(got) is type(expected.type(0).item()), (where, got, want.dtype)
        got = np.asarray(got, expected)
    got = np.asarray(got)
    assert got.shape == want.shape, (where, got.shape, want.shape)
    assert got.dtype.name == NARROW.get(want.dtype.name, want.dtype.name), (where, got.dtype, want.dtype)
    if want.dtype.kind in "iu" and got.dtype != want.dtype:  # (the standard's int64: compared where it fits)
        info = np.iinfo(got.dtype)
        fits = (want >= info.min) & (want <= info.max)
        assert np.array_equal(got[fits], want[fits]), where
        return
    if got.dtype.kind == "f":
        assert np.array_equal(np.isnan(got), np.isnan(want)), (where, got, want)
        ok = np.isnan(want) | (got == want.astype(got.dtype))
        assert ok.all() or np.allclose(got[~ok], want[~ok], rtol=4e-7, atol=0), (where, got, want, inputs)
        assert np.array_equal(np.signbit(got[got == 0]), np.signbit(want.astype(got.dtype)[got == 0])), where
    else:
        assert np.array_equal(got, want), (where, got, want, inputs)


@pytest.mark.parametrize("name", [n for n in STANDARD if UFUNCS[n].nin == 1])
@SETTINGS
@given(data=st.data())
def test_unary_functions_agree_with_the_standard(name, data):
    dtype = data.draw(st.sampled_from(DTYPES))
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))
    x = data.draw(hnp.arrays(dtype, shape, elements=elements(dtype)))
    want = standard(name, x)
    try:
        got = run(getattr(pycore, f"{name}_async")(x))
    except TypeError:
        assert isinstance(want, TypeError), f"{name}({dtype}) raised TypeError, the standard computes"
        return
    if isinstance(want, TypeError):
        return  # (beyond the standard: NumPy's rules, checked by tests/unit/test_ndarray.py)
    agree(name, got, want, (x,))


@pytest.mark.parametrize("name", [n for n in STANDARD if UFUNCS[n].nin == 2])
@SETTINGS
@given(data=st.data())
def test_binary_functions_broadcast_and_promote_as_the_standard(name, data):
    a_dt, b_dt = data.draw(st.sampled_from(PAIRS))
    a_shape, b_shape = data.draw(shapes_that_broadcast(2))
    a = data.draw(hnp.arrays(a_dt, a_shape, elements=elements(a_dt)))
    b = data.draw(hnp.arrays(b_dt, b_shape, elements=elements(b_dt)))
    if name == "pow" and b.dtype.kind in "iu":  # (NumPy raises for negative integer powers: pycore gives 1/x)
        assume(not (b.dtype.kind == "i" and (b < 0).any()))
    want = standard(name, a, b)
    try:
        got = run(getattr(pycore, f"{name}_async")(a, b))
    except TypeError:
        assert isinstance(want, TypeError), f"{name}({a_dt}, {b_dt}) raised TypeError, the standard computes"
        return
    if isinstance(want, TypeError):
        return
    agree(name, got, want, (a, b))


@pytest.mark.parametrize("name", [n for n in STANDARD if UFUNCS[n].nin == 2])
@SETTINGS
@given(data=st.data())
def test_python_scalars_take_the_arrays_dtype(name, data):
    dtype = data.draw(st.sampled_from(DTYPES))
    x = data.draw(hnp.arrays(dtype, hnp.array_shapes(max_dims=2, max_side=4), elements=elements(dtype)))
    kinds = {"f": st.floats(-1e3, 1e3, width=32), "i": st.integers(-5, 5), "u": st.integers(0, 5),
             "b": st.booleans()}
    scalar = data.draw(kinds[np.dtype(dtype).kind])
    try:
        want = np.asarray(getattr(xp, name)(xp.asarray(x), scalar))
    except (TypeError, ValueError):
        return
    got = run(getattr(pycore, f"{name}_async")(x, scalar))
    agree(name, got, want, (x,))


STATISTICS = [n for n in ("sum", "prod", "max", "min", "mean", "var", "std", "all", "any") if n in REDUCTIONS]


@pytest.mark.parametrize("name", STATISTICS)
@SETTINGS
@given(data=st.data())
def test_reductions_over_axes_agree_with_the_standard(name, data):
    dtype = data.draw(st.sampled_from(DTYPES))
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    small = {"f": st.floats(-100, 100, width=32), "i": st.integers(-9, 9), "u": st.integers(0, 9),
             "b": st.booleans()}[np.dtype(dtype).kind]
    x = data.draw(hnp.arrays(dtype, shape, elements=small))
    axes = st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1, max_size=len(shape),
                    unique_by=lambda a: a % len(shape))
    axis = data.draw(st.none() | axes.map(tuple))
    keepdims = data.draw(st.booleans())
    kw = {"axis": axis, "keepdims": keepdims}
    want = standard(name, x, **kw)
    if isinstance(want, TypeError):
        return
    got = run(getattr(pycore, f"{name}_async")(x, **kw))
    if want.dtype.kind == "f" and name in ("mean", "var", "std", "sum", "prod"):
        got = np.asarray(got, np.float32)
        n = x.size if axis is None else math.prod(x.shape[a] for a in axis)
        assert got.shape == want.shape and got.dtype.name == NARROW.get(want.dtype.name, want.dtype.name)
        scale = np.max(np.abs(x.astype(np.float64))) if x.size else 0.0
        size = scale ** (2 if name == "var" else 1) + 1
        tol = 8 * max(n, 1) * 1.2e-7 * size * (scale ** n if name == "prod" else 1)
        assert np.allclose(got, want, rtol=1e-5, atol=tol, equal_nan=True), (name, x, axis, got, want)
        return
    agree(name, got, want, (x,))


def complexes(bound: float = 1e3) -> st.SearchStrategy:
    part = st.floats(-bound, bound, width=32)
    return st.builds(complex, part, part)


def agree_complex(name: str, got, want: np.ndarray, inputs: tuple) -> None:
    """complex64 results: the standard's shape and dtype; NaN parts where its are, each part within
    float32 rounding of the magnitude where the values are finite."""
    where = f"{name}{tuple(a.dtype.name + str(a.shape) for a in inputs)}"
    got = np.asarray(got)
    assert got.shape == want.shape, where
    assert got.dtype.name == NARROW.get(want.dtype.name, want.dtype.name) or (
        want.dtype.name == "complex128" and got.dtype.name == "complex64"), (where, got.dtype, want.dtype)
    if got.dtype.kind != "c":
        agree(name, got, want.astype(got.dtype) if want.dtype.kind == "f" else want, inputs)
        return
    w = want.astype(np.complex128)
    finite = np.isfinite(w)
    assert np.array_equal(np.isnan(got.real) | np.isnan(got.imag), np.isnan(w.real) | np.isnan(w.imag)) or (
        not finite.all()), where
    with np.errstate(all="ignore"):
        err = np.abs(got.astype(np.complex128)[finite] - w[finite])
        scale = np.abs(w[finite]) + max([float(np.max(np.abs(np.asarray(a, np.complex128)), initial=0))
                                         for a in inputs])
    assert (err <= 8 * 1.2e-7 * scale).all(), (where, got, want)


COMPLEX = [n for n in STANDARD if UFUNCS[n].complex]


@pytest.mark.parametrize("name", COMPLEX)
@SETTINGS
@given(data=st.data())
def test_complex_functions_agree_with_the_standard(name, data):
    """Every element-wise function the standard defines for complex numbers, on complex64 values
    (finite ones: the standard leaves most products and quotients of infinite parts to the
    implementation) and mixed with float32, on the NumPy backend."""
    u = UFUNCS[name]
    shapes = data.draw(shapes_that_broadcast(u.nin))
    bound = 3.0 if name == "pow" else 1e3
    xs = [data.draw(hnp.arrays(np.complex64, s, elements=complexes(bound))) for s in shapes]
    if u.nin == 2 and data.draw(st.booleans()):
        xs[1] = xs[1].real.copy()
    want = standard(name, *xs)
    assert not isinstance(want, TypeError), want
    got = run(getattr(pycore, f"{name}_async")(*xs))
    agree_complex(name, got, want, tuple(xs))


@pytest.mark.parametrize("name", [n for n in STANDARD if not UFUNCS[n].complex and UFUNCS[n].takes != "bool"])
def test_real_only_functions_refuse_complex_as_the_standard(name):
    x = np.array([1 + 2j, -0.5j], np.complex64)
    args = (x,) * UFUNCS[name].nin
    if not name.startswith("bitwise"):  # (array_api_strict checks the shift's sign first: ValueError)
        assert isinstance(standard(name, *args), TypeError)
    with pytest.raises(TypeError, match=f"{name}: complex inputs are not supported"):
        run(getattr(pycore, f"{name}_async")(*args))
