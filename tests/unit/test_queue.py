"""Queued GPU work (pycore/engine/device.py): slices bounded by predicted GPU time, submitted as the GPU
takes them, dropped by an interrupt, waited for with a status line and a trace entry. A fake
transport stands in for the GPU: its marks finish when the test (or a wait) says so."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from pycore.engine import interrupts, progress
from pycore.engine.device import (
    AHEAD_MS,
    CHECKED_ALLOCATION,
    HOLD_MS,
    SLICE_MS,
    CancelledWorkError,
    Check,
    Device,
    Produced,
    expect_cost,
    pending_of,
    queue_status,
    slices_of,
)
from pycore.engine.executor import replay, replay_plans
from pycore.engine.session import DATA_USAGE, GpuSession, raise_for
from pycore.engine.transport import Copy, Dispatch, Transport
from pycore.kernels.plan import Copy as PlanCopy
from pycore.kernels.plan import Kernel, Output, Plan, Slot, Step


class Mark:
    def __init__(self, n: int) -> None:
        self.n, self.done = n, False


class FakeGpu(Transport):
    """Records submits; a submit's work finishes when `finish()` or a wait says so. A wait can
    note an interrupt (as Ctrl+C during the wait would), raised at the drain's next safe point."""

    name = "fake"

    def __init__(self) -> None:
        self.adapter_info = {"adapter_type": "CPU", "description": "fake"}
        self.limits: dict[str, int] = {}
        self.features: list[str] = []
        self.submits: list[list[Any]] = []
        self.reads: list[tuple[list[Any], Any]] = []  # (commands submitted with the read, staging)
        self.marks: list[Mark] = []
        self.waits = 0
        self.interrupt_at_wait: int | None = None
        self.allocation_checks = False  # a large buffer's allocation reports a check (else known at once)

    def create_buffer(self, size: int, usage: int, label: str = "") -> Any:
        return object()

    def create_buffer_checked(self, size: int, usage: int, label: str = "") -> tuple[Any, Any]:
        return object(), ("allocation" if self.allocation_checks else None)

    def destroy_buffer(self, buffer: Any) -> None:
        pass

    def write_buffer(self, buffer: Any, array: np.ndarray) -> None:
        pass

    def create_shader_module(self, wgsl: str, label: str) -> Any:
        raise NotImplementedError

    async def create_pipeline_async(self, module: Any, entry_point: str, label: str,
                                    bindings: tuple[str, ...]) -> Any:
        raise NotImplementedError

    def submit(self, commands: list[Any]) -> Any:
        self.submits.append(list(commands))
        return None

    async def settle_async(self, checks: list[Any]) -> list[str | None]:
        return [None] * len(checks)

    async def submit_and_read_async(self, commands: list[Any], staging: Any, out: np.ndarray,
                                    earlier: list[Any]) -> tuple[list[str | None], str | None, float]:
        self.reads.append((list(commands), staging))
        if commands:
            self.submit(commands)
        return [None] * len(earlier), None, 0.0

    async def work_done_async(self) -> None:
        self.finish(len(self.marks))

    def mark(self) -> Any:
        self.marks.append(Mark(len(self.submits)))
        return self.marks[-1]

    def marked(self, mark: Any) -> bool | None:
        return mark.done

    async def wait_marked_async(self, mark: Any) -> None:
        self.waits += 1
        if self.waits == self.interrupt_at_wait:
            interrupts._state["pending"] = True  # (Ctrl+C while pycore waited: raised at its next check)
        self.finish(mark.n)

    def finish(self, submits: int) -> None:
        """The GPU has run the first `submits` submits."""
        for m in self.marks:
            if m.n <= submits:
                m.done = True

    def on_lost(self, callback: Any) -> None:
        pass

    def destroy(self) -> None:
        pass


@pytest.fixture()
def gpu(monkeypatch) -> Iterator[tuple[Device, FakeGpu]]:
    for key, value in {"buffer": None, "pending": False, "outstanding": False, "target": None}.items():
        monkeypatch.setitem(interrupts._state, key, value)  # (no page: nothing to signal)
    fake = FakeGpu()
    yield Device(fake), fake


