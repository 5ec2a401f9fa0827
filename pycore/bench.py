"""The benchmark harness: what each backend costs here, where the GPU starts to win, and how pycore
compares with raw JavaScript and TF.js in the same page.

    result = await pycore.bench.run_async()         # the full sweep (minutes on SwiftShader)
    print(pycore.bench.format_report(result))       # the readable table
    result = await pycore.bench.run_async(quick=True)   # a small sweep (seconds)

The command line runs the same function in headless Chromium (`python3 scripts/bench.py`), or
natively in this process on wgpu-py (`python3 -m pycore.bench --native`), and writes the JSON and
the table. The result is plain JSON-able data, the same from both:

  sweep      one row per op and size: median ms of backend "gpu", "numpy" and "auto", which
             backend auto took, auto's regret (auto / the faster of the two), and the median ms per
             stage of the GPU call (buffers, upload, dispatch, readback, python)
  crossover  per op: the smallest size from which the GPU was faster at every larger size
             (measured), and the same according to the selector's cost model (predicted)
  chain      relu -> scale -> vec_add on `chain_size` elements: three round-trip calls, GpuArray,
             CommandBatch
  bridge     a small GPU op through pycore vs. the same in raw JavaScript, and the raw floor
             (trimmed means: the latency is bimodal in Chromium, see _bridge)
  peers      raw JavaScript and TF.js WebGPU running relu, softmax and matmul at the sweep's sizes
  targets    the ratios the project aims for, each with its goal and whether it was met
  reference  pycore's times beside those published for the reference library (trueno's wgpu
             backend, native, on an RTX 4090), where the sweep measured the same thing

Each cell interleaves the backends (gpu, numpy, auto, gpu, ...) after one warm-up call each, so
slow drift of a shared machine affects them alike; after `repeats` rounds, auto and the backends
close to the fastest go on for more rounds (up to 4 x repeats, within EXTRA_S seconds), so that
auto's regret compares medians of up to 20 samples where it matters (`runs` counts each
backend's). Where auto settles a call by measuring both backends first (near a crossover: see
selector.py), those calls run before the timed rounds, as they would the first few times a user
makes that call; the row counts them (auto_settling_calls). Times are wall-clock medians in
milliseconds; a sample of a call faster than 2 ms times up to 20 calls in a row (averaging the
noise of sub-ms calls; the browser's clock ticks in 5 µs steps on serve.py's cross-origin-isolated
page, 0.1 ms on a page that is not).
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import numpy as np

from .ops import OPS, Op
from .runtime import IN_PYODIDE, RUNTIME
from .samples import SHAPES, shapes_for
from .selector import SELECTOR

SIZES = (1_000, 10_000, 100_000, 1_000_000, 4_000_000)
MATRIX_SIZES = (64, 128, 256, 512, 1024)
QUICK = {"ops": ("relu", "vec_add", "softmax", "sum", "matmul"), "sizes": (1_000, 100_000),
         "matrix_sizes": (64, 256), "repeats": 3, "chain_size": 100_000}
PEER_OPS = ("relu", "softmax", "matmul")
BRIDGE_SIZE = 1024  # elements of the small op in the bridge comparison
MIN_CELL_S = 0.05  # small cells repeat until they have run about this long (up to 4 x repeats)
EXTRA_S = 2.0  # then auto and the backends within CONTENDER x the fastest run more rounds, this long
CONTENDER = 1.5
INNER_MS = 2.0  # a timed sample lasts at least this long: calls faster than that are timed in a row

MATRIX_KINDS = {"matmul", "conv2d"}

TARGETS = {
    "regret": "auto <= 1.10 x the faster of gpu and numpy, at every size",
    "chain_eager": "3-op chain as eager calls on GpuArrays <= 1.1 x the same chain through CommandBatch",
    "chain_raw": "3-op chain through CommandBatch <= 1.1 x raw JavaScript doing the same transfers",
    "bridge": "pycore small-op round trip <= 1.5 x the raw JavaScript round trip",
    "matmul_vs_tfjs": "matmul >= 2 x faster than TF.js WebGPU at 512 and 1024",
    "matmul_vs_numpy": "matmul on the GPU >= 10 x faster than NumPy at 1024",
}


# The reference library's published numbers (native wgpu on an RTX 4090; ../notes in the design
# docs): (what, op, size, milliseconds). Size None: the small-op round trip of the bridge row.
REFERENCE = "trueno wgpu, RTX 4090"
REFERENCE_MS = (
    ("fixed cost per op (small op round trip)", "relu", None, 3.5),
    ("matmul 1000²", "matmul", 1000, 7.84),
    ("vec_add 1M", "vec_add", 1_000_000, 5.98),
    ("dot 1M", "dot", 1_000_000, 6.25),
)


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


def _inputs(op: Op, n: int, rng: np.random.Generator) -> list[np.ndarray]:
    return [rng.standard_normal(s, dtype=np.float32) for s in shapes_for(op, n)]


async def _cell(op: Op, n: int, backends: tuple[str, ...], repeats: int,
                rng: np.random.Generator) -> dict[str, Any]:
    """One op at one size on each backend, interleaved, every other round in reverse order (so gpu
    and auto run equally often right after NumPy, in the cache it left); medians, auto's choice,
    GPU stages."""
    from . import api

    fn = api.PUBLIC[op.public_name]
    inputs, params = _inputs(op, n, rng), op.typical_params()
    times: dict[str, list[float]] = {b: [] for b in backends}
    stages: list[dict[str, float]] = []
    chose: list[str] = []
    warms = [await _timed(lambda b=b: fn(*inputs, **params, backend=b))  # compile, fill the pool
             for b in backends]
    warm = sum(warms)
    settling = 0  # auto's calls spent measuring both backends (near a crossover), before timing it
    if "auto" in backends:
        shapes = [tuple(i.shape) for i in inputs]
        while SELECTOR.choose(op, shapes).measuring and settling < 2 * SELECTOR.samples:
            await fn(*inputs, **params, backend="auto")
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
                await fn(*inputs, **params, backend=b)

        times[b].append(await _timed(block) / k)
        last = RUNTIME.trace[-1]
        if b == "gpu":
            stages.append(last["ms"])
        elif b == "auto":
            chose.append(last["backend"])

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
    row: dict[str, Any] = {"op": op.name, "size": n, "shapes": [list(s.shape) for s in inputs],
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
    """Per op: the smallest size from which the GPU wins at every larger size, measured and as
    the selector predicts it (None: numpy wins at the largest size)."""
    out: dict[str, dict[str, int | None]] = {}
    for name in dict.fromkeys(r["op"] for r in rows):
        mine = sorted((r for r in rows if r["op"] == name and "gpu_ms" in r), key=lambda r: r["size"])
        if not mine:
            continue
        op = OPS[name]
        measured = predicted = None
        for r in reversed(mine):
            if r["gpu_ms"] >= r["numpy_ms"]:
                break
            measured = r["size"]
        for r in reversed(mine):
            shapes = [tuple(s) for s in r["shapes"]]
            if SELECTOR.predict(op, shapes).choice != "webgpu":
                break
            predicted = r["size"]
        out[name] = {"measured": measured, "predicted": predicted}
    return out


async def _chain(n: int, repeats: int, rng: np.random.Generator, module: Any = None) -> dict[str, Any]:
    """relu -> scale -> vec_add on n elements, from NumPy input to NumPy result, three ways, and
    (with baselines.js as `module`) in raw JavaScript running the batch's fused kernel."""
    from . import relu_async, scale_async, to_gpu_async, vec_add_async
    from .batch import CommandBatch

    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    expect = np.maximum(x, 0) * np.float32(2) + y

    async def round_trips() -> np.ndarray:
        r = await relu_async(x, backend="gpu")
        s = await scale_async(r, 2.0, backend="gpu")
        return await vec_add_async(s, y, backend="gpu")

    async def gpu_arrays() -> np.ndarray:
        tx, ty = await to_gpu_async(x), await to_gpu_async(y)
        r = await relu_async(tx, backend="gpu")
        s = await scale_async(r, 2.0, backend="gpu")
        out = await vec_add_async(s, ty, backend="gpu")
        host = await out.to_numpy_async()
        for t in (tx, ty, r, s, out):
            t.release()
        return host

    async def batch() -> np.ndarray:
        async with CommandBatch() as b:
            hx, hy = b.upload(x), b.upload(y)
            out = b.vec_add(b.scale(b.relu(hx), 2.0), hy)
            await b.execute_async()
            return await b.read_async(out)

    ways = {"round_trips": round_trips, "gpu_array": gpu_arrays, "command_batch": batch}
    times: dict[str, list[float]] = {k: [] for k in ways}
    for name, fn in ways.items():
        got = await fn()
        if not np.allclose(got, expect, rtol=1e-6, atol=1e-6):
            raise AssertionError(f"bench: the {name} chain computed a wrong result")
    for r in range(repeats):
        for name in (list(ways) if r % 2 == 0 else list(ways)[::-1]):  # as in _cell
            times[name].append(await _timed(ways[name]))
    row: dict[str, Any] = {"size": n, "ops": ["relu", "scale", "vec_add"]}
    row.update({f"{k}_ms": _median(v) for k, v in times.items()})
    row["speedup_gpu_array"] = round(row["round_trips_ms"] / row["gpu_array_ms"], 3)
    row["speedup_command_batch"] = round(row["round_trips_ms"] / row["command_batch_ms"], 3)
    if module is not None:

        from .fusion import FusedKernel, Node

        relu = Node(2, OPS["relu"], {}, [0])
        tree = Node(4, OPS["vec_add"], {}, [Node(3, OPS["scale"], {"s": 2.0}, [relu]), 1])
        raw = (await module.rawChain(RUNTIME.device.transport.js_device(), FusedKernel(tree).source(), n, 2.0,
                                     repeats)).to_py()
        data = (np.sin(np.arange(8) * 12.9898) * 2).astype(np.float32)  # baselines.js's randomData
        if not np.allclose(raw["head"], np.maximum(data, 0) * 2 + data, rtol=1e-5, atol=1e-6):
            raise AssertionError(f"bench: the raw-JS chain computed {raw['head']}")
        row["raw_js_ms"] = round(raw["ms"], 4)
        row["command_batch_over_raw_js"] = round(row["command_batch_ms"] / raw["ms"], 3)
    row["gpu_array_over_command_batch"] = round(row["gpu_array_ms"] / row["command_batch_ms"], 3)
    return row


