"""The pipeline benchmark (pycore/bench/pipelines.py, scripts/pipeline_bench.py) on Dawn at its small
sizes: every pipeline runs in pycore (resident and round trip; its calls as written, and captured by
pycore.jit), TF.js and jax-js (eager and jitted) in
the same process, each library's result within the pipeline's tolerance of float64 NumPy; the
transfer floor and the copy kernel give numbers; the table names every pipeline. On a CPU adapter
this checks the plumbing and the values, not the speed."""

from __future__ import annotations

import pytest

RUN = '''
from pycore.bench.pipelines import PIPELINES, _js_inputs, _peer_async, format_pipelines, run_pipelines_async
from pycore.bench.peers import _baselines_module
r = await run_pipelines_async(small=True, count=2, repeats=1)
r["table"] = format_pipelines(r)
# the check itself: a peer's result against a wrong reference is off
module = await _baselines_module(print)
p = PIPELINES["dense"]
xs = p.inputs(small=True)
want = p.reference(*xs)
r["wrong"] = await _peer_async(module.tfPipeline("dense", _js_inputs(xs), 1, 1), want * 2 + 1)
r
'''


@pytest.fixture(scope="module")
def run(dawn):
    return dawn.py(RUN)


def test_every_pipeline_in_every_library_matches_float64(run):
    from pycore.bench.pipelines import PIPELINES

    assert [row["name"] for row in run["rows"]] == list(PIPELINES)
    assert run["notes"] == []
    for row in run["rows"]:
        for lib in ("pycore", "pycore_jit", "tfjs", "jax", "jax_jit"):
            cell = row[lib]
            assert "failed" not in cell, (row["name"], lib, cell)
            assert cell["error"] <= row["tolerance"] and cell["ok"], (row["name"], lib, cell["error"])
            assert cell["resident_ms"] > 0 and cell["round_trip_ms"] > 0, (row["name"], lib)
        assert row["tfjs"]["backend"] == "webgpu"
        assert row["jax"]["devices"] == ["webgpu"] and row["jax_jit"]["jitted"] is True
        assert row["floor_ms"] > 0 and row["floor_write_ms"] > 0 and row["min_bytes"] > 0
        assert row["pycore"]["calls"], row["name"]  # (pycore.trace() of one resident run)
        captured = row["pycore_jit"]["captured"]  # (pycore.jit replays every pipeline's kernels)
        assert len(captured) == 1 and captured[0]["replayed"], (row["name"], captured)
        assert captured[0]["kernels"] >= 1, (row["name"], captured)
    assert run["wrong"]["error"] > 0.4


def test_copy_bandwidth_and_table(run):
    copy = run["copy"]
    assert copy["bytes"] == 1 << 20 and copy["gbps"] > 0 and copy["ms"] > 0
    assert run["tfjs"]["backend"] == "webgpu" and run["jax"]["backend"] == "webgpu"
    table = run["table"]
    for row in run["rows"]:
        assert f"{row['name']:14s} resident" in table and f"{row['name']:14s} round trip" in table
    assert "copy kernel" in table and "errors against float64" in table and "of copy" in table
    assert "TF.js 4.22.0 on webgpu, jax-js 0.1.25 on webgpu" in table  # (package.json pins both)
