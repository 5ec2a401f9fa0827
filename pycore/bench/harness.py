"""The benchmark harness itself: run_async (see the package's docstring for what a run measures)."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import numpy as np

from pycore.bench.functions import DEFAULT, parse
from pycore.bench.peers import _baselines_module, _bridge, _peers, _runtime_name
from pycore.bench.report import _reference, _targets
from pycore.bench.sweep import MATRIX_SIZES, QUICK, SIZES, _cell, _chain, _crossovers
from pycore.choice.selector import SELECTOR
from pycore.engine.progress import report as report_progress
from pycore.engine.runtime import RUNTIME


async def run_async(ops: tuple[str, ...] | None = None, sizes: tuple[int, ...] = SIZES,
                    matrix_sizes: tuple[int, ...] = MATRIX_SIZES, repeats: int = 5,
                    chain_size: int = 1 << 20, peers: bool = True, quick: bool = False,
                    progress: Callable[[dict[str, Any]], Any] | None = None) -> dict[str, Any]:
    """Run the benchmarks in this page (or process) and return the results (see the module doc).

    ops: the functions to time, by their names in pycore's namespace ("add" for pycore.add_async,
    "exp", "sum", "matmul", "sort", ...), each optionally with keyword arguments in call syntax
    ("sum(axis=0)"); the sample inputs at each size are functions.py's (vectors of `sizes`
    elements, matrices of rows of 1000, `matrix_sizes` x `matrix_sizes` for matmul and
    convolve2d). Default: functions.DEFAULT. quick=True: a few functions at two sizes each, for a
    first look. `progress(event)` is called after
    every measured row with {"section", "row", "done", "total"}, so a page can stream results.

    >>> import asyncio, pycore
    >>> r = asyncio.run(pycore.bench.run_async(ops=("exp", "sum(axis=0)"), sizes=(1000,), repeats=1))
    >>> [(row["op"], row["shapes"]) for row in r["sweep"]], "numpy_ms" in r["sweep"][0]
    ([('exp', [[1000]]), ('sum(axis=0)', [[1, 1000]])], True)
    """
    if quick:
        ops, sizes, matrix_sizes = QUICK["ops"], QUICK["sizes"], QUICK["matrix_sizes"]
        repeats, chain_size = QUICK["repeats"], QUICK["chain_size"]
    if isinstance(ops, str):
        raise ValueError(f"bench: ops must be a tuple of function names, got the str {ops!r}")
    names = tuple(ops) if ops is not None else DEFAULT
    benches = [parse(n) for n in names]  # (ValueError naming an unknown one)
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
        from pycore.bench.calibrate import calibrate_async

        await calibrate_async(save=False)
        notes.append("the selector was calibrated first (pycore.calibrate_async)")
    backends = ("gpu", "numpy", "auto") if gpu else ("numpy", "auto")
    cells = [(b, s) for b in benches for s in (matrix_sizes if b.matrix else sizes)]
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
    for bench, n in cells:
        row = await _cell(bench, n, backends, repeats, rng)
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


# The report, importable from here (the command line, cli.py, imports run_async from this module;
# pycore.bench gives both).
from pycore.bench.peers import _matmul_kernel, _raw_head  # noqa: E402
from pycore.bench.report import REFERENCE, TARGETS, format_report  # noqa: E402
from pycore.bench.sweep import contenders  # noqa: E402

__all__ = ["MATRIX_SIZES", "QUICK", "REFERENCE", "SIZES", "TARGETS", "_matmul_kernel", "_raw_head",
           "contenders", "format_report", "run_async"]
