"""The selection, indexing and cumulative functions' kernels (shaders/gather.wgsl through
pycore/kernels/gather.py, shaders/scan.wgsl through pycore/kernels/scan.py) on WebGPU — in the
browser (SwiftShader), natively (wgpu-py) and on Dawn — against NumPy in the same target: where,
clip, take and take_along_axis on GpuArrays and their views (offsets, negative and transposed
strides, broadcasting), each dtype; the scans along each axis, in one block and in several
(the three passes), integers exactly, float32 sums against float64 within the stated bound. One
snippet per target."""

from __future__ import annotations

SELECTION = '''
from pycore.calls.gpuarray import GpuArray
rng = np.random.default_rng(5)
def data(dt, shape):
    if dt == "float32":
        x = (rng.standard_normal(shape) * 4).astype(np.float32)
        x.ravel()[::7] = np.nan
        return x
    if dt == "int32":
        return rng.integers(-9, 10, shape).astype(np.int32)
    if dt == "uint32":
        return rng.integers(0, 12, shape).astype(np.uint32)
    return rng.random(shape) < 0.5
failures, calls = [], 0

async def check(label, got, want):
    global calls
    calls += 1
    if not (isinstance(got, GpuArray) and got.device == "webgpu"):
        failures.append(f"{label}: {got!r} is not on the GPU")
        return
    value = await got.to_numpy_async()
    want = np.asarray(want)
    alike = value.shape == want.shape and value.dtype == want.dtype
    if not (alike and np.array_equal(value, want, equal_nan=True)):
        failures.append(f"{label}: {value.dtype}{value.shape} {value.ravel()[:8].tolist()} != "
                        f"{want.dtype}{want.shape} {want.ravel()[:8].tolist()}")

for dt in ["float32", "int32", "uint32", "bool"]:
    x = data(dt, (3, 4, 5))
    t = await pycore.to_gpu_async(x)
    views = {"x": (t, x), "x.T": (t.T, x.T), "x[::-1, 1:, ::2]": (t[::-1, 1:, ::2], x[::-1, 1:, ::2])}
    for label, (v, h) in views.items():
        cond = rng.random(h.shape[1:]) < 0.5
        other = data(dt, h.shape[-1:])
        on_gpu = await pycore.to_gpu_async(cond)
        await check(f"where {label} {dt}", await pycore.where_async(on_gpu, v, other),
                    np.where(cond, h, other))
        scalar = {"float32": 2.5, "int32": -2, "uint32": 3, "bool": True}[dt]
        await check(f"where scalar {label} {dt}", await pycore.where_async(cond, scalar, v),
                    np.where(cond, np.array(scalar, h.dtype), h))
        if dt != "bool":
            lo, hi = (1, 6) if dt != "float32" else (-1.5, 2.5)
            await check(f"clip {label} {dt}", await pycore.clip_async(v, lo, hi),
                        np.minimum(np.maximum(h, h.dtype.type(lo)), h.dtype.type(hi)))
            bound = data(dt, h.shape[-1:])
            await check(f"clip array max {label} {dt}", await pycore.clip_async(v, max=bound),
                        np.minimum(h, bound))
            await check(f"clip array min {label} {dt}",
                        await pycore.clip_async(v, min=await pycore.to_gpu_async(bound)),
                        np.maximum(h, bound))
        for axis in range(3):
            n = h.shape[axis]
            idx = rng.integers(-n, n, (2, 3)).astype(np.int32)
            await check(f"take {label} {axis} {dt}", await pycore.take_async(v, idx, axis=axis),
                        np.take(h, idx, axis=axis))
            shape = tuple(4 if d == axis else m for d, m in enumerate(h.shape))
            along = rng.integers(0, n, shape).astype(np.uint32)
            await check(f"take_along_axis {label} {axis} {dt}",
                        await pycore.take_along_axis_async(v, await pycore.to_gpu_async(along), axis=axis),
                        np.take_along_axis(h, along.astype(np.int64), axis=axis))
# indices on the GPU out of range are clamped (documented), negative ones count from the end
far = await pycore.to_gpu_async(np.array([7, -1, -9], np.int32))
three = await pycore.to_gpu_async(np.array([1, 2, 3], np.int32))
await check("take clamps", await pycore.take_async(three, far),
            np.array([3, 3, 1], np.int32))
clipped = await pycore.clip_async(await pycore.to_gpu_async(np.array([np.nan, 1, 5], np.float32)),
                                  await pycore.to_gpu_async(np.array([0, np.nan, 0], np.float32)), 2.0)
await check("clip NaN", clipped, np.array([np.nan, np.nan, 2], np.float32))

# the scans: a thread per row, one block, several blocks (reduce, carry, down)
for shape in [(5, 7), (3, 2500), (2, 9000), (70, 40), (40000,)]:
    xi = data("int32", shape)
    ti = await pycore.to_gpu_async(xi)
    for axis in range(len(shape)):
        for incl in (False, True):
            await check(f"cumulative_sum {shape} {axis} {incl}",
                        await pycore.cumulative_sum_async(ti, axis=axis, include_initial=incl),
                        np.cumulative_sum(xi, axis=axis, include_initial=incl, dtype=np.int32))
            await check(f"cumulative_prod {shape} {axis} {incl}",
                        await pycore.cumulative_prod_async(ti.T if len(shape) > 1 else ti, axis=axis,
                                                           include_initial=incl),
                        np.cumulative_prod(xi.T, axis=axis, include_initial=incl, dtype=np.int32))
# rows of more than BLOCK block totals (BLOCK = 2048 elements): chunks of totals, a workgroup each
xl = data("int32", (2, 2048 * 2048 + 7))
await check("cumulative_sum of rows in chunks",
            await pycore.cumulative_sum_async(await pycore.to_gpu_async(xl), axis=1),
            np.cumulative_sum(xl, axis=1, dtype=np.int32))
xu = data("uint32", (3000,))
await check("cumulative_sum uint32 -> float32",
            await pycore.cumulative_sum_async(await pycore.to_gpu_async(xu), dtype="float32"),
            np.cumsum(xu, dtype=np.float32))
for n in (1000, 100_000, 2048 * 2048 + 5000):  # (reversed: scalar loads; contiguous: vec4s)
    xf = rng.standard_normal(n).astype(np.float32)
    for how, view in (("reversed", xf[::-1]), ("contiguous", xf)):
        got = await (await pycore.cumulative_sum_async(await pycore.to_gpu_async(view))).to_numpy_async()
        exact = np.cumsum(view.astype(np.float64))
        scale = np.cumsum(np.abs(view.astype(np.float64)))
        bound = (np.log2(n) + 16) * np.finfo(np.float32).eps * scale
        calls += 1
        if got.dtype != np.float32 or not np.all(np.abs(got - exact) <= bound):
            failures.append(f"cumulative_sum float32 {how} {n}: error {np.max(np.abs(got - exact) / scale)}")
# rows of whole vec4s from an offset view (each row's start a multiple of 4), int32 exactly
xr = data("int32", (3, 2 * 2048 + 8))
await check("cumulative_sum of rows of vec4s from an offset",
            await pycore.cumulative_sum_async((await pycore.to_gpu_async(xr))[1:, 4:], axis=1),
            np.cumulative_sum(xr[1:, 4:], axis=1, dtype=np.int32))
d = await pycore.to_gpu_async(data("int32", (4, 6)))
await check("diff", await pycore.diff_async(d, n=2, prepend=0),
            np.diff(await d.to_numpy_async(), 2, prepend=0).astype(np.int32))
await check("count_nonzero", await pycore.count_nonzero_async(t, axis=(0, 2)),
            np.count_nonzero(x, axis=(0, 2)).astype(np.int32))
{"failures": failures, "calls": calls}
'''


def test_selection_and_scan_kernels_match_numpy(gpu):
    r = gpu.py(SELECTION)
    assert r["failures"] == [], r["failures"][:20]
    assert r["calls"] > 150
