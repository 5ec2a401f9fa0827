# ruff: noqa: E501  (the snippets keep one call to a line)
"""complex64 GpuArrays on WebGPU — in the browser (SwiftShader), natively (wgpu-py) and on Dawn —
against the same calls on host arrays in the same target (pycore's NumPy backend, NumPy's complex64):

- every element-wise function that has a complex kernel, on random values, every pair of special
  parts (NaN, ±inf, ±0, finite), views (transposed, negative steps, broadcast), real and complex
  operands mixed, Python complex scalars: exact where NumPy's arithmetic is (add, subtract, the
  comparisons, conj, round), else within a few float32 ULPs of the magnitude (a product's parts may
  cancel: within the operands' magnitudes), NaN and infinite parts where NumPy's are;
- pow against NumPy's complex64 within a bound that grows with |y log x| (both compute
  exp(y log x) in float32), integer exponents by repeated squaring as NumPy's; the functions of
  real numbers only raise TypeError;
- real, imag (views) and conj; astype; creation; every manipulation and selection function; sum,
  mean, prod, any over axes; cumulative_sum, cumulative_prod; long products (split reductions,
  scans in blocks) against complex128; matmul (batched, 1-D, mixed with real operands); the
  fft chained on the GPU (fft, a product, ifft: a circular convolution); fusion of a complex chain.
One snippet per target and part."""

from __future__ import annotations

COMMON = '''
from pycore.calls.gpuarray import GpuArray
rng = np.random.default_rng(17)
EPS = float(np.finfo(np.float32).eps)
P = pycore
failures, calls = [], 0

def cdata(shape, specials=True):
    x = ((rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) * 3).astype(np.complex64)
    if specials and x.size > 8:
        parts = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5], np.float32)
        flat = x.reshape(-1)
        for k in range(min(flat.size // 3, 12)):
            flat[3 * k] = complex(parts[k % 6], parts[(k // 6 + k) % 6])
    return x

async def host(v):
    if isinstance(v, GpuArray):
        return await v.to_numpy_async()
    if isinstance(v, (tuple, list)):
        return type(v)([await host(e) for e in v])
    return v

def differ(got, want, scale=None, ulps=0, free=None):
    """Why got (read from the GPU) is not want (the host's), or None: each part exactly (NaN where
    NumPy's is), or with `ulps`, within ulps * eps * scale (the magnitude: |want| by default);
    elements where `free` is True are the implementation's to choose (not compared)."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"{got.dtype}{got.shape} != {want.dtype}{want.shape}"
    if got.dtype.kind not in "fc":
        bad = got != want
    else:
        g = np.stack([got.real, got.imag]).astype(np.float64)
        w = np.stack([want.real, want.imag]).astype(np.float64)
        if scale is None:
            scale = np.abs(want.astype(np.complex128))
        tol = ulps * EPS * np.broadcast_to(np.asarray(scale, np.float64), want.shape)
        with np.errstate(invalid="ignore"):
            near = (g == w) | (np.abs(g - w) <= tol[None]) & np.isfinite(w)
            near |= (np.abs(g) < 2.0**-126) & (np.abs(w) < 2.0**-126)  # (a GPU may flush subnormals)
        bad = ~((np.isnan(g) & np.isnan(w)) | near)
        bad = bad.any(axis=0)
    if free is not None:
        bad = bad & ~np.broadcast_to(free, bad.shape)
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        return f"{int(bad.sum())} differ, first at {at}: {got[at]!r} != {want[at]!r}"
    return None

async def compare(label, gpu_call, host_call, scale=None, ulps=0, free=None):
    global calls
    calls += 1
    want = await host_call()
    try:
        got = await gpu_call()
    except Exception as exc:
        failures.append(f"{label}: raised {type(exc).__name__}: {exc}")
        return
    if not (isinstance(got, GpuArray) and got.device == "webgpu"):
        failures.append(f"{label}: the result is not on the GPU: {got!r}")
        return
    why = differ(await host(got), await host(want), scale, ulps, free)
    if why:
        failures.append(f"{label}: {why}")
'''

