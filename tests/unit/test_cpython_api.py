"""pycore under CPython: the NumPy path, argument handling and the op table's consistency."""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import re

import numpy as np
import pytest

import pycore
from pycore.array.convert import as_float32
from pycore.calls.nd import NDPUBLIC
from pycore.choice.selector import KINDS
from pycore.kernels.plan import grid_for as grid
from pycore.kernels.wgsl import wgsl_source
from pycore.tables.ops import OPS


def in_thread(fn, *args):
    """Call fn in a fresh thread: Playwright's sync API keeps an event loop running in the main
    thread once the end-to-end tests have started, and asyncio.run() refuses to nest in it."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(fn, *args).result()


def run(coro):
    return in_thread(asyncio.run, coro)


def test_this_process_runs_the_numpy_backend_and_says_why():
    info = run(pycore.init_async())  # tests/conftest.py sets PYCORE_TRANSPORT=numpy
    assert info["backend"] == "numpy" and info["transport"] == "none"
    assert "NumPy backend was asked for" in info["reason"] and info["tier"].startswith("NumPy fallback")
    assert info["versions"]["pycore"] == pycore.__version__


@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (3, 4), (2, 3, 5), (0, 4)])
def test_relu_any_shape(shape):
    x = np.random.default_rng(0).normal(size=shape)
    y = run(pycore.relu_async(x))
    assert y.dtype == np.float32 and y.shape == x.shape
    np.testing.assert_array_equal(y, np.maximum(x.astype(np.float32), 0))


def test_relu_special_values_and_array_likes():
    y = run(pycore.relu_async([np.nan, np.inf, -np.inf, -0.0, 1e-40, -1e-40, 3]))
    np.testing.assert_array_equal(y, [np.nan, np.inf, 0, 0, np.float32(1e-40), 0, 3])
    assert run(pycore.relu_async(5)).shape == ()
    strided = np.arange(-10, 10, dtype=np.float64)[::3]
    np.testing.assert_array_equal(run(pycore.relu_async(strided)), np.maximum(strided, 0))
    assert run(pycore.relu_async(np.array([True, False]))).tolist() == [1.0, 0.0]


@pytest.mark.parametrize("bad, match", [
    (np.array([1 + 2j]), "complex"),
    (np.array(["a"]), "<U1"),
    (np.array([object()], dtype=object), "object"),
    ([[1, 2], [3]], "cannot make an array"),
])
def test_bad_inputs_raise_type_error_naming_the_argument(bad, match):
    with pytest.raises(TypeError, match=match) as err:
        run(pycore.relu_async(bad))
    assert str(err.value).startswith("x:")


def test_as_float32_makes_contiguous_copies_only_when_needed():
    a = np.ones(4, dtype=np.float32)
    assert as_float32(a) is a
    b = as_float32(np.ones((4, 4))[:, 1])
    assert b.flags.c_contiguous and b.dtype == np.float32


def test_dispatch_grid_stays_within_the_per_dimension_limit():
    assert grid(1, 65535) == (1, 1, 1)
    assert grid(65535, 65535) == (65535, 1, 1)
    for n in [65536, 70_000, 10**6, 65535 * 300 + 7]:
        x, y, _z = grid(n, 65535)
        assert x <= 65535 and y <= 65535 and x * y >= n and x * (y - 1) < n
    with pytest.raises(ValueError, match="exceed"):
        grid(65535 * 65535 + 1, 65535)


def test_trace_records_each_call():
    run(pycore.relu_async([1.0, -1.0]))
    last = pycore.trace()[-1]
    assert last["op"] == "relu" and last["backend"] == "numpy" and last["shapes"] == [(2,)]


@pytest.mark.parametrize("op", OPS.values(), ids=list(OPS))
def test_every_op_has_its_kernel_and_public_function(op):
    from types import SimpleNamespace

    from pycore.calls.programs import PROGRAMS

    for cpu_adapter in (False, True):  # (what the background compile prepares: each entry is in its source)
        device = SimpleNamespace(max_binding=1 << 27, max_groups=65535, limits={}, loop_cap=None,
                                 cpu_adapter=cpu_adapter)
        kernels = PROGRAMS[op.kind].kernels(device, op)
        assert kernels, op.name
        for family, entry, _bindings, *generated in kernels:
            source = generated[0]() if generated else wgsl_source(family)
            assert re.search(rf"@compute\s+@workgroup_size\([^)]*\)\s*fn\s+{entry}\s*\(", source), entry
            if op.kind in ("unary", "binary"):  # one WGSL function; the kernel is generated from it
                assert f"{op.entry_for(op.typical_params())}_f(" in source
    fn = getattr(pycore, op.public_name)
    assert asyncio.iscoroutinefunction(fn) and fn.__doc__ and ">>>" in fn.__doc__
    if op.public_name in NDPUBLIC:  # an n-d op took over its name (vec_add is add's alias, sum takes axis)
        assert fn is NDPUBLIC[op.public_name]
    else:
        assert list(inspect.signature(fn).parameters)[:len(op.inputs)] == list(op.inputs)
    assert op.public_name in pycore.__all__


@pytest.mark.parametrize("op", OPS.values(), ids=list(OPS))
def test_docstring_example_is_true(op):
    import doctest

    fn = getattr(pycore, op.public_name)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for test in doctest.DocTestFinder().find(fn, op.public_name, globs={}):
        in_thread(runner.run, test)
    assert runner.summarize(verbose=False).failed == 0


@pytest.mark.parametrize("call, error, match", [
    ("pycore.vec_add_async([1, 2], [1, 2, 3])", ValueError,
     r"add: shapes \(2,\) and \(3,\) do not broadcast"),
    ("pycore.dot_async([1, 2], [[1, 2]])", ValueError, r"dot: a \(2,\) and b \(1, 2\) do not match"),
    ("pycore.dot_async([1, 2], [1, 2, 3])", ValueError, "dot: a has shape"),
    ("pycore.clip_async([1.0], 2.0, 1.0)", ValueError, r"clip: min \(2.0\) is greater than max \(1.0\)"),
    ("pycore.clip_async([True], 0, 1)", TypeError, "clip: x must have a numeric dtype, got bool"),
    ("pycore.scale_async([1.0], 'x')", TypeError, "scale: s must be a real number"),
    ("pycore.scale_async([1.0], float('nan'))", ValueError, "scale: s is NaN"),
    ("pycore.gelu_async([1.0], approximate='yes')", TypeError, "gelu: approximate must be True or False"),
    ("pycore.relu_async([1.0], 2)", TypeError, "relu_async.*too many positional arguments"),
    ("pycore.softmax_async(np.float32(1.0))", ValueError,
     "softmax: x must have at least 1 dimension.*0-D shape"),
    ("pycore.max_async([])", ValueError, "max: x is empty"),
    ("pycore.min_async(np.zeros((0, 3)))", ValueError, "min: x is empty"),
    ("pycore.matmul_async(np.ones((2, 3)), np.ones((4, 2)))", ValueError,
     r"matmul: a is \(2, 3\) and b is \(4, 2\): a's columns \(3\) must equal b's rows \(4\)"),
    ("pycore.matmul_async(np.ones((2, 2, 3)), np.ones((3, 3, 2)))", ValueError,
     r"matmul: the batch axes of a \(2, 2, 3\) and b \(3, 3, 2\) do not broadcast"),
    ("pycore.matmul_async(np.ones(3), np.ones(()))", ValueError, "matmul: b must have at least 1 dimension"),
    ("pycore.convolve2d_async(np.ones((3, 3)), np.ones((5, 5)))", ValueError,
     r"convolve2d: kernel \(5, 5\) is larger than image \(3, 3\) in \"valid\" mode"),
    ("pycore.convolve2d_async(np.ones((3, 3)), np.ones((2, 2)), mode='full')", ValueError, "mode must be"),
    ("pycore.convolve2d_async(np.ones((3, 3)), np.ones((0, 2)))", ValueError, "kernel is empty"),
    ("pycore.convolve2d_async(np.ones(3), np.ones((1, 1)))", ValueError, "image must be 2-D"),
    ("pycore.sigmoid_async(np.array([1j]))", TypeError, "x: dtype complex128 cannot be converted"),
    ("pycore.matmul_async([[1]], np.array([['a']]))", TypeError, "b: dtype <U1"),
])
def test_bad_arguments_raise_clear_errors(call, error, match):
    with pytest.raises(error, match=match):
        run(eval(call, {"pycore": pycore, "np": np}))


@pytest.mark.parametrize("module", [
    "pycore", "pycore.engine.pool", "pycore.array.convert", "pycore.kernels.wgsl", "pycore.choice.selector",
    "pycore.calls.gpuarray", "pycore.bench.calibrate", "pycore.engine.session", "pycore.engine.device",
    "pycore.tables.samples", "pycore.calls.programs", "pycore.bench.sweep", "pycore.kernels.fusion",
    "pycore.tables.ops", "pycore.array.layout", "pycore.kernels.parts", "pycore.kernels.plan",
    "pycore.calls.arguments", "pycore.calls.placing", "pycore.calls.creation", "pycore.calls.manipulation",
    "pycore.calls.datatypes", "pycore.calls.namespace", "pycore.bench.functions", "pycore.bench.cli",
    "pycore.bench.pipelines", "pycore.calls.jit", "pycore.engine.capture"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    mod = importlib.import_module(module)

    def run_examples() -> doctest.TestResults:
        finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner(
            checker=CloseNumbers(), optionflags=doctest.NORMALIZE_WHITESPACE)
        for test in finder.find(mod, mod.__name__):
            runner.run(test)
        return runner.summarize(verbose=False)

    result = in_thread(run_examples)
    assert result.failed == 0 and result.attempted > 0


_NUMBER = re.compile(r"-?(?:\d+\.?\d*(?:e[-+]?\d+)?|inf|nan)", re.IGNORECASE)


class CloseNumbers(__import__("doctest").OutputChecker):
    """The examples' output, with each floating-point number allowed a few float32 ULPs: NumPy's
    float32 exp, log, cosh, ... (the NumPy backend's) differ in the last bit between CPUs (its
    AVX-512 and AVX2 code), and float32 prints its shortest repr, so 2.0 may read 2.0000002."""

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        if super().check_output(want, got, optionflags):
            return True
        wants, gots = _NUMBER.findall(want), _NUMBER.findall(got)
        def shape(text: str) -> str:  # (NumPy pads the numbers to one width)
            return re.sub(r"\s+", "", _NUMBER.sub("#", text))

        if len(wants) != len(gots) or shape(want) != shape(got):
            return False
        a, b = np.array(wants, np.float64), np.array(gots, np.float64)
        return bool(np.allclose(a, b, rtol=4e-7, atol=1e-12, equal_nan=True))


def test_the_api_reference_page_is_current():
    from scripts.readme import API, api_reference

    assert API.read_text() == api_reference(), "run: python3 scripts/readme.py"


def test_help_starts_with_a_map_and_lists_no_internals():
    import pydoc

    text = pydoc.render_doc(pycore, renderer=pydoc.plaintext)
    description = text[text.index("DESCRIPTION"):text.index("PACKAGE CONTENTS")]
    assert "element-wise" in description and "reductions" in description and "docs/api.md" in description
    assert "class BackendSelector" not in text and "class Calibration" not in text
    assert set(pycore.__all__) >= {"add_async", "sum_async", "GpuArray", "to_gpu_async"}
    assert not {"OPS", "BackendSelector", "Calibration"} & set(pycore.__all__)


def test_readme_op_reference_is_current():
    from scripts.readme import README, op_reference, replace_section

    text = README.read_text()
    assert replace_section("ops", op_reference(), text=text) == text, "run: python3 scripts/readme.py"


def test_backend_and_explain_arguments_are_checked():
    with pytest.raises(ValueError, match="relu: backend must be one of 'auto', 'gpu', 'numpy', got 'cuda'"):
        run(pycore.relu_async([1.0], backend="cuda"))
    with pytest.raises(RuntimeError, match="backend='gpu' asked for, but there is no WebGPU device"):
        run(pycore.relu_async([1.0], backend="gpu"))
    with pytest.raises(ValueError, match="explain: unknown op 'conv'"):
        pycore.explain("conv", (3, 3))
    with pytest.raises(ValueError, match=r"explain: matmul takes 2 input shape\(s\), got 1"):
        pycore.explain("matmul", (3, 3))
    with pytest.raises(TypeError, match="x: dtype object"):
        run(pycore.to_gpu_async(np.array([object()])))


def test_selector_decisions_with_injected_calibration():
    from pycore.choice.selector import BackendSelector, Calibration

    slow_link = BackendSelector(Calibration(dispatch_ms=3.5, upload_gbps=0.5, readback_gbps=0.5,
                                            gpu_gflops={k: 2000.0 if k == "matmul" else 50.0 for k in KINDS},
                                            numpy_gflops={k: 0.3 if k == "matmul" else 1.0 for k in KINDS}))
    relu, matmul = OPS["relu"], OPS["matmul"]
    assert slow_link.predict(relu, [(1_000_000,)]).choice == "numpy"  # transfers never repaid
    assert slow_link.predict(relu, [(1_000_000,)], [True], result_on_gpu=True).choice == "webgpu"
    assert slow_link.predict(matmul, [(64, 64), (64, 64)]).choice == "numpy"
    assert slow_link.predict(matmul, [(1000, 1000), (1000, 1000)]).choice == "webgpu"
    pick = slow_link.predict(matmul, [(300, 300), (300, 300)])
    assert pick.choice == "webgpu"
    slow_link.margin = pick.numpy_ms / pick.gpu_ms * 1.01  # demand a bigger win than it offers
    assert slow_link.predict(matmul, [(300, 300), (300, 300)]).choice == "numpy"


def test_close_calls_are_settled_by_measuring_both_backends():
    from pycore.choice.selector import BackendSelector, Calibration

    relu, matmul = OPS["relu"], OPS["matmul"]
    # Predictions 10% apart at 1000 elements (webgpu ahead); far apart at 1M elements.
    sel = BackendSelector(Calibration(dispatch_ms=0.9, numpy_call_ms=1.0))
    far = sel.choose(relu, [(1_000_000,)])
    assert far.predicted and not far.measuring  # decided by prediction alone
    order = []
    n = sel.samples
    for _ in range(2 * n):
        c = sel.choose(relu, [(1000,)])
        assert c.measuring and "measuring both backends" in c.why
        order.append(c.backend)
        sel.observe(c, {"webgpu": 2.5, "numpy": 0.4}[c.backend])
    assert order == ["webgpu", "numpy"] * n  # the predicted one first, then alternating
    settled = sel.choose(relu, [(1000,)])
    assert (settled.backend, settled.measuring) == ("numpy", False)
    assert "measured here" in settled.why and sel.measured(relu, [(1000,)])["numpy"] == [0.4] * n
    for _ in range(n):  # NumPy slows down (a busy page): auto moves back to the GPU
        sel.observe(sel.choose(relu, [(1000,)]), 6.0)
    assert sel.choose(relu, [(1000,)]).backend == "webgpu"
    # Placement is part of the call: the same shapes with the input on the GPU are measured apart.
    assert sel.measured(relu, [(1000,)], [True]) == {"webgpu": [], "numpy": []}
    # Those NumPy calls took 6x what was predicted, 3 in a row: the model's NumPy relu rate was
    # corrected to match them (see test_off_calls_correct_the_rate_they_used); back to the start.
    assert sel.predict(relu, [(1000,)]).numpy_ms == pytest.approx(6.0)
    sel.calibration = Calibration(dispatch_ms=0.9, numpy_call_ms=1.0)
    sel.forget_measurements()
    assert sel.choose(relu, [(1000,)]).measuring
    # The backend not chosen is tried again now and then; while it stays slower, ever more rarely.
    from pycore.choice.selector import REPROBE

    def settled_calls(times, count):
        picks = []
        for _ in range(count):
            c = sel.choose(relu, [(1000,)])
            picks.append(c.backend)
            sel.observe(c, times[c.backend])
        return picks

    sel.forget_measurements()
    settled_calls({"webgpu": 2.5, "numpy": 0.4}, 2 * n)  # settled: NumPy
    picks = settled_calls({"webgpu": 2.5, "numpy": 0.4}, 3 * REPROBE)
    assert [i for i, b in enumerate(picks) if b == "webgpu"] == [REPROBE - 1, 3 * REPROBE - 1]
    # The GPU got faster (its first calls at a size were slow): the next probe shows it, and the
    # call is settled again by measuring both, now for the GPU.
    picks = settled_calls({"webgpu": 0.2, "numpy": 0.4}, 4 * REPROBE + 2 * n + 3)
    assert picks[-3:] == ["webgpu"] * 3 and sel.measured(relu, [(1000,)])["webgpu"] == [0.2] * n
    # Trying the other backend must be cheap: a 1024² NumPy matmul predicted 0.5 s slower a call is
    # never tried for the sake of it; one predicted a few ms off is, however long each call takes.
    slow = BackendSelector(Calibration(gpu_gflops={k: 1.0 for k in KINDS},
                                       numpy_gflops={k: 0.8 for k in KINDS}))
    pick = slow.predict(matmul, [(1024, 1024), (1024, 1024)])
    assert pick.numpy_ms / pick.gpu_ms < slow.explore_ratio
    assert slow.samples * (pick.numpy_ms - pick.gpu_ms) > slow.explore_ms
    assert not slow.choose(matmul, [(1024, 1024), (1024, 1024)]).measuring
    close = BackendSelector(Calibration(gpu_gflops={k: 1.0 for k in KINDS},
                                        numpy_gflops={k: 0.995 for k in KINDS}))
    near = close.predict(matmul, [(1024, 1024), (1024, 1024)])
    assert near.numpy_ms > 1000 and close.samples * abs(near.numpy_ms - near.gpu_ms) < close.explore_ms
    assert close.choose(matmul, [(1024, 1024), (1024, 1024)]).measuring
    slow.explore_ms = 1e9  # a changed setting forgets the cached decision
    assert slow.choose(matmul, [(1024, 1024), (1024, 1024)]).measuring
    for name, bad in (("samples", 0), ("samples", 2.5), ("explore_ratio", 0.5), ("margin", -1.0),
                      ("explore_ms", float("nan")), ("margin", "1")):
        with pytest.raises(ValueError, match=f"SELECTOR.{name} must be"):
            setattr(sel, name, bad)
    # Margin 0 (always the GPU) never measures NumPy.
    sel.margin = 0.0
    sel.forget_measurements()
    assert sel.choose(relu, [(1000,)]).predicted


def test_an_op_without_async_names_its_async_form():
    with pytest.raises(AttributeError, match=r"relu.*every pycore op is async.*await pycore\.relu_async"):
        pycore.relu  # noqa: B018
    with pytest.raises(AttributeError, match=r"no attribute 'nothing_like_an_op'$"):
        pycore.nothing_like_an_op  # noqa: B018


def test_explain_on_the_numpy_fallback_says_numpy():
    asyncio.run(pycore.init_async())  # this process runs on NumPy (conftest)
    got = pycore.explain("matmul", (1024, 1024), (1024, 1024))
    assert got["choice"] == "numpy" and got["backend_available"] == "numpy"
    assert got["why"].startswith("no WebGPU") and got["predicted_choice"] in ("webgpu", "numpy")


def test_an_uncalibrated_device_starts_from_its_adapter_class_defaults():
    from types import SimpleNamespace

    from pycore.bench.calibrate import load_saved
    from pycore.choice.selector import SELECTOR, Calibration
    from pycore.engine import settings

    saved, store = SELECTOR.calibration, settings.STORE
    settings.STORE = settings.Store()  # (keeps nothing)
    try:
        for cpu in (True, False):
            device = SimpleNamespace(cpu_adapter=cpu, adapter_info={})
            assert load_saved(device) is False
            want = Calibration.for_adapter(cpu)
            assert SELECTOR.calibration.gpu_gflops == want.gpu_gflops
            kind = "CPU" if cpu else "GPU"
            assert SELECTOR.calibration.source.startswith(f"defaults measured on a {kind}")
        matmul = [Calibration.for_adapter(cpu).gpu_gflops["matmul"] for cpu in (True, False)]
        assert matmul[0] < 50 < matmul[1]  # SwiftShader's ~10 GFLOP/s, a GPU's hundreds
    finally:
        SELECTOR.calibration, settings.STORE = saved, store


def test_a_calibration_resumes_from_its_saved_steps():
    """The background calibration saves its state after each step; a later visit carries on."""
    import asyncio
    import json

    from pycore.bench.calibrate import CalibrationRun

    first = CalibrationRun(repeats=1)
    asyncio.run(first.run("numpy relu"))
    state = json.loads(json.dumps(first.state()))  # (as kept in storage)
    again = CalibrationRun(repeats=1, state=state)
    assert again.done == ["numpy relu"] and again.cal.numpy_gflops["relu"] == first.cal.numpy_gflops["relu"]
    asyncio.run(again.run("numpy gelu"))
    assert again.done == ["numpy relu", "numpy gelu"]
    steps = again.steps(gpu=True)
    assert len(steps) == len(set(steps)) and "gpu matmul" in steps and "numpy call" in steps
    with pytest.raises(ValueError, match="no calibration step"):
        asyncio.run(again.run("tpu relu"))