def queue(dev: Device, op: str, ms: float, kernels: int = 1, pins: list[bytes] | None = None) -> Check:
    """Queue `kernels` dispatches of `op`, predicted to take `ms` in all."""
    expect_cost(op, ms)
    commands = [Dispatch(None, [(object(), 1024)], (1, 1, 1)) for _ in range(kernels)]
    return dev.enqueue(op, commands, pins if pins is not None else [])


def test_slices_hold_at_most_their_predicted_time_and_one_op_at_least():
    assert slices_of([(30.0, 1)] * 7) == [[0, 1, 2], [3, 4, 5], [6]]
    assert slices_of([(SLICE_MS * 5, 1), (1.0, 1), (SLICE_MS, 1)]) == [[0], [1], [2]]
    assert slices_of([(0.01, 1)] * 70) == [list(range(64)), list(range(64, 70))]  # QUEUED_DISPATCHES
    assert slices_of([]) == []


def test_the_gpu_is_handed_slices_as_it_takes_them(gpu):
    dev, fake = gpu
    checks = [queue(dev, f"op{i}", 40.0) for i in range(10)]  # five slices of two ops (80 ms each)
    assert [len(s.ops) for s in dev.slices] == [2, 2, 2]  # two submitted: AHEAD_MS reached
    assert [len(c) for c in fake.submits] == [2, 2] and AHEAD_MS <= 160
    assert checks[0] is checks[1] and checks[1] is not checks[2]  # a check per slice
    assert checks[0].op == "op0, op1" and checks[0] in dev.checks
    fake.finish(1)  # the GPU finished the first slice: the next op's enqueue submits one more
    queue(dev, "op10", 40.0)
    assert len(fake.submits) == 3 and len(dev.slices) == 3
    dev.flush()  # everything, now
    assert len(fake.submits) == 6 and not dev.slices and not dev.queued


def test_work_the_model_does_not_predict_is_charged_for_its_bytes(gpu):
    dev, _ = gpu
    expect_cost("other", 1e6)  # (for another op: not this one's)
    dev.enqueue("copy", [Dispatch(None, [(object(), 3 * 1_000_000)], (1, 1, 1))], [])
    assert dev.slices[0].ms == pytest.approx(3e6 / dev.bytes_per_ms)


def test_a_read_drains_slice_by_slice_and_an_interrupt_drops_the_rest(gpu):
    dev, fake = gpu
    pins: list[bytes] = []
    dev.uniform(np.zeros(8, np.uint32), pins)  # a uniform block the dropped work pins
    early = queue(dev, "conv", 90.0, pins=pins)
    checks = [early] + [queue(dev, "conv", 90.0) for _ in range(9)]  # ten slices of one op
    dropped_buf = dev.pool.acquire(4096, DATA_USAGE)
    dev.release(dropped_buf)  # dropped meanwhile: pooled once the work reading it is gone
    assert dev.pool.stats()["buffers_in_use"] == 1
    waited: list[tuple[float, str]] = []
    dev.on_wait = lambda ms, why: waited.append((ms, why))
    statuses: list[str] = []
    stop = progress.listen(lambda task, done, total, detail: statuses.append(detail))
    fake.interrupt_at_wait = 3
    try:
        with pytest.raises(KeyboardInterrupt):
            asyncio.run(dev.drain_async())
    finally:
        stop()
    submitted = len(fake.submits)
    assert fake.waits == 3 and submitted < 6  # slice by slice, not all at once
    assert not dev.slices and not dev.pins and dev.pool.stats()["buffers_in_use"] == 0
    cancelled = [c for c in checks if c.cancelled]
    assert len(cancelled) == 10 - submitted and all(not c.cancelled for c in checks[:submitted])
    assert cancelled[0].error == "cancelled by an interrupt (KeyboardInterrupt)" and cancelled[0].settled
    with pytest.raises(CancelledWorkError, match=r"to_numpy: this result was computed by work cancelled by "
                                                 r"an interrupt \(KeyboardInterrupt\) before the GPU ran it "
                                                 r"\(conv\); compute it again"):
        raise_for("to_numpy", [checks[0], cancelled[-1]])
    raise_for("to_numpy", checks[:submitted])  # the work submitted before the interrupt is fine
    assert statuses[0].startswith("waiting for the GPU: 10 queued kernels, ~900 ms predicted")
    assert statuses[-1] == ""  # the status line's wait ends
    assert len(waited) == 1 and waited[0][1].startswith("10 queued kernels (conv), predicted 900 ms")