UFUNCS = COMMON + '''
from pycore.tables.ufuncs import UFUNCS
EXACT = {"add", "subtract", "negative", "positive", "equal", "not_equal", "isnan", "isinf", "isfinite", "round"}
x, y = cdata((6, 5)), cdata((5,))
SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -0.5, 3e38], np.float32)
grid = (SPECIAL[:, None] + 1j * SPECIAL[None, :]).astype(np.complex64).reshape(-1)
gx, gy, gg = [await P.to_gpu_async(v) for v in (x, y, grid)]
hx, hy = x, y
def free(name, *args):
    """Where the standard leaves a product's or a quotient's value to the implementation: an
    infinite part (and no NaN part: then NaN + NaN i), a zero divisor, or a product of parts past
    float32's range (inf - inf may be NaN, or ±inf where the GPU fuses a multiply and an add)."""
    z = np.asarray(args[0])
    if name == "sin":  # (sin z = -i sinh(iz): where sinh's real part is an infinity of unspecified sign)
        return np.isinf(z.imag) & ~np.isfinite(z.real)
    if name == "asinh":  # (C99: asinh(NaN ± i inf) = ±inf + NaN i, the sign unspecified; asin, acos alike)
        return np.isnan(z.real) & np.isinf(z.imag)
    if name in ("asin", "acos"):
        return np.isinf(z.real) & np.isnan(z.imag)
    if name == "pow":  # (exp(y log x) at a special value or past float32's range: the standard's
        # formula and NumPy's computation differ there)
        zs = [np.asarray(a).astype(np.complex128) for a in args]
        with np.errstate(all="ignore"):
            w = np.abs(np.power(*zs))
        special = ~(np.isfinite(zs[0]) & np.isfinite(zs[1]))
        with np.errstate(all="ignore"):  # (y log x's imaginary part past 1e5: its float32 rounding
            # alone turns the result by more than 0.003 radians, on either backend)
            turns = np.abs((zs[1] * np.log(zs[0])).imag) > 1e5
        huge = np.abs(zs[0]) > 3.4028235e38  # (|x| past float32: C's cpowf, Pyodide's NumPy's, overflows)
        return special | turns | huge | ~np.isfinite(w) | (w > 1e37) | ((w < 1e-37) & (np.abs(zs[0]) != 0))
    if name not in ("multiply", "divide", "square", "reciprocal"):
        return None
    zs = [np.asarray(a).astype(np.complex64) for a in args]
    nan = inf = np.zeros((), bool)
    for z in zs:
        nan, inf = nan | np.isnan(z.real) | np.isnan(z.imag), inf | np.isinf(z.real) | np.isinf(z.imag)
    if name in ("divide", "reciprocal"):
        inf = inf | (zs[-1] == 0)
    with np.errstate(all="ignore"):
        big = np.abs(zs[0].astype(np.complex128)) * np.abs(zs[-1].astype(np.complex128))
    if name in ("multiply", "square"):
        inf = inf | (big > 3e38)
    return inf & ~nan

for name, u in UFUNCS.items():
    if u.complex != "gpu":
        continue
    fn = getattr(P, name + "_async")
    ulps = 0 if name in EXACT else 8
    if u.nin == 1:
        await compare(f"{name}(x)", lambda: fn(gx, backend="gpu"), lambda: fn(hx, backend="numpy"), ulps=ulps,
                      free=free(name, hx))
        await compare(f"{name}(x.T[::-1])", lambda: fn(gx.T[::-1], backend="gpu"),
                      lambda: fn(hx.T[::-1], backend="numpy"), ulps=ulps, free=free(name, hx.T[::-1]))
        await compare(f"{name}(specials)", lambda: fn(gg, backend="gpu"), lambda: fn(grid, backend="numpy"),
                      ulps=ulps, free=free(name, grid))
        continue
    # (pow: exp(y log x) in float32, as NumPy's complex64: the error grows with |y log x|)
    mag = {"multiply": lambda a, b: np.abs(a) * np.abs(b),
           "divide": lambda a, b: np.abs(a) / np.abs(b),
           "pow": lambda a, b: np.abs(a ** b) * (1 + np.abs(b) * (np.abs(np.log(np.abs(a))) + np.pi))}.get(name)
    def scale(a, b):
        with np.errstate(all="ignore"):
            a, b = np.asarray(a, np.complex128), np.asarray(b, np.complex128)
            return None if mag is None else np.where(np.isfinite(mag(a, b)), mag(a, b), 0)
    await compare(f"{name}(x, y)", lambda: fn(gx, gy, backend="gpu"), lambda: fn(hx, hy, backend="numpy"),
                  scale(hx, hy), ulps, free(name, hx, hy))
    await compare(f"{name}(y[::-1], x.T[:, :1] broadcast)", lambda: fn(gy[::-1], gx.T[:, :1], backend="gpu"),
                  lambda: fn(hy[::-1], hx.T[:, :1], backend="numpy"), scale(hy[::-1], hx.T[:, :1]), ulps,
                  free(name, hy[::-1], hx.T[:, :1]))
    real = (rng.standard_normal((6, 5)) * 2).astype(np.float32)
    greal = await P.to_gpu_async(real)
    await compare(f"{name}(float32, x)", lambda: fn(greal, gx, backend="gpu"), lambda: fn(real, hx, backend="numpy"),
                  scale(real, hx), ulps, free(name, real, hx))
    await compare(f"{name}(x, 2-3j)", lambda: fn(gx, 2 - 3j, backend="gpu"), lambda: fn(hx, 2 - 3j, backend="numpy"),
                  scale(hx, 2 - 3j), ulps, free(name, hx, 2 - 3j))
    await compare(f"{name}(x, 1.5)", lambda: fn(gx, 1.5, backend="gpu"), lambda: fn(hx, 1.5, backend="numpy"),
                  scale(hx, 1.5), ulps, free(name, hx, 1.5))
    if name == "pow":  # (integer exponents: repeated squaring, as NumPy's)
        for k in (2, 3, -2, 7):
            await compare(f"pow(x, {k})", lambda: fn(gx, k, backend="gpu"), lambda: fn(hx, k, backend="numpy"),
                          scale(hx, k), ulps, free(name, hx, k))
    gr, gc = gg[:, None], gg[None, :]
    hr, hc = grid[:, None], grid[None, :]
    await compare(f"{name}(specials x specials)", lambda: fn(gr, gc, backend="gpu"),
                  lambda: fn(hr, hc, backend="numpy"), scale(hr, hc), ulps, free(name, hr, hc))
# the functions of real numbers only refuse complex64
for name in ("maximum", "less", "floor", "atan2"):
    calls += 1
    try:
        await getattr(P, name + "_async")(*((gx,) if UFUNCS[name].nin == 1 else (gx, gx)))
        failures.append(f"{name}: took complex64 (real numbers only)")
    except TypeError:
        pass
gx = gy = gg = greal = gr = gc = None  # (the worker is shared: its GPU memory is counted)
[failures, calls]
'''

