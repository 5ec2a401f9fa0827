"""The float32 matmul's dispatches on WebGPU (browser, native, Dawn), with the GPU tile kernels
forced on the CPU adapters too: a batch whose matrices lie at even steps runs as one dispatch with
workgroups along z (broadcast operands, views at offsets, a transposed operand copied first); a
batch that does not collapse to one axis runs a dispatch per product; a single product with few
tiles and a long K sums slices of K in parallel (split-K), an uneven last slice included. Every
result against float64."""

from __future__ import annotations

MATMULS = '''
from pycore.calls.programs import PROGRAMS
from pycore.engine.executor import facts
from pycore.engine.runtime import RUNTIME
rng = np.random.default_rng(11)
failures, steps = [], {}
PROGRAMS["matmul"].tiled = True  # (the GPU tile kernels, also on a CPU adapter)

def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)

cases = {
    "batch": (f32(8, 64, 32), f32(8, 32, 48)),
    "b broadcast": (f32(4, 64, 32), f32(32, 48)),
    "a broadcast": (f32(1, 64, 32), f32(3, 32, 48)),
    "no common step": (f32(2, 1, 64, 32), f32(3, 32, 48)),
    "split K": (f32(64, 4096), f32(4096, 16)),
    "split K, uneven slices": (f32(40, 5000), f32(5000, 12)),
    "split K in a batch of one": (f32(1, 64, 4096), f32(4096, 16)),
}
try:
    for name, (a, b) in cases.items():
        ga, gb = await pycore.to_gpu_async(a), await pycore.to_gpu_async(b)
        got = await (await pycore.matmul_async(ga, gb, backend="gpu")).to_numpy_async()
        want = a.astype(np.float64) @ b
        err = float(np.abs(got - want).max() / np.abs(want).max()) if got.shape == want.shape else None
        if err is None or err > 1e-5:
            failures.append(f"{name}: {got.shape} vs {want.shape}, error {err}")
    # views: matrices at an offset no binding can start at (copied), a transposed operand (copied first)
    big = f32(9, 64, 32)
    B = await pycore.to_gpu_async(big)
    k = f32(8, 48, 32)
    K = await pycore.to_gpu_async(k)
    got = await (await pycore.matmul_async(B[1:], pycore.matrix_transpose(K), backend="gpu")).to_numpy_async()
    want = big[1:].astype(np.float64) @ np.swapaxes(k, -1, -2)
    if float(np.abs(got - want).max()) > 1e-4:
        failures.append("views: wrong")
    # the plans: one dispatch for the batch, one per product where the batch has no common step,
    # and split-K's partial products plus their sum
    from pycore.kernels.matmul import plan_matmul
    from pycore.array.layout import Layout
    f = facts(RUNTIME.device)
    C = Layout.contiguous
    steps = {"batch": len(plan_matmul(C((8, 64, 32)), C((8, 32, 48)), f, True).steps),
             "no common step": len(plan_matmul(C((2, 1, 64, 32)), C((3, 32, 48)), f, True).steps),
             "split": [s.kernel.entry for s in plan_matmul(C((64, 4096)), C((4096, 16)), f, True).steps]}
finally:
    PROGRAMS["matmul"].tiled = None
{"failures": failures, "steps": steps}
'''


def test_batches_run_along_z_and_long_products_split_k(gpu):
    r = gpu.py(MATMULS)
    assert r["failures"] == [], r["failures"]
    assert r["steps"]["batch"] == 1 and r["steps"]["no common step"] == 6, r
    assert r["steps"]["split"][0].endswith("z") and r["steps"]["split"][1] == "reduce_axes", r
