"""Choosing the backend per call: a small cost model, calibrated on the user's own browser or machine.

Predicted GPU time  = fixed cost per call + upload time + bytes read back / readback bandwidth
                      + FLOPs / GPU rate
Upload time         = the first UPLOAD_KNEE bytes / upload bandwidth
                      + the bytes beyond it / large-upload bandwidth
Predicted NumPy time = fixed cost of a NumPy call + FLOPs / NumPy rate
                      (+ reading back inputs that live on the GPU, and uploading the result of a
                      call whose result is to stay there: the next GPU op needs it there)

(Dawn, Chrome's WebGPU, stages a call's writes in a 4 MiB ring: measured on an H100, uploads of up
to 2 MiB ran at 6-9 GB/s and the bytes of larger ones at 1.2-1.7 GB/s; calibration measures both.)
FLOP counts come from the op table; bytes from the shapes, minus inputs already on the GPU (and the
result, when it stays there). The GPU is chosen when predicted_gpu * margin <= predicted_numpy:
margin 1.0 picks the faster prediction, 2.0 demands a 2x win (the reference library's rule,
compute > 5 x transfer, is a margin-like ratio; here every term is a time, so one margin suffices).
Rates are per op once calibrated (ops differ more than FLOP counts say: on SwiftShader a gelu costs
what a relu costs, in NumPy ten times more), with defaults per kind of kernel (the op table's
`kind`: unary, binary, rowwise, reduce, matmul, conv2d) until then.
Predictions are cached per (op, shapes, placement) until the calibration or the margin changes.

A model is never exact, and near a crossover it cannot be: there the two backends are within tens of
percent, and a GPU round trip's latency can itself jump by milliseconds (on SwiftShader in Chromium
it is bimodal). So when the two predictions for a call are within `explore_ratio` of each other and
trying the other backend would cost little (its `samples` calls predicted to take at most
`explore_ms` longer in all than on the predicted choice: 10 calls near a 2 s crossover can qualify),
auto settles the call by measuring: the first 2 x `samples` calls of that (op, shapes, placement)
alternate between the backends, then auto runs the one whose median wall time was lower, and keeps
timing it (the last `samples` calls), so it moves if that backend slows down. The other backend's
times would go stale (a GPU's first calls at a new size are often its slowest), so now and then
(after REPROBE calls, then twice as many each time it is still slower) one call tries it again;
if that call beats the chosen backend's median, the call is settled again from scratch.
Everything else follows the prediction alone.

Calls check the model. Every call auto decides reports its wall time (observe), which is compared
with what was predicted for the backend that ran: a call more than OFF_FACTOR (3x) slower or faster
is "off" (explain() flags it; not below CHECKED_MS, which a page's coarse clock cannot time).
When CORRECT_AFTER (3) calls of one (op, shapes, placement) in a row are off the same way on one
backend, the rate that prediction used is corrected (the op's own rate, set so that the prediction
adds up to the median of those calls, as calibration sets it) and saved where the calibration is
kept: a calibration that measured something wrong is corrected within a few calls. (A rate is left
as it is when the prediction's other terms alone are off by that factor: no rate of the op explains
those calls.) A call decided by prediction alone only times the backend it runs on, so where the
other one would win if its rate were up to DOUBT (10) times better than believed, it tries that one
now and then: once its calls have taken 1 / PROBE_SHARE times what that try is predicted to cost
more (at least one call's time), then twice as long before each next try while the tries agree
with the prediction; a try that is off is repeated at once, to confirm or dismiss it. (Where the
other backend's fixed costs alone exceed the chosen one's time, no wrong rate can hide a win: it is
never tried.) Where a prediction's rates came from (the adapter class's defaults, a calibration, a
correction by use, and when) is kept with the calibration (corrected).
"""

from __future__ import annotations

import json
import math
import numbers
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import UTC, datetime
from typing import Any, cast

from pycore.engine.capture import RECORDING
from pycore.engine.settings import MAX_CHARS
from pycore.tables.kinds import KINDS as TABLED_KINDS
from pycore.tables.ops import Op

STORAGE_KEY = "pycore.calibration.v2"
KINDS = tuple(TABLED_KINDS)  # (a rate table has a rate for each: the fallback of an op added since)
REPROBE = 16  # settled calls before the other backend is tried again (doubling up to REPROBE_MAX)
REPROBE_MAX = 1024
UPLOAD_KNEE = 4 << 20  # bytes of one call's upload at upload_gbps; the rest at upload_large_gbps
# Saved calibration state (a calibration, or one under way) is refused when its text is longer than
# SAVED_MAX_CHARS or nested deeper than SAVED_MAX_DEPTH (checked before parsing), or when a figure in
# it is not a number within FIGURE_RANGE (bounds no measurement reaches, within which no prediction
# overflows or divides by zero).
SAVED_MAX_CHARS = MAX_CHARS  # (the longest text a settings store keeps)
SAVED_MAX_DEPTH = 8
FIGURE_RANGE = (1e-9, 1e9)
SOURCE_MAX_CHARS = 1000
WHEN_MAX_CHARS = 40  # a correction's time, as `now()` writes it
OFF_FACTOR = 3.0  # a call measured more than this many times slower or faster than predicted is off
CORRECT_AFTER = 3  # off calls in a row (one call's key, one backend, one way) that correct its rate
PROBE_SHARE = 0.25  # a call decided by prediction tries the other backend for at most about this share
DOUBT = 10.0  # ... where that backend would win with a rate this many times better than believed
LAST_CALLS = 256  # calls whose last measurement is kept (last_call, last_calls)
CHECKED_MS = 0.5  # calls measured and predicted under this are never off: a page's clock may tick in 0.1 ms
BACKEND_TABLES = {"webgpu": "gpu_gflops", "numpy": "numpy_gflops"}  # a backend's rate table


