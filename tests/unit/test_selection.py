"""The selection, indexing and cumulative functions (pycore/calls/selection.py) under CPython:
against NumPy and array_api_strict on the same inputs, bad input, host-held GpuArrays, and the
planners (pycore/kernels/gather.py, pycore/kernels/scan.py) without a GPU: their words, variants
and refusals. tests/e2e/test_selection.py runs the kernels."""

from __future__ import annotations

import re

import array_api_strict as xp
import numpy as np
import pytest

import pycore
from pycore.array.layout import Layout
from pycore.calls.selection import SELPUBLIC
from pycore.kernels.gather import View, plan_select
from pycore.kernels.plan import Facts
from pycore.kernels.scan import BLOCK, plan_scan, uses_serial
from tests.unit.test_namespace import DTS, call, data, host, same, strict

F32, I32 = np.dtype("float32"), np.dtype("int32")


@pytest.mark.parametrize("dt", DTS)
def test_where_clip_and_the_takes_match_numpy_and_the_standard(dt):
    x = data(dt, (3, 4, 5))
    cond = data("bool", (4, 1))
    other = data(dt, (5,))
    assert same(call("where", cond, x, other), np.where(cond, x, other))
    assert same(call("where", cond, x, other), host(xp.where(strict(cond), strict(x), strict(other))))
    scalar = {"float32": 2.5, "int32": -2, "uint32": 3, "bool": True}[dt]
    assert same(call("where", cond, scalar, x), host(xp.where(strict(cond), scalar, strict(x))))
    if dt != "bool":
        lo, hi = (1, 6) if dt != "float32" else (-1.5, 2.5)
        assert same(call("clip", x, lo, hi), host(xp.clip(strict(x), lo, hi)))
        assert same(call("clip", x, max=hi), host(xp.clip(strict(x), max=hi)))
        bound = data(dt, (4, 1))
        assert same(call("clip", x, bound), host(xp.clip(strict(x), strict(bound))))
        assert same(call("clip", x), x)
    for axis in range(3):
        n = x.shape[axis]
        idx = rng_indices(n, (6,))
        assert same(call("take", x, idx, axis=axis), host(xp.take(strict(x), strict(idx), axis=axis)))
        along = rng_indices(n, tuple(2 if d == axis else m for d, m in enumerate(x.shape)))
        assert same(
            call("take_along_axis", x, along, axis=axis),
            host(xp.take_along_axis(strict(x), strict(along), axis=axis)),
        )
    assert same(
        call("take", x[0, 0], np.array([[0, -1], [2, 2]], np.int32)), np.take(x[0, 0], [[0, -1], [2, 2]])
    )


def rng_indices(n: int, shape: tuple[int, ...]) -> np.ndarray:
    return np.random.default_rng(n).integers(-n, n, shape).astype(np.int32)


def test_clip_follows_the_standard_special_cases():
    x = np.array([np.nan, -1.0, 0.5, 3.0], np.float32)
    assert same(call("clip", x, 0.0, 1.0), np.array([np.nan, 0, 0.5, 1], np.float32))
    lo = np.array([0.0, np.nan, 0.0, 0.0], np.float32)
    assert same(call("clip", x, lo, 1.0), np.array([np.nan, np.nan, 0.5, 1], np.float32))
    assert same(call("clip", x, float("nan")), np.full(4, np.nan, np.float32))  # (NaN bounds give NaN)
    assert same(call("clip", np.array([1, 5], np.uint32), -3, 2**40), np.array([1, 5], np.uint32))
    assert same(
        call("clip", x, np.array([2.0], np.float32), np.array([1.0], np.float32)),
        np.array([np.nan, 1, 1, 1], np.float32),
    )  # (min > max: max, as NumPy)
    assert call("clip", x[None], np.zeros((2, 1), np.float32)).shape == (2, 4)  # (bounds broadcast)