def _runtime_name() -> str:
    """What runs this Python: the browser's user agent (Chromium, or Node with Dawn), or CPython."""
    if IN_PYODIDE:
        import js  # type: ignore[import-not-found]

        return str(js.navigator.userAgent)
    return f"CPython {sys.version.split()[0]}"


async def _baselines_module() -> Any:
    """web/bench/baselines.js: preloaded by the host (scripts/dawn.mjs sets globalThis.pycoreBaselines),
    else imported into this page (None outside a page served by serve.py)."""
    if not IN_PYODIDE or RUNTIME.backend != "webgpu":
        return None
    import js  # type: ignore[import-not-found]

    preloaded = getattr(js, "pycoreBaselines", None)
    if preloaded is not None:
        return preloaded
    from pyodide.code import run_js  # type: ignore[import-not-found]

    return await run_js("import('/bench/baselines.js')")


def _peer_shape(op: str, n: int) -> list[int]:
    return list(SHAPES[OPS[op].kind](n)[0])


def _raw_head(op: str, shape: list[int]) -> np.ndarray:
    """The first 8 values of op on baselines.js's inputs (its randomData), by NumPy in float64."""
    def data(n: int) -> np.ndarray:
        return (np.sin(np.arange(n) * 12.9898) * 2).astype(np.float32).astype(np.float64)

    if op == "matmul":
        n = shape[0]
        return data(n * n)[:n] @ data(n * n).reshape(n, n)[:, :8]
    row = data(shape[-1])  # relu: the first values; softmax: the first row
    if op == "relu":
        return np.maximum(row[:8], 0)
    e = np.exp(row - row.max())
    return (e / e.sum())[:8]


