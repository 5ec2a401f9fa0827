"""Every op on WebGPU in the browser, on WebGPU natively (wgpu-py), through the browser transport
on Dawn in Node, and on the browser's NumPy fallback, against the float64 references of
tests/reference.py (the same cases and tolerances as the CPython suite)."""

from __future__ import annotations

import re

import pytest

from pycore.tables.ops import OPS
from tests.reference import case_ids


@pytest.fixture(scope="module")
def targets(gpu_page, fallback_page, native, dawn):
    for page in (gpu_page, fallback_page):
        page.load_reference()
    return {"browser": gpu_page, "native": native, "dawn": dawn, "numpy": fallback_page}


@pytest.mark.parametrize("target", ["browser", "native", "dawn", "numpy"])
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


# Which kernel runs depends on the adapter (on GPUs: the tiled matmuls and the workgroup reductions;
# on CPU adapters like the ones CI has, mostly the others) and for matmul on the shape: force each
# choice, so every kernel is checked here.
# (program, its switch, value, the kernels that value runs, the case ids' prefixes)
ROW_OPS = ("softmax", "log_softmax")
KERNEL_CHOICES = [
    ("matmul", "tiled", True, {r"matmul\.matmul_tiled", r"matmul\.matmul_t32"}, ("matmul:",)),
    ("matmul", "tile", 128, {r"matmul\.matmul_t128"}, ("matmul:",)),
    ("matmul", "tile", 64, {r"matmul\.matmul_t64"}, ("matmul:",)),
    ("matmul", "tile", 32, {r"matmul\.matmul_t32"}, ("matmul:",)),
    ("matmul", "tiled", False, {r"matmul\.matmul", r"matmul\.matmul_vec4"}, ("matmul:",)),
    ("reduce", "tree", True, {r"generated\.reduce_axes:reduce:(sum|max|min):f32(/8)?\[0\|1\]:1x256:f32",
                              r"generated\.strided:strided:multiply_f32\(f32\[1\],f32\[1\]\)->f32"},
     ("sum:", "max:", "min:", "dot:")),
    ("reduce", "tree", False, {r"generated\.reduce_axes:reduce:(sum|max|min):f32\[0\|1\]:1x1:f32"},
     ("sum:", "max:", "min:", "dot:")),
    ("rowwise", "tree", True, {rf"generated\.rows_tree:rows:{op}:tree\[\d\]" for op in ROW_OPS},
     ("softmax:", "log_softmax:")),
    ("rowwise", "tree", False, {rf"generated\.rows_thread:rows:{op}:thread\[\d\]" for op in ROW_OPS},
     ("softmax:", "log_softmax:")),
]


@pytest.mark.parametrize("kind,switch,value,kernels,prefixes", KERNEL_CHOICES,
                         ids=[f"{k}-{s}={v}" for k, s, v, *_ in KERNEL_CHOICES])
def test_every_kernel_choice_matches_float64(gpu, kind, switch, value, kernels, prefixes):
    ids = [c for c in case_ids() if c.startswith(prefixes)]
    gpu.load_reference()
    r = gpu.py(f"""
from pycore.calls.programs import PROGRAMS
from pycore_reference import run_case_async
setattr(PROGRAMS[{kind!r}], {switch!r}, {value})
try:
    results = [await run_case_async(c, backend="gpu") for c in {ids!r}]
finally:
    setattr(PROGRAMS[{kind!r}], {switch!r}, None)
{{"bad": [(r["case"], r["problems"]) for r in results if not r["ok"]],
  "kernels": sorted(f + "." + e for f, e in pycore.engine.runtime.RUNTIME.device.pipelines)}}
""")
    assert r["bad"] == []
    assert all(any(re.fullmatch(k, e) for e in r["kernels"]) for k in kernels), r["kernels"]


def test_long_loops_stay_within_the_drivers_loop_cap(gpu):
    # llvmpipe (the native adapter CI has) silently ends a shader invocation's loops after 65,535
    # iterations in all: a matmul whose K needs more runs as a sum over slices of K; a softmax row
    # or a convolution kernel that needs more is refused with the limit named. Other adapters have no cap.
    r = gpu.py("""
cap = pycore.engine.runtime.RUNTIME.device.loop_cap
rng = np.random.default_rng(5)
k = 4 * 65_600
a = rng.standard_normal((2, k), dtype=np.float32)
b = rng.standard_normal((k, 4), dtype=np.float32)
got = await pycore.matmul_async(a, b, backend="gpu")
err = float((np.abs(got - a.astype(np.float64) @ b) / (np.abs(a) @ np.abs(b))).max())
refused = []
if cap:
    for call in (pycore.softmax_async(np.zeros(256 * 22_000, np.float32), backend="gpu"),
                 pycore.convolve2d_async(np.zeros((300, 300), np.float32), np.ones((256, 256), np.float32),
                                         backend="gpu")):
        try:
            await call
        except ValueError as exc:
            refused.append(str(exc))
{"cap": cap, "err": err, "refused": refused, "transport": pycore.info()["transport"],
 "adapter": pycore.info()["adapter"]}
""")
    assert r["err"] < 65_600 * 4 * 2 ** -24, r
    if r["transport"] == "native" or "llvmpipe" in str(r.get("adapter")):  # lavapipe, natively or in Dawn
        assert r["cap"] == 65_535 and len(r["refused"]) == 2, r
        assert all("loop iterations" in text and "65,535" in text for text in r["refused"]), r
    else:
        assert r["cap"] is None and r["refused"] == [], r