def test_a_drain_without_interrupt_submits_everything_and_waits_for_it(gpu):
    dev, fake = gpu
    checks = [queue(dev, "conv", 90.0) for _ in range(5)]
    asyncio.run(dev.drain_async())
    assert len(fake.submits) == 5 and not dev.slices and not dev.flight
    assert all(m.done for m in fake.marks) and not any(c.cancelled for c in checks)


def test_an_interrupt_raised_in_the_users_code_drops_held_work_at_the_next_op(gpu):
    dev, _ = gpu
    checks = [queue(dev, "conv", 90.0) for _ in range(4)]
    assert len(dev.slices) == 2  # (two submitted: the GPU has AHEAD_MS and more to do)
    interrupts.taken()  # (Ctrl+C raised KeyboardInterrupt in the user's loop, outside pycore)
    after = queue(dev, "relu", 1.0)  # the next op's work is queued; what was held before is not
    assert [c.cancelled for c in checks] == [False, False, True, True] and not after.cancelled
    assert [len(s.ops) for s in dev.slices] == [1] and dev.slices[0].ops == ["relu"]


def test_a_long_queue_makes_the_next_op_wait_and_says_so(gpu):
    dev, fake = gpu
    statuses: list[str] = []
    stop = progress.listen(lambda task, done, total, detail: statuses.append(detail))
    try:
        for _ in range(30):
            queue(dev, "conv", 90.0)
            asyncio.run(dev.keep_up_async())
            dev._reported = 0.0  # (no throttling of the status line here)
    finally:
        stop()
    held = sum(s.ms for s in dev.slices)
    assert held <= HOLD_MS and fake.waits > 0
    assert any(s.startswith("GPU work queued: ") and "kernels, ~" in s for s in statuses), statuses
    assert any(s.startswith("waiting for the GPU: ") for s in statuses), statuses


def test_queue_status_words_it_for_the_status_line():
    assert queue_status(12, 4100.0, True) == "waiting for the GPU: 12 queued kernels, ~4.1 s predicted"
    assert queue_status(1, 40.0, waiting=False) == "GPU work queued: 1 kernel, ~40 ms predicted"
    assert queue_status(200, 100_000.0, waiting=False) == "GPU work queued: 200 kernels, ~100.0 s predicted"


def read(dev: Device, buf: Any, commands: list[Any]) -> None:
    """Read 16 bytes of `buf` after `commands` (the reading op's own), as an op with a host result does."""
    async def go() -> None:
        async with GpuSession(dev, "sum") as session:
            session._commands.extend(commands)
            await session.run_async(read=(buf, np.empty(4, np.float32)))
    asyncio.run(go())


def test_a_read_of_queued_work_goes_with_it_in_one_submit(gpu):
    dev, fake = gpu
    check = queue(dev, "relu", 1.0, kernels=2)
    buf = dev.pool.acquire(1024, DATA_USAGE)
    own = Dispatch(None, [(buf, 1024)], (1, 1, 1))
    read(dev, buf, [own])
    assert len(fake.submits) == 1 and fake.submits[0][2] is own  # the queued work, the op's, the copy
    copy = fake.submits[0][3]
    assert type(copy) is Copy and copy.src is buf and copy.nbytes == 16
    assert fake.reads == [([], copy.dst)]  # the read only maps the staging buffer
    assert check.settled and check.op == "relu, sum" and not dev.slices and not dev.checks


