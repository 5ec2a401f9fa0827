"""Running a plan (pycore/kernels/plan.py) on the GPU: the one place the n-d ops touch the device.

`execute_async` binds each step's slots — the inputs where they lie (GpuArrays) or uploaded (host
arrays), new output and scratch buffers, the uniform words — compiles each generated kernel once
per device, and queues the dispatches with the session; the caller reads the outputs or keeps
them on the GPU. `facts` reads a Device's adapter facts for the planners.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..gpu import GpuSession
from ..kernels.plan import Facts, Plan, Slot, storage_bytes

_facts: dict[int, tuple[Any, Facts]] = {}


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
            ),
        )
    return known[1]


def _bound(slot: Slot, buffers: list[tuple[Any, int]]) -> tuple[Any, ...]:
    buf, size = buffers[slot.index]
    if slot.offset == 0 and slot.size is None:
        return (buf, size)
    return (buf, slot.size if slot.size is not None else size - slot.offset, slot.offset)


async def execute_async(gpu: GpuSession, plan: Plan, inputs: list[tuple[Any, int]]) -> list[tuple[Any, int]]:
    """Queue `plan` with `inputs` (a binding (buffer, bytes) per input) and return the output
    bindings (new buffers the session holds: keep them, or read them)."""
    outputs = [gpu.output(max(4, storage_bytes(o.shape, o.dtype))) for o in plan.outputs]
    scratch = [gpu.output(n) for n in plan.scratch]
    pools = {"in": inputs, "out": outputs, "tmp": scratch}
    for step in plan.steps:
        k = step.kernel
        pipeline = await gpu.pipeline_async("generated", k.entry, k.bindings, k.source, k.name)
        words = np.zeros(-(-max(len(step.words), 1) // 4) * 4, np.uint32)
        words[: len(step.words)] = step.words
        bound = [
            gpu.uniform_words(words) if s.kind == "meta" else _bound(s, pools[s.kind]) for s in step.slots
        ]
        gpu.dispatch(pipeline, bound, step.grid)
    return outputs
