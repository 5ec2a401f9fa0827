"""The standard's linear algebra (pycore/calls/linalg.py) on WebGPU — in the browser (SwiftShader),
natively (wgpu-py) and on Dawn — against NumPy in the same target: the GPU-composed functions
(matmul, tensordot, vecdot, outer, cross, trace, the norms, matrix_power) on GpuArrays and their views,
their results GpuArrays on the GPU; the diagonal as a strided view read back; and the NumPy-run
factorizations on GpuArray inputs, their results uploaded. One snippet per target."""

from __future__ import annotations

LINALG = '''
import math
from pycore.calls.gpuarray import GpuArray
L = pycore.linalg
rng = np.random.default_rng(7)
failures, calls = [], 0

def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)

async def check(label, got, want, tol=2e-5):
    global calls
    calls += 1
    want = np.asarray(want)
    if want.ndim == 0 and not isinstance(got, GpuArray):  # (of host inputs: a NumPy scalar)
        if not isinstance(got, np.generic) or not np.isclose(got, float(want), rtol=tol, atol=tol):
            failures.append(f"{label}: {got!r} != {want!r}")
        return
    if not (isinstance(got, GpuArray) and got.device == "webgpu"):
        failures.append(f"{label}: {got!r} is not on the GPU")
        return
    value = await got.to_numpy_async()
    scale = max(1.0, float(np.abs(want).max()) if want.size else 1.0)
    if value.shape != want.shape or value.dtype != want.dtype or not np.allclose(
            value, want, rtol=tol, atol=tol * scale):
        failures.append(f"{label}: {value.dtype}{value.shape} {value.ravel()[:6].tolist()} != "
                        f"{want.dtype}{want.shape} {want.ravel()[:6].tolist()}")

def vnorm(h, axis, ord):
    axes = tuple(range(h.ndim)) if axis is None else (axis % h.ndim,) if isinstance(axis, int) else axis
    rest = [i for i in range(h.ndim) if i not in axes]
    flat = np.transpose(h, rest + list(axes)).reshape(*[h.shape[i] for i in rest], -1)
    return np.asarray(np.linalg.norm(flat, ord=ord, axis=-1))

x = f32(3, 5, 4)
t = await pycore.to_gpu_async(x)
views = {"x": (t, x), "x.mT": (t.mT, x.swapaxes(-1, -2)),
         "x[::-1, 1:, ::2]": (t[::-1, 1:, ::2], x[::-1, 1:, ::2])}
for label, (v, h) in views.items():
    h64 = h.astype(np.float64)
    await check(f"matmul {label}", await L.matmul_async(v, v.mT), h @ h.swapaxes(-1, -2), 1e-4)
    await check(f"tensordot {label}", await pycore.tensordot_async(v, v, axes=([0, 2], [0, 2])),
                np.tensordot(h64, h64, axes=([0, 2], [0, 2])).astype(np.float32), 1e-4)
    await check(f"tensordot axes=1 {label}", await pycore.tensordot_async(v, h[0].T.copy(), axes=1),
                np.tensordot(h64, h64[0].T, axes=1).astype(np.float32), 1e-4)
    await check(f"vecdot {label}", await pycore.vecdot_async(v, v[0]),
                (h64 * h64[0]).sum(-1).astype(np.float32))
    await check(f"vecdot -2 {label}", await L.vecdot_async(v, v, axis=-2),
                (h64 * h64).sum(-2).astype(np.float32))
    await check(f"outer {label}", await L.outer_async(v[0, 0], v[1, :, 0]), np.outer(h[0, 0], h[1, :, 0]))
    for k in (-1, 0, 2):
        d = L.diagonal(v, offset=k)
        await check(f"diagonal {k} {label}", d, np.diagonal(h, k, -2, -1))
        await check(f"trace {k} {label}", await L.trace_async(v, offset=k),
                    np.trace(h64, k, -2, -1).astype(np.float32))
    for ord in (2, 1, math.inf, -math.inf, 0, 3, 0.5):
        for axis in (None, -1, (0, 2)):
            await check(f"vector_norm {ord} {axis} {label}",
                        await L.vector_norm_async(v, axis=axis, ord=ord),
                        vnorm(h64, axis, ord).astype(np.float32), 1e-4)
    for ord in ("fro", 1, -1, math.inf, -math.inf, 2, "nuc"):
        await check(f"matrix_norm {ord} {label}", await L.matrix_norm_async(v, ord=ord),
                    np.linalg.norm(h64, ord=ord, axis=(-2, -1)).astype(np.float32), 1e-4)
    u = await pycore.to_gpu_async(f32(3, h.shape[-1]))
    await check(f"cross -2 {label}", await L.cross_async(v[..., :3, :], u[::-1], axis=-2),
                np.cross(h[..., :3, :], (await u.to_numpy_async())[::-1], axis=-2), 1e-4)

a = (f32(2, 4, 4) + 4 * np.eye(4, dtype=np.float32)) / 4
g = await pycore.to_gpu_async(a)
a64 = a.astype(np.float64)
for n in (0, 1, 2, 5, -2):
    await check(f"matrix_power {n}", await L.matrix_power_async(g, n),
                np.linalg.matrix_power(a64, n).astype(np.float32), 1e-4)
ints = np.arange(12, dtype=np.int32).reshape(3, 4)
gi = await pycore.to_gpu_async(ints)
await check("tensordot int32", await pycore.tensordot_async(gi, gi, axes=([0], [0])),
            np.tensordot(ints, ints, ([0], [0])))
await check("vecdot int32", await pycore.vecdot_async(gi, gi), (ints * ints).sum(-1).astype(np.int32))
await check("trace int32", await L.trace_async(gi[None]), np.trace(ints, 0, -2, -1)[None].astype(np.int32))
on_gpu = [e["backend"] for e in pycore.trace()[-3:]]
if "webgpu" not in on_gpu:
    failures.append(f"the last int32 calls ran on {on_gpu}, none on the GPU")

# the NumPy-run functions: GpuArray in, GpuArray out
s = a @ a.swapaxes(-1, -2) + np.eye(4, dtype=np.float32)
gs = await pycore.to_gpu_async(s)
s64 = s.astype(np.float64)
await check("inv", await L.inv_async(gs), np.linalg.inv(s64).astype(np.float32), 1e-4)
last = pycore.trace()[-1]
if (last["op"], last["backend"]) != ("linalg.inv", "numpy"):
    failures.append(f"inv's trace entry: {last}")
await check("det", await L.det_async(gs), np.linalg.det(s64).astype(np.float32), 1e-4)
await check("solve", await L.solve_async(gs, await pycore.to_gpu_async(np.ones(4, np.float32))),
            np.linalg.solve(s64, np.ones((2, 4, 1)))[..., 0].astype(np.float32), 1e-4)
await check("cholesky", await L.cholesky_async(gs), np.linalg.cholesky(s64).astype(np.float32), 1e-4)
await check("eigvalsh", await L.eigvalsh_async(gs), np.linalg.eigvalsh(s64).astype(np.float32), 1e-4)
await check("svdvals", await L.svdvals_async(gs),
            np.linalg.svd(s64, compute_uv=False).astype(np.float32), 1e-4)
await check("pinv", await L.pinv_async(gs), np.linalg.pinv(s64).astype(np.float32), 1e-4)
await check("matrix_rank", await L.matrix_rank_async(gs), np.array([4, 4], np.int32))
q, r = await L.qr_async(gs)
await check("qr", await L.matmul_async(q, r), s, 1e-4)
w, vecs = await L.eigh_async(gs)
await check("eigh", w, np.linalg.eigh(s64)[0].astype(np.float32), 1e-4)
sign, logabs = await L.slogdet_async(gs)
await check("slogdet", logabs, np.linalg.slogdet(s64)[1].astype(np.float32), 1e-4)
choice = pycore.explain("linalg.inv", (64, 64))
if choice["choice"] != "numpy" or "no GPU kernel" not in choice["why"]:
    failures.append(f"explain linalg.inv: {choice}")
{"failures": failures, "calls": calls}
'''


def test_linear_algebra_matches_numpy(gpu):
    r = gpu.py(LINALG)
    assert r["failures"] == [], r["failures"][:20]
    assert r["calls"] > 140
