"""Timing the backends: one function at one size on each backend (a sweep cell; functions.py says
which functions and their sample inputs), where the GPU starts to win, and the relu -> scale -> add
chain three ways (and in raw JavaScript)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any, cast

import numpy as np

from pycore.bench.functions import Bench, parse
from pycore.choice.selector import SELECTOR
from pycore.engine.runtime import RUNTIME
from pycore.tables.ops import OPS

SIZES = (1_000, 10_000, 100_000, 1_000_000, 4_000_000)
MATRIX_SIZES = (64, 128, 256, 512, 1024)
QUICK: dict[str, Any] = {"ops": ("relu", "add", "softmax", "sum", "matmul"), "sizes": (1_000, 100_000),
                         "matrix_sizes": (64, 256), "repeats": 3, "chain_size": 100_000}
MIN_CELL_S = 0.05  # small cells repeat until they have run about this long (up to 4 x repeats)


EXTRA_S = 2.0  # then auto and the backends within CONTENDER x the fastest run more rounds, this long


CONTENDER = 1.5


INNER_MS = 2.0  # a timed sample lasts at least this long: calls faster than that are timed in a row


def _median(xs: list[float]) -> float:
    return round(statistics.median(xs), 4)


async def _timed(fn: Callable[[], Any]) -> float:
    t = time.perf_counter()
    await fn()
    return (time.perf_counter() - t) * 1e3


def contenders(times: dict[str, list[float]]) -> tuple[str, ...]:
    """auto, and the forced backends whose median is within CONTENDER x the fastest one's (the
    ones auto's regret is measured against), in the order given.

    >>> contenders({"gpu": [9.0, 10.0], "numpy": [1.0, 1.2], "auto": [1.1]})
    ('numpy', 'auto')
    """
    medians = {b: statistics.median(t) for b, t in times.items()}
    fastest = min(m for b, m in medians.items() if b != "auto")
    return tuple(b for b, m in medians.items() if b == "auto" or m <= CONTENDER * fastest)


def _since(entry: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The trace's entries after `entry` (the last one before some calls), newest first."""
    out = []
    for e in reversed(RUNTIME.trace):
        if e is entry:
            break
        out.append(e)
    return out


async def _cell(bench: Bench, n: int, backends: tuple[str, ...], repeats: int,
                rng: np.random.Generator) -> dict[str, Any]:
    """One function at one size on each backend, interleaved, every other round in reverse order
    (so gpu and auto run equally often right after NumPy, in the cache it left); medians, auto's
    choice, GPU stages. A function that takes no backend= has no auto (see functions.py)."""
    if not bench.takes_backend:
        backends = tuple(b for b in backends if b != "auto")
    inputs = bench.inputs(n, rng)
    calls = {b: bench.call(inputs, b) for b in backends}
    times: dict[str, list[float]] = {b: [] for b in backends}
    stages: list[dict[str, float]] = []
    chose: list[str] = []
    warms = [await _timed(calls[b]) for b in backends]  # compile, fill the pool
    warm = sum(warms)
    settling = 0  # auto's calls spent measuring both backends (near a crossover), before timing it
    shapes = [tuple(i.shape) for i in inputs]
    cost = bench.cost(shapes)
    if "auto" in backends and cost is not None:
        while SELECTOR.choose(cost, shapes).measuring and settling < 2 * SELECTOR.samples:
            await calls["auto"]()
            settling += 1
    # A sample of a fast call times several in a row (noise averages out; a page that is not
    # cross-origin isolated has a 0.1 ms clock), as many
    # for every backend (the first call of a sample pays for the switch; all share it alike).
    k = max(1, min(20, int(INNER_MS / max(min(warms), 0.05))))
    runs = repeats if warm > MIN_CELL_S * 1e3 / repeats else min(4 * repeats, max(
        repeats, int(MIN_CELL_S * 1e3 / max(warm, 1e-3))))

    async def sample(b: str) -> None:
        async def block() -> None:
            for _ in range(k):
                await calls[b]()

        before = RUNTIME.trace[-1] if RUNTIME.trace else None
        times[b].append(await _timed(block) / k)
        traced = _since(before)
        gpu_entry = next((e for e in traced if e["backend"] == "webgpu"), None)
        if b == "gpu" and gpu_entry is not None:  # (the call's own: uploads and reads are not traced)
            stages.append(gpu_entry["ms"])
        elif b == "auto":  # (some host calls are not traced: those ran on NumPy)
            chose.append(traced[0]["backend"] if traced else "numpy")

    for r in range(runs):
        for b in (backends if r % 2 == 0 else backends[::-1]):  # each follows NumPy equally often
            await sample(b)
    # Then auto and the backends close to the fastest (the ones its regret is measured against) go
    # on alternating, for up to EXTRA_S or 4 x repeats rounds in all: a median of 5 is too noisy
    # to resolve 10% between two runs of the same code, and a far slower backend adds nothing.
    if "auto" in backends:
        close = contenders(times)
        spent = time.perf_counter()
        r = runs
        while r < 4 * repeats and time.perf_counter() - spent < EXTRA_S:
            for b in (close if r % 2 == 0 else close[::-1]):
                await sample(b)
            r += 1
    row: dict[str, Any] = {"op": bench.name, "size": n, "shapes": [list(s.shape) for s in inputs],
                           "runs": {b: len(times[b]) for b in backends}}
    for b in backends:
        row[f"{b}_ms"] = _median(times[b])
    if stages:
        row["stages_ms"] = {k: _median([s.get(k, 0.0) for s in stages]) for k in stages[0]}
    if chose:
        row["auto_backend"] = max(set(chose), key=chose.count)
        row["auto_settling_calls"] = settling
    if {"gpu", "numpy", "auto"} <= set(backends):
        row["regret"] = round(row["auto_ms"] / min(row["gpu_ms"], row["numpy_ms"]), 3)
    return row


