"""Measuring this browser and device for the backend selector, and remembering the result.

`await pycore.calibrate_async()` times, in this page: the fixed cost of one GPU call, upload and
readback bandwidth, the GPU's rate on streaming ops (relu) and on matmul, and NumPy's rates on the
same work. Each figure is the median of a few runs. The result replaces the selector's defaults and,
in a browser, is saved in localStorage and loaded again by the next init_async().
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import numpy as np

from .runtime import IN_PYODIDE, RUNTIME
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


async def calibrate_async(repeats: int = 5, save: bool = True) -> dict[str, Any]:
    """Measure this browser and device; the selector uses the figures from now on. Returns them.

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.calibrate_async(repeats=1, save=False))["numpy_gflops"]["stream"] > 0
    True
    """
    from . import matmul_async, relu_async
    from .gpuarray import to_gpu_async

    await RUNTIME.init_async()
    rng = np.random.default_rng(0)
    stream = rng.normal(size=1 << 20).astype(np.float32)
    a = rng.normal(size=(128, 128)).astype(np.float32)
    cal = Calibration()
    relu_flops, mm_flops = float(stream.size), 2.0 * 128**3
    from .ops import OPS

    np_relu = _median_sync_ms(lambda: OPS["relu"].numpy(stream), repeats)
    np_mm = _median_sync_ms(lambda: np.matmul(a, a), repeats)
    cal.numpy_gflops = {"stream": relu_flops / (np_relu * 1e6), "matmul": mm_flops / (np_mm * 1e6)}
    if RUNTIME.backend == "webgpu":
        tiny = np.ones(256, np.float32)
        cal.dispatch_ms = await _median_ms(lambda: relu_async(tiny, backend="gpu"), repeats)
        queue = RUNTIME.device.queue

        async def upload() -> None:
            t = await to_gpu_async(stream)
            await queue.onSubmittedWorkDone()
            t.release()

        up_ms = await _median_ms(upload, repeats)
        cal.upload_gbps = stream.nbytes / (max(up_ms, 1e-3) * 1e6)
        resident = await to_gpu_async(stream)
        down_ms = await _median_ms(resident.to_numpy_async, repeats)
        cal.readback_gbps = stream.nbytes / (max(down_ms - cal.dispatch_ms, 1e-3) * 1e6)

        async def gpu_relu() -> None:
            (await relu_async(resident, backend="gpu")).release()

        relu_ms = await _median_ms(gpu_relu, repeats)
        big = 256
        m = await to_gpu_async(rng.normal(size=(big, big)).astype(np.float32))

        async def gpu_mm() -> None:
            (await matmul_async(m, m, backend="gpu")).release()

        mm_ms = await _median_ms(gpu_mm, repeats)
        resident.release()
        m.release()
        cal.gpu_gflops = {"stream": relu_flops / (max(relu_ms - cal.dispatch_ms, 1e-3) * 1e6),
                          "matmul": 2.0 * big**3 / (max(mm_ms - cal.dispatch_ms, 1e-3) * 1e6)}
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    cal.source = f"calibrated {when} on {RUNTIME.tier()}"
    SELECTOR.calibration = cal
    if save and IN_PYODIDE:
        import js  # type: ignore[import-not-found]

        js.localStorage.setItem(STORAGE_KEY, cal.to_json())
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


def load_saved() -> bool:
    """Use the calibration saved by an earlier calibrate_async() in this browser, if any."""
    if not IN_PYODIDE:
        return False
    import js  # type: ignore[import-not-found]

    text = js.localStorage.getItem(STORAGE_KEY)
    if not text:
        return False
    try:
        SELECTOR.calibration = Calibration.from_json(str(text))
    except (TypeError, ValueError):
        js.localStorage.removeItem(STORAGE_KEY)  # from an older pycore: measure again
        return False
    return True
