"""scripts/arith_bench.py on Dawn at small sizes: every element-wise kernel it times gives NumPy's
answer first, and its report lists each one with its arithmetic alone. On a CPU adapter this
checks the plumbing and the values, not the speed."""

from __future__ import annotations

import json

from scripts.arith_bench import CASES, report, run_snippet


def test_the_arith_bench_checks_and_times_every_function(dawn):
    r = json.loads(dawn.py(run_snippet(1 << 14, 2, 1)))
    if r.get("no_timestamps"):  # (an adapter without timestamp queries: the checks alone)
        errors = r["errors"]
    else:
        rows = r["cases"]
        errors = {k: row["error"] for k, row in rows.items()}
        for row in rows.values():
            for part in ("kernel", "alone"):
                assert 0 <= row[part]["best_ms"] <= row[part]["median_ms"]
        text = report(r)
        for name in ("complex64 copy", "complex64 asinh", "complex64 pow(x, 2.5+0.5j)", "float32 pow"):
            assert f"  {name} " in text
    assert sorted(errors) == sorted(label for label, *_ in CASES)
    for name, e in errors.items():
        # (copies exact; pow's error grows with |y log x|, within 1e-5 of the largest result here)
        assert e <= (0.0 if name.endswith("copy") else 1e-5 if "pow" in name else 1e-6), (name, e)
