"""A calibration that measured something wrong does not stay wrong: calibration checks its figures
for plausibility before they are saved, and auto's own calls correct (and save) a rate they
contradict. Times here come from a model of the "true" speeds (or a fake clock), so that every run
is the same."""

from __future__ import annotations

import asyncio
import json
from itertools import pairwise
from types import SimpleNamespace
from typing import Any

import pytest

from pycore.bench import calibrate
from pycore.bench.calibrate import CHECK_FACTOR, CalibrationRun, load_saved, storage_key
from pycore.choice.selector import (
    CORRECT_AFTER,
    DOUBT,
    NUMPY_DEFAULTS,
    OFF_FACTOR,
    SELECTOR,
    BackendSelector,
    Calibration,
    InvalidCalibrationError,
)
from pycore.engine import settings
from pycore.engine.runtime import RUNTIME
from pycore.tables.ops import OPS
from tests.harness import Native

CONV = OPS["convolve2d"]
BIG = [(512, 512), (5, 5)]  # on a CPU adapter: the GPU ~4.5x slower than NumPy, predictions far apart
SMALL = [(128, 128), (5, 5)]  # ... predictions close enough that auto measures both


@pytest.fixture(autouse=True)
def keep_selector():
    saved = SELECTOR.calibration
    yield
    SELECTOR.calibration = saved


def corrupted(truth: Calibration, factor: float = 8.0) -> Calibration:
    """`truth` with NumPy's convolve2d rate `factor` times too low (what a calibration once saved)."""
    return Calibration(**{**truth.__dict__, "numpy_gflops": {
        **truth.numpy_gflops, "convolve2d": truth.numpy_gflops["convolve2d"] / factor}})


def calls(sel: BackendSelector, truth: BackendSelector, op: Any, shapes: list, count: int) -> list[str]:
    """`count` auto calls of op on shapes, each taking the time `truth` predicts for the backend
    that ran; the backends that ran."""
    ran = []
    for _ in range(count):
        choice = sel.choose(op, shapes)
        sel.observe(choice, truth.predict(op, shapes).ms(choice.backend))
        ran.append(choice.backend)
    return ran


def corrected_after(sel: BackendSelector, truth: BackendSelector, shapes: list, limit: int = 50) -> int:
    """How many calls it took until sel's NumPy convolve2d rate was corrected (limit: fail)."""
    for n in range(1, limit + 1):
        calls(sel, truth, CONV, shapes, 1)
        if "numpy:convolve2d" in sel.calibration.corrected:
            return n
    pytest.fail(f"not corrected in {limit} calls")


@pytest.mark.parametrize("shapes", [BIG, SMALL], ids=["decided-by-prediction", "measured"])
def test_a_rate_that_calls_contradict_is_corrected_within_a_few_calls(shapes):
    truth = BackendSelector(Calibration.for_adapter(True))
    sel = BackendSelector(corrupted(truth.calibration))
    saved: list[Calibration] = []
    sel.on_corrected = saved.append
    wrong = sel.predict(CONV, shapes)
    assert wrong.numpy_ms > 3 * truth.predict(CONV, shapes).numpy_ms
    if shapes is BIG:  # the wrong rate sends it to the GPU, 4.5x slower, by prediction alone
        assert sel.choose(CONV, shapes).backend == "webgpu" and sel.choose(CONV, shapes).predicted
    n = corrected_after(sel, truth, shapes)
    assert n <= 8, n
    right = NUMPY_DEFAULTS["convolve2d"]
    assert sel.calibration.numpy_gflops["convolve2d"] == pytest.approx(right, rel=0.01)
    assert sel.predict(CONV, shapes).numpy_ms == pytest.approx(truth.predict(CONV, shapes).numpy_ms, rel=0.01)
    assert saved == [sel.calibration]  # handed over to be saved, once
    assert sel.calibration.corrected["numpy:convolve2d"].endswith("UTC")
    assert sel.calibration.rate("numpy", "convolve2d", "conv2d")[1].startswith("corrected by use ")
    # From then on NumPy runs it (settled by measuring, or predicted; the GPU tried now and then),
    # and nothing else changes.
    ran = calls(sel, truth, CONV, shapes, 30)
    assert ran.count("numpy") >= 25 and sel.choose(CONV, shapes).backend == "numpy"
    assert len(saved) == 1 and sel.calibration.gpu_gflops == truth.calibration.gpu_gflops


