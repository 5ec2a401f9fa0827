"""Every op, in the browser, on WebGPU and on the NumPy fallback, against the float64 references
of tests/reference.py (the same cases and tolerances as the CPython suite)."""

from __future__ import annotations

import pytest

from pycore.ops import OPS
from tests.reference import case_ids


@pytest.fixture(scope="module")
def pages(gpu_page, fallback_page):
    for page in (gpu_page, fallback_page):
        page.load_reference()
    return {"webgpu": gpu_page, "numpy": fallback_page}




@pytest.mark.parametrize("backend", ["webgpu", "numpy"])
@pytest.mark.parametrize("case_id", case_ids())
def test_op_matches_float64(pages, backend, case_id):
    result = pages[backend].run_case(case_id, backend="gpu" if backend == "webgpu" else "auto")
    assert result["ok"], result["problems"]
    if "empty" not in case_id:
        assert result["backend"] == backend


@pytest.mark.parametrize("op_name", list(OPS))
def test_docstring_example_holds_on_webgpu(gpu_page, op_name):
    op = OPS[op_name]
    r = gpu_page.py(f"""
value = await {op.example}
shown = eval({op.shows!r}, {{"array": np.array, "float32": np.float32}})
{{"close": bool(np.allclose(value, shown, rtol=1e-5, atol=1e-6)), "value": repr(value),
  "backend": pycore.trace()[-1]["backend"]}}
""")
    assert r["backend"] == "webgpu" and r["close"], r["value"]