NAMESPACE = COMMON + '''
x = cdata((4, 6), specials=False)
g = await P.to_gpu_async(x)
r = (rng.standard_normal((4, 6)) * 2).astype(np.float32)
gr = await P.to_gpu_async(r)
idx = np.array([3, 0, -1, 2], np.int32)
async def same(label, gpu_call, host_call, ulps=0, scale=None):
    await compare(label, gpu_call, host_call, scale, ulps)
# views, conj, astype
await same("real", lambda: _ready(P.real(g)), lambda: _ready(x.real))
await same("imag", lambda: P.imag_async(g.T[::-1]), lambda: P.imag_async(x.T[::-1]))
await same("conj", lambda: P.conj_async(g[:, ::2]), lambda: P.conj_async(x[:, ::2]))
await same("astype float32 -> complex64", lambda: P.astype_async(gr, "complex64"),
           lambda: P.astype_async(r, "complex64"))
await same("astype bool", lambda: P.astype_async(g, "bool"), lambda: P.astype_async(x, "bool"))
await same("copy of a view", lambda: g.T[1:, ::-1].copy_async(), lambda: _ready(np.ascontiguousarray(x.T[1:, ::-1])))
# creation
await same("zeros", lambda: P.zeros_async((3, 2), dtype="complex64", device="gpu"),
           lambda: P.zeros_async((3, 2), dtype="complex64"))
await same("full", lambda: P.full_async((5,), 2 - 1j, device="gpu"), lambda: P.full_async((5,), 2 - 1j))
await same("eye", lambda: P.eye_async(3, 4, k=1, dtype="complex64", device="gpu"),
           lambda: P.eye_async(3, 4, k=1, dtype="complex64"))
await same("linspace", lambda: P.linspace_async(1j, 3 - 1j, 7, device="gpu"),
           lambda: P.linspace_async(1j, 3 - 1j, 7), ulps=2, scale=3)
await same("ones_like", lambda: P.ones_like_async(g), lambda: P.ones_like_async(x))
await same("triu", lambda: P.triu_async(g, k=-1), lambda: P.triu_async(x, k=-1))
# manipulation and selection
await same("concat", lambda: P.concat_async([g, gr, g[:1]], axis=0), lambda: P.concat_async([x, r, x[:1]], axis=0))
await same("stack", lambda: P.stack_async([g, g.T.T], axis=2), lambda: P.stack_async([x, x], axis=2))
await same("roll", lambda: P.roll_async(g, (1, -2), axis=(0, 1)), lambda: P.roll_async(x, (1, -2), axis=(0, 1)))
await same("tile", lambda: P.tile_async(g[:, :2], (2, 3)), lambda: P.tile_async(x[:, :2], (2, 3)))
await same("repeat", lambda: P.repeat_async(g, 2, axis=1), lambda: P.repeat_async(x, 2, axis=1))
await same("reshape of a view", lambda: P.reshape_async(g.T, (3, 8)), lambda: P.reshape_async(x.T, (3, 8)))
await same("flip", lambda: _ready(P.flip(g, axis=1)), lambda: _ready(np.flip(x, 1)))
cond = rng.random((4, 6)) < 0.5
await same("where", lambda: P.where_async(cond, g, 1 + 1j), lambda: P.where_async(cond, x, 1 + 1j))
await same("where mixed", lambda: P.where_async(cond[:, :1], gr, g), lambda: P.where_async(cond[:, :1], r, x))
await same("take", lambda: P.take_async(g, idx, axis=1), lambda: P.take_async(x, idx, axis=1))
await same("take_along_axis", lambda: P.take_along_axis_async(g, np.argsort(r, axis=0).astype(np.int32), axis=0),
           lambda: P.take_along_axis_async(x, np.argsort(r, axis=0).astype(np.int32), axis=0))
await same("cumulative_sum", lambda: P.cumulative_sum_async(g, axis=1, include_initial=True),
           lambda: P.cumulative_sum_async(x, axis=1, include_initial=True), ulps=16, scale=30)
await same("cumulative_prod", lambda: P.cumulative_prod_async(g, axis=1, include_initial=True),
           lambda: P.cumulative_prod_async(x, axis=1, include_initial=True), ulps=16,
           scale=np.cumulative_prod(np.abs(x.astype(np.complex128)), axis=1, include_initial=True))
# long sums and products (a reduction split in segments, a scan in blocks) of values on the unit
# circle, against complex128 (a product's float32 rounding grows with the terms: about sqrt(n) ULPs)
u = cdata((3, 5000), specials=False)
u = (u / np.abs(u)).astype(np.complex64)
gu = await P.to_gpu_async(u)
u128 = u.astype(np.complex128)
await same("cumulative_sum of rows of 5000", lambda: P.cumulative_sum_async(gu, axis=1),
           lambda: _ready(np.cumulative_sum(u128, axis=1).astype(np.complex64)), ulps=32,
           scale=np.cumulative_sum(np.abs(u128), axis=1))
await same("cumulative_prod of rows of 5000", lambda: P.cumulative_prod_async(gu, axis=1),
           lambda: _ready(np.cumulative_prod(u128, axis=1).astype(np.complex64)), ulps=512, scale=1)
await same("cumulative_prod of columns", lambda: P.cumulative_prod_async(gu.T, axis=0, include_initial=True),
           lambda: _ready(np.cumulative_prod(u128.T, axis=0, include_initial=True).astype(np.complex64)),
           ulps=512, scale=1)
await same("prod of rows of 5000", lambda: P.prod_async(gu, axis=1),
           lambda: _ready(np.prod(u128, axis=1).astype(np.complex64)), ulps=512, scale=1)
await same("prod of 15000", lambda: P.prod_async(gu[:, ::-1]),
           lambda: _ready(np.prod(u128).astype(np.complex64)), ulps=512, scale=1)
# reductions
for name in ("sum", "mean", "prod"):
    for axis in (None, 0, 1, (0, 1)):
        fn = getattr(P, name + "_async")
        await same(f"{name} axis {axis}", lambda: fn(g, axis=axis, keepdims=True),
                   lambda: fn(x, axis=axis, keepdims=True), ulps=16,
                   scale=np.prod(np.abs(x.astype(np.complex128)), axis=axis, keepdims=True) if name == "prod"
                   else np.sum(np.abs(x.astype(np.complex128)), axis=axis, keepdims=True))
for name in ("any", "all"):
    z = x.copy()
    z[1] = 0
    gz = await P.to_gpu_async(z)
    await same(name, lambda: getattr(P, name + "_async")(gz, axis=1), lambda: getattr(P, name + "_async")(z, axis=1))
# matmul: one float32 product of the pairs
b = cdata((3, 6, 5), specials=False)
gb = await P.to_gpu_async(b)
for label, ga_, gb_, ha, hb in [("2-D", g, gb[0], x, b[0]), ("batched", g, gb, x, b),
                                 ("1-D", g[0], gb[1], x[0], b[1]), ("matrix @ 1-D", g, gb[2, :, 0], x, b[2, :, 0]),
                                 ("transposed", g.T[:5].T, gb[0, :5], x.T[:5].T, b[0, :5]),
                                 ("real @ complex", gr, gb[0], r, b[0])]:
    scale = np.abs(ha.astype(np.complex128)) @ np.abs(hb.astype(np.complex128))
    await same(f"matmul {label}", lambda: P.matmul_async(ga_, gb_), lambda: _ready(ha @ hb), ulps=16, scale=scale)
# the fft on the GPU, chained: a circular convolution as fft, a product, ifft
s = cdata((64,), specials=False)
k = cdata((64,), specials=False)
gs, gk = await P.to_gpu_async(s), await P.to_gpu_async(k)
async def convolved(a, b):
    fa, fb = await P.fft.fft_async(a, backend="gpu"), await P.fft.fft_async(b, backend="gpu")
    return await P.fft.ifft_async(await P.multiply_async(fa, fb), backend="gpu")
want = np.fft.ifft(np.fft.fft(s.astype(np.complex128)) * np.fft.fft(k.astype(np.complex128))).astype(np.complex64)
await same("fft convolution", lambda: convolved(gs, gk), lambda: _ready(want), ulps=64,
           scale=np.sqrt(np.sum(np.abs(s) ** 2) * np.sum(np.abs(k) ** 2)) / 8)
# a complex chain fuses into one kernel (from its second run)
from pycore.engine.executor import compiles_async
async def chain(a, b):
    return await P.exp_async(await P.add_async(await P.multiply_async(a, b), 1j))
for _ in range(2):
    fused0 = P.info()["fused_away"]
    v = await chain(gs, gk)
    await compiles_async()
# (exp of a product whose real part may cancel: its error is the product's, relative to |a| |b|,
# and a GPU may fuse the product's multiply and add)
await same("chain", lambda: chain(gs, gk), lambda: chain(s, k), ulps=16,
           scale=np.abs(np.exp(s.astype(np.complex128) * k + 1j)) * (1 + np.abs(s) * np.abs(k)))
calls += 1
if P.info()["fused_away"] - fused0 < 2:
    failures.append(f"complex chain: {P.info()['fused_away'] - fused0} calls left out, want 2")
g = gr = gb = gs = gk = gz = gu = v = ga_ = gb_ = None  # (the worker is shared: its GPU memory is counted)
[failures, calls]
'''

READY = '''
async def _ready(v):
    return v
'''


def _check(gpu, snippet: str) -> None:
    failures, calls = gpu.py(READY + snippet)
    assert calls > 10
    assert not failures, f"{len(failures)} of {calls} failed:\n" + "\n".join(failures[:40])


def test_every_complex_element_wise_function_matches_the_host(gpu):
    _check(gpu, UFUNCS)


def test_namespace_functions_on_complex64_match_the_host(gpu):
    _check(gpu, NAMESPACE)