def _matmul_tile(kernel: str) -> tuple[int, int]:
    """Rows and columns of C one workgroup of this matmul kernel computes (programs.Matmul owns them)."""
    from .programs import Matmul

    return (Matmul.TILED, Matmul.TILED) if kernel == "matmul_tiled" else Matmul.VEC4_TILE


def _raw_kernel(op: str, shape: list[int]) -> str:
    """The baselines.js kernel that runs what pycore runs for op at shape on this adapter."""
    if op == "matmul":
        from .programs import PROGRAMS

        entry = PROGRAMS["matmul"].kernels(RUNTIME.device, OPS["matmul"])[0][1]
        return "matmul_tiled" if entry == "matmul_tiled" else op
    if op == "softmax":
        from .gpu import GpuSession
        from .programs import PROGRAMS

        rows, cols = (1, shape[0]) if len(shape) == 1 else shape
        tree = PROGRAMS["rowwise"].uses_tree(GpuSession(RUNTIME.device, "bench"), rows, cols)
        return op if tree else "softmax_thread"
    return op


async def _peers(module: Any, sizes: tuple[int, ...], matrix_sizes: tuple[int, ...], repeats: int,
                 note: Callable[[str], None]) -> list[dict[str, Any]]:
    from pyodide.ffi import to_js  # type: ignore[import-not-found]

    rows = []
    try:
        tf = (await module.tfjs()).to_py()
    except Exception as exc:  # no TF.js (npm ci not run?): the raw-JS rows still count
        tf = None
        note(f"TF.js unavailable: {exc}")
    device = RUNTIME.device.transport.js_device()
    for op in PEER_OPS:
        for n in matrix_sizes if op == "matmul" else sizes:
            shape = _peer_shape(op, n)
            reps = max(1, min(repeats, 3)) if op == "matmul" and n >= 512 else repeats
            kernel = _raw_kernel(op, shape)
            tile = to_js(list(_matmul_tile(kernel))) if op == "matmul" else None
            raw = (await module.rawOp(device, kernel, to_js(shape), reps, tile)).to_py()
            want = _raw_head(op, shape)
            if not np.allclose(raw["head"], want, rtol=1e-4, atol=1e-6):
                raise AssertionError(f"bench: raw-JS {op} at {shape} computed {raw['head']}, "
                                     f"NumPy {want.tolist()}")
            rows.append({"impl": "raw-js", "op": op, "size": n, "shape": shape, "ms": round(raw["ms"], 4)})
            if tf:
                got = (await module.tfjsOp(op, to_js(shape), reps)).to_py()
                rows.append({"impl": f"tfjs {tf['version']}", "op": op, "size": n, "shape": shape,
                             "ms": round(got["ms"], 4)})
    return rows


