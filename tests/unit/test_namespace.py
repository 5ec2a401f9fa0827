"""The Array API namespace (pycore/calls/creation.py, manipulation.py, datatypes.py) under CPython:
every function against NumPy and against array_api_strict on the same inputs, bad input, host-held
GpuArrays, and the placing planner (pycore/kernels/place.py) without a GPU: its words, and its plans
run by a Python model of shaders/place.wgsl (in place of calls/placing.py's placed_async), on the
regions each function makes (as a GpuArray input would)."""

from __future__ import annotations

import re
import warnings

import array_api_strict as xp
import numpy as np
import pytest

import pycore
from pycore.array.layout import Layout
from pycore.calls import creation, namespace, placing
from pycore.calls.gpuarray import GpuArray
from pycore.kernels.place import Part, plan_place
from pycore.kernels.plan import Facts, Step
from tests.unit.test_cpython_api import run

DTS = ["float32", "int32", "uint32", "bool"]
rng = np.random.default_rng(5)


def data(dt: str, shape: tuple[int, ...]) -> np.ndarray:
    if dt == "float32":
        return (rng.standard_normal(shape) * 4).astype(np.float32)
    if dt == "int32":
        return rng.integers(-9, 10, shape).astype(np.int32)
    if dt == "uint32":
        return rng.integers(0, 12, shape).astype(np.uint32)
    return rng.random(shape) < 0.5


def same(got, want) -> bool:
    got, want = np.asarray(got), np.asarray(want)
    return got.shape == want.shape and got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True)


def strict(x: np.ndarray):
    return xp.asarray(x)


def host(a) -> np.ndarray:
    return np.asarray(a._array if hasattr(a, "_array") else a)


def call(name: str, *args, **kwargs):
    return run(getattr(pycore, f"{name}_async")(*args, **kwargs))


# ---------------------------------------------------------------- against NumPy and array_api_strict

SHAPES = [(5,), (3, 4), (2, 3, 4), (0, 3)]


@pytest.mark.parametrize("dt", DTS)
def test_creation_matches_numpy_and_the_standard(dt):
    d, sd = np.dtype(dt), getattr(xp, dt)
    fill = {"float32": 2.5, "int32": -3, "uint32": 7, "bool": True}[dt]
    for shape in [(), (3,), (2, 3), (0, 4)]:
        assert same(call("zeros", shape, dtype=d), host(xp.zeros(shape, dtype=sd)))
        assert same(call("ones", shape, dtype=d), host(xp.ones(shape, dtype=sd)))
        assert call("empty", shape, dtype=d).shape == shape
        assert same(call("full", shape, fill, dtype=d), host(xp.full(shape, fill, dtype=sd)))
        x = data(dt, shape)
        for like in ("zeros_like", "ones_like"):
            assert same(call(like, x), host(getattr(xp, like)(strict(x))))
        assert same(call("full_like", x, fill), host(xp.full_like(strict(x), fill)))
        assert call("empty_like", x).dtype == d
    for n, m, k in [(3, None, 0), (2, 4, 1), (4, 3, -2), (3, 3, 5), (0, 2, 0)]:
        assert same(call("eye", n, m, k=k, dtype=d), host(xp.eye(n, m, k=k, dtype=sd)))
    for k in (-1, 0, 2):
        for shape in [(3, 4), (2, 4, 3)]:
            x = data(dt, shape)
            assert same(call("tril", x, k=k), host(xp.tril(strict(x), k=k)))
            assert same(call("triu", x, k=k), host(xp.triu(strict(x), k=k)))


def test_default_dtypes_of_creation():
    assert call("zeros", 2).dtype == np.float32 and call("eye", 2).dtype == np.float32
    assert call("full", 2, 1).dtype == np.int32 and call("full", 2, 1.0).dtype == np.float32
    assert call("full", 2, True).dtype == np.bool_
    assert call("arange", 3).dtype == np.int32 and call("arange", 3.0).dtype == np.float32
    assert call("linspace", 0, 1, 3).dtype == np.float32
    assert call("asarray", [1, 2]).dtype == np.int32 and call("asarray", 2.5).dtype == np.float32


def test_arange_and_linspace_match_numpy():
    for args in [(5,), (2, 11, 3), (10, 0, -3), (-4, 4), (0.5, 3.0, 0.25), (1, 0.1, -0.3), (3, 3),
                 (0, 1, 0.1)]:
        want = np.arange(*args, dtype=np.float32 if any(isinstance(a, float) for a in args) else np.int32)
        assert same(call("arange", *args), want), args
    assert same(call("arange", 5, 0, -1, dtype="uint32"), np.arange(5, 0, -1).astype(np.uint32))
    assert same(call("arange", 3, dtype="float32"), np.arange(3, dtype=np.float32))
    for start, stop, num, endpoint in [(0, 1, 5, True), (0, 1, 5, False), (-2.5, 7, 11, True),
                                       (3, 3, 1, True),
                                       (1, 2, 0, True), (0, 10, 1, False)]:
        want = np.linspace(start, stop, num, endpoint=endpoint, dtype=np.float32)
        got = call("linspace", start, stop, num, endpoint=endpoint)
        assert same(got, want)
        assert same(got, host(xp.linspace(start, stop, num, endpoint=endpoint, dtype=xp.float32)))


