"""Measuring this browser (or process) and device for the backend selector, and remembering the result.

`await pycore.calibrate_async()` times, in this process: the fixed cost of one GPU call and of one
NumPy call, upload and readback bandwidth, and the GPU's and NumPy's rates on each kind of kernel.
Each figure is the median of a few runs, checked for plausibility before it is kept (CHECK_FACTOR,
4x): a run that far from the others is timed again, and a figure that far from its adapter class's
measured default is measured again, keeping the value its measurements support best (see
CalibrationRun.run). The result replaces the selector's defaults and is saved
in the settings store (settings.py: a browser's localStorage, or a file under ~/.cache/pycore
natively) for the next init_async() to load.

Saved state is checked before use (selector.parse_saved, Calibration.from_dict): state that is too
large, too deeply nested, not JSON, or has unknown fields or figures that are not finite positive
numbers is discarded with one warning, and the defaults are used. Nothing invalid is saved, and a
store that cannot be read, written or emptied never makes a call fail.
"""

from __future__ import annotations

import asyncio
import json
import numbers
import time
import warnings
from collections.abc import Awaitable, Callable
from contextvars import copy_context
from dataclasses import asdict
from typing import Any

import numpy as np

from pycore.choice.selector import (
    ADAPTER_DEFAULTS,
    NUMPY_DEFAULTS,
    SELECTOR,
    STORAGE_KEY,
    UPLOAD_KNEE,
    Calibration,
    InvalidCalibrationError,
    median,
    now,
    parse_saved,
)
from pycore.engine import settings
from pycore.engine.device import Device
from pycore.engine.progress import report as report_progress
from pycore.engine.runtime import QUIET, RUNTIME
from pycore.tables.kinds import KINDS
from pycore.tables.samples import shapes_for


class GiveWayError(Exception):
    """The user started a call: a background step gives way (and runs again later)."""


# Plausibility: a timed run more than CHECK_FACTOR from the median of a figure's other runs is
# timed again, and a figure more than CHECK_FACTOR from its adapter class's measured default
# (selector.ADAPTER_DEFAULTS, NUMPY_DEFAULTS) is measured again (see CalibrationRun.run).
CHECK_FACTOR = 4.0


def _apart(a: float, b: float) -> bool:
    """Whether a and b are more than CHECK_FACTOR apart (either way)."""
    return a > CHECK_FACTOR * b or b > CHECK_FACTOR * a


def _outliers(times: list[float]) -> int:
    """How many of `times` are more than CHECK_FACTOR from the median of them all (from the other
    one, of two).

    >>> _outliers([1.0, 1.1, 8.0]), _outliers([1.0, 1.2, 0.9]), _outliers([2.0]), _outliers([1.0, 5.0])
    (1, 0, 0, 2)
    """
    middle = median(times)
    if len(times) == 2:
        return 2 * _apart(*times)
    return sum(_apart(t, middle) for t in times)


async def _timed_runs(run: Callable[[], Awaitable[float]], repeats: int) -> list[float]:
    """The times of `repeats` runs after one warm-up run; each run more than CHECK_FACTOR from the
    others (_outliers) is answered by one more run (at most `repeats` more), so that the median
    (or the fastest) of them all is what most runs say."""
    await run()
    times = [await run() for _ in range(repeats)]
    for _ in range(min(_outliers(times), repeats)):
        times.append(await run())
    return times


async def _median_ms(fn: Callable[[], Awaitable[Any]], repeats: int, give_way: bool = False,
                     pick: Callable[[list[float]], float] = median) -> float:
    """The median time of `fn` after one warm-up run (pipelines compiled, buffers pooled), or
    what `pick` makes of the times; a run that disagrees with the others is timed again
    (_timed_runs). give_way: raise GiveWayError as soon as a call of the user's is under way."""
    async def run() -> float:
        if give_way and RUNTIME.calls_running:
            raise GiveWayError
        t = time.perf_counter()
        await fn()
        return (time.perf_counter() - t) * 1e3

    return pick(await _timed_runs(run, repeats))


async def _median_sync_ms(fn: Callable[[], Any], repeats: int) -> float:
    """The same for a synchronous `fn`, letting other work run between runs."""
    async def run() -> float:
        await asyncio.sleep(0)
        t = time.perf_counter()
        fn()
        return (time.perf_counter() - t) * 1e3

    return median(await _timed_runs(run, repeats))


