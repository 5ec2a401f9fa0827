"""scripts/reduction_bench.py on Dawn at small sizes: every kernel it times gives NumPy's answer
first, and its report lists each one against the copy. On a CPU adapter this checks the plumbing
and the values, not the speed."""

from __future__ import annotations

import json

from scripts.reduction_bench import report, run_snippet


def test_the_reduction_bench_checks_and_times_every_kernel(dawn):
    r = json.loads(dawn.py(run_snippet([64, 96], 2, 1)))
    if r.get("no_timestamps"):  # (an adapter without timestamp queries: the checks alone)
        errors = r["errors"]
    else:
        rows = r["sides"]["96"]
        errors = {k: row["error"] for k, row in rows.items()}
        assert all(row["best_ms"] >= 0 and row["median_ms"] >= row["best_ms"] for row in rows.values())
        text = report(r)
        for name in ("copy", "pow, half negative", "sum both axes", "argmin 1-D"):
            assert f"  {name} " in text
    assert len(errors) == 27  # (the copy, pow twice, six reductions four ways)
    for name, e in errors.items():
        assert e <= (0.0 if name.startswith(("arg", "max", "min", "copy")) else 1e-5), (name, e)
