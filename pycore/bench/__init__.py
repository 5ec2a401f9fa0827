"""The benchmark harness: what each backend costs here, where the GPU starts to win, and how pycore
compares with raw JavaScript and TF.js in the same page.

    result = await pycore.bench.run_async()         # the full sweep (minutes on SwiftShader)
    print(pycore.bench.format_report(result))       # the readable table
    result = await pycore.bench.run_async(quick=True)   # a small sweep (seconds)

The package: run_async here; sweep.py times the backends (cells, the chain), peers.py the yardsticks
(raw JavaScript, TF.js, the bridge), report.py says what a run means (targets, table), cli.py is the
command line. The command line runs the same function in headless Chromium (`python3 scripts/bench.py`), or
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

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import numpy as np

from ..ops import OPS
from ..progress import report as report_progress
from ..runtime import RUNTIME
from ..selector import SELECTOR
from .peers import _baselines_module, _bridge, _peers, _runtime_name
from .report import _reference, _targets
from .sweep import MATRIX_KINDS, MATRIX_SIZES, QUICK, SIZES, _cell, _chain, _crossovers


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
        from ..calibrate import calibrate_async

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
        report_progress("bench", done, total, f"{section} {row.get('op', '')} {row.get('size', '')}".strip()
                        if isinstance(row, dict) else section)
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
        module = await _baselines_module(notes.append) if peers else None
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


# The command line and the report, importable from here (cli.py imports run_async from this module).
from .cli import add_arguments, call_kwargs, main, write_result  # noqa: E402
from .peers import _matmul_kernel, _raw_head  # noqa: E402
from .report import REFERENCE, TARGETS, format_report  # noqa: E402
from .sweep import contenders  # noqa: E402

__all__ = ["MATRIX_SIZES", "QUICK", "REFERENCE", "SIZES", "TARGETS", "_matmul_kernel", "_raw_head",
           "add_arguments", "call_kwargs", "contenders", "format_report", "main", "run_async",
           "write_result"]