# Defaults until this device is calibrated, by adapter class, from measured runs (docs/bench/):
# a CPU adapter's GPU figures from SwiftShader in headless Chromium (scripts/bench.py), a GPU's from
# an NVIDIA H100 through Dawn (scripts/bench.py --dawn), NumPy's in Pyodide on the former's machine.
# Each op's rate is the one measured for it; a kind's is the fallback for an op added since. (That
# SwiftShader run measured readback as too fast to time, so its upload rate stands in; the H100's
# transfer rates are those its later calibrations measured: uploads of 2 MiB and the part past
# 4 MiB of 16 MiB ones, readbacks of 4 MiB.)
ADAPTER_DEFAULTS: dict[str, dict[str, Any]] = {
    "cpu": {
        "dispatch_ms": 3.65, "upload_gbps": 4.22, "readback_gbps": 4.22,
        "gpu_gflops": {
            "unary": 10.0, "binary": 10.0, "rowwise": 5.0, "reduce": 5.0, "matmul": 9.93,
            "conv2d": 50.0, "relu": 0.15, "leaky_relu": 0.397, "elu": 0.692, "sigmoid": 0.696,
            "tanh": 3.78, "swish": 1.53, "gelu": 2.27, "clip": 1.04, "scale": 0.358, "vec_add": 0.208,
            "vec_sub": 0.451, "vec_mul": 0.172, "softmax": 0.306, "log_softmax": 0.369, "sum": 1.66,
            "max": 0.366, "min": 0.503, "dot": 2.82, "convolve2d": 0.272,
        },
    },
    "gpu": {
        "dispatch_ms": 1.85, "upload_gbps": 5.0, "upload_large_gbps": 0.9, "readback_gbps": 7.0,
        "gpu_gflops": {
            "unary": 10.0, "binary": 10.0, "rowwise": 5.0, "reduce": 5.0, "matmul": 519.0,
            "conv2d": 50.0, "relu": 5.78, "leaky_relu": 2.05, "elu": 12.9, "sigmoid": 31.8,
            "tanh": 50.8, "swish": 48.4, "gelu": 105.0, "clip": 6.43, "scale": 5.01, "vec_add": 2.17,
            "vec_sub": 2.54, "vec_mul": 1.89, "softmax": 17.1, "log_softmax": 18.2, "sum": 3.5,
            "max": 3.61, "min": 3.67, "dot": 6.03, "convolve2d": 18.7,
        },
    },
}
NUMPY_DEFAULTS: dict[str, float] = {
    "unary": 0.5, "binary": 0.5, "rowwise": 0.3, "reduce": 1.0, "matmul": 2.52, "conv2d": 0.3,
    "relu": 1.09, "leaky_relu": 1.66, "elu": 0.392, "sigmoid": 0.446, "tanh": 0.358, "swish": 0.482,
    "gelu": 0.809, "clip": 1.08, "scale": 3.55, "vec_add": 3.62, "vec_sub": 3.33, "vec_mul": 3.33,
    "softmax": 0.876, "log_softmax": 0.851, "sum": 4.37, "max": 2.1, "min": 2.1, "dot": 3.74,
    "convolve2d": 1.15,
}


class InvalidCalibrationError(ValueError):
    """Calibration state that is refused (saved, or given to Calibration()); the message says what
    is wrong with it."""


def _nesting(text: str, limit: int) -> int:
    """How deeply `text`'s JSON arrays and objects nest, counted by scanning the text outside its
    strings (no parser, so no recursion); stops counting past `limit`.

    >>> _nesting('{"a": [1, "[[["], "b": {}}', 8), _nesting("[" * 100, 8)
    (2, 9)
    """
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    break
        elif ch in "]}":
            depth -= 1
    return deepest


def _refuse_constant(name: str) -> float:
    raise InvalidCalibrationError(f"it holds {name}")


def parse_saved(text: Any) -> Any:
    """The JSON value of saved calibration state, after bounding its size (SAVED_MAX_CHARS) and
    nesting (SAVED_MAX_DEPTH, checked before json.loads sees it: a value nested deep enough to hit
    the parser's recursion limit stalls or kills Pyodide). Raises InvalidCalibrationError saying why.

    >>> parse_saved('{"a": [1, 2]}')
    {'a': [1, 2]}
    >>> parse_saved("[" * 100000)
    Traceback (most recent call last):
    ...
    pycore.choice.selector.InvalidCalibrationError: it is 100000 characters long (at most 65536)
    """
    if not isinstance(text, str):
        raise InvalidCalibrationError(f"it is {type(text).__name__}, not text")
    if len(text) > SAVED_MAX_CHARS:
        raise InvalidCalibrationError(f"it is {len(text)} characters long (at most {SAVED_MAX_CHARS})")
    if _nesting(text, SAVED_MAX_DEPTH) > SAVED_MAX_DEPTH:
        raise InvalidCalibrationError(f"it is nested more than {SAVED_MAX_DEPTH} levels deep")
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except InvalidCalibrationError:
        raise
    except (ValueError, RecursionError) as exc:  # (not JSON; an integer past Python's digit limit)
        raise InvalidCalibrationError(f"it is not JSON ({exc})") from None


def _figure(value: Any, what: str, zero_ok: bool = False) -> float:
    """`value` as a float, if it is a number within FIGURE_RANGE (or 0 where `zero_ok`)."""
    low, high = FIGURE_RANGE
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidCalibrationError(f"{what} is {_shown(value)}, not a number")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not (low <= number <= high or (zero_ok and number == 0.0)):
        wanted = f"{'0 or ' if zero_ok else ''}a number from {low:g} to {high:g}"
        raise InvalidCalibrationError(f"{what} is {_shown(value)} (wanted {wanted})")
    return number


