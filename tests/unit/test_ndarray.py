"""The n-d array core under CPython: dtypes and promotion (pycore/array/dtypes.py), layouts and views
(pycore/array/layout.py), every ufunc and reduction on the NumPy backend against NumPy itself
(tests/conftest.py forces the NumPy transport here), GpuArray on the fallback, and the pure planners
of pycore/kernels (no GPU: facts made up to force chunks, segments and loop caps)."""

from __future__ import annotations

import itertools
import math
import operator
import random
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst
from hypothesis.extra import numpy as hnp

import pycore
from pycore.array import dtypes
from pycore.array.dtypes import (
    BOOL,
    DTYPES,
    FLOAT32,
    INT32,
    UINT32,
    NarrowingWarning,
    as_array,
    pycore_dtype,
    result_type,
    scalar_value,
)
from pycore.array.layout import (
    Layout,
    broadcast_shapes,
    collapse,
    normalize_axes,
    normalize_axis,
    resolve_shape,
)
from pycore.calls.gpuarray import GpuArray
from pycore.kernels.elementwise import Operand, plan_elementwise
from pycore.kernels.plan import Facts, Slot, grid_for, word_of
from pycore.kernels.reduction import Combine, plan_reduction
from pycore.tables.ufuncs import REDUCTIONS, UFUNCS
from tests.unit.test_cpython_api import run

EPS = float(np.finfo(np.float32).eps)
NARROW = {"float64": FLOAT32, "int64": INT32, "uint64": UINT32, "complex128": np.dtype(np.complex64)}
BINARY = [name for name, u in UFUNCS.items() if u.nin == 2]
UNARY = [name for name, u in UFUNCS.items() if u.nin == 1]
NUMERIC = [name for name in BINARY if UFUNCS[name].takes == "numeric"]


def narrowed(dtype: np.dtype) -> np.dtype:
    """NumPy 2's dtype narrowed to 32 bits, as pycore's rules say."""
    return NARROW.get(dtype.name, dtype)


@pytest.fixture
def fresh_warnings(monkeypatch):
    """The one-time NarrowingWarnings not yet given (they are once per dtype per process)."""
    monkeypatch.setattr(dtypes, "_warned", set())