async def _bridge(module: Any, repeats: int) -> dict[str, Any]:
    """relu on BRIDGE_SIZE elements through pycore and in raw JavaScript (same kernel, same device),
    and the raw floor: 12 rounds of a few calls each, the order alternating, so that a shared
    machine's drift hits all alike.

    The ratio compares trimmed means (the middle 80% of the calls), not medians: in Chromium a small
    round trip's latency is bimodal (about 0.5-1 ms when the GPU process's first check finds the
    work done, 2.5-3 ms when it waits for its next poll; the share of each varies by run), and a
    median lands in either mode by chance. Both statistics are in the row."""
    from . import relu_async

    x = np.random.default_rng(1).standard_normal(BRIDGE_SIZE, dtype=np.float32)
    await relu_async(x, backend="gpu")
    per_round = max(repeats, 5)
    ours: list[float] = []
    raw: list[float] = []
    floor: list[float] = []

    async def pycore_calls() -> None:
        ours.extend([await _timed(lambda: relu_async(x, backend="gpu")) for _ in range(per_round)])

    async def raw_calls() -> None:
        from pyodide.ffi import to_js  # type: ignore[import-not-found]

        device = RUNTIME.device.transport.js_device()
        raw.extend((await module.rawOp(device, "relu", to_js([BRIDGE_SIZE]), per_round)).to_py()["runs"])
        floor.extend((await module.rawFloor(device, per_round)).to_py()["runs"])

    sides = [pycore_calls] + ([raw_calls] if module is not None else [])
    for r in range(12):
        for calls in (sides if r % 2 == 0 else sides[::-1]):
            await calls()
    row: dict[str, Any] = {"op": "relu", "size": BRIDGE_SIZE, "runs": len(ours),
                           "pycore_ms": _trimmed_mean(ours), "pycore_median_ms": _median(ours)}
    if raw:
        row |= {"raw_js_ms": _trimmed_mean(raw), "raw_js_median_ms": _median(raw),
                "raw_floor_ms": _trimmed_mean(floor), "raw_floor_median_ms": _median(floor),
                "ratio": round(_trimmed_mean(ours) / _trimmed_mean(raw), 3),
                "statistic": "trimmed mean (middle 80%)"}
    return row


