"""Every op on WebGPU in the browser, on WebGPU natively (wgpu-py), and on the browser's NumPy
fallback, against the float64 references of tests/reference.py (the same cases and tolerances as
the CPython suite)."""

from __future__ import annotations

import pytest

from pycore.ops import OPS
from tests.reference import case_ids


@pytest.fixture(scope="module")
def targets(gpu_page, fallback_page, native):
    for page in (gpu_page, fallback_page):
        page.load_reference()
    return {"browser": gpu_page, "native": native, "numpy": fallback_page}


@pytest.mark.parametrize("target", ["browser", "native", "numpy"])
@pytest.mark.parametrize("case_id", case_ids())
def test_op_matches_float64(targets, target, case_id):
    result = targets[target].run_case(case_id, backend="auto" if target == "numpy" else "gpu")
    assert result["ok"], result["problems"]
    if "empty" not in case_id:
        assert result["backend"] == ("numpy" if target == "numpy" else "webgpu")


@pytest.mark.parametrize("op_name", list(OPS))
def test_docstring_example_holds_on_webgpu(gpu, op_name):
    op = OPS[op_name]
    r = gpu.py(f"""
value = await {op.example}
shown = eval({op.shows!r}, {{"array": np.array, "float32": np.float32}})
{{"close": bool(np.allclose(value, shown, rtol=1e-5, atol=1e-6)), "value": repr(value),
  "backend": pycore.trace()[-1]["backend"]}}
""")
    assert r["backend"] == "webgpu" and r["close"], r["value"]
