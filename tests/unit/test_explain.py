"""pycore.explain() answers for every public op, from the same cost description the call itself
gives the selector, and says where its prediction came from and how the last such call fared."""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import Any

import numpy as np
import pytest

import pycore
from pycore.calls import nd as calls
from pycore.calls.api import PUBLIC
from pycore.calls.nd import NDPUBLIC
from pycore.choice.selector import SELECTOR, Calibration
from pycore.tables.ops import OPS
from pycore.tables.ufuncs import UFUNCS


@pytest.fixture(autouse=True)
def keep_selector():
    saved = SELECTOR.calibration
    yield
    SELECTOR.calibration = saved


def run(coro: Any) -> Any:
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # (no event loop of Playwright's here)
        return pool.submit(asyncio.run, coro).result()


def asked(monkeypatch: pytest.MonkeyPatch, call: Any) -> tuple[Any, list, list, bool]:
    """What a real call asks auto: its cost, shapes, placement and whether its result stays."""
    seen: list[tuple] = []
    placement = calls._placement

    def spy(name, backend, shapes, on_gpu, keep, cost, empty, unfit=None):
        seen.append((cost, shapes, on_gpu, keep))
        return placement(name, backend, shapes, on_gpu, keep, cost, empty, unfit)

    monkeypatch.setattr(calls, "_placement", spy)
    run(call)
    monkeypatch.undo()
    (found,) = seen
    return found


def public_ops() -> list[str]:
    return [name.removesuffix("_async") for name in dict.fromkeys([*PUBLIC, *NDPUBLIC])]


def shapes_of(op: str) -> list[tuple[int, ...]]:
    """Input shapes a call of `op` may have."""
    name = calls.ALIASES.get(op, op)
    if name in UFUNCS:
        return [(300, 200)] * UFUNCS[name].nin
    fixed = {"matmul": [(64, 32), (32, 16)], "dot": [(100,), (100,)], "convolve2d": [(64, 64), (3, 3)]}
    return fixed.get(op, [(300, 200)])


@pytest.mark.parametrize("op", public_ops())
def test_explain_answers_for_every_public_op(op):
    SELECTOR.calibration = Calibration.for_adapter(True)
    got = pycore.explain(op, *shapes_of(op))
    assert got["gpu_ms"] > 0 and got["numpy_ms"] > 0 and got["choice"] == "numpy"  # (no GPU here)
    assert got["predicted_choice"] in ("webgpu", "numpy")
    assert got["prediction_from"] == "default"
    assert set(got["rates"]) == {"webgpu", "numpy"} and got["last_call"] is None and got["off"] is False
    assert len(public_ops()) > len(OPS) and "mean" in public_ops() and "vec_add" in public_ops()


@pytest.mark.parametrize("op, args, kwargs, shapes, explained", [
    ("add", ([[1.0] * 300] * 200, [1.0] * 300), {}, [(200, 300), (300,)], {}),
    ("vec_add", ([1.0] * 1000, [2.0] * 1000), {}, [(1000,), (1000,)], {}),
    ("multiply", ([1.0] * 1000, 2.0), {}, [(1000,)], {}),  # (a Python scalar has no shape)
    ("sum", (np.ones((1000, 10), np.float32),), {"axis": 1}, [(1000, 10)], {"axis": 1}),
    ("sum", (np.ones((1000, 10), np.float32),), {}, [(1000, 10)], {}),  # (every axis)
    ("max", (np.ones((50, 40, 3), np.float32),), {"axis": (0, 2), "keepdims": True}, [(50, 40, 3)],
     {"axis": (0, 2), "keepdims": True}),
    ("var", (np.ones((64, 64), np.float32),), {"axis": -1}, [(64, 64)], {"axis": -1}),
    ("argmax", (np.ones((64, 64), np.float32),), {"axis": 0}, [(64, 64)], {"axis": 0}),
    ("logical_not", ([True, False] * 500,), {}, [(1000,)], {}),
    ("softmax", (np.ones((64, 300), np.float32),), {"axis": 0}, [(64, 300)], {"axis": 0}),
    ("log_softmax", (np.ones((64, 300), np.float32),), {}, [(64, 300)], {}),
])
def test_explain_predicts_from_the_cost_the_call_gives_the_selector(monkeypatch, op, args, kwargs, shapes,
                                                                     explained):
    cost, call_shapes, on_gpu, keep = asked(monkeypatch, getattr(pycore, f"{op}_async")(*args, **kwargs))
    assert call_shapes == shapes
    want = SELECTOR.predict(cost, call_shapes, on_gpu, result_on_gpu=keep)
    got = pycore.explain(op, *shapes, **explained)
    assert (got["op"], got["gpu_ms"], got["numpy_ms"]) == (want.op, want.gpu_ms, want.numpy_ms)
    assert got["op"] == calls.ALIASES.get(op, op)