CLOCK_FLOOR_MS = 1e-3  # a fixed cost measured below this (a coarse clock can give 0) counts as this


def _checked_repeats(repeats: Any, where: str) -> int:
    """`repeats` (runs timed per figure, after a warm-up run) if it is an int >= 1."""
    if isinstance(repeats, bool) or not isinstance(repeats, numbers.Integral):
        raise TypeError(f"{where}: repeats must be an int >= 1 (the runs timed per figure), got {repeats!r}")
    if repeats < 1:
        raise ValueError(f"{where}: repeats must be >= 1 (the runs timed per figure), got {repeats}")
    return int(repeats)


class CalibrationRun:
    """One calibration as steps that can run apart, each a few calls: the background calibration
    runs them while the page is idle and saves after each, so a later visit resumes where this one
    stopped. A step's name says what it measures; `state()` and `CalibrationRun(state=...)` carry
    a calibration over between visits.

    >>> run = CalibrationRun(repeats=1)
    >>> import asyncio; asyncio.run(run.run("numpy relu")); run.done, run.cal.numpy_gflops["relu"] > 0
    (['numpy relu'], True)
    """

    def __init__(self, repeats: int = 3, state: dict[str, Any] | None = None) -> None:
        """`repeats`: runs timed per figure (an int >= 1). `state`: what state() returned, checked
        (InvalidCalibrationError says what is wrong)."""
        self.repeats = _checked_repeats(repeats, "CalibrationRun")
        self.cal, self.done = self._checked(state) if state is not None else (Calibration(), [])
        self.give_way = False
        self.rechecked: dict[str, list[dict[str, float]]] = {}  # step -> its measurements, if several

    @classmethod
    def from_saved(cls, text: str, repeats: int = 3) -> CalibrationRun:
        """A calibration under way from its saved text (json of state()), checked as parse_saved
        and Calibration.from_dict say; raises InvalidCalibrationError naming what is wrong."""
        return cls(repeats, state=parse_saved(text))

    def _checked(self, state: Any) -> tuple[Calibration, list[str]]:
        if not isinstance(state, dict) or set(state) != {"cal", "done"}:
            raise InvalidCalibrationError("it is not an object of exactly 'cal' and 'done'")
        done, steps = state["done"], self.steps(gpu=True)
        if not isinstance(done, list) or any(not isinstance(d, str) or d not in steps for d in done) \
                or len(set(done)) != len(done):
            raise InvalidCalibrationError("'done' is not a list of distinct calibration steps")
        return Calibration.from_dict(state["cal"]), list(done)

    def state(self) -> dict[str, Any]:
        return {"cal": asdict(self.cal), "done": self.done}

    def steps(self, gpu: bool) -> list[str]:
        from pycore.tables.ops import OPS

        names = ["numpy call"] + [f"numpy {op}" for op in OPS]
        if gpu:
            names += ["gpu call", "upload", "readback"] + [f"gpu {op}" for op in OPS]
        return names

    @staticmethod
    def _sample(op_name: str) -> tuple[Any, list[np.ndarray], dict[str, Any], float]:
        from pycore.tables.ops import OPS

        op = OPS[op_name]
        rng = np.random.default_rng(sorted(OPS).index(op_name))
        shapes = shapes_for(op, KINDS[op.kind].sample_size)
        inputs = [rng.standard_normal(s, dtype=np.float32) for s in shapes]
        return op, inputs, op.typical_params(), op.flops(tuple(i.shape for i in inputs))

    async def run(self, name: str) -> None:
        """Measure step `name` into self.cal, checked for plausibility: a figure more than
        CHECK_FACTOR from its adapter class's default is measured again, and the better-supported
        value kept: both measurements' median where they agree (this device differs from the
        defaults), else the second where it agrees with the default (the first was a hiccup), else
        the median of a third measurement and those two. `rechecked` keeps each remeasured step's
        measurements."""
        if name not in self.steps(gpu=True):
            raise ValueError(f"no calibration step {name!r}")
        found = [await self._measure(name)]
        if any(self._implausible(fig, value) for fig, value in found[0].items()):
            found.append(await self._measure(name))
            if any(_apart(a, found[1][fig]) and self._implausible(fig, found[1][fig])
                   for fig, a in found[0].items()):
                found.append(await self._measure(name))
            self.rechecked[name] = found
        for fig in found[0]:
            setattr_figure(self.cal, fig, self._supported(fig, [f[fig] for f in found]))
        self.done.append(name)

    def _implausible(self, figure: str, value: float) -> bool:
        """Whether `value` is more than CHECK_FACTOR from the adapter class's default for `figure`."""
        default = _default(figure, RUNTIME.device.cpu_adapter if RUNTIME.device is not None else True)
        return default is not None and _apart(value, default)

    def _supported(self, figure: str, values: list[float]) -> float:
        """The value of `figure` that its measurements (see run) support best."""
        if len(values) == 1:
            return values[0]
        first, second = values[:2]
        if not _apart(first, second):
            return median([first, second])
        if len(values) == 2 or not self._implausible(figure, second):
            return second
        return median(values)

    async def _measure(self, name: str) -> dict[str, float]:
        """Measure step `name`: its figures ("dispatch_ms", ..., "numpy_gflops.relu"), unchecked."""
        from pycore.calls import api
        from pycore.calls.gpuarray import to_gpu_async
        from pycore.calls.programs import PROGRAMS

        cal, repeats, give_way = self.cal, self.repeats, self.give_way
        relu, tiny = api.PUBLIC["relu_async"], np.ones(256, np.float32)
        what, _, op_name = name.partition(" ")
        if name == "numpy call":
            took = await _median_ms(lambda: relu(tiny, backend="numpy"), repeats, give_way)
            return {"numpy_call_ms": max(took, CLOCK_FLOOR_MS)}
        if name == "gpu call":
            took = await _median_ms(lambda: relu(tiny, backend="gpu"), repeats, give_way)
            return {"dispatch_ms": max(took, CLOCK_FLOOR_MS)}
        if name in ("upload", "readback"):
            stream = np.random.default_rng(0).standard_normal(1 << 20, dtype=np.float32)
            assert RUNTIME.device is not None  # (the transfer steps run only on a WebGPU device)
            transport = RUNTIME.device.transport
            if name == "upload":
                def upload(data: np.ndarray) -> Callable[[], Any]:
                    async def run() -> None:
                        t = await to_gpu_async(data)
                        await transport.work_done_async()
                        t.release()
                    return run

                # Three sizes: the wait for the GPU (a fixed cost the model already counts in
                # dispatch_ms) must not pass for slow transfer, and uploads past UPLOAD_KNEE bytes
                # run at their own rate (see selector.py): bytes over the time they add. The
                # fastest of a few runs: the wait for the GPU's "done" jitters by a millisecond.
                small, mid, large = stream[:256], stream[:1 << 19], np.resize(stream, 1 << 22)
                ms = [await _median_ms(upload(x), max(repeats, 5), give_way, pick=min)
                      for x in (small, mid, large)]
                added_ms = max(ms[1] - ms[0], 0.25 * ms[1], 1e-3)
                upload_gbps = (mid.nbytes - small.nbytes) / (added_ms * 1e6)
                knee_ms = UPLOAD_KNEE / (upload_gbps * 1e6)
                beyond_ms = max(ms[2] - ms[0] - knee_ms, 0.25 * (ms[2] - ms[0]), 1e-3)
                return {"upload_gbps": upload_gbps,
                        "upload_large_gbps": (large.nbytes - UPLOAD_KNEE) / (beyond_ms * 1e6)}
            # (the same way: two sizes, the fastest of a few runs)
            t_big, t_small = await to_gpu_async(stream), await to_gpu_async(stream[:256])
            try:
                ms = [await _median_ms(x.to_numpy_async, max(repeats, 5), give_way, pick=min)
                      for x in (t_small, t_big)]
            finally:
                t_big.release()
                t_small.release()
            added_ms = max(ms[1] - ms[0], 0.25 * ms[1], 1e-3)
            return {"readback_gbps": (stream.nbytes - 1024) / (added_ms * 1e6)}
        op, inputs, params, flops = self._sample(op_name)
        if what == "numpy":
            np_ms = await _median_sync_ms(lambda: PROGRAMS[op.kind].numpy(op, inputs, params), repeats)
            return {f"numpy_gflops.{op.name}": flops / (max(np_ms, 1e-3) * 1e6)}
        fn = api.PUBLIC[op.public_name]
        gpu_ms = await _median_ms(lambda: fn(*inputs, **params, backend="gpu"), repeats, give_way)
        out_bytes = 4 * int(np.prod(PROGRAMS[op.kind].out_shape(tuple(i.shape for i in inputs), params)))
        moved = cal.upload_ms(sum(i.nbytes for i in inputs)) + out_bytes / (cal.readback_gbps * 1e6)
        return {f"gpu_gflops.{op.name}": flops / (max(gpu_ms - cal.dispatch_ms - moved, 0.05 * gpu_ms) * 1e6)}

    def finish(self, how: str) -> Calibration:
        self.cal.source = f"calibrated {now()} on {RUNTIME.tier()}{how}"
        self.cal.corrected = {}  # (all measured now)
        return self.cal


