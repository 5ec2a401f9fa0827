"""The packed dtypes (int8, int16, uint8, uint16, float16: several elements to a u32 word) on
WebGPU — in the browser (SwiftShader), natively (wgpu-py) and on Dawn — against the same calls on
host arrays in the same target (NumPy's answer, computed in the 32-bit form and rounded once, as
pycore's dtypes.py says):

- float16 conversions bit for bit: every one of the 65,536 float16 patterns to float32 (and copied
  unchanged), and float32
  values at the rounding edges (ties, subnormals, the overflow threshold 65520, NaN) to float16;
- every element-wise function on packed arrays, their views (offsets inside a word, negative and
  transposed strides, broadcasting), Python scalars and mixed dtypes (int8 with uint8 is int16);
  integers exactly, float16 within one float16 ULP of the host's (the GPU's float32 functions
  have their own ULPs before the rounding);
- reductions over each axis, and every other namespace function that takes arrays (creation,
  manipulation, selection, sorting, linalg's GPU ones), each dtype.
One snippet per target and part."""

from __future__ import annotations

COMMON = '''
from pycore.calls.gpuarray import GpuArray
rng = np.random.default_rng(11)
PACKED = ["int8", "uint8", "int16", "uint16", "float16"]
ULPS = 32  # how far a float result may be from the host's, in ULPs of the result's dtype
failures, calls = [], 0

def data(dt, shape):
    dt = np.dtype(dt)
    if dt.kind == "f":
        x = (rng.standard_normal(shape) * 4).astype(dt)
        x.ravel()[::11] = np.nan
        x.ravel()[3::13] = -0.0
        return x
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    lo, hi = (-60, 60) if dt.kind == "i" else (0, 120)
    return rng.integers(lo, hi, shape).astype(dt)

async def host(v):
    if isinstance(v, GpuArray):
        return await v.to_numpy_async()
    if isinstance(v, tuple) and hasattr(v, "_fields"):
        return type(v)(*[await host(e) for e in v])
    if isinstance(v, (tuple, list)):
        return type(v)([await host(e) for e in v])
    return v

def differ(got, want, floor=0.0):
    """Why got (read from the GPU) is not want (the host's), or None; `floor`: an absolute error
    allowed besides the ULPs."""
    if isinstance(want, (tuple, list)):
        if not isinstance(got, (tuple, list)) or len(got) != len(want):
            return f"{type(got).__name__} of {len(got)} != {type(want).__name__} of {len(want)}"
        return next((d for d in (differ(g, w, floor) for g, w in zip(got, want)) if d), None)
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"{got.dtype}{got.shape} != {want.dtype}{want.shape}"
    if got.dtype.kind == "f":
        # within ULPS of the host's value, subnormals as zero: the host is NumPy on this CPU (its
        # float32 exp, tan and pairwise sums differ by a few ULPs between AVX2 and AVX-512 code)
        # and a GPU may flush subnormal results to zero (WGSL allows it)
        g, w = got.astype(np.float64), want.astype(np.float64)
        ulp = np.spacing(np.abs(want).astype(got.dtype)).astype(np.float64)
        tiny = float(np.finfo(got.dtype).tiny)
        flushed = (np.abs(g) < tiny) & (np.abs(w) < tiny)
        bad = ~((np.isnan(g) & np.isnan(w)) | (g == w) | flushed | (np.abs(g - w) <= ULPS * ulp + floor))
    else:
        bad = got != want
    if bad.any():
        at = np.argwhere(bad)[0]
        first = tuple(int(i) for i in at)
        return f"{int(bad.sum())} differ, first at {first}: {got[first]} != {want[first]}"
    return None

def on_gpu(v):
    if isinstance(v, (tuple, list)):
        return all(map(on_gpu, v))
    return isinstance(v, GpuArray) and v.device == "webgpu"

async def compare(label, gpu_call, host_call, floor=0.0):
    global calls
    calls += 1
    try:
        want = await host_call()
    except Exception as exc:
        want = exc
    try:
        got = await gpu_call()
    except Exception as exc:
        if not (isinstance(want, Exception) and type(want) is type(exc)):
            failures.append(f"{label}: raised {type(exc).__name__}: {exc}")
        return
    if isinstance(want, Exception):
        failures.append(f"{label}: gave a result where the host raised {type(want).__name__}: {want}")
        return
    if not on_gpu(got):
        failures.append(f"{label}: the result is not on the GPU")
        return
    why = differ(await host(got), want, floor)
    if why:
        failures.append(f"{label}: {why}")
'''

