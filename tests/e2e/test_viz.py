"""The visualization page (/viz.html): every card draws real data from pycore, the benchmark
streams into the charts, the pipelines card draws a pipeline run (loaded, or run in the page), the
code on each card pastes into the console, and the page still works on the NumPy fallback. Saves
the whole page as tests/artifacts/viz.png (the README's docs/viz.png is a copy of it)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import ARTIFACTS, boot

READY_MS = 300_000


def open_viz(browser, server):
    page = boot(browser, server.url + "/viz.html")
    page.page.evaluate("() => vizState.ready")
    return page


@pytest.fixture(scope="module")
def viz(browser, server):
    page = open_viz(browser, server)
    yield page
    page.close()


def data(page, key):
    return page.page.evaluate(f"() => vizState.data[{key!r}]")


def chart_data(page, chart_id):
    return page.page.evaluate(f"""() => vizState.charts[{chart_id!r}].data.datasets.map(
        d => ({{label: d.label, data: d.data}}))""")


def canvas_colors(page, canvas_id):
    """How many distinct colours the canvas shows (1 for a blank one)."""
    return page.page.evaluate(f"""() => {{
        const c = document.getElementById({canvas_id!r});
        const px = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
        const seen = new Set();
        for (let i = 0; i < px.length; i += 4) seen.add(px[i] << 16 | px[i + 1] << 8 | px[i + 2]);
        return seen.size;
    }}""")


def test_badge_and_stats_bar(viz):
    assert "WebGPU" in viz.page.inner_text("#tier")
    assert int(viz.page.inner_text("#stat-ops").replace(",", "")) > 0
    assert "swiftshader" in viz.page.inner_text("#stat-adapter")
    assert "MiB" in viz.page.inner_text("#stat-memory")
    assert " ms · " in viz.page.inner_text("#stat-last")


GALLERY = {"exp", "log", "sqrt", "sin", "tanh", "logaddexp", "relu", "sigmoid", "gelu"}


def test_element_wise_gallery_is_computed_on_the_gpu_by_public_names(viz):
    import pycore
    from pycore.tables.ops import OPS
    from pycore.tables.ufuncs import UFUNCS

    gallery = data(viz, "gallery")
    assert gallery["backend"] == "gpu"
    assert set(gallery["curves"]) == GALLERY
    for name in gallery["curves"]:  # each a public element-wise function of the namespace
        assert f"{name}_async" in pycore.__all__, name
        assert name in UFUNCS or OPS[name].kind == "unary", name
    code = viz.page.inner_text("#card-gallery .code pre")
    assert "pycore.OPS" not in code and 'f"{name}_async"' in code
    x = np.array(gallery["x"])
    assert x.min() == -8 and x.max() == 8 and len(x) == 321
    assert gallery["curves"]["logaddexp"]["more_args"] == [1.0]
    for name, c in gallery["curves"].items():
        got, ref = (np.array([np.nan if v is None else v for v in c[k]]) for k in ("gpu", "numpy"))
        assert np.array_equal(np.isnan(got), np.isnan(ref)), name  # NaN (None in JSON) at the same x
        assert np.isnan(ref).any() == (name in ("log", "sqrt")), name
        fine = ~np.isnan(ref)
        assert np.all(np.abs(got - ref)[fine] <= 2e-3 * np.maximum(1, np.abs(ref[fine]))), name
        error = np.array([np.nan if v is None else v for v in c["error"]])
        assert np.array_equal(error[fine], np.abs(got - ref).astype(np.float32)[fine]), name
        drawn = chart_data(viz, f"g-{name}")
        assert [p["y"] for p in drawn[1]["data"]] == [None if v is None else pytest.approx(v, abs=1e-6)
                                                      for v in c["gpu"]]
        caption = viz.page.inner_text(f"#card-gallery figure:has(#g-{name}) figcaption")
        assert caption.startswith("logaddexp(x, 1)" if name == "logaddexp" else f"{name}(x)"), caption


def test_every_card_names_only_public_functions(viz):
    """The code on every card (what the console gets) uses pycore's public names: no old op
    names, no op table, and every pycore.<name> it mentions exists."""
    import functools
    import re

    import pycore

    codes = viz.page.eval_on_selector_all(".card .code", "els => els.map((e) => e.dataset.code)")
    assert len(codes) >= 7
    for code in codes:
        assert not re.search(r"\bvec_(add|sub|mul)\b|pycore\.OPS", code), code
        for path in re.findall(r"\bpycore\.([A-Za-z_][\w.]*)", code):
            assert functools.reduce(getattr, path.split("."), pycore) is not None, path


def test_the_bench_scopes_are_namespace_names_the_page_accepts(viz):
    import pycore

    scopes = viz.page.evaluate("() => vizState.scopes")
    assert set(scopes) == {"quick", "standard"}
    names = [n for scope in scopes.values() for n in scope["ops"]]
    found = viz.py(f"""