def _shown(value: Any) -> str:
    text = json.dumps(value) if isinstance(value, (str, bool, type(None))) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def rate_names() -> set[str]:
    """The names a rate table may hold: the kinds, the fixed-kernel ops and the n-d ops."""
    from pycore.tables.ops import OPS
    from pycore.tables.ufuncs import REDUCTIONS, UFUNCS

    return {*KINDS, *OPS, *UFUNCS, *REDUCTIONS}


def now() -> str:
    """The time now, as calibrations and corrections record it (minutes, UTC)."""
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")


def median(xs: list[float]) -> float:
    """The median (the statistics module costs a noticeable part of a page's start to import).

    >>> median([3.0, 1.0, 2.0]), median([4.0, 1.0, 2.0, 3.0])
    (2.0, 2.5)
    """
    s = sorted(xs)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


@dataclass
class Calibration:
    """Measured (or default) speeds of this browser and device. Times in ms, rates in GFLOP/s
    (keyed by op name once measured, by kind for the defaults), bandwidths in GB/s. The defaults
    are deliberately modest: without calibration, the GPU is used only where it wins by a wide
    margin on ordinary hardware. Every figure is checked when one is made, as from_dict says
    (InvalidCalibrationError names the field): a rate table needs every kind (KINDS), so that
    every op has a rate.

    >>> Calibration(upload_gbps=-2.0)
    Traceback (most recent call last):
    ...
    pycore.choice.selector.InvalidCalibrationError: upload_gbps is -2.0 (wanted a number from 1e-09 to 1e+09)
    """

    dispatch_ms: float = 1.0
    upload_gbps: float = 2.0
    upload_large_gbps: float = 0.0  # beyond UPLOAD_KNEE bytes in one call (0: upload_gbps)
    readback_gbps: float = 1.0
    numpy_call_ms: float = 0.05
    gpu_gflops: dict[str, float] = field(default_factory=lambda: {
        "unary": 10.0, "binary": 10.0, "rowwise": 5.0, "reduce": 5.0, "matmul": 100.0, "conv2d": 50.0})
    numpy_gflops: dict[str, float] = field(default_factory=lambda: {
        "unary": 0.5, "binary": 0.5, "rowwise": 0.3, "reduce": 1.0, "matmul": 0.3, "conv2d": 0.3})
    source: str = "defaults (run pycore.calibrate_async() to measure this browser)"
    corrected: dict[str, str] = field(default_factory=dict)  # "numpy:convolve2d" -> when use corrected it

    def __post_init__(self) -> None:
        """Check every field (see from_dict); figures become floats, rate tables copies."""
        for name in ("dispatch_ms", "upload_gbps", "readback_gbps", "numpy_call_ms"):
            setattr(self, name, _figure(getattr(self, name), name))
        self.upload_large_gbps = _figure(self.upload_large_gbps, "upload_large_gbps", zero_ok=True)
        known = rate_names()
        for table in ("gpu_gflops", "numpy_gflops"):
            rates = getattr(self, table)
            if not isinstance(rates, dict):
                raise InvalidCalibrationError(f"{table} is {_shown(rates)}, not an object of rates")
            unknown = sorted(str(k) for k in rates if k not in known)
            if unknown:
                raise InvalidCalibrationError(f"{table} names unknown ops {_shown(unknown)}")
            lacking = [kind for kind in KINDS if kind not in rates]
            if lacking:
                raise InvalidCalibrationError(f"{table} lacks the kinds {', '.join(lacking)}")
            setattr(self, table, {name: _figure(rate, f"{table}[{name!r}]") for name, rate in rates.items()})
        if not isinstance(self.source, str) or len(self.source) > SOURCE_MAX_CHARS:
            raise InvalidCalibrationError(f"source is {_shown(self.source)}, not a string of at most "
                                          f"{SOURCE_MAX_CHARS} characters")
        if not isinstance(self.corrected, dict) or not all(
                isinstance(k, str) and isinstance(v, str) and len(v) <= WHEN_MAX_CHARS
                for k, v in self.corrected.items()):
            raise InvalidCalibrationError(f"corrected is {_shown(self.corrected)}, not an object of times "
                                          f"(strings of at most {WHEN_MAX_CHARS} characters)")
        for key in self.corrected:
            backend, _, name = key.partition(":")
            if backend not in BACKEND_TABLES or name not in getattr(self, BACKEND_TABLES[backend]):
                raise InvalidCalibrationError(f"corrected names {_shown(key)}, not a rate of this "
                                              f"calibration ('webgpu:<op>' or 'numpy:<op>')")
        self.corrected = dict(self.corrected)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    def calibrated_at(self) -> str | None:
        """When this calibration was measured ("" if its source does not say), None for defaults.

        >>> Calibration(source="calibrated 2025-01-02 03:04 UTC on WebGPU").calibrated_at()
        '2025-01-02 03:04 UTC'
        """
        if not self.source.startswith("calibrated"):
            return None
        found = re.match(r"calibrated (\d{4}-\d\d-\d\d \d\d:\d\d UTC)", self.source)
        return found.group(1) if found else ""

    def rate(self, backend: str, name: str, kind: str) -> tuple[float, str]:
        """The rate (GFLOP/s) a prediction of op `name` (of `kind`) on `backend` ("webgpu" or
        "numpy") uses, and where it came from: "corrected by use <when>", "calibrated <when>" (the
        op's own rate, measured), or "default" (a default, or the kind's rate for an op that has
        none of its own).

        >>> Calibration.for_adapter(True).rate("numpy", "convolve2d", "conv2d")
        (1.15, 'default')
        """
        table = getattr(self, BACKEND_TABLES[backend])
        used = name if table.get(name) else kind
        when = self.corrected.get(f"{backend}:{used}")
        if when is not None:
            return table[used], f"corrected by use {when}"
        calibrated = self.calibrated_at()
        if calibrated is not None and used == name:
            return table[used], f"calibrated {calibrated}".rstrip()
        return table[used], "default"

    def origin(self, name: str, kind: str) -> str:
        """Where a prediction of op `name` came from, as rate() says for its two rates: corrected by
        use (the later time) if either was, else default if either is, else calibrated."""
        found = [self.rate(backend, name, kind)[1] for backend in BACKEND_TABLES]
        corrected = sorted(f for f in found if f.startswith("corrected"))
        if corrected:
            return corrected[-1]
        return "default" if "default" in found else found[0]

    def with_rate(self, backend: str, name: str, rate: float, when: str) -> Calibration:
        """A copy whose rate of op `name` on `backend` is `rate`, recorded as corrected by use at `when`."""
        corrected = {**self.corrected, f"{backend}:{name}": when}
        if backend == "webgpu":
            return replace(self, gpu_gflops={**self.gpu_gflops, name: rate}, corrected=corrected)
        return replace(self, numpy_gflops={**self.numpy_gflops, name: rate}, corrected=corrected)

    def upload_ms(self, nbytes: float) -> float:
        """Predicted time of uploading `nbytes` in one call (see the module doc).

        >>> Calibration(upload_gbps=8.0, upload_large_gbps=2.0).upload_ms(8 << 20)
        2.62144
        """
        fast = min(nbytes, UPLOAD_KNEE)
        large_gbps = self.upload_large_gbps or self.upload_gbps
        return (fast / self.upload_gbps + (nbytes - fast) / large_gbps) / 1e6

    @classmethod
    def for_adapter(cls, cpu_adapter: bool) -> Calibration:
        """The measured defaults of this adapter's class (ADAPTER_DEFAULTS), until calibrate_async().

        >>> cpu, gpu = Calibration.for_adapter(True), Calibration.for_adapter(False)
        >>> cpu.gpu_gflops["matmul"] < gpu.gpu_gflops["matmul"]
        True
        """
        figures = ADAPTER_DEFAULTS["cpu" if cpu_adapter else "gpu"]
        where = "a CPU adapter (SwiftShader)" if cpu_adapter else "a GPU (H100)"
        return cls(dispatch_ms=figures["dispatch_ms"], upload_gbps=figures["upload_gbps"],
                   upload_large_gbps=figures.get("upload_large_gbps", 0.0),
                   readback_gbps=figures["readback_gbps"], gpu_gflops=dict(figures["gpu_gflops"]),
                   numpy_gflops=dict(NUMPY_DEFAULTS),
                   source=f"defaults measured on {where}; pycore.calibrate_async() measures this browser")

    @classmethod
    def from_json(cls, text: str) -> Calibration:
        """A saved calibration (to_json's text), checked as parse_saved and from_dict say; raises
        InvalidCalibrationError naming what is wrong."""
        return cls.from_dict(parse_saved(text))

    @classmethod
    def from_dict(cls, data: Any) -> Calibration:
        """A calibration from the fields to_json saves, each checked: only known keys; every time
        and bandwidth a number within FIGURE_RANGE (upload_large_gbps may be 0, or missing in a
        calibration saved before it existed); each rate table a dict of kinds (all of them) and op
        names to such numbers; source a short string. Raises InvalidCalibrationError saying what is
        wrong.

        >>> Calibration.from_dict({**asdict(Calibration()), "dispatch_ms": 0})
        Traceback (most recent call last):
        ...
        pycore.choice.selector.InvalidCalibrationError: dispatch_ms is 0 (wanted a number from 1e-09 to 1e+09)
        """
        if not isinstance(data, dict):
            raise InvalidCalibrationError(f"it is {type(data).__name__}, not an object of fields")
        names = [f.name for f in fields(cls)]
        unknown = sorted(str(k) for k in data if k not in names)
        if unknown:
            raise InvalidCalibrationError(f"it has unknown fields {_shown(unknown)}")
        optional = ("upload_large_gbps", "corrected")  # (saved before they existed)
        missing = [name for name in names if name not in data and name not in optional]
        if missing:
            raise InvalidCalibrationError(f"it lacks {', '.join(missing)}")
        return cls(**data)  # (each field checked by __post_init__)

    def checked(self) -> Calibration:
        """This calibration as it would load once saved (a copy); raises InvalidCalibrationError
        if it would be refused (a measurement gave NaN, say): such state is never saved."""
        return Calibration.from_json(self.to_json())


