"""Running an op from the table: convert the inputs, check them, pick the backend, run, record.

Every public `*_async` function lands in `run_async`. The GPU path runs when the runtime's backend
is WebGPU and there is something to compute; otherwise (and if the device is lost during the call)
the op's NumPy path gives the answer. Each call is recorded in the trace with its stage times.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .arrays import as_float32
from .gpu import GpuSession
from .ops import Op
from .programs import PROGRAMS
from .runtime import RUNTIME


def _record(op: Op, shapes: list[tuple[int, ...]], backend: str, stages: dict[str, float]) -> None:
    RUNTIME.trace.append({"op": op.name, "shapes": shapes, "backend": backend,
                          "ms": {k: round(v * 1e3, 4) for k, v in stages.items()},
                          "total_ms": round(sum(stages.values()) * 1e3, 4)})


async def run_async(op: Op, inputs: list[Any], params: dict[str, Any]) -> np.ndarray | float:
    """Run `op` on `inputs` (array-likes, named as in op.inputs) with checked `params`."""
    start = time.perf_counter()
    program = PROGRAMS[op.kind]
    arrays = [as_float32(x, name) for x, name in zip(inputs, op.inputs, strict=True)]
    program.check(op, arrays, params)
    problem = op.check(params) if op.check else None
    if problem:
        raise ValueError(f"{op.name}: {problem}")
    shapes = [a.shape for a in arrays]
    await RUNTIME.init_async()
    if RUNTIME.backend == "webgpu" and program.needs_gpu(arrays):
        try:
            async with GpuSession(op.name) as gpu:
                result = await program.gpu_async(gpu, op, arrays, params)
            gpu.stages["python"] = time.perf_counter() - start - sum(gpu.stages.values())
            _record(op, shapes, "webgpu", gpu.stages)
            return result
        except Exception:
            if RUNTIME.backend == "webgpu":
                raise
            # The device was lost during the call: the runtime is on NumPy now; answer from there.
    with np.errstate(all="ignore"):  # IEEE results for inf/NaN inputs, as on the GPU, without warnings
        result = program.numpy(op, arrays, params)
    _record(op, shapes, "numpy", {"compute": time.perf_counter() - start})
    return result