from pycore.bench.functions import parse
[(parse(n).function, parse(n).standard) for n in {names!r}]
""")
    for name, (function, standard) in zip(names, found, strict=True):
        assert function == standard and f"{function}_async" in pycore.__all__, name
    assert {"add", "multiply", "exp", "sum(axis=0)", "argmax", "sort", "cumulative_sum"} <= set(names)
    code = viz.page.inner_text("#card-bench .code pre")
    assert 'pycore.bench.run_async(\n    ops=("relu", "add", "softmax"' in code, code


def test_heatmaps_and_softmax(viz):
    m = data(viz, "matmul")
    a, b, c = (np.array(m[k], dtype=np.float32) for k in "abc")
    chose = viz.py('pycore.explain("matmul", (64, 64), (64, 64))["choice"]')
    assert c.shape == (64, 64) and m["backend"] == chose  # auto: on SwiftShader, NumPy wins at 64²
    assert np.allclose(c, a @ b, atol=1e-3)
    for canvas in ("heat-a", "heat-b", "heat-c", "conv-in", "conv-out"):
        assert canvas_colors(viz, canvas) > 16, canvas
    conv = data(viz, "conv")
    assert np.array(conv["out"]).shape == (128, 128)
    s = data(viz, "softmax")
    assert sum(s["probs"]) == pytest.approx(1, abs=1e-5)
    assert chart_data(viz, "chart-softmax")[0]["data"] == s["probs"]


def test_controls_rerun_their_cards(viz):
    viz.page.select_option("#matmul-size", "32")
    viz.page.wait_for_function("() => vizState.data.matmul.a.length === 32", timeout=READY_MS)
    viz.page.select_option("#conv-kernel", "blur")
    viz.page.wait_for_function("() => document.getElementById('conv-time').textContent.startsWith('blur')",
                               timeout=READY_MS)
    assert "\"blur\"" in viz.page.inner_text("#card-conv .code pre")


def test_benchmark_streams_into_the_charts(viz):
    viz.page.click("#bench-run")
    viz.page.wait_for_function("() => vizState.data.bench && !document.getElementById('bench-run').disabled",
                               timeout=READY_MS)
    result = data(viz, "bench")
    quick = viz.page.evaluate("() => vizState.scopes.quick.ops")
    assert list(dict.fromkeys(r["op"] for r in result["sweep"])) == quick
    assert viz.page.eval_on_selector_all("#bench-op option", "os => os.map((o) => o.value)") == quick
    op = viz.page.eval_on_selector("#bench-op", "s => s.value")
    rows = sorted((r for r in result["sweep"] if r["op"] == op), key=lambda r: r["size"])
    assert rows, op
    series = {d["label"]: d["data"] for d in chart_data(viz, "chart-time")}
    for backend in ("gpu", "numpy", "auto"):
        assert series[backend] == [{"x": r["size"], "y": r[f"{backend}_ms"]} for r in rows]
    stages = {d["label"]: d["data"] for d in chart_data(viz, "chart-stages")}
    assert stages["readback"] == [r["stages_ms"]["readback"] for r in rows]
    chain = chart_data(viz, "chart-chain")[0]["data"]
    assert chain == [result["chain"][k] for k in ("round_trips_ms", "gpu_array_ms", "command_batch_ms")]
    assert viz.page.eval_on_selector("#bench-progress", "p => p.value === p.max")
    assert len(viz.page.query_selector_all("#bench-targets > div")) == len(result["targets"])
    trace = data(viz, "trace")
    assert trace and chart_data(viz, "chart-trace")


def test_fits_a_laptop_screen_and_stays_offline(viz, server):
    viz.page.set_viewport_size({"width": 1280, "height": 800})
    assert viz.page.evaluate("() => document.documentElement.scrollWidth") <= 1280
    assert viz.requests and all(url.startswith(server.url + "/") for url in viz.requests), \
        [u for u in viz.requests if not u.startswith(server.url)]


def test_code_pastes_into_the_console(viz):
    code = viz.page.inner_text("#card-softmax .code pre")
    assert "pycore.softmax_async(logits)" in code
    viz.page.click("#card-softmax .code .paste")
    assert viz.page.eval_on_selector("#console-input", "i => i.value") == code
    viz.page.keyboard.press("Escape")


def test_whole_page_screenshot(viz):
    from tests.conftest import ROOT

    # the pipelines card with a GPU machine's run (what the page shows once one is loaded)
    viz.page.set_input_files("#pipe-file", str(ROOT / "docs/bench/pipelines-h100-run17.json"))
    viz.page.wait_for_function("() => vizState.data.pipelines && vizState.data.pipelines.rows.length === 8")
    viz.page.set_viewport_size({"width": 1400, "height": 900})
    viz.page.evaluate("() => { document.getElementById('drawer').hidden = true; }")  # sticky: hide it
    viz.page.evaluate("() => window.scrollTo(0, 0)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    viz.page.screenshot(path=str(ARTIFACTS / "viz.png"), full_page=True)
    viz.page.evaluate("() => { document.getElementById('drawer').hidden = false; }")
    assert (ARTIFACTS / "viz.png").stat().st_size > 50_000


def test_loads_the_json_the_command_line_wrote(viz, tmp_path):
    import json

    sample = {"when": "2026-01-01 00:00 UTC", "tier": "a sample", "repeats": 1, "seconds": 1.0,
              "sweep": [{"op": "sum", "size": n, "shapes": [[n]], "runs": 1, "gpu_ms": g, "numpy_ms": c,
                         "auto_ms": c, "auto_backend": "numpy", "regret": 1.0,
                         "stages_ms": {"buffers": 0.1, "upload": 0.2, "dispatch": 0.1, "readback": g - 0.5,
                                       "python": 0.1}} for n, g, c in ((1000, 5.0, 0.3), (10**6, 9.0, 12.0))],
              "chain": {"size": 1000, "round_trips_ms": 9.0, "gpu_array_ms": 5.0, "command_batch_ms": 4.0},
              "crossover": {"sum": {"measured": 10**6, "predicted": 10**6}}, "targets": []}
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(sample))
    viz.page.set_input_files("#bench-file", str(path))
    viz.page.wait_for_function("() => vizState.data.bench && vizState.data.bench.tier === 'a sample'")
    assert viz.page.eval_on_selector("#bench-op", "s => s.value") == "sum"
    series = {d["label"]: d["data"] for d in chart_data(viz, "chart-time")}
    assert series["gpu"] == [{"x": 1000, "y": 5.0}, {"x": 10**6, "y": 9.0}]
    assert [p["x"] for p in series["crossover 1,000,000"]] == [10**6, 10**6]
    assert chart_data(viz, "chart-chain")[0]["data"] == [9.0, 5.0, 4.0]
    assert "loaded bench.json" in viz.page.inner_text("#bench-status")


def test_a_native_run_is_drawn_beside_a_browser_run(viz):
    import json

    from tests.conftest import ROOT

    browser_run, native_run = ROOT / "docs/bench/swiftshader.json", ROOT / "docs/bench/native-h200.json"
    viz.page.set_input_files("#bench-file", str(browser_run))
    viz.page.wait_for_function("() => vizState.data.bench && vizState.data.bench.sweep.length > 50")
    viz.page.set_input_files("#bench-compare", str(native_run))
    viz.page.wait_for_function("() => vizState.data.compare")
    viz.page.select_option("#bench-op", "matmul")
    series = {d["label"]: d["data"] for d in chart_data(viz, "chart-time")}
    native_name = "gpu · NVIDIA H200, native"
    want = [{"x": r["size"], "y": r["gpu_ms"]} for r in json.loads(native_run.read_text())["sweep"]
            if r["op"] == "matmul"]
    assert series[native_name] == sorted(want, key=lambda p: p["x"])
    assert any(label.startswith("gpu · ") and "browser" in label for label in series), list(series)
    assert "NVIDIA H200, native" in viz.page.inner_text("#bench-status")


def test_the_pipelines_card_draws_a_loaded_run_and_runs_its_own(viz):
    import json

    from tests.conftest import ROOT

    path = ROOT / "docs/bench/pipelines-h100-run17.json"  # (scripts/pipeline_bench.py's JSON, on an H100)
    want = json.loads(path.read_text())
    viz.page.set_input_files("#pipe-file", str(path))
    viz.page.wait_for_function("() => vizState.data.pipelines && vizState.data.pipelines.rows.length === 8")
    labels = viz.page.evaluate("() => vizState.charts['chart-pipes'].data.labels")
    assert labels == [r["name"] for r in want["rows"]]
    bars = {d["label"]: d["data"] for d in chart_data(viz, "chart-pipes")}
    assert list(bars) == ["pycore (calls)", "pycore.jit", "TF.js", "jax-js"]
    assert bars["pycore.jit"] == [r["pycore_jit"]["resident_ms"] for r in want["rows"]]
    assert bars["jax-js"] == [min(r["jax"]["resident_ms"], r["jax_jit"]["resident_ms"]) for r in want["rows"]]
    rates = {d["label"]: d["data"] for d in chart_data(viz, "chart-pipe-gbps")}
    assert rates["copy kernel"] == [want["copy"]["gbps"]] * 8
    rows = viz.page.eval_on_selector_all("#pipe-table tbody tr", "rs => rs.map((r) => r.innerText)")
    assert len(rows) == 8 and "3 calls: matmul, add, relu+" in rows[0], rows
    assert "pycore.jit replays 1 kernel" in rows[0], rows
    assert "0.65×" in rows[0]  # (dense: pycore.jit's 1.65 ms over TF.js's 2.55)
    viz.page.select_option("#pipe-mode", "round_trip")
    bars = {d["label"]: d["data"] for d in chart_data(viz, "chart-pipes")}
    assert bars["transfer floor"] == [r["floor_ms"] for r in want["rows"]]
    viz.page.select_option("#pipe-mode", "resident")
    # a run in this page (one pipeline, small sizes): pycore as written and jitted, and the peers
    viz.page.evaluate("() => vizState.runPipelines(['dense'])")
    got = data(viz, "pipelines")
    assert [r["name"] for r in got["rows"]] == ["dense"]
    row = got["rows"][0]
    assert row["pycore"]["ok"] and row["pycore_jit"]["ok"], row
    assert row["pycore_jit"]["captured"][0]["replayed"], row
    assert "tfjs" in row and "floor_ms" in row, row
    assert "1 pipelines on" in viz.page.inner_text("#pipe-status")
    code = viz.page.inner_text("#card-pipelines .code pre")
    assert 'pycore.bench.run_pipelines_async(\n    small=True, names=("dense",)' in code, code


def test_backend_choice_says_where_predictions_came_from_and_flags_an_off_one(viz):
    viz.page.select_option("#conv-kernel", "emboss")  # (a call on backend="auto")
    viz.page.wait_for_function(
        "() => (vizState.data.choices?.calls ?? []).some((c) => c.op === 'convolve2d')", timeout=READY_MS)
    choices = data(viz, "choices")
    table = viz.page.inner_text("#choices-table tbody")
    for c in choices["calls"]:
        assert c["prediction_from"].startswith(("default", "calibrated", "corrected by use")), c
        assert c["prediction_from"] in table
    assert viz.page.inner_text("#choices-model").startswith("cost model: ")
    # A NumPy convolve2d predicted to cost next to nothing: the conv card's next call, on NumPy,
    # takes far longer than predicted, and the card flags it.
    viz.py("""
