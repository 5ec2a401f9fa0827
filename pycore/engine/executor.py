"""Running a plan (pycore/kernels/plan.py) on the GPU: the one place the n-d ops touch the device.

`execute_async` binds each step's slots — the inputs where they lie (GpuArrays) or uploaded (host
arrays), new output and scratch buffers, the uniform words — compiles each generated kernel once
per device, and queues the dispatches with the session; the caller reads the outputs or keeps
them on the GPU. `facts` reads a Device's adapter facts for the planners. `fused` composes a new
call's plan with the queued work that wrote its inputs (element-wise chains, reduction prologues,
matmul epilogues) before it is bound.
"""

from __future__ import annotations

import asyncio
import math
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from pycore.array.layout import Layout
from pycore.engine.device import Check, Device, Produced, pending_of
from pycore.engine.session import DATA_USAGE, GpuSession
from pycore.engine.transport import Command, Dispatch
from pycore.engine.transport import Copy as CopyCommand
from pycore.kernels.elementwise import Expr, Operand, inline, plan_expr
from pycore.kernels.matmul import Product
from pycore.kernels.plan import Copy, Facts, Plan, Slot, Step, item_bytes, packed, storage_bytes

F32 = np.dtype(np.float32)
PLANS = 512  # plans kept (a call that repeats one replays it)
FUSED_CALLS = 32  # calls in one fused element-wise kernel at most
FUSIONS = 1024  # fusion steps remembered (all forgotten when there are more)
_fusions: dict[tuple, tuple[Any, Plan, Any]] = {}
DEVICE_PLANS = 256  # fixed-kernel calls remembered per device (all dropped when there are more)
_plans: OrderedDict[tuple, Plan] = OrderedDict()
_facts: dict[int, tuple[Any, Facts]] = {}


def planned(key: tuple, make: Callable[[], Plan]) -> Plan:
    """The plan of a call's key, made by `make()` the first time (the PLANS most recent are kept)."""
    plan = _plans.get(key)
    if plan is None:
        plan = _plans[key] = make()
        if len(_plans) > PLANS:
            _plans.popitem(last=False)
    else:
        _plans.move_to_end(key)
    return plan


def facts(device: Any) -> Facts:
    """The planners' view of `device`'s adapter (computed once per device)."""
    known = _facts.get(id(device))
    if known is None or known[0] is not device:
        limits = device.limits
        known = _facts[id(device)] = (
            device,
            Facts(
                max_binding=device.max_binding,
                max_groups=device.max_groups,
                cpu_adapter=device.cpu_adapter,
                loop_cap=device.loop_cap,
                offset_align=int(limits.get("minStorageBufferOffsetAlignment", 256)),
                max_storage=int(limits.get("maxStorageBuffersPerShaderStage", 8)),
            ),
        )
    return known[1]




def _key(binding: tuple) -> tuple[int, int, int]:
    """What a binding reads: its buffer, bytes and offset (views of one buffer may bind different
    extents of it: each operand keeps its own)."""
    return id(binding[0]), binding[1], binding[2] if len(binding) > 2 else 0


class Computes(NamedTuple):
    """What a fused call's command computes, for later calls to fuse (see Produced): an
    element-wise expression (or None) of bindings, the release count from which they must stay
    unrewritten, and where the call folded into a queued product, that product with the call's
    expression as its epilogue, of its own bindings."""

    expr: Expr | None
    inputs: list[tuple]
    since: int
    product: Product | None = None
    product_inputs: tuple[tuple, ...] = ()


class Fused(NamedTuple):
    """What `fused` found for a call: the plan to run and its inputs (bindings), the dropped
    buffers it claimed (Device.claim), and what its command computes (None: the plan's own)."""

    plan: Plan
    inputs: list[tuple]
    claimed: list[Any]
    computes: Computes | None = None