def test_a_read_with_nothing_queued_submits_its_own_commands(gpu):
    dev, fake = gpu
    buf = dev.pool.acquire(1024, DATA_USAGE)
    own = Dispatch(None, [(buf, 1024)], (1, 1, 1))
    read(dev, buf, [own])
    [(commands, staging)] = fake.reads
    assert commands[0] is own and type(commands[1]) is Copy and commands[1].dst is staging
    assert fake.submits == [commands]


def test_work_queued_on_a_dropped_result_raises_too(gpu):
    dev, _ = gpu
    checks = [queue(dev, "conv", 90.0) for _ in range(4)]
    dev.cancel("KeyboardInterrupt")
    later = queue(dev, "relu", 1.0)  # an op on a dropped result: its result inherits the drop
    with pytest.raises(CancelledWorkError, match=r"computed by work cancelled by an interrupt"):
        raise_for("to_numpy", pending_of([checks[-1], later]))
    assert not later.cancelled and pending_of([checks[0]]) == (checks[0],)  # (not yet settled)


# -- fusion's bookkeeping (Device.enqueue's `produced` and `after`, inlinable, claim, _fused_away)
def elementwise(dev: Device, op: str, inputs: list[Any]) -> tuple[Any, Dispatch, Check]:
    """Queue one element-wise command reading `inputs` into a new pooled buffer, registered for
    fusion as computing `op` of them (the expression is a stand-in: only the device's bookkeeping
    is tested here)."""
    out = dev.pool.acquire(1024, DATA_USAGE)
    bound = [(b, 1024) for b in inputs]
    command = Dispatch(None, [*bound, (out, 1024)], (1, 1, 1))
    expect_cost(op, 1.0)
    check = dev.enqueue(op, [command], [], produced=[Produced(command, op, bound, out)])
    return out, command, check


def test_a_command_whose_result_is_dropped_and_read_by_no_other_is_left_out(gpu):
    dev, fake = gpu
    x = dev.pool.acquire(1024, DATA_USAGE)
    a, _cmd_a, _ = elementwise(dev, "exp", [x])
    b, cmd_b, _ = elementwise(dev, "negative", [x])  # (as if it computed negative(exp(x)) itself)
    assert dev.inlinable(a) is not None and dev.inlinable(b) is not None
    dev.release(a)  # the program dropped exp's result
    dev.flush()
    assert fake.submits == [[cmd_b]] and dev.fused_away == 1
    assert not dev.records and not dev.produced and not dev.released_at  # (nothing held: forgotten)


def test_a_result_still_held_or_read_by_another_command_runs(gpu):
    dev, fake = gpu
    x = dev.pool.acquire(1024, DATA_USAGE)
    a, cmd_a, _ = elementwise(dev, "exp", [x])
    _b, cmd_b, _ = elementwise(dev, "negative", [a])  # reads a's buffer: a's value is needed
    _c, cmd_c, _ = elementwise(dev, "sin", [x])  # held by the program (never released)
    assert dev.inlinable(a) is not None and dev.produced[id(a)].readers == [id(cmd_b)]  # (may be inlined)
    dev.release(a)
    dev.flush()
    assert fake.submits == [[cmd_a, cmd_b, cmd_c]] and dev.fused_away == 0


def test_a_slice_fused_away_entirely_settles_its_check_without_a_submit(gpu):
    dev, fake = gpu
    x = dev.pool.acquire(1024, DATA_USAGE)
    a, _, check = elementwise(dev, "exp", [x])
    dev.release(a)
    dev.flush()
    assert fake.submits == [] and check.settled and check.error is None
    assert dev.pool.stats()["buffers_in_use"] == 1  # (x; a went back to the pool)