def data(dtype, shape, rng, specials=True):
    """Test inputs of a pycore dtype: floats with NaN, infinities and signed zeros (specials), small
    integers with zeros (so int32 and uint32 mix as int64 would), bools; complex numbers of two such
    floats."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        parts = [data(np.float32, shape, rng, specials) for _ in range(2)]
        return (parts[0] + 1j * parts[1]).astype(dtype)
    if dtype.kind == "f":
        x = (rng.standard_normal(shape) * 4).astype(dtype)
        if specials and x.size:
            put = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 3.0], dtype)[: x.size]
            x.reshape(-1)[rng.permutation(x.size)[: put.size]] = put
        return x
    if dtype.kind == "i":
        return rng.integers(-9, 10, shape).astype(dtype)
    if dtype.kind == "u":
        return rng.integers(0, 12, shape).astype(dtype)
    return rng.random(shape) < 0.5


# ------------------------------------------------------------------------------------------ dtypes


def test_pycore_dtypes_are_taken_as_they_are():
    for dtype in DTYPES:
        x = np.zeros((2, 3), dtype)
        y = as_array(x)
        assert y.dtype == dtype and np.shares_memory(x, y)


@pytest.mark.parametrize("src", ["float16", "int8", "int16", "uint8", "uint16"])
def test_packed_dtypes_are_kept_without_a_warning(src):
    x = np.array([0, 1, 7, 100], src)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = as_array(x)
    assert y.dtype == src and y.tolist() == x.tolist()


def test_python_values_take_the_default_dtypes_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = [as_array(v).dtype.name for v in ([1.5, 2], [1, 2], [[True, False]], 3, 2.5, True, [])]
    assert found == ["float32", "int32", "bool", "int32", "float32", "bool", "float32"]


def test_64_bit_inputs_narrow_with_one_warning_per_dtype(fresh_warnings):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = as_array(np.array([1.5, 1e300, -1e300, 1e-50, np.nan]))
        as_array(np.array([2.5]))  # float64 again: no second warning
        as_array(np.float64(2.0))  # a NumPy scalar is an explicit float64 too
        i = as_array(np.array([-(2**31), 2**31 - 1], np.int64))
        as_array(np.array([1], np.int64))
        u = as_array(np.array([2**32 - 1], np.uint64))
    assert f.dtype == FLOAT32 and i.dtype == INT32 and u.dtype == UINT32
    np.testing.assert_array_equal(f, np.array([1.5, np.inf, -np.inf, 0.0, np.nan], np.float32))
    assert i.tolist() == [-(2**31), 2**31 - 1] and u.tolist() == [2**32 - 1]
    assert [w.category for w in caught] == [NarrowingWarning] * 3  # no RuntimeWarning for the overflow
    texts = [str(w.message) for w in caught]
    assert texts[0].startswith("float64 input narrowed to float32")
    assert texts[1].startswith("int64 input narrowed to int32")
    assert texts[2].startswith("uint64 input narrowed to uint32")
    assert all("NarrowingWarning" in t and ".astype(np." in t for t in texts)
    assert pycore.NarrowingWarning is NarrowingWarning


def test_lists_that_numpy_makes_64_bit_narrow_without_a_warning(fresh_warnings):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert as_array([2**31 - 1, -(2**31)]).dtype == INT32
        assert as_array([1.5, 2**40]).dtype == FLOAT32


@pytest.mark.parametrize("x, match", [
    (np.array([2**31], np.int64), r"int64 values outside int32's range \[-2147483648, 2147483647\] "
                                  r"\(largest magnitude 2147483648\)"),
    (np.array([-(2**31) - 1, 5], np.int64), r"largest magnitude 2147483649"),
    (np.array([2**32], np.uint64), r"uint64 values outside uint32's range \[0, 4294967295\]"),
    ([2**40], r"x: int64 values outside int32's range"),
    ([2**63], r"uint64 values outside uint32's range"),
])
def test_integers_that_do_not_fit_raise_overflow_error(fresh_warnings, x, match):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(OverflowError, match=match):
            as_array(x)
        as_array(np.array([7], np.int64))  # the warning was not used up by the error
    assert [w.category for w in caught] == [NarrowingWarning]


def test_overflow_error_names_the_argument():
    with pytest.raises(OverflowError, match=r"^b: "):
        as_array(np.array([2**40]), "b")


@pytest.mark.parametrize("x, match", [
    (np.array([object()], dtype=object), "object"),
    (np.array(["a"]), "<U1"),
    (np.array([b"a"]), "|S1"),
    (np.array(["2024-01-01"], "datetime64[D]"), "datetime64[D]"),
    (np.array([1], "timedelta64[s]"), "timedelta64[s]"),
    (np.zeros(2, dtype=[("a", "f4")]), "[('a', '<f4')]"),
    ([2**64], "object"),
    (np.ma.array([1.0, 2.0], mask=[0, 1]), "masked arrays are not supported"),
    (np.ma.array([1, 2]), "masked arrays are not supported"),
    ([[1], [1, 2]], "cannot make an array of list"),
])
def test_unsupported_inputs_raise_type_error_naming_the_dtype(x, match):
    with pytest.raises(TypeError, match=re.escape(match)):
        as_array(x, "x1")
    with pytest.raises(TypeError, match=r"^x1: "):
        as_array(x, "x1")


def test_complex_inputs_are_complex64():
    assert as_array(np.array([1j], np.complex64)).dtype == np.complex64
    assert as_array([1 + 2j]).dtype == np.complex64  # (a list: the default complex dtype, no warning)
    with pytest.warns(NarrowingWarning, match="complex128 input narrowed to complex64"):
        dtypes._warned.discard("complex128")
        assert as_array(np.array([1 + 2j])).dtype == np.complex64


def test_unsupported_inputs_are_refused_by_the_public_functions():
    with pytest.raises(TypeError, match="object"):
        run(pycore.add_async(np.array([object()]), 1))
    with pytest.raises(TypeError, match="masked"):
        run(pycore.sum_async(np.ma.array([1.0, 2.0], mask=[0, 1])))
    with pytest.raises(TypeError, match="datetime64"):
        run(pycore.to_gpu_async(np.array(["2024-01-01"], "datetime64[D]")))


def test_pycore_dtype_names():
    assert [pycore_dtype(d) for d in ("float32", np.int32, "uint32", bool, np.bool_)] == [
        FLOAT32, INT32, UINT32, BOOL, BOOL]
    with pytest.raises(TypeError, match=r"dtype float64 is not supported on WebGPU.*float32"):
        pycore_dtype("float64", "dtype")
    with pytest.raises(TypeError, match="'nonsense' is not a dtype"):
        pycore_dtype("nonsense", "dtype")


def test_result_type_table():
    table = [  # (a list: True == 1 as a dict key)
        ((FLOAT32, INT32), FLOAT32), ((INT32, UINT32), INT32), ((BOOL, INT32), INT32),
        ((BOOL, UINT32), UINT32), ((UINT32, FLOAT32), FLOAT32), ((BOOL, BOOL), BOOL),
        ((UINT32, UINT32), UINT32),
        ((INT32, 2.5), FLOAT32), ((FLOAT32, 2), FLOAT32), ((UINT32, 7), UINT32), ((INT32, True), INT32),
        ((BOOL, 1), INT32), ((BOOL, 1.5), FLOAT32), ((BOOL, True), BOOL), ((UINT32, 2.5), FLOAT32),
        ((1, 2.0), FLOAT32), ((True, 1), INT32), ((True,), BOOL), ((3,), INT32),
        ((INT32, UINT32, 2.5), FLOAT32), ((BOOL, UINT32, -1), UINT32),
    ]
    for operands, want in table:
        assert result_type(*operands) == want, operands


def test_result_type_is_numpy2s_narrowed_to_32_bits():
    # every combination of up to three operands: pycore's dtypes and weak Python scalars (NEP 50)
    pool = [*DTYPES, True, 1, 2.5]
    for n in (1, 2, 3):
        for operands in itertools.product(pool, repeat=n):
            want = narrowed(np.result_type(*operands))
            assert result_type(*operands) == want, operands


def test_scalar_value():
    assert scalar_value(3, UINT32) == 3 and type(scalar_value(3, UINT32)) is np.uint32
    assert scalar_value(2**32 - 1, UINT32) == 2**32 - 1 and scalar_value(-(2**31), INT32) == -(2**31)
    assert scalar_value(True, INT32) == 1 and scalar_value(2.5, FLOAT32) == np.float32(2.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert scalar_value(1e39, FLOAT32) == np.inf  # past float32's range: inf, as NumPy
    with pytest.raises(OverflowError, match=r"x2: Python int -1 is out of uint32's range \[0, 4294967295\]"):
        scalar_value(-1, UINT32, "x2")
    with pytest.raises(OverflowError, match=r"Python int 2147483648 is out of int32's range"):
        scalar_value(2**31, INT32)
    with pytest.raises(OverflowError, match=r"Python int -2147483649 is out of int32's range"):
        scalar_value(-(2**31) - 1, INT32)


# ------------------------------------------------------------------------------------------ layout


def elements(layout, base):
    """The elements a layout addresses in `base` (a flat array), gathered through its strides."""
    index = np.full(layout.shape, layout.offset, dtype=np.int64)
    for axis, (n, s) in enumerate(zip(layout.shape, layout.strides, strict=True)):
        shape = [1] * layout.ndim
        shape[axis] = n
        index = index + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return base[index]


def same_view(layout, view, base):
    """`layout` addresses what the NumPy view of `base` does: shape, strides (where an axis is longer
    than 1), offset and every element."""
    assert layout.shape == view.shape
    assert np.array_equal(elements(layout, base), view)
    if view.size:
        item = base.itemsize
        address = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
        assert layout.offset == address // item
        for n, s, t in zip(view.shape, layout.strides, view.strides, strict=True):
            assert n == 1 or s * item == t, (layout, view.strides)
        index = elements(layout, np.arange(base.size))
        assert layout.span() == (int(index.min()), int(index.max()) + 1)


def random_key(rng, ndim):
    key, used = [], 0
    while used < ndim:
        r = rng.random()
        if r < 0.15:
            key.append(None)
            continue
        if r < 0.35:
            key.append("int")
        else:
            key.append(slice(rng.choice([None, 0, 1, -1, 2, -3]), rng.choice([None, -1, 3, 0, 7]),
                             rng.choice([None, 1, 2, -1, -2, 3])))
        used += 1
    if rng.random() < 0.3:  # an Ellipsis in place of some trailing (or leading) full slices
        at = rng.randint(0, len(key))
        key.insert(at, Ellipsis)
        if rng.random() < 0.5 and len(key) > at + 1 and isinstance(key[-1], slice):
            key.pop()
    return key


def concrete(key, shape):
    """`key` with each "int" placeholder an index valid for its axis."""
    out, axis = [], 0
    n_used = sum(1 for k in key if k is not None and k is not Ellipsis)
    for i, k in enumerate(key):
        if k is Ellipsis:
            out.append(k)
            axis += len(shape) - n_used
            continue
        if k is None:
            out.append(k)
            continue
        if k == "int":
            n = shape[axis]
            out.append(random.Random(i * 7 + n).randint(-n, n - 1) if n else slice(None))
        else:
            out.append(k)
        axis += 1
    return tuple(out)


def test_views_match_numpy_views():
    rng = random.Random(0)
    for _ in range(600):
        shape = tuple(rng.randint(1, 5) for _ in range(rng.randint(0, 4)))
        base = np.arange(math.prod(shape), dtype=np.int32)
        view, layout = base.reshape(shape), Layout.contiguous(shape)
        for _ in range(rng.randint(1, 4)):
            op = rng.random()
            if op < 0.25:
                axes = list(range(view.ndim))
                rng.shuffle(axes)
                if rng.random() < 0.5:
                    axes = [a - view.ndim if rng.random() < 0.5 else a for a in axes]
                view, layout = view.transpose(axes), layout.transpose(axes)
            elif op < 0.6:
                key = concrete(random_key(rng, view.ndim), view.shape)
                # (NumPy gives a scalar, not a view, for ints on every axis unless there is a ...)
                view, layout = view[key if Ellipsis in key else (*key, Ellipsis)], layout.getitem(key)
            elif op < 0.7:
                axis = rng.randint(-view.ndim - 1, view.ndim)
                view, layout = np.expand_dims(view, axis), layout.expand_dims(axis)
            elif op < 0.8:
                view, layout = view.squeeze(), layout.squeeze()
            elif op < 0.9:
                target = tuple(rng.choice([n, 3]) if n == 1 else n for n in view.shape)
                target = (2, *target) if rng.random() < 0.5 else target
                view, layout = np.broadcast_to(view, target), layout.broadcast_to(target)
            else:
                view, layout = view.T, layout.transpose()
            same_view(layout, view, base)


def test_transpose_and_slicing_examples():
    base = np.arange(24, dtype=np.float32)
    grid = base.reshape(4, 6)
    lay = Layout.contiguous((4, 6))
    same_view(lay.transpose((1, 0)).getitem((slice(None, None, -2),)), grid.T[::-2], base)
    same_view(lay.getitem((slice(None, None, -1), slice(5, 0, -2))), grid[::-1, 5:0:-2], base)
    same_view(lay.getitem((2,)), grid[2], base)
    same_view(lay.getitem((-1, -1)), grid[-1, -1, ...], base)
    same_view(lay.getitem((Ellipsis, None, 3)), grid[..., None, 3], base)
    same_view(lay.getitem((slice(10, 20),)), grid[10:20], base)  # empty: offset stays
    same_view(lay.getitem((np.int64(1), slice(None))), grid[np.int64(1), :], base)
    same_view(lay.getitem((np.array(2), Ellipsis)), grid[2, ...], base)  # a 0-d integer array: an int
    assert lay.getitem((slice(10, 20),)).span() == (0, 0)


def test_reshape_matches_numpy_or_says_a_copy_is_needed():
    rng = random.Random(1)
    for _ in range(400):
        shape = tuple(rng.randint(1, 4) for _ in range(rng.randint(1, 4)))
        base = np.arange(math.prod(shape), dtype=np.int32)
        view, layout = base.reshape(shape), Layout.contiguous(shape)
        axes = list(range(len(shape)))
        rng.shuffle(axes)
        view, layout = view.transpose(axes), layout.transpose(axes)
        key = tuple(slice(None, None, rng.choice([1, 1, 2, -1])) for _ in shape)
        view, layout = view[key], layout.getitem(key)
        n = view.size
        divisors = [d for d in range(1, n + 1) if n % d == 0]
        targets = [(n,), (-1,), (1, n, 1)]
        for d in rng.sample(divisors, min(3, len(divisors))):
            targets += [(d, -1), (n // d, 1, d), (-1, d, 1)]
        for target in targets:
            found = layout.reshape(target)
            try:
                want = view.reshape(target, copy=False)
            except ValueError:  # NumPy needs a copy: so does pycore
                assert found is None, (layout, target)
                continue
            assert found is not None, (layout, target)
            same_view(found, want, base)


def test_reshape_errors():
    lay = Layout.contiguous((3, 4))
    assert lay.reshape((2, -1, 3)).shape == (2, 2, 3) and lay.reshape(12).shape == (12,)
    with pytest.raises(ValueError, match=r"at most one -1"):
        lay.reshape((-1, -1))
    with pytest.raises(ValueError, match=r"at most one -1, and no other negative"):
        lay.reshape((-2, -6))
    with pytest.raises(ValueError, match=r"cannot reshape an array of shape \(3, 4\) \(12 elements\) "
                                         r"into \(5, -1\)"):
        lay.reshape((5, -1))
    with pytest.raises(ValueError, match=r"into \(5, 2\)"):
        lay.reshape((5, 2))
    with pytest.raises(TypeError, match="must hold integers"):
        lay.reshape((3.0, 4))
    assert resolve_shape((2, -1), 6) == (2, 3) and resolve_shape(4, 4) == (4,)
    with pytest.raises(ValueError, match=r"into \(0, -1\)"):  # -1 beside a 0 stands for nothing
        resolve_shape((0, -1), 0)


def test_getitem_errors():
    lay = Layout.contiguous((3, 4))
    with pytest.raises(IndexError, match="too many indices: the array is 2-dimensional, but 3 were indexed"):
        lay.getitem((0, 0, 0))
    with pytest.raises(IndexError, match="single ellipsis"):
        lay.getitem((Ellipsis, Ellipsis))
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 1 with size 4"):
        lay.getitem((0, 4))
    with pytest.raises(IndexError, match="index -4 is out of bounds for axis 0 with size 3"):
        lay.getitem(-4)
    for bad in (1.0, True, np.True_, [0, 1], np.array([0, 1]), np.array([1]), "a", (0, np.array([1, 2]))):
        with pytest.raises(TypeError, match=r"only integers, slices, None and \.\.\. index a GpuArray"):
            lay.getitem(bad)


def test_broadcast_shapes_match_numpy():
    rng = random.Random(2)
    for _ in range(500):
        shapes = [tuple(rng.choice([1, 1, 2, 3]) for _ in range(rng.randint(0, 4)))
                  for _ in range(rng.randint(1, 3))]
        try:
            want = np.broadcast_shapes(*shapes)
        except ValueError:
            with pytest.raises(ValueError, match="do not broadcast"):
                broadcast_shapes(*shapes)
            continue
        assert broadcast_shapes(*shapes) == want


def test_broadcast_errors_name_the_shapes():
    with pytest.raises(ValueError, match=r"shapes \(4, 3\) and \(4,\) do not broadcast: "
                                         r"3 and 4 differ in the last axis"):
        broadcast_shapes((4, 3), (4,))
    with pytest.raises(ValueError, match=r"shapes \(2, 1, 3\) and \(5, 1\) and \(4, 3\) do not broadcast: "
                                         r"5 and 4 differ in axis -2 \(from the end\)"):
        broadcast_shapes((2, 1, 3), (5, 1), (4, 3))
    with pytest.raises(ValueError, match=r"shapes \(3,\) and \(4,\) do not broadcast"):
        Layout.contiguous((3,)).broadcast_to((4,))
    with pytest.raises(ValueError, match=r"cannot broadcast shape \(2, 3\) to \(3,\)"):
        Layout.contiguous((2, 3)).broadcast_to((3,))
    with pytest.raises(ValueError, match=r"cannot broadcast shape \(2, 1\) to \(1, 3\)"):
        Layout.contiguous((2, 1)).broadcast_to((1, 3))


def test_normalize_axis_and_axes():
    assert normalize_axis(-1, 3) == 2 and normalize_axis(np.int64(1), 3) == 1
    with pytest.raises(ValueError, match=re.escape("axis 3 is out of range for an array of 3 dimension(s) "
                                                   "(valid: -3 to 2)")):
        normalize_axis(3, 3)
    with pytest.raises(ValueError, match=re.escape("axis -4 is out of range for an array of 3 dimension(s)")):
        normalize_axis(-4, 3)
    with pytest.raises(ValueError, match="axis 0 is out of range for a 0-d array"):
        normalize_axis(0, 0)
    with pytest.raises(TypeError, match=r"axis must be an int, got float 1\.0"):
        normalize_axis(1.0, 3)
    with pytest.raises(TypeError, match="axis must be an int, got bool True"):
        normalize_axis(True, 3)
    assert normalize_axes(None, 3) == (0, 1, 2) and normalize_axes((-1, 0), 3) == (0, 2)
    assert normalize_axes([2, 1], 3) == (1, 2) and normalize_axes((), 3) == ()
    assert normalize_axes(1, 3) == (1,)
    with pytest.raises(ValueError, match=r"axis \(0, -3\) names an axis twice"):
        normalize_axes((0, -3), 3)
    with pytest.raises(ValueError, match=r"axis 5 is out of range"):
        normalize_axes((0, 5), 3)


def test_transpose_expand_dims_and_squeeze_errors():
    lay = Layout.contiguous((2, 1, 3))
    with pytest.raises(ValueError, match=r"axes \(0, 0, 1\) is not a permutation of the 3 axes"):
        lay.transpose((0, 0, 1))
    with pytest.raises(ValueError, match=r"axes \(0, 1\) is not a permutation"):
        lay.transpose((0, 1))
    with pytest.raises(ValueError, match="axes 3 is out of range"):
        lay.transpose((0, 1, 3))
    assert lay.expand_dims(-1).shape == (2, 1, 3, 1) and lay.expand_dims(0).shape == (1, 2, 1, 3)
    with pytest.raises(ValueError, match="axis 4 is out of range for an array of 4 dimension"):
        lay.expand_dims(4)
    assert lay.squeeze().shape == lay.squeeze(1).shape == lay.squeeze((-2,)).shape == (2, 3)
    with pytest.raises(ValueError, match="cannot squeeze axis 0: its length is 2, not 1"):
        lay.squeeze(0)
    with pytest.raises(ValueError, match="cannot squeeze axis 2: its length is 3"):
        lay.squeeze((1, -1))
    with pytest.raises(ValueError, match="axis 3 is out of range"):
        lay.squeeze(3)


def test_collapse_addresses_the_same_elements():
    assert collapse((4, 6, 8), [(48, 8, 1), (0, 8, 1)]) == ((4, 48), [(48, 1), (0, 1)])
    assert collapse((1, 1), [(5, 7)]) == ((1,), [(0,)])
    assert collapse((), [()]) == ((1,), [(0,)])
    rng = random.Random(3)
    for _ in range(300):
        shape = tuple(rng.randint(1, 4) for _ in range(rng.randint(1, 4)))
        layouts = [Layout.contiguous(shape)]
        perm = list(range(len(shape)))
        rng.shuffle(perm)
        layouts.append(Layout.contiguous(tuple(shape[p] for p in perm)).transpose(
            [perm.index(a) for a in range(len(shape))]))
        sub = tuple(n if rng.random() < 0.6 else 1 for n in shape)
        layouts.append(Layout.contiguous(sub).broadcast_to(shape))
        layouts.append(Layout.contiguous(tuple(2 * n for n in shape)).getitem(
            tuple(slice(None, None, rng.choice([2, -2])) for _ in shape)))
        dims, strides = collapse(shape, [lay.strides for lay in layouts])
        assert math.prod(dims) == math.prod(shape) and len(dims) <= max(len(shape), 1)
        for lay, st in zip(layouts, strides, strict=True):
            flat = Layout((*dims,), st, lay.offset)
            assert np.array_equal(elements(flat, np.arange(10_000)).reshape(-1),
                                  elements(lay, np.arange(10_000)).reshape(-1))


def test_contiguity_and_span():
    assert Layout.contiguous((3, 4)).is_contiguous and Layout.contiguous((3, 1)).transpose().is_contiguous
    assert not Layout.contiguous((3, 4)).transpose().is_contiguous
    assert Layout((3, 4), (-2, 6), 5).span() == (1, 24)
    assert Layout.contiguous((0, 4), 7).span() == (7, 7)


# ------------------------------------------------------------------------------ ufuncs on NumPy


def int_power(x, y):
    """Integer powers as pycore defines them: wrapping, and for a negative exponent the integer part
    of 1 / x ** -y (NumPy refuses those), element by element in Python ints."""
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    bits = 8 * x.dtype.itemsize
    out = []
    for a, b in zip(x.ravel().tolist(), y.ravel().tolist(), strict=True):
        v = pow(int(a), int(b), 2**bits) if b >= 0 else (1 if a == 1 else (-1) ** b if a == -1 else 0)
        out.append(v - 2**bits if x.dtype.kind == "i" and v >= 2 ** (bits - 1) else v)
    return np.array(out, x.dtype).reshape(x.shape)


def numpy_ufunc(name, *xs):
    """NumPy's own answer, narrowed to pycore's dtypes (NumPy computes int32 with uint32 in int64,
    and integers with floats in float64: equal here, as the data mixes small values only). The
    ops computing in float32 get float32 inputs (NumPy's float64 results of mixed dtypes differ)."""
    u = UFUNCS[name]
    half = narrowed(np.result_type(*xs)) == np.float16  # (pycore computes float16 in float32, rounds once)
    if narrowed(np.result_type(*xs)).kind == "c":
        xs = tuple(np.asarray(x).astype(np.complex64) for x in xs)
    elif u.takes == "float" or narrowed(np.result_type(*xs)).kind == "f":
        xs = tuple(np.asarray(x).astype(np.float32) for x in xs)
    with np.errstate(all="ignore"):
        if name == "pow" and np.result_type(*xs).kind in "iu":
            typed = [x if isinstance(x, np.ndarray) else np.array(x, np.result_type(*xs)) for x in xs]
            dtype = narrowed(np.result_type(*typed))
            want = int_power(*np.broadcast_arrays(*[t.astype(dtype) for t in typed]))
        elif np.result_type(*xs).kind == "c":  # (NumPy's, with the standard's special cases: ufuncs.py)
            want = np.asarray(u.numpy(*xs))
        else:
            want = np.asarray(getattr(np, name)(*xs))
    if half and want.dtype.kind == "f":
        return want.astype(np.float16)
    return want.astype(narrowed(want.dtype))


def refusal(name, dtype):
    """What pycore's TypeError says for inputs promoted to `dtype`, or None where it takes them."""
    takes = UFUNCS[name].takes
    if dtype.kind == "c" and not UFUNCS[name].complex and takes != "bool":
        return f"{name}: complex inputs are not supported"
    if dtype.kind == "f" and takes in ("integer", "int"):
        return f"{name}: float inputs are not supported"
    if dtype == BOOL and takes in ("numeric", "int"):
        return f"{name}: bool inputs are not supported"
    return None


def check_ufunc(name, got, want, xs):
    assert isinstance(got, np.ndarray) and got.dtype == want.dtype and got.shape == want.shape, (got, want)
    if got.dtype.kind == "c":  # (each part, NaNs where NumPy's are)
        got, want = np.stack([got.real, got.imag]), np.stack([want.real, want.imag])
    np.testing.assert_array_equal(got, want)
    if got.dtype.kind == "f":  # signed zeros too
        assert np.array_equal(np.signbit(got), np.signbit(want)), (name, got, want)


SHAPES = [((4, 3), (3,)), ((2, 1, 3), (4, 1)), ((), (5,)), ((3, 1), (1,)), ((0, 3), (1, 3))]


@pytest.mark.parametrize("name", BINARY)
def test_ufunc_matches_numpy_on_every_dtype_pair(name):
    fn = getattr(pycore, f"{name}_async")
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    for d1, d2 in itertools.product(DTYPES, repeat=2):
        for s1, s2 in SHAPES:
            a, b = data(d1, s1, rng), data(d2, s2, rng)
            refused = refusal(name, result_type(d1, d2))
            if refused:
                with pytest.raises(TypeError, match=refused):
                    run(fn(a, b))
                continue
            got = run(fn(a, b))
            check_ufunc(name, got, numpy_ufunc(name, a, b), (a, b))
            assert pycore.trace()[-1]["backend"] == "numpy"


@pytest.mark.parametrize("name", BINARY)
def test_ufunc_with_python_scalars_matches_numpy(name):
    fn = getattr(pycore, f"{name}_async")
    rng = np.random.default_rng(5)
    for dtype in DTYPES:
        x = data(dtype, (4, 3), rng)
        for s in (3, -2, 2.5, True, 0):
            for args in ((x, s), (s, x)):
                refused = refusal(name, result_type(dtype, s))
                if refused:
                    with pytest.raises(TypeError, match=refused):
                        run(fn(*args))
                    continue
                try:
                    want = numpy_ufunc(name, *args)
                except OverflowError:  # NumPy 2 refuses -2 as a uint32 too
                    want = None
                if want is None or (UFUNCS[name].takes == "any" and dtype.kind == "u" and s == -2):
                    # (NumPy 2 compares a uint32 with -2 exactly; pycore raises, as dtypes.py says)
                    with pytest.raises(OverflowError, match=f"Python int -2 is out of {dtype.name}'s range"):
                        run(fn(*args))
                    continue
                check_ufunc(name, run(fn(*args)), want, args)
    # scalars only: as 0-d arrays of the default dtypes
    got = run(fn(7, 2))
    assert isinstance(got, np.ndarray) and got.shape == () and got.dtype == numpy_ufunc(name, 7, 2).dtype


SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -3.0, 1e-30, -1e30,
                     3.4e38, 88.5, -104.0, 1e5, 0.75], np.float32)