def test_sum_max_min_are_explained_as_the_n_d_reductions_they_are():
    whole = pycore.explain("sum", (4096, 256))
    rows = pycore.explain("sum", (4096, 256), axis=1)
    assert rows["gpu_ms"] > whole["gpu_ms"]  # (4096 sums read back, not one)
    assert pycore.explain("max", (4096, 256), axis=None) == pycore.explain("max", (4096, 256))
    # On the GPU with the result kept there: an axis reduction's result stays, a scalar does not.
    kept = pycore.explain("min", (4096, 256), axis=0, on_gpu=(True,))
    scalar = pycore.explain("min", (4096, 256), on_gpu=(True,))
    assert kept["numpy_ms"] > scalar["numpy_ms"]  # (NumPy would upload the kept result)


@pytest.mark.parametrize("args, kwargs, error, match", [
    (("add", (3,), (4,)), {}, ValueError, r"explain: add: shapes \(3,\) and \(4,\) do not broadcast"),
    (("add", (3,), (3,), (3,)), {}, ValueError, r"explain: add takes 1 or 2 input shape\(s\) .*got 3"),
    (("add",), {}, ValueError, r"explain: add takes 1 or 2 input shape\(s\)"),
    (("logical_not", (3,), (3,)), {}, ValueError, r"explain: logical_not takes 1 input shape\(s\), got 2"),
    (("sum", (3, 4), (3, 4)), {}, ValueError, r"explain: sum takes 1 input shape\(s\), got 2"),
    (("sum", (3, 4)), {"axis": 2}, ValueError, r"explain: axis 2 is out of range for an array of 2"),
    (("sum", (3, 4)), {"axis": (0, 0)}, ValueError, r"explain: axis \(0, 0\) names an axis twice"),
    (("argmax", (3, 4)), {"axis": (0, 1)}, TypeError, r"explain: axis must be an int"),
    (("max", (0, 3)), {}, ValueError, r"explain: max: x is empty"),
    (("min", (0, 3)), {"axis": 0}, ValueError, r"explain: min: reducing an empty axis"),
    (("relu", (3,)), {"axis": 0}, TypeError, r"explain: axis is a reduction's \(or softmax's\); relu"),
    (("add", (3,)), {"keepdims": True}, TypeError, r"explain: keepdims is a reduction's; add takes none"),
    (("sum", (3,)), {"keepdims": 1}, TypeError, r"explain: keepdims must be True or False"),
    (("softmax", (3, 4)), {"axis": 5}, ValueError, r"explain: "),
    (("add", (3, -1)), {}, ValueError, r"explain: add's x1 shape \(3, -1\) has a negative size"),
    (("mean", [2.5]), {}, TypeError, r"explain: mean's x shape must be a tuple of ints"),
    (("add", (3,)), {"on_gpu": (True, False)}, ValueError, r"on_gpu has 2 flag\(s\) for 1 input shape"),
    (("nonsense", (3,)), {}, ValueError, r"explain: unknown op 'nonsense'; the ops are relu, .*, mean, "),
    (([1], (3,)), {}, ValueError, r"explain: unknown op \[1\]; the ops are relu, "),
    ((None, (3,)), {}, ValueError, r"explain: unknown op None; "),
])
def test_explain_of_an_n_d_op_names_what_is_wrong(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        pycore.explain(*args, **kwargs)


def test_softmax_takes_its_axis():
    assert pycore.explain("softmax", (300, 200), axis=0)["op"] == "softmax"


def test_explain_says_where_its_prediction_came_from_and_flags_an_off_call():
    SELECTOR.calibration = Calibration.for_adapter(True)
    got = pycore.explain("convolve2d", (512, 512), (5, 5))
    assert got["prediction_from"] == "default"
    assert got["rates"]["numpy"] == {"gflops": 1.15, "from": "default"}
    when = "2025-01-02 03:04 UTC"
    SELECTOR.calibration = Calibration(**{**Calibration.for_adapter(True).__dict__,
                                          "source": f"calibrated {when} on a test"})
    assert pycore.explain("convolve2d", (512, 512), (5, 5))["prediction_from"] == f"calibrated {when}"
    # A rate of its own for n-d ops only once corrected: until then, its kind's default.
    assert pycore.explain("add", (1000,), (1000,))["prediction_from"] == "default"
    # A call that took 8x less than predicted: flagged, with what it measured.
    op, shapes = OPS["convolve2d"], [(512, 512), (5, 5)]
    p = SELECTOR.predict(op, shapes)
    choice = SELECTOR.choose(op, shapes)
    SELECTOR.observe(choice, p.ms(choice.backend) / 8)
    got = pycore.explain("convolve2d", (512, 512), (5, 5))
    assert got["off"] is True and got["last_call"]["backend"] == choice.backend
    assert got["last_call"]["ratio"] == pytest.approx(1 / 8, rel=1e-3)
    assert got["prediction_from"].startswith("calibrated")
    SELECTOR.observe(choice, p.ms(choice.backend))  # the next one as predicted
    assert pycore.explain("convolve2d", (512, 512), (5, 5))["off"] is False
    for _ in range(3):  # three off calls in a row: the rate is corrected
        SELECTOR.observe(choice, p.ms(choice.backend) / 8)
    got = pycore.explain("convolve2d", (512, 512), (5, 5))
    assert got["prediction_from"].startswith("corrected by use ") and got["last_call"] is None
    backend = choice.backend
    assert got["rates"][backend]["from"].startswith("corrected by use ")
    other = "numpy" if backend == "webgpu" else "webgpu"
    assert got["rates"][other]["from"] == f"calibrated {when}"


def test_explain_gives_the_decision_where_the_next_call_checks_the_prediction(monkeypatch):
    from types import SimpleNamespace

    from pycore.engine.runtime import RUNTIME

    monkeypatch.setattr(RUNTIME, "device", SimpleNamespace(max_binding=1 << 30))  # (as if there were a GPU)
    cal = Calibration.for_adapter(True)  # (a slow GPU add and a slow NumPy one: NumPy, by prediction)
    SELECTOR.calibration = Calibration(**{**cal.__dict__, "gpu_gflops": {**cal.gpu_gflops, "add": 0.05},
                                          "numpy_gflops": {**cal.numpy_gflops, "add": 0.1}})
    add, shapes = calls.nd_cost("add", [(1 << 20,), (1 << 20,)]), [(1 << 20,), (1 << 20,)]
    p = SELECTOR.predict(add, shapes)  # type: ignore[arg-type]
    assert pycore.explain("add", *shapes)["choice"] == p.choice == "numpy" and p.gpu_ms > 2 * p.numpy_ms
    for _ in range(100):
        choice = SELECTOR.choose(add, shapes)  # type: ignore[arg-type]
        if choice.probe:
            break
        SELECTOR.observe(choice, p.ms(choice.backend))
    assert choice.probe
    got = pycore.explain("add", *shapes)
    assert got["choice"] == p.choice != choice.backend and got["why"].startswith(p.why), got
    assert got["why"].endswith(f"the next such call tries {choice.backend}, to check the prediction")