def _default(figure: str, cpu_adapter: bool) -> float | None:
    """The adapter class's measured default of `figure` (a step's figure name), None if it has none."""
    table, _, op = figure.partition(".")
    if table == "numpy_gflops":
        return NUMPY_DEFAULTS.get(op)
    figures = ADAPTER_DEFAULTS["cpu" if cpu_adapter else "gpu"]
    found = figures[table].get(op) if op else figures.get(table)
    return float(found) if found else None


def setattr_figure(cal: Calibration, figure: str, value: float) -> None:
    """Set `figure` ("dispatch_ms", ..., "gpu_gflops.relu") of `cal` to `value`."""
    table, _, op = figure.partition(".")
    if op:
        getattr(cal, table)[op] = value
    else:
        setattr(cal, table, value)


async def calibrate_async(repeats: int = 3, save: bool = True) -> dict[str, Any]:
    """Measure this browser (or process) and device; the selector uses the figures from now on. Returns them.

    Measured: the fixed cost of a GPU call (a 256-element relu round trip) and of a NumPy call,
    upload and readback bandwidth, and for every op its GPU and NumPy rate at one sample size (the
    GPU's from a full round trip, less the modelled fixed and transfer costs, so that the model adds
    back up to what was measured). Rates are per op: ops of one kind differ more than their FLOP
    counts say (on SwiftShader a gelu costs what a relu costs; in NumPy it costs 10 times more).
    Saved per adapter, for the next visit (save=False: not saved). (A page calibrates by itself in
    the background: see calibrate_in_background.) repeats: the runs timed per figure, an int >= 1
    (each figure is their median).

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.calibrate_async(repeats=1, save=False))["numpy_gflops"]["matmul"] > 0
    True
    """
    repeats = _checked_repeats(repeats, "calibrate_async")
    await RUNTIME.init_async()
    run = CalibrationRun(repeats)
    steps = run.steps(RUNTIME.backend == "webgpu")
    for i, name in enumerate(steps):
        report_progress("calibrate", i, len(steps), name)
        await run.run(name)
    SELECTOR.calibration = cal = run.finish("")
    device = RUNTIME.device
    if save and device is not None:
        _keep(storage_key(device), cal)
        _keep(storage_key(device) + PARTIAL, None)
    return _rounded(cal)


