"""The sort kernels (shaders/sort.wgsl, shaders/search.wgsl through pycore/kernels/sort.py) on WebGPU —
in the browser (SwiftShader), natively (wgpu-py) and on Dawn — against NumPy in the same target:
the radix sort over many tiles (40k elements, many ties, NaN, -0.0), batched short rows (the
bitonic kernel) and long ones along strided and reversed axes, each dtype, ascending and
descending (stable), searchsorted and the unique functions. One snippet per target."""

from __future__ import annotations

SORTING = '''
from pycore.calls.gpuarray import GpuArray
rng = np.random.default_rng(5)
def data(dt, shape, wide=False):
    if dt == "float32":
        x = rng.integers(-50, 50, shape).astype(np.float32) * 0.5
        if wide:
            x = (rng.standard_normal(shape) * 1e6).astype(np.float32)
        x[rng.random(shape) < 0.05] = np.nan
        x[rng.random(shape) < 0.05] = -0.0
        x[rng.random(shape) < 0.02] = -np.inf
        return x
    if dt == "int32":
        if wide:
            return rng.integers(-2**31, 2**31 - 1, shape, dtype=np.int64).astype(np.int32)
        return rng.integers(-20, 20, shape).astype(np.int32)
    if dt == "uint32":
        return rng.integers(0, 2**32 - 1 if wide else 30, shape, dtype=np.int64).astype(np.uint32)
    return rng.random(shape) < 0.5

def argsorted(h, axis, descending):
    if not descending:
        return np.argsort(h, axis=axis, kind="stable").astype(np.int32)
    back = np.flip(np.argsort(np.flip(h, axis), axis=axis, kind="stable"), axis)
    return (h.shape[axis] - 1 - back).astype(np.int32)

failures, calls = [], 0

async def check(label, got, want):
    global calls
    calls += 1
    if not (isinstance(got, GpuArray) and got.device == "webgpu"):
        failures.append(f"{label}: {got!r} is not on the GPU")
        return
    value = await got.to_numpy_async()
    want = np.asarray(want)
    # (bits, so -0.0 is not 0.0; every NaN as one: a GPU's arithmetic may give its own NaN's bits)
    def as_bits(v):
        return np.where(np.isnan(v), 0x7FC00000, v.view(np.uint32)) if v.dtype == np.float32 else v
    bits, wbits = as_bits(value), as_bits(want)
    if value.shape != want.shape or value.dtype != want.dtype or not np.array_equal(bits, wbits):
        bad = np.flatnonzero(bits.reshape(-1) != wbits.reshape(-1))[:5] if value.shape == want.shape else []
        failures.append(f"{label}: {value.dtype}{value.shape} != {want.dtype}{want.shape} at {bad}")

async def signless(g):
    """g with -0.0 as 0.0 (float32: adding 0.0 on the GPU), other dtypes as they are."""
    return await pycore.add_async(g, 0.0) if g.dtype == np.float32 else g

def signless_host(h):
    return h + np.float32(0.0) if h.dtype == np.float32 else h

async def both(label, v, h, axis, descending):
    order = argsorted(h, axis, descending)
    await check(f"argsort {label}", await pycore.argsort_async(v, axis=axis, descending=descending), order)
    await check(f"sort {label}", await pycore.sort_async(v, axis=axis, descending=descending),
                np.take_along_axis(h, order.astype(np.intp), axis))

for dt in ["float32", "int32", "uint32", "bool"]:
    for wide in (False, True):
        n = 40_000 if dt == "float32" else 12_000  # (ten tiles of the radix sort, and three)
        x = data(dt, n, wide)
        t = await pycore.to_gpu_async(x)
        for descending in (False, True):
            await both(f"{n} {dt} wide={wide} desc={descending}", t, x, 0, descending)
    x = data(dt, (40, 3, 37))
    t = await pycore.to_gpu_async(x)
    views = {"x": (t, x), "x.T": (t.T, x.T), "x[::-1, 1:, ::2]": (t[::-1, 1:, ::2], x[::-1, 1:, ::2])}
    for label, (v, h) in views.items():
        for axis in (0, 1, -1):
            await both(f"short rows {label} axis={axis} {dt}", v, h, axis, axis == 1)
    x = data(dt, (5000, 3))
    t = await pycore.to_gpu_async(x)
    for axis, descending in ((0, False), (0, True)):
        await both(f"long rows strided {dt} desc={descending}", t, x, axis, descending)
        await both(f"long rows reversed {dt} desc={descending}", t[::-1], x[::-1], axis, descending)
    x = data(dt, (2, 1500, 2))
    await both(f"long rows middle axis {dt}", await pycore.to_gpu_async(x), x, 1, False)

for dt in ["float32", "int32", "uint32"]:
    x1 = np.sort(data(dt, 3000))
    x2 = data(dt, (40, 30))
    g1, g2 = await pycore.to_gpu_async(x1), await pycore.to_gpu_async(x2)
    for side in ("left", "right"):
        await check(f"searchsorted {dt} {side}", await pycore.searchsorted_async(g1, g2, side=side),
                    np.searchsorted(x1, x2, side=side).astype(np.int32))
        got = await pycore.searchsorted_async(g1[::2], g2.T, side=side)
        want = np.searchsorted(x1[::2], x2.T, side=side).astype(np.int32)
        await check(f"searchsorted {dt} {side} view", got, want)
        raw = data(dt, 3000)
        sorter = np.argsort(raw, kind="stable").astype(np.int32)
        got = await pycore.searchsorted_async(await pycore.to_gpu_async(raw), g2, side=side,
                                              sorter=await pycore.to_gpu_async(sorter))
        await check(f"searchsorted {dt} {side} sorter", got,
                    np.searchsorted(raw, x2, side=side, sorter=sorter).astype(np.int32))

for dt in ["float32", "int32", "bool"]:
    x = data(dt, (300, 20))
    t = await pycore.to_gpu_async(x)
    values, indices, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                                 return_counts=True, equal_nan=False)
    got = await pycore.unique_all_async(t)
    # (-0.0 and 0.0 are one value, either of them: NumPy's unique sorts unstably; compared as 0.0)
    await check(f"unique_all values {dt}", await signless(got.values), signless_host(values))
    await check(f"unique_all indices {dt}", got.indices, indices.astype(np.int32))
    await check(f"unique_all inverse {dt}", got.inverse_indices, inverse.reshape(x.shape).astype(np.int32))
    await check(f"unique_all counts {dt}", got.counts, counts.astype(np.int32))
    await check(f"unique_values {dt}", await signless(await pycore.unique_values_async(t.T)),
                signless_host(np.unique(x.T, equal_nan=False)))
# nonzero (a count read back, a stable argsort of the zero flags, coordinates by division) and
# isin (x2 sorted, a binary search per element of x1)
for dt in ["float32", "int32", "uint32", "bool"]:
    x = data(dt, (40, 70))
    t = await pycore.to_gpu_async(x)
    for label, view, h in [("", t, x), (" view", t.T[::-1, 3:], x.T[::-1, 3:])]:
        got = await pycore.nonzero_async(view)
        want = np.nonzero(h)
        if len(got) != 2:
            failures.append(f"nonzero {dt}{label}: {len(got)} arrays")
        for axis, (g, w) in enumerate(zip(got, want)):
            await check(f"nonzero {dt}{label} axis {axis}", g, w.astype(np.int32))
    zeros = await pycore.to_gpu_async(np.zeros(5, x.dtype))
    (none,) = await pycore.nonzero_async(zeros)
    await check(f"nonzero {dt} of zeros", none, np.zeros(0, np.int32))
    pool = data(dt, 500)
    for invert in (False, True):
        got = await pycore.isin_async(t, await pycore.to_gpu_async(pool), invert=invert)
        await check(f"isin {dt} invert={invert}", got, np.isin(x, pool, invert=invert))
{"failures": failures, "calls": calls}
'''


def test_sort_kernels_match_numpy(gpu):
    r = gpu.py(SORTING)
    assert r["failures"] == [], r["failures"][:20]
    assert r["calls"] > 170