def test_meshgrid_matches_numpy():
    a, b, c = data("int32", (3,)), data("int32", (2,)), data("int32", (4,))
    for indexing in ("xy", "ij"):
        for arrays in [(a,), (a, b), (a, b, c)]:
            got = call("meshgrid", *arrays, indexing=indexing)
            want = xp.meshgrid(*map(strict, arrays), indexing=indexing)
            assert isinstance(got, tuple) and len(got) == len(want)
            assert all(same(g, host(w)) for g, w in zip(got, want, strict=True))


def test_asarray_dtypes_devices_and_copies():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    assert np.shares_memory(call("asarray", x), x)
    assert np.shares_memory(call("asarray", x, copy=False), x)
    assert not np.shares_memory(call("asarray", x, copy=True), x)
    assert same(call("asarray", x, dtype="float32"), x.astype(np.float32))
    with pytest.raises(ValueError, match="copy=False"):
        call("asarray", x, dtype="float32", copy=False)
    with pytest.raises(ValueError, match="copy=False"):
        call("asarray", [1, 2], copy=False)
    t = call("asarray", x, device="gpu")
    assert isinstance(t, GpuArray) and t.dtype == np.int32
    assert call("asarray", t) is t
    assert same(call("asarray", t, device="cpu"), x)
    assert same(run(call("asarray", t, dtype="bool").to_numpy_async()), x != 0)
    with pytest.raises(ValueError, match="device must be None, 'cpu' or 'gpu', got 'cuda'"):
        call("asarray", x, device="cuda")
    with pytest.raises(TypeError, match="dtype: dtype float64 is not supported"):
        call("asarray", x, dtype="float64")


@pytest.mark.parametrize("dt", DTS)
def test_manipulation_matches_numpy_and_the_standard(dt):
    for shape in SHAPES:
        x = data(dt, shape)
        s = strict(x)
        nd = x.ndim
        assert same(call("reshape", x, (-1,)), host(xp.reshape(s, (-1,))))
        assert same(call("flip", x), host(xp.flip(s)))
        assert same(call("roll", x, 2), host(xp.roll(s, 2)))
        assert same(call("repeat", x, 2), host(xp.repeat(s, 2)))
        assert same(call("astype", x, "int32"), host(xp.astype(s, xp.int32)))
        for axis in range(-nd, nd):
            other = x[..., :1] if axis % nd == nd - 1 else x
            assert same(call("flip", x, axis=axis), host(xp.flip(s, axis=axis)))
            assert same(call("roll", x, -3, axis=axis), host(xp.roll(s, -3, axis=axis)))
            assert same(call("expand_dims", x, axis=axis), host(xp.expand_dims(s, axis=axis)))
            assert same(call("moveaxis", x, axis, 0), host(xp.moveaxis(s, axis, 0)))
            assert same(call("concat", [x, other], axis=axis), host(xp.concat([s, strict(other)], axis=axis)))
            assert same(call("stack", [x, x, x], axis=axis), host(xp.stack([s, s, s], axis=axis)))
            assert all(same(g, host(w)) for g, w in zip(call("unstack", x, axis=axis),
                                                        xp.unstack(s, axis=axis), strict=True))
            assert same(call("repeat", x, 3, axis=axis), host(xp.repeat(s, 3, axis=axis)))
            counts = rng.integers(0, 3, x.shape[axis])
            assert same(call("repeat", x, counts, axis=axis),
                        host(xp.repeat(s, xp.asarray(counts), axis=axis)))
        assert same(call("concat", [x, x], axis=None), host(xp.concat([s, s], axis=None)))
        assert same(call("tile", x, (2, 1, 3)), host(xp.tile(s, (2, 1, 3))))
        assert same(call("tile", x, (2,)), np.tile(x, 2))
        perm = tuple(reversed(range(nd)))
        assert same(call("permute_dims", x, perm), host(xp.permute_dims(s, perm)))
        if nd >= 2:
            assert same(call("matrix_transpose", x), host(xp.matrix_transpose(s)))
            assert same(call("roll", x, (1, -2), axis=(0, 1)), host(xp.roll(s, (1, -2), axis=(0, 1))))
            assert same(call("roll", x, (1, 2), axis=(0, 0)), np.roll(x, (1, 2), axis=(0, 0)))
        assert same(call("broadcast_to", x, (2, *shape)), host(xp.broadcast_to(s, (2, *shape))))
        assert same(call("squeeze", x[None], axis=0), host(xp.squeeze(strict(x[None]), axis=0)))


def test_mixed_dtypes_promote_and_the_sync_views():
    a, b, u = data("int32", (2, 3)), data("float32", (1, 3)), data("uint32", (2, 3))
    assert same(call("concat", [a, b]), np.concatenate([a.astype(np.float32), b]))
    assert same(call("stack", [a, u]), np.stack([a, u.astype(np.int32)]))  # (int32 with uint32: int32)
    flags = data("bool", (1, 3))
    assert same(call("concat", [a, flags]), np.concatenate([a, flags.astype(np.int32)]))
    arrays = pycore.broadcast_arrays(data("bool", (3, 1)), data("int32", (4,)))
    assert [x.shape for x in arrays] == [(3, 4), (3, 4)]
    x = data("float32", (2, 3, 4))
    assert same(pycore.flip(x, axis=(0, 2)), np.flip(x, (0, 2)))
    assert same(pycore.moveaxis(x, (0, 1), (-1, 0)), np.moveaxis(x, (0, 1), (-1, 0)))
    assert same(pycore.expand_dims(x, axis=(0, -1)), np.expand_dims(x, (0, -1)))