@dataclass
class Prediction:
    op: str
    gpu_ms: float
    numpy_ms: float
    choice: str  # "webgpu" or "numpy"
    why: str
    # What the prediction added up, to check it against measured calls: each backend's time besides
    # the op's rate's share, the FLOPs, the op's kind, and each backend's time unrounded.
    gpu_fixed_ms: float = field(default=0.0, repr=False)
    numpy_fixed_ms: float = field(default=0.0, repr=False)
    flops: float = field(default=0.0, repr=False)
    kind: str = field(default="", repr=False)
    exact_ms: tuple[float, float] = field(default=(0.0, 0.0), repr=False)

    def as_dict(self) -> dict[str, Any]:
        return {"op": self.op, "gpu_ms": self.gpu_ms, "numpy_ms": self.numpy_ms, "choice": self.choice,
                "why": self.why}

    def ms(self, backend: str) -> float:
        """The predicted time on `backend` ("webgpu" or "numpy"), unrounded."""
        gpu, host = self.exact_ms if self.exact_ms != (0.0, 0.0) else (self.gpu_ms, self.numpy_ms)
        return gpu if backend == "webgpu" else host


@dataclass
class Choice:
    """What auto runs for one call, and why. Report the call's wall time with
    `BackendSelector.observe(choice, ms)` when `key` is set (every choice auto makes): a call settled
    by measuring is decided by those times, and every call checks the model (see the module doc)."""

    backend: str  # "webgpu" or "numpy"
    why: str
    key: tuple | None = None
    measuring: bool = False  # still timing both backends for this call
    probe: bool = False  # a call trying the backend it did not choose (settled, or predicted)
    prediction: Prediction | None = field(default=None, repr=False)  # what it is checked against
    predicted: bool = False  # decided by the prediction alone (no measured times of its own)


