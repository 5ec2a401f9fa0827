"""The benchmark times the namespace's functions by their public names: every name it lists runs on
its sample inputs, the names the visualization page offers are among them (standard names, not
old aliases), unknown names and arguments are refused with the name, and a run's rows, table and
crossovers come out under those names (on NumPy here, and on the GPU through wgpu-py)."""

from __future__ import annotations

import asyncio
import json
import re

import numpy as np
import pytest

import pycore
from pycore.bench.functions import DEFAULT, is_matrix, names, parse
from tests.conftest import ROOT


def run(coro):
    return asyncio.run(coro)


def page_scopes() -> dict[str, list[str]]:
    """BENCH_SCOPES's function lists in web/viz.js, as the page sends them to run_async."""
    source = (ROOT / "web/viz.js").read_text()
    block = source[source.index("const BENCH_SCOPES"):source.index("};", source.index("const BENCH_SCOPES"))]
    scopes = {name: json.loads(ops) for name, ops in re.findall(r"(\w+): \{ ops: (\[[^\]]*\])", block)}
    assert set(scopes) == {"quick", "standard"}, block
    return scopes


def test_it_takes_every_element_wise_function_and_reduction_of_the_namespace():
    from pycore.tables.ufuncs import REDUCTIONS, UFUNCS

    wanted = {*UFUNCS, *REDUCTIONS, "softmax", "log_softmax", "matmul", "sort", "argsort", "cumulative_sum",
              "cumulative_prod", "relu", "sigmoid", "gelu", "vec_add"}
    assert wanted <= set(names()), wanted - set(names())


@pytest.mark.parametrize("name", names())
def test_every_function_it_lists_runs_on_its_sample_inputs(name):
    bench = parse(name)
    assert getattr(pycore, f"{bench.function}_async") is bench.fn
    n = 8 if bench.matrix else 2000
    inputs = bench.inputs(n, np.random.default_rng(0))
    assert [x.shape for x in inputs] == bench.shapes(n)
    got = run(bench.call(inputs, "numpy")())
    assert got is not None
    if bench.takes_backend:
        auto = run(bench.call(inputs, "auto")())
        np.testing.assert_array_equal(np.asarray(auto), np.asarray(got))
        assert bench.cost(bench.shapes(n)) is not None or name == "clip", name  # (clip: where x lives)


@pytest.mark.parametrize("scope", ["quick", "standard"])
def test_the_page_offers_standard_names_the_bench_takes(scope):
    ops = page_scopes()[scope]
    for name in ops:
        bench = parse(name)  # (raises ValueError for a name the bench does not take)
        assert bench.standard == bench.function, f"{name}: the page shows the namespace's name"
        assert f"{bench.function}_async" in pycore.__all__, name
    assert not {"vec_add", "vec_sub", "vec_mul"} & set(ops)


def test_the_default_run_and_the_quick_one_use_namespace_names():
    from pycore.bench.sweep import QUICK

    for name in (*DEFAULT, *QUICK["ops"]):
        assert parse(name).standard == parse(name).function, name
    assert {"add", "exp", "sum(axis=0)", "sort", "cumulative_sum", "argmax", "matmul"} <= set(DEFAULT)
    assert set(page_scopes()["standard"]) <= set(DEFAULT)


def test_names_map_to_calls_and_shapes():
    assert parse("sum").shapes(5000) == [(5000,)]
    assert parse("sum(axis=0)").shapes(5000) == [(5, 1000)] and parse("sum(axis=0)").kwargs == {"axis": 0}
    assert parse("softmax").shapes(500) == [(1, 500)]
    assert parse("sort").shapes(3000) == [(3000,)] and parse("sort(axis=0)").shapes(3000) == [(3, 1000)]
    assert parse("cumulative_sum(axis=1)").shapes(2000) == [(2, 1000)]
    assert parse("matmul").shapes(32) == [(32, 32), (32, 32)] and parse("matmul").matrix
    assert parse("convolve2d").shapes(32) == [(32, 32), (3, 3)]
    assert parse("logaddexp").shapes(10) == [(10,), (10,)] and parse("dot").shapes(10) == [(10,), (10,)]
    assert parse("vec_add").standard == "add" and parse("vec_add").fn is pycore.vec_add_async
    assert parse("scale").kwargs == {"s": 2.0}  # an old op's sample value for its required parameter
    assert parse(" sum( axis = -1 , keepdims=True )").kwargs == {"axis": -1, "keepdims": True}
    assert not parse("sort").takes_backend and parse("add").takes_backend
    shift = parse("bitwise_left_shift").inputs(100, np.random.default_rng(1))
    assert shift[0].dtype == np.int32 and 0 <= shift[1].min() and shift[1].max() < 16
    assert parse("logical_and").inputs(10, np.random.default_rng(1))[0].dtype == np.bool_
    assert is_matrix("matmul") and not is_matrix("sum") and not is_matrix("no_such_function")
    with pytest.raises(ValueError, match="unknown function 'concat'"):
        parse("concat")  # (a namespace function it has no sample inputs for)