@pytest.mark.parametrize("dt", ["float32", "int32", "uint32"])
def test_cumulative_functions_diff_and_count_nonzero_match(dt):
    x = data(dt, (3, 7))
    for fn in ("cumulative_sum", "cumulative_prod"):
        for axis in (0, 1, -1):
            for incl in (False, True):
                got = call(fn, x, axis=axis, include_initial=incl)
                want = host(getattr(xp, fn)(strict(x), axis=axis, include_initial=incl))
                assert got.dtype == x.dtype and np.array_equal(got, want.astype(x.dtype)), (fn, axis, incl)
        assert same(call(fn, x[0], dtype="float32"), getattr(np, fn)(x[0], dtype=np.float32))
        assert call(fn, x[0, 0]).shape == (1,)  # (a 0-d x, as the flattened array)
    big = np.array([2**31 - 1, 1], np.int32)
    assert same(call("cumulative_sum", big), np.array([2**31 - 1, -(2**31)], np.int32))  # (integers wrap)
    for axis in (0, 1):
        for n in (0, 1, 2, 5):
            assert same(call("diff", x, axis=axis, n=n), np.diff(x, n, axis=axis)), (axis, n)
    assert same(
        call("diff", x, prepend=x[:, :1], append=x[:, :2]), np.diff(x, prepend=x[:, :1], append=x[:, :2])
    )
    assert same(call("diff", x, axis=0, prepend=1), np.diff(x, axis=0, prepend=x.dtype.type(1)))
    x[0] = 0
    assert call("count_nonzero", x) == np.count_nonzero(x)
    for axis in (0, 1, (0, 1)):
        got = call("count_nonzero", x, axis=axis, keepdims=True)
        assert same(got, host(xp.count_nonzero(strict(x), axis=axis, keepdims=True)).astype(np.int32))
    assert call("count_nonzero", np.array([np.nan, -0.0, 0.0], np.float32)) == 1


@pytest.mark.parametrize(
    "call_, error, match",
    [
        (
            lambda: call("where", np.array([1, 0], np.int32), 1.0, 2.0),
            TypeError,
            "condition must have the bool",
        ),
        (lambda: call("where", np.array([True]), 1, 2), TypeError, "both Python scalars"),
        (lambda: call("where", np.ones(2, bool), np.ones(3, np.float32), 0), ValueError, "where: shapes"),
        (lambda: call("clip", np.ones(2, np.int32), 1.5), TypeError, "min must be an integer"),
        (lambda: call("clip", np.ones(2, bool), 0), TypeError, "numeric dtype, got bool"),
        (
            lambda: call("clip", np.ones(2, np.float32), 2.0, 1.0),
            ValueError,
            r"min \(2.0\) is greater than max",
        ),
        (
            lambda: call("clip", np.ones(2, np.float32), np.ones(2, np.int32)),
            TypeError,
            "does not match x's dtype",
        ),
        (
            lambda: call("take", np.ones(3, np.float32), np.array([3], np.int32)),
            IndexError,
            "index 3 is out of bounds for axis 0 with size 3",
        ),
        (lambda: call("take", np.ones(3, np.float32), np.array([-4], np.int32)), IndexError, "index -4"),
        (
            lambda: call("take", np.ones(3, np.float32), np.array([1.0], np.float32)),
            TypeError,
            "integer dtype",
        ),
        (
            lambda: call("take", np.ones((2, 3), np.float32), np.array([1], np.int32)),
            ValueError,
            "axis must be given",
        ),
        (lambda: call("take", np.ones(3, np.float32), np.array([1], np.int32), axis=1), ValueError, "axis"),
        (
            lambda: call("take_along_axis", np.ones((2, 3), np.float32), np.zeros(2, np.int32)),
            ValueError,
            "indices must have x's 2 dimensions",
        ),
        (
            lambda: call("take_along_axis", np.ones((2, 3), np.float32), np.zeros((3, 1), np.int32)),
            ValueError,
            "do not broadcast",
        ),
        (
            lambda: call("take_along_axis", np.ones((2, 3), np.float32), np.full((2, 1), 3, np.int32)),
            IndexError,
            "out of bounds",
        ),
        (lambda: call("cumulative_sum", np.ones((2, 3), np.float32)), ValueError, "axis must be given"),
        (lambda: call("cumulative_sum", np.ones(3, bool)), TypeError, "numeric dtype, got bool"),
        (
            lambda: call("cumulative_prod", np.ones(3, np.int32), dtype="bool"),
            TypeError,
            "dtype must be a numeric",
        ),
        (
            lambda: call("cumulative_sum", np.ones(3, np.int32), include_initial=1),
            TypeError,
            "include_initial",
        ),
        (lambda: call("cumulative_sum", np.ones(3, np.int32), axis=1), ValueError, "axis"),
        (lambda: call("diff", np.ones(3, bool)), TypeError, "numeric dtype, got bool"),
        (lambda: call("diff", np.float32(1)), ValueError, "at least 1 dimension"),
        (lambda: call("diff", np.ones(3, np.int32), n=-1), ValueError, "n must be >= 0"),
        (lambda: call("count_nonzero", np.ones(3, np.int32), keepdims=1), TypeError, "keepdims"),
        (lambda: call("count_nonzero", np.ones(3, np.int32), axis=2), ValueError, "axis"),
    ],
)
def test_bad_input_raises_the_standard_s_errors(call_, error, match):
    with pytest.raises(error, match=match):
        call_()