def test_reshape_and_astype_copies():
    x = data("int32", (4, 6))
    assert np.shares_memory(call("reshape", x, (6, 4)), x)
    assert not np.shares_memory(call("reshape", x, (6, 4), copy=True), x)
    with pytest.raises(ValueError):
        call("reshape", x.T, (24,), copy=False)
    assert call("astype", x, "int32", copy=False) is x
    assert call("astype", x, "int32") is not x


def test_host_held_gpuarrays_give_gpuarrays():
    x = data("float32", (3, 4))
    t = run(pycore.to_gpu_async(x))
    assert t.device == "numpy"
    for name, args, kwargs, want in [
        ("concat", ([t, t],), {"axis": 1}, np.concatenate([x, x], 1)),
        ("roll", (t, 1), {"axis": 0}, np.roll(x, 1, 0)),
        ("tril", (t,), {}, np.tril(x)),
        ("tile", (t, (2, 1)), {}, np.tile(x, (2, 1))),
        ("repeat", (t.T, 2), {"axis": 1}, np.repeat(x.T, 2, 1)),
        ("flip", (t,), {"axis": 0}, x[::-1]),
        ("permute_dims", (t, (1, 0)), {}, x.T),
        ("reshape", (t.T, (12,)), {}, x.T.reshape(12)),
        ("zeros_like", (t,), {}, np.zeros_like(x)),
        ("astype", (t, "uint32"), {}, x.astype(np.uint32)),
    ]:
        got = call(name, *args, **kwargs)
        assert isinstance(got, GpuArray), name
        assert same(run(got.to_numpy_async()), want), name
    assert isinstance(call("zeros", 3, device="gpu"), GpuArray)
    assert isinstance(call("zeros", 3, device="cpu"), np.ndarray)
    assert isinstance(call("astype", t, "float32", device="cpu"), np.ndarray)


@pytest.mark.parametrize("expr, error, message", [
    ("pycore.zeros_async((2, -1))", ValueError, "shape[1] must be >= 0, got -1"),
    ("pycore.zeros_async((2, 1.5))", TypeError, "shape[1] must be an int, got float 1.5"),
    ("pycore.full_async(2, 1j, dtype='float32')", TypeError, "fill_value: a complex value 1j does not fit"),
    ("pycore.full_async(2, 'a')", TypeError, "fill_value must be a bool, int, float or complex"),
    ("pycore.full_async(2, -1, dtype='uint32')", OverflowError, "fill_value: Python int -1 is out of uint32"),
    ("pycore.zeros_async(2, dtype='float64')", TypeError, "dtype: dtype float64 is not supported"),
    ("pycore.zeros_async(2, device='tpu')", ValueError, "device must be None, 'cpu' or 'gpu'"),
    ("pycore.arange_async(0, 5, 0)", ValueError, "arange: step must not be 0"),
    ("pycore.arange_async('a')", TypeError, "start must be an int or a float"),
    ("pycore.arange_async(2**31 + 1)", OverflowError, "stop: Python int"),
    ("pycore.linspace_async(0, 1, -1)", ValueError, "num must be >= 0"),
    ("pycore.linspace_async(0, 1, 3, dtype='int32')", TypeError, "linspace: dtype must be a floating-point"),
    ("pycore.eye_async(2, k=0.5)", TypeError, "k must be an int"),
    ("pycore.tril_async(np.ones(3, np.float32))", ValueError, "tril: x must have at least 2 dimensions"),
    ("pycore.meshgrid_async(np.ones((2, 2), np.float32))", ValueError, "meshgrid: arrays[0] must be 1-D"),
    ("pycore.meshgrid_async(indexing='yx')", ValueError, "meshgrid: indexing must be 'xy' or 'ij'"),
    ("pycore.concat_async([])", ValueError, "concat: arrays must hold at least one array"),
    ("pycore.concat_async(np.ones(3, np.float32))", TypeError, "concat: arrays must be a tuple or list"),
    ("pycore.concat_async([np.ones((2, 3), 'f4'), np.ones((2, 4), 'f4')])", ValueError,
     "concat: arrays[1] of shape (2, 4) does not match arrays[0] of shape (2, 3) but along axis 0"),
    ("pycore.concat_async([np.ones(3, 'f4'), np.ones(3, 'f4')], axis=1)", ValueError,
     "axis 1 is out of range"),
    ("pycore.concat_async([np.float32(1)])", ValueError, "concat: arrays[0] is 0-d"),
    ("pycore.stack_async([np.ones(3, 'f4'), np.ones(2, 'f4')])", ValueError,
     "stack: arrays[1] of shape (2,) differs from arrays[0]'s (3,)"),
    ("pycore.roll_async(np.ones(3, 'f4'), 1.5)", TypeError, "shift must be an int"),
    ("pycore.roll_async(np.ones((3, 3), 'f4'), (1, 2), axis=(0, 1, 1))", ValueError, "roll: shift (1, 2)"),
    ("pycore.tile_async(np.ones(3, 'f4'), 2)", TypeError, "tile: repetitions must be a tuple of ints"),
    ("pycore.repeat_async(np.ones(3, 'f4'), -1)", ValueError, "repeat: repeats must be >= 0"),
    ("pycore.repeat_async(np.ones(3, 'f4'), np.array([1, 2]))", ValueError, "repeat: repeats has 2 entries"),
    ("pycore.repeat_async(np.ones(3, 'f4'), np.array([1.0]))", TypeError, "repeat: repeats must be an int"),
    ("pycore.reshape_async(np.ones(6, 'f4'), (4, -1))", ValueError, "cannot reshape"),
    ("pycore.squeeze_async(np.ones((2, 3), 'f4'), axis=0)", ValueError,
     "squeeze: axis 0 has length 2, not 1"),
    ("pycore.permute_dims_async(np.ones((2, 3), 'f4'), (0, 0))", ValueError, "not a permutation"),
    ("pycore.matrix_transpose_async(np.ones(3, 'f4'))", ValueError,
     "matrix_transpose: x must have at least 2"),
    ("pycore.broadcast_to_async(np.ones(3, 'f4'), (4,))", ValueError,
     "broadcast_to: x of shape (3,) does not"),
    ("pycore.moveaxis_async(np.ones((2, 3), 'f4'), (0, 1), 0)", ValueError, "moveaxis: source (0, 1)"),
    ("pycore.unstack_async(np.float32(1))", ValueError, "unstack: x must have at least 1 dimension"),
    ("pycore.astype_async(np.ones(3, 'c8'), 'float32')", TypeError,
     "astype: complex64 does not convert to float32"),
    ("pycore.astype_async(np.ones(3, 'f4'), 'complex128')", TypeError,
     "dtype: dtype complex128 is not supported"),
])
def test_bad_input_raises_naming_the_argument(expr, error, message):
    with pytest.raises(error, match=re.escape(message)):
        run(eval(expr))


