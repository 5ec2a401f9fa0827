"""The sorting and set functions (pycore/calls/sorting.py) on host arrays against NumPy and the
Array API's reference namespace (array_api_strict), their bad input, the sort planner's plans
(pycore/kernels/sort.py) and a model of its kernels' keys. The kernels themselves run in
tests/e2e/test_sorting.py."""

from __future__ import annotations

import asyncio
import doctest
import importlib

import array_api_strict as xp
import numpy as np
import pytest

import pycore
from pycore.array.layout import Layout
from pycore.calls.sorting import _numpy_argsort
from pycore.kernels.plan import Facts
from pycore.kernels.sort import BITONIC_MAX, TILE, plan_search, plan_sort, sort_keys
from tests.unit.test_cpython_api import in_thread

RNG = np.random.default_rng(7)


def run(coro):
    return in_thread(asyncio.run, coro)


def tied(dt: str, shape) -> np.ndarray:
    """Values with many ties (and NaN, -0.0 for float32)."""
    if dt == "float32":
        x = RNG.integers(-3, 4, shape).astype(np.float32)
        x[RNG.random(shape) < 0.2] = np.nan
        x[RNG.random(shape) < 0.2] = -0.0
        return x
    if dt == "int32":
        return RNG.integers(-3, 4, shape).astype(np.int32)
    if dt == "uint32":
        return RNG.integers(0, 4, shape).astype(np.uint32)
    return RNG.random(shape) < 0.5


@pytest.mark.parametrize("dt", ["float32", "int32", "uint32"])
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_sort_and_argsort_match_array_api_strict(dt, descending, axis):
    x = tied(dt, (37, 41))
    ref = xp.asarray(x)
    got = run(pycore.argsort_async(x, axis=axis, descending=descending))
    want = np.asarray(xp.argsort(ref, axis=axis, descending=descending, stable=True))
    assert got.dtype == np.int32 and np.array_equal(got, want)
    values = run(pycore.sort_async(x, axis=axis, descending=descending))
    assert values.dtype == x.dtype
    assert np.array_equal(values, np.asarray(xp.sort(ref, axis=axis, descending=descending)), equal_nan=True)


def test_sort_is_stable_for_zeros_of_either_sign_and_nan_payloads():
    x = np.array([0.0, -0.0, 1.0, -0.0, 0.0], np.float32)
    got = run(pycore.sort_async(x))
    assert np.array_equal(np.signbit(got), [False, True, True, False, False])
    got = run(pycore.sort_async(x, descending=True))
    assert got[0] == 1.0 and np.array_equal(np.signbit(got[1:]), [False, True, True, False])
    nans = np.array([1, 2, 3], np.uint32) | np.uint32(0x7FC00000)
    bits = np.concatenate([nans, [np.float32(5.0).view(np.uint32)], nans | np.uint32(0x80000000)])
    x = bits.astype(np.uint32).view(np.float32)
    got = run(pycore.sort_async(x))
    assert got[0] == 5.0 and np.array_equal(got[1:].view(np.uint32), x[[0, 1, 2, 4, 5, 6]].view(np.uint32))


def test_bool_and_empty_and_one_element():
    x = tied("bool", (3, 50))
    assert np.array_equal(run(pycore.argsort_async(x)), np.argsort(x, axis=-1, kind="stable"))
    assert np.array_equal(run(pycore.sort_async(x, descending=True)), np.sort(x)[:, ::-1])
    for shape in [(0,), (3, 0), (0, 4)]:
        got = run(pycore.argsort_async(np.zeros(shape, np.float32)))
        assert got.shape == shape and got.dtype == np.int32
    assert run(pycore.sort_async(np.array([2.5], np.float32))).tolist() == [2.5]