def _trimmed_mean(xs: list[float], cut: float = 0.1) -> float:
    xs = sorted(xs)
    k = int(len(xs) * cut)
    kept = xs[k:len(xs) - k] or xs
    return round(sum(kept) / len(kept), 4)


def _targets(result: dict[str, Any]) -> list[dict[str, Any]]:
    out = []

    def target(key: str, value: float | None, goal: float, higher_is_better: bool, detail: str) -> None:
        met = None if value is None else (value >= goal if higher_is_better else value <= goal)
        out.append({"name": key, "goal": TARGETS[key], "value": value, "met": met, "detail": detail})

    regrets = [r for r in result["sweep"] if "regret" in r]
    if regrets:
        worst = max(regrets, key=lambda r: r["regret"])
        target("regret", worst["regret"], 1.10, False,
               f"worst: {worst['op']} at {worst['size']:,}; "
               f"{sum(r['regret'] > 1.10 for r in regrets)} of {len(regrets)} cells over 1.10")
    chain = result.get("chain")
    if chain:
        eager = round(chain["gpu_array_ms"] / chain["command_batch_ms"], 3)
        target("chain_eager", eager, 1.10, False, f"GpuArray {chain['gpu_array_ms']} ms, CommandBatch "
               f"{chain['command_batch_ms']} ms at {chain['size']:,} elements (round trips "
               f"{chain['round_trips_ms']} ms)")
        if "raw_js_ms" in chain:
            raw = round(chain["command_batch_ms"] / chain["raw_js_ms"], 3)
            target("chain_raw", raw, 1.10, False, f"CommandBatch {chain['command_batch_ms']} ms, raw JS "
                   f"{chain['raw_js_ms']} ms")
    bridge = result.get("bridge", {})
    if "ratio" in bridge:
        target("bridge", bridge["ratio"], 1.5, False,
               f"trimmed means: pycore {bridge['pycore_ms']} ms vs raw JS {bridge['raw_js_ms']} ms "
               f"(floor {bridge['raw_floor_ms']} ms; medians {bridge['pycore_median_ms']} vs "
               f"{bridge['raw_js_median_ms']} ms)")
    mm = {r["size"]: r for r in result["sweep"] if r["op"] == "matmul"}
    tf = {r["size"]: r["ms"] for r in result.get("peers", []) if r["op"] == "matmul"
          and r["impl"].startswith("tfjs")}
    sizes = [n for n in (512, 1024) if n in mm and n in tf]
    if sizes:
        ratios = {n: round(tf[n] / mm[n]["gpu_ms"], 3) for n in sizes}
        target("matmul_vs_tfjs", min(ratios.values()), 2.0, True,
               ", ".join(f"{n}²: TF.js {tf[n]:.1f} ms / pycore {mm[n]['gpu_ms']:.1f} ms = {v}x"
                         for n, v in ratios.items()))
    if 1024 in mm and "numpy_ms" in mm[1024]:
        r = mm[1024]
        target("matmul_vs_numpy", round(r["numpy_ms"] / r["gpu_ms"], 3), 10.0, True,
               f"NumPy {r['numpy_ms']:.0f} ms / GPU {r['gpu_ms']:.1f} ms at 1024²")
    return out


def _reference(result: dict[str, Any]) -> list[dict[str, Any]]:
    """pycore's GPU time beside the reference's published one, for each that this run measured."""
    gpu = {(r["op"], r["size"]): r["gpu_ms"] for r in result["sweep"] if "gpu_ms" in r}
    rows = []
    for what, op, size, ref_ms in REFERENCE_MS:
        ours = result.get("bridge", {}).get("pycore_ms") if size is None else gpu.get((op, size))
        if ours is not None:
            rows.append({"what": what, "reference_ms": ref_ms, "pycore_ms": ours,
                         "speedup": round(ref_ms / max(ours, 1e-6), 2)})
    return rows


