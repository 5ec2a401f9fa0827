"""pycore.nn (pycore/calls/nn.py) on WebGPU — in the browser (SwiftShader), natively (wgpu-py) and on
Dawn: each function on GpuArray inputs (views too), its result a GpuArray on the GPU within float32
tolerances of a float64 reference computed in the same target; the composed calls ran on the GPU
(trace). Small sizes (the CPU adapters are slow). One snippet per target."""

from __future__ import annotations

NN = '''
import itertools, math
from pycore.calls.gpuarray import GpuArray
nn = pycore.nn
rng = np.random.default_rng(11)
failures, calls = [], 0
pycore.engine.runtime.RUNTIME.trace.clear()  # (the trace keeps its last 256 entries: counted from here)
start = 0

def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)

async def gpu(x):
    return await pycore.to_gpu_async(x)

async def check(label, got, want, tol=1e-4, dtype=np.float32):
    global calls
    calls += 1
    want = np.asarray(want)
    if not (isinstance(got, GpuArray) and got.device == "webgpu"):
        failures.append(f"{label}: {got!r} is not on the GPU")
        return
    value = await got.to_numpy_async()
    if value.shape != want.shape or value.dtype != dtype or not np.allclose(
            value.astype(np.float64), want, rtol=tol, atol=tol, equal_nan=True):
        failures.append(f"{label}: {value.dtype}{value.shape} {value.ravel()[:6].tolist()} != "
                        f"{want.dtype}{want.shape} {want.ravel()[:6].tolist()}")

# layer_norm, rms_norm (x a transposed view)
x = f32(4, 3, 8) * 2 + 1
w, b = f32(8), f32(8)
x64 = x.astype(np.float64)
mu = x64.mean(-1, keepdims=True)
want = (x64 - mu) / np.sqrt(((x64 - mu) ** 2).mean(-1, keepdims=True) + 1e-5) * w + b
await check("layer_norm", await nn.layer_norm_async(await gpu(x), 8, await gpu(w), await gpu(b)), want)
t = (await gpu(np.ascontiguousarray(x.transpose(2, 1, 0)))).T
await check("layer_norm view axes", await nn.layer_norm_async(t, axes=(0, 2)),
            (x64 - x64.mean((0, 2), keepdims=True)) / np.sqrt(x64.var((0, 2), keepdims=True) + 1e-5))
await check("rms_norm", await nn.rms_norm_async(await gpu(x), -1, await gpu(w)),
            x64 / np.sqrt((x64 ** 2).mean(-1, keepdims=True) + 1e-6) * w)

# logsumexp: large values and -inf / +inf / NaN rows
s = f32(5, 6) * 30
s[1] = -np.inf
s[2, 0] = np.inf
s[3, 2] = np.nan
with np.errstate(all="ignore"):
    want = np.log(np.exp(s.astype(np.float64) - 60).sum(1)) + 60
want[2], want[3] = np.inf, np.nan
await check("logsumexp", await nn.logsumexp_async(await gpu(s), axis=1), want)
await check("logsumexp all", await nn.logsumexp_async(await gpu(s[4:])),
            np.log(np.exp(s[4].astype(np.float64) - 60).sum()) + 60)

# one_hot, embedding
idx = np.array([[3, 0], [1, 9]], np.int32)
want = np.zeros((2, 2, 4), np.float32)
for i, j in np.ndindex(2, 2):
    if idx[i, j] < 4:
        want[i, j, idx[i, j]] = 1
await check("one_hot", await nn.one_hot_async(await gpu(idx), 4), want, 0)
table = f32(10, 5)
await check("embedding", await nn.embedding_async(await gpu(idx), await gpu(table)), table[idx], 0)

# cross_entropy: label smoothing, a -inf logit, classes along axis 1
logits, targets = f32(6, 5) * 3, rng.integers(0, 5, 6).astype(np.int32)
logits[0, (targets[0] + 1) % 5] = -np.inf
for eps in (0.0, 0.2):
    rows = logits.astype(np.float64)
    m = rows.max(1, keepdims=True)
    logp = rows - m - np.log(np.exp(rows - m).sum(1, keepdims=True))
    want = -logp[np.arange(6), targets]
    if eps:
        want = (1 - eps) * want + eps * -logp.mean(1)
    g, gt = await gpu(logits), await gpu(targets)
    await check(f"cross_entropy none {eps}",
                await nn.cross_entropy_async(g, gt, reduction="none", label_smoothing=eps), want)
    await check(f"cross_entropy mean {eps}",
                await nn.cross_entropy_async(g[1:], gt[1:], label_smoothing=eps), want[1:].mean())
moved = await gpu(np.ascontiguousarray(logits[1:].T[None]))
rows = logits[1:].astype(np.float64)
await check("cross_entropy axis 1 sum",
            await nn.cross_entropy_async(moved, await gpu(targets[None, 1:]), axis=1, reduction="sum"),
            (np.log(np.exp(rows).sum(1)) - rows[np.arange(5), targets[1:]]).sum())

# attention: plain, causal, bool and additive masks, heads sharing keys
q, k, v = f32(2, 2, 4, 8), f32(2, 2, 6, 8), f32(2, 2, 6, 3)
def attention(q, k, v, keep=None, add=None, scale=1 / math.sqrt(8)):
    sc = np.einsum("...id,...jd->...ij", q.astype(np.float64), k.astype(np.float64)) * scale
    if add is not None:
        sc = sc + add
    if keep is not None:
        sc = np.where(keep, sc, -np.inf)
    e = np.exp(sc - sc.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ v.astype(np.float64)
gq, gk, gv = await gpu(q), await gpu(k), await gpu(v)
await check("sdpa", await nn.scaled_dot_product_attention_async(gq, gk, gv), attention(q, k, v))
await check("sdpa causal", await nn.scaled_dot_product_attention_async(gq, gk, gv, is_causal=True),
            attention(q, k, v, np.tri(4, 6, dtype=bool)))
keep = rng.random((2, 1, 4, 6)) < 0.6
keep[..., 0] = True
await check("sdpa bool mask", await nn.scaled_dot_product_attention_async(gq, gk, gv, mask=await gpu(keep),
                                                                          scale=0.3),
            attention(q, k, v, keep, scale=0.3))
add = f32(4, 6)
await check("sdpa additive mask",
            await nn.scaled_dot_product_attention_async(gq, gk, gv, mask=await gpu(add)),
            attention(q, k, v, add=add))
await check("sdpa shared kv", await nn.scaled_dot_product_attention_async(gq, gk[:, :1], gv[:, :1]),
            attention(q, k[:, :1], v[:, :1]))

# conv: 1-D, 2-D (groups, dilation, padding, stride, bias), 3-D; a direct float64 convolution
def direct(x, w, bias, stride, pad, dil, groups):
    x, w = x.astype(np.float64), w.astype(np.float64)
    d = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    out = [(n + 2 * p - di * (kk - 1) - 1) // st + 1
           for n, kk, st, p, di in zip(x.shape[2:], w.shape[2:], stride, pad, dil)]
    og, cg = w.shape[0] // groups, w.shape[1]
    y = np.zeros((x.shape[0], w.shape[0], *out))
    for o in range(w.shape[0]):
        g = o // og
        for off in itertools.product(*[range(kk) for kk in w.shape[2:]]):
            sl = tuple(slice(f * di, f * di + st * (m - 1) + 1, st)
                       for f, di, st, m in zip(off, dil, stride, out))
            y[:, o] += np.einsum("nc...,c->n...", xp[(slice(None), slice(g * cg, (g + 1) * cg), *sl)],
                                 w[(o, slice(None), *off)])
        y[:, o] += 0 if bias is None else bias[o]
    return y
for xs, ws, st, pad, dil, groups in [((2, 3, 11), (4, 3, 3), (2,), (1,), (2,), 1),
                                     ((1, 4, 7, 6), (6, 2, 3, 2), (2, 1), (1, 1), (1, 2), 2),
                                     ((1, 2, 4, 5, 4), (3, 2, 2, 3, 2), (1, 2, 1), (1, 0, 1), (1, 1, 2), 1)]:
    cx, cw, cb = f32(*xs), f32(*ws), f32(ws[0])
    got = await nn.conv_async(await gpu(cx), await gpu(cw), await gpu(cb), st, pad, dil, groups)
    await check(f"conv {len(xs) - 2}-D", got, direct(cx, cw, cb, st, pad, dil, groups))
# the direct kernel (windows of at most 64 taps): x a strided view at an offset, w and bias on the
# host, a non-finite weight over the padding (0 * inf is NaN, as the padded product gives); a wider
# window (8 channels x 3 x 3 = 72 taps) runs im2col and the matmul
vx = f32(3, 2, 10, 7)
gvx = (await gpu(vx))[1:, :, ::2, :]
vw, vb = f32(3, 2, 3, 3), f32(3)
vw[2, 1, 0, 0] = np.inf
with np.errstate(invalid="ignore"):
    want = direct(vx[1:, :, ::2, :], vw, vb, (1, 1), (1, 1), (1, 1), 1)
await check("conv direct of a view", await nn.conv_async(gvx, vw, vb, padding=1), want)
kinds = [e.get("why", "") for e in pycore.trace() if e["op"] == "conv"][-1:]
if not any("direct kernel" in k for k in kinds):
    failures.append(f"conv of 18 taps did not run the direct kernel: {kinds}")
wx, ww = f32(1, 8, 6, 5), f32(2, 8, 3, 3)
await check("conv im2col (72 taps)", await nn.conv_async(await gpu(wx), ww, padding=1),
            direct(wx, ww, None, (1, 1), (1, 1), (1, 1), 1))

# pools (x a view with an offset)
px = f32(2, 3, 8, 7)
gx = (await gpu(np.concatenate([px, px])))[2:]
for kk, st, pad in [((2, 2), None, (0, 0)), ((3, 2), (2, 1), (1, 1))]:
    s2 = st or kk
    widths = [(0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])]
    xp = np.pad(px.astype(np.float64), widths, constant_values=-np.inf)
    xz = np.pad(px.astype(np.float64), widths)
    oh, ow = (xp.shape[2] - kk[0]) // s2[0] + 1, (xp.shape[3] - kk[1]) // s2[1] + 1
    mx, av = np.zeros((2, 3, oh, ow)), np.zeros((2, 3, oh, ow))
    for i, j in np.ndindex(oh, ow):
        mx[:, :, i, j] = xp[:, :, i * s2[0]:i * s2[0] + kk[0], j * s2[1]:j * s2[1] + kk[1]].max((2, 3))
        av[:, :, i, j] = xz[:, :, i * s2[0]:i * s2[0] + kk[0], j * s2[1]:j * s2[1] + kk[1]].mean((2, 3))
    await check(f"max_pool2d {kk} {st} {pad}", await nn.max_pool2d_async(gx, kk, st, pad), mx)
    await check(f"avg_pool2d {kk} {st} {pad}", await nn.avg_pool2d_async(gx, kk, st, pad), av)

# pools of 1 to 3 axes in one direct kernel (x a view with an offset; windows of up to 64 taps written
# out tap by tap, larger ones in loops) against the composition of the same pool on the host (NumPy;
# tests/unit/test_nn.py checks it against a float64 reference)
for shape, kk, st, pad, dil, ceil in [((2, 3, 11), 3, 2, 1, 1, True), ((2, 2, 12), 3, 1, 2, 2, False),
                                      ((1, 2, 9, 8), (3, 3), (2, 1), (1, 1), (1, 1), True),
                                      ((1, 2, 5, 6, 4), (2, 3, 2), (2, 2, 1), (1, 1, 0), (1, 2, 1), True),
                                      ((1, 2, 20, 18), (9, 8), (3, 2), (4, 4), (1, 1), True)]:  # (72 taps)
    px = f32(*shape)
    gx = (await gpu(np.concatenate([px, px])))[shape[0]:]
    label = f"{len(shape) - 2}-D {kk} {st} {pad} {dil} {ceil}"
    await check(f"max_pool {label}", await nn.max_pool_async(gx, kk, st, pad, dil, ceil),
                await nn.max_pool_async(px, kk, st, pad, dil, ceil), 1e-6)
    if np.all(np.asarray(dil) == 1):  # (an average pool has no dilation)
        for include in (True, False):
            await check(f"avg_pool {label} count_include_pad={include}",
                        await nn.avg_pool_async(gx, kk, st, pad, ceil, include),
                        await nn.avg_pool_async(px, kk, st, pad, ceil, include), 1e-5)
    kinds = [e.get("why", "") for e in pycore.trace() if e["op"].endswith("_pool")][-1:]
    if not any("direct kernel" in k for k in kinds):
        failures.append(f"pool {label} did not run the direct kernel: {kinds}")
nx = f32(1, 2, 6)
nx[0, 0, 3] = np.nan
got = await (await nn.max_pool_async(await gpu(nx), 2)).to_numpy_async()
if not (np.isnan(got[0, 0, 1]) and not np.isnan(got[0, 0, [0, 2]]).any()):
    failures.append(f"max_pool NaN: {got[0, 0].tolist()}")

# float16 inputs (packed on the GPU): float16 results
h = f32(1, 2, 5, 6).astype(np.float16)
h64, gh = h.astype(np.float64), await gpu(h)
mu = h64.mean(-1, keepdims=True)
await check("layer_norm float16", await nn.layer_norm_async(gh, 6),
            (h64 - mu) / np.sqrt(((h64 - mu) ** 2).mean(-1, keepdims=True) + 1e-5), 1e-2, np.float16)
await check("sdpa float16 causal", await nn.scaled_dot_product_attention_async(gh, gh, gh, is_causal=True),
            attention(h64, h64, h64, np.tri(5, 5, dtype=bool), scale=1 / math.sqrt(6)), 1e-2, np.float16)
hw = f32(3, 2, 2, 3).astype(np.float16)
await check("conv float16", await nn.conv_async(gh, await gpu(hw), padding=1),
            direct(h64, hw, None, (1, 1), (1, 1), (1, 1), 1), 2e-2, np.float16)
kinds = [e.get("why", "") for e in pycore.trace() if e["op"] == "conv"][-1:]
if not any("direct kernel" in k for k in kinds):  # (float16 x and w read as such by the kernel)
    failures.append(f"a float16 conv did not run the direct kernel: {kinds}")
await check("max_pool float16", await nn.max_pool_async(gh, 3, 2, 1, ceil_mode=True),
            await nn.max_pool_async(h, 3, 2, 1, ceil_mode=True), 0, np.float16)
await check("avg_pool float16", await nn.avg_pool_async(gh, (2, 3), count_include_pad=False),
            await nn.avg_pool_async(h.astype(np.float32), (2, 3), count_include_pad=False), 1e-3, np.float16)
hb = f32(3).astype(np.float16)  # (x float16, w float32 on the host, a float16 bias: a float32 result)
mixed = await nn.conv_async(gh, hw.astype(np.float32), await gpu(hb), padding=1)
await check("conv float16 x, float32 w, float16 bias", mixed, direct(h64, hw, hb, (1, 1), (1, 1), (1, 1), 1),
            2e-5)

ran = [e.get("backend") for e in pycore.trace()[start:]]
if "webgpu" not in ran:
    failures.append(f"no composed call ran on the GPU: {ran}")
{"failures": failures, "calls": calls, "gpu_calls": ran.count("webgpu"), "ran": len(ran)}
'''