def fused(device: Device, plan: Plan, inputs: list[tuple]) -> Fused:
    """`plan` (an element-wise plan of one step, or a reduction's) with the held element-wise
    commands that wrote its inputs computed in its kernel instead (Device.inlinable: their
    outputs read whole, their inputs not rewritten since), within FUSED_CALLS calls and the
    device's storage bindings; an element-wise plan whose expression reads a held float product
    the program dropped becomes that product storing the expression (an epilogue). The
    fused kernel runs once it is compiled (in the background: a call never waits for one); until
    then the call runs as asked, and is recorded as computing the fused expression, so the next
    call of a chain fuses the whole chain so far. Each step's outcome is remembered (by the plans'
    and records' expressions and which bindings coincide): a call that repeats a fusion costs
    lookups."""
    if (plan.expr is None and plan.reduce is None) or not device.produced or not device.fusion:
        return Fused(plan, inputs, [])
    asked, bindings, since = plan, list(inputs), None
    before: tuple[Expr, list[tuple]] | None = None  # (the element-wise expression a product took in)
    for _ in range(FUSED_CALLS):
        if plan.matmul is not None:  # (folded into a product's stores: nothing more to take in)
            break
        # element-wise producers first, then a product whose stores take the whole expression in
        # (computed again only where its own result was dropped)
        records = [(j, device.inlinable(b[0]) if len(b) == 2 else None) for j, b in enumerate(bindings)]
        held = [(j, found) for j, found in records if found is not None]
        for j, found, folds in [(j, r, False) for j, r in held] + [(j, r, True) for j, r in held]:
            if not folds:
                if found.expr is None:
                    continue
                combined = bindings + found.inputs
                step = _step(device, plan, j, found.expr, combined, len(bindings))
            else:
                if found.product is None or plan.expr is None or not device.dropped(found):
                    continue
                combined = bindings + found.product_inputs
                step = _step(device, plan, j, found.product, combined, len(bindings))
                if step is not None:
                    before = (plan.expr, bindings)
            if step is None:
                continue
            plan, order = step
            bindings = [combined[i] for i in order]
            since = found.since if since is None else min(since, found.since)
            break
        else:
            break
    if plan is asked or since is None:
        return Fused(plan, bindings, [])
    claimed = device.claim([b[0] for b in bindings])  # (kept from other outputs while it is queued)
    if before is not None:  # (what its record's expression reads, which its kernel does not: kept too)
        claimed += device.claim([b[0] for b in before[1] if all(b[0] is not c[0] for c in bindings)])
    computes = Computes(plan.expr, bindings, since)
    if before is not None:
        computes = Computes(before[0], before[1], since, plan.matmul, tuple(bindings))
    missing = [k for k in plan.kernels() if k.pipeline_key not in device.pipelines]
    if missing:
        for kernel in missing:
            _compile_soon(device, kernel)
        return Fused(asked, inputs, claimed, computes)
    # (the call's trace entry names what its kernel computed)
    device.fused_note = plan.expr or (plan.reduce.prologue if plan.reduce else plan.matmul.epilogue)
    return Fused(plan, bindings, claimed, computes)


def _step(device: Device, plan: Plan, j: int, producer: Expr | Product, combined: list[tuple], n: int
          ) -> tuple[Plan, list[int]] | None:
    """One step of `fused`: the plan with its input j computed by `producer` (an element-wise
    expression, or a product whose stores take the plan in), which of `combined` (the plan's n
    bindings, then the producer's) it binds; None where it cannot. Remembered by the plan's and
    producer's identities and which bindings coincide."""
    keys = [_key(b) for b in combined]
    first = [keys.index(k) for k in keys]  # (which bindings coincide)
    memo = (id(plan), j, id(producer), tuple(first), id(facts(device)))
    hit = _fusions.get(memo)
    if hit is None:
        if len(_fusions) >= FUSIONS:
            _fusions.clear()
        made = (_into_product(device, plan, j, producer, first, n) if isinstance(producer, Product)
                else _inlined(device, plan, j, producer, first, n))
        hit = _fusions[memo] = (made, plan, producer)  # (held: their ids stay theirs)
    return hit[0]


_compiling: set[asyncio.Task] = set()  # (held until done: a task nobody holds may be collected)


async def compiles_async() -> None:
    """Wait until the fused kernels being compiled in the background are ready (benchmarks and
    tests: the runs they time or check then find them)."""
    while _compiling:
        await asyncio.wait(list(_compiling))


def compiling() -> bool:
    """Whether a fused kernel is being compiled in the background now."""
    return bool(_compiling)