async def run_async(ops: tuple[str, ...] | None = None, sizes: tuple[int, ...] = SIZES,
                    matrix_sizes: tuple[int, ...] = MATRIX_SIZES, repeats: int = 5,
                    chain_size: int = 1 << 20, peers: bool = True, quick: bool = False,
                    progress: Callable[[dict[str, Any]], Any] | None = None) -> dict[str, Any]:
    """Run the benchmarks in this page (or process) and return the results (see the module doc).

    quick=True: a few ops at two sizes each, for a first look. `progress(event)` is called after
    every measured row with {"section", "row", "done", "total"}, so a page can stream results.

    >>> import asyncio, pycore
    >>> r = asyncio.run(pycore.bench.run_async(ops=("relu",), sizes=(1000,), matrix_sizes=(), repeats=1))
    >>> r["sweep"][0]["op"], "numpy_ms" in r["sweep"][0]
    ('relu', True)
    """
    if quick:
        ops, sizes, matrix_sizes = QUICK["ops"], QUICK["sizes"], QUICK["matrix_sizes"]
        repeats, chain_size = QUICK["repeats"], QUICK["chain_size"]
    names = tuple(ops) if ops is not None else tuple(OPS)
    unknown = [n for n in names if n not in OPS]
    if unknown:
        raise ValueError(f"bench: unknown op(s) {', '.join(map(repr, unknown))}; "
                         f"the ops are {', '.join(OPS)}")
    if repeats < 1:
        raise ValueError(f"bench: repeats must be at least 1, got {repeats}")
    for what, values in (("sizes", sizes), ("matrix_sizes", matrix_sizes), ("chain_size", (chain_size,))):
        bad = [v for v in values if not isinstance(v, int) or v < 1]
        if bad:
            raise ValueError(f"bench: {what} must be positive integers, got {bad}")
    await RUNTIME.init_async()
    started = time.perf_counter()
    notes: list[str] = []
    gpu = RUNTIME.backend == "webgpu"
    if gpu and SELECTOR.calibration.source.startswith("defaults"):
        from .calibrate import calibrate_async

        await calibrate_async(save=False)
        notes.append("the selector was calibrated first (pycore.calibrate_async)")
    backends = ("gpu", "numpy", "auto") if gpu else ("numpy", "auto")
    cells = [(OPS[n], s) for n in names
             for s in (matrix_sizes if OPS[n].kind in MATRIX_KINDS else sizes)]
    total = len(cells) + (3 if gpu else 0)
    done = 0

    def report(section: str, row: Any) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress({"section": section, "row": row, "done": done, "total": total})

    rng = np.random.default_rng(0)
    result: dict[str, Any] = {
        "when": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "tier": RUNTIME.tier(),
        "environment": {**{k: v for k, v in RUNTIME.info().items()
                           if k in ("backend", "transport", "adapter", "versions")},
                        "runtime": _runtime_name()},
        "calibration": dict(SELECTOR.calibration.__dict__),
        "margin": SELECTOR.margin,
        "repeats": repeats,
        "sweep": [],
        "notes": notes,
    }
    for op, n in cells:
        row = await _cell(op, n, backends, repeats, rng)
        result["sweep"].append(row)
        report("sweep", row)
    if gpu:
        result["crossover"] = _crossovers(result["sweep"])
        module = await _baselines_module() if peers else None
        result["chain"] = await _chain(chain_size, repeats, rng, module)
        report("chain", result["chain"])
        result["bridge"] = await _bridge(module, repeats)
        report("bridge", result["bridge"])
        if module is not None:
            peer_sizes = tuple(s for s in sizes if s <= 1_000_000)  # TF.js at 4M adds minutes, not insight
            result["peers"] = await _peers(module, peer_sizes, matrix_sizes, repeats, notes.append)
        report("peers", result.get("peers", []))
    else:
        notes.append(f"no WebGPU ({RUNTIME.reason}): NumPy only")
    result["targets"] = _targets(result)
    result["reference"] = _reference(result)
    result["seconds"] = round(time.perf_counter() - started, 1)
    return result