def test_an_input_taken_as_another_commands_output_stops_inlining_but_a_dropped_one_does_not(gpu):
    dev, _ = gpu
    x, y = dev.pool.acquire(1024, DATA_USAGE), dev.pool.acquire(1024, DATA_USAGE)
    a, _, _ = elementwise(dev, "exp", [x])
    b, _, _ = elementwise(dev, "sin", [y])
    dev.release(x)  # dropped after exp was queued: still intact, exp can be computed again
    dev.release(y)
    assert dev.inlinable(a) is not None
    assert dev.take_dropped(1024, DATA_USAGE) is y  # (the most recently dropped first) rewritten
    assert dev.inlinable(b) is None and dev.inlinable(a) is not None


def test_a_dropped_input_a_fused_kernel_reads_is_claimed_until_its_slice_is_submitted(gpu):
    dev, fake = gpu
    x = dev.pool.acquire(1024, DATA_USAGE)
    a, _cmd_a, _ = elementwise(dev, "exp", [x])
    dev.release(x)  # a temporary: exp's input, dropped
    assert dev.claim([x]) == [x]  # a fused kernel is about to read x in exp's place
    assert dev.take_dropped(1024, DATA_USAGE) is None  # (no command may take it as its output)
    fused = Dispatch(None, [(x, 1024)], (1, 1, 1))
    expect_cost("negative", 1.0)
    dev.enqueue("negative", [fused], [], after=[x])  # back with the fused kernel's slice
    assert dev.produced[id(a)].bound is False  # (x is exp's input, not its output)
    dev.release(a)
    in_use = dev.pool.stats()["buffers_in_use"]
    dev.flush()
    assert fake.submits == [[fused]] and dev.pool.stats()["buffers_in_use"] == in_use - 2  # x and a pooled


def test_a_command_read_only_by_commands_left_out_is_left_out_too(gpu):
    dev, fake = gpu
    x = dev.pool.acquire(1024, DATA_USAGE)
    a, _, _ = elementwise(dev, "exp", [x])
    b, _, _ = elementwise(dev, "negative", [a])  # reads a, but is itself dropped
    _c, cmd_c, _ = elementwise(dev, "sin", [x])  # (as if it computed the chain itself)
    dev.release(a)
    dev.release(b)
    dev.flush()
    assert fake.submits == [[cmd_c]] and dev.fused_away == 2


def test_a_buffer_claimed_only_to_keep_a_record_intact_does_not_make_its_writer_run(gpu):
    dev, fake = gpu
    x = dev.pool.acquire(1024, DATA_USAGE)
    a, _, _ = elementwise(dev, "exp", [x])
    dev.release(a)
    assert dev.claim([a]) == [a]  # (a fused record's expression reads it; its kernel does not)
    other = Dispatch(None, [(x, 1024)], (1, 1, 1))
    expect_cost("product", 1.0)
    dev.enqueue("product", [other], [], after=[a])
    assert dev.produced[id(a)].bound is False
    dev.flush()
    assert fake.submits == [[other]] and dev.fused_away == 1