def test_nn_building_blocks_on_the_gpu(gpu):
    r = gpu.py(NN)
    print(f"{r['gpu_calls']} of {r['ran']} traced calls on the GPU")
    assert r["failures"] == [], r["failures"][:20]
    assert r["calls"] >= 24 and r["gpu_calls"] > 0, r["gpu_calls"]


FUSED = '''
from pycore.calls.gpuarray import GpuArray
from pycore.calls.programs import PROGRAMS
rng = np.random.default_rng(5)
failures, calls = [], 0
x = (rng.standard_normal((33, 300)) * 3 + 1).astype(np.float32)
x[4] = 7.0  # (a constant row: variance 0)
w, b = rng.standard_normal(300).astype(np.float32), rng.standard_normal(300).astype(np.float32)
t, gw, gb = [await pycore.to_gpu_async(a) for a in (x, w, b)]

def layer(h, wt=None, bs=None, eps=1e-5):
    h = h.astype(np.float64)
    m = h.mean(-1, keepdims=True)
    y = (h - m) / np.sqrt(((h - m) ** 2).mean(-1, keepdims=True) + eps)
    return y * (1 if wt is None else wt) + (0 if bs is None else bs)

def bound(h, wt=None, eps=1e-5):
    """float32's error of a row's normalized values: a few ULPs of the mean, divided by the row's
    deviation (sqrt(eps) for a constant row), times the weight; and a few ULPs of the result."""
    h = h.astype(np.float64)
    ulp = np.spacing(np.abs(h).max(-1, keepdims=True).astype(np.float32)).astype(np.float64)
    scale = 4 * ulp / np.sqrt(h.var(-1, keepdims=True) + eps) * (1 if wt is None else np.abs(wt))
    return scale + 2e-5 * max(1.0, float(np.abs(layer(h, wt)).max()))

def rms(h, wt=None, eps=1e-6):
    h = h.astype(np.float64)
    return h / np.sqrt((h * h).mean(-1, keepdims=True) + eps) * (1 if wt is None else wt)

for tree in (None, True, False):  # (the adapter's pick; a workgroup a row or side by side; a thread a row)
    PROGRAMS["rowwise"].tree = tree
    xt = np.ascontiguousarray(x.T)
    cases = {
        "layer_norm": (lambda: pycore.nn.layer_norm_async(t, 300), layer(x), bound(x)),
        "layer_norm weight bias": (lambda: pycore.nn.layer_norm_async(t, 300, gw, b), layer(x, w, b),
                                   bound(x, w)),
        "layer_norm of x[::2, ::-1]": (lambda: pycore.nn.layer_norm_async(t[::2, ::-1], 300, None, gb),
                                       layer(x[::2, ::-1], None, b), bound(x[::2, ::-1])),
        "layer_norm of x.T (rows side by side)": (lambda: pycore.nn.layer_norm_async(t.T, 33), layer(xt),
                                                  bound(xt)),
        "rms_norm weight": (lambda: pycore.nn.rms_norm_async(t, -1, gw), rms(x, w),
                            2e-5 * np.abs(rms(x, w)).max()),
        "rms_norm of x.T": (lambda: pycore.nn.rms_norm_async(t.T, -1), rms(xt), 2e-5 * np.abs(rms(xt)).max()),
    }
    for label, (make, want, tol) in cases.items():
        calls += 1
        pycore.engine.runtime.RUNTIME.trace.clear()  # (the trace keeps its last 256 entries)
        n0 = 0
        got = await make()
        ran = [(e["op"], e["backend"]) for e in pycore.trace()[n0:]]
        if len(ran) != 1 or ran[0][1] != "webgpu":  # (one fused kernel)
            failures.append(f"{label} tree={tree}: ran {ran}")
        value = await got.to_numpy_async()
        excess = float(np.max(np.abs(value - want) - tol))
        if value.dtype != np.float32 or excess > 0:
            failures.append(f"{label} tree={tree}: error past the bound by {excess}")
PROGRAMS["rowwise"].tree = None
h = await pycore.astype_async(t, "float16")
got = await pycore.nn.layer_norm_async(h, 300)
value = await got.to_numpy_async()
want = layer(x.astype(np.float16))
if value.dtype != np.float16 or not np.allclose(value.astype(np.float64), want, atol=4e-3):
    failures.append(f"layer_norm float16: {value.dtype} {value.ravel()[:4]}")
t = gw = gb = h = got = None
{"failures": failures, "calls": calls}
'''


