"""Measuring this browser (or process) and device for the backend selector, and remembering the result.

`await pycore.calibrate_async()` times, in this process: the fixed cost of one GPU call and of one
NumPy call, upload and readback bandwidth, and the GPU's and NumPy's rates on each kind of kernel.
Each figure is the median of a few runs. The result replaces the selector's defaults and is saved
by the transport (a browser's localStorage, or a file under ~/.cache/pycore natively) for the
next init_async() to load.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import numpy as np

from .device import Device
from .progress import report as report_progress
from .runtime import RUNTIME
from .samples import shapes_for
from .selector import SELECTOR, STORAGE_KEY, Calibration


async def _median_ms(fn: Callable[[], Awaitable[Any]], repeats: int) -> float:
    await fn()  # warm: pipelines compiled, buffers pooled
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        await fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def _median_sync_ms(fn: Callable[[], Any], repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


# Sample size per kind (elements, or n of n x n): big enough that the fixed cost does not hide the
# rate (element-wise ops cross over near 1M elements), small enough to measure every op in seconds.
SAMPLE_SIZE = {"unary": 1 << 20, "binary": 1 << 20, "rowwise": 1 << 18, "reduce": 1 << 18,
               "matmul": 256, "conv2d": 256}


async def calibrate_async(repeats: int = 3, save: bool = True) -> dict[str, Any]:
    """Measure this browser (or process) and device; the selector uses the figures from now on. Returns them.

    Measured: the fixed cost of a GPU call (a 256-element relu round trip) and of a NumPy call,
    upload and readback bandwidth, and for every op its GPU and NumPy rate at one sample size (the
    GPU's from a full round trip, less the modelled fixed and transfer costs, so that the model adds
    back up to what was measured). Rates are per op: ops of one kind differ more than their FLOP
    counts say (on SwiftShader a gelu costs what a relu costs; in NumPy it costs 10 times more).

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.calibrate_async(repeats=1, save=False))["numpy_gflops"]["matmul"] > 0
    True
    """
    from . import api
    from .gpuarray import to_gpu_async
    from .ops import OPS
    from .programs import PROGRAMS

    await RUNTIME.init_async()
    rng = np.random.default_rng(0)
    cal = Calibration()
    relu = api.PUBLIC["relu_async"]
    tiny = np.ones(256, np.float32)
    cal.numpy_call_ms = await _median_ms(lambda: relu(tiny, backend="numpy"), repeats)
    samples = {}
    for op in OPS.values():
        n = SAMPLE_SIZE[op.kind]
        inputs = [rng.standard_normal(s, dtype=np.float32) for s in shapes_for(op, n)]
        params = op.typical_params()
        samples[op.name] = (op, inputs, params, op.flops(tuple(i.shape for i in inputs)))
        PROGRAMS[op.kind].numpy(op, inputs, params)  # warm every path first: the browser compiles
    for op, inputs, params, flops in samples.values():  # hot WebAssembly again after a while
        np_ms = _median_sync_ms(lambda op=op, inputs=inputs, params=params: PROGRAMS[op.kind].numpy(
            op, inputs, params), repeats)
        cal.numpy_gflops[op.name] = flops / (max(np_ms, 1e-3) * 1e6)
    if RUNTIME.backend == "webgpu":
        cal.dispatch_ms = await _median_ms(lambda: relu(tiny, backend="gpu"), repeats)
        stream = rng.standard_normal(1 << 20, dtype=np.float32)
        device = RUNTIME.device.transport

        async def upload() -> None:
            t = await to_gpu_async(stream)
            await device.work_done_async()
            t.release()

        up_ms = await _median_ms(upload, repeats)
        cal.upload_gbps = stream.nbytes / (max(up_ms, 1e-3) * 1e6)
        resident = await to_gpu_async(stream)
        down_ms = await _median_ms(resident.to_numpy_async, repeats)
        resident.release()
        cal.readback_gbps = stream.nbytes / (max(down_ms - cal.dispatch_ms, 1e-3) * 1e6)
        for i, (name, (op, inputs, params, flops)) in enumerate(samples.items()):
            report_progress("calibrate", i, len(samples), name)
            fn = api.PUBLIC[op.public_name]
            ms = await _median_ms(lambda fn=fn, inputs=inputs, params=params: fn(
                *inputs, **params, backend="gpu"), repeats)
            out_bytes = 4 * int(np.prod(PROGRAMS[op.kind].out_shape(tuple(i.shape for i in inputs), params)))
            moved = (sum(i.nbytes for i in inputs) / (cal.upload_gbps * 1e6)
                     + out_bytes / (cal.readback_gbps * 1e6))
            cal.gpu_gflops[name] = flops / (max(ms - cal.dispatch_ms - moved, 0.05 * ms) * 1e6)
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    cal.source = f"calibrated {when} on {RUNTIME.tier()}"
    SELECTOR.calibration = cal
    if save and RUNTIME.device is not None:
        RUNTIME.device.transport.save_setting(STORAGE_KEY, cal.to_json())
    return _rounded(cal)


def _rounded(cal: Calibration) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in cal.__dict__.items():
        if isinstance(value, dict):
            out[key] = {k: round(v, 4) for k, v in value.items()}
        elif isinstance(value, float):
            out[key] = round(value, 4)
        else:
            out[key] = value
    return out


def load_saved(device: Device | None = None) -> bool:
    """Use the calibration saved by an earlier calibrate_async() on this device (the browser's
    localStorage; natively, a file under $PYCORE_CACHE_DIR or ~/.cache/pycore), if any. Called
    when a device is acquired."""
    device = device or RUNTIME.device
    if device is None:
        return False
    text = device.transport.load_setting(STORAGE_KEY)
    if not text:
        SELECTOR.calibration = Calibration.for_adapter(device.cpu_adapter)  # measured class defaults
        return False
    try:
        SELECTOR.calibration = Calibration.from_json(text)
    except (TypeError, ValueError):
        device.transport.save_setting(STORAGE_KEY, None)  # from an older pycore: measure again
        SELECTOR.calibration = Calibration.for_adapter(device.cpu_adapter)
        return False
    return True


RUNTIME.on_device.append(lambda device: device is not None and load_saved(device))