@pytest.mark.parametrize("name", UNARY)
def test_unary_ufunc_matches_numpy_on_every_dtype_and_special_value(name):
    fn = getattr(pycore, f"{name}_async")
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    for dtype in DTYPES:
        x = data(dtype, (5, 4), rng)
        refused = refusal(name, dtype)
        if refused:
            with pytest.raises(TypeError, match=refused):
                run(fn(x))
            continue
        for view in (x, x.T[::-1], x[0, 1]):
            check_ufunc(name, run(fn(view)), numpy_ufunc(name, view), (view,))
    if not refusal(name, FLOAT32):
        check_ufunc(name, run(fn(SPECIALS)), numpy_ufunc(name, SPECIALS), (SPECIALS,))
    edges = np.array([2**31 - 1, -(2**31), -1, 0, 1], np.int32)
    if not refusal(name, INT32):
        check_ufunc(name, run(fn(edges)), numpy_ufunc(name, edges), (edges,))


@pytest.mark.parametrize("name", [n for n in BINARY if UFUNCS[n].takes in ("float", "numeric")])
def test_binary_ufunc_on_every_pair_of_special_values(name):
    a, b = SPECIALS[:, None], SPECIALS[None, :]
    check_ufunc(name, run(getattr(pycore, f"{name}_async")(a, b)), numpy_ufunc(name, a, b), (a, b))