CONVERSIONS = COMMON + '''
bits = np.arange(65536, dtype=np.uint32).astype(np.uint16)
halves = bits.view(np.float16)
wide = await (await pycore.to_gpu_async(halves)).astype_async("float32")
got = await wide.to_numpy_async()
want = halves.astype(np.float32)
same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
if not same.all():
    failures.append(f"float16 -> float32: {int((~same).sum())} patterns differ, first {bits[~same][:4]}")
copied = await (await (await pycore.to_gpu_async(halves)).copy_async()).to_numpy_async()
if not np.array_equal(copied.view(np.uint16), bits):  # (a copy keeps every pattern: NaN payloads too)
    failures.append(f"float16 copy: {int((copied.view(np.uint16) != bits).sum())} patterns changed")
edges = [0.0, -0.0, 1.0, 65504.0, 65519.0, 65519.996, 65520.0, 65536.0, 1e6, np.inf, -np.inf, np.nan,
         2.0**-14, 2.0**-24, 2.0**-25, 2.0**-25 * 1.0001, 3 * 2.0**-25, 2.0**-26, 1e-30, 6.1e-5,
         1 + 2.0**-11, 1 + 3 * 2.0**-11, 1 + 2.0**-11 + 2.0**-20, 2049.0, 2051.0, -2051.0, 0.1, -7.3]
floats = np.concatenate([np.array(edges, np.float32), (rng.standard_normal(4000) * 1e3).astype(np.float32),
                         (rng.standard_normal(4000) * 1e-5).astype(np.float32),
                         np.float32(2.0) ** rng.integers(-30, 17, 2000).astype(np.float32)])
narrow = await (await pycore.to_gpu_async(floats)).astype_async("float16")
got = await narrow.to_numpy_async()
with np.errstate(over="ignore"):
    want = floats.astype(np.float16)
same = (got.view(np.uint16) == want.view(np.uint16)) | (np.isnan(got) & np.isnan(want))
if not same.all():
    failures.append(f"float32 -> float16: {int((~same).sum())} differ: {floats[~same][:4]} gave "
                    f"{got[~same][:4]}, NumPy {want[~same][:4]}")
calls += 2
for dt in PACKED:  # every length's last word, and offsets inside a word
    for n in (1, 2, 3, 5, 7, 1027):
        calls += 6
        x = data(dt, (n,))
        t = await pycore.to_gpu_async(x)
        for label, v, h in (("x", t, x), ("x[1:]", t[1:], x[1:]), ("x[::-3]", t[::-3], x[::-3])):
            why = differ(await v.to_numpy_async(), h)
            if why:
                failures.append(f"read {dt}[{n}] {label}: {why}")
            why = differ(await (await v.copy_async()).to_numpy_async(), h)
            if why:
                failures.append(f"copy {dt}[{n}] {label}: {why}")
# float16 results of exp and log come from the hardware's builtins (elementwise.py HALF_RESULTS):
# every float16 input within one float16 ULP of NumPy's, infinities, zeros and NaNs exactly
g = await pycore.to_gpu_async(halves)
for name in ("exp", "log"):
    calls += 1
    got = (await (await getattr(pycore, name + "_async")(g)).to_numpy_async()).astype(np.float64)
    with np.errstate(all="ignore"):
        want16 = getattr(np, name)(halves)
    want = want16.astype(np.float64)
    with np.errstate(invalid="ignore"):
        near = np.abs(got - want) <= np.spacing(np.abs(want16)).astype(np.float64)
    same = (got == want) | (np.isnan(got) & np.isnan(want)) | (np.isfinite(want) & (want != 0) & near)
    if not same.all():
        failures.append(f"{name} float16: {int((~same).sum())} inputs off, first {halves[~same][:4]} gave "
                        f"{got[~same][:4]}, NumPy {want[~same][:4]}")
t = u = v = gx = gy = gv = wide = narrow = g = None  # (the worker is shared: its GPU memory is counted)
[failures, calls]
'''