def _compile_soon(device: Device, kernel: Any) -> None:
    """Compile a fused kernel in the background: a call never waits for one (a chain's first run
    would compile a kernel per call, and Ctrl+C would land in pycore's compile instead of the
    user's code); the calls that repeat the chain find it compiled."""
    if kernel.pipeline_key in device.compiling:
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    task = loop.create_task(device.pipeline_async(*kernel.pipeline_args()))
    _compiling.add(task)

    def done(t: asyncio.Task) -> None:
        _compiling.discard(t)
        if not t.cancelled():
            t.exception()  # (retrieved: a failed compile leaves the calls unfused, and says nothing)
    task.add_done_callback(done)


def _inlined(device: Device, plan: Plan, j: int, producer: Expr, first: list[int], n: int
             ) -> tuple[Plan, list[int]] | None:
    """The plan with its array operand j computed by `producer` (see fused), and which of the
    combined bindings (the plan's, then the producer's) it binds; None where that cannot fuse.
    An element-wise plan's expression takes the producer in; a reduction's prologue does (the
    producer is its first prologue, its centers' binding stays after the prologue's inputs)."""
    f = facts(device)
    if plan.expr is not None:
        expr: Expr = plan.expr
        read = _read(expr.operands[expr.arrays[j]], producer)
        if read is None:
            return None
        new, order = inline(expr, expr.arrays[j], read, first[:n], first[n:])
        if len(new.calls) > FUSED_CALLS or len(new.arrays) > f.max_storage - 1:
            return None  # (the output is a storage binding too)
        return planned(("fused", new.key(), f), lambda: plan_expr(new, f)), order
    reading = plan.reduce
    if reading is None or reading.src.kind == "c" or any(o.dtype.kind == "c" for o in producer.operands):
        return None  # (a reduction's and a product's loads read 32-bit elements: complex64 stays out)
    prologue = reading.prologue
    n_arr = 1 if prologue is None else len(prologue.arrays)
    if j >= n_arr:  # (a centered reduction's centers)
        return None
    if prologue is None:
        whole = _read(Operand(reading.src, reading.layout), producer)
        order = list(range(n, len(first)))
    else:
        read = _read(prologue.operands[prologue.arrays[j]], producer)
        if read is None:
            return None
        whole, order = inline(prologue, prologue.arrays[j], read, first[:n_arr], first[n:])
    if whole is None or len(whole.calls) > FUSED_CALLS:
        return None
    if len(whole.arrays) + (n - n_arr) + 2 > f.max_storage:  # (the output, an arg reduction's indices)
        return None
    reads: Expr = whole
    fused_plan = planned(("fused", reading, reads.key(), f), lambda: reading.planned(reads, f))
    return fused_plan, order + list(range(n_arr, n))


def _into_product(device: Device, plan: Plan, j: int, product: Product, first: list[int], n: int
                  ) -> tuple[Plan, list[int]] | None:
    """An element-wise plan whose array operand j is a queued float matmul's result (read whole,
    over the product's shape) as that product storing the plan's expression of it (an epilogue:
    after the product's own epilogue, where it has one), and which of the combined bindings (the
    plan's, then the product's a, b and epilogue arrays) it binds; None where that cannot fuse."""
    expr = plan.expr
    if expr is None or any(o.dtype.kind == "c" for o in expr.operands):
        return None
    k = expr.arrays[j]
    shape = product.shape
    if (expr.operands[k].dtype != F32 or expr.operands[k].layout != Layout.contiguous(shape)
            or expr.shape != shape or any(first[i] == first[j] for i in range(n) if i != j)):
        return None  # (read through a view, broadcast, or twice: the product's buffer would be read)
    if product.epilogue is None:
        new, acc = expr, k
        order = [n, n + 1] + [first[i] for i, kk in enumerate(expr.arrays) if kk != k]
    else:
        at = iter(range(n + 2, len(first)))
        theirs: list[Any] = ["acc" if kk == product.acc else first[next(at)]
                             for kk in product.epilogue.arrays]
        new, keys = inline(expr, k, product.epilogue, first[:n], theirs)
        acc = new.arrays[keys.index("acc")]
        order = [n, n + 1] + [key for key in keys if key != "acc"]
    f = facts(device)
    if len(new.calls) > FUSED_CALLS or len(new.arrays) + 2 > f.max_storage:
        return None  # (A, B and C are storage bindings, the product is none)
    key = ("fused", product, new.key(), acc, f)
    if key not in _refused:
        try:
            return planned(key, lambda: product.planned(new, acc, f)), order
        except ValueError:
            _refused.add(key)
    return None


