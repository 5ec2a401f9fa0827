"""The fft extension's transforms on WebGPU (shaders/fft.wgsl through pycore/kernels/fft.py) — in
the browser (SwiftShader), natively (wgpu-py) and on Dawn — against NumPy's pocketfft in float64 on
the same complex64 or float32 values, every call forced onto the GPU (backend="gpu", checked in
the trace): powers of two (whole transforms in workgroup memory, then global radix-16, radix-4
and radix-2 passes past 2048 points, or 256 along a middle axis), Bluestein's chirp-z for other
lengths (with its own power-of-two transforms past those), batches, every norm, cropping and
padding (n, s), any axis, the n-d transforms, the real and Hermitian ones, and float32 GpuArray
inputs. One snippet per target.

The error bound: ||got - want|| / ||want|| <= 2 eps log2(m) for a power of two m (eps = 2^-23,
float32's spacing at 1), three times that for Bluestein's lengths (three transforms of its
m >= 2n - 1 points, and two chirp products). A Stockham pass adds about one rounding of each value
(a butterfly's add and the twiddle's product, each 0.5 ulp, the twiddles themselves within about
1 ulp), so after log2(m) passes the error's norm grows as about eps sqrt(log2 m) to eps log2 m;
measured on lavapipe it is 0.1 to 0.3 of the bound (1.4e-7 for 4096 points, 2.6e-7 for 1000).
A wrong twiddle, sign or scale, or the hardware sin and cos (WGSL promises 2^-11 absolute), is
off by 1e-4 to 1 and fails.
"""

from __future__ import annotations

