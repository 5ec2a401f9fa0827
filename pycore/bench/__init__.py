"""The benchmark harness: what each backend costs here, where the GPU starts to win, and how pycore
compares with raw JavaScript and TF.js in the same page.

    result = await pycore.bench.run_async()         # the full sweep (minutes on SwiftShader)
    print(pycore.bench.format_report(result))       # the readable table
    result = await pycore.bench.run_async(quick=True)   # a small sweep (seconds)
    result = await pycore.bench.run_async(ops=("add", "exp", "sum(axis=0)", "sort", "matmul"))

The functions are named as in pycore's namespace ("add" times pycore.add_async), with keyword
arguments in call syntax where they matter ("sum(axis=0)"); functions.py says which it can time
and on what sample inputs (vectors, matrices of rows, n x n matrices).

The package: calibrate.py measures the cost model auto uses (pycore.calibrate_async); harness.py
holds run_async; functions.py names the functions it times and makes their inputs; sweep.py times
the backends (cells, the chain), peers.py the yardsticks (raw JavaScript, TF.js, the bridge),
report.py says what a run means (targets, table), cli.py is the command line; pipelines.py is the
pipeline benchmark (whole computations written with pycore beside TF.js and jax-js, resident and
round trip: pycore.bench.run_pipelines_async, scripts/pipeline_bench.py). The command line runs
the same function in headless Chromium (`python3 scripts/bench.py`), or natively in this process on wgpu-py
(`python3 -m pycore.bench --native`), and writes the JSON and the table. The result is plain
JSON-able data, the same from both:

  sweep      one row per function and size: median ms of backend "gpu", "numpy" and "auto", which
             backend auto took, auto's regret (auto / the faster of the two), and the median ms per
             stage of the GPU call (buffers, upload, dispatch, readback, python); a function that
             computes where its input lives (sort, cumulative_sum) has no auto: its gpu is the
             call on GpuArrays, uploaded and read back
  crossover  per function: the smallest size from which the GPU was faster at every larger size
             (measured), and the same according to the selector's cost model (predicted)
  chain      relu -> scale -> add on `chain_size` elements: three round-trip calls, GpuArray,
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

from typing import Any


def __getattr__(name: str) -> Any:
    """The harness's names (run_async, format_report, ...), imported on first use: importing
    pycore.bench.calibrate (as `import pycore` does) does not load the benchmark."""
    import importlib

    if name.startswith("__"):  # (import machinery's probes: __path__ is set, others are absent)
        raise AttributeError(name)
    for module in ("harness", "cli", "pipelines"):  # (run_async, format_report, ...; the command
        # line's main; run_pipelines_async, format_pipelines)
        found = getattr(importlib.import_module(f"pycore.bench.{module}"), name, None)
        if found is not None:
            return found
    raise AttributeError(f"module 'pycore.bench' has no attribute {name!r}")