def test_integer_functions_at_the_edges():
    imin = -(2**31)
    assert run(pycore.abs_async(np.array([imin, -5], np.int32))).tolist() == [imin, 5]  # wraps, as NumPy's
    assert run(pycore.negative_async(np.array([1], np.uint32))).tolist() == [2**32 - 1]
    left = run(pycore.bitwise_left_shift_async(np.array([1, 1, 1, 3], np.int32), [31, 32, -1, 40]))
    assert left.tolist() == [imin, 0, 0, 0]
    right = run(pycore.bitwise_right_shift_async(np.array([-5, -5, 5, imin], np.int32), [32, -1, 33, 31]))
    assert right.tolist() == [-1, -1, 0, -1]
    assert run(pycore.bitwise_right_shift_async(np.array([2**32 - 1], np.uint32), 32)).tolist() == [0]
    powers = run(pycore.pow_async(np.array([2, -3, 0, 1, -1, -1, 5], np.int32), [31, 3, 0, -4, -3, -2, -1]))
    assert powers.tolist() == [imin, -27, 1, 1, -1, 1, 0]
    assert run(pycore.pow_async(np.array([3], np.uint32), 21)).tolist() == [3**21 % 2**32]
    assert run(pycore.floor_async(np.array([3, -4], np.int32))).dtype == INT32
    assert run(pycore.sqrt_async(np.array([4], np.uint32))).dtype == FLOAT32
    assert run(pycore.bitwise_invert_async(np.array([True, False]))).tolist() == [False, True]
    with pytest.raises(TypeError, match="bitwise_and: float inputs are not supported"):
        run(pycore.bitwise_and_async([1.5], [1]))
    with pytest.raises(TypeError, match="bitwise_left_shift: bool inputs are not supported"):
        run(pycore.bitwise_left_shift_async([True], [False]))


def test_every_inexact_function_declares_its_accuracy():
    for name, u in UFUNCS.items():
        exact_floats = ("copysign", "nextafter")
        inexact = name in ("pow", "floor_divide") or (u.takes == "float" and name not in exact_floats)
        assert (u.ulps > 0) == inexact, name
        assert u.ulps <= 8 and u.atol <= 1e-6, name