# -- in the background
IDLE_S = 1.0  # the user's calls must have left the device alone this long before a step runs
IDLE_POLL_S = 0.25
PARTIAL = ":partial"  # the key suffix of a calibration under way
_background: dict[str, Any] = {"on": False, "task": None}


def calibrate_in_background() -> None:
    """From now on, calibrate by itself: whenever a device is acquired without a saved calibration
    for its adapter, measure it step by step (see CalibrationRun) while no call of the user's has
    run for IDLE_S, giving way as soon as one starts. Each step is saved, so a later visit resumes;
    progress is reported as the task "background calibration" (pycore.engine.progress); its calls are
    not traced. The page does this once pycore is up; `calibrate_async()` measures at once instead."""
    _background["on"] = True
    if RUNTIME.device is not None:
        _start(RUNTIME.device)


def _start(device: Device) -> None:
    if not _background["on"] or SELECTOR.calibration.source.startswith("calibrated"):
        return
    task = _background["task"]
    if task is not None and not task.done():
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    context = copy_context()
    context.run(QUIET.set, True)  # its calls are pycore's own: not traced, not activity
    _background["task"] = loop.create_task(_background_async(device), context=context)


async def _background_async(device: Device) -> None:
    key = storage_key(device) + PARTIAL
    run = _load(key, CalibrationRun.from_saved, "calibration under way",
                "it starts again from the first step") or CalibrationRun()
    run.give_way = True
    steps = run.steps(gpu=True)
    for name in steps:
        if name in run.done:
            continue
        while True:
            if device is not RUNTIME.device or SELECTOR.calibration.source.startswith("calibrated"):
                return  # lost, or calibrated meanwhile by calibrate_async()
            if RUNTIME.idle_s() >= IDLE_S:
                try:
                    await run.run(name)
                    break
                except GiveWayError:
                    pass
                except Exception as exc:  # a step that cannot be measured: stop, keep the defaults
                    device.errors = [*device.errors[-7:], f"background calibration, {name}: {exc}"]
                    return
            await asyncio.sleep(IDLE_POLL_S)
        _keep(key, run)
        report_progress("background calibration", len(run.done), len(steps), name)
    if device is RUNTIME.device and not SELECTOR.calibration.source.startswith("calibrated"):
        try:
            cal = run.finish(" (in the background)").checked()
        except InvalidCalibrationError as exc:  # (a measurement gave something unusable)
            device.errors = [*device.errors[-7:], f"background calibration: not used, {exc}"]
            _keep(key, None)
            return
        SELECTOR.calibration = cal
        _keep(storage_key(device), cal)
        _keep(key, None)