CAPTURED = Choice("webgpu", "pycore.jit captures this call: a captured function runs on the GPU")
CAPTURED_HOST = Choice("numpy", "pycore.jit captures the function: a call on host values runs on NumPy (its "
                       "result is a constant of the capture)")


class _Decided:
    """A call decided by prediction alone: its choice, and the try of the other backend when one is
    due (`probe`): after `budget` ms of its calls (`spent` since the last try)."""

    __slots__ = ("budget", "choice", "probe", "spent")

    def __init__(self, choice: Choice, budget: float) -> None:
        self.choice, self.budget = choice, budget
        self.probe: Choice | None = None
        self.spent = 0.0


class _Setting:
    """A selector attribute whose change forgets the cached predictions and decisions; `low` is
    its smallest allowed value (None: no bound), `kind` the type it must have."""

    def __init__(self, low: float | None = None, integer: bool = False, kind: type | None = None) -> None:
        self.low, self.integer, self.kind = low, integer, kind

    def __set_name__(self, owner: type, name: str) -> None:
        self.public, self.name = name, "_" + name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        return self if obj is None else getattr(obj, self.name)

    def __set__(self, obj: Any, value: Any) -> None:
        if self.kind is not None and not isinstance(value, self.kind):
            raise TypeError(f"SELECTOR.{self.public} must be a {self.kind.__name__}, got "
                            f"{type(value).__name__}")
        if self.low is not None:
            kind, what = (numbers.Integral, "an integer") if self.integer else (numbers.Real, "a number")
            if isinstance(value, bool) or not isinstance(value, kind) or not cast(float, value) >= self.low:
                raise ValueError(f"SELECTOR.{self.public} must be {what} >= {self.low:g}, got {value!r}")
        setattr(obj, self.name, value)
        obj._forget_predictions()