def test_norms_over_the_last_axis_of_gpuarrays_run_as_one_fused_kernel(gpu):
    r = gpu.py(FUSED)
    assert r["failures"] == [], r["failures"][:20]
    assert r["calls"] == 18


ATTENTION = '''
import math
from pycore.calls.gpuarray import GpuArray
nn = pycore.nn
rng = np.random.default_rng(17)
failures, calls = [], 0

def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)

def reference(q, k, v, keep=None, add=None, scale=None, causal=False):
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = np.einsum("...id,...jd->...ij", q.astype(np.float64), k.astype(np.float64)) * scale
    if add is not None:
        s = s + add
    if keep is not None:
        s = np.where(keep, s, -np.inf)
    if causal:
        s = np.where(np.tri(q.shape[-2], k.shape[-2], dtype=bool), s, -np.inf)
    with np.errstate(all="ignore"):
        e = np.exp(s - s.max(-1, keepdims=True))
        return (e / e.sum(-1, keepdims=True)) @ v.astype(np.float64)

async def check(label, make, want, fused=True):
    global calls
    calls += 1
    pycore.engine.runtime.RUNTIME.trace.clear()
    got = await make()
    ran = [(e["op"], e["backend"], e["why"]) for e in pycore.trace()]
    one = len(ran) == 1 and ran[0][1] == "webgpu" and "one fused kernel" in ran[0][2]
    if one != fused:
        failures.append(f"{label}: ran {ran}")
    if not (isinstance(got, GpuArray) and got.device == "webgpu"):
        failures.append(f"{label}: {got!r} is not on the GPU")
        return
    value = await got.to_numpy_async()
    if value.shape != want.shape or value.dtype != np.float32 or not np.allclose(
            value, want, rtol=2e-5, atol=2e-5, equal_nan=True):
        failures.append(f"{label}: {value.shape} {value.ravel()[:4].tolist()} != {want.shape} "
                        f"{want.ravel()[:4].tolist()}")

# more queries than a workgroup takes and more keys than a tile: a head of 10 (not a multiple of
# 4), a value head of 7, batch and heads
q, k, v = f32(2, 3, 300, 10), f32(2, 3, 100, 10), f32(2, 3, 100, 7)
gq, gk, gv = [await pycore.to_gpu_async(a) for a in (q, k, v)]
sdpa = nn.scaled_dot_product_attention_async
await check("plain", lambda: sdpa(gq, gk, gv), reference(q, k, v))
await check("causal, more queries than keys", lambda: sdpa(gq, gk, gv, is_causal=True),
            reference(q, k, v, causal=True))
keep = rng.random((3, 300, 100)) < 0.5
keep[:, 7] = False  # (a query that attends nothing: NaN, as the unfused softmax gives)
await check("bool mask broadcast over the batch", lambda: sdpa(gq, gk, gv, mask=keep),
            reference(q, k, v, keep=keep))
add = f32(300, 100)
await check("additive mask, k and v on the host, a scale", lambda: sdpa(gq, k, v, mask=add, scale=0.2),
            reference(q, k, v, add=add, scale=0.2))
await check("additive mask and causal", lambda: sdpa(gq, gk, gv, mask=add, is_causal=True),
            reference(q, k, v, add=add, causal=True))
kt = (await pycore.to_gpu_async(np.ascontiguousarray(np.swapaxes(k, -1, -2)))).mT
await check("k a transposed view, k and v shared by the heads", lambda: sdpa(gq, kt[:, :1], gv[:, :1]),
            reference(q, k[:, :1], v[:, :1]))
await check("q a strided view", lambda: sdpa(gq[:, :, ::3], gk, gv), reference(q[:, :, ::3], k, v))
qn, kn = q.copy(), k.copy()
qn[0, 0, 3, 2] = np.nan
kn[1, 2, 7, 0] = np.inf
gqn, gkn = await pycore.to_gpu_async(qn), await pycore.to_gpu_async(kn)
await check("NaN and inf", lambda: sdpa(gqn, gkn, gv), reference(qn, kn, v))
ninf = np.where(rng.random((300, 100)) < 0.3, -np.inf, 0.0).astype(np.float32)
await check("additive -inf mask", lambda: sdpa(gq, gk, gv, mask=ninf), reference(q, k, v, add=ninf))
q2, k2, v2 = f32(5, 128), f32(9, 128), f32(9, 128)
g2 = [await pycore.to_gpu_async(a) for a in (q2, k2, v2)]
await check("2-D, heads of 128, causal", lambda: sdpa(*g2, is_causal=True),
            reference(q2, k2, v2, causal=True))
q3 = f32(4, 130)  # (a head past MAX_DIM: the composed calls)
g3 = await pycore.to_gpu_async(q3)
await check("a head of 130", lambda: sdpa(g3, g3, g3), reference(q3, q3, q3), fused=False)
# many keys: past the loop iterations a capped driver runs (lavapipe), the composed calls
qa, ka, va = f32(1, 4, 8), f32(1, 20000, 8), f32(1, 20000, 8)
gqa = await pycore.to_gpu_async(qa)
capped = pycore.engine.runtime.RUNTIME.device.loop_cap is not None
await check("20,000 keys", lambda: sdpa(gqa, ka, va), reference(qa, ka, va), fused=not capped)
# the kernel a GPU runs (constant loop bounds, each tile of k and v read ahead into registers),
# planned for this adapter too on small heads: a CPU adapter's own plan is the rolled kernel
from pycore.array.layout import Layout
from pycore.engine.executor import run_plans_async
from pycore.kernels.attention import plan_attention
from pycore.kernels.plan import Facts
qs, ks, vs = f32(2, 300, 8), f32(2, 100, 8), f32(2, 100, 4)
for causal in (False, True):
    plan = plan_attention(*(Layout.contiguous(a.shape) for a in (qs, ks, vs)), None, "", causal, 8 ** -0.5,
                          Facts())
    got, _, _ = await run_plans_async(pycore.engine.runtime.RUNTIME.device, "attention",
                                      [(plan, [qs, ks, vs])], False)
    want = reference(qs, ks, vs, causal=causal)
    if ":prefetch" not in plan.steps[0].kernel.name or not np.allclose(got, want, rtol=2e-5, atol=2e-5):
        failures.append(f"{plan.steps[0].kernel.name}: {got.ravel()[:4].tolist()} != "
                        f"{want.ravel()[:4].tolist()}")
# the keys in parts, each a workgroup's, then combined (a GPU's plan for few blocks of queries, or
# causal ones): on either kernel, with a bool mask that leaves one query nothing (NaN) and another
# nothing in the second part, and an additive one
keep = rng.random((300, 100)) < 0.6
keep[11] = False
keep[12, 40:] = False
add = f32(300, 100)
from pycore.engine.executor import facts as facts_of
for facts in (Facts(), facts_of(pycore.engine.runtime.RUNTIME.device)):
    for causal, kind, m in ((False, "", None), (True, "", None), (False, "bool", keep), (True, "float", add)):
        lay = [Layout.contiguous(a.shape) for a in (qs, ks, vs)]
        mask = None if m is None else Layout.contiguous(m.shape)
        plan = plan_attention(*lay, mask, kind, causal, 0.3, facts, parts=2)  # (parts of 64 and 36 keys)
        arrays = [qs, ks, vs] + ([] if m is None else [m.astype(np.uint32) if kind == "bool" else m])
        got, _, _ = await run_plans_async(pycore.engine.runtime.RUNTIME.device, "attention", [(plan, arrays)],
                                          False)
        want = reference(qs, ks, vs, keep=m if kind == "bool" else None, add=m if kind == "float" else None,
                         causal=causal, scale=0.3)
        name = plan.steps[0].kernel.name
        if (":parts" not in name or plan.steps[0].words[21] != 2
                or not np.allclose(got, want, rtol=2e-5, atol=2e-5, equal_nan=True)
                or not (np.isnan(got) == np.isnan(want)).all()):
            failures.append(f"{name}: {got.ravel()[:4].tolist()} != {want.ravel()[:4].tolist()}")
# float16 q, k and v (packed on the GPU): read by the kernel as such, computed in float32; the
# result float16 where all three are (rounded once), float32 where one is float32
hq, hk, hv = (a.astype(np.float16) for a in (q, k, v))
ghq, ghk, ghv = [await pycore.to_gpu_async(a) for a in (hq, hk, hv)]
for label, args, dtype in (("float16", (ghq, ghk, ghv), np.float16),
                           ("float16 q, float32 k", (ghq, gk, ghv), np.float32)):
    for causal in (False, True):
        pycore.engine.runtime.RUNTIME.trace.clear()
        got = await (await sdpa(*args, is_causal=causal)).to_numpy_async()
        ran = [e["why"] for e in pycore.trace() if e["op"] == "scaled_dot_product_attention"]
        want = reference(hq, k if dtype == np.float32 else hk, hv, causal=causal)
        tol = 2e-3 if dtype == np.float16 else 2e-5  # (a float16 result: one rounding, 2^-11 relative)
        if (got.dtype != dtype or ran != ["a GpuArray input (one fused kernel)"]
                or not np.allclose(got, want, rtol=tol, atol=tol)):
            failures.append(f"{label} causal={causal}: {got.dtype} {ran} {got.ravel()[:3].tolist()} != "
                            f"{want.ravel()[:3].tolist()}")
h_add = add.astype(np.float16)  # (a float16 additive mask: converted to float32 for the kernel)
got = await (await sdpa(ghq, ghk, ghv, mask=await pycore.to_gpu_async(h_add))).to_numpy_async()
want = reference(hq, hk, hv, add=h_add)
if got.dtype != np.float16 or not np.allclose(got, want, rtol=2e-3, atol=2e-3):
    failures.append(f"float16 additive mask: {got.dtype} {got.ravel()[:3].tolist()} != "
                    f"{want.ravel()[:3].tolist()}")
ghq = ghk = ghv = None
gq = gk = gv = kt = gqn = gkn = g3 = gqa = None
g2 = []
{"failures": failures, "calls": calls}
'''


def test_attention_runs_as_one_fused_kernel(gpu):
    r = gpu.py(ATTENTION)
    assert r["failures"] == [], r["failures"][:20]
    assert r["calls"] == 12
