"""Misuse that once answered with another array's data, or with an internal error, now raises a clear
error naming what is wrong (on the NumPy transport, as every unit test: see tests/conftest.py)."""

from __future__ import annotations

import copy

import pytest

import pycore
from tests.unit.test_cpython_api import run


def test_copy_copy_is_a_view_that_ends_with_the_original():
    x = run(pycore.to_gpu_async([1.0, 2.0]))
    c = copy.copy(x)
    assert run(c.to_numpy_async()).tolist() == [1.0, 2.0] and "view" in repr(c)
    x.release()  # (on a GPU its buffer goes back to the pool: a copy reading it would read another array)
    with pytest.raises(RuntimeError, match=r"the array this view was taken of .* was released"):
        run(c.to_numpy_async())
    with pytest.raises(RuntimeError, match="was released"):
        run(pycore.relu_async(c))


def test_copy_deepcopy_says_to_copy_on_the_device():
    x = run(pycore.to_gpu_async([1.0, 2.0]))
    with pytest.raises(TypeError, match=r"await x\.copy_async\(\)"):
        copy.deepcopy(x)
    with pytest.raises(TypeError, match=r"copy_async"):
        copy.deepcopy({"x": x})


def test_an_upload_handle_of_a_released_gpu_array_refuses_to_be_read():
    async def go():
        x = await pycore.to_gpu_async([1.0, 2.0])
        async with pycore.CommandBatch() as b:
            h, y = b.upload(x), b.relu(x)
            await b.execute_async()
            first = (await b.read_async(h)).tolist()
            x.release()  # on a GPU the batch read x's buffer where it lies: it now holds another array
            with pytest.raises(RuntimeError, match=r"GpuArray the batch read where it lies .*was released"):
                await b.read_async(h)
            return first, (await b.read_async(y)).tolist()  # (a result has a buffer of its own)

    assert run(go()) == ([1.0, 2.0], [1.0, 2.0])


def test_a_handle_of_a_collected_batch_is_refused_by_a_new_one(monkeypatch):
    import gc

    from pycore.calls import batch as batch_module

    # CPython gives a collected object's id() to a new one: make every batch's id() the same
    monkeypatch.setattr(batch_module, "id", lambda obj: 4242, raising=False)
    old = pycore.CommandBatch()
    stale = old.relu([-1.0, 5.0])
    del old
    gc.collect()

    async def go():
        async with pycore.CommandBatch() as new:
            own = new.upload([7.0, 8.0])
            with pytest.raises(ValueError, match=r"batch\.relu: Handle\(#1 relu.*belongs to another Comm"):
                new.relu(stale)
            await new.execute_async()
            with pytest.raises(ValueError, match="belongs to another CommandBatch"):
                await new.read_async(stale)
            return (await new.read_async(own)).tolist()

    assert run(go()) == [7.0, 8.0]


@pytest.mark.parametrize("bad", [[1.0, 2.0], 0, None])
def test_read_async_of_something_not_a_handle_says_so(bad):
    async def go():
        async with pycore.CommandBatch() as b:
            b.upload([1.0])
            await b.execute_async()
            await b.read_async(bad)

    with pytest.raises(TypeError, match=r"batch\.read_async: expected a Handle of this CommandBatch"):
        run(go())


def test_a_second_execute_async_while_the_first_runs_is_refused(monkeypatch):
    import asyncio

    from pycore.engine.runtime import RUNTIME

    real_init = RUNTIME.init_async

    async def slow_init(transport=None):  # a GPU batch gives way here and there while it executes
        await asyncio.sleep(0.01)
        await real_init(transport)

    monkeypatch.setattr(RUNTIME, "init_async", slow_init)

    async def go():
        async with pycore.CommandBatch() as b:
            hs = [b.relu([float(i)] * 3) for i in range(4)]
            done = await asyncio.gather(b.execute_async(), b.execute_async(), return_exceptions=True)
            return done, [(await b.read_async(h)).tolist() for h in hs]

    done, values = run(go())
    assert done[0] is None and isinstance(done[1], RuntimeError) and "executing already" in str(done[1])
    assert values == [[float(i)] * 3 for i in range(4)]


def test_masked_arrays_are_refused_by_the_fixed_kernel_ops_too():
    import numpy as np

    masked = np.ma.masked_array([1.0, -2.0, 3.0], mask=[False, True, False])
    calls = [lambda: run(pycore.relu_async(masked)), lambda: run(pycore.matmul_async([[1.0]], masked[:1])),
             lambda: run(pycore.convolve2d_async(np.ones((3, 3)), np.ma.masked_array(np.ones((1, 1))))),
             lambda: pycore.CommandBatch().upload(masked), lambda: pycore.CommandBatch().softmax(masked),
             lambda: run(pycore.add_async(masked, 1.0))]  # (an n-d op: as_array refused it already)
    for call in calls:
        with pytest.raises(TypeError, match=r"^(x|x1|b|kernel): masked arrays are not supported \(the mask "
                                            r"would be lost\); pass x\.filled\(value\) or x\.compressed\(\)"):
            call()