def test_the_strict_namespace_raises_alike():
    """The bad inputs above that the reference implementation refuses too, with the same types."""
    one = xp.asarray([1, 2, 3], dtype=xp.int32)
    for fn, err in [
        (lambda: xp.where(one, one, one), TypeError),
        (lambda: xp.clip(one, 1.5), TypeError),
        (lambda: xp.take(one, xp.asarray([5])), IndexError),
        (lambda: xp.cumulative_sum(xp.reshape(one, (1, 3))), ValueError),
        (lambda: xp.diff(xp.asarray([True])), TypeError),
    ]:
        with pytest.raises(err):
            fn()


def test_host_held_gpuarrays_give_gpuarrays_and_every_function_is_public():
    import doctest

    x = run_host(np.array([[3, 1, 2]], np.int32))
    got = call("cumulative_sum", x, axis=1)
    assert isinstance(got, pycore.GpuArray) and same(run_np(got), np.array([[3, 4, 6]], np.int32))
    assert isinstance(call("where", np.array([True]), x, 0), pycore.GpuArray)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for name, fn in SELPUBLIC.items():
        assert name in pycore.__all__ and getattr(pycore, name) is fn, name
        tests = doctest.DocTestFinder().find(fn, name, globs={})
        assert tests and tests[0].examples, f"{name} has no example"
        for test in tests:
            runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def run_host(x: np.ndarray) -> pycore.GpuArray:
    from tests.unit.test_cpython_api import run

    return run(pycore.to_gpu_async(x))


def run_np(x: pycore.GpuArray) -> np.ndarray:
    from tests.unit.test_cpython_api import run

    return run(x.to_numpy_async())


def test_the_old_clip_call_and_the_batch_s_clip_still_work():
    assert same(call("clip", [-2.0, 0.5, 3.0], 0.0, 1.0), np.array([0, 0.5, 1], np.float32))
    from tests.unit.test_cpython_api import run

    async def batched():
        b = pycore.CommandBatch()
        h = b.clip(b.upload(np.array([-2.0, 0.5, 3.0], np.float32)), 0.0, 1.0)
        await b.execute_async()
        return await b.read_async(h)

    assert same(run(batched()), np.array([0, 0.5, 1], np.float32))
    with pytest.raises(ValueError, match="greater than max"):
        pycore.CommandBatch().clip(np.ones(2, np.float32), 1.0, 0.0)


# ---------------------------------------------------------------- the planners


def test_select_plans_collapse_and_carry_the_gather_axis():
    shape = (4, 6)
    p = plan_select(
        "where",
        [
            View(Layout(shape, (6, 1)), np.dtype(bool)),
            View(Layout(shape, (0, 1), 3), F32),
            View(Layout(shape, (0, 0)), F32),
        ],
        shape,
        F32,
        Facts(),
    )
    assert p.steps[0].words == (24, 4, 6, 0, 6, 1, 3, 0, 1, 0, 0, 0)
    assert p.steps[0].kernel.bindings == ("read", "read", "read", "write", "uniform")
    source = p.steps[0].kernel.source()
    assert "fn gather(" in source and "select(" in source
    g = plan_select(
        "gather",
        [View(Layout((2, 3), (5, 0), 1), I32), View(Layout((2, 3), (0, 1)), I32)],
        (2, 3),
        I32,
        Facts(),
        axis=(5, 1),
    )
    assert g.steps[0].words[-2:] == (5, 1) and "clamp(j, 0," in g.steps[0].kernel.source()
    with pytest.raises(ValueError, match="axis of length 0"):
        plan_select(
            "gather",
            [View(Layout((2,), (0,)), I32), View(Layout((2,), (1,)), I32)],
            (2,),
            I32,
            Facts(),
            axis=(0, 1),
        )
    with pytest.raises(ValueError, match=re.escape("needs 4,096 bytes")):
        plan_select("gather", [View(Layout.contiguous((1024,)), F32), View(Layout.contiguous((1024,)), I32)],
                    (1024,), F32, Facts(max_binding=1024), axis=(1, 1))
    with pytest.raises(ValueError, match="unknown mode"):
        plan_select("scatter", [], (2,), F32, Facts())