# -- replaying a plan without a session (engine/executor.py: replay, replay_plans)
def two_step_plan(out_bytes: int = 16, scratch: int = 64) -> Plan:
    """A plan of two kernels through a scratch buffer, then a copy of part of the output."""
    first = Kernel("first", "first", ("read", "write", "uniform"), lambda: "")
    second = Kernel("second", "second", ("read", "write", "uniform"), lambda: "")
    return Plan((Step(first, (Slot("in", 0), Slot("tmp", 0), Slot("meta")), (1, 2), (4, 1, 1)),
                 Step(second, (Slot("tmp", 0), Slot("out", 0), Slot("meta")), (3,), (1, 1, 1)),
                 PlanCopy(Slot("out", 0, 0, 8), Slot("tmp", 1), 8)),
                (Output((out_bytes // 4,), np.dtype(np.float32)),), (scratch, 8))


def compiled(dev: Device, plan: Plan) -> None:
    for step in plan.steps:
        if isinstance(step, Step):
            dev.pipelines[step.kernel.pipeline_key] = f"pipeline {step.kernel.name}"


def test_a_plan_of_several_steps_is_queued_without_a_session_once_its_kernels_are_compiled(gpu):
    dev, fake = gpu
    x = dev.pool.acquire(1024, DATA_USAGE)
    earlier = Check("relu", None)
    plan = two_step_plan()
    assert replay(dev, "sum", plan, [(x, 1024, (earlier,))]) is None  # (not compiled: a session compiles)
    assert not dev.queued and dev.pool.stats()["buffers_in_use"] == 1
    compiled(dev, plan)
    out, checks = replay(dev, "sum", plan, [(x, 1024, (earlier,))])
    first, second, copy = dev.queued
    tmp, part = first.bindings[1][0], copy.dst
    assert first.pipeline == "pipeline first" and first.bindings[0] == (x, 1024) and first.groups == (4, 1, 1)
    assert second.bindings[0] == (tmp, 64) and second.bindings[1] == (out, 16)
    assert first.bindings[2][1] == 16 and second.bindings[2][0] is not first.bindings[2][0]  # (their words)
    assert type(copy) is Copy and copy.src is out and copy.nbytes == 8 and part is not tmp
    assert checks == (earlier, dev.slices[0].check)
    assert dev.pool.stats()["buffers_in_use"] == 4  # x, out, and the scratch until the work is submitted
    dev.flush()
    assert fake.submits == [[first, second, copy]] and dev.pool.stats()["buffers_in_use"] == 2  # x, out


def test_a_new_large_buffer_s_allocation_check_goes_with_the_result(gpu):
    dev, fake = gpu
    fake.allocation_checks = True
    x = dev.pool.acquire(1024, DATA_USAGE)
    plan = two_step_plan(out_bytes=CHECKED_ALLOCATION, scratch=CHECKED_ALLOCATION)
    compiled(dev, plan)
    out, checks = replay(dev, "sum", plan, [(x, 1024, ())])
    made = [c for c in checks if c.op.startswith("allocating")]
    assert [c.op for c in made] == [f"allocating {CHECKED_ALLOCATION:,} bytes"] * 2
    assert all(c in dev.checks for c in made) and not dev.allocations
    dev.flush()
    dev.release(out)  # (the program dropped the result: both buffers are pooled now)
    _, again = replay(dev, "sum", plan, [(x, 1024, ())])
    assert not any(c.op.startswith("allocating") for c in again)  # (reused: nothing new to check)


def test_chained_plans_replay_in_order_and_their_intermediate_goes_back(gpu):
    dev, _ = gpu
    x = dev.pool.acquire(1024, DATA_USAGE)
    plan = two_step_plan()
    compiled(dev, plan)
    assert replay_plans(dev, "std", [(plan, [(x, 1024, ())]), (plan, [np.zeros(4, np.float32)])]) is None
    assert not dev.queued  # (a host input: a session uploads it; nothing was queued)
    out, _ = replay_plans(dev, "std", [(plan, [(x, 1024, ())]), (plan, [("plan", 0)])])
    commands = dev.queued  # (plan 1 reads plan 0's output)
    assert len(commands) == 6 and commands[3].bindings[0] == (commands[1].bindings[1][0], 16)
    assert commands[4].bindings[1] == (out, 16)
    dev.flush()
    assert dev.pool.stats()["buffers_in_use"] == 2  # x and the result: the intermediate and scratch are back


def test_a_pump_left_on_a_closed_event_loop_does_not_stop_the_next_loops_pump(gpu):
    dev, fake = gpu

    async def held_back(wait_s: float, stale: bool = False) -> None:
        if stale:
            dev._schedule_pump(10.0)  # (a pump due later than this loop lives: asyncio.run closes it first)
        queue(dev, "a", 1.0)  # (one open slice: only a pump, or a read, submits it)
        await asyncio.sleep(wait_s)

    asyncio.run(held_back(0.0, stale=True))
    assert dev.slices and not fake.submits
    dev.flush()
    # a new loop (the next asyncio.run of a synchronous wrapper, say): its own pump submits the work
    asyncio.run(held_back(0.05))
    assert not dev.slices and len(fake.submits) == 2