class BackendSelector:
    """Predicts both backends' times for a call and picks one (see the module doc). Without a
    calibration, Calibration()'s modest defaults apply.

    >>> from pycore.tables.ops import OPS
    >>> sel = BackendSelector(Calibration(dispatch_ms=2.0))
    >>> sel.predict(OPS["relu"], [(1000,)]).choice
    'numpy'
    >>> sel.predict(OPS["matmul"], [(1024, 1024), (1024, 1024)]).choice
    'webgpu'

    """

    def __init__(self, calibration: Calibration | None = None, margin: float = 1.0,
                 explore_ratio: float = 2.0, explore_ms: float = 100.0, samples: int = 5) -> None:
        self._cache: dict[tuple, Prediction] = {}
        self._work: dict[tuple, float] = {}  # (op, *shapes) -> work_ms's answer
        self._decided: dict[tuple, _Decided] = {}  # by the key as asked, and by the call's one key
        self._measured: dict[tuple, dict[str, list[float]]] = {}
        self._probes: dict[tuple, list[int]] = {}  # settled key -> [calls since the last probe, interval]
        self._off: dict[tuple, list[float]] = {}  # (key, backend) -> the times of its off calls in a row
        self._last: dict[tuple, dict[str, Any]] = {}  # key -> its last measured call (oldest first)
        # Called with the calibration after a correction by use (calibrate.py saves it).
        self.on_corrected: Callable[[Calibration], Any] | None = None
        self.calibration = calibration or Calibration()
        self.margin = margin
        self.explore_ratio = explore_ratio  # predictions closer than this are settled by measuring
        self.explore_ms = explore_ms  # ... if the other backend's `samples` calls cost at most this more
        self.samples = samples  # calls timed per backend (and the window kept afterwards)

    # Setting any of these forgets the cached predictions and decisions (auto asks on every call:
    # a cached answer is one lookup).
    calibration: Calibration = _Setting(kind=Calibration)  # type: ignore[assignment]
    margin: float = _Setting(0.0)  # type: ignore[assignment]
    explore_ratio: float = _Setting(1.0)  # type: ignore[assignment]
    explore_ms: float = _Setting(0.0)  # type: ignore[assignment]
    samples: int = _Setting(1, integer=True)  # type: ignore[assignment]
    _margin: float  # (the fields the settings keep their values in: read directly on every call)
    _samples: int

    def _forget_predictions(self) -> None:
        """Forget what followed from the predictions (a setting changed): cached predictions and
        decisions, and the model checks of calls against them."""
        self._cache.clear()
        self._work.clear()
        self._decided.clear()
        self._off.clear()
        self._last.clear()

    def predict(self, op: Op, shapes: list[tuple[int, ...]], on_gpu: list[bool] | None = None,
                result_on_gpu: bool = False) -> Prediction:
        try:
            return self._cache[_as_asked(op, shapes, on_gpu, result_on_gpu)]
        except (KeyError, TypeError):  # not seen yet, or shapes given as lists
            pass
        if len(self._cache) > 4096:
            self._cache.clear()
        shapes = [tuple(s) for s in shapes]
        key = _key(op, shapes, on_gpu, result_on_gpu)
        found = self._cache.get(key)  # (asked another way before)
        if found is None:
            found = self._cache[key] = self._predict(op, shapes, list(on_gpu or [False] * len(shapes)),
                                                     result_on_gpu)
        self._cache[_as_asked(op, shapes, on_gpu, result_on_gpu)] = found
        return found

    def work_ms(self, op: Op, shapes: list[tuple[int, ...]]) -> float:
        """The predicted GPU milliseconds of the call's kernels alone (inputs and result on the GPU,
        less the fixed cost of a call): what it adds to the queue (see device.py).

        >>> from pycore.tables.ops import OPS
        >>> cal = Calibration(dispatch_ms=2.0)
        >>> cal.gpu_gflops["matmul"] = 100.0  # GFLOP/s
        >>> round(BackendSelector(cal).work_ms(OPS["matmul"], [(1000, 1000), (1000, 1000)]), 3)
        20.0
        """
        try:
            return self._work[(op.name, *shapes)]
        except (KeyError, TypeError):  # not seen yet, or shapes given as lists
            pass
        p = self.predict(op, shapes, [True] * len(shapes), result_on_gpu=True)
        ms = max(0.0, p.gpu_ms - self.calibration.dispatch_ms)
        if len(self._work) > 4096:
            self._work.clear()
        self._work[(op.name, *(tuple(s) for s in shapes))] = ms
        return ms

    def choose(self, op: Op, shapes: list[tuple[int, ...]], on_gpu: list[bool] | None = None,
               result_on_gpu: bool = False) -> Choice:
        """The backend auto runs for this call: by prediction, or by this call's measured times
        once they exist (see the module doc). Report the call's time with observe() when the
        returned Choice has a key.

        >>> from pycore.tables.ops import OPS
        >>> sel = BackendSelector(Calibration(dispatch_ms=0.9, numpy_call_ms=1.0))
        >>> first = sel.choose(OPS["relu"], [(1000,)])  # predictions 10% apart: measure both
        >>> first.backend, first.key is not None
        ('webgpu', True)
        >>> for ms in (3.0, 3.1, 2.9, 3.2, 3.0):  # `samples` (5) calls on each backend
        ...     sel.observe(first, ms, "webgpu"); sel.observe(first, 0.2, "numpy")
        >>> sel.choose(OPS["relu"], [(1000,)]).backend
        'numpy'

        """
        if RECORDING.get() is not None:  # (a function being captured: a call on GPU arrays runs on the
            return CAPTURED if result_on_gpu else CAPTURED_HOST  # GPU, where a replay queues it again,
            # one on host values on NumPy, its result a constant of the capture: engine/capture.py)
        try:  # a call decided by prediction alone: one lookup (auto asks on every call)
            decided = self._decided[_as_asked(op, shapes, on_gpu, result_on_gpu)]
            return decided.probe or decided.choice
        except (KeyError, TypeError):
            pass
        key = _key(op, shapes, on_gpu, result_on_gpu)
        seen = self._measured.get(key)
        samples, margin = self._samples, self._margin  # (the settings' own fields: read on every call)
        if seen is not None and len(seen["webgpu"]) >= samples and len(seen["numpy"]) >= samples:
            return self._by_measurement(seen, key, margin)  # (no prediction needed: the call's own times)
        p = self.predict(op, shapes, on_gpu, result_on_gpu)
        if seen is None and not self._worth_measuring(p):
            known = self._decided.get(key)
            if known is not None:
                decided = known
            else:
                if len(self._decided) > 4096:
                    self._decided.clear()
                choice = Choice(p.choice, p.why, key, prediction=p, predicted=True)
                decided = self._decided[key] = _Decided(choice, self._probe_budget(p))
            self._decided[_as_asked(op, [tuple(s) for s in shapes], on_gpu, result_on_gpu)] = decided
            return decided.probe or decided.choice
        gpu, host = seen["webgpu"] if seen else [], seen["numpy"] if seen else []
        backend = p.choice if len(gpu) == len(host) else "webgpu" if len(gpu) < len(host) else "numpy"
        return Choice(backend, f"measuring both backends (call {len(gpu) + len(host) + 1} of "
                      f"{2 * samples}): the predictions are close, {p.why}", key, True, prediction=p)

    def _by_measurement(self, seen: dict[str, list[float]], key: tuple, margin: float) -> Choice:
        """The backend whose recent calls like this one were faster (medians, `margin` for the
        GPU); every so often, one call on the other backend (a probe: see the module doc)."""
        g, n = median(seen["webgpu"]), median(seen["numpy"])
        backend = "webgpu" if g * margin <= n else "numpy"
        probe = self._probes.get(key)
        if probe is None:
            probe = self._probes[key] = [0, REPROBE]
        probe[0] += 1
        if probe[0] >= probe[1]:
            probe[0] = 0
            other = "numpy" if backend == "webgpu" else "webgpu"
            return Choice(other, f"trying {other} again (one call in {probe[1]}): measured here, "
                          f"webgpu {g:.3g} ms, numpy {n:.3g} ms (medians of recent calls)", key, probe=True,
                          prediction=self._cache.get(key))
        why = (f"measured here: webgpu {g:.3g} ms x margin {margin:g} "
               f"{'<=' if backend == 'webgpu' else '>'} numpy {n:.3g} ms (medians of recent calls)")
        return Choice(backend, why, key, prediction=self._cache.get(key))

    def observe(self, choice: Choice, ms: float, backend: str | None = None) -> None:
        """Record the wall time of a call that `choice` decided (backend: the one that ran, if
        not the one chosen, e.g. after a lost device): it settles a call decided by measuring, and
        checks the prediction (see the module doc: off calls correct the rate they used)."""
        if choice.key is None:
            return
        ran = backend or choice.backend
        if choice.prediction is not None and ran == choice.backend:  # (not after a failed GPU try)
            self._check(choice.key, choice.prediction, ran, ms)
        if choice.predicted:
            self._after_predicted(choice, ran, ms)
            return
        if choice.key not in self._measured and len(self._measured) > 4096:
            self._measured.clear()
            self._probes.clear()
        seen = self._measured.setdefault(choice.key, {"webgpu": [], "numpy": []})
        if choice.probe and ran == choice.backend and self._probe_won(seen, ran, ms):
            seen["webgpu"].clear()  # the chosen backend's lead was stale: settle the call again
            seen["numpy"].clear()
            self._probes.pop(choice.key, None)
            return
        if choice.probe and choice.key in self._probes:
            self._probes[choice.key][1] = min(2 * self._probes[choice.key][1], REPROBE_MAX)
        window = seen[ran]
        window.append(ms)
        del window[:-self._samples]

    def _probe_budget(self, p: Prediction) -> float:
        """The ms a call decided by prediction runs before it first tries the other backend: that
        try's predicted extra cost (at least one call's time) / PROBE_SHARE. Never where the other
        backend would lose even with a rate DOUBT times better than believed (with this margin)."""
        chosen = p.ms(p.choice)
        other = "numpy" if p.choice == "webgpu" else "webgpu"
        fixed = p.gpu_fixed_ms if other == "webgpu" else p.numpy_fixed_ms
        best = fixed + (p.ms(other) - fixed) / DOUBT
        gpu, host = (best, chosen) if other == "webgpu" else (chosen, best)
        if (gpu * self._margin <= host) != (other == "webgpu"):
            return math.inf
        return max(p.ms(other) - chosen, chosen) / PROBE_SHARE

    def _after_predicted(self, choice: Choice, ran: str, ms: float) -> None:
        """Count a call decided by prediction towards its next try of the other backend; after a
        try, the next one waits twice as long, unless this one was off (then it is tried again at
        once, until CORRECT_AFTER off tries correct the rate, or one agrees)."""
        decided = self._decided.get(choice.key)  # type: ignore[arg-type]  # (observe checked the key)
        if decided is None:  # (forgotten since: a setting changed, or a correction)
            return
        if choice.probe:
            if not self._off.get((choice.key, ran)):
                decided.probe, decided.spent, decided.budget = None, 0.0, 2 * decided.budget
            return
        decided.spent += ms
        if decided.probe is None and decided.spent >= decided.budget:
            p, key = decided.choice.prediction, decided.choice.key
            assert p is not None
            other = "numpy" if decided.choice.backend == "webgpu" else "webgpu"
            decided.probe = Choice(other, f"trying {other} (now and then, to check the prediction: webgpu "
                                   f"{p.gpu_ms:.3g} ms, numpy {p.numpy_ms:.3g} ms)", key, probe=True,
                                   prediction=p, predicted=True)

    def _check(self, key: tuple, p: Prediction, ran: str, ms: float) -> None:
        """Compare a call's wall time with its prediction on the backend that ran: keep it as the
        call's last (last_call), and correct the rate after CORRECT_AFTER off calls in a row."""
        predicted = p.ms(ran)
        current = self._cache.get(key)
        if not (predicted > 0 and ms > 0 and math.isfinite(ms)) or (current is not p and current != p):
            return  # (nothing to compare, or a prediction forgotten since: the calibration changed)
        if key not in self._last and len(self._last) >= LAST_CALLS:
            del self._last[next(iter(self._last))]
        self._last.pop(key, None)
        self._last[key] = {"backend": ran, "ms": ms, "predicted_ms": predicted, "kind": p.kind}
        if not _off(ms, predicted):
            self._off.pop((key, ran), None)
            return
        if len(self._off) > 4096:
            self._off.clear()
        streak = self._off.setdefault((key, ran), [])
        if streak and (streak[-1] > predicted) != (ms > predicted):  # (off the other way: a new streak)
            streak.clear()
        streak.append(ms)
        if len(streak) >= CORRECT_AFTER:
            took = median(streak)
            streak.clear()
            self._correct(p, ran, took)

    def _correct(self, p: Prediction, backend: str, ms: float) -> bool:
        """Set the rate of op p.op on `backend` so that its prediction adds up to `ms` (the median
        of its off calls), unless the prediction's other terms alone are off by OFF_FACTOR; the
        corrected calibration is used from now on, and handed to on_corrected (to be saved)."""
        fixed = p.gpu_fixed_ms if backend == "webgpu" else p.numpy_fixed_ms
        if p.flops <= 0:
            return False
        compute = max(ms - fixed, 0.05 * ms)  # (the floor calibration uses for a rate's share)
        if not compute > 0 or fixed + compute > OFF_FACTOR * ms:  # (no rate of this op explains these calls)
            return False
        low, high = FIGURE_RANGE
        rate = min(max(p.flops / (compute * 1e6), low), high)
        try:
            cal = self.calibration.with_rate(backend, p.op, rate, now())
        except InvalidCalibrationError:  # (an op whose name a calibration cannot hold)
            return False
        self.calibration = cal
        if self.on_corrected is not None:
            try:
                self.on_corrected(cal)
            except Exception:  # (saving is best effort: a call never fails because of it)
                pass
        return True

    def _probe_won(self, seen: dict[str, list[float]], ran: str, ms: float) -> bool:
        """Whether a probe on `ran` took less than the other backend's recent median (`margin`
        for the GPU, as when choosing)."""
        other = seen["numpy" if ran == "webgpu" else "webgpu"]
        if not other:
            return False
        if ran == "webgpu":
            return ms * self._margin < median(other)
        return ms < median(other) * self._margin

    def measured(self, op: Op, shapes: list[tuple[int, ...]], on_gpu: list[bool] | None = None,
                 result_on_gpu: bool = False) -> dict[str, list[float]]:
        """The recent wall times (ms) of auto's calls like this one, per backend (empty if the
        call is decided by prediction alone)."""
        seen = self._measured.get(_key(op, shapes, on_gpu, result_on_gpu), {"webgpu": [], "numpy": []})
        return {b: list(t) for b, t in seen.items()}

    def last_call(self, op: Op, shapes: list[tuple[int, ...]], on_gpu: list[bool] | None = None,
                  result_on_gpu: bool = False) -> dict[str, Any] | None:
        """The last measured call like this one since the predictions last changed (as last_calls
        gives it), or None."""
        try:
            found = self._last.get(_key(op, shapes, on_gpu, result_on_gpu))
        except TypeError:  # (shapes that are not sequences of sizes)
            return None
        return None if found is None else self._reported(_key(op, shapes, on_gpu, result_on_gpu), found)

    def last_calls(self) -> list[dict[str, Any]]:
        """The calls auto timed since the predictions last changed, the last of each (op, shapes,
        placement), oldest first: op, shapes, on_gpu, result_on_gpu, the backend that ran, its wall
        time (ms) and predicted time (predicted_ms), their ratio, `off` (the prediction was off by
        more than OFF_FACTOR) and where the prediction came from (`prediction_from`, as
        Calibration.origin says: "default", "calibrated <when>" or "corrected by use <when>")."""
        return [self._reported(key, found) for key, found in self._last.items()]

    def _reported(self, key: tuple, found: dict[str, Any]) -> dict[str, Any]:
        n = (len(key) - 3) // 2  # (a key: the op's name and result, its shapes and placement, result_on_gpu)
        ratio = found["ms"] / found["predicted_ms"]
        return {"op": key[0], "shapes": [list(s) for s in key[2:2 + n]], "on_gpu": list(key[2 + n:2 + 2 * n]),
                "result_on_gpu": key[-1], "backend": found["backend"], "ms": round(found["ms"], 4),
                "predicted_ms": round(found["predicted_ms"], 4), "ratio": round(ratio, 3),
                "off": _off(found["ms"], found["predicted_ms"]),
                "prediction_from": self.calibration.origin(key[0], found["kind"])}

    def forget_measurements(self) -> None:
        """Drop every measured call time: auto goes back to predictions (and measures again), and
        forgets how its predictions fared."""
        self._measured.clear()
        self._probes.clear()
        self._decided.clear()
        self._off.clear()
        self._last.clear()

    def _worth_measuring(self, p: Prediction) -> bool:
        """Predictions within explore_ratio of each other, and trying the other backend cheap: its
        `samples` calls predicted to cost at most explore_ms more than the predicted choice's."""
        scaled = p.gpu_ms * self.margin
        low, high = min(scaled, p.numpy_ms), max(scaled, p.numpy_ms)
        extra = abs(p.numpy_ms - p.gpu_ms)  # a call on the backend predicted slower costs this more
        return low > 0 and high <= low * self.explore_ratio and self.samples * extra <= self.explore_ms

    def _predict(self, op: Op, shapes: list[tuple[int, ...]], on_gpu: list[bool],
                 result_on_gpu: bool) -> Prediction:
        c = self.calibration
        sizes = [4 * _count(s) for s in shapes]
        out_bytes = 4 * _count(op.out_shape(tuple(shapes)))
        flops = op.flops(tuple(shapes))
        upload = sum(b for b, g in zip(sizes, on_gpu, strict=True) if not g)
        readback = 0 if result_on_gpu else out_bytes
        gpu_rate = c.gpu_gflops.get(op.name) or c.gpu_gflops[op.kind]
        numpy_rate = c.numpy_gflops.get(op.name) or c.numpy_gflops[op.kind]
        gpu_fixed = c.dispatch_ms + c.upload_ms(upload) + readback / (c.readback_gbps * 1e6)
        gpu_ms = gpu_fixed + flops / (gpu_rate * 1e6)
        fetch = sum(b for b, g in zip(sizes, on_gpu, strict=True) if g)
        numpy_fixed = c.numpy_call_ms
        if fetch:
            numpy_fixed += c.dispatch_ms + fetch / (c.readback_gbps * 1e6)
        if result_on_gpu:
            numpy_fixed += c.upload_ms(out_bytes)
        numpy_ms = numpy_fixed + flops / (numpy_rate * 1e6)
        choice = "webgpu" if gpu_ms * self.margin <= numpy_ms else "numpy"
        why = (f"predicted webgpu {gpu_ms:.3g} ms x margin {self.margin:g} "
               f"{'<=' if choice == 'webgpu' else '>'} numpy {numpy_ms:.3g} ms")
        return Prediction(op.name, round(gpu_ms, 4), round(numpy_ms, 4), choice, why,
                          gpu_fixed_ms=gpu_fixed, numpy_fixed_ms=numpy_fixed, flops=flops, kind=op.kind,
                          exact_ms=(gpu_ms, numpy_ms))