def test_data_type_functions_match_numpy_and_the_standard():
    for name in ("float32", "int32", "uint32", "bool"):
        assert getattr(pycore, name) == np.dtype(name) and name in pycore.__all__
    dts = [pycore.bool, pycore.int32, pycore.uint32, pycore.float32]
    for a in dts:
        for b in dts:
            want = np.result_type(a, b)
            narrowed = {"int64": np.dtype(np.int32), "float64": np.dtype(np.float32)}.get(want.name, want)
            assert pycore.result_type(a, b) == narrowed
            sa, sb = getattr(xp, a.name), getattr(xp, b.name)
            assert pycore.can_cast(a, b) == xp.can_cast(sa, sb), (a, b)  # (the standard's lattice)
            if a.kind == b.kind:  # (the standard promotes within a kind only)
                assert pycore.result_type(a, b).name == str(xp.result_type(sa, sb)).split(".")[-1]
    assert pycore.result_type(np.ones(2, np.uint32), 7) == np.uint32
    assert pycore.result_type(pycore.int32, 1.5) == np.float32
    for kind in ("bool", "signed integer", "unsigned integer", "integral", "real floating",
                 "complex floating", "numeric"):
        for d in dts:
            assert pycore.isdtype(d, kind) == xp.isdtype(getattr(xp, d.name), kind), (d, kind)
    assert pycore.isdtype(pycore.int32, (pycore.uint32, "signed integer"))
    assert pycore.isdtype(pycore.int32, pycore.int32) and not pycore.isdtype(pycore.int32, pycore.uint32)
    f, sf = pycore.finfo(pycore.float32), xp.finfo(xp.float32)
    assert (f.bits, f.eps, f.max, f.min, f.smallest_normal) == (sf.bits, sf.eps, sf.max, sf.min,
                                                                 sf.smallest_normal)
    assert f.dtype == np.float32 and pycore.finfo(np.ones(2, np.float32)).bits == 32
    for name in ("int32", "uint32"):
        i, si = pycore.iinfo(getattr(pycore, name)), xp.iinfo(getattr(xp, name))
        assert (i.bits, i.max, i.min, i.dtype) == (si.bits, si.max, si.min, np.dtype(name))
    with pytest.raises(TypeError, match="finfo: type must be a floating-point dtype"):
        pycore.finfo(pycore.int32)
    with pytest.raises(TypeError, match="iinfo: type must be an integer dtype"):
        pycore.iinfo(pycore.float32)
    with pytest.raises(ValueError, match="isdtype: kind must be"):
        pycore.isdtype(pycore.int32, "integer")
    with pytest.raises(ValueError, match="result_type: at least one array or dtype"):
        pycore.result_type(1, 2.0)
    with pytest.raises(TypeError, match="dtype float64 is not supported"):
        pycore.can_cast(np.float64, pycore.float32)


def test_the_inspection_namespace():
    info = pycore.__array_namespace_info__()
    assert info.capabilities()["boolean indexing"] is False
    assert set(info.capabilities()) >= set(xp.__array_namespace_info__().capabilities())
    assert info.default_device() == "cpu" and info.devices() == ("cpu",)  # (the NumPy backend here)
    assert info.default_dtypes() == {"real floating": np.float32, "complex floating": np.complex64,
                                     "integral": np.int32, "indexing": np.int32}
    assert list(info.dtypes()) == ["bool", "int8", "int16", "int32", "uint8", "uint16", "uint32", "float32",
                                   "complex64"]  # (the standard's: float16 is pycore's, not theirs)
    assert list(info.dtypes(kind="complex floating")) == ["complex64"]
    assert list(info.dtypes(kind="integral")) == ["int8", "int16", "int32", "uint8", "uint16", "uint32"]
    assert list(info.dtypes(kind=("bool", "real floating"))) == ["bool", "float32"]
    with pytest.raises(ValueError, match="device must be"):
        info.dtypes(device="tpu")


def test_every_function_is_public_with_an_example():
    import doctest

    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for name, fn in namespace.NSPUBLIC.items():
        if name in namespace.CONSTANTS:  # (e, pi, inf, nan, newaxis, the standard's revision)
            assert getattr(pycore, name) is fn, name
            continue
        assert name in pycore.__all__ and getattr(pycore, name) is fn, name
        if isinstance(fn, np.dtype):
            continue
        tests = doctest.DocTestFinder().find(fn, name, globs={})
        assert tests and tests[0].examples, f"{name} has no example"
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for test in tests:
                runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