_refused: set[tuple] = set()  # products that cannot store an epilogue (their plans' several steps)


def _read(operand: Operand, producer: Expr) -> Expr | None:
    """The producer's expression as `operand` reads it (whole, or whole through a contiguous
    reshape); None where it reads it otherwise, or the producer's values are not as stored (a
    packed result is rounded to 8 or 16 bits)."""
    if operand.dtype != producer.out or packed(producer.out) or operand.layout is None:
        return None
    if operand.layout == Layout.contiguous(producer.shape):
        return producer
    if (operand.layout != Layout.contiguous(operand.layout.shape)
            or operand.layout.size != math.prod(producer.shape)):
        return None
    return producer.reshaped(operand.layout.shape)


def _produced(plan: Plan, command: Dispatch, inputs: list[tuple], out: Any, computes: Computes | None = None
              ) -> list[Produced]:
    """The fusion record of a plan's one command: an element-wise plan's expression on `inputs`,
    a float matmul's product (a later element-wise call may fold into its stores), or what a fused
    call computes (`computes`); none for other plans, or a packed output (its stored value is
    rounded to 8 or 16 bits, which computing it again would skip)."""
    if computes is not None and (computes.expr is not None or computes.product is not None):
        if computes.expr is not None and packed(computes.expr.out):
            return []
        record = Produced(command, computes.expr, computes.inputs, out, computes.product,
                          list(computes.product_inputs))
        record.since = computes.since
        return [record]
    if plan.matmul is not None and len(plan.steps) == 1:
        return [Produced(command, None, [], out, plan.matmul, inputs)]
    if plan.expr is None or packed(plan.expr.out):
        return []
    return [Produced(command, plan.expr, inputs, out)]


async def run_plans_async(device: Device, name: str, plans: list[tuple[Plan, list[Any]]], keep: bool
                          ) -> tuple[Any, tuple[Check, ...], dict[str, float]]:
    """Run plans in one session and one submit. Each plan's inputs are bindings (buffer, bytes)
    with the checks of the work that wrote them ((buffer, bytes, checks)), host arrays as the GPU
    stores them (uploaded), or ("plan", k): the output of plan k. The last plan's output is kept
    on the GPU (keep: returns (buffer, its checks, stages)) or read into a NumPy array of its
    storage dtype (returns (array, (), stages))."""
    async with GpuSession(device, name, keep_result=keep) as gpu:
        outs: list[list[tuple[Any, int]]] = []
        for plan, inputs in plans:
            bound = []
            for x in inputs:
                if isinstance(x, tuple) and x[0] == "plan":
                    bound.append(outs[x[1]][0])
                elif isinstance(x, tuple):
                    gpu.depend_on(x[2])
                    bound.append(x[:2])
                else:
                    bound.append(gpu.upload(x)[:2])
            outs.append(await execute_async(gpu, plan, bound))
        buf = outs[-1][0][0]
        spec = plans[-1][0].outputs[0]
        if keep:
            await gpu.run_async()
            gpu.keep(buf)
            return buf, gpu.result_checks(), gpu.stages
        raw = np.empty(storage_bytes(spec.shape, spec.dtype) // item_bytes(spec.dtype),
                       np.uint32 if spec.dtype.name == "bool" else spec.dtype)  # (whole words)
        await gpu.run_async(read=(buf, raw))
        return raw[:math.prod(spec.shape)].reshape(spec.shape), (), gpu.stages


def remember(device: Device, key: tuple, gpu: GpuSession, inputs: list[Any], result: Any) -> None:
    """Remember the plan of a finished fixed-kernel call on GpuArrays (`inputs`: the GpuViews it
    bound, `result`: the GpuView it made) under `key` on its device, where the call ran exactly
    that plan on exactly those inputs, bound whole, into that result (nothing uploaded, nothing
    in parts): a later call with the same key replays it (see replay), its result in the shape
    the call's was."""
    if len(gpu.planned) != 1 or gpu.stages["upload"] or result.buffer is None or result.offset:
        return
    plan, bound, outputs = gpu.planned[0]
    if len(bound) != len(inputs) or len(outputs) != 1 or outputs[0][0] is not result.buffer:
        return
    if any(b[0] is not v.buffer or v.offset for b, v in zip(bound, inputs, strict=True)):
        return
    if len(device.plans) >= DEVICE_PLANS:
        device.plans.clear()
    device.plans[key] = (plan, result.shape)