@pytest.mark.parametrize("name, message", [
    ("conv", "unknown function 'conv'"),
    ("reshape", "unknown function 'reshape'"),
    ("sum(axes=0)", "pycore.sum_async takes no keyword argument 'axes'"),
    ("exp(axis=0)", "pycore.exp_async takes no keyword argument 'axis'"),
    ("sum(backend='gpu')", "takes no keyword argument 'backend'"),
    ("sum(0)", "the arguments must be keywords with literal values"),
    ("sum(axis=x)", "the arguments must be keywords with literal values"),
    ("sum axis", "is not a function name"),
    (3, "must be a str"),
])
def test_unknown_names_and_arguments_are_refused(name, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        parse(name)
    with pytest.raises(ValueError, match=re.escape(message)):
        run(pycore.bench.run_async(ops=(name,), sizes=(10,), repeats=1))


def test_a_str_for_ops_is_refused():
    with pytest.raises(ValueError, match="ops must be a tuple of function names"):
        run(pycore.bench.run_async(ops="sum", sizes=(10,), repeats=1))


def test_a_run_names_its_rows_as_asked():
    names = ("add", "vec_add", "sum(axis=0)", "sort", "matmul")
    r = run(pycore.bench.run_async(ops=names, sizes=(1000, 3000), matrix_sizes=(8,), repeats=1))
    rows = {(row["op"], row["size"]): row for row in r["sweep"]}
    assert list(rows) == [("add", 1000), ("add", 3000), ("vec_add", 1000), ("vec_add", 3000),
                          ("sum(axis=0)", 1000), ("sum(axis=0)", 3000), ("sort", 1000), ("sort", 3000),
                          ("matmul", 8)]
    assert rows[("sum(axis=0)", 3000)]["shapes"] == [[3, 1000]]
    assert rows[("matmul", 8)]["shapes"] == [[8, 8], [8, 8]]
    assert rows[("add", 1000)]["numpy_ms"] > 0 and rows[("add", 1000)]["auto_backend"] == "numpy"
    assert "auto_ms" not in rows[("sort", 1000)] and rows[("sort", 1000)]["numpy_ms"] > 0  # (where x lives)
    table = pycore.bench.format_report(r)
    assert "sum(axis=0)" in table and "      8²" in table and "     3K" in table


def test_the_report_reads_old_names_and_other_versions_rows():
    from pycore.bench.report import _reference, _size

    result = {"sweep": [{"op": "vec_add", "size": 1_000_000, "gpu_ms": 2.0}], "bridge": {}}
    assert [r["what"] for r in _reference(result)] == ["add 1M"]
    assert _size(512, "matmul") == "512²" and _size(512, "some_future_function") == "512"


def test_the_gpu_side_of_a_run_on_wgpu(native):
    r = native.py("""
names = ("exp", "sum(axis=0)", "sort", "cumulative_sum", "matmul")
r = await pycore.bench.run_async(ops=names, sizes=(2000,), matrix_sizes=(16,), repeats=1, chain_size=1000,
                                 peers=False)
rows = [(row["op"], sorted(k for k in row if k.endswith("_ms")), row["shapes"]) for row in r["sweep"]]
rows, r["crossover"]
""")
    rows, crossover = r
    assert [row[0] for row in rows] == ["exp", "sum(axis=0)", "sort", "cumulative_sum", "matmul"]
    assert rows[0][1] == ["auto_ms", "gpu_ms", "numpy_ms", "stages_ms"] and rows[1][2] == [[2, 1000]]
    assert rows[2][1] == ["gpu_ms", "numpy_ms", "stages_ms"]  # sort runs on GpuArrays: no auto
    assert set(crossover) == {"exp", "sum(axis=0)", "sort", "cumulative_sum", "matmul"}
    assert crossover["sort"]["predicted"] is None  # (auto predicts nothing for it)


def test_importing_pycore_leaves_the_benchmark_unloaded():
    import subprocess
    import sys

    code = "import sys, pycore; print(sorted(m for m in sys.modules if m.startswith('pycore.bench')))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(ROOT), "PYCORE_TRANSPORT": "numpy", "PATH": "/usr/bin:/bin"})
    assert done.stdout.split() == ["['pycore.bench',", "'pycore.bench.calibrate']"], done.stderr