UFUNCS = COMMON + '''
from pycore.tables.ufuncs import UFUNCS
SCALARS = {"i": -3, "u": 5, "f": 2.5}
PAIRS = [("int8", "uint8"), ("int8", "int16"), ("uint8", "uint16"), ("uint16", "int16"),
         ("int8", "float16"), ("uint16", "float16"), ("float16", "float32"), ("int8", "int32"),
         ("uint8", "float32"), ("bool", "int8")]
for dt in PACKED:
    x, y = data(dt, (6, 9)), data(dt, (9,))
    if np.dtype(dt).kind != "f":
        y = np.where(y == 0, 1, y).astype(dt)  # (shift counts and divisors: small)
    t, u = await pycore.to_gpu_async(x), await pycore.to_gpu_async(y)
    views = {"x": (t, x), "x[1:, ::-2].T": (t[1:, ::-2].T, x[1:, ::-2].T)}
    for name, fn in UFUNCS.items():
        call = getattr(pycore, name + "_async")
        for label, (v, h) in views.items():
            if fn.nin == 1:
                args = [((v,), (h,))]
            elif label == "x":
                args = [((v, u), (h, y)), ((SCALARS[np.dtype(dt).kind], v), (SCALARS[np.dtype(dt).kind], h))]
            else:  # (a broadcast row of y)
                args = [((v, u[:5]), (h, y[:5]))]
            for gargs, hargs in args:
                await compare(f"{name} {dt} {label} {[type(a).__name__ for a in hargs]}",
                              lambda: call(*gargs), lambda: call(*hargs))
for a, b in PAIRS:
    x, y = data(a, (5, 7)), data(b, (7,))
    t, u = await pycore.to_gpu_async(x), await pycore.to_gpu_async(y)
    for name in ["add", "multiply", "subtract", "maximum", "less", "equal", "divide"]:
        call = getattr(pycore, name + "_async")
        await compare(f"{name} {a} {b}", lambda: call(t, u), lambda: call(x, y))
t = u = v = gx = gy = gv = wide = narrow = g = None  # (the worker is shared: its GPU memory is counted)
[failures, calls]
'''