def _replayable(device: Device, plan: Plan) -> bool:
    """Whether `replay` can queue `plan`: one output, and every kernel compiled."""
    if len(plan.outputs) != 1:
        return False
    pipelines = device.pipelines
    return all(s.kernel.pipeline_key in pipelines for s in plan.steps if type(s) is Step)


def replay(device: Device, name: str, plan: Plan, inputs: list[tuple[Any, int, tuple[Check, ...]]]
           ) -> tuple[Any, tuple[Check, ...]] | None:
    """Queue a plan whose kernels are compiled, on GpuArray inputs ((buffer, bytes, checks) each),
    with no session: output and scratch buffers from the pool (scratch given back at once: only
    later queued work can take it; a new large one's allocation check goes with the result, as a
    session's does), the uniform blocks pinned, its commands queued (what a repeated call costs).
    None where the plan needs more (several outputs, a kernel not yet compiled)."""
    if not _replayable(device, plan):
        return None
    plan, bound, claimed, computes = fused(device, plan, [x[:2] for x in inputs])
    if not _replayable(device, plan):  # (a fused plan's kernels are compiled: not expected)
        for buf in claimed:
            device.release(buf)
        return None
    nbytes = plan.out_bytes
    made: list[Any] = []  # the output, then the scratch buffers
    fresh: list[Any] = []  # those newly allocated (never pooled after a failure)
    pins: list[bytes] = []
    checks: list[Check] = []
    try:
        for x in inputs:
            checks.extend(x[2])
        for size in (nbytes, *plan.scratch):
            buf = device.take_dropped(size, DATA_USAGE)
            if buf is None:
                allocated = device.pool.allocations
                buf = device.pool.acquire(max(size, 4), DATA_USAGE)
                if device.pool.allocations != allocated:
                    fresh.append(buf)
                    pending = device.take_allocation_check(buf)
                    if pending is not None:  # (settled with the next read, like a submit)
                        checks.append(device.submitted(f"allocating {size:,} bytes", pending))
            made.append(buf)
        out = made[0]
        pools = {"in": bound, "out": [(out, nbytes)],
                 "tmp": [(buf, max(size, 4)) for buf, size in zip(made[1:], plan.scratch, strict=True)]}
        commands: list[Command] = []
        produced: list[Produced] = []
        for step in plan.steps:
            if type(step) is Copy:
                src, dst = _bound(step.src, pools[step.src.kind]), _bound(step.dst, pools[step.dst.kind])
                commands.append(CopyCommand(src[0], dst[0], step.size, src[2] if len(src) > 2 else 0,
                                            dst[2] if len(dst) > 2 else 0))
                continue
            assert isinstance(step, Step)
            bindings = [(device.uniform(step.block, pins), step.block.nbytes) if slot.kind == "meta"
                        else _bound(slot, pools[slot.kind]) for slot in step.slots]
            command = Dispatch(device.pipelines[step.kernel.pipeline_key], bindings, step.grid)
            commands.append(command)
            produced += _produced(plan, command, bound, out, computes)
        handed, claimed = claimed, []  # (from here the queue owns them)
        check = device.enqueue(name, commands, pins, after=handed, produced=produced)
    except BaseException:
        device.unpin(pins)
        for buf in made + claimed:  # (claimed ones not queued: back where dropped buffers wait)
            if any(buf is f for f in fresh):
                device.pool.discard(buf)  # (its allocation may have failed)
            else:
                device.release(buf)
        raise
    for buf in made[1:]:  # (scratch: free once the queued work that uses it has run)
        device.release(buf)
    checks.append(check)
    return out, pending_of(checks)