@pytest.mark.parametrize("repeats, error", [(0, ValueError), (-2, ValueError), (1.5, TypeError),
                                            (True, TypeError), ("3", TypeError), (None, TypeError)])
def test_calibrate_async_names_a_bad_repeats(repeats, error):
    from pycore.bench.calibrate import CalibrationRun

    with pytest.raises(error, match=r"^calibrate_async: repeats must be (an int )?>= 1 \(the runs timed"):
        run(pycore.calibrate_async(repeats=repeats, save=False))
    with pytest.raises(error, match=r"^CalibrationRun: repeats must be"):
        CalibrationRun(repeats=repeats)


@pytest.mark.parametrize("args, kwargs, error, match", [
    (("relu", 5), {}, TypeError, r"explain: relu's x shape must be a tuple of ints, got 5"),
    (("relu", None), {}, TypeError, r"relu's x shape must be a tuple of ints, got None"),
    (("relu", (2.5,)), {}, TypeError, r"relu's x shape must be a tuple of ints, got \(2\.5,\)"),
    (("relu", ("a",)), {}, TypeError, r"relu's x shape must be a tuple of ints"),
    (("relu", (-3,)), {}, ValueError, r"explain: relu's x shape \(-3,\) has a negative size"),
    (("matmul", (2, 3), (-4, 5)), {}, ValueError, r"matmul's b shape \(-4, 5\) has a negative size"),
    (("relu", (3,), (3,)), {}, ValueError, r"explain: relu takes 1 input shape\(s\), got 2"),
    (("matmul", (2, 3), (4, 5)), {}, ValueError, r"explain: matmul: a is \(2, 3\) and b is \(4, 5\)"),
    (("convolve2d", (3,), (2, 2)), {}, ValueError, r"explain: convolve2d: image must be 2-D"),
    (("relu", (3,)), {"on_gpu": (True, True)}, ValueError, r"on_gpu has 2 flag\(s\) for 1 input shape"),
    (("relu", (3,)), {"on_gpu": True}, TypeError, r"on_gpu must be a tuple of bools"),
])
def test_explain_names_a_bad_shape(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        pycore.explain(*args, **kwargs)


def test_explain_takes_lists_numpy_ints_and_what_a_call_takes():
    import numpy as np

    assert pycore.explain("relu", [np.int64(3), 4])["choice"] == "numpy"  # (this process has no GPU)
    assert pycore.explain("matmul", (2, 3), [3, 4], on_gpu=[True, False])["op"] == "matmul"
    assert pycore.explain("dot", (2, 3), (3, 4))["op"] == "dot"  # (numpy.dot's shapes: a matmul)
    assert pycore.explain("convolve2d", (3, 3), (5, 5))["op"] == "convolve2d"  # (fits mode="same")


def test_a_selector_needs_a_whole_calibration():
    from pycore.choice.selector import KINDS, BackendSelector, Calibration, InvalidCalibrationError
    from pycore.tables.ops import OPS

    assert BackendSelector(calibration=None).predict(OPS["matmul"], [(8, 8), (8, 8)]).gpu_ms > 0  # defaults
    with pytest.raises(TypeError, match=r"SELECTOR\.calibration must be a Calibration, got NoneType"):
        pycore.SELECTOR.calibration = None
    with pytest.raises(TypeError, match="must be a Calibration, got str"):
        BackendSelector("fast")
    assert isinstance(pycore.SELECTOR.calibration, Calibration)  # (unchanged)
    for fields, match in [({"gpu_gflops": {"relu": 1.0}}, "gpu_gflops lacks the kinds unary, binary"),
                          ({"dispatch_ms": None}, "dispatch_ms is null, not a number"),
                          ({"readback_gbps": 0}, r"readback_gbps is 0 \(wanted a number from 1e-09"),
                          ({"numpy_gflops": {**dict.fromkeys(KINDS, 1.0), "relu": float("nan")}},
                           r"numpy_gflops\['relu'\] is nan"),
                          ({"numpy_gflops": {**dict.fromkeys(KINDS, 1.0), "fft": 1.0}}, "unknown ops"),
                          ({"source": 3}, "source is 3, not a string")]:
        with pytest.raises(InvalidCalibrationError, match=match):
            Calibration(**fields)
    assert Calibration(dispatch_ms=2).dispatch_ms == 2.0


def test_programs_say_which_shapes_a_device_cannot_take():
    from types import SimpleNamespace

    from pycore.calls.programs import PROGRAMS
    from pycore.tables.ops import OPS

    limits = {"max_binding": 1 << 27, "max_groups": 65535, "limits": {}}  # (what Device and GpuSession say)
    gpu = SimpleNamespace(**limits, loop_cap=None, cpu_adapter=False)
    capped = SimpleNamespace(**limits, loop_cap=65535, cpu_adapter=True)  # (llvmpipe's loop cap)
    conv, mm, rows = PROGRAMS["conv2d"], PROGRAMS["matmul"], PROGRAMS["rowwise"]
    conv2d, matmul, softmax = OPS["convolve2d"], OPS["matmul"], OPS["softmax"]
    valid, same = {"mode": "valid"}, {"mode": "same"}

    def says(problem, text):
        return isinstance(problem, ValueError) and text in str(problem)

    assert says(conv.unfit(gpu, conv2d, [(1, 1_100_000), (1, 1)], valid, False),
                "an output of 1 x 1100000 needs more than the device's 65535 workgroups per dimension")
    assert says(conv.unfit(gpu, conv2d, [(6000, 6000), (3, 3)], same, False), "image needs 144,000,000 bytes")
    assert says(conv.unfit(capped, conv2d, [(300, 300), (300, 300)], same, False), "300 x 300 kernel")
    assert conv.unfit(gpu, conv2d, [(1000, 1000), (3, 3)], same, True) is None
    assert says(mm.unfit(gpu, matmul, [(1, 1), (1, 10_000_000)], {}, False), "n = 10000000 columns")
    assert says(mm.unfit(gpu, matmul, [(2, 1, 1), (1, 10_000_000)], {}, False), "workgroups per dimension")
    assert says(mm.unfit(gpu, matmul, [(2, 6000), (6000, 6000)], {}, False), "b (6000, 6000) needs")
    assert mm.unfit(gpu, matmul, [(512, 512), (512, 512)], {}, True) is None
    assert mm.unfit(capped, matmul, [(2, 300_000), (300_000, 2)], {}, False) is None  # split on the host
    assert says(mm.unfit(capped, matmul, [(2, 300_000), (300_000, 2)], {}, True), "cannot be split")
    assert says(rows.unfit(gpu, softmax, [(2, 40_000_000)], {"axis": -1}, False), "one row needs 160,000,000")
    assert PROGRAMS["unary"].unfit(gpu, OPS["relu"], [(1 << 30,)], {}, False) is None  # (run in chunks)


def test_auto_runs_on_numpy_what_a_device_cannot_take(monkeypatch):
    # (a made-up device: no call below reaches it, each is one it cannot take)
    from types import SimpleNamespace

    import numpy as np

    from pycore.engine.runtime import RUNTIME

    run(pycore.init_async())
    small = SimpleNamespace(max_binding=4096, max_groups=16, loop_cap=None, cpu_adapter=False, limits={},
                            plans={}, backlogged=lambda: False)
    monkeypatch.setattr(RUNTIME, "device", small)
    x = np.arange(1100, dtype=np.float32).reshape(1, -1)  # one row of 4,400 bytes: no part of it fits
    cases = [(lambda **k: pycore.add_async(x, 1.0, **k), x + 1, "add: one row of the result (1, 1100)"),
             (lambda **k: pycore.softmax_async(x, **k), None, "softmax: one row needs 4,400 bytes"),
             (lambda **k: pycore.convolve2d_async(x[:, :600], [[2.0]], **k), x[:, :600] * 2,
              "an output of 1 x 600 needs more than the device's 16 workgroups per dimension")]
    for call, ref, needs in cases:
        got = run(call())
        assert ref is None or np.array_equal(got, ref)
        entry = pycore.trace()[-1]
        assert entry["backend"] == "numpy" and entry["why"].startswith("the GPU cannot take these shapes (")
        assert needs in entry["why"] and entry["why"].endswith("): ran on NumPy")


def test_auto_runs_on_numpy_what_an_n_d_planner_refuses(monkeypatch):
    from types import SimpleNamespace

    import numpy as np

    from pycore.engine.runtime import RUNTIME

    run(pycore.init_async())
    async def never_lost(seconds):
        return False

    capped = SimpleNamespace(max_binding=1 << 20, max_groups=65535, loop_cap=100, cpu_adapter=True, limits={},
                             plans={}, lost=None, transport=SimpleNamespace(lost_within_async=never_lost),
                             backlogged=lambda: False)
    # (the planner refuses before anything reaches this made-up device)
    monkeypatch.setattr(RUNTIME, "device", capped)
    monkeypatch.setattr(pycore.SELECTOR, "margin", 0.0)  # auto picks the GPU
    a, b = np.ones((2, 101), np.int32), np.ones((101, 3), np.int32)  # (integer products: k in one loop)
    assert np.array_equal(run(pycore.matmul_async(a, b)), np.full((2, 3), 101, np.int32))
    entry = pycore.trace()[-1]
    assert entry["backend"] == "numpy"
    assert entry["why"].startswith("the GPU cannot take these shapes (matmul: ")
    assert "more loop iterations per GPU thread than this adapter runs (100)" in entry["why"]
    with pytest.raises(ValueError, match=r"matmul: k = 101 needs more loop iterations per GPU thread"):
        run(pycore.matmul_async(a, b, backend="gpu"))
