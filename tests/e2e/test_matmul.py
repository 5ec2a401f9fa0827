"""The float32 matmul's dispatches on WebGPU (browser, native, Dawn), with the GPU tile kernels
forced on the CPU adapters too: a batch whose matrices lie at even steps runs as one dispatch with
workgroups along z (broadcast operands, views at offsets, a transposed operand copied first); a
batch that does not collapse to one axis runs a dispatch per product; a single product with few
tiles and a long K sums slices of K in parallel (split-K), an uneven last slice included. Every
result against float64. Element-wise calls on a product the program dropped fold into its stores
(an epilogue): relu(x @ w + b) runs as one kernel; a product the program holds, or reads twice in
one call, is not computed again."""

from __future__ import annotations

from tests.e2e.test_fusion import CHECKS

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


EPILOGUES = CHECKS + '''
from pycore.calls.programs import PROGRAMS
rng = np.random.default_rng(2)
PROGRAMS["matmul"].tiled = True  # (the GPU tile kernels, which take epilogues, also on a CPU adapter)
xh, wh, bh = (rng.standard_normal(s).astype(np.float32) for s in ((64, 32), (32, 48), (48,)))
bh[3] = np.nan
x3 = rng.standard_normal((3, 64, 32)).astype(np.float32)
x, w, b, X3 = [await pycore.to_gpu_async(a) for a in (xh, wh, bh, x3)]
ref = xh.astype(np.float64) @ wh
away, names = {}, []
try:
    for attempt in range(3):
        await compiled()
        before = pycore.info()["fused_away"]
        RUNTIME.trace.clear()
        d = await pycore.relu_async(await pycore.add_async(await pycore.matmul_async(x, w, **G), b, **G))
        m = await pycore.matmul_async(x, w, **G)  # (held: computed once, kept)
        e = await pycore.multiply_async(await pycore.add_async(m, b, **G), 2.0, **G)
        t = await pycore.matmul_async(x, w, **G)
        sq = await pycore.multiply_async(t, t, **G)  # (the product read twice by one call)
        del t
        s3 = await pycore.subtract_async(await pycore.matmul_async(X3, w, **G), b, **G)
        z = await pycore.exp_async(s3, **G)  # (the product dropped by now; s3 dropped after)
        del s3
        with np.errstate(all="ignore"):
            close(f"dense {attempt}", await d.to_numpy_async(), np.maximum(ref + bh, 0), 1e-4)
            close(f"held {attempt}", await m.to_numpy_async(), ref, 1e-4)
            close(f"from the held product {attempt}", await e.to_numpy_async(), (ref + bh) * 2, 1e-4)
            close(f"squared {attempt}", await sq.to_numpy_async(), ref * ref, 1e-3)
            close(f"batch {attempt}", await z.to_numpy_async(), np.exp(x3.astype(np.float64) @ wh - bh), 1e-3)
        away[attempt] = pycore.info()["fused_away"] - before
        names = [e.get("fused", "") for e in pycore.trace() if e["op"] in ("relu", "exp")]
        del d, m, e, sq, z
finally:
    PROGRAMS["matmul"].tiled = None
del x, w, b, X3
gc.collect()
{"failures": failures, "away": away, "names": names}
'''


def test_element_wise_calls_on_a_dropped_product_fold_into_its_stores(gpu):
    r = gpu.py(EPILOGUES)
    assert r["failures"] == [], r["failures"]
    # left out from the second run: dense's matmul and add (relu's kernel computes the product,
    # the bias and relu), e's add (into multiply, m kept), the batch's matmul and subtract (exp's)
    assert r["away"]["2"] == 5, r
    assert r["names"][0].startswith("relu_f(add_f32("), r
    assert r["names"][1].startswith("exp_f32(subtract_f32("), r
