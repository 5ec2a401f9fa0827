"""The pipeline benchmark's definitions (pycore/bench/pipelines.py): every pipeline's pycore code
matches its float64 reference (on NumPy here; on the GPU and against TF.js and jax-js in
tests/e2e/test_pipelines.py), the references are what they claim (checked by loops), the JavaScript
side defines the same pipelines, and a run on NumPy gives pycore's rows and no peers."""

from __future__ import annotations

import asyncio
import math
import re
import time

import numpy as np
import pytest

from pycore.bench.pipelines import (
    PIPELINES,
    WARM_S,
    _warm_async,
    error,
    format_pipelines,
    run_pipelines_async,
)
from tests.conftest import ROOT


@pytest.mark.parametrize("name", list(PIPELINES))
def test_pycore_code_matches_the_float64_reference(name):
    p = PIPELINES[name]
    xs = p.inputs(small=True)
    want = p.reference(*xs)
    got = asyncio.run(p.run_async(*xs))
    assert np.shape(got) == want.shape
    assert error(got, want) <= p.tolerance
    assert all(x.dtype in (np.float32, np.int32) for x in xs)


def test_full_sizes_are_the_documented_ones():
    full = {name: p.full for name, p in PIPELINES.items()}
    assert full["standardize"]["rows"] * full["standardize"]["cols"] * 4 == 25_600_000  # a 25 MB table
    assert full["attention"] == {"batch": 8, "heads": 8, "tokens": 512, "d": 64}
    assert len(PIPELINES) >= 6


def test_references_by_loops():
    rng = np.random.default_rng(3)
    p = PIPELINES["kmeans"]
    x, c = p.make({"n": 40, "d": 3, "k": 4}, rng)
    want = np.zeros((4, 3))
    for j in range(4):
        mine = [xi for xi in x.astype(np.float64)
                if np.argmin([np.sum((xi - cj) ** 2) for cj in c.astype(np.float64)]) == j]
        want[j] = np.mean(mine, axis=0) if mine else 0
    assert np.allclose(p.reference(x, c), want)
    images, kernel = PIPELINES["blur_clip"].make({"n": 1, "h": 5, "w": 6}, rng)
    out = PIPELINES["blur_clip"].reference(images, kernel)
    padded = np.pad(images[0, 0].astype(np.float64), 1)
    at = (padded[1:4, 2:5] * kernel[0, 0]).sum()  # the pixel (1, 2)
    assert out[0, 0, 1, 2] == pytest.approx(min(max((at - 0.5) * 4 + 0.5, 0), 1))
    logits, targets = PIPELINES["cross_entropy"].make({"n": 5, "classes": 3}, rng)
    loss = np.mean([-(z[t] - math.log(np.exp(z.astype(np.float64)).sum()))
                    for z, t in zip(logits, targets, strict=True)])
    assert float(PIPELINES["cross_entropy"].reference(logits, targets)) == pytest.approx(loss)


def test_a_warm_up_runs_once_and_then_until_its_time_is_up():
    laps: list[float] = []

    async def run() -> None:
        laps.append(time.perf_counter())
        await asyncio.sleep(0.02)

    asyncio.run(_warm_async(run, 0.0))
    assert len(laps) == 1
    laps.clear()
    start = time.perf_counter()
    asyncio.run(_warm_async(run, 0.1))
    assert len(laps) >= 2 and time.perf_counter() - start >= 0.1
    assert all(t - start < 0.105 for t in laps)  # (no run starts once the time is up)
    js = (ROOT / "web" / "bench" / "baselines.js").read_text()
    assert f"const WARM_MS = {round(WARM_S * 1000)};" in js  # (the peers warm up alike)


def test_error_measure():
    assert error(np.array([1.0, 2.0]), np.array([1.0, 2.0])) == 0
    assert error(np.array([np.nan, 2.0]), np.array([1.0, 2.0])) == math.inf
    assert error(np.float32(3.0), np.asarray(2.0)) == 0.5


def test_the_javascript_side_defines_the_same_pipelines():
    source = (ROOT / "web/bench/baselines.js").read_text()
    start = source.index("const PIPELINES = {")
    block = source[start:source.index("\n};", start)]
    entries = re.findall(r"^  (\w+): (\{|[A-Z_]+,)$", block, re.M)
    assert [name for name, _ in entries] == list(PIPELINES)
    shared = {ref[:-1] for _, ref in entries if ref != "{"}  # (work two pipelines share, defined once)
    for ref in shared:
        defined = source[source.index(f"const {ref} = {{"):]
        assert defined.index("tf: (tf,") < defined.index("jax: (jax,") < defined.index("\n};")
    literal = sum(ref == "{" for _, ref in entries)
    assert block.count("tf: (tf,") == block.count("jax: (jax,") == literal


def test_a_run_on_numpy_has_pycore_rows_only():
    r = asyncio.run(run_pipelines_async(small=True, names=("dense", "cross_entropy"), count=1, repeats=1))
    assert [row["name"] for row in r["rows"]] == ["dense", "cross_entropy"] and r["backend"] == "numpy"
    for row in r["rows"]:
        assert row["pycore"]["resident_ms"] > 0 and row["pycore"]["round_trip_ms"] > 0 and row["pycore"]["ok"]
        assert row["pycore"]["error"] <= row["tolerance"]
        assert "tfjs" not in row and "floor_ms" not in row
        assert all(c.endswith("(numpy)") for c in row["pycore"]["calls"] if c != "take_along_axis")
    table = format_pipelines(r)
    assert "dense          resident" in table and "cross_entropy  round trip" in table
    r["rows"][0]["pycore"] |= {"error": 0.5, "ok": False}  # (a wrong result is marked in the table)
    assert "pycore 5.0e-01 WRONG" in format_pipelines(r)
    with pytest.raises(ValueError, match="unknown pipeline"):
        asyncio.run(run_pipelines_async(names=("conv",)))