def _fmt(ms: float | None) -> str:
    if ms is None:
        return "-"
    return f"{ms:.3g}" if ms < 10 else f"{ms:,.0f}"


def _size(n: int, kind: str) -> str:
    if kind in MATRIX_KINDS:
        return f"{n}²"
    return f"{n // 1_000_000}M" if n >= 1_000_000 and n % 1_000_000 == 0 else (
        f"{n // 1000}K" if n % 1000 == 0 else str(n))


def format_report(result: dict[str, Any]) -> str:
    """The result of run_async as text tables (what scripts/bench.py prints)."""
    lines = [f"pycore benchmark, {result['when']}, on {result['tier']}",
             f"median ms over {result['repeats']} to {4 * result['repeats']} runs; "
             f"auto = the selector's choice (margin {result['margin']})", ""]
    head = f"{'op':<12}{'size':>7}{'gpu':>9}{'numpy':>9}{'auto':>9}  {'auto ran':<8}{'regret':>7}"
    head += "   gpu stages: buffers/upload/dispatch/readback/python"
    lines += [head, "-" * len(head)]
    for r in result["sweep"]:
        kind = OPS[r["op"]].kind
        st = r.get("stages_ms")
        stages = "/".join(_fmt(st.get(k)) for k in ("buffers", "upload", "dispatch", "readback", "python")) \
            if st else ""
        ran = r.get("auto_backend", "") + ("*" if r.get("auto_settling_calls") else "")
        lines.append(f"{r['op']:<12}{_size(r['size'], kind):>7}{_fmt(r.get('gpu_ms')):>9}"
                     f"{_fmt(r.get('numpy_ms')):>9}{_fmt(r.get('auto_ms')):>9}  "
                     f"{ran:<8}{r.get('regret', ''):>7}   {stages}")
    settled = [r["auto_settling_calls"] for r in result["sweep"] if r.get("auto_settling_calls")]
    if settled:
        lines.append(f"* auto settled this call by measuring both backends first ({len(settled)} "
                     f"cells, {sum(settled)} calls in all, before the timed rounds)")
    if result.get("crossover"):
        lines += ["", "crossover (the GPU is faster from this size on): measured / predicted by the selector"]
        for name, c in result["crossover"].items():
            kind = OPS[name].kind
            shown = [_size(c[k], kind) if c[k] else "never" for k in ("measured", "predicted")]
            lines.append(f"  {name:<12}{shown[0]:>8} / {shown[1]}")
    chain = result.get("chain")
    if chain:
        lines += ["", f"chain relu -> scale -> vec_add on {chain['size']:,} elements: "
                      f"round trips {_fmt(chain['round_trips_ms'])} ms, "
                      f"GpuArray {_fmt(chain['gpu_array_ms'])} ms ({chain['speedup_gpu_array']}x), "
                      f"CommandBatch {_fmt(chain['command_batch_ms'])} ms "
                      f"({chain['speedup_command_batch']}x)"
                      + (f", raw JS with the batch's fused kernel {_fmt(chain['raw_js_ms'])} ms"
                         if "raw_js_ms" in chain else "")]
    bridge = result.get("bridge")
    if bridge and "raw_js_ms" in bridge:
        lines.append(f"bridge: relu on {bridge['size']} elements, {bridge['runs']} calls each, "
                     f"trimmed means: pycore {_fmt(bridge['pycore_ms'])} ms, "
                     f"raw JS {_fmt(bridge['raw_js_ms'])} ms "
                     f"({bridge['ratio']}x); raw floor (empty dispatch + 4-byte readback) "
                     f"{_fmt(bridge['raw_floor_ms'])} ms; medians {_fmt(bridge['pycore_median_ms'])} / "
                     f"{_fmt(bridge['raw_js_median_ms'])} / {_fmt(bridge['raw_floor_median_ms'])} ms")
    if result.get("peers"):
        ours = {(r["op"], r["size"]): r.get("gpu_ms") for r in result["sweep"]}
        impls = list(dict.fromkeys(r["impl"] for r in result["peers"]))
        lines += ["", f"{'peer':<10}{'size':>7}{'pycore':>9}" + "".join(f"{i:>14}" for i in impls)]
        keys = list(dict.fromkeys((r["op"], r["size"]) for r in result["peers"]))
        for op, n in keys:
            cells = {r["impl"]: r["ms"] for r in result["peers"] if (r["op"], r["size"]) == (op, n)}
            lines.append(f"{op:<10}{_size(n, OPS[op].kind):>7}{_fmt(ours.get((op, n))):>9}"
                         + "".join(f"{_fmt(cells.get(i)):>14}" for i in impls))
    if result.get("targets"):
        lines += ["", "targets"]
        for t in result["targets"]:
            mark = {True: "met", False: "NOT met", None: "n/a"}[t["met"]]
            lines.append(f"  [{mark:>7}] {t['goal']}: {t['value']}  ({t['detail']})")
    if result.get("reference"):
        lines += ["", f"beside the reference ({REFERENCE}, its published numbers)",
                  f"  {'':<42}{'reference':>10}{'pycore':>10}"]
        lines += [f"  {r['what']:<42}{_fmt(r['reference_ms']):>10}{_fmt(r['pycore_ms']):>10}  "
                  f"({r['speedup']}x)" for r in result["reference"]]
    for note in result.get("notes", []):
        lines.append(f"note: {note}")
    lines.append(f"({result['seconds']} s)")
    return "\n".join(lines)