NAMESPACE = COMMON + '''
P = pycore
for d in PACKED:
    dt = np.dtype(d)
    x, y = data(d, (23, 17)), data(d, (23, 17))
    if dt.kind == "f":
        x, y = np.nan_to_num(x), np.nan_to_num(y)  # (sorting and unique: NaNs have tests of their own)
    v = np.sort(data(d, (40,)))
    idx, idx2 = rng.integers(0, 23, 9).astype(np.int32), rng.integers(0, 17, (23, 4)).astype(np.int32)
    cond = rng.random((23, 17)) < 0.5
    gx, gy, gv = [await P.to_gpu_async(a) for a in (x, y, v)]
    calls_ = {
        "zeros": lambda X, Y, V, dev: P.zeros_async((5, 3), dtype=d, device=dev),
        "full": lambda X, Y, V, dev: P.full_async((5, 3), 7, dtype=d, device=dev),
        "arange": lambda X, Y, V, dev: P.arange_async(0, 20, 3, dtype=d, device=dev),
        "eye": lambda X, Y, V, dev: P.eye_async(4, 5, k=1, dtype=d, device=dev),
        "ones_like": lambda X, Y, V, dev: P.ones_like_async(X),
        "full_like": lambda X, Y, V, dev: P.full_like_async(X, 5),
        "tril": lambda X, Y, V, dev: P.tril_async(X, k=-1),
        "triu": lambda X, Y, V, dev: P.triu_async(X),
        "meshgrid": lambda X, Y, V, dev: P.meshgrid_async(V, V[:5]),
        "reshape": lambda X, Y, V, dev: P.reshape_async(X, (17, 23)),
        "reshape of x.T": lambda X, Y, V, dev: P.reshape_async(P.matrix_transpose(X), (-1,)),
        "concat": lambda X, Y, V, dev: P.concat_async([X, Y[:, :5]], axis=1),
        "stack": lambda X, Y, V, dev: P.stack_async([X, Y], axis=1),
        "flip": lambda X, Y, V, dev: P.flip_async(X),
        "roll": lambda X, Y, V, dev: P.roll_async(X, 3),
        "roll axis 1": lambda X, Y, V, dev: P.roll_async(X, 2, axis=1),
        "tile": lambda X, Y, V, dev: P.tile_async(X, (2, 1)),
        "repeat": lambda X, Y, V, dev: P.repeat_async(X, 2, axis=0),
        "broadcast_to": lambda X, Y, V, dev: P.broadcast_to_async(X[:1], (3, 17)),
        "unstack": lambda X, Y, V, dev: P.unstack_async(X[:3]),
        "astype float32": lambda X, Y, V, dev: P.astype_async(X, "float32"),
        "astype int8": lambda X, Y, V, dev: P.astype_async(X, "int8"),
        "astype float16": lambda X, Y, V, dev: P.astype_async(X, "float16"),
        "where": lambda X, Y, V, dev: P.where_async(cond, X, Y),
        "where scalar": lambda X, Y, V, dev: P.where_async(cond, X, 1),
        "clip": lambda X, Y, V, dev: P.clip_async(X, 1, 5),
        "take": lambda X, Y, V, dev: P.take_async(X, idx, axis=0),
        "take_along_axis": lambda X, Y, V, dev: P.take_along_axis_async(X, idx2, axis=1),
        "cumulative_sum": lambda X, Y, V, dev: P.cumulative_sum_async(X, axis=1),
        "cumulative_sum axis 0": lambda X, Y, V, dev: P.cumulative_sum_async(X, axis=0),
        "cumulative_prod": lambda X, Y, V, dev: P.cumulative_prod_async(X[:, :3], axis=1),
        "diff": lambda X, Y, V, dev: P.diff_async(X, axis=1),
        "count_nonzero": lambda X, Y, V, dev: P.count_nonzero_async(X, axis=0),
        "sort": lambda X, Y, V, dev: P.sort_async(X, axis=1),
        "sort descending": lambda X, Y, V, dev: P.sort_async(X, axis=0, descending=True),
        "argsort": lambda X, Y, V, dev: P.argsort_async(X, axis=1),
        "searchsorted": lambda X, Y, V, dev: P.searchsorted_async(V, X),
        "unique_all": lambda X, Y, V, dev: P.unique_all_async(X),
        "nonzero": lambda X, Y, V, dev: P.nonzero_async(X),
        "isin": lambda X, Y, V, dev: P.isin_async(X, Y),
        "tensordot": lambda X, Y, V, dev: P.tensordot_async(X, Y, axes=([1], [1])),
        "vecdot": lambda X, Y, V, dev: P.vecdot_async(X, Y),
        "matmul": lambda X, Y, V, dev: P.matmul_async(X, P.matrix_transpose(Y)),
        "softmax": lambda X, Y, V, dev: P.softmax_async(X, axis=1),
        "outer": lambda X, Y, V, dev: P.linalg.outer_async(V, V),
        "vector_norm": lambda X, Y, V, dev: P.linalg.vector_norm_async(X, axis=1),
        "imag": lambda X, Y, V, dev: P.imag_async(X),
    }
    for name, call in calls_.items():  # (softmax's tails, ~1e-20 of a row's largest: within float32's eps)
        await compare(f"{name} {d}", lambda: call(gx, gy, gv, "gpu"), lambda: call(x, y, v, "cpu"),
                      float(np.finfo(np.float32).eps) if name == "softmax" else 0.0)
    for r in ["sum", "prod", "max", "min", "mean", "var", "std", "argmax", "argmin", "any", "all"]:
        fn = getattr(P, r + "_async")
        for axis in [0, 1, (0, 1)]:
            for label, (g, h) in {"x": (gx, x), "x[::2, 1:]": (gx[::2, 1:], x[::2, 1:])}.items():
                if r in ("argmax", "argmin") and isinstance(axis, tuple):
                    continue
                await compare(f"{r} {d} {label} axis {axis}", lambda: fn(g, axis=axis, keepdims=True),
                              lambda: fn(h, axis=axis, keepdims=True))
    if dt.itemsize == 2:  # rows of even length: 16-bit elements read a word (two of them) at a time
        e = data(d, (3, 12, 2 * 700))
        ge = await P.to_gpu_async(e)
        for r in ["sum", "prod", "max", "min", "mean", "var", "std", "argmax"]:
            fn = getattr(P, r + "_async")
            for axis in [-1, (1, 2), None]:
                if r == "argmax" and axis == (1, 2):
                    continue
                await compare(f"{r} {d} even rows axis {axis}", lambda: fn(ge, axis=axis),
                              lambda: fn(e, axis=axis))
        # the last axis kept and even: a thread reduces two neighbouring columns from each word
        for r in ["sum", "prod", "max", "min", "mean", "var", "std"]:
            fn = getattr(P, r + "_async")
            for axis in [0, (0, 1)]:
                for label, (g, h) in {"e": (ge, e), "e[:, 2:, 2:]": (ge[:, 2:, 2:], e[:, 2:, 2:])}.items():
                    await compare(f"{r} {d} {label} even columns axis {axis}", lambda: fn(g, axis=axis),
                                  lambda: fn(h, axis=axis))
t = u = v = gx = gy = gv = wide = narrow = g = None  # (the worker is shared: its GPU memory is counted)
[failures, calls]
'''


def _check(gpu, snippet: str) -> None:
    failures, calls = gpu.py(snippet)
    assert calls > 10
    assert not failures, f"{len(failures)} of {calls} failed:\n" + "\n".join(failures[:40])


def test_float16_conversions_and_packed_reads_are_exact(gpu):
    _check(gpu, CONVERSIONS)


def test_every_element_wise_function_on_packed_dtypes_matches_the_host(gpu):
    _check(gpu, UFUNCS)


def test_namespace_functions_and_reductions_on_packed_dtypes_match_the_host(gpu):
    _check(gpu, NAMESPACE)