def replay_plans(device: Device, name: str, plans: list[tuple[Plan, list[Any]]]
                 ) -> tuple[Any, tuple[Check, ...]] | None:
    """`replay` for run_plans_async's plans, whose inputs are GpuArray bindings ((buffer, bytes,
    checks)) or ("plan", k), the output of plan k: the last plan's output; None (nothing queued)
    where one of them cannot be replayed, or has a host input."""
    for plan, inputs in plans:
        if not _replayable(device, plan):
            return None
        for x in inputs:
            if not isinstance(x, tuple) or not (len(x) == 3 or type(x[0]) is str):
                return None
    outs: list[tuple[Any, tuple[Check, ...]]] = []
    done = False
    try:
        for plan, inputs in plans:
            bound = [(outs[x[1]][0], plans[x[1]][0].out_bytes, outs[x[1]][1]) if type(x[0]) is str else x
                     for x in inputs]
            queued = replay(device, name, plan, bound)
            if queued is None:  # (checked above: not expected)
                raise RuntimeError(f"{name}: a plan could not be queued")
            outs.append(queued)
        done = True
    finally:
        for buf, _ in outs[:-1] if done else outs:  # (intermediates: free once the work reading them ran)
            device.release(buf)
    return outs[-1]


def _bound(slot: Slot, buffers: list[tuple[Any, int]]) -> tuple[Any, ...]:
    buf, size = buffers[slot.index]
    if slot.offset == 0 and slot.size is None:
        return (buf, size)
    return (buf, slot.size if slot.size is not None else size - slot.offset, slot.offset)


async def _bound_steps_async(gpu: GpuSession, plan: Plan, inputs: list[tuple[Any, int]]
                             ) -> tuple[list[tuple[Any, int]], list[tuple[Any, list[tuple], Step | Copy]]]:
    """Buffers for the plan's outputs and scratch, and each step's pipeline and bindings (a copy's:
    None, and its source and destination bindings)."""
    outputs = [gpu.output(max(4, storage_bytes(o.shape, o.dtype))) for o in plan.outputs]
    scratch = [gpu.output(n) for n in plan.scratch]
    pools = {"in": inputs, "out": outputs, "tmp": scratch}
    steps: list[tuple[Any, list[tuple], Step | Copy]] = []
    for step in plan.steps:
        if isinstance(step, Copy):
            ends = [_bound(step.src, pools[step.src.kind]), _bound(step.dst, pools[step.dst.kind])]
            steps.append((None, ends, step))
            continue
        pipeline = await gpu.pipeline_async(*step.kernel.pipeline_args())
        bound = [gpu.uniform_words(step.block) if s.kind == "meta" else _bound(s, pools[s.kind])
                 for s in step.slots]
        steps.append((pipeline, bound, step))
    return outputs, steps


async def execute_async(gpu: GpuSession, plan: Plan, inputs: list[tuple[Any, int]]) -> list[tuple[Any, int]]:
    """Queue `plan` with `inputs` (a binding (buffer, bytes) per input) and return the output
    bindings (new buffers the session holds: keep them, or read them)."""
    asked = (plan, inputs)
    if not gpu.deferred:  # (a CommandBatch's work is queued at its execute: it fuses on its own)
        plan, inputs, claimed, computes = fused(gpu.device, plan, inputs)
        gpu.claimed += claimed
    else:
        computes = None
    outputs, steps = await _bound_steps_async(gpu, plan, inputs)
    gpu.planned.append((*asked, outputs))
    for pipeline, bound, step in steps:
        if isinstance(step, Copy):
            (src, _, *src_at), (dst, _, *dst_at) = bound
            gpu.copy(src, dst, step.size, src_at[0] if src_at else 0, dst_at[0] if dst_at else 0)
        else:
            command = gpu.dispatch(pipeline, bound, step.grid)
            if gpu.keep_result and not gpu.deferred:
                gpu.produced += _produced(plan, command, inputs, outputs[0][0], computes)
    return outputs


async def time_plan_async(device: Device, plan: Plan, inputs: list[tuple[Any, int]], reps: int = 20
                          ) -> float | None:
    """GPU milliseconds of one run of `plan` on `inputs` ((buffer, bytes) each), from timestamp
    queries: each step dispatched `reps` times in a pass of its own, its mean time, summed over
    the steps. None where the device has no timestamp queries. For benchmarks: what the kernels
    cost, without the host's work per call or a submit's wait."""
    device.flush()  # (the inputs' queued work first)
    async with GpuSession(device, "time") as gpu:
        _, steps = await _bound_steps_async(gpu, plan, inputs)
        total = 0.0
        for pipeline, bound, step in steps:
            if isinstance(step, Copy):
                continue  # (timed are the kernels)
            ms = await device.transport.time_dispatch_async(pipeline, bound, step.grid, reps)
            if ms is None:
                return None
            total += ms
    return total