# -- the command line: `python3 -m pycore.bench --native` (scripts/bench.py shares these options)
def add_arguments(ap: Any) -> None:
    """The sweep's options, shared by this module's command line and scripts/bench.py."""
    ap.add_argument("--out", default="bench-results.json", help="where to write the JSON")
    ap.add_argument("--quick", action="store_true", help="a few ops at two sizes")
    ap.add_argument("--ops", help="comma-separated op names (default: all)")
    ap.add_argument("--sizes", help="comma-separated element counts (default 1K,10K,100K,1M,4M)")
    ap.add_argument("--matrix-sizes", help="comma-separated matrix sizes (default 64..1024)")
    ap.add_argument("--repeats", type=int, default=5, help="timed runs per cell (median; default 5)")


def call_kwargs(args: Any) -> dict[str, Any]:
    """run_async's keyword arguments from parsed add_arguments options."""
    def ints(option: str, text: str) -> tuple[int, ...]:
        try:
            return tuple(int(x.replace("_", "")) for x in text.split(",") if x.strip())
        except ValueError:
            raise ValueError(f"bench: {option} must be comma-separated integers, got {text!r}") from None

    call: dict[str, Any] = {"repeats": args.repeats, "quick": args.quick}
    if args.ops:
        call["ops"] = tuple(args.ops.split(","))
    if args.sizes:
        call["sizes"] = ints("--sizes", args.sizes)
    if args.matrix_sizes is not None:
        call["matrix_sizes"] = ints("--matrix-sizes", args.matrix_sizes)
    return call


def write_result(result: dict[str, Any], out: str) -> None:
    """Write the JSON to `out` and print the table."""
    import json
    import sys
    from pathlib import Path

    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1) + "\n")
    print(format_report(result))
    print(f"\nwrote {path}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run the sweep in this Python process (natively: wgpu-py, or NumPy alone)."""
    import argparse
    import asyncio

    ap = argparse.ArgumentParser(prog="python3 -m pycore.bench",
                                 description="pycore's benchmarks in this process (see scripts/bench.py "
                                             "for the browser)")
    add_arguments(ap)
    ap.add_argument("--native", action="store_true",
                    help="insist on the native WebGPU transport (wgpu-py); fail if it is unavailable")
    args = ap.parse_args(argv)

    try:
        kwargs = call_kwargs(args)
    except ValueError as exc:
        ap.error(str(exc))

    async def go() -> dict[str, Any]:
        await RUNTIME.init_async("native" if args.native else None)
        if args.native and RUNTIME.transport != "native":
            raise SystemExit(f"pycore.bench: no native WebGPU: {RUNTIME.reason}")
        return await run_async(**kwargs)

    write_result(asyncio.run(go()), args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
