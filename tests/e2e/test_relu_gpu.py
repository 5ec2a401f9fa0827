"""relu_async on WebGPU in the browser matches NumPy exactly, at every size and shape."""

from __future__ import annotations

import math

import numpy as np
import pytest


def relu_on(page, setup: str) -> dict:
    """Run relu_async on `x` (defined by `setup`) and compare with NumPy in the page."""
    return page.py(setup + """
import numpy as np
_ref = np.maximum(np.asarray(x, dtype=np.float32), np.float32(0))
_y = await pycore.relu_async(x)
{"backend": pycore.trace()[-1]["backend"], "shape": list(_y.shape), "dtype": str(_y.dtype),
 "equal": bool(np.array_equal(_y, _ref, equal_nan=True)),
 "head": _y.reshape(-1)[:8].tolist()}
""")


@pytest.mark.parametrize("n", [1, 7, 256, 1000, 65_537])
def test_relu_matches_numpy_on_webgpu(gpu, n):
    r = relu_on(gpu, f"x = np.random.default_rng({n}).normal(size={n}).astype(np.float32)\n")
    assert r == {**r, "backend": "webgpu", "shape": [n], "dtype": "float32", "equal": True}


def test_relu_special_values(gpu):
    r = relu_on(gpu, "x = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, -1.0, 2.5, 3e38], np.float32)\n")
    assert r["backend"] == "webgpu" and r["equal"]
    assert math.isnan(r["head"][0]) and r["head"][1:] == [math.inf, 0.0, 0.0, 0.0, 0.0, 2.5, np.float32(3e38)]


def test_relu_shapes_dtypes_and_views(gpu):
    for setup, shape in [
        ("x = np.arange(-12, 12, dtype=np.float64).reshape(2, 3, 4)\n", [2, 3, 4]),
        ("x = np.arange(-50, 50, dtype=np.int32).reshape(10, 10)[::2, ::3]\n", [5, 4]),
        ("x = [[-1, 2], [3, -4]]\n", [2, 2]),
        ("x = np.float64(-3.0)\n", []),
    ]:
        r = relu_on(gpu, setup)
        assert r["backend"] == "webgpu" and r["equal"] and r["shape"] == shape and r["dtype"] == "float32"


def test_relu_empty_runs_without_a_dispatch(gpu):
    r = relu_on(gpu, "x = np.zeros((0, 3))\n")
    assert r["equal"] and r["shape"] == [0, 3]


def test_relu_past_65535_workgroups(gpu):
    # 16.8M elements = 65,625 workgroups of 256: needs the 2-D dispatch.
    r = relu_on(gpu, "x = np.linspace(-1, 1, 16_800_000, dtype=np.float32)\n")
    assert r["backend"] == "webgpu" and r["equal"]


def test_pipelines_are_cached_and_buffers_return_to_the_pool(gpu):
    r = gpu.py("""
await pycore.relu_async(np.ones(1000, np.float32))
before = pycore.info()
for _ in range(20):
    await pycore.relu_async(np.ones(1000, np.float32))
after = pycore.info()
{"before": before["memory"], "after": after["memory"], "compiled": after["pipelines_compiled_ms"],
 "compiled_before": before["pipelines_compiled_ms"]}
""")
    relu = "generated.strided:strided:relu_f(f32[1])->f32"  # (compiled once: its time unchanged; the
    assert r["compiled"][relu] == r["compiled_before"][relu]  # background compile may add others)
    assert r["after"]["bytes_in_use"] == r["before"]["bytes_in_use"]
    assert r["after"]["allocations"] - r["before"]["allocations"] <= 3  # reused, not re-made


def test_inputs_larger_than_the_binding_limit_run_in_chunks(gpu):
    # Pretend the device binds at most 4 KiB, so 10,000 elements take 10 chunks.
    r = gpu.py("""
device = pycore.engine.runtime.RUNTIME.device
saved = device.max_binding
device.max_binding = 4096
try:
    x = np.random.default_rng(9).normal(size=(100, 100)).astype(np.float32)
    y = await pycore.relu_async(x)
finally:
    device.max_binding = saved
{"equal": bool(np.array_equal(y, np.maximum(x, 0))), "backend": pycore.trace()[-1]["backend"]}
""")
    assert r == {"equal": True, "backend": "webgpu"}
