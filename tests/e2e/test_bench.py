"""The benchmark harness in the page: its rows hold real measurements, the raw-JS and TF.js
yardsticks run, the targets are computed from the rows, and the table prints."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def small_run(gpu_page):
    result = gpu_page.py("""
events = []
r = await pycore.bench.run_async(ops=("relu", "softmax", "matmul"), sizes=(1000, 20000),
                                 matrix_sizes=(64,), repeats=2, chain_size=50000, progress=events.append)
r["events"] = [(e["section"], e["done"], e["total"]) for e in events]
r["table"] = pycore.bench.format_report(r)
r
""")
    yield result
    gpu_page.py("pycore.SELECTOR.margin = 0.0")  # the shared page's setting (the bench calibrated it)


def test_sweep_rows_measure_every_backend(small_run):
    rows = small_run["sweep"]
    assert [(r["op"], r["size"]) for r in rows] == [("relu", 1000), ("relu", 20000), ("softmax", 1000),
                                                    ("softmax", 20000), ("matmul", 64)]
    for r in rows:
        assert r["gpu_ms"] > 0 and r["numpy_ms"] > 0 and r["auto_ms"] > 0, r
        assert r["auto_backend"] in ("webgpu", "numpy")
        assert r["regret"] == pytest.approx(r["auto_ms"] / min(r["gpu_ms"], r["numpy_ms"]), rel=1e-2)
        assert set(r["stages_ms"]) == {"buffers", "upload", "dispatch", "readback", "python"}
        runs = r["runs"]  # every backend's base rounds; auto takes part in every extra round
        assert set(runs) == {"gpu", "numpy", "auto"} and 2 <= min(runs.values()) <= 8
        assert runs["auto"] == max(runs.values())
    assert rows[0]["shapes"] == [[1000]] and rows[3]["shapes"] == [[20, 1000]]


def test_progress_streams_every_row(small_run):
    events = small_run["events"]
    total = events[0][2]
    assert [e[1] for e in events] == list(range(1, total + 1))
    assert [e[0] for e in events[:5]] == ["sweep"] * 5 and events[-1][0] == "peers"


def test_chain_bridge_and_peers(small_run):
    chain = small_run["chain"]
    for key in ("round_trips_ms", "gpu_array_ms", "command_batch_ms"):
        assert chain[key] > 0
    speedup = chain["round_trips_ms"] / chain["command_batch_ms"]
    assert chain["speedup_command_batch"] == pytest.approx(speedup, rel=1e-2)
    assert chain["raw_js_ms"] > 0  # the same transfers and fused kernel in raw JS (head checked)
    assert chain["command_batch_over_raw_js"] == pytest.approx(
        chain["command_batch_ms"] / chain["raw_js_ms"], rel=1e-2)
    bridge = small_run["bridge"]
    assert 0 < bridge["raw_floor_ms"] and 0 < bridge["raw_js_ms"] and 0 < bridge["pycore_ms"]
    assert bridge["runs"] == 60 and bridge["pycore_median_ms"] > 0 and bridge["raw_js_median_ms"] > 0
    impls = {(p["impl"].split()[0], p["op"], p["size"]) for p in small_run["peers"]}
    for impl in ("raw-js", "tfjs"):
        assert {(impl, "relu", 1000), (impl, "softmax", 20000), (impl, "matmul", 64)} <= impls
    assert all(p["ms"] > 0 for p in small_run["peers"])


def test_targets_and_table(small_run):
    names = {t["name"]: t for t in small_run["targets"]}
    assert {"regret", "chain_eager", "chain_raw", "bridge"} <= set(names)  # matmul targets need 512 and 1024
    worst = max(r["regret"] for r in small_run["sweep"])
    assert names["regret"]["value"] == worst and names["regret"]["met"] == (worst <= 1.10)
    assert names["bridge"]["value"] == small_run["bridge"]["ratio"]
    table = small_run["table"]
    assert "relu" in table and "crossover" in table and "targets" in table and "tfjs" in table
    assert set(small_run["crossover"]) == {"relu", "softmax", "matmul"}


def test_bad_arguments(gpu_page):
    err = gpu_page.py("""
out = []
for kwargs in ({"ops": ("conv",)}, {"repeats": 0}, {"sizes": (1000, -5)}, {"matrix_sizes": (2.5,)}):
    try:
        await pycore.bench.run_async(**kwargs)
    except ValueError as exc:
        out.append(str(exc))
out
""")
    assert "unknown function 'conv'" in err[0] and "repeats must be at least 1" in err[1]
    assert "sizes must be positive integers, got [-5]" in err[2]
    assert "matrix_sizes must be positive integers, got [2.5]" in err[3]


def test_the_native_command_line_writes_the_same_json(small_run, tmp_path):
    # `python3 -m pycore.bench --native` (wgpu-py, lavapipe here) runs the same sweep as the page
    # and writes JSON of the same shape, so the visualization page can draw the two side by side.
    import json
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    out = tmp_path / "native.json"
    env = {**os.environ, "PYCORE_TRANSPORT": "auto", "XDG_RUNTIME_DIR": "/tmp"}
    done = subprocess.run([sys.executable, "-m", "pycore.bench", "--native", "--ops", "relu,softmax,matmul",
                           "--sizes", "1000,20000", "--matrix-sizes", "64", "--repeats", "2",
                           "--out", str(out)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    native = json.loads(out.read_text())
    assert native["environment"]["transport"] == "native" and "wgpu-native" in native["tier"]
    assert "pycore benchmark" in done.stdout and "beside the reference" in done.stdout
    cells = [(r["op"], r["size"]) for r in small_run["sweep"]]
    assert [(r["op"], r["size"]) for r in native["sweep"]] == cells
    for ours, theirs in zip(native["sweep"], small_run["sweep"], strict=True):
        assert set(ours) == set(theirs) and set(ours["stages_ms"]) == set(theirs["stages_ms"])
    browser_only = {"peers", "events", "table"}  # the JS yardsticks exist only in a page
    assert set(small_run) - browser_only <= set(native)
    assert native["bridge"]["pycore_ms"] > 0 and "raw_js_ms" not in native["bridge"]
    assert {r["what"] for r in native["reference"]} >= {"fixed cost per op (small op round trip)"}