# ---------------------------------------------------------------- the planner, and its plans run by a model


def test_plan_words_collapse_copies_and_keep_the_axes_a_mask_needs():
    f32 = np.dtype("float32")
    out = Layout.contiguous((4, 6))
    whole = plan_place([Part(out, "copy", source=Layout.contiguous((4, 6)), dtype=f32)], (4, 6), f32, Facts())
    assert whole.steps[0].words == (24, 0, 0, 24, 1, 1)  # (one axis: both walk contiguously)
    tri = plan_place([Part(out, "copy", source=Layout.contiguous((4, 6)), dtype=f32, values=(-1,),
                           triangle="tril")], (4, 6), f32, Facts())
    assert tri.steps[0].words == (24, 0, 0, 4, 6, 6, 1, 6, 1, 2**32 - 1)
    assert tri.steps[0].kernel.name == "place:copy(float32)->f32[2]tril"
    eye = plan_place([Part(out, "diagonal", values=(2,))], (4, 6), np.dtype("int32"), Facts())
    assert eye.steps[0].words == (24, 0, 0, 4, 6, 6, 1, 2)
    assert eye.steps[0].kernel.bindings == ("write", "uniform")
    ramp = plan_place([Part(Layout.contiguous((5,)), "ramp", values=(1.0, 0.5, 4, 3.0))], (5,), f32, Facts())
    assert ramp.steps[0].words[-4:] == (1065353216, 1056964608, 4, 1077936128)
    big = plan_place([Part(Layout.contiguous((70000 * 256,)), "value", values=(0,))], (70000 * 256,),
                     np.dtype("uint32"), Facts(max_binding=1 << 30))
    assert big.steps[0].grid == (35000, 2, 1)


def test_the_planner_refuses_what_it_cannot_place():
    f32 = np.dtype("float32")
    with pytest.raises(ValueError, match=re.escape("an output of shape (1024,) needs 4,096 bytes")):
        plan_place([Part(Layout.contiguous((1024,)), "value", values=(0,))], (1024,), f32,
                   Facts(max_binding=1024))
    with pytest.raises(ValueError, match="unknown mode 'gather'"):
        plan_place([Part(Layout.contiguous((4,)), "gather")], (4,), f32, Facts())
    with pytest.raises(ValueError, match="a copy needs a source of the region's shape"):
        plan_place([Part(Layout.contiguous((4,)), "copy", source=Layout.contiguous((3,)), dtype=f32)], (4,),
                   f32, Facts())
    with pytest.raises(ValueError, match="a triangle"):
        plan_place([Part(Layout.contiguous((4,)), "value", values=(0, 0), triangle="tril")], (4,), f32,
                   Facts())


def _model(plan, inputs: list[np.ndarray]) -> np.ndarray:
    """What shaders/place.wgsl computes for `plan`, in Python: each step's elements, walked as the
    kernel walks them, from its uniform words (read back as the kernel reads them)."""
    spec = plan.outputs[0]
    store = np.uint32 if spec.dtype == np.bool_ else spec.dtype.type
    out = np.full(int(np.prod(spec.shape)), 77, store)  # (what no step writes shows)
    for step in plan.steps:
        assert isinstance(step, Step)
        found = re.fullmatch(r"place:(\w+)\(\w*\)->\w+\[(\d+)\](\w*)", step.kernel.name)
        mode, rank, triangle = found.groups()
        rank, w = int(rank), [int(v) for v in step.words]
        signed = [v - 2**32 if v >= 2**31 else v for v in w]
        copy = mode == "copy"
        shape = w[3:3 + rank]
        ostr = signed[3 + rank:3 + 2 * rank]
        istr = signed[3 + 2 * rank:3 + 3 * rank] if copy else []
        at = 3 + rank * (3 if copy else 2)
        words = np.array(w, np.uint32)
        for i in range(w[0]):
            coords = np.unravel_index(i, shape) if rank else ()
            o = signed[1] + sum(c * s for c, s in zip(coords, ostr, strict=True))
            if copy:
                flat = inputs[step.slots[0].index]
                v = flat[signed[2] + sum(c * s for c, s in zip(coords, istr, strict=True))]
                v = np.array(v).astype(spec.dtype).astype(store)
            elif mode == "value":
                v = words[at:at + 1].view(store)[0]
            elif mode == "ramp":
                start, stp = words[at:at + 2].view(store)
                with np.errstate(over="ignore"):
                    v = (words[at + 3:at + 4].view(store)[0] if i == w[at + 2]
                         else store(start + store(i) * stp))
            else:
                v = store(coords[-1] - coords[-2] == signed[at])
            if triangle:
                k = signed[at + {"copy": 0, "value": 1, "ramp": 4, "diagonal": 1}[mode]]
                keep = coords[-1] - coords[-2] >= k if triangle == "triu" else coords[-1] - coords[-2] <= k
                v = v if keep else store(0)
            out[o] = v
    return out.reshape(spec.shape).astype(spec.dtype)