def test_scan_plans_pick_a_variant_and_size_the_block_totals():
    f = Facts()
    n = 3 * BLOCK + 5
    p = plan_scan("sum", Layout.contiguous((2, n)), 1, I32, F32, True, f)
    assert [s.kernel.entry for s in p.steps] == ["scan_reduce", "scan_carry", "scan_down"]
    # (the block totals of 2 rows of 4 blocks, then their prefixes; one chunk of totals per row)
    assert p.scratch == (8 * 2 * 4,) and p.outputs[0].shape == (2, n + 1) and p.outputs[0].dtype == F32
    assert p.steps[0].words[:8] == (2, n, 0, 1, 1, 1, 4, 1) and p.steps[1].grid == (2, 1, 1)
    long = plan_scan("sum", Layout.contiguous((3, BLOCK * BLOCK + 1)), 1, F32, F32, False, f)  # (2 chunks)
    assert long.steps[0].words[6:8] == (BLOCK + 1, 2) and long.steps[1].grid == (3 * 2, 1, 1)
    assert "f32(src[u32(k)])" in p.steps[0].kernel.source()  # (int32 read as float32)
    one = plan_scan("prod", Layout.contiguous((3, 102)), 1, F32, F32, False, f)
    assert [s.kernel.entry for s in one.steps] == ["scan_down"] and one.steps[0].grid == (3, 1, 1)
    # rows of whole vec4s, one dtype of 32 bits in and out: the block passes read and write vec4s
    v4 = plan_scan("sum", Layout.contiguous((3, 2 * BLOCK)), 1, I32, I32, False, f)
    assert [s.kernel.entry for s in v4.steps] == ["scan_reduce4", "scan_carry", "scan_down4"]
    assert [s.kernel.entry for s in plan_scan("prod", Layout.contiguous((3, 100)), 1, F32, F32, False,
                                              f).steps] == ["scan_down4"]
    scalar = [
        plan_scan("sum", Layout.contiguous((3, 2 * BLOCK)), 1, I32, F32, False, f),  # (int32 -> float32)
        plan_scan("sum", Layout.contiguous((3, 2 * BLOCK)), 1, F32, F32, True, f),  # (the identity first)
        plan_scan("sum", Layout((3, 2 * BLOCK), (2 * BLOCK, 1), 2), 1, F32, F32, False, f),  # (offset 2)
        plan_scan("sum", Layout((3, 2 * BLOCK), (2 * BLOCK + 2, 1), 0), 1, F32, F32, False, f),  # (rows)
        plan_scan("sum", Layout((2 * BLOCK, 40), (1, 2 * BLOCK)), 0, F32, F32, False, f),  # (axis not last)
        plan_scan("sum", Layout.contiguous((3, 2 * BLOCK)), 1, F32, F32, False, f, vector=False),
    ]
    assert all(p.steps[-1].kernel.entry == "scan_down" for p in scalar)
    side = plan_scan("sum", Layout.contiguous((100, 5000)), 0, F32, F32, False, f)
    assert [s.kernel.entry for s in side.steps] == ["scan_serial"]  # (rows side by side)
    assert uses_serial(Facts(cpu_adapter=True), 100, 1000, 1) and not uses_serial(
        Facts(loop_cap=100), 1, 200, 7
    )
    with pytest.raises(ValueError, match="nothing to scan"):
        plan_scan("sum", Layout.contiguous((0, 3)), 1, F32, F32, False, f)
    with pytest.raises(ValueError, match="unknown op"):
        plan_scan("max", Layout.contiguous((3,)), 0, F32, F32, False, f)