def test_a_saved_calibration_corrected_by_use_is_saved_and_loads_next_time(tmp_path, monkeypatch):
    monkeypatch.setenv("PYCORE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(settings, "STORE", settings.FileStore())
    dev = SimpleNamespace(cpu_adapter=True, errors=[], adapter_info={"vendor": "test", "device": "trust"})
    monkeypatch.setattr(RUNTIME, "device", dev)
    truth = BackendSelector(Calibration.for_adapter(True))
    bad = corrupted(truth.calibration)
    bad.source = "calibrated 2025-01-02 03:04 UTC on a test (in the background)"
    settings.STORE.save(storage_key(dev), bad.to_json())
    assert load_saved(dev) is True and SELECTOR.calibration == bad
    assert corrected_after(SELECTOR, truth, BIG) <= 8
    kept = Calibration.from_json(settings.STORE.load(storage_key(dev)) or "")
    assert kept == SELECTOR.calibration and kept.source == bad.source  # (the calibration, corrected)
    assert kept.numpy_gflops["convolve2d"] == pytest.approx(NUMPY_DEFAULTS["convolve2d"], rel=0.01)
    SELECTOR.calibration = Calibration()
    assert load_saved(dev) is True and SELECTOR.calibration == kept  # the next visit starts corrected
    assert kept.origin("convolve2d", "conv2d").startswith("corrected by use ")
    assert kept.origin("relu", "unary") == "calibrated 2025-01-02 03:04 UTC"


def test_one_off_call_or_calls_off_both_ways_correct_nothing():
    truth = BackendSelector(Calibration.for_adapter(True))
    sel = BackendSelector(corrupted(truth.calibration, 1.0))  # (right)
    shapes = SMALL
    right = sel.predict(CONV, shapes)
    choice = sel.choose(CONV, shapes)
    for ms in (40 * right.ms(choice.backend), right.ms(choice.backend)) * 3:  # (a first compile, say)
        sel.observe(choice, ms)
    for _ in range(2):  # off by 10x, one way then the other
        sel.observe(choice, 10 * right.ms(choice.backend))
        sel.observe(choice, right.ms(choice.backend) / 10)
    assert sel.calibration == truth.calibration and CORRECT_AFTER > 1


def test_a_rate_is_not_corrected_where_the_other_terms_alone_are_off():
    # A 1000-element relu on the GPU predicted at ~3.7 ms, nearly all of it the fixed cost of a
    # call: calls taking 0.3 ms say that cost is off, not relu's rate; the calls are flagged only.
    sel = BackendSelector(Calibration.for_adapter(True), margin=0.0)  # (always the GPU)
    relu = OPS["relu"]
    for _ in range(2 * CORRECT_AFTER):
        sel.observe(sel.choose(relu, [(1000,)]), 0.3)
    assert sel.calibration == Calibration.for_adapter(True)
    last = sel.last_call(relu, [(1000,)])
    assert last is not None and last["off"] and last["ratio"] < 1 / OFF_FACTOR and last["backend"] == "webgpu"


def test_a_call_decided_by_prediction_tries_the_other_backend_ever_more_rarely():
    truth = BackendSelector(Calibration.for_adapter(True))
    sel = BackendSelector(Calibration.for_adapter(True))
    shapes = [(2048, 2048), (5, 5)]  # NumPy predicted (rightly) far faster
    p = sel.predict(CONV, shapes)
    assert p.choice == "numpy" and p.gpu_ms > 3 * p.numpy_ms
    ran = calls(sel, truth, CONV, shapes, 400)
    tries = [i for i, b in enumerate(ran) if b == "webgpu"]
    assert 3 <= len(tries) <= 6 and tries[0] >= 4  # its first try after a few calls, then rarer
    gaps = [b - a for a, b in pairwise([0, *tries])]
    assert all(later >= 1.8 * earlier for earlier, later in pairwise(gaps)), gaps
    extra = len(tries) * (p.gpu_ms - p.numpy_ms)
    assert extra <= 0.25 * sum(truth.predict(CONV, shapes).ms(b) for b in ran)
    assert sel.calibration == truth.calibration  # (the tries agreed with the prediction)
    sel.margin = 0.0  # the GPU whatever NumPy takes: NumPy is never tried
    assert calls(sel, truth, CONV, [(64, 64), (3, 3)], 200) == ["webgpu"] * 200
    # Nor is a backend whose fixed costs alone exceed the other's time: no wrong rate hides a win.
    sel.margin = 1.0
    relu = OPS["relu"]
    assert sel.predict(relu, [(1000,)]).choice == "numpy" and DOUBT >= 10
    assert calls(sel, truth, relu, [(1000,)], 3000) == ["numpy"] * 3000


def test_calls_report_how_their_predictions_fared():
    truth = BackendSelector(Calibration.for_adapter(True))
    sel = BackendSelector(corrupted(truth.calibration))
    assert sel.last_calls() == [] and sel.last_call(CONV, BIG) is None
    calls(sel, truth, CONV, BIG, 1)
    (last,) = sel.last_calls()
    assert last == sel.last_call(CONV, BIG)
    assert last["op"] == "convolve2d" and last["shapes"] == [[512, 512], [5, 5]]
    assert last["backend"] == "webgpu"
    assert last["on_gpu"] == [False, False] and last["result_on_gpu"] is False
    assert last["predicted_ms"] == sel.predict(CONV, BIG).gpu_ms and not last["off"]
    assert last["prediction_from"] == "default"
    calls(sel, truth, CONV, BIG, 4)  # the fifth call tries NumPy: 8x faster than predicted
    last = sel.last_call(CONV, BIG)
    assert last is not None and last["backend"] == "numpy" and last["off"] and last["ratio"] < 1 / 7
    corrected_after(sel, truth, BIG)
    assert sel.last_call(CONV, BIG) is None  # (the predictions changed: they are checked afresh)
    calls(sel, truth, CONV, BIG, 1)
    last = sel.last_call(CONV, BIG)
    assert last is not None and not last["off"] and last["prediction_from"].startswith("corrected by use ")


@pytest.mark.parametrize("corrected, why", [
    ({"numpy:convolve2d": 5}, "not an object of times"),
    ({"numpy:convolve2d": "x" * 100}, "not an object of times"),
    ([], "not an object of times"),
    ({"cuda:convolve2d": "2025-01-02 03:04 UTC"}, "not a rate of this calibration"),
    ({"numpy:not_an_op": "2025-01-02 03:04 UTC"}, "not a rate of this calibration"),
])
def test_a_saved_correction_is_checked(corrected, why):
    data = {**Calibration.for_adapter(True).__dict__, "corrected": corrected}
    with pytest.raises(InvalidCalibrationError, match=why):
        Calibration.from_json(json.dumps(data))
    older = {k: v for k, v in Calibration.for_adapter(True).__dict__.items() if k != "corrected"}
    assert Calibration.from_json(json.dumps(older)).corrected == {}  # (saved before corrections existed)


def test_n_d_ops_get_rates_of_their_own_when_corrected():
    from pycore.calls.nd import nd_cost

    add = nd_cost("add", [(1 << 20,), (1 << 20,)])
    truth = BackendSelector(Calibration(numpy_gflops={**Calibration().numpy_gflops, "add": 5.0}))
    sel = BackendSelector(Calibration())
    for _ in range(3 * CORRECT_AFTER):
        choice = sel.choose(add, [(1 << 20,), (1 << 20,)])  # type: ignore[arg-type]
        sel.observe(choice, truth.predict(add, [(1 << 20,), (1 << 20,)]).ms(choice.backend))  # type: ignore[arg-type]
    assert sel.calibration.numpy_gflops["add"] == pytest.approx(5.0, rel=0.01)
    assert sel.calibration.numpy_gflops["binary"] == Calibration().numpy_gflops["binary"]  # (others' rate)
    assert Calibration.from_json(sel.calibration.to_json()) == sel.calibration


# -- plausibility of what calibration measures

class Clock:
    """A fake time.perf_counter: each timed run takes the next of `runs` ms (warm-up runs too)."""

    def __init__(self, runs: list[float]) -> None:
        self.runs, self.now, self.calls, self.started = list(runs), 0.0, 0, False

    def perf_counter(self) -> float:
        if self.started:  # (the end of a run)
            self.now += self.runs.pop(0) / 1e3
            self.calls += 1
        self.started = not self.started
        return self.now


def test_a_timed_run_that_disagrees_with_the_others_is_timed_again(monkeypatch):
    async def nothing() -> None:
        pass

    clock = Clock([50.0, 1.0, 9.0, 1.1, 0.9])  # warm-up, two runs 9x apart, then the two timed again
    monkeypatch.setattr(calibrate, "time", clock)
    assert asyncio.run(calibrate._median_ms(nothing, repeats=2)) == pytest.approx(1.05)
    assert clock.calls == 5
    clock = Clock([50.0, 1.0, 1.2, 1.1])  # runs that agree: none again
    monkeypatch.setattr(calibrate, "time", clock)
    assert asyncio.run(calibrate._median_ms(nothing, repeats=3)) == pytest.approx(1.1)
    assert clock.calls == 4


def test_a_figure_far_from_its_adapter_class_default_is_measured_again(monkeypatch):
    flops = CalibrationRun._sample("convolve2d")[3]
    right_ms = flops / (NUMPY_DEFAULTS["convolve2d"] * 1e6)  # a NumPy convolve2d as fast as the default
    # The first measurement 8x slow throughout (warm-up and 3 runs); measured again: as expected.
    clock = Clock([8 * right_ms] * 4 + [right_ms] * 4)
    monkeypatch.setattr(calibrate, "time", clock)
    run = CalibrationRun(repeats=3)
    asyncio.run(run.run("numpy convolve2d"))
    assert run.cal.numpy_gflops["convolve2d"] == pytest.approx(NUMPY_DEFAULTS["convolve2d"])
    assert list(run.rechecked) == ["numpy convolve2d"] and run.done == ["numpy convolve2d"]
    assert [m["numpy_gflops.convolve2d"] for m in run.rechecked["numpy convolve2d"]] == pytest.approx(
        [NUMPY_DEFAULTS["convolve2d"] / 8, NUMPY_DEFAULTS["convolve2d"]])


@pytest.mark.parametrize("measured, kept", [
    ([1.0], 1.0),  # plausible (the default is 1.15): measured once
    ([0.14, 1.1], 1.1),  # a hiccup: the second agrees with the default
    ([0.2, 0.24], 0.22),  # this device is slower than the defaults: both agree, their median
    ([0.1, 10.0, 0.12], 0.12),  # all over the place: the median of three
])
def test_the_better_supported_value_is_kept(monkeypatch, measured, kept):
    given = iter(measured)

    async def measure(self: CalibrationRun, name: str) -> dict[str, float]:
        return {"numpy_gflops.convolve2d": next(given)}

    monkeypatch.setattr(CalibrationRun, "_measure", measure)
    run = CalibrationRun()
    asyncio.run(run.run("numpy convolve2d"))
    assert run.cal.numpy_gflops["convolve2d"] == pytest.approx(kept)
    assert next(given, None) is None  # (measured as often as listed, no more)
    assert ("numpy convolve2d" in run.rechecked) == (len(measured) > 1)
    assert CHECK_FACTOR == 4.0  # (the README says so)


def test_a_calibration_step_that_does_not_exist_is_refused():
    with pytest.raises(ValueError, match="no calibration step 'gpu warp drive'"):
        asyncio.run(CalibrationRun().run("gpu warp drive"))


def test_a_finished_calibration_drops_earlier_corrections():
    run = CalibrationRun(state={"cal": Calibration.for_adapter(True).with_rate(
        "numpy", "relu", 2.0, "2025-01-02 03:04 UTC").__dict__, "done": []})
    assert run.cal.corrected
    cal = run.finish("")
    assert cal.corrected == {} and cal.calibrated_at() is not None
    assert cal.origin("relu", "unary").startswith("calibrated ")


def test_a_corrupted_saved_calibration_is_corrected_by_real_calls_natively(tmp_path):
    """On wgpu-native: a saved calibration whose NumPy convolve2d rate is 8x too low (its calls'
    rate measured here, divided by 8) is corrected by auto's own convolve2d calls within a few, and
    saved so."""
    worker = Native()
    try:
        r = worker.py(f"""
import os, time
from pycore.bench.calibrate import load_saved, storage_key
from pycore.engine.runtime import RUNTIME
from pycore.choice.selector import Calibration, SELECTOR
from pycore.engine.settings import STORE
os.environ["PYCORE_CACHE_DIR"] = {str(tmp_path)!r}
await pycore.init_async()
device = RUNTIME.device
image = np.random.default_rng(0).standard_normal((256, 256), dtype=np.float32)
kernel = np.ones((5, 5), np.float32) / 25
times = []
for _ in range(7):  # NumPy's rate on these calls, measured here
    t = time.perf_counter()
    await pycore.convolve2d_async(image, kernel, mode="same", backend="numpy")
    times.append(time.perf_counter() - t)
right = pycore.OPS["convolve2d"].flops([(256, 256), (5, 5)]) / (sorted(times)[3] * 1e9)
bad = Calibration.for_adapter(device.cpu_adapter)
bad.numpy_gflops["convolve2d"] = right / 8
bad.source = "calibrated 2025-01-02 03:04 UTC on a test"
STORE.save(storage_key(device), bad.to_json())
load_saved(device)
calls = 0
while "numpy:convolve2d" not in SELECTOR.calibration.corrected and calls < 40:
    await pycore.convolve2d_async(image, kernel, mode="same")
    calls += 1
kept = Calibration.from_json(STORE.load(storage_key(device)))
{{"calls": calls, "right": right, "now": SELECTOR.calibration.numpy_gflops["convolve2d"],
  "kept": kept.numpy_gflops["convolve2d"], "corrected": kept.corrected, "source": kept.source,
  "explain": pycore.explain("convolve2d", (256, 256), (5, 5))["prediction_from"]}}
""")
    finally:
        worker.close()
    assert r["calls"] <= 16, r  # (a busy machine's hiccups can cost a few calls)
    assert r["right"] / 4 < r["now"] < 3 * r["right"] and r["kept"] == r["now"], r  # (8x off before)
    assert list(r["corrected"]) == ["numpy:convolve2d"] and r["source"].startswith("calibrated 2025"), r
    assert r["explain"].startswith("corrected by use "), r


def test_a_call_timed_against_a_prediction_since_forgotten_corrects_nothing():
    sel = BackendSelector(Calibration.for_adapter(True))
    choice = sel.choose(CONV, BIG)  # (chosen, then the calibration changes while it runs)
    sel.calibration = Calibration.for_adapter(False)
    for _ in range(2 * CORRECT_AFTER):
        sel.observe(choice, choice.prediction.ms(choice.backend) * 10)  # type: ignore[union-attr]
    assert sel.calibration == Calibration.for_adapter(False) and sel.last_calls() == []


def test_a_call_predicted_to_take_next_to_nothing_is_checked_too():
    rates = {**Calibration().numpy_gflops, "relu": 1e4}
    sel = BackendSelector(Calibration(numpy_call_ms=1e-6, numpy_gflops=rates))
    relu = OPS["relu"]
    choice = sel.choose(relu, [(100,)])
    assert choice.backend == "numpy" and sel.predict(relu, [(100,)]).numpy_ms == 0.0  # (shown rounded)
    sel.observe(choice, 0.5)
    last = sel.last_call(relu, [(100,)])
    assert last is not None and last["off"] and last["ratio"] > 1000


def test_calls_a_coarse_clock_cannot_time_are_never_off():
    relu = OPS["relu"]
    sel = BackendSelector(Calibration.for_adapter(True), margin=0.0)  # (the GPU: ~3.7 ms predicted)
    for _ in range(2 * CORRECT_AFTER):  # timed as 0 ms (a clock that did not tick): nothing to compare
        sel.observe(sel.choose(relu, [(1000,)]), 0.0)
    assert sel.last_call(relu, [(1000,)]) is None
    sel = BackendSelector(Calibration.for_adapter(True))  # NumPy, ~0.05 ms predicted
    assert sel.predict(relu, [(1000,)]).numpy_ms < 0.1
    for _ in range(2 * CORRECT_AFTER):  # 0.2 ms: 4x the prediction, but under a page clock's grain
        sel.observe(sel.choose(relu, [(1000,)]), 0.2)
    last = sel.last_call(relu, [(1000,)])
    assert last is not None and last["ratio"] > OFF_FACTOR and not last["off"]
    assert sel.calibration == Calibration.for_adapter(True)