@pytest.fixture
def modelled(monkeypatch):
    """The namespace's functions on host-held GpuArrays planned as on a GPU, their plans run by _model on
    the arrays' buffers (the base array's elements, read through each view's layout)."""

    async def placed(name, parts, xs, shape, dtype):
        inputs = list(xs)
        buffers = [np.ravel((x._base if x._base is not None else x)._host) if isinstance(x, GpuArray)
                   else np.ravel(x) for x in inputs]
        layouts = [x.layout if isinstance(x, GpuArray) else Layout.contiguous(np.shape(x)) for x in inputs]
        plan = plan_place(parts(layouts), shape, dtype, Facts())
        return GpuArray(shape, host=_model(plan, buffers) if np.prod(shape) else np.empty(shape, dtype))

    monkeypatch.setattr(placing, "on_gpu", lambda xs: any(isinstance(x, GpuArray) for x in xs))
    monkeypatch.setattr(placing, "placed_async", placed)
    monkeypatch.setattr(creation, "created_async",
                        lambda name, where, shape, dtype, parts, numpy: placed(name, lambda _: parts(), [],
                                                                                shape, dtype))


@pytest.mark.parametrize("dt", DTS)
def test_the_gpu_plans_of_every_function_compute_what_numpy_does(modelled, dt):
    x = data(dt, (3, 4, 5))
    t = run(pycore.to_gpu_async(x))
    views = {"x": (t, x), "x.T": (t.T, x.T), "x[::-1, 1:, ::2]": (t[::-1, 1:, ::2], x[::-1, 1:, ::2])}
    got = lambda name, *a, **k: run(call(name, *a, **k).to_numpy_async())  # noqa: E731
    for label, (v, h) in views.items():
        for axis in (0, 1, -1):
            other = (t if label != "x.T" else t.T)[::-1]
            assert same(got("concat", [v, other[:, :, :]] if label == "x" else [v, v], axis=axis),
                        np.concatenate([h, x[::-1]] if label == "x" else [h, h], axis=axis)), (label, axis)
            assert same(got("stack", [v, v], axis=axis), np.stack([h, h], axis=axis)), label
            assert same(got("roll", v, 2, axis=axis), np.roll(h, 2, axis=axis)), label
            assert same(got("repeat", v, 2, axis=axis), np.repeat(h, 2, axis=axis)), label
            counts = rng.integers(0, 3, h.shape[axis])
            counts[:2] = 2
            assert same(got("repeat", v, counts, axis=axis), np.repeat(h, counts, axis=axis)), label
        assert same(got("concat", [v, v], axis=None), np.concatenate([h.reshape(-1)] * 2)), label
        assert same(got("roll", v, -7), np.roll(h, -7)), label
        assert same(got("roll", v, (1, 3), axis=(0, 2)), np.roll(h, (1, 3), axis=(0, 2))), label
        assert same(got("repeat", v, 3), np.repeat(h, 3)), label
        assert same(got("tile", v, (2, 1, 2)), np.tile(h, (2, 1, 2))), label
        assert same(got("tile", v, (2, 1, 1, 2)), np.tile(h, (2, 1, 1, 2))), label
        for k in (-2, 0, 1):
            assert same(got("tril", v, k=k), np.tril(h, k)), label
            assert same(got("triu", v, k=k), np.triu(h, k)), label
    mixed = run(pycore.to_gpu_async(data("uint32", (3, 4, 5))))
    assert same(got("concat", [t, mixed], axis=1), np.concatenate([x, run(mixed.to_numpy_async())], 1).astype(
        pycore.result_type(t, mixed)))


def test_the_gpu_plans_of_creation_compute_what_numpy_does(modelled):
    got = lambda name, *a, **k: run(call(name, *a, device="gpu", **k).to_numpy_async())  # noqa: E731
    for dt in DTS:
        assert same(got("zeros", (2, 3), dtype=dt), np.zeros((2, 3), dt))
        assert same(got("full", (4,), True if dt == "bool" else 7, dtype=dt), np.full(4, 7, dt))
        assert same(got("eye", 3, 5, k=1, dtype=dt), np.eye(3, 5, 1, dtype=dt))
        assert same(got("eye", 4, 2, k=-1, dtype=dt), np.eye(4, 2, -1, dtype=dt))
    assert same(got("full", (2, 2), -0.0), np.full((2, 2), -0.0, np.float32))
    for args in [(7,), (2, 11, 3), (10, 0, -3), (5, 0, -1)]:
        assert same(got("arange", *args), np.arange(*args, dtype=np.int32)), args
    assert same(got("arange", 6, 0, -2, dtype="uint32"), np.arange(6, 0, -2).astype(np.uint32))
    assert same(got("arange", 0.5, 3.0, 0.25), np.arange(0.5, 3.0, 0.25, dtype=np.float32))
    for start, stop, num, endpoint in [(0, 1, 5, True), (0, 1, 5, False), (-2.5, 7, 11, True),
                                       (3, 3, 1, True)]:
        want = np.linspace(start, stop, num, endpoint=endpoint, dtype=np.float32)
        assert np.allclose(got("linspace", start, stop, num, endpoint=endpoint), want, rtol=2e-7, atol=1e-6)
        if endpoint and num > 1:
            assert got("linspace", start, stop, num, endpoint=endpoint)[-1] == np.float32(stop)