def _crossovers(rows: list[dict[str, Any]]) -> dict[str, dict[str, int | None]]:
    """Per function: the smallest size from which the GPU wins at every larger size, measured and
    as the selector predicts it (None: numpy wins at the largest size, or auto predicts nothing for
    the function: it computes where its input lives)."""
    out: dict[str, dict[str, int | None]] = {}
    for name in dict.fromkeys(r["op"] for r in rows):
        mine = sorted((r for r in rows if r["op"] == name and "gpu_ms" in r), key=lambda r: r["size"])
        if not mine:
            continue
        bench = parse(name)
        measured = predicted = None
        for r in reversed(mine):
            if r["gpu_ms"] >= r["numpy_ms"]:
                break
            measured = r["size"]
        for r in reversed(mine):
            shapes = [tuple(s) for s in r["shapes"]]
            cost = bench.cost(shapes)
            if cost is None or SELECTOR.predict(cost, shapes).choice != "webgpu":
                break
            predicted = r["size"]
        out[name] = {"measured": measured, "predicted": predicted}
    return out


async def _chain(n: int, repeats: int, rng: np.random.Generator, module: Any = None) -> dict[str, Any]:
    """relu -> scale -> add on n elements, from NumPy input to NumPy result, three ways, and
    (with baselines.js as `module`) in raw JavaScript running the batch's fused kernel."""
    from pycore.calls.api import PUBLIC
    from pycore.calls.gpuarray import GpuArray, to_gpu_async
    from pycore.calls.nd import NDPUBLIC

    relu_async, scale_async = PUBLIC["relu_async"], PUBLIC["scale_async"]
    add_async = NDPUBLIC["add_async"]
    from pycore.calls.batch import CommandBatch

    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    expect = np.maximum(x, 0) * np.float32(2) + y

    async def round_trips() -> np.ndarray:
        r = await relu_async(x, backend="gpu")
        s = await scale_async(r, 2.0, backend="gpu")
        return cast(np.ndarray, await add_async(s, y, backend="gpu"))  # (NumPy in, NumPy out)

    async def gpu_arrays() -> np.ndarray:
        tx, ty = await to_gpu_async(x), await to_gpu_async(y)
        r = cast(GpuArray, await relu_async(tx, backend="gpu"))  # (GpuArrays in, GpuArrays out)
        s = cast(GpuArray, await scale_async(r, 2.0, backend="gpu"))
        out = cast(GpuArray, await add_async(s, ty, backend="gpu"))
        host = await out.to_numpy_async()
        for t in (tx, ty, r, s, out):
            t.release()
        return host

    async def batch() -> np.ndarray:
        async with CommandBatch() as b:
            hx, hy = b.upload(x), b.upload(y)
            out = b.vec_add(b.scale(b.relu(hx), 2.0), hy)  # (CommandBatch names the op table's ops)
            await b.execute_async()
            return cast(np.ndarray, await b.read_async(out))  # (an element-wise op's: an array)

    ways = {"round_trips": round_trips, "gpu_array": gpu_arrays, "command_batch": batch}
    times: dict[str, list[float]] = {k: [] for k in ways}
    for name, fn in ways.items():
        got = await fn()
        if not np.allclose(got, expect, rtol=1e-6, atol=1e-6):
            raise AssertionError(f"bench: the {name} chain computed a wrong result")
    for r in range(repeats):
        for name in (list(ways) if r % 2 == 0 else list(ways)[::-1]):  # as in _cell
            times[name].append(await _timed(ways[name]))
    row: dict[str, Any] = {"size": n, "ops": ["relu", "scale", "add"]}
    row.update({f"{k}_ms": _median(v) for k, v in times.items()})
    row["speedup_gpu_array"] = round(row["round_trips_ms"] / row["gpu_array_ms"], 3)
    row["speedup_command_batch"] = round(row["round_trips_ms"] / row["command_batch_ms"], 3)
    if module is not None:

        from pycore.engine.executor import facts
        from pycore.kernels.fusion import FusedKernel, Node
        from pycore.kernels.plan import Step

        assert RUNTIME.device is not None  # (raw JavaScript runs only beside a WebGPU device)
        relu = Node(2, OPS["relu"], {}, [0])
        tree = Node(4, OPS["vec_add"], {}, [Node(3, OPS["scale"], {"s": 2.0}, [relu]), 1])
        step = FusedKernel(tree).plan(n, facts(RUNTIME.device)).steps[0]
        assert isinstance(step, Step)
        raw = (await module.rawChain(RUNTIME.device.transport.js_device(), step.kernel.source(), n,
                                     step.block.tolist(), repeats)).to_py()
        data = (np.sin(np.arange(8) * 12.9898) * 2).astype(np.float32)  # baselines.js's randomData
        if not np.allclose(raw["head"], np.maximum(data, 0) * 2 + data, rtol=1e-5, atol=1e-6):
            raise AssertionError(f"bench: the raw-JS chain computed {raw['head']}")
        row["raw_js_ms"] = round(raw["ms"], 4)
        row["command_batch_over_raw_js"] = round(row["command_batch_ms"] / raw["ms"], 3)
    row["gpu_array_over_command_batch"] = round(row["gpu_array_ms"] / row["command_batch_ms"], 3)
    return row