@settings(max_examples=80, deadline=None)
@given(name=hst.sampled_from(["abs", "sign", "round", "sqrt", "log1p", "pow", "atan2", "hypot", "nextafter",
                             "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "isfinite"]),
       dtypes=hst.tuples(*[hst.sampled_from([FLOAT32, INT32, UINT32, BOOL])] * 2),
       shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4), draw=hst.data())
def test_sampled_ufuncs_match_numpy_on_any_shapes_and_values(name, dtypes, shapes, draw):
    u = UFUNCS[name]
    xs = [draw.draw(hnp.arrays(d, s)) for d, s in zip(dtypes[:u.nin], shapes.input_shapes, strict=False)]
    fn = getattr(pycore, f"{name}_async")
    refused = refusal(name, result_type(*[x.dtype for x in xs]))
    if refused:
        with pytest.raises(TypeError, match=refused):
            run(fn(*xs))
        return
    got = run(fn(*xs))
    check_ufunc(name, got, numpy_ufunc(name, *xs), xs)
    assert got.shape == np.broadcast_shapes(*[x.shape for x in xs])


def test_numpy_scalars_are_strong_and_narrowed(fresh_warnings):
    x = np.array([1, 2], np.int32)
    assert run(pycore.add_async(x, np.float32(0.5))).dtype == FLOAT32
    assert run(pycore.add_async(x, np.int32(1))).dtype == INT32
    assert run(pycore.add_async(np.array([1], np.uint32), np.int32(-1))).tolist() == [0]
    with pytest.warns(NarrowingWarning):
        assert run(pycore.multiply_async(np.float32([1.5]), np.float64(2.0))).dtype == FLOAT32


def test_logical_not_on_every_dtype():
    rng = np.random.default_rng(6)
    for dtype in DTYPES:
        x = data(dtype, (5, 4), rng)
        got = run(pycore.logical_not_async(x))
        np.testing.assert_array_equal(got, np.logical_not(x))
        assert got.dtype == BOOL
    assert run(pycore.logical_not_async(np.array([np.nan, -0.0, 0.0, np.inf], np.float32))).tolist() == [
        False, True, True, False]


def test_integers_wrap():
    imax, imin = 2**31 - 1, -(2**31)
    i32 = np.array([imax, imin, 65536, 46341], np.int32)
    assert run(pycore.add_async(i32, 1)).tolist() == [imin, imin + 1, 65537, 46342]
    assert run(pycore.subtract_async(i32, 1)).tolist() == [imax - 1, imax, 65535, 46340]
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(run(pycore.multiply_async(i32, i32)), i32 * i32)
    assert run(pycore.multiply_async(i32[2:3], 65536)).tolist() == [0]
    u32 = np.array([0, 2**32 - 1, 3_000_000_000], np.uint32)
    assert run(pycore.subtract_async(u32, 1)).tolist() == [2**32 - 1, 2**32 - 2, 2_999_999_999]
    assert run(pycore.add_async(u32, u32)).tolist() == [0, 2**32 - 2, 6_000_000_000 - 2**32]
    assert run(pycore.greater_async(u32, 2**31)).tolist() == [False, True, True]  # unsigned order
    assert run(pycore.floor_divide_async(np.array([imin], np.int32), -1)).tolist() == [imin]
    assert run(pycore.remainder_async(np.array([imin], np.int32), -1)).tolist() == [0]
    assert run(pycore.sum_async(np.array([imax, 1], np.int32))) == imin
    assert run(pycore.sum_async(np.array([2**32 - 1, 2], np.uint32))) == 1
    assert run(pycore.prod_async(np.array([65536, 65536, 3], np.int32))) == 0


@pytest.mark.parametrize("dtype", ["int32", "float32"])
def test_floor_divide_and_remainder_signs(dtype):
    a = np.array([7, -7, 7, -7, 0, 6, -6], dtype)
    b = np.array([2, 2, -2, -2, 3, 3, -3], dtype)
    assert run(pycore.floor_divide_async(a, b)).tolist() == [3, -4, -4, 3, 0, 2, 2]
    assert run(pycore.remainder_async(a, b)).tolist() == [1, 1, -1, -1, 0, 0, 0]
    assert run(pycore.floor_divide_async(a, b)).dtype == dtype


@pytest.mark.parametrize("dtype", ["int32", "uint32"])
def test_integer_division_by_zero_gives_zero(dtype):
    a = np.array([5, 0, 7], dtype)
    zero = np.zeros(3, dtype)
    assert run(pycore.floor_divide_async(a, zero)).tolist() == [0, 0, 0]
    assert run(pycore.remainder_async(a, zero)).tolist() == [0, 0, 0]
    assert run(pycore.floor_divide_async(a, 0)).tolist() == [0, 0, 0]
    got = run(pycore.divide_async(a, zero))  # true division: float32, IEEE
    assert got.dtype == FLOAT32 and got[0] == np.inf and np.isnan(got[1])


def test_float_division_by_zero_is_ieee():
    a = np.array([1.0, -1.0, 0.0], np.float32)
    assert run(pycore.floor_divide_async(a, 0.0)).tolist()[:2] == [np.inf, -np.inf]
    assert np.isnan(run(pycore.remainder_async(a, 0.0))).all()


def test_float_floor_division_is_numpys_divmod():
    # exact (fmod), not floor(a / b): infinities, signed zeros, quotients that round to an integer
    a = np.array([1, -1, 1, -1, np.inf, 1, 0.7, -0.0, 0.0, 6, 5, 1e30, -7.5, 3e-45], np.float32)
    b = np.array([np.inf, np.inf, -np.inf, -np.inf, 2, 0.1, 0.1, 3, -3, -3, 0, 3, 2.5, 1e-45], np.float32)
    for name in ("floor_divide", "remainder"):
        got = run(getattr(pycore, f"{name}_async")(a, b))
        want = numpy_ufunc(name, a, b)
        np.testing.assert_array_equal(got, want)
        assert np.array_equal(np.signbit(got), np.signbit(want)), name


@pytest.mark.parametrize("name", NUMERIC)
def test_bool_inputs_to_numeric_ops_raise_type_error(name):
    fn = getattr(pycore, f"{name}_async")
    for args in ((np.array([True]), np.array([False])), (np.array([True]), True), (True, False)):
        with pytest.raises(TypeError, match=f"{name}: bool inputs are not supported.*logical_and"):
            run(fn(*args))
    assert run(fn(np.array([True, False]), np.array([2, 3], np.int32))).dtype == INT32  # promoted: fine


@pytest.mark.parametrize("name", BINARY)
def test_shapes_that_do_not_broadcast_raise_value_error_naming_both(name):
    fn = getattr(pycore, f"{name}_async")
    with pytest.raises(ValueError, match=rf"^{name}: shapes \(4, 3\) and \(4,\) do not broadcast"):
        run(fn(np.ones((4, 3), np.uint32), np.ones(4, np.uint32)))
    with pytest.raises(ValueError, match=rf"^{name}: shapes \(2, 1, 3\) and \(5, 2\) do not broadcast"):
        run(fn(np.ones((2, 1, 3), np.int32), np.ones((5, 2), np.int32)))


def test_ufunc_call_errors():
    with pytest.raises(TypeError, match=r"add_async\(\) takes 2 array argument\(s\) \(x1, x2\), got 1"):
        run(pycore.add_async(np.ones(2)))
    with pytest.raises(ValueError, match="add: backend must be one of"):
        run(pycore.add_async(1, 2, backend="cuda"))
    assert pycore.vec_add_async is pycore.add_async and pycore.vec_sub_async is pycore.subtract_async
    assert pycore.vec_mul_async is pycore.multiply_async


# -------------------------------------------------------------------------- reductions on NumPy


def numpy_reduction(name, x, axis, keepdims, correction=0.0):
    """(NumPy's answer, in float64 for float results, the result dtype pycore gives, tolerance);
    a float16 result is the float32 one rounded once (half a float16 ULP more)."""
    want, dtype, tol = _numpy_reduction(name, x, axis, keepdims, correction)
    if x.dtype == np.float16 and dtype.kind == "f":
        with np.errstate(over="ignore"):
            return np.asarray(want).astype(np.float16), np.dtype(np.float16), tol + np.abs(want) * 2.0**-11
    return want, dtype, tol


def _numpy_reduction(name, x, axis, keepdims, correction=0.0):
    axes = (axis,) if isinstance(axis, int) else axis
    n = x.size if axis is None else math.prod(x.shape[a] for a in axes)
    grow = (math.log2(max(n, 2)) + 16) * EPS
    x64 = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    kw = {"axis": axis, "keepdims": keepdims}
    warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy's own, for NaNs and N - correction <= 0)
    if name in ("sum", "prod"):
        acc = REDUCTIONS[name].result_dtype(x.dtype)
        if acc.kind not in "fc":
            return getattr(np, name)(x, dtype=acc, **kw), acc, 0
        want = getattr(np, name)(x64, **kw)
        scale = np.sum(np.abs(x64), **kw) if name == "sum" else np.abs(want) * n
        return want, acc, grow * scale
    if name in ("max", "min"):
        return getattr(np, name)(x, **kw), x.dtype, 0
    if name in ("all", "any"):
        return getattr(np, name)(x, **kw), BOOL, 0
    if name in ("argmax", "argmin"):
        return getattr(np, name)(x, **kw), INT32, 0
    if name == "mean":
        return np.mean(x64, **kw), REDUCTIONS[name].result_dtype(x.dtype), grow * np.mean(np.abs(x64), **kw)
    var = np.var(x64, ddof=correction, **kw)
    tol = grow * var + 4 * EPS * np.mean(x64**2, **kw)
    if name == "var":
        return var, FLOAT32, tol
    std = np.sqrt(var)
    return std, FLOAT32, np.where(var > 0, tol / np.where(var > 0, std, 1), np.sqrt(tol))


def check_reduction(name, got, x, axis, keepdims, **kw):
    want, dtype, tol = numpy_reduction(name, x, axis, keepdims, **kw)
    if len(normalize_axes(axis, x.ndim)) == x.ndim and not keepdims:  # every axis: a NumPy scalar
        assert isinstance(got, np.generic) and got.dtype == dtype, (name, x.dtype, got)
        got = np.asarray(got)
    else:
        assert isinstance(got, np.ndarray) and got.dtype == dtype, (name, x.dtype, axis, got)
    want = np.asarray(want)
    assert got.shape == want.shape, (name, axis, keepdims)
    with np.errstate(invalid="ignore"):
        ok = np.array_equal(got, want, equal_nan=True) or (
            np.array_equal(np.isnan(got), np.isnan(want))
            and bool(np.all(np.isnan(want) | (np.abs(got - want) <= tol))))
    assert ok, (name, x.dtype, axis, keepdims, kw, got, want)


AXES = [None, 0, 1, -1, -3, (0, 2), (2, 0), (1,), (), (0, 1, 2)]
ARG_AXES = [None, 0, 1, -1, 2]


@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reduction_matches_numpy(name):
    r = REDUCTIONS[name]
    fn = getattr(pycore, f"{name}_async")
    rng = np.random.default_rng(8)
    for dtype in DTYPES:
        base = data(dtype, (5, 4, 6), rng, specials=False)
        if dtype.kind == "c" and name == "prod":  # (|z| near 1: a complex product's overflow is order-bound)
            base = (base / 5).astype(dtype)
        if dtype.kind == "c" and not r.complex:  # (real numbers only, as the standard says)
            with pytest.raises(TypeError, match=f"{name}: complex inputs are not supported"):
                run(fn(base))
            continue
        for x in (base[:3, :, :5], base.transpose(2, 0, 1)[::-2], base[::2, ::-1, 1::2]):
            for axis in ARG_AXES if r.arg else AXES:
                for keepdims in (False, True):
                    for kw in ({}, {"correction": 1}) if r.two_pass else ({},):
                        got = run(fn(x, axis=axis, keepdims=keepdims, **kw))
                        check_reduction(name, got, x, axis, keepdims, **kw)


@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin", "sum", "mean", "all", "any"])
def test_reductions_with_nan_and_infinities(name):
    x = np.array([[1, np.nan, 3, np.nan], [np.inf, -np.inf, 0, 2], [-0.0, 0.0, 5, 5],
                  [np.inf, 1, np.inf, -1]], np.float32)
    fn = getattr(pycore, f"{name}_async")
    for axis in (None, 0, 1):
        check_reduction(name, run(fn(x, axis=axis)), x, axis, False)


def test_arg_reductions_pick_the_first_tie_and_the_first_nan():
    x = np.array([[1, 5, 5, 0, 5], [np.nan, 2, np.nan, 9, 9], [3, 3, 3, 3, 3], [-1, np.nan, -1, -7, -7]],
                 np.float32)
    assert run(pycore.argmax_async(x, axis=1)).tolist() == [1, 0, 0, 1]
    assert run(pycore.argmin_async(x, axis=1)).tolist() == [3, 0, 0, 1]
    assert run(pycore.argmax_async(x)) == 5 and run(pycore.argmin_async(x)) == 5
    assert run(pycore.argmax_async(x, axis=0)).tolist() == [1, 3, 1, 1, 1]
    ints = np.array([[4, 9, 9, -2], [-2, -2, 0, 4]], np.int32)
    assert run(pycore.argmax_async(ints)) == 1 and run(pycore.argmin_async(ints)) == 3
    assert run(pycore.argmax_async(ints, axis=None, keepdims=True)).tolist() == [[1]]
    assert run(pycore.argmax_async(np.array([False, True, True]))) == 1


def test_empty_reductions():
    e = np.zeros((0, 3), np.float32)
    assert run(pycore.sum_async(e)) == 0.0 and type(run(pycore.sum_async(e))) is np.float32
    assert run(pycore.sum_async(np.zeros(0, np.int32))) == 0
    assert run(pycore.sum_async(e, axis=0)).tolist() == [0.0, 0.0, 0.0]
    assert run(pycore.prod_async(e, axis=0)).tolist() == [1.0, 1.0, 1.0]
    assert run(pycore.all_async(np.zeros(0, bool))) == True and run(pycore.any_async([])) == False  # noqa: E712
    assert run(pycore.max_async(e, axis=1)).shape == (0,)  # nothing reduced, nothing to answer
    for name in ("max", "min", "argmax", "argmin"):
        fn = getattr(pycore, f"{name}_async")
        with pytest.raises(ValueError, match=f"{name}: x is empty, and the {name} of no elements is undefi"):
            run(fn(e))
        with pytest.raises(ValueError, match=re.escape(f"{name}: reducing an empty axis of shape (0, 3)")):
            run(fn(e, axis=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy's "Mean of empty slice")
        assert math.isnan(run(pycore.mean_async(e)))


def test_reduction_argument_errors():
    x = np.ones((2, 3, 4), np.float32)
    for axis in (3, -4, (0, 3)):
        bad = axis if isinstance(axis, int) else 3
        with pytest.raises(ValueError, match=f"axis {bad} is out of range for an array of 3 dimension"):
            run(pycore.sum_async(x, axis=axis))
    with pytest.raises(ValueError, match=re.escape("axis 3 is out of range for an array of 3 dimension(s)")):
        run(pycore.argmax_async(x, axis=3))
    with pytest.raises(ValueError, match=r"names an axis twice"):
        run(pycore.max_async(x, axis=(1, -2)))
    with pytest.raises(TypeError, match="axis must be an int, got tuple"):
        run(pycore.argmax_async(x, axis=(0, 1)))
    with pytest.raises(TypeError, match="keepdims must be True or False"):
        run(pycore.sum_async(x, keepdims=1))
    with pytest.raises(ValueError, match="correction must be a finite number >= 0, got -1"):
        run(pycore.var_async(x, correction=-1))
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        run(pycore.sum_async(x, correction=1))
    with pytest.raises(ValueError, match="axis 0 is out of range for a 0-d array"):
        run(pycore.sum_async(np.float32(1.0), axis=0))


def test_reduction_result_types():
    f, i, b = np.ones((2, 3), np.float32), np.ones((2, 3), np.int32), np.ones((2, 3), bool)
    # (a full reduction of host arrays: a NumPy scalar of the result's dtype, as NumPy's own)
    assert type(run(pycore.sum_async(f))) is np.float32 and type(run(pycore.sum_async(i))) is np.int32
    assert type(run(pycore.sum_async(b))) is np.int32 and run(pycore.sum_async(b)) == 6
    assert type(run(pycore.all_async(f))) is np.bool_ and type(run(pycore.argmax_async(f))) is np.int32
    assert type(run(pycore.mean_async(i))) is np.float32 and type(run(pycore.max_async(b))) is np.bool_
    kept = run(pycore.sum_async(f, keepdims=True))
    assert isinstance(kept, np.ndarray) and kept.shape == (1, 1) and kept.dtype == FLOAT32
    assert run(pycore.sum_async(b, axis=0)).dtype == run(pycore.prod_async(b, axis=0)).dtype == INT32
    assert run(pycore.max_async(np.ones((3, 2), np.uint32), axis=0)).dtype == UINT32
    assert type(run(pycore.max_async(np.ones(3, np.uint32), axis=0))) is np.uint32  # every axis: a scalar
    assert run(pycore.var_async(i, axis=1)).dtype == FLOAT32
    assert run(pycore.argmin_async(f, axis=0)).dtype == INT32


@pytest.mark.parametrize("correction", [0, 1, 0.5])
def test_var_and_std_against_float64(correction):
    rng = np.random.default_rng(9)
    x = (rng.standard_normal((64, 33)) * 3 + 1000).astype(np.float32)  # a large mean: stable two passes
    for axis in (None, 0, 1, (0, 1)):
        for name in ("var", "std"):
            got = run(getattr(pycore, f"{name}_async")(x, axis=axis, correction=correction))
            check_reduction(name, got, x, axis, False, correction=correction)


# ---------------------------------------------------------------------- GpuArray on the fallback


def to_gpu(x):
    t = run(pycore.to_gpu_async(x))
    assert isinstance(t, GpuArray) and t.device == "numpy"
    return t


def read(t):
    return run(t.to_numpy_async())


def test_gpu_array_views_match_numpy_views():
    rng = random.Random(4)
    nprng = np.random.default_rng(4)
    for _ in range(150):
        dtype = rng.choice(DTYPES)
        shape = tuple(rng.randint(1, 5) for _ in range(rng.randint(1, 4)))
        x = data(dtype, shape, nprng)
        t, view = to_gpu(x), x
        for _ in range(rng.randint(1, 4)):
            op = rng.random()
            if op < 0.2:
                axes = list(range(view.ndim))
                rng.shuffle(axes)
                t, view = (t.transpose(*axes), view.transpose(axes)) if rng.random() < 0.5 else (
                    t.transpose(axes), view.transpose(axes))
            elif op < 0.3:
                t, view = t.T, view.T
            elif op < 0.4 and view.ndim >= 2:
                t, view = t.mT, np.swapaxes(view, -1, -2)
            elif op < 0.7:
                key = concrete(random_key(rng, view.ndim), view.shape)
                t, view = t[key], view[key]
            elif op < 0.8:
                axis = rng.randint(-view.ndim - 1, view.ndim)
                t, view = t.expand_dims(axis), np.expand_dims(view, axis)
            elif op < 0.85:
                t, view = t.squeeze(), view.squeeze()
            elif op < 0.9:
                target = (3, *view.shape)
                t, view = t.broadcast_to(target), np.broadcast_to(view, target)
            else:
                try:
                    want = view.reshape(-1, copy=False)
                except ValueError:
                    with pytest.raises(ValueError, match=r"needs a copy: `\(await x\.copy_async\(\)\)"):
                        t.reshape(-1)
                    continue
                t, view = t.reshape(-1), want
            assert (t.shape, t.ndim, t.size, t.dtype) == (view.shape, view.ndim, view.size, x.dtype)
            got = read(t)
            assert got.dtype == x.dtype and np.array_equal(got, view, equal_nan=True)


def test_gpu_array_facts_and_copies():
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    t = to_gpu(x)
    assert (t.shape, t.ndim, t.size, t.nbytes, t.strides, len(t)) == ((2, 3, 4), 3, 24, 96, (12, 4, 1), 2)
    v = t.T[::-1, 1:]
    assert v.strides == (-1, 4, 12) and "view" in repr(v) and "device='numpy'" in repr(v)
    c = run(v.copy_async())
    assert c.strides == (4, 2, 1) and c.dtype == INT32 and np.array_equal(read(c), x.T[::-1, 1:])
    for target in ("float32", "uint32", "bool", np.int32):
        a = run(v.astype_async(target))
        assert a.dtype == np.dtype(target) and np.array_equal(read(a), x.T[::-1, 1:].astype(target))
    with pytest.raises(TypeError, match="dtype float64 is not supported on WebGPU"):
        run(t.astype_async("float64"))
    assert run(pycore.to_gpu_async(t)) is t and run(pycore.to_gpu_async(t, "float32")).dtype == FLOAT32
    assert to_gpu([True, False]).dtype == BOOL and to_gpu(np.arange(3, dtype=np.uint8)).dtype == np.uint8
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d GpuArray"):
        len(t[0, 0, 0])


def test_gpu_array_inputs_give_gpu_array_results():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = to_gpu(x)
    for got, want in [(run(pycore.add_async(t.T, np.arange(3, dtype=np.float32))), x.T + np.arange(3)),
                      (run(pycore.less_async(t[:, ::-1], 5)), x[:, ::-1] < 5),
                      (run(pycore.sum_async(t, axis=0)), x.sum(axis=0)),
                      (run(pycore.argmax_async(t.T, axis=1, keepdims=True)),
                       np.argmax(x.T, axis=1, keepdims=True)),
                      (run(pycore.relu_async(t.T[::-1])), np.maximum(x.T[::-1], 0)),
                      (run(pycore.softmax_async(t.T)), run(pycore.softmax_async(np.ascontiguousarray(x.T)))),
                      (run(pycore.matmul_async(t.T, t)), x.T @ x)]:
        assert isinstance(got, GpuArray) and got.device == "numpy"
        np.testing.assert_allclose(read(got), want, rtol=1e-6)
    total = run(pycore.sum_async(t))  # a full reduction: a 0-D GpuArray, where its input is
    assert isinstance(total, GpuArray) and total.shape == () and run(total.to_numpy_async()) == 66.0
    assert isinstance(run(pycore.add_async(x, 1)), np.ndarray)


def test_gpu_arrays_do_not_convert_silently():
    t = to_gpu(np.ones((2, 2), np.float32))
    for convert, what in [(np.asarray, "numpy.asarray()"), (np.array, "numpy.asarray()"),
                          (float, "float()"), (int, "int()"), (bool, "bool()"), (list, "Iterating"),
                          (operator.index, "as an index")]:
        with pytest.raises(TypeError, match=re.escape(what) + r".*await x.to_numpy_async\(\)"):
            convert(t)
    with pytest.raises(TypeError, match="to_numpy_async"):
        np.add(t, 1)


def test_released_arrays_and_their_views_refuse_use():
    t = to_gpu(np.arange(6, dtype=np.float32).reshape(2, 3))
    view = t.T
    inner = view[1:]
    with t:
        pass
    t.release()  # idempotent
    assert "released" in repr(t) and "released" in repr(view)
    for use in (lambda: t[0], lambda: t.T, lambda: read(t), lambda: run(pycore.add_async(t, 1)),
                lambda: run(pycore.sum_async(t)), lambda: run(t.copy_async())):
        with pytest.raises(RuntimeError, match=r"this GpuArray \(2, 3\) was released; its data is gone"):
            use()
    for v in (view, inner):
        for use in (lambda v=v: read(v), lambda v=v: v[0], lambda v=v: run(pycore.max_async(v, axis=0)),
                    lambda v=v: run(pycore.relu_async(v))):
            with pytest.raises(RuntimeError, match=r"the array this view was taken of \(2, 3\) was released"):
                use()
    # a view's release ends the view only
    u = to_gpu(np.arange(4, dtype=np.float32))
    w = u[::-1]
    w.release()
    with pytest.raises(RuntimeError, match="this GpuArray"):
        read(w)
    assert read(u).tolist() == [0, 1, 2, 3]


# ------------------------------------------------------------------- the planners, without a GPU


F32, I32 = FLOAT32, INT32


def test_plan_elementwise_chunks_a_large_output():
    for align, binding in [(256, 4096), (16, 5000), (64, 1 << 12)]:
        facts = Facts(max_binding=binding, offset_align=align)
        reversed_row = Layout.contiguous((77,)).getitem((slice(None, None, -1),))
        operands = [Operand(F32, Layout.contiguous((100, 1))), Operand(F32, reversed_row),
                    Operand(F32, None, np.float32(2))]
        plan = plan_elementwise("add", "add_f32", operands[:2], F32, F32, (100, 77), facts)
        firsts, total = [], 0
        for step in plan.steps:
            count, first = step.words[:2]
            out = step.slots[2]
            assert out.kind == "out" and out.offset == 4 * first and out.size == 4 * count
            assert out.offset % align == 0 and out.size <= binding
            x, y, z = step.grid
            assert x * y * 256 * 4 >= count and z == 1
            firsts.append(first)
            total += count
        assert total == 7700 and firsts == sorted(firsts) and len(plan.steps) > 1
        assert [s.words[2:] for s in plan.steps] == [plan.steps[0].words[2:]] * len(plan.steps)
        assert len({s.kernel.name for s in plan.steps}) == 1
    one = plan_elementwise("add", "add_f32", operands[::2], F32, F32, (100, 1), Facts())
    assert len(one.steps) == 1 and one.steps[0].words[:2] == (100, 0)
    assert one.steps[0].words[-1] == word_of(2.0, F32)  # the scalar rides in the words


def test_heavy_arithmetic_gives_a_thread_eight_elements_all_loaded_first():
    x = [Operand(F32, Layout.contiguous((3000,)))]
    light = plan_elementwise("add", "add_f32", x * 2, F32, F32, (3000,), Facts()).steps[0]
    heavy = plan_elementwise("exp", "exp_f32", x, F32, F32, (3000,), Facts()).steps[0]
    assert light.kernel.name == "strided:add_f32(f32[1],f32[1])->f32" and light.grid[0] == 3  # (1,024 each)
    assert heavy.kernel.name == "strided:exp_f32(f32[1])->f32/8" and heavy.grid[0] == 2  # (2,048 each)
    body = heavy.kernel.source().split("fn strided")[1]
    assert body.count("in0[") == 8 and body.rindex("in0[") < body.index("exp_f32(")  # (loads first)
    assert "(t / WORKGROUP) * (8u * WORKGROUP)" in body and body.count("out[") == 8
    # packed and complex outputs keep their own layout of a thread's elements
    f16 = np.dtype("float16")
    half = plan_elementwise("exp", "exp_f32", [Operand(f16, Layout.contiguous((3000,)))], F32, f16, (3000,),
                            Facts()).steps[0]
    assert not half.kernel.name.endswith("/8") and half.grid[0] == 2
    # chunks of a heavy output cover it exactly
    row = [Operand(F32, Layout.contiguous((77,)))]
    small = Facts(max_binding=4096, offset_align=256)
    plan = plan_elementwise("sin", "sin_f32", row, F32, F32, (100, 77), small)
    counts = [s.words[0] for s in plan.steps]
    assert sum(counts) == 7700 and len(counts) > 1 and all(s.grid[0] * 2048 >= s.words[0] for s in plan.steps)


def test_host_arrays_past_one_binding_split_into_parts_that_fit():
    from pycore.kernels.parts import flat_step, parts, row_step

    rng = random.Random(3)
    for _ in range(200):
        shape = tuple(rng.randint(1, 40) for _ in range(rng.randint(1, 3)))
        limit = rng.choice([4, 64, 1000, 4096, 1 << 20])
        step = row_step(shape, limit)
        row = 4 * math.prod(shape[1:])
        if row > limit:
            assert step is None
            continue
        assert step is not None
        pieces = parts(shape[0], step)
        assert [i for p in pieces for i in range(shape[0])[p]] == list(range(shape[0]))  # all, in order, once
        assert all(4 * (p.stop - p.start) * math.prod(shape[1:]) <= limit for p in pieces)
        assert len(pieces) == -(-shape[0] // step) and (step == shape[0] or 4 * (step + 1) * row // 4 > limit)
    for binding in (4096, 5000, 1 << 27):
        step = flat_step(Facts(max_binding=binding))
        assert step % 1024 == 0 and 4 * step <= max(binding, 4096)
    assert parts(0, 3) == []
    with pytest.raises(ValueError, match="at least one item"):
        parts(5, 0)


def test_plan_elementwise_refuses_an_input_over_one_binding():
    with pytest.raises(ValueError, match=r"add: an input of shape \(2000,\) needs 8,000 bytes in one GPU "
                                         r"binding, over this device's maxStorageBufferBindingSize of "
                                         r"4,096 bytes"):
        plan_elementwise("add", "add_f32", [Operand(F32, Layout.contiguous((2000,)))] * 2, F32, F32, (2000,),
                         Facts(max_binding=4096))


def test_plan_elementwise_collapses_axes():
    grid = Layout.contiguous((4, 6, 8))
    contiguous = plan_elementwise("add", "add_i32", [Operand(I32, grid)] * 2, I32, I32, (4, 6, 8), Facts())
    assert contiguous.steps[0].kernel.name == "strided:add_i32(i32[1],i32[1])->i32"
    transposed = plan_elementwise("add", "add_i32", [Operand(I32, Layout.contiguous((4, 6, 8)).transpose())],
                                  I32, I32, (8, 6, 4), Facts())
    assert transposed.steps[0].kernel.name.endswith("(i32[3])->i32")


def test_grids_stay_within_the_group_limit():
    for n, cap in [(57, 8), (70_000, 65_535), (65_537, 65_535), (64, 8), (1, 8)]:
        x, y, z = grid_for(n, cap)
        assert x <= cap and y <= cap and x * y >= n and z == 1
    with pytest.raises(ValueError, match="65 workgroups exceed the device's 8² grid"):
        grid_for(65, 8)
    plan = plan_elementwise("add", "add_f32", [Operand(F32, Layout.contiguous((400, 1))),
                                               Operand(F32, Layout.contiguous((256,)))], F32, F32, (400, 256),
                            Facts(max_groups=11))
    (step,) = plan.steps
    x, y, _ = step.grid
    assert x <= 11 and y <= 11 and x * y * 1024 >= 400 * 256


def kernel_shape(step):
    ox, ry = re.search(r":(\d+)x(\d+):", step.kernel.name).groups()
    return int(ox), int(ry)


@pytest.mark.parametrize("cpu", [False, True])
def test_plan_reduction_splits_long_reductions_and_combines_the_partials(cpu):
    facts = Facts(cpu_adapter=cpu)
    mean = Combine("sum", F32, 0.0, finish="scale")
    plan = plan_reduction(mean, Layout.contiguous((8192, 64)), (0,), F32, facts, name="mean")
    first, *rest = plan.steps
    n_out, n_red, seg_len = first.words[:3]
    segments = -(-n_red // seg_len)
    assert (n_out, n_red) == (64, 8192) and segments > 1 and rest
    assert first.slots[:2] == (Slot("in", 0), Slot("tmp", 0)) and plan.scratch[0] == 4 * segments * n_out
    assert ":scale" not in first.kernel.name and first.words[6] == 0  # partials are not scaled
    last = plan.steps[-1]
    assert last.slots[1] == Slot("out", 0) and ":scale" in last.kernel.name
    assert last.words[6] == word_of(1 / 8192, F32)  # the scale of the original count
    second = rest[0]
    assert second.slots[0] == Slot("tmp", 0) and second.words[:2] == (64, segments)
    assert plan.outputs[0].shape == (64,)
    blocks = first.words[3]
    x, y, _ = first.grid
    assert x * y >= blocks * segments


def test_short_reductions_take_one_pass():
    plan = plan_reduction(Combine("sum", F32, 0.0), Layout.contiguous((64, 100)), (1,), F32, Facts())
    assert len(plan.steps) == 1 and plan.scratch == () and plan.steps[0].slots[1] == Slot("out", 0)
    row = plan_reduction(Combine("max", I32, -(2**31)), Layout.contiguous((1, 300_000)), (1,), I32, Facts())
    assert len(row.steps) >= 2 and row.outputs[0].shape == (1,)


def test_the_loop_cap_forces_more_segments():
    def segments(step):
        return -(-step.words[1] // step.words[2])

    for cpu, cap in ((True, 100), (False, 1)):
        facts = Facts(cpu_adapter=cpu, loop_cap=cap)
        plan = plan_reduction(Combine("sum", F32, 0.0), Layout.contiguous((1, 100_000)), (1,), F32, facts)
        for step in plan.steps:
            _, ry = kernel_shape(step)
            assert -(-step.words[2] // ry) <= cap, step  # each thread's loop: segment / RY iterations
        assert plan.steps[-1].slots[1] == Slot("out", 0) and len(plan.steps) >= 3
        free = plan_reduction(Combine("sum", F32, 0.0), Layout.contiguous((1, 100_000)), (1,), F32,
                              Facts(cpu_adapter=cpu))
        assert segments(plan.steps[0]) > segments(free.steps[0]) and len(plan.steps) > len(free.steps)


def test_arg_reductions_split_into_partial_values_and_their_indices():
    arg = Combine("argmax", F32, -np.inf, arg=True)
    for facts in (Facts(cpu_adapter=True, loop_cap=100), Facts()):
        plan = plan_reduction(arg, Layout.contiguous((1, 10**6)), (1,), F32, facts)
        first, *rest = plan.steps
        assert len(plan.steps) >= 2 and ">i" in first.kernel.name
        # the first pass writes each segment's value and index to two scratch buffers ...
        assert first.slots == (Slot("in", 0), Slot("tmp", 0), Slot("meta"), Slot("tmp", 1))
        assert first.kernel.bindings == ("read", "write", "uniform", "write")
        n_segments = -(-first.words[1] // first.words[2])
        assert n_segments > 1 and plan.scratch[:2] == (4 * n_segments, 4 * n_segments)
        # ... the passes after it read both, and the last writes the int32 indices
        assert rest[0].slots[0] == Slot("tmp", 0) and rest[0].slots[3] == Slot("tmp", 1)
        assert "+i" in rest[0].kernel.name and rest[-1].slots[1] == Slot("out", 0)
        assert plan.outputs[0].dtype == np.int32
        if facts.loop_cap:
            for step in plan.steps:
                _, ry = kernel_shape(step)
                assert -(-step.words[2] // ry) <= facts.loop_cap
    source = plan_reduction(arg, Layout.contiguous((1, 10**6)), (1,), F32, Facts()).steps[-1].kernel.source()
    assert "idx[u32(off)]" in source and "out_i" not in source
    # many outputs: one pass, four independent (value, index) pairs per thread merged at the end
    (one,) = plan_reduction(arg, Layout.contiguous((8192, 512)), (1,), F32, Facts()).steps
    assert "merge(v, vi, v3, vi3)" in one.kernel.source()


def test_loads_in_flight_and_the_arg_reductions_rising_step():
    # a GPU's plain 32-bit reductions keep eight loads in flight (the kernel's name says /8), a CPU
    # adapter's four
    for dt, combine in ((F32, Combine("sum", F32, 0.0)), (I32, Combine("max", I32, -(2**31)))):
        gpu = plan_reduction(combine, Layout.contiguous((64, 4096)), (1,), dt, Facts())
        cpu = plan_reduction(combine, Layout.contiguous((64, 4096)), (1,), dt, Facts(cpu_adapter=True))
        source = gpu.steps[0].kernel.source()
        assert "/8[" in gpu.steps[0].kernel.name and "let x7 = value(min(r7, r_hi - 1u)" in source
        assert "/8[" not in cpu.steps[0].kernel.name
    # an arg reduction: its four (value, index) pairs start at their first elements' indices and
    # take loads j and j + 4 in turn, each step a plain comparison (indices rise); float values
    # keep NaN in a flag, the thread's first NaN found again after the loop; a pass over partials
    # (indices stored) keeps four loads and the full combine
    arg = Combine("argmax", F32, -np.inf, arg=True)
    (one,) = plan_reduction(arg, Layout.contiguous((8192, 512)), (1,), F32, Facts()).steps
    source = one.kernel.source()
    assert "vi3 = select(0xffffffffu, r_lo + lid.y + 3u * RY, r_lo + lid.y + 3u * RY < r_hi);" in source
    assert "if (x4 > v) { v = x4; vi = i4; }" in source and "if (x7 > v3) { v3 = x7; vi3 = i7; }" in source
    assert "if (is_nan(x)) { v = x; vi = r; break; }" in source
    ints = plan_reduction(Combine("argmin", I32, 2**31 - 1, arg=True), Layout.contiguous((8, 512)), (1,), I32,
                          Facts()).steps[0].kernel.source()
    assert "if (x1 < v1) { v1 = x1; vi1 = i1; }" in ints and "seen" not in ints
    # rows: 64 threads each, four rows a workgroup (a GPU's; a CPU adapter's a thread a row)
    assert one.kernel.name.endswith(":4x64:i32")
    assert plan_reduction(arg, Layout.contiguous((8192, 512)), (1,), F32, Facts(cpu_adapter=True)
                          ).steps[0].kernel.name.endswith(":64x1:i32")
    few = plan_reduction(arg, Layout.contiguous((2, 4096)), (1,), F32, Facts())
    assert ":1x256:" in few.steps[0].kernel.name  # (too few rows to fill a workgroup)
    first, second = plan_reduction(arg, Layout.contiguous((1, 10**6)), (1,), F32, Facts()).steps
    assert "/8" in first.kernel.name and "if (x0 > v) { v = x0; vi = i0; }" in first.kernel.source()
    assert "/8" not in second.kernel.name and "argmax_f32(v, vi, x0, i0)" in second.kernel.source()


def test_a_pass_over_partials_is_not_split_again():
    # 16M elements to one value in 1024 segments (WHOLE_GROUPS; an arg reduction's ARG_GROUPS): their
    # partials are reduced by one workgroup (two passes, not three), unless the loop cap asks for more
    for c, segments in ((Combine("sum", F32, 0.0), 1024), (Combine("argmin", F32, np.inf, arg=True), 1024)):
        plan = plan_reduction(c, Layout.contiguous((4096, 4096)), (0, 1), F32, Facts())
        assert [s.grid for s in plan.steps] == [(segments, 1, 1), (1, 1, 1)]
        capped = plan_reduction(c, Layout.contiguous((4096, 4096)), (0, 1), F32, Facts(loop_cap=2))
        assert len(capped.steps) > 2


def test_plan_reduction_of_views_and_centered_passes():
    lay = Layout.contiguous((6, 4, 10)).transpose((2, 0, 1)).getitem((slice(None, None, -2),))
    centered = Combine("sum", F32, 0.0, finish="scale", centered=True, correction=1.0)
    plan = plan_reduction(centered, lay, (0, 2), F32, Facts())
    (step,) = plan.steps
    assert step.slots == (Slot("in", 0), Slot("out", 0), Slot("meta"), Slot("in", 1))
    assert step.words[:2] == (6, 20) and step.words[4] == lay.offset
    assert step.words[6] == word_of(1 / 19, F32)  # 1 / (N - correction)
    assert plan.outputs[0].shape == (6,)
    with pytest.raises(ValueError, match="nothing to reduce on the GPU"):
        plan_reduction(Combine("sum", F32, 0.0), Layout.contiguous((0, 3)), (0,), F32, Facts())