def test_from_dlpack_broadcast_shapes_real_and_conj_match_the_standard():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    got = call("from_dlpack", x)
    assert same(got, x) and np.shares_memory(got, x)  # (no copy asked, none made)
    copied = call("from_dlpack", x, copy=True)
    assert same(copied, x) and not np.shares_memory(copied, x)
    ints = np.arange(3, dtype=np.int32)
    assert same(call("from_dlpack", ints), np.asarray(xp.from_dlpack(ints)))
    on_gpu = call("from_dlpack", x, device="gpu")
    assert isinstance(on_gpu, GpuArray) and same(run(on_gpu.to_numpy_async()), x)
    with pytest.raises(TypeError, match="from_dlpack: x must support the DLPack protocol"):
        call("from_dlpack", [1, 2])
    # a GpuArray: its device told, its export a BufferError (on every backend), taken as it is
    assert on_gpu.__dlpack_device__() in ((15, 0), (1, 0))
    with pytest.raises(BufferError, match=r"__dlpack__: a GpuArray cannot be exported.*to_numpy_async"):
        np.from_dlpack(on_gpu)
    assert call("from_dlpack", on_gpu) is on_gpu
    again = call("from_dlpack", on_gpu, copy=True)
    assert isinstance(again, GpuArray) and again is not on_gpu and same(run(again.to_numpy_async()), x)
    assert same(call("from_dlpack", on_gpu, device="cpu"), x)
    for shapes in [((3, 1), (4,)), ((2, 1, 5), (7, 1), ()), ((0, 1), (1, 3))]:
        assert pycore.broadcast_shapes(*shapes) == xp.broadcast_shapes(*shapes)
        assert call("broadcast_shapes", *shapes) == xp.broadcast_shapes(*shapes)
    with pytest.raises(ValueError, match=r"\(3,\).*\(4,\)|\(4,\).*\(3,\)"):
        pycore.broadcast_shapes((3,), (4,))
    for dt in ("float32", "int32", "uint32"):
        v = data(dt, (3, 2))
        for fn in ("real", "conj"):
            assert same(getattr(pycore, fn)(v), np.asarray(getattr(xp, fn)(strict(v))))
            assert same(call(fn, v), v)
    with pytest.raises(TypeError, match="real: x must have a numeric dtype, got bool"):
        pycore.real(np.array([True]))
    t = run(pycore.to_gpu_async(x))
    assert pycore.conj(t) is t and pycore.real(t) is t  # (no copy, no dispatch)


def test_every_namespace_function_says_how_it_runs_on_the_gpu():
    from pycore.calls.datatypes import DATATYPES
    from pycore.calls.namespace import NSPUBLIC
    from pycore.calls.selection import SELPUBLIC
    from pycore.calls.sorting import SORTPUBLIC
    from scripts.readme import on_gpu_routes

    routes = on_gpu_routes()
    names = {n.removesuffix("_async") for n, f in {**NSPUBLIC, **SELPUBLIC, **SORTPUBLIC}.items()
             if callable(f) and not isinstance(f, np.dtype) and n not in DATATYPES}
    assert names == set(routes), (names - set(routes), set(routes) - names)


# ---------------------------------------------------------------- what the standard's own test suite found


def test_the_constants_and_the_revision_of_the_standard():
    assert (pycore.e, pycore.pi) == (np.e, np.pi) and pycore.inf == np.inf and np.isnan(pycore.nan)
    assert pycore.newaxis is None and pycore.__array_api_version__ == "2025.12"
    assert "__array_api_version__" not in pycore.__all__ and "pi" in pycore.__all__


@pytest.mark.parametrize("dtype", ["int8", "int16", "uint8", "uint16"])
def test_arange_of_the_narrow_integers(dtype):
    for args in [(0, 5), (10, 0, -3), (3, 4, 200)]:
        got = run(pycore.arange_async(*args, dtype=dtype))
        assert got.dtype == dtype and np.array_equal(got, np.arange(*args).astype(dtype)), args


def test_asarray_without_a_copy_of_an_empty_array_and_result_type_of_a_complex_scalar():
    empty = np.empty((0, 3), np.float32)
    assert run(pycore.asarray_async(empty, copy=False)) is empty
    assert run(pycore.from_dlpack_async(empty, copy=False)).shape == (0, 3)
    assert pycore.result_type(pycore.float32, 1j) == pycore.complex64
    assert pycore.result_type(pycore.complex64, 2.0) == pycore.complex64


def test_expand_dims_out_of_range_raises_index_error():
    with pytest.raises(IndexError, match="axis -3 is out of range"):
        pycore.expand_dims(np.zeros(3, np.float32), axis=-3)
    with pytest.raises(IndexError, match="axis 4"):
        pycore.expand_dims(np.zeros((2, 2), np.float32), axis=(0, 4))
    assert pycore.expand_dims(np.zeros(3, np.float32), axis=-2).shape == (1, 3)


def test_isin_takes_a_python_scalar_weakly():
    a = np.array([1, 2**31, 5], np.uint32)
    assert run(pycore.isin_async(a, 2**31)).tolist() == [False, True, False]
    assert run(pycore.isin_async(a, 2**40)).tolist() == [False] * 3  # (no uint32 holds it)
    assert run(pycore.isin_async(a, 2**40, invert=True)).tolist() == [True] * 3
    assert run(pycore.isin_async(2**31, a)) == np.True_ and run(pycore.isin_async(2**40, a)).shape == ()


def test_vecdot_conjugates_its_first_argument():
    x1 = np.array([1j, 2j, 3j], np.complex64)
    x2 = np.array([1, 2j, 3], np.complex64)
    want = np.vecdot(x1, x2)  # sum(conj(x1) * x2) = 4 - 10j
    assert run(pycore.vecdot_async(x1, x2)) == want == run(pycore.linalg.vecdot_async(x1, x2))
    assert run(pycore.vecdot_async(np.array([1, 2], np.int32), np.array([3, 4], np.int32))) == 11
    small = np.array([200, 100], np.uint8)  # (in the inputs' dtype, wrapping: as matmul's)
    got = run(pycore.vecdot_async(small, small))
    assert got == np.uint8(80) and got.dtype == np.uint8