@pytest.mark.parametrize("call, error, match", [
    ("pycore.sort_async(np.float32(1.0))", ValueError, "at least one dimension"),
    ("pycore.sort_async(np.zeros(3, np.float32), axis=1)", ValueError, "axis 1 is out of range"),
    ("pycore.argsort_async(np.zeros(3, np.float32), axis=0.5)", TypeError, "axis must be an int"),
    ("pycore.sort_async(np.zeros(3, np.float32), descending=1)", TypeError, "descending must be a bool"),
    ("pycore.sort_async(np.zeros(3, np.float32), stable=None)", TypeError, "stable must be a bool"),
    ("pycore.searchsorted_async(np.zeros((2, 2), np.float32), 1.0)", ValueError, "x1 must be one-dim"),
    ("pycore.searchsorted_async(np.zeros(3, np.float32), 1.0, side='middle')", ValueError, "side must be"),
    ("pycore.searchsorted_async(np.zeros(3, np.float32), 1.0, sorter=np.zeros(2, np.int32))", ValueError,
     "sorter must be"),
    ("pycore.nonzero_async(np.int32(3))", ValueError, "nonzero: x must have at least one dimension"),
    ("pycore.isin_async(np.zeros(3, np.int32), np.zeros(2, np.int32), invert=1)", TypeError,
     "invert must be a bool"),
])
def test_bad_input_is_named(call, error, match):
    with pytest.raises(error, match=match):
        run(eval(call, {"pycore": pycore, "np": np}))


@pytest.mark.parametrize("dt", ["float32", "int32", "uint32", "bool"])
def test_nonzero_and_isin_match_numpy_and_the_standard(dt):
    for shape in [(7,), (4, 6), (2, 3, 5), (0, 3)]:
        x = tied(dt, shape)
        got = run(pycore.nonzero_async(x))
        want = np.nonzero(x)
        assert len(got) == len(want) and all(g.dtype == np.int32 for g in got)
        assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))
        if dt != "float32" or not np.isnan(x).any():
            strict = xp.nonzero(xp.asarray(x))
            assert all(np.array_equal(g, np.asarray(w)) for g, w in zip(got, strict, strict=True))
        pool = tied(dt, (9,))
        for invert in (False, True):
            got = run(pycore.isin_async(x, pool, invert=invert))
            assert got.dtype == np.bool_ and np.array_equal(got, np.isin(x, pool, invert=invert))
            if dt in ("int32", "uint32") and not invert:  # (the standard's isin takes integers;
                strict = xp.isin(xp.asarray(x), xp.asarray(pool))  # array-api-strict 2.6.1 ignores invert)
                assert np.array_equal(got, np.asarray(strict))
    none = run(pycore.isin_async(np.array([1, 2], np.int32), np.zeros(0, np.int32)))
    assert none.tolist() == [False, False]


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_matches_numpy(side):
    x1 = np.sort(tied("float32", 200))
    x2 = tied("float32", (7, 9))
    got = run(pycore.searchsorted_async(x1, x2, side=side))
    assert got.dtype == np.int32 and np.array_equal(got, np.searchsorted(x1, x2, side=side))
    ref = np.asarray(xp.searchsorted(xp.asarray(x1), xp.asarray(x2), side=side))
    assert np.array_equal(got, ref)
    raw = tied("int32", 50)
    sorter = np.argsort(raw, kind="stable").astype(np.int32)
    got = run(pycore.searchsorted_async(raw, np.array([-3, 0, 9], np.int32), side=side, sorter=sorter))
    assert np.array_equal(got, np.searchsorted(raw, [-3, 0, 9], side=side, sorter=sorter))


@pytest.mark.parametrize("dt", ["float32", "int32", "bool"])
def test_unique_functions_match_array_api_strict(dt):
    x = tied(dt, (13, 11))
    ref = xp.asarray(x)
    values = run(pycore.unique_values_async(x))
    assert np.array_equal(values, np.asarray(xp.unique_values(ref)), equal_nan=True)
    counts = run(pycore.unique_counts_async(x))
    want = xp.unique_counts(ref)
    assert np.array_equal(counts.values, np.asarray(want.values), equal_nan=True)
    assert counts.counts.dtype == np.int32 and np.array_equal(counts.counts, np.asarray(want.counts))
    inverse = run(pycore.unique_inverse_async(x))
    assert inverse.inverse_indices.shape == x.shape
    assert np.array_equal(inverse.values[inverse.inverse_indices], x, equal_nan=True)
    every = run(pycore.unique_all_async(x))
    strict = xp.unique_all(ref)
    for name in ("values", "indices", "inverse_indices", "counts"):
        assert np.array_equal(getattr(every, name), np.asarray(getattr(strict, name)), equal_nan=True), name
    if dt == "float32":  # each NaN is a value of its own; -0.0 and 0.0 are one
        assert np.isnan(values).sum() == np.isnan(x).sum() and (values == 0).sum() == (0 in x)