def _off(ms: float, predicted: float) -> bool:
    """Whether a call that took `ms` was off its prediction: more than OFF_FACTOR slower or faster,
    and timed or predicted at CHECKED_MS or more (a coarse clock cannot tell shorter ones apart).

    >>> _off(8.0, 1.0), _off(0.3, 1.0), _off(0.1, 0.02), _off(2.0, 1.0)
    (True, True, False, False)
    """
    return (ms > OFF_FACTOR * predicted or ms * OFF_FACTOR < predicted) and max(ms, predicted) >= CHECKED_MS


def _as_asked(op: Op, shapes: list, on_gpu: list[bool] | None, result_on_gpu: bool) -> tuple:
    """A call's cache key as it was asked (no copies: auto asks on every call; shapes given as
    lists make it unhashable, and the caller falls back to the slow path). An n-d op's cost says
    its result's shape (a reduction's depends on its axes): part of the key."""
    return (op.name, getattr(op, "out", None), *shapes, *(on_gpu or ()), result_on_gpu)


def _key(op: Op, shapes: list, on_gpu: list[bool] | None, result_on_gpu: bool) -> tuple:
    """A call's one key however it was asked (shapes as tuples, placement spelled out)."""
    return (op.name, getattr(op, "out", None), *(tuple(s) for s in shapes),
            *(on_gpu or [False] * len(shapes)), result_on_gpu)


def _count(shape: tuple[int, ...]) -> int:
    n = 1
    for s in shape:
        n *= int(s)
    return n


SELECTOR = BackendSelector()
