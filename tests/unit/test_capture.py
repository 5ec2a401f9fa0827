"""Capturing queued work and queueing it again (pycore/engine/capture.py, calls/jit.py), on the fake
transport of test_queue: what a recording keeps (the slices as submitted, uploads in new held
buffers, pinned uniform blocks), what a run substitutes (inputs, new results) and queues (a slice
per recorded slice, at its predicted cost), what it refuses and why, and what the pool holds for a
captured program until it is closed. Without a GPU, a jitted function simply runs."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest

import pycore
from pycore.engine.capture import RECORDING, Captured, Recorder, TracingError
from pycore.engine.device import Device
from pycore.engine.pool import BufferPool
from pycore.engine.session import DATA_USAGE, GpuSession
from pycore.engine.transport import Copy, Dispatch
from tests.unit.test_queue import FakeGpu, gpu  # noqa: F401 (the fixture)


def recording(dev: Device) -> Recorder:
    recorder = Recorder(dev)
    dev.recorder = recorder
    RECORDING.set(recorder)  # (pytest runs each test in a context of its own)
    return recorder


def stop(dev: Device) -> None:
    dev.flush()
    dev.recorder = None
    RECORDING.set(None)


def test_a_held_buffer_outlives_its_owners_release_and_is_never_handed_out():
    pool = BufferPool(lambda size, usage: object(), lambda b: None)
    a = pool.acquire(1000, 1)
    pool.hold(a)
    pool.release(a)  # (its owner let go: the program still uses it)
    assert pool.acquire(1000, 1) is not a and pool.stats()["buffers_in_use"] == 2
    with pytest.raises(ValueError, match="released twice"):
        pool.release(a)
    pool.unhold(a)  # (the last hold: now it is free)
    assert pool.acquire(1000, 1) is a
    free = pool.acquire(1000, 1)
    pool.release(free)
    pool.hold(free)  # a free one leaves the free list
    assert pool.acquire(1000, 1) is not free
    pool.unhold(free)
    assert pool.acquire(1000, 1) is free
    assert pool.acquire(1000, 1, fresh=True) is not pool.acquire(1000, 1)  # (fresh: never a free one)


def test_a_held_buffer_dropped_while_work_is_queued_is_never_a_commands_output(gpu):  # noqa: F811
    dev, _ = gpu
    const = dev.pool.acquire(64, DATA_USAGE, fresh=True)
    dev.pool.hold(const)  # (a captured program's constant)
    dev.enqueue("op", [Dispatch("k", [(const, 64)], (1, 1, 1))], [])  # queued work reads it
    dev.release(const)  # its array dropped meanwhile: pooled at once, as the program's only
    assert all(b is not const for s in dev.slices for b in s.after)
    assert dev.take_dropped(64, DATA_USAGE) is None  # (no command may write it)
    dev.flush()
    assert dev.pool.acquire(64, DATA_USAGE) is not const
    dev.pool.unhold(const)
    assert dev.pool.acquire(64, DATA_USAGE) is const


def test_a_recording_keeps_the_submitted_slices_uploads_and_uniforms(gpu):  # noqa: F811
    dev, fake = gpu
    x = dev.pool.acquire(64, DATA_USAGE)  # an input, made before
    dev.binding_kinds[id("add")] = ("read", "read", "write", "uniform")
    recorder = recording(dev)

    async def work() -> None:
        async with GpuSession(dev, "add", keep_result=True) as s:
            const = s.upload(np.arange(16, dtype=np.float32))[0]
            out = s.output(64)[0]
            block = dev.uniform(np.ones(4, np.uint32), s._pins)
            s.dispatch("add", [(x, 64), (const, 64), (out, 64), (block, 16)], (1, 1, 1))
            await s.run_async()
            s.keep(out)
        recorder.result = out  # type: ignore[attr-defined]

    asyncio.run(work())
    stop(dev)
    out = recorder.result  # type: ignore[attr-defined]
    assert len(recorder.slices) == 1 and recorder.slices[0][2] == "add"
    assert len(recorder.uploads) == 1 and dev.pins[np.ones(4, np.uint32).tobytes()] == 1  # (kept pinned)
    captured = recorder.finish([x], [out])
    assert isinstance(captured, Captured) and captured.kernels == 1 and captured.held == recorder.uploads
    # a run: the new input and a new result in place of the capture's, the constant and uniform as they were
    y = dev.pool.acquire(64, DATA_USAGE)
    results, checks = captured.run("jit add", [y], [])
    dev.flush()
    bound = [b[0] for b in fake.submits[-1][0].bindings]
    assert bound[0] is y and bound[1] is recorder.uploads[0] and bound[2] is results[0] is not out
    assert len(checks) == 1
    captured.close()
    assert not dev.pins  # (the uniform block may go)


def two_slices(dev: Device, kernels: int = 1) -> tuple[Captured | str, Any, Any, Any]:
    """A capture of a -> mid (a kernel), then mid -> b (one more kernel where `kernels` is 2, and a
    copy), in two slices; mid is dropped, so the capture holds it."""
    a = dev.pool.acquire(64, DATA_USAGE)
    recorder = recording(dev)
    mid, b = dev.pool.acquire(64, DATA_USAGE), dev.pool.acquire(64, DATA_USAGE)
    dev.enqueue("first", [Dispatch("k", [(a, 64), (mid, 64)], (1, 1, 1))], [])
    dev.flush()
    more = [Dispatch("k", [(mid, 64), (b, 64)], (1, 1, 1))] if kernels == 2 else []
    dev.enqueue("second", [*more, Copy(mid, b, 64)], [])
    stop(dev)
    dev.release(mid)
    return recorder.finish([a], [b]), a, mid, b


def test_a_run_queues_a_slice_per_recorded_slice_at_its_cost(gpu):  # noqa: F811
    dev, fake = gpu
    captured, _, mid, _ = two_slices(dev)
    assert isinstance(captured, Captured) and [s[2] for s in captured.slices] == ["first", "second"]
    assert captured.held == [mid] and dev.pool.acquire(64, DATA_USAGE) is not mid  # (held: kept)
    fake.submits.clear()
    c = dev.pool.acquire(64, DATA_USAGE)
    (out,), _ = captured.run("jit f", [c], [])
    assert sum(s.ms for s in dev.slices) == pytest.approx(sum(s[1] for s in captured.slices))
    dev.flush()
    commands = [cmd for submit in fake.submits for cmd in submit]
    assert commands[0].bindings[0][0] is c and commands[0].bindings[1][0] is mid
    assert commands[1].src is mid and commands[1].dst is out


def test_a_capture_is_paced_by_its_kernels_timestamps_where_the_device_has_them(gpu, monkeypatch):  # noqa: F811
    from pycore.calls import jit as jit_module

    dev, fake = gpu
    captured, a, _, _ = two_slices(dev, kernels=2)
    assert isinstance(captured, Captured)
    predicted = [s[1] for s in captured.slices]
    # no timestamps (the fake's answer): the cost model's figures stay
    assert asyncio.run(jit_module._paced_async(captured, [a])) is None
    assert [s[1] for s in captured.slices] == predicted
    timed: list[tuple] = []

    async def stamps(pipeline, bindings, groups, reps):
        timed.append((pipeline, reps))
        return 0.25

    monkeypatch.setattr(fake, "time_dispatch_async", stamps, raising=False)
    monkeypatch.setattr(jit_module, "PACED_KERNELS", 1)  # (two kernels: too many to time)
    assert asyncio.run(jit_module._paced_async(captured, [a])) is None and timed == []
    monkeypatch.setattr(jit_module, "PACED_KERNELS", 64)
    # each kernel timed once (not the copy); the replays predicted at their sum, each slice its share
    assert asyncio.run(jit_module._paced_async(captured, [a])) == pytest.approx(0.5)
    assert timed == [("k", 1), ("k", 1)]
    paced = [s[1] for s in captured.slices]
    assert sum(paced) == pytest.approx(0.5)
    assert paced[0] / paced[1] == pytest.approx(predicted[0] / predicted[1])


def test_a_run_hands_its_work_to_an_idle_gpu_at_once_where_it_is_worth_a_submit(gpu, monkeypatch):  # noqa: F811
    from pycore.engine import device as device_module
    dev, fake = gpu
    dev.cpu_adapter = False  # (the fake says CPU: there a run's work waits for the next read)
    captured, _, _, _ = two_slices(dev)
    assert isinstance(captured, Captured)
    captured.pace(2.0)  # (predicted 2 ms a run: worth a submit)
    fake.submits.clear()

    def run() -> None:
        captured.run("jit f", [dev.pool.acquire(64, DATA_USAGE)], [])

    run()  # nothing in flight: submitted at once (its two recorded slices join in one)
    assert not dev.slices and len(fake.submits) == 1
    run()  # the GPU predicted busy with the first run: held for a later submit
    assert dev.slices and len(fake.submits) == 1
    now = device_module.time.monotonic()
    monkeypatch.setattr(device_module.time, "monotonic", lambda: now + 1.0)  # (the first run's end passed)
    run()  # the GPU predicted idle: the held run goes with this one
    assert not dev.slices and len(fake.submits) == 2 and len(fake.submits[1]) == 4
    captured.pace(0.1)  # under HAND_OVER_MS: not worth a submit of its own (the held work adds up)
    monkeypatch.setattr(device_module.time, "monotonic", lambda: now + 10.0)
    submits = len(fake.submits)
    run()
    assert dev.slices and len(fake.submits) == submits
    dev.flush()
    dev.cpu_adapter = True  # a CPU adapter: the work waits for the next read
    captured.pace(2.0)
    monkeypatch.setattr(device_module.time, "monotonic", lambda: now + 100.0)
    run()
    assert dev.slices and len(fake.submits) == submits + 1


@pytest.mark.parametrize("case, why", [
    ("input", "it returns one of its inputs (or a view of one)"),
    ("upload", "it returns an array made from host data"),
    ("before", "it returns an array that existed before it ran"),
    ("written upload", "it writes into an array made from host data"),
    ("foreign", "other work was queued on the device while it ran"),
    ("gone", "a buffer it used is gone"),
    ("unwritten", "it returns an array no GPU work of it wrote"),
])
def test_what_cannot_be_replayed_is_refused_with_its_reason(gpu, case, why):  # noqa: F811
    dev, _ = gpu
    x, outside = dev.pool.acquire(64, DATA_USAGE), dev.pool.acquire(64, DATA_USAGE)
    recorder = recording(dev)
    out = dev.pool.acquire(64, DATA_USAGE)
    upload = dev.pool.acquire(64, DATA_USAGE, fresh=True)
    recorder.uploaded(upload)
    target = upload if case == "written upload" else out
    dev.binding_kinds[id("k")] = ("read", "write")
    dev.enqueue("op", [Dispatch("k", [(x, 64), (target, 64)], (1, 1, 1))], [])
    if case == "foreign":
        RECORDING.set(None)  # (another task's work)
        dev.enqueue("other", [Dispatch("k", [(x, 64), (outside, 64)], (1, 1, 1))], [])
    if case == "gone":
        dev.enqueue("op", [Dispatch("k", [(x, 64), (object(), 64)], (1, 1, 1))], [])
    stop(dev)
    result = {"input": x, "upload": upload, "before": outside}.get(case, out)
    if case == "unwritten":
        result = dev.pool.acquire(64, DATA_USAGE)
    assert recorder.finish([x], [result]) == why
    assert not dev.pool._holds and not dev.pins  # (what the recording kept is let go)


def test_a_read_while_recording_raises_and_auto_runs_on_the_gpu(gpu):  # noqa: F811
    dev, _ = gpu
    recording(dev)
    choice = pycore.SELECTOR.choose(pycore.OPS["relu"], [(10,)], [True], result_on_gpu=True)
    assert choice.backend == "webgpu" and "pycore.jit" in choice.why

    async def read() -> None:
        async with GpuSession(dev, "to_numpy") as s:
            await s.run_async(read=(dev.pool.acquire(64, DATA_USAGE), np.empty(16, np.float32)))

    with pytest.raises(TracingError, match="to_numpy reads a GPU value back while the function is captured"):
        asyncio.run(read())
    stop(dev)


def test_without_a_gpu_a_jitted_function_runs_and_jit_wants_an_async_function():
    calls = []

    async def double(x):
        calls.append(1)
        return await pycore.multiply_async(x, 2.0)

    step = pycore.jit(double)
    assert pycore.jit(step) is step and step.__name__ == "double"
    for _ in range(2):
        got = asyncio.run(step(np.ones(3, np.float32)))
        assert np.array_equal(got, np.full(3, 2.0, np.float32))
    assert len(calls) == 2 and step.captures() == []
    with pytest.raises(TypeError, match="fn must be an async function"):
        pycore.jit(lambda x: x)  # type: ignore[arg-type]
