"""The Array API namespace's kernels (shaders/place.wgsl through pycore/kernels/place.py) on WebGPU —
in the browser (SwiftShader), natively (wgpu-py) and on Dawn — against NumPy in the same target:
creation on device="gpu", and every function that moves data on GpuArrays and their views (offsets,
negative and transposed strides), each dtype. The CPython suite (tests/unit/test_namespace.py) checks
the same plans on a model of the kernel; here the kernels themselves run. One snippet per target."""

from __future__ import annotations

NAMESPACE = '''
from pycore.calls.gpuarray import GpuArray
rng = np.random.default_rng(3)
def data(dt, shape):
    if dt == "float32":
        return (rng.standard_normal(shape) * 4).astype(np.float32)
    if dt == "int32":
        return rng.integers(-9, 10, shape).astype(np.int32)
    if dt == "uint32":
        return rng.integers(0, 12, shape).astype(np.uint32)
    return rng.random(shape) < 0.5
failures, calls = [], 0

async def check(label, got, want, close=False):
    global calls
    calls += 1
    if not (isinstance(got, GpuArray) and got.device == "webgpu"):
        failures.append(f"{label}: {got!r} is not on the GPU")
        return
    value = await got.to_numpy_async()
    want = np.asarray(want)
    same = (np.allclose(value, want, rtol=4e-7, atol=1e-6) if close
            else np.array_equal(value, want, equal_nan=True))
    ok = value.shape == want.shape and value.dtype == want.dtype and same
    if not ok:
        failures.append(f"{label}: {value.dtype}{value.shape} {value.tolist()} != {want.dtype}{want.shape} "
                        f"{want.tolist()}")

for dt in ["float32", "int32", "uint32", "bool"]:
    fill = {"float32": -2.5, "int32": -3, "uint32": 7, "bool": True}[dt]
    await check(f"full {dt}", await pycore.full_async((3, 5), fill, dtype=dt, device="gpu"),
                np.full((3, 5), fill, dt))
    await check(f"zeros {dt}", await pycore.zeros_async(4, dtype=dt, device="gpu"), np.zeros(4, dt))
    for n, m, k in [(3, 5, 1), (4, 2, -1), (3, 3, 0)]:
        await check(f"eye {n} {m} {k} {dt}", await pycore.eye_async(n, m, k=k, dtype=dt, device="gpu"),
                    np.eye(n, m, k, dtype=dt))
    x = data(dt, (3, 4, 5))
    t = await pycore.to_gpu_async(x)
    u = await pycore.to_gpu_async(data("uint32", (3, 4, 5)))
    await check(f"ones_like {dt}", await pycore.ones_like_async(t), np.ones_like(x))
    views = {"x": (t, x), "x.T": (t.T, x.T), "x[::-1, 1:, ::2]": (t[::-1, 1:, ::2], x[::-1, 1:, ::2])}
    for label, (v, h) in views.items():
        for axis in (0, -1):
            await check(f"concat {label} {axis} {dt}", await pycore.concat_async([v, v[::-1]], axis=axis),
                        np.concatenate([h, h[::-1]], axis=axis))
            await check(f"stack {label} {axis} {dt}", await pycore.stack_async([v, v], axis=axis),
                        np.stack([h, h], axis=axis))
            await check(f"roll {label} {axis} {dt}", await pycore.roll_async(v, 2, axis=axis),
                        np.roll(h, 2, axis=axis))
            await check(f"repeat {label} {axis} {dt}", await pycore.repeat_async(v, 2, axis=axis),
                        np.repeat(h, 2, axis=axis))
            counts = np.array([2, 0, 1, 1, 3][:h.shape[axis]])
            await check(f"repeat counts {label} {axis} {dt}", await pycore.repeat_async(v, counts, axis=axis),
                        np.repeat(h, counts, axis=axis))
        await check(f"concat None {label} {dt}", await pycore.concat_async([v, v], axis=None),
                    np.concatenate([h.reshape(-1)] * 2))
        await check(f"roll None {label} {dt}", await pycore.roll_async(v, -7), np.roll(h, -7))
        await check(f"roll 2 axes {label} {dt}", await pycore.roll_async(v, (1, 3), axis=(0, 2)),
                    np.roll(h, (1, 3), axis=(0, 2)))
        await check(f"tile {label} {dt}", await pycore.tile_async(v, (2, 1, 2)), np.tile(h, (2, 1, 2)))
        await check(f"tril {label} {dt}", await pycore.tril_async(v, k=-1), np.tril(h, -1))
        await check(f"triu {label} {dt}", await pycore.triu_async(v, k=1), np.triu(h, 1))
        await check(f"reshape {label} {dt}", await pycore.reshape_async(v, (-1,)), h.reshape(-1))
        for to in ["float32", "int32", "uint32", "bool"]:
            if (dt, to) == ("float32", "uint32"):  # (negative floats: undefined in NumPy, 0 in WGSL)
                continue
            await check(f"astype {label} {dt}->{to}", await pycore.astype_async(v, to), h.astype(to))
    await check(f"concat {dt}+uint32", await pycore.concat_async([t, u], axis=1),
                np.concatenate([x, await u.to_numpy_async()], 1).astype(pycore.result_type(t, u)))
    await check(f"concat {dt}+host", await pycore.concat_async([t, x[:1]]), np.concatenate([x, x[:1]]))
    flipped = await pycore.flip_async(t, axis=(0, 2))
    await check(f"flip {dt}", await pycore.astype_async(flipped, dt), np.flip(x, (0, 2)))
for args in [(7,), (2, 11, 3), (10, 0, -3)]:
    await check(f"arange {args}", await pycore.arange_async(*args, device="gpu"),
                np.arange(*args, dtype=np.int32))
await check("arange uint32", await pycore.arange_async(6, 0, -2, dtype="uint32", device="gpu"),
            np.arange(6, 0, -2).astype(np.uint32))
await check("arange float", await pycore.arange_async(0.5, 3.0, 0.25, device="gpu"),
            np.arange(0.5, 3.0, 0.25, dtype=np.float32), close=True)
for start, stop, num, endpoint in [(0, 1, 5, True), (0, 1, 5, False), (-2.5, 7, 1001, True)]:
    got = await pycore.linspace_async(start, stop, num, endpoint=endpoint, device="gpu")
    await check(f"linspace {start} {stop} {num} {endpoint}", got,
                np.linspace(start, stop, num, endpoint=endpoint, dtype=np.float32), close=True)
# more than one workgroup per row, and a region over a reversed view
big = await pycore.reshape_async(await pycore.arange_async(300_000, device="gpu"), (300, 1000))
want = np.arange(300_000, dtype=np.int32).reshape(300, 1000)
await check("big concat", await pycore.concat_async([big, big[:, ::-1]], axis=1),
            np.concatenate([want, want[:, ::-1]], 1))
{"failures": failures, "calls": calls}
'''


def test_creation_and_manipulation_kernels_match_numpy(gpu):
    r = gpu.py(NAMESPACE)
    assert r["failures"] == [], r["failures"][:20]
    assert r["calls"] > 250


def test_the_readme_tour_runs_as_shown(gpu):
    import inspect

    from tests.unit.test_tour import replay_async, tour

    snippet = f"import ast, asyncio, re\n{inspect.getsource(replay_async)}\nawait replay_async({tour()!r})\n"
    assert gpu.py(snippet) == []