def test_tanh_is_the_standards_function_on_every_float_dtype():
    assert run(pycore.tanh_async(np.array([0.5], np.float16))).dtype == np.float16
    assert run(pycore.tanh_async(np.array([1], np.int8))).dtype == np.float32
    z = np.array([1 + 1j, np.nan + 0j], np.complex64)
    np.testing.assert_allclose(run(pycore.tanh_async(z))[:1], np.tanh(z[:1]), rtol=1e-6)
    got = run(pycore.tanh_async(np.array([-0.0, np.inf, -np.inf, np.nan], np.float32)))
    assert np.signbit(got[0]) and got[1:3].tolist() == [1.0, -1.0] and np.isnan(got[3])


def test_host_values_of_an_empty_gpuarray_are_empty():
    empty = GpuArray((0, 3), buffer=object(), dtype=np.float32)
    assert placing.host_values(empty).shape == (0, 3)


def test_sum_and_prod_take_the_standards_dtype():
    x = np.array([100, 100, 100], np.int8)
    assert run(pycore.sum_async(x)) == 300 and run(pycore.sum_async(x)).dtype == np.int32
    assert run(pycore.sum_async(x, dtype="int8")) == np.int8(44)  # (cast first, wrapping)
    assert run(pycore.sum_async(x, dtype=pycore.float32)).dtype == np.float32
    got = run(pycore.prod_async(x, dtype="int16", axis=0, keepdims=True))
    assert got.dtype == np.int16 and got.tolist() == [16960]
    with pytest.raises(TypeError, match="numeric"):
        run(pycore.sum_async(x, dtype="bool"))
    with pytest.raises(TypeError, match="unexpected keyword"):
        run(pycore.mean_async(x, dtype="float32"))


def test_complex_expm1_has_exps_special_values():
    z = np.array([complex(np.inf, 0), complex(-np.inf, np.inf), complex(-np.inf, np.nan),
                  complex(np.nan, 0), 1e-9j], np.complex64)
    got = run(pycore.expm1_async(z))
    assert got.dtype == np.complex64
    assert got[:2].tolist() == [complex(np.inf, 0), -1 + 0j] and got[2] == -1
    assert np.isnan(got[3].real) and got[3].imag == 0 and np.isclose(got[4], np.expm1(1e-9j), rtol=1e-6)


def test_complex_log1p_and_expm1_are_accurate_near_zero():
    # against the identities in float64 (exact products of float32 parts): log|1 + z| =
    # log1p(2a + a² + b²) / 2, arg(1 + z) = atan2(b, 1 + a); Re(e^z - 1) = expm1(a) cos b - 2 sin²(b/2)
    rng = np.random.default_rng(8)
    z = ((rng.standard_normal(2000) + 1j * rng.standard_normal(2000)) * 10.0 ** rng.uniform(-12, 0, 2000)
         ).astype(np.complex64)
    a, b = z.real.astype(np.float64), z.imag.astype(np.float64)
    want = 0.5 * np.log1p(a * (2 + a) + b * b) + 1j * np.arctan2(b, 1 + a)
    got = run(pycore.log1p_async(z))
    assert got.dtype == np.complex64 and (np.abs(got - want) <= 4 * 1.2e-7 * np.abs(want)).all()
    want = np.expm1(a) * np.cos(b) - 2 * np.sin(b / 2) ** 2 + 1j * np.exp(a) * np.sin(b)
    got = run(pycore.expm1_async(z))
    assert got.dtype == np.complex64 and (np.abs(got - want) <= 4 * 1.2e-7 * np.abs(want)).all()
    assert run(pycore.log1p_async(np.array([complex(-1, 0)], np.complex64)))[0] == complex(-np.inf, 0)


def test_complex_tanh_and_tan_of_an_infinite_part_take_the_standards_zero():
    # tanh(+inf + yi) is 1 + 0i for y > 0 (C99 and NumPy: the zero's sign that of sin 2y, here -0)
    z = np.array([complex(np.inf, 2.0), complex(np.inf, -2.0), complex(-np.inf, 0.5)], np.complex64)
    got = run(pycore.tanh_async(z))
    assert got.tolist() == [1 + 0j, 1 - 0j, -1 + 0j] and np.signbit(got.imag).tolist() == [False, True, False]
    w = np.array([complex(2.0, np.inf), complex(-2.0, np.inf), complex(0.5, -np.inf)], np.complex64)
    got = run(pycore.tan_async(w))  # (tan z = -i tanh(iz): 0 ± 1i, the zero's sign that of re z)
    assert got.tolist() == [1j, 1j, -1j] and np.signbit(got.real).tolist() == [False, True, False], got


def test_asarray_of_a_sequence_of_gpuarrays_stacks_them():
    g = run(pycore.to_gpu_async(np.array([1, 2], np.int16)))
    got = run(pycore.asarray_async([g, [3, 4]]))
    assert isinstance(got, GpuArray) and got.dtype == np.int16
    assert run(got.to_numpy_async()).tolist() == [[1, 2], [3, 4]]
    host = run(pycore.asarray_async([g, g], device="cpu", dtype="float32"))
    assert isinstance(host, np.ndarray) and host.dtype == np.float32 and host.shape == (2, 2)
    with pytest.raises(ValueError, match="copy=False"):
        run(pycore.asarray_async([g], copy=False))