def test_unique_of_empty_input():
    got = run(pycore.unique_all_async(np.zeros((0, 3), np.float32)))
    assert got.values.shape == (0,) and got.inverse_indices.shape == (0, 3) and got.counts.dtype == np.int32


def test_kernel_keys_order_as_numpy_does():
    """The model of the kernels' keys: a stable sort of the keys (all bits flipped: descending) is
    the stable argsort, NaN last (first), -0.0 equal to 0.0; each dtype."""
    for dt in ["float32", "int32", "uint32", "bool"]:
        x = tied(dt, 500) if dt != "int32" else RNG.integers(-2**31, 2**31 - 1, 500, dtype=np.int64).astype(
            np.int32)
        bits = np.asarray(x).astype(np.uint32) if dt == "bool" else x.view(np.uint32)
        keys = sort_keys(bits, np.dtype(dt))
        for desc in (False, True):
            k = ~keys if desc else keys
            assert np.array_equal(np.argsort(k, kind="stable"), _numpy_argsort(x, 0, desc)), (dt, desc)


def test_sort_plans():
    f32 = np.dtype("float32")
    short = plan_sort(Layout.contiguous((5, 7, BITONIC_MAX)), 1, f32, Facts())
    assert [s.kernel.entry for s in short.steps] == ["bitonic"] and short.steps[0].words[2] == 8
    assert short.steps[0].grid == (5 * BITONIC_MAX, 1, 1) and not short.scratch
    n = 3 * TILE + 5
    long = plan_sort(Layout.contiguous((n, 2)), 0, f32, Facts(), indices=True)
    entries = [s.kernel.entry for s in long.steps]
    assert entries == ["histogram", "scan", "scatter"] * 4
    assert long.scratch == (4 * 2 * 256 * 4, 8 * n, 8 * n, 8 * n, 8 * n)
    assert [s.words[3] for s in long.steps[::3]] == [0, 8, 16, 24]
    assert long.steps[0].grid == (8, 1, 1) and long.outputs[0].dtype == np.int32
    one = plan_sort(Layout.contiguous((n,)), 0, np.dtype(bool), Facts())
    assert len(one.steps) == 3 and one.scratch == (4 * 256 * 4,)
    down = plan_sort(Layout.contiguous((5000,)), 0, f32, Facts(), descending=True)
    assert down.steps[0].words[4] == 0xFFFFFFFF
    with pytest.raises(ValueError, match="maxStorageBufferBindingSize"):
        plan_sort(Layout.contiguous((1 << 20,)), 0, f32, Facts(max_binding=1 << 20))
    flipped = Layout.contiguous((4, 3000)).getitem((slice(None), slice(None, None, -1)))
    p = plan_sort(flipped, 1, f32, Facts())
    assert p.steps[0].words[5:7] == (2999, 0xFFFFFFFF)
    with pytest.raises(ValueError, match="side must be"):
        plan_search(Layout.contiguous((3,)), Layout.contiguous((2,)), f32, "up", Facts())


def test_kernel_sources_fill_every_placeholder():
    p = plan_sort(Layout.contiguous((3, 5000)), 1, np.dtype("int32"), Facts(), indices=True)
    q = plan_search(Layout.contiguous((9,)), Layout.contiguous((2,)), np.dtype("float32"), "left", Facts(),
                    Layout.contiguous((9,)))
    for kernel in [*p.kernels(), *q.kernels()]:
        text = kernel.source()
        assert "{{" not in text and text.count("@compute") == 1 and f"fn {kernel.entry}(" in text


@pytest.mark.parametrize("module", ["pycore.calls.sorting", "pycore.kernels.sort"])
def test_docstring_examples_run(module):
    mod = importlib.import_module(module)
    result = in_thread(lambda: doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE))
    assert result.failed == 0 and result.attempted > 0