def _rounded(cal: Calibration) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in cal.__dict__.items():
        if isinstance(value, dict):
            out[key] = {k: round(v, 4) if isinstance(v, float) else v for k, v in value.items()}
        elif isinstance(value, float):
            out[key] = round(value, 4)
        else:
            out[key] = value
    return out


def storage_key(device: Device) -> str:
    """Where a calibration of this device's adapter is kept: one per adapter."""
    info = device.adapter_info
    adapter = "/".join(str(info.get(k, "")) for k in ("vendor", "architecture", "device", "description"))
    return f"{STORAGE_KEY}:{adapter}"


def load_saved(device: Device | None = None) -> bool:
    """Use the calibration saved by an earlier calibration of this device's adapter (the browser's
    localStorage; natively, a file under $PYCORE_CACHE_DIR or ~/.cache/pycore), if any and valid,
    else the measured defaults of its adapter class. Called when a device is acquired; never raises
    (saved state that cannot be read or is invalid is discarded with one warning)."""
    device = device or RUNTIME.device
    if device is None:
        return False
    cal = _load(storage_key(device), Calibration.from_json, "calibration",
                "this adapter's defaults are used until it is measured again")
    SELECTOR.calibration = cal or Calibration.for_adapter(device.cpu_adapter)  # measured class defaults
    return cal is not None


def _load(key: str, parse: Callable[[str], Any], what: str, instead: str) -> Any:
    """What `parse` makes of the text saved under `key`; None if there is none. Text that cannot
    be read or that `parse` refuses is discarded (if it can be) with one warning naming what was
    wrong and what happens `instead`."""
    try:
        text = settings.STORE.load(key)
        if not text:
            return None
        return parse(text)
    except InvalidCalibrationError as exc:
        why = str(exc)
    except Exception as exc:  # (unreadable: not UTF-8, too large, a directory, storage refused)
        why = f"it cannot be read: {type(exc).__name__}: {exc}"
    warnings.warn(f"pycore: the saved {what} {key!r} is unusable and was discarded ({why}); {instead}",
                  RuntimeWarning, stacklevel=3)
    _keep(key, None)
    return None


def _keep(key: str, value: Calibration | CalibrationRun | None) -> bool:
    """Save `value` under `key` (None forgets it) if it is valid, as its loader will check it:
    invalid state is never saved. Whether it was kept; a store that refuses (full, read-only, a
    directory where the file should be) is no error."""
    try:
        if isinstance(value, CalibrationRun):
            state = json.dumps(value.state())
            CalibrationRun.from_saved(state)
            text: str | None = state
        else:
            text = value.checked().to_json() if value is not None else None
        settings.STORE.save(key, text)
        return True
    except Exception:
        return False


def _save_correction(cal: Calibration) -> None:
    """Save a calibration the selector corrected by use (selector.py) for this device's adapter,
    where calibrations are kept, for the next visit."""
    if RUNTIME.device is not None:
        _keep(storage_key(RUNTIME.device), cal)


def _on_device(device: Device | None) -> None:
    if device is not None:
        try:
            load_saved(device)
        except Exception:  # (load_saved handles its failures; a device must never fail because of it)
            SELECTOR.calibration = Calibration.for_adapter(device.cpu_adapter)
        _start(device)


RUNTIME.on_device.append(_on_device)
SELECTOR.on_corrected = _save_correction