FFT = '''
import math, warnings
from pycore.calls.gpuarray import GpuArray
EPS = 2.0 ** -23
rng = np.random.default_rng(11)
failures, counted, worst = [], [0], [0.0, ""]

def complex_data(shape):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)

def bound(lengths):
    total = 0.0
    for n in lengths:
        pow2 = n & (n - 1) == 0
        m = n if pow2 else 1 << (2 * n - 2).bit_length()
        total += 2 * EPS * max(1.0, math.log2(m)) * (1 if pow2 else 3)
    return total

def ran_on_gpu():
    last = pycore.trace()[-1]
    return last["op"].startswith("fft.") and last["backend"] == "webgpu"

async def check(label, got, want, lengths, dtype=np.complex64, on_gpu_result=False):
    counted[0] += 1
    if not ran_on_gpu():
        failures.append(f"{label}: did not run on the GPU: {pycore.trace()[-1]}")
        return
    if on_gpu_result:
        if not isinstance(got, GpuArray):
            failures.append(f"{label}: {type(got).__name__} is not a GpuArray")
            return
        got = await got.to_numpy_async()
    want = np.asarray(want)
    if not isinstance(got, np.ndarray) or got.dtype != dtype or got.shape != want.shape:
        failures.append(f"{label}: {getattr(got, 'dtype', type(got))}{getattr(got, 'shape', '')} != "
                        f"{np.dtype(dtype)}{want.shape}")
        return
    scale = max(float(np.linalg.norm(want)), 1e-30)
    err = float(np.linalg.norm(got.astype(want.dtype) - want)) / scale
    if err / bound(lengths) > worst[0]:
        worst[:] = [err / bound(lengths), f"{label}: {err:.3g}"]
    if not err <= bound(lengths):
        failures.append(f"{label}: relative error {err:.3g} > {bound(lengths):.3g}")

F = pycore.fft
NORMS = ("backward", "ortho", "forward")

# 1-D complex transforms of (3, n) batches, every length kind
sizes = [1, 2, 3, 4, 5, 7, 8, 16, 17, 64, 100, 256, 1000, 1024, 1500, 2048, 4096, 8192]
for i, n in enumerate(sizes):
    x = complex_data((3, n))
    wide = x.astype(np.complex128)
    norm = NORMS[i % 3]
    await check(f"fft n={n} {norm}", await F.fft_async(x, norm=norm, backend="gpu"),
                np.fft.fft(wide, norm=norm), [n])
    await check(f"ifft n={n} {norm}", await F.ifft_async(x, norm=norm, backend="gpu"),
                np.fft.ifft(wide, norm=norm), [n])
# one long row: fft_local on 2048-point sub-transforms, then three global passes (4, 4, 2)
x = complex_data(1 << 16)
await check("fft 2^16", await F.fft_async(x, backend="gpu"), np.fft.fft(x.astype(np.complex128)), [1 << 16])
# Bluestein past the workgroup: m = 8192
x = complex_data((2, 3001))
await check("fft 3001", await F.fft_async(x, backend="gpu"), np.fft.fft(x.astype(np.complex128)), [3001])

# n crops and pads; other axes (rows along a middle axis: inner > 1)
x = complex_data((4, 10, 3))
wide = x.astype(np.complex128)
for n in (1, 7, 10, 16, 33):
    for axis in (0, 1, -1):
        await check(f"fft n={n} axis={axis}", await F.fft_async(x, n=n, axis=axis, backend="gpu"),
                    np.fft.fft(wide, n=n, axis=axis), [n])
        await check(f"ifft n={n} axis={axis} ortho", await F.ifft_async(x, n=n, axis=axis, norm="ortho",
                    backend="gpu"), np.fft.ifft(wide, n=n, axis=axis, norm="ortho"), [n])

# axes with values after them longer than 256: fft_local on 8 rows side by side, then global passes
for shape, axis in [((512, 6), 0), ((3, 1024, 5), 1), ((200, 4), 0), ((4096, 2), 0)]:
    x = complex_data(shape)
    await check(f"fft {shape} axis={axis}", await F.fft_async(x, axis=axis, backend="gpu"),
                np.fft.fft(x.astype(np.complex128), axis=axis), [shape[axis]])

# n-d transforms: every axis, some axes, with s
x = complex_data((6, 8, 5))
wide = x.astype(np.complex128)
for s, axes in [(None, None), (None, (0, 2)), ((4, 9), (2, 0)), ((8, -1, 3), (0, 1, 2)), (None, (-1,))]:
    for norm in NORMS:
        lengths = [(s[i] if s is not None and s[i] != -1 else x.shape[a])
                   for i, a in enumerate(axes if axes is not None else range(3))]
        await check(f"fftn s={s} axes={axes} {norm}", await F.fftn_async(x, s=s, axes=axes, norm=norm,
                    backend="gpu"), np.fft.fftn(wide, s=s, axes=axes, norm=norm), lengths)
        await check(f"ifftn s={s} axes={axes} {norm}", await F.ifftn_async(x, s=s, axes=axes, norm=norm,
                    backend="gpu"), np.fft.ifftn(wide, s=s, axes=axes, norm=norm), lengths)
x = complex_data((64, 64))
await check("fft2 64x64", await F.fftn_async(x, axes=(0, 1), backend="gpu"),
            np.fft.fft2(x.astype(np.complex128)), [64, 64])

# real and Hermitian transforms
for n in (1, 2, 5, 8, 12, 100, 1024):
    r = rng.standard_normal((3, n)).astype(np.float32)
    rw = r.astype(np.float64)
    for norm in NORMS:
        await check(f"rfft n={n} {norm}", await F.rfft_async(r, norm=norm, backend="gpu"),
                    np.fft.rfft(rw, norm=norm), [n])
        await check(f"ihfft n={n} {norm}", await F.ihfft_async(r, norm=norm, backend="gpu"),
                    np.fft.ihfft(rw, norm=norm), [n])
        h = complex_data((3, n // 2 + 1))
        hw = h.astype(np.complex128)
        for m in (None, n, n + 3):
            if m is None and n // 2 + 1 < 2:
                continue
            length = m if m is not None else 2 * (h.shape[1] - 1)
            await check(f"irfft n={m} half={h.shape[1]} {norm}", await F.irfft_async(h, n=m, norm=norm,
                        backend="gpu"), np.fft.irfft(hw, n=m, norm=norm), [length], np.float32)
            await check(f"hfft n={m} half={h.shape[1]} {norm}", await F.hfft_async(h, n=m, norm=norm,
                        backend="gpu"), np.fft.hfft(hw, n=m, norm=norm), [length], np.float32)
r = rng.standard_normal((6, 7, 10)).astype(np.float32)
for s, axes in [(None, None), ((8, 12), (0, 2)), ((5, 7), (2, 1))]:
    lengths = [x for x in (s or r.shape)]
    got = await F.rfftn_async(r, s=s, axes=axes, backend="gpu")
    await check(f"rfftn s={s} axes={axes}", got, np.fft.rfftn(r.astype(np.float64), s=s, axes=axes), lengths)
    spectrum = np.fft.rfftn(r.astype(np.float64), s=s, axes=axes).astype(np.complex64)
    await check(f"irfftn s={s} axes={axes}", await F.irfftn_async(spectrum, s=s, axes=axes, backend="gpu"),
                np.fft.irfftn(spectrum.astype(np.complex128), s=s, axes=axes), lengths, np.float32)

# float32 and complex64 GpuArray inputs: every result a GpuArray (complex64, or float32)
r = rng.standard_normal((5, 24)).astype(np.float32)
g = await pycore.to_gpu_async(r)
rw = r.astype(np.float64)
await check("fft GpuArray", await F.fft_async(g, backend="gpu"), np.fft.fft(rw), [24], on_gpu_result=True)
await check("rfft GpuArray axis 0", await F.rfft_async(g, axis=0, backend="gpu"), np.fft.rfft(rw, axis=0),
            [5], on_gpu_result=True)
await check("fftn GpuArray view", await F.fftn_async(g.T, backend="gpu"), np.fft.fftn(rw.T), [24, 5],
            on_gpu_result=True)
zc = complex_data((4, 30))
gz = await pycore.to_gpu_async(zc)
await check("ifft complex64 GpuArray view", await F.ifft_async(gz[:, ::-2], backend="gpu"),
            np.fft.ifft(zc[:, ::-2].astype(np.complex128)), [15], on_gpu_result=True)
await check("hfft complex64 GpuArray", await F.hfft_async(gz, backend="gpu"),
            np.fft.hfft(zc.astype(np.complex128)), [58], np.float32, on_gpu_result=True)
await check("irfft GpuArray", await F.irfft_async(g, n=40, backend="gpu"), np.fft.irfft(rw, n=40), [40],
            np.float32, on_gpu_result=True)
await check("hfft GpuArray", await F.hfft_async(g, backend="gpu"), np.fft.hfft(rw), [46], np.float32,
            on_gpu_result=True)
# 64-bit inputs are narrowed first (the reference: NumPy on the narrowed values)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    z = rng.standard_normal(48) + 1j * rng.standard_normal(48)
    await check("fft complex128", await F.fft_async(z, backend="gpu"),
                np.fft.fft(z.astype(np.complex64).astype(np.complex128)), [48])
    d = rng.standard_normal(48)
    await check("rfft float64", await F.rfft_async(d, backend="gpu"),
                np.fft.rfft(d.astype(np.float32).astype(np.float64)), [48])
# fftshift on a GpuArray: a roll on the GPU
a = np.arange(10, dtype=np.float32).reshape(2, 5)
v = await F.fftshift_async(await pycore.to_gpu_async(a))
if not isinstance(v, GpuArray) or not np.array_equal(await v.to_numpy_async(), np.fft.fftshift(a)):
    failures.append("fftshift GpuArray")
g = v = gz = None  # (the worker is shared: later tests count the GPU memory in use)
{"failures": failures, "calls": counted[0], "worst": worst}
'''


def test_fft_kernels_match_numpy(gpu):
    r = gpu.py(FFT)
    assert r["failures"] == [], r["failures"][:20]
    assert r["calls"] > 250