from pycore.choice.selector import Calibration
kept = pycore.SELECTOR.calibration
c = kept.__dict__
pycore.SELECTOR.calibration = Calibration(**{**c, "numpy_call_ms": 1e-3,
                                             "numpy_gflops": {**c["numpy_gflops"], "convolve2d": 1e3}})
""")
    try:
        viz.page.select_option("#conv-kernel", "sharpen")
        flagged = viz.page.wait_for_function(
            "() => [...document.querySelectorAll('#choices-table tr.off')].map((r) => r.innerText)"
            ".find((text) => text.startsWith('convolve2d'))", timeout=READY_MS).json_value()
    finally:
        viz.py("pycore.SELECTOR.calibration = kept")
    assert "\tnumpy\t" in flagged and "× slower" in flagged and "⚠" in flagged, flagged


def test_fallback_page_keeps_working(browser_no_webgpu, server):
    page = open_viz(browser_no_webgpu, server)
    try:
        assert "NumPy fallback" in page.page.inner_text("#tier")
        assert data(page, "gallery")["backend"] == "numpy"
        assert data(page, "matmul")["backend"] == "numpy"
        assert canvas_colors(page, "heat-c") > 16
        assert page.page.inner_text("#stat-memory") == "none (NumPy)"
        assert "auto has no choice to make" in page.page.inner_text("#choices-empty")
        assert not page.page.query_selector_all(".card-error")
    finally:
        page.close()
