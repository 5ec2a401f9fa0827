"""Saved calibration state (a calibration, or one under way) is checked before use: invalid or
unreadable state is discarded with one warning, the defaults are used, nothing invalid is saved,
and no call fails because of what is (or cannot be) stored."""

from __future__ import annotations

import asyncio
import json
import math
import warnings
from dataclasses import asdict
from pathlib import Path
from types import SimpleNamespace

import pytest

from pycore.bench import calibrate
from pycore.bench.calibrate import PARTIAL, CalibrationRun, load_saved, storage_key
from pycore.choice.selector import SELECTOR, Calibration, InvalidCalibrationError
from pycore.engine import settings
from pycore.engine.runtime import RUNTIME
from pycore.tables.ops import OPS
from tests.harness import Native


@pytest.fixture(autouse=True)
def keep_selector():
    saved = SELECTOR.calibration
    yield
    SELECTOR.calibration = saved


def device(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """A device, with settings kept as files under tmp_path (as natively)."""
    monkeypatch.setenv("PYCORE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(settings, "STORE", settings.FileStore())
    return SimpleNamespace(cpu_adapter=True, errors=[],
                           adapter_info={"vendor": "test", "architecture": "store", "device": "1"})


class PageStore(settings.Store):
    """A page's storage as the browser's settings store uses it (localStorage: text under keys)."""

    def __init__(self) -> None:
        self.items: dict[str, str] = {}

    def load(self, key: str) -> str | None:
        return self.items.get(key)

    def save(self, key: str, text: str | None) -> None:
        if text is None:
            self.items.pop(key, None)
        else:
            self.items[key] = text


def path_of(dev: SimpleNamespace, suffix: str = "") -> Path:
    return settings.FileStore().path(storage_key(dev) + suffix)


def valid() -> dict:
    cal = Calibration.for_adapter(False)
    cal.gpu_gflops["relu"], cal.source = 7.5, "calibrated for the test"
    return asdict(cal)


def with_(**changes) -> str:
    return json.dumps({**valid(), **changes})


def rates(table: str, **changes) -> str:
    data = valid()
    data[table] = {**data[table], **changes}
    return json.dumps(data)


def load_warning(dev: SimpleNamespace) -> tuple[bool, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loaded = load_saved(dev)
    return loaded, [str(w.message) for w in caught]


INVALID = {  # what is saved -> what the warning says was wrong
    "deep nesting": ("[" * 100_000, "65536"),
    "deep nesting under the size bound": ("[" * 30_000 + "]" * 30_000, "nested more than"),
    "deep object nesting": ('{"a":' * 10_000 + "1" + "}" * 10_000, "nested more than"),
    "wrong type": (with_(dispatch_ms="fast"), 'dispatch_ms is "fast", not a number'),
    "a bool": (with_(numpy_call_ms=True), "numpy_call_ms is true"),
    "rates not an object": (with_(gpu_gflops=[1, 2]), "gpu_gflops is [1, 2]"),
    "a rate not a number": (rates("numpy_gflops", relu=None), "numpy_gflops['relu'] is null"),
    "zero rate": (rates("gpu_gflops", unary=0), "gpu_gflops['unary'] is 0"),
    "zero bandwidth": (with_(readback_gbps=0.0), "readback_gbps is 0.0"),
    "negative": (with_(upload_gbps=-3.0), "upload_gbps is -3.0"),
    "NaN": (with_(dispatch_ms=math.nan), "it holds NaN"),
    "infinity": (rates("gpu_gflops", matmul=math.inf), "it holds Infinity"),
    "overflowing number": (with_(dispatch_ms=1).replace('"dispatch_ms": 1', '"dispatch_ms": 1e999'),
                           "dispatch_ms is inf"),
    "huge integer": (with_(dispatch_ms=1).replace('"dispatch_ms": 1', '"dispatch_ms": ' + "9" * 5000),
                     "not JSON"),
    "truncated": (with_()[:200], "not JSON"),
    "not an object": ("[1, 2, 3]", "not an object of fields"),
    "unknown field": (with_(turbo=True), "unknown fields"),
    "unknown op": (rates("gpu_gflops", not_an_op=1.0), "names unknown ops"),
    "missing field": (json.dumps({k: v for k, v in valid().items() if k != "dispatch_ms"}),
                      "lacks dispatch_ms"),
    "missing kind": (json.dumps({**valid(), "numpy_gflops": {"relu": 1.0}}), "lacks the kinds"),
    "source not a string": (with_(source=["x"]), "source is"),
    "garbage": ("}{ not json", "not JSON"),
}


@pytest.mark.parametrize("store", ["files", "page"])
@pytest.mark.parametrize("name", list(INVALID))
def test_invalid_saved_calibration_is_discarded_with_one_warning(tmp_path, monkeypatch, name, store):
    text, why = INVALID[name]
    dev = device(tmp_path, monkeypatch)
    if store == "page":
        monkeypatch.setattr(settings, "STORE", PageStore())
    settings.STORE.save(storage_key(dev), text)
    loaded, messages = load_warning(dev)
    assert loaded is False
    assert len(messages) == 1 and why in messages[0] and "defaults" in messages[0], messages
    assert SELECTOR.calibration == Calibration.for_adapter(True)
    assert settings.STORE.load(storage_key(dev)) is None  # discarded, not kept to fail again
    for op in OPS.values():  # auto's predictions work (a zero rate made every one raise)
        SELECTOR.predict(op, [(64, 64)] * len(op.inputs))


def test_a_valid_calibration_is_used_and_an_older_one_without_upload_large_gbps_too(tmp_path, monkeypatch):
    dev = device(tmp_path, monkeypatch)
    path_of(dev).write_text(with_())
    assert load_warning(dev) == (True, [])
    assert SELECTOR.calibration == Calibration(**valid())
    older = {k: v for k, v in valid().items() if k != "upload_large_gbps"}
    path_of(dev).write_text(json.dumps(older))
    assert load_warning(dev) == (True, [])
    assert SELECTOR.calibration.upload_large_gbps == 0.0


def test_a_file_that_is_not_utf8_is_discarded_with_one_warning(tmp_path, monkeypatch):
    dev = device(tmp_path, monkeypatch)
    path_of(dev).write_bytes(with_().encode()[:-30] + b'\xff\xfe\x80"}')
    loaded, messages = load_warning(dev)
    assert loaded is False and len(messages) == 1 and "UnicodeDecodeError" in messages[0]
    assert not path_of(dev).exists()


def test_an_oversized_file_is_not_read_whole(tmp_path, monkeypatch):
    dev = device(tmp_path, monkeypatch)
    path_of(dev).write_bytes(b" " * (8 << 20) + with_().encode())
    loaded, messages = load_warning(dev)
    assert loaded is False and len(messages) == 1 and "over 65536 bytes" in messages[0]


def test_an_undeletable_invalid_file_never_fails_a_call(tmp_path, monkeypatch):
    dev = device(tmp_path, monkeypatch)
    path_of(dev).write_text(with_(dispatch_ms=-1))

    def refuse(self, missing_ok=False):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "unlink", refuse)
    loaded, messages = load_warning(dev)
    assert loaded is False and len(messages) == 1 and "dispatch_ms is -1" in messages[0]
    assert SELECTOR.calibration == Calibration.for_adapter(True)
    calibrate._keep(storage_key(dev), None)  # (no error, though the file stays)
    assert path_of(dev).exists()


def test_a_directory_where_the_file_should_be_never_fails_a_call(tmp_path, monkeypatch):
    dev = device(tmp_path, monkeypatch)
    for suffix in ("", PARTIAL):
        path_of(dev, suffix).mkdir(parents=True)
        (path_of(dev, suffix) / "inside").write_text("x")
    loaded, messages = load_warning(dev)
    assert loaded is False and len(messages) == 1 and "IsADirectoryError" in messages[0]
    assert SELECTOR.calibration == Calibration.for_adapter(True)
    for suffix in ("", PARTIAL):  # what calibrate_async and the background calibration do
        settings.STORE.save(storage_key(dev) + suffix, with_())
        settings.STORE.save(storage_key(dev) + suffix, None)
        assert path_of(dev, suffix).is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(path_of(dev, s).name for s in ("", PARTIAL))


def test_the_cache_directory_being_a_file_never_fails_a_call(tmp_path, monkeypatch):
    dev = device(tmp_path / "cache", monkeypatch)
    (tmp_path / "cache").write_text("not a directory")
    assert load_warning(dev) == (False, [])
    settings.STORE.save(storage_key(dev), with_())
    settings.STORE.save(storage_key(dev), None)


def test_invalid_state_is_never_saved(tmp_path, monkeypatch):
    dev = device(tmp_path, monkeypatch)
    bad = Calibration(**valid())
    bad.gpu_gflops["relu"] = math.nan
    assert calibrate._keep(storage_key(dev), bad) is False and not path_of(dev).exists()
    run = CalibrationRun()
    run.cal.dispatch_ms = 0.0
    assert calibrate._keep(storage_key(dev) + PARTIAL, run) is False
    assert not path_of(dev, PARTIAL).exists()
    assert calibrate._keep(storage_key(dev), Calibration(**valid())) is True
    assert Calibration.from_json(path_of(dev).read_text()) == Calibration(**valid())


@pytest.mark.parametrize("state, why", [
    ({"cal": {**valid(), "dispatch_ms": "x"}, "done": []}, "dispatch_ms"),
    ({"cal": {**valid(), "gpu_gflops": {"relu": 1.0}}, "done": []}, "lacks the kinds"),
    ({"cal": valid(), "done": ["numpy relu", "rm -rf"]}, "'done'"),
    ({"cal": valid(), "done": ["numpy relu", "numpy relu"]}, "'done'"),
    ({"cal": valid(), "done": "numpy relu"}, "'done'"),
    ({"cal": valid(), "done": [], "more": 1}, "exactly 'cal' and 'done'"),
    ([1, 2], "exactly 'cal' and 'done'"),
])
def test_a_garbage_calibration_under_way_is_refused(state, why):
    with pytest.raises(InvalidCalibrationError, match=why):
        CalibrationRun.from_saved(json.dumps(state))
    good = CalibrationRun.from_saved(json.dumps({"cal": valid(), "done": ["numpy relu"]}))
    assert good.done == ["numpy relu"] and good.cal == Calibration(**valid())


def test_a_garbage_calibration_under_way_is_neither_adopted_nor_saved(tmp_path, monkeypatch):
    dev = device(tmp_path, monkeypatch)
    every_step = CalibrationRun().steps(gpu=True)
    garbage = {**valid(), "dispatch_ms": "fast", "gpu_gflops": {**valid()["gpu_gflops"], "unary": 0}}
    path_of(dev, PARTIAL).write_text(json.dumps({"cal": garbage, "done": every_step}))
    monkeypatch.setattr(RUNTIME, "device", dev)  # (as if acquired: the run may finish and save)
    monkeypatch.setattr(calibrate, "IDLE_S", 1e9)  # (a fresh run waits for an idle moment: never)
    before = SELECTOR.calibration = Calibration.for_adapter(True)

    async def background() -> None:
        try:
            await asyncio.wait_for(calibrate._background_async(dev), 0.5)
        except TimeoutError:
            pass

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        asyncio.run(background())
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1 and "calibration under way" in messages[0] and "dispatch_ms" in messages[0]
    assert SELECTOR.calibration is before  # not adopted
    assert not path_of(dev).exists() and not path_of(dev, PARTIAL).exists()  # nor saved


def test_calls_work_natively_whatever_the_calibration_file_holds():
    """On wgpu-native: a device acquired over a non-UTF-8, deeply nested, invalid or undeletable
    calibration file warns once, and calls work, on backend='numpy' and on the GPU."""
    worker = Native()
    try:
        r = worker.py("""
import warnings
from pathlib import Path
from pycore.bench.calibrate import storage_key
from pycore.engine.runtime import RUNTIME
from pycore.engine.settings import STORE
await pycore.init_async()
key = storage_key(RUNTIME.device)
path = STORE.path(key)
path.parent.mkdir(parents=True, exist_ok=True)
out = {}
for name, content in [("non-UTF-8", b'{"source": "\\xff"}'), ("nested", b"[" * 60000),
                      ("zero rates", b'{"dispatch_ms": 0}'), ("directory", None)]:
    RUNTIME.shutdown()
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        info = await pycore.init_async()
        host = (await pycore.relu_async([-1.0, 2.0], backend="numpy")).tolist()
        gpu = (await pycore.log_softmax_async([[1e6, 1e6]], backend="gpu")).tolist()
        auto = (await pycore.vec_add_async([1.0], [2.0])).tolist()
    out[name] = {"backend": info["backend"], "warnings": [str(w.message) for w in caught],
                 "values": [host, gpu, auto], "source": pycore.SELECTOR.calibration.source}
    if content is None:
        path.rmdir()
out
""")
    finally:
        worker.close()
    for name, got in r.items():
        assert got["backend"] == "webgpu", name
        assert len(got["warnings"]) == 1 and "discarded" in got["warnings"][0], (name, got["warnings"])
        host, gpu, auto = got["values"]
        assert host == [0.0, 2.0] and auto == [3.0] and abs(gpu[0][0] + math.log(2)) < 1e-5, (name, got)
        assert got["source"].startswith("defaults measured"), name
