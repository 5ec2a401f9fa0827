"""Replaying a call on GpuArrays: a repeated op on inputs that live on the GPU skips its program.

The first call of an op whose inputs are all GpuArrays and whose result stays on the GPU runs its
program as usual (dispatch.py). When that queued exactly one dispatch, and nothing else (no upload,
no copy, no read), the call is remembered as a `Plan`: the pipeline, the grid, and each binding as
one of the inputs, the new output buffer, or a uniform block. A later call with the same key (op,
parameters, input shapes, and whatever can change which kernel runs: the program's settings and the
device's binding limit) replays it: an output buffer from the pool, the uniform blocks pinned, one
command queued, the result's error checks those of its inputs and of its submit, as the program
would have made them. The checks, the selector and the trace stay in dispatch.py; only the
program's own work is skipped (TF.js's WebGPU backend keeps compiled programs by shape the same way).

Plans live on their Device (a new device starts with none), at most PLANS of them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .device import CHECKED_ALLOCATION, Device, pending_of
from .gpu import DATA_USAGE, GpuSession, GpuView
from .ops import Op
from .transport import Dispatch

PLANS = 256  # plans kept per device (all dropped when there are more: a workload's set is small)
INPUT, OUTPUT, UNIFORM = 0, 1, 2  # what a binding of a plan is


class Plan:
    """One dispatch to replay: `slots` holds, per binding, (INPUT, input index, rest of the binding),
    (OUTPUT, None, rest) or (UNIFORM, words, rest); rest is (size,) or (size, offset)."""

    __slots__ = ("groups", "op", "out_bytes", "pipeline", "shape", "slots")

    def __init__(self, op: str, pipeline: Any, groups: tuple[int, int, int], slots: list[tuple],
                 out_bytes: int, shape: tuple[int, ...]) -> None:
        self.op, self.pipeline, self.groups, self.slots = op, pipeline, groups, slots
        self.out_bytes, self.shape = out_bytes, shape

    def run(self, device: Device, inputs: list[GpuView]) -> GpuView:
        """Queue the dispatch on these inputs (GpuViews of the recorded shapes) and a new output
        buffer; returns the result's GpuView. Raises what acquiring the buffer or queuing raises."""
        out = device.take_dropped(self.out_bytes, DATA_USAGE)
        if out is None:
            out = device.pool.acquire(self.out_bytes, DATA_USAGE)
        pins: list[bytes] = []
        try:
            bindings = []
            for kind, value, rest in self.slots:
                if kind == INPUT:
                    bindings.append((inputs[value].buffer, *rest))
                elif kind == OUTPUT:
                    bindings.append((out, *rest))
                else:
                    bindings.append((device.uniform(value, pins), *rest))
        except BaseException:
            device.unpin(pins)
            device.release(out)
            raise
        try:
            check = device.enqueue(self.op, [Dispatch(self.pipeline, bindings, self.groups)], pins)
        except BaseException:  # (submitting what was queued failed: nothing will read `out`)
            device.release(out)
            raise
        checks = [c for view in inputs for c in view.checks]
        checks.append(check)
        return GpuView(out, self.shape, checks=pending_of(checks))


def key(op: Op, shapes: list[tuple[int, ...]], params: dict[str, Any], device: Device,
        program: Any) -> tuple | None:
    """The key of a call's plan, or None when its parameters cannot be a key."""
    try:  # (parameters by their exact bits: -0.0 == 0.0, yet x * -0.0 is not x * 0.0)
        values = tuple(v.hex() if type(v) is float else v for v in params.values())
        k = (op.name, values, tuple(shapes), program.revision, device.max_binding)
        hash(k)
    except TypeError:
        return None
    return k


def record(gpu: GpuSession, op: Op, inputs: list[GpuView], result: GpuView) -> Plan | None:
    """The plan of a finished session, or None when it did anything but queue one dispatch whose
    every binding is an input, the result's buffer or a uniform block."""
    if (len(gpu.enqueued) != 1 or not isinstance(gpu.enqueued[0], Dispatch) or gpu.stages["upload"]
            or result.buffer is None or result.offset or result.nbytes >= CHECKED_ALLOCATION):
        return None
    if len({id(v.buffer) for v in inputs}) != len(inputs):
        return None  # (one array passed twice: which binding is which input cannot be told)
    dispatch = gpu.enqueued[0]
    uniforms = {id(buf): words for words, buf in gpu.device.uniforms.items()}
    slots: list[tuple] = []
    out_bytes = max(result.nbytes, 4)
    for binding in dispatch.bindings:
        buf, rest = binding[0], tuple(binding[1:])
        index = next((i for i, v in enumerate(inputs) if v.buffer is buf), None)
        if index is not None:
            if (rest[1] if len(rest) > 1 else 0) != inputs[index].offset:
                return None
            slots.append((INPUT, index, rest))
        elif buf is result.buffer:
            slots.append((OUTPUT, None, rest))
            out_bytes = max(out_bytes, sum(rest))
        elif id(buf) in uniforms:
            slots.append((UNIFORM, np.frombuffer(uniforms[id(buf)], np.uint32), rest))
        else:
            return None
    return Plan(op.name, dispatch.pipeline, dispatch.groups, slots, out_bytes, result.shape)


def remember(device: Device, plan_key: tuple, plan: Plan | None) -> None:
    if plan is None:
        return
    if len(device.plans) >= PLANS:
        device.plans.clear()
    device.plans[plan_key] = plan
