"""The n-d array core on WebGPU — in the browser (SwiftShader), natively (wgpu-py) and through the
browser transport on Dawn — against NumPy in the same target: every ufunc on every dtype pair with
broadcasting, views (strided, negative steps, transposed) and Python scalars as inputs; every
reduction over several axes, on views too, including the split path (segments and a pass over their
partials); GpuArray views read back, copies, astype, and the fixed-kernel ops on views. Each test
batches its cases into one snippet that returns the failures (a round trip costs a second or more).

The CPython suite (tests/unit/test_ndarray.py) checks the NumPy path against NumPy itself; here the
reference is NumPy computing in the dtype pycore's rules give, so any difference is the GPU's."""

from __future__ import annotations

# Shared by the snippets: the reference of a ufunc and how close a GPU result must be.
COMMON = '''
import math
from pycore.tables.ufuncs import UFUNCS, REDUCTIONS
from pycore.calls.gpuarray import GpuArray
EPS = float(np.finfo(np.float32).eps)
NARROW = {"float64": np.dtype(np.float32), "int64": np.dtype(np.int32), "uint64": np.dtype(np.uint32)}

def narrowed(d):
    return NARROW.get(d.name, d)

def refused(u, compute):
    """Whether pycore refuses inputs promoted to `compute` (TypeError)."""
    return ((u.takes in ("numeric", "int") and compute == bool)
            or (u.takes in ("integer", "int") and compute.kind == "f"))

def int_power(x, y):
    """pycore's integer powers: NumPy's, wrapping, and for a negative exponent the integer part of
    1 / x ** -y (1 for x = 1, ±1 for x = -1, else 0), which NumPy refuses."""
    x, y = np.broadcast_arrays(x, y)
    out = np.power(x, np.where(y < 0, 0, y)).astype(x.dtype)
    if y.dtype.kind == "i":
        odd = np.where(y % 2 == 1, -1, 1).astype(x.dtype)
        out = np.where(y < 0, np.where(x == 1, 1, np.where(x == -1, odd, 0)), out).astype(x.dtype)
    return out

def ufunc_ref(name, *xs):
    """(values, dtype, exact) of ufunc `name` on NumPy arrays and Python scalars as pycore defines it:
    NumPy 2's promotion narrowed to 32 bits, computed in that dtype (float32 for the float functions,
    bool for the logical ops); `exact`, for the functions with an error bound, NumPy's answer in
    float64 on the same inputs. (None, None, None) where pycore raises TypeError."""
    u = UFUNCS[name]
    promoted = narrowed(np.result_type(*[x.dtype if isinstance(x, np.ndarray) else x for x in xs]))
    compute = {"float": np.dtype(np.float32), "bool": np.dtype(bool)}.get(u.takes, promoted)
    if refused(u, compute):
        return None, None, None
    vals = [x.astype(compute) if isinstance(x, np.ndarray) else np.array(x).astype(compute) for x in xs]
    exact = None
    with np.errstate(all="ignore"):
        if name == "pow" and compute.kind in "iu":
            y = int_power(*vals)
        else:
            y = getattr(np, name)(*vals)  # (NumPy's divmod for floats; an integer divided by 0 gives 0)
        if u.ulps and compute.kind == "f":
            exact = getattr(np, name)(*[v.astype(AS_REFERENCE.get(name, np.float64)) for v in vals])
    out = np.dtype(bool) if u.gives == "bool" else compute
    return np.asarray(y).astype(out), out, exact

# floor_divide's reference is NumPy's float32 answer: in float64 a quotient just below an integer
# may round up to it, and its floor is then a whole unit off
AS_REFERENCE = {"floor_divide": np.float32}

def ulp_error(got, exact):
    """|got - exact| in float32 ULPs of the exact (float64) value: 0 where both are NaN, or the
    same infinity (float32's rounding of the exact value), or both below the normal range (a GPU may
    flush subnormals); inf where only one is NaN."""
    got, exact = got.astype(np.float64), np.asarray(exact, np.float64)
    with np.errstate(all="ignore"):
        same = (np.isnan(got) & np.isnan(exact)) | (got == exact.astype(np.float32))
        flushed = (np.abs(got) < 2.0**-126) & (np.abs(exact) < 2.0**-126)
        g = np.where(np.isinf(got), np.sign(got) * 2.0**128, got)
        r = np.clip(exact, -2.0**128, 2.0**128)
        unit = 2.0 ** (np.floor(np.log2(np.maximum(np.abs(r), 2.0**-126))) - 23)
        err = np.where(same | flushed, 0.0, np.abs(g - r) / unit)
    return np.where(np.isnan(got) != np.isnan(exact), np.inf, err)

def close(name, got, want, exact=None):
    """Exact (NaN where NumPy's is), except the functions with an error bound (`ulps`, or `atol`
    absolutely), against the float64 answer."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return False
    if exact is None:
        return bool(np.array_equal(got, want, equal_nan=got.dtype.kind == "f"))
    u = UFUNCS[name]
    with np.errstate(invalid="ignore"):
        near = np.abs(got.astype(np.float64) - exact) <= u.atol
    return bool(((ulp_error(got, exact) <= u.ulps) | near).all())

def on_gpu(got, traced=True):
    """A GpuArray on the GPU, computed there (`traced`: the last call's trace says webgpu)."""
    ran = not traced or (pycore.trace() or [{}])[-1].get("backend") == "webgpu"
    return isinstance(got, GpuArray) and got.device == "webgpu" and ran
'''

UFUNCS = '''
rng = np.random.default_rng(7)
def data(dt, shape):
    if dt == "float32":
        x = (rng.standard_normal(shape) * 4).astype(np.float32)
        specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 3.0], np.float32)
        x.reshape(-1)[: min(x.size, 6)] = specials[: min(x.size, 6)]
        return x
    if dt == "int32":
        return rng.integers(-9, 10, shape).astype(np.int32)
    if dt == "uint32":
        return rng.integers(0, 12, shape).astype(np.uint32)
    return rng.random(shape) < 0.5
DTS = ["float32", "int32", "uint32", "bool"]
failures, calls = [], 0

async def check(name, gpu_args, host_args, label):
    global calls
    calls += 1
    want, dtype, exact = ufunc_ref(name, *host_args)
    try:
        got = await getattr(pycore, f"{name}_async")(*gpu_args, backend="gpu")
    except TypeError as exc:
        if want is not None:
            failures.append(f"{label}: TypeError {exc}")
        return
    if want is None:
        failures.append(f"{label}: no TypeError for bool inputs")
        return
    if not on_gpu(got):
        failures.append(f"{label}: {got!r} on {pycore.trace()[-1]['backend']}")
        return
    value = await got.to_numpy_async()
    if got.dtype != dtype or not close(name, value, want, exact):
        failures.append(f"{label}: {got.dtype} (want {dtype}): {value.tolist()} != {want.tolist()}")
    got.release()

binary = [n for n, u in UFUNCS.items() if u.nin == 2]
for name in binary:
    for d1 in DTS:
        for d2 in DTS:  # every dtype pair broadcast as (4, 3) + (3,); same dtypes as (2, 1, 3) + (4, 1) too
            for s1, s2 in [((4, 3), (3,))] + ([((2, 1, 3), (4, 1))] if d1 == d2 else []):
                a, b = data(d1, s1), data(d2, s2)
                ta, tb = await pycore.to_gpu_async(a), await pycore.to_gpu_async(b)
                await check(name, (ta, tb), (a, b), f"{name}({d1}{s1}, {d2}{s2})")
    for d1, d2 in [("float32", "float32"), ("int32", "uint32"), ("bool", "bool")]:
        # strided, negative-step and transposed views as inputs (offsets, negative strides, broadcasts)
        a, b, c = data(d1, (3, 4)), data(d2, (7,)), data(d1, (4, 6))
        ta, tb, tc = [await pycore.to_gpu_async(v) for v in (a, b, c)]
        await check(name, (ta.T, tb[::-3]), (a.T, b[::-3]), f"{name}({d1}.T, {d2}[::-3])")
        await check(name, (tc[:, ::-2], ta.T), (c[:, ::-2], a.T), f"{name}({d1}[:, ::-2], {d1}.T)")
        await check(name, (tb[1:4][:, None], tc[1:, 1::2].T), (b[1:4][:, None], c[1:, 1::2].T),
                    f"{name}({d2}[1:4][:, None], {d1}[1:, 1::2].T)")
    for d in DTS:  # Python scalars, on either side
        x = data(d, (4, 3))
        t = await pycore.to_gpu_async(x)
        for s in (3, 2.5, True):
            await check(name, (t, s), (x, s), f"{name}({d}, {s!r})")
            await check(name, (s, t[::-1]), (s, x[::-1]), f"{name}({s!r}, {d}[::-1])")
for name in [n for n, u in UFUNCS.items() if u.nin == 1]:
    for d in DTS:
        x = data(d, (5, 4))
        t = await pycore.to_gpu_async(x)
        await check(name, (t,), (x,), f"{name}({d})")
        await check(name, (t.T[::-1],), (x.T[::-1],), f"{name}({d}.T[::-1])")
# integer wraparound, floor division and remainder signs, division by zero, unsigned order
IMAX, IMIN = 2**31 - 1, -(2**31)
edges = {
    "int32": (np.array([IMAX, IMIN, IMIN, IMIN, -7, 7, -7, 7, 0, 5, -5, 65536], np.int32),
              np.array([1, -1, 1, 3, 2, -2, -2, 2, 0, 0, 0, 65536], np.int32)),
    "uint32": (np.array([0, 2**32 - 1, 3_000_000_000, 7, 5, 2**31, 65536], np.uint32),
               np.array([1, 2, 1_000_000_000, 2, 0, 2**31 + 5, 65536], np.uint32)),
    # (no subnormals: a GPU may flush them to zero, as SwiftShader does)
    "float32": (np.array([6, -6, 1, -1, 7.5, -7.5, 0.75, 5, 1, 0.7, 1e30, -0.0, 1, -1, np.inf], np.float32),
                np.array([3, 3, -0.5, 0.25, 2.5, 2, -0.25, 0, 0.1, 0.1, 3, 3, np.inf, np.inf, 2], "f4")),
}
for dt, (a, b) in edges.items():
    ta, tb = await pycore.to_gpu_async(a), await pycore.to_gpu_async(b)
    for name in binary:
        await check(name, (ta, tb), (a, b), f"{name}(edges {dt})")
        await check(name, (ta[::-1], tb[::-1]), (a[::-1], b[::-1]), f"{name}(edges {dt}[::-1])")
# float floor division and remainder with quotients under 2^9 and just past (the kernel's integer
# path, and the general one): exact multiples, halfway points, the next float past a multiple,
# |a| < |b| and zeros of either sign
b = (rng.standard_normal(256) * 3).astype(np.float32)
k = rng.integers(-700, 700, 256).astype(np.float32)
a = np.concatenate([k * b, k * b + b / 2, np.nextafter(k * b, np.float32(np.inf)),
                    b * np.float32(0.75), -b * np.float32(0.3), b * np.float32(511.9),
                    b * np.float32(-512.1), b * 0]).astype(np.float32)
b = np.tile(b, 8)
ta, tb = await pycore.to_gpu_async(a), await pycore.to_gpu_async(b)
for name in ("floor_divide", "remainder"):
    await check(name, (ta, tb), (a, b), f"{name}(quotients under 2^9)")
    await check(name, (await pycore.to_gpu_async(-a), tb), (-a, b), f"{name}(-quotients under 2^9)")
# special values: every float input against every other
SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -3.0, 1e-30, -1e30, 3.4e38,
                    88.5, -104.0, 1e5, 0.75], np.float32)
ts = await pycore.to_gpu_async(SPECIAL)
for name, u in UFUNCS.items():
    if refused(u, np.dtype(np.float32)):
        continue
    if u.nin == 1:
        await check(name, (ts,), (SPECIAL,), f"{name}(specials)")
    else:
        await check(name, (ts[:, None], ts), (SPECIAL[:, None], SPECIAL), f"{name}(specials x specials)")
overflow = []
for args in [(await pycore.to_gpu_async(np.array([1], np.uint32)), -1),
             (await pycore.to_gpu_async(np.array([1], np.int32)), 2**31)]:
    try:
        await pycore.add_async(*args, backend="gpu")
    except OverflowError as exc:
        overflow.append(str(exc))
if len(overflow) != 2:
    failures.append(f"scalars out of range: {overflow}")
# the docstring examples, on the GPU
for entry in [*UFUNCS.values(), *REDUCTIONS.values()]:
    value = await eval(entry.example[:-1] + ', backend="gpu")')
    shown = eval(entry.shows, {"np": np, "array": np.array, "float32": np.float32, "int32": np.int32,
                               "inf": np.inf})
    if pycore.trace()[-1]["backend"] != "webgpu" or not (
            np.shape(value) == np.shape(shown) and np.allclose(value, shown, rtol=1e-6)
            and getattr(value, "dtype", None) == getattr(shown, "dtype", None)):
        failures.append(f"example of {entry.name}: {value!r} is not {entry.shows}")
{"failures": failures, "calls": calls}
'''

# The float functions over their domains (2^16 inputs each, spread over the exponents): the largest
# error in float32 ULPs against NumPy's float64, within the table's `ulps` (or `atol`).
ACCURACY = '''
rng = np.random.default_rng(3)
N = 1 << 16

def spread(lo, hi, n, signs=True):
    x = np.exp(rng.uniform(np.log(lo), np.log(hi), n))
    return x * rng.choice([-1, 1], n) if signs else x

def domain(name):
    if name in ("asin", "acos", "atanh"):
        x = np.concatenate([rng.uniform(-1, 1, N // 2), spread(1e-8, 1, N // 2)])
    elif name == "acosh":
        x = 1 + spread(1e-7, 1e30, N, signs=False)
    elif name in ("log", "log2", "log10", "sqrt", "reciprocal"):
        x = np.concatenate([spread(1e-37, 3e38, N // 2, signs=False), rng.uniform(0.5, 2, N // 2)])
    elif name == "log1p":
        x = np.concatenate([rng.uniform(-1, 1, N // 2), spread(1e-10, 1e30, N // 2)])
    elif name in ("exp", "expm1", "sinh", "cosh"):
        x = np.concatenate([rng.uniform(-89, 89, N // 2), spread(1e-8, 1, N // 2)])
    elif name in ("sin", "cos", "tan"):  # (past 2^16 the reduction is Payne and Hanek's)
        x = np.concatenate([rng.uniform(-10, 10, N // 2), spread(1e-6, 1e5, N // 4),
                            spread(1e5, 3e38, N // 4)])
    else:
        x = np.concatenate([rng.uniform(-3, 3, N // 2), spread(1e-30, 1e30, N // 2)])
    x = x.astype(np.float32)
    return np.where(np.abs(x) < 2.0**-126, np.float32(0), x)

errors, failures = {}, []
for name, u in UFUNCS.items():
    if not u.ulps:
        continue
    args = [domain(name)] if u.nin == 1 else [domain(name), domain(name)]
    if name == "pow":
        args[0] = np.concatenate([rng.uniform(0, 2, N // 2), spread(1e-20, 1e20, N // 2)]).astype(np.float32)
        args[1] = rng.uniform(-40, 40, N).astype(np.float32)
        args[1][::2] = np.round(args[1][::2])
    got = await getattr(pycore, f"{name}_async")(*[await pycore.to_gpu_async(a) for a in args], backend="gpu")
    got = await got.to_numpy_async()
    with np.errstate(all="ignore"):
        exact = getattr(np, name)(*[a.astype(AS_REFERENCE.get(name, np.float64)) for a in args])
        err = ulp_error(got, exact)
        err = np.where(np.abs(got.astype(np.float64) - exact) <= u.atol, 0.0, err)
    errors[name] = round(float(err.max()), 2)
    if err.max() > u.ulps:
        i = int(np.argmax(err))
        failures.append(f"{name}{tuple(float(a[i]) for a in args)} = {got[i]!r}, exact {exact[i]!r}: "
                        f"{err[i]:.3g} ULP > {u.ulps}")
{"errors": errors, "failures": failures}
'''

REDUCTIONS = '''
rng = np.random.default_rng(11)
def rdata(dt, shape):
    if dt == "float32":
        return (rng.standard_normal(shape) * 4).astype(np.float32)
    if dt == "int32":
        return rng.integers(-9, 10, shape).astype(np.int32)
    if dt == "uint32":
        return rng.integers(0, 12, shape).astype(np.uint32)
    return rng.random(shape) < 0.7

def reduction_ref(name, x, axis, keepdims, correction=0.0):
    """(NumPy's answer, exact or in float64; the result dtype; the tolerance): float sums within
    (log2 n + 16) eps32 sum|x|, exact for integers (they wrap alike), bools, max/min and arg*."""
    axes = (axis,) if isinstance(axis, int) else axis
    n = x.size if axis is None else math.prod(x.shape[a] for a in axes)
    grow = (math.log2(max(n, 2)) + 16) * EPS
    kw = {"axis": axis, "keepdims": keepdims}
    if name in ("sum", "prod"):
        acc = np.dtype(np.int32) if x.dtype == bool else x.dtype
        if acc.kind != "f":
            return getattr(np, name)(x, dtype=acc, **kw), acc, 0
        want = getattr(np, name)(x.astype(np.float64), **kw)
        scale = np.sum(np.abs(x.astype(np.float64)), **kw) if name == "sum" else np.abs(want) * n
        return want, acc, grow * scale
    if name in ("max", "min"):
        return getattr(np, name)(x, **kw), x.dtype, 0
    if name in ("all", "any"):
        return getattr(np, name)(x, **kw), np.dtype(bool), 0
    if name in ("argmax", "argmin"):
        return getattr(np, name)(x, **kw), np.dtype(np.int32), 0
    x64 = x.astype(np.float64)
    if name == "mean":
        return np.mean(x64, **kw), np.dtype(np.float32), grow * np.mean(np.abs(x64), **kw)
    var = np.var(x64, ddof=correction, **kw)
    tol = grow * var + 4 * EPS * np.mean(x64 ** 2, **kw) * (n / max(n - correction, 1))
    if name == "var":
        return var, np.dtype(np.float32), tol
    std = np.sqrt(var)
    return std, np.dtype(np.float32), np.where(var > 0, 0.5 * tol / np.where(var > 0, std, 1), np.sqrt(tol))

failures, calls = [], 0

async def rcheck(name, t, x, axis=None, keepdims=False, label="", **kw):
    global calls
    calls += 1
    want, dtype, tol = reduction_ref(name, x, axis, keepdims, **kw)
    got = await getattr(pycore, f"{name}_async")(t, axis=axis, keepdims=keepdims, backend="gpu", **kw)
    where = f"{name}({label} {x.dtype}{x.shape}, axis={axis}, keepdims={keepdims}, {kw})"
    if pycore.trace()[-1]["backend"] != "webgpu":
        failures.append(f"{where}: ran on {pycore.trace()[-1]['backend']}")
    if not on_gpu(got) or got.dtype != dtype:  # (a full reduction too: a 0-D GpuArray)
        failures.append(f"{where}: {got!r}, not a {dtype} GpuArray on the GPU")
        return
    value = await got.to_numpy_async()
    got.release()
    want = np.asarray(want)
    with np.errstate(invalid="ignore"):
        ok = value.shape == want.shape and (np.array_equal(value, want, equal_nan=True) or (
            np.array_equal(np.isnan(value), np.isnan(want))
            and bool(np.all(np.isnan(want) | (np.abs(value - want) <= tol)))))
    if not ok:
        failures.append(f"{where}: {value.ravel()[:6]} (shape {value.shape}) vs {want.ravel()[:6]} "
                        f"(shape {want.shape}), tolerance {np.max(tol)}")

AXES = [(None, False), (None, True), (0, False), (-1, True), ((0, 2), False), ((2, 0), True), ((1,), False)]
ARG_AXES = [(None, False), (None, True), (0, False), (-1, True), (1, False)]
for dt in SWEEP_DTYPES:  # every reduction, on a contiguous array, a transposed view and a sliced one
    base = rdata(dt, (6, 4, 10))
    t = await pycore.to_gpu_async(base)
    contiguous = base[:3, :, :5].copy()
    tc = await pycore.to_gpu_async(contiguous)
    views = [("contiguous", tc, contiguous),
             ("transposed", t.transpose(2, 0, 1)[:3], base.transpose(2, 0, 1)[:3]),
             ("sliced", t[::2, :, ::-2], base[::2, :, ::-2])]
    for name, r in REDUCTIONS.items():
        for label, tv, xv in views:
            for axis, keepdims in (ARG_AXES if r.arg else AXES):
                await rcheck(name, tv, xv, axis, keepdims, label)
            if r.two_pass:
                await rcheck(name, tv, xv, (0, 1), False, label, correction=1)
# the split path: long reductions with few outputs (segments, then a pass over their partials)
cols = rdata("float32", (8192, 64))
row = rdata("float32", (1, 300_000))
tcols, trow = await pycore.to_gpu_async(cols), await pycore.to_gpu_async(row)
for name in ["sum", "mean", "var", "std", "max", "min", "argmax", "argmin", "prod"]:
    if name != "prod":  # (a float product of 8192 normals is 0 or inf)
        await rcheck(name, tcols, cols, 0, False, "split")
        await rcheck(name, tcols.T, cols.T, 1, True, "split.T")
    await rcheck(name, trow, row, 1, False, "row")
    await rcheck(name, trow, row, None, False, "row")
await rcheck("var", tcols, cols, 0, False, "split", correction=1)
await rcheck("std", trow, row, None, False, "row", correction=1)
for dt, names in [("int32", ["sum", "prod", "max", "min", "argmin"]),
                  ("uint32", ["sum", "prod", "max", "argmax"]),
                  ("bool", ["sum", "all", "any", "max", "mean"])]:
    x = rdata(dt, (8192, 64))
    if dt == "bool":
        x[:, 3] = True  # a column that is all True
    tx = await pycore.to_gpu_async(x)
    for name in names:
        await rcheck(name, tx, x, 0, False, "split")
        await rcheck(name, tx[:, None, ::-3], x[:, None, ::-3], 0 if name.startswith("arg") else (0, 1), True,
                     "split view")
        await rcheck(name, tx.reshape(1, -1), x.reshape(1, -1), None, False, "flat")
# argmax / argmin: the first of ties, the first NaN; max and min: NaN wins
ties = np.array([[1, 5, 5, 0, 5], [np.nan, 2, np.nan, 9, 9], [3, 3, 3, 3, 3], [-1, np.nan, -1, -7, -7],
                 [-np.inf] * 5, [np.inf] * 5, [2, -np.nan, 2, np.nan, 4]], np.float32)
# (a row of -inf only, and one of inf: argmax's and argmin's starting values)
tt = await pycore.to_gpu_async(ties)
for name in ["argmax", "argmin", "max", "min", "any", "all"]:
    for axis in (None, 0, 1):
        await rcheck(name, tt, ties, axis, False, "ties")
        await rcheck(name, tt.T[::-1], ties.T[::-1], axis, False, "ties.T")
longrow = np.zeros((1, 300_000), np.float32)
longrow[0, [1000, 250_000]] = 7
longrow[0, [17, 290_000]] = -7
tl = await pycore.to_gpu_async(longrow)
for name in ["argmax", "argmin"]:
    await rcheck(name, tl, longrow, 1, False, "long ties")
longrow[0, [200_000, 299_999]] = np.nan
tl = await pycore.to_gpu_async(longrow)
for name in ["argmax", "argmin", "max"]:
    await rcheck(name, tl, longrow, None, False, "long NaN")
    await rcheck(name, tl, longrow, 1, True, "long NaN")
ints = np.array([[4, 9, 9, -2], [-2, -2, 0, 4]], np.int32)
for x in (ints, ints.astype(np.uint32) * 1_000_000_000):  # (uint32 past 2**31: unsigned order)
    tx = await pycore.to_gpu_async(x)
    for name in ["argmax", "argmin", "max", "min", "sum"]:
        for axis in (None, 0, 1):
            await rcheck(name, tx, x, axis, False, "int ties")
{"failures": failures, "calls": calls}
'''

ARRAYS = '''
failures = []
rng = np.random.default_rng(5)
x = rng.standard_normal((48, 64)).astype(np.float32)
w = rng.standard_normal((48, 32)).astype(np.float32)
t, tw = await pycore.to_gpu_async(x), await pycore.to_gpu_async(w)
tT = await t.T.copy_async()  # the contiguous copy of the view
if not (on_gpu(tT, traced=False) and tT.strides == (48, 1)
        and np.array_equal(await tT.to_numpy_async(), x.T)):
    failures.append(f"copy_async of .T: {tT!r} {tT.strides}")
# the fixed-kernel ops on a view equal the same on its contiguous copy
for name, on_view, on_copy in [
        ("relu", (t.T,), (tT,)), ("softmax", (t.T[::-1],), (await t.T[::-1].copy_async(),)),
        ("log_softmax", (t.T,), (tT,)), ("matmul", (t.T, tw), (tT, tw)),
        ("matmul", (tw.T, t[:, ::-1]), (await tw.T.copy_async(), await t[:, ::-1].copy_async()))]:
    got = await getattr(pycore, f"{name}_async")(*on_view, backend="gpu")
    if not on_gpu(got):
        failures.append(f"{name} on a view: {got!r} on {pycore.trace()[-1]['backend']}")
        continue
    want = await getattr(pycore, f"{name}_async")(*on_copy, backend="gpu")
    g, w = await got.to_numpy_async(), await want.to_numpy_async()
    # (a GPU may run rows read through strides with another kernel than contiguous ones, summing in
    # another order: the row-wise ops agree within rounding there, the others exactly)
    same = np.allclose(g, w, rtol=4 * EPS, atol=4 * EPS) if "softmax" in name else np.array_equal(g, w)
    if not same:
        failures.append(f"{name} on a view differs from {name} on its contiguous copy")
# to_numpy_async of views (negative strides, offsets, broadcasts), copy_async and astype_async, every dtype
for dt, base in [("float32", x), ("int32", rng.integers(-2**31, 2**31 - 1, (48, 64)).astype(np.int32)),
                 ("uint32", rng.integers(0, 2**32 - 1, (48, 64), dtype=np.uint64).astype(np.uint32)),
                 ("bool", rng.random((48, 64)) < 0.5)]:
    tb = await pycore.to_gpu_async(base)
    if tb.dtype != base.dtype or tb.device != "webgpu":
        failures.append(f"to_gpu {dt}: {tb!r}")
    for key in [(), (slice(None, None, -1),), (slice(3, 40, 5), slice(None, None, -7)), (Ellipsis, 5),
                (slice(None, None, -2), None, slice(60, 2, -3)), (7, slice(None, None, -1)), (-1, -1)]:
        for label, view, want in [("", tb[key], base[key]), (".T", tb.T[key], base.T[key])]:
            got = await view.to_numpy_async()
            if got.dtype != base.dtype or got.shape != np.shape(want) or not np.array_equal(got, want):
                failures.append(f"to_numpy_async of {dt}{label}[{key}]")
    views = [("broadcast", tb[3, ::-4].broadcast_to((3, 16)), np.broadcast_to(base[3, ::-4], (3, 16))),
             ("reshape.mT", tb.reshape(4, 12, 64)[1:, :, ::-1].mT,
              base.reshape(4, 12, 64)[1:, :, ::-1].swapaxes(-1, -2)),
             ("expand.squeeze", tb[::-5].expand_dims(1).squeeze(), base[::-5])]
    for label, view, want in views:
        if not np.array_equal(await view.to_numpy_async(), want):
            failures.append(f"to_numpy_async of {dt} {label}")
    c = await tb[::-3, 5:].copy_async()
    if not on_gpu(c, traced=False) or c.dtype != base.dtype or c.strides != (59, 1) or not np.array_equal(
            await c.to_numpy_async(), base[::-3, 5:]):
        failures.append(f"copy_async of {dt}[::-3, 5:]: {c!r} {c.strides}")
    # astype as NumPy's (floats truncate toward 0, nonzero is True); floats kept in range of the target
    src = base if dt != "float32" else np.clip(base * 100, -1e6, 1e6)
    for target in ["float32", "int32", "uint32", "bool"]:
        if dt == "float32" and target == "uint32":
            src_t = np.abs(src)
        else:
            src_t = src
        ts = await pycore.to_gpu_async(src_t)
        a = await ts.T[::-1].astype_async(target)
        got = await a.to_numpy_async()
        want = src_t.T[::-1].astype(target)
        if dt in ("int32", "uint32") and target == "float32":  # WGSL rounds an inexact one either way
            exact = src_t.T[::-1].astype(np.float64)
            same = bool(np.all(np.abs(got - exact) < np.spacing(np.abs(want))))
        else:
            same = bool(np.array_equal(got, want))
        if not on_gpu(a, traced=False) or a.dtype != np.dtype(target) or a.strides != (48, 1) or not same:
            failures.append(f"astype {dt} -> {target}: {a!r} {got.ravel()[:4]} vs {want.ravel()[:4]}")
special = await pycore.to_gpu_async(np.array([np.nan, -0.0, 0.0, np.inf, -1e-40], np.float32))
as_bool = await (await special.astype_async(bool)).to_numpy_async()
if as_bool.tolist() != [True, False, False, True, True]:  # NaN is nonzero (tested on the bits)
    failures.append(f"astype(bool) of NaN, -0.0, 0.0, inf, a denormal: {as_bool.tolist()}")
failures
'''

# The kernels the planners choose for the other kind of adapter (the CI adapters are all CPU ones:
# a thread per output; GPUs: workgroups that share a row), grids split over y with workgroups past
# the last segment, and element-wise outputs written in chunks of a small binding.
OTHER_PLANS = '''
import ast
import dataclasses
from pycore.engine import executor
from pycore.engine.runtime import RUNTIME
dev = RUNTIME.device
facts = executor.facts(dev)
failures = []
try:
    executor._facts[id(dev)] = (dev, dataclasses.replace(facts, cpu_adapter=not facts.cpu_adapter))
    SWEEP_DTYPES = ["float32", "int32"]
    sweep = eval(compile(REDUCTIONS_SNIPPET, "<reductions>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT))
    if sweep is not None:
        await sweep  # (it sets failures and calls anew)
    other = {"failures": failures, "calls": calls}
    failures = []
    # (a GPU's plan of axis 1 takes 512 workgroups: more than 10, within 32 x 32)
    executor._facts[id(dev)] = (dev, dataclasses.replace(facts, max_groups=32))
    x = rng.integers(1, 5, (4096, 40)).astype(np.int32)
    tx = await pycore.to_gpu_async(x)
    for axis in (0, 1):
        got = await (await pycore.sum_async(tx, axis=axis, backend="gpu")).to_numpy_async()
        if not np.array_equal(got, x.sum(axis=axis, dtype=np.int32)):
            failures.append(f"sum over axis {axis} with a grid split over y: wrong at "
                            f"{np.nonzero(got != x.sum(axis=axis, dtype=np.int32))[0][:5].tolist()}")
    a = np.arange(300, dtype=np.float32).reshape(300, 1)
    b = np.arange(200, dtype=np.float32)[::-1]
    ta, tb = await pycore.to_gpu_async(a), await pycore.to_gpu_async(b.copy())
    for limits in ({"max_groups": 10}, {"max_binding": 4096}):
        executor._facts[id(dev)] = (dev, dataclasses.replace(facts, **limits))
        got = await pycore.multiply_async(ta, tb, backend="gpu")
        if not on_gpu(got) or not np.array_equal(await got.to_numpy_async(), a * b):
            failures.append(f"multiply (300, 1) x (200,) with {limits}")
finally:
    executor._facts[id(dev)] = (dev, facts)
{"other_adapter": other, "limits": failures}
'''


def test_every_ufunc_on_every_dtype_matches_numpy(gpu):
    r = gpu.py(COMMON + UFUNCS)
    assert r["failures"] == [], r["failures"][:20]
    assert r["calls"] > 1000


def test_float_functions_are_within_their_error_bounds(gpu):
    r = gpu.py(COMMON + ACCURACY)
    print("largest errors in ULP:", r["errors"])
    assert r["failures"] == [], r["failures"]
    assert len(r["errors"]) > 20


def test_every_reduction_over_axes_and_views_matches_numpy(gpu):
    r = gpu.py(COMMON + 'SWEEP_DTYPES = ["float32", "int32", "uint32", "bool"]\n' + REDUCTIONS)
    assert r["failures"] == [], r["failures"][:20]
    assert r["calls"] > 1000


def test_the_other_adapters_plans_and_small_limits_compute_the_same(gpu):
    r = gpu.py(COMMON + f"REDUCTIONS_SNIPPET = {REDUCTIONS!r}\n" + OTHER_PLANS)
    assert r["other_adapter"]["failures"] == [], r["other_adapter"]["failures"][:20]
    assert r["other_adapter"]["calls"] > 500
    assert r["limits"] == []


def test_views_copies_astype_and_fixed_ops_on_views(gpu):
    failures = gpu.py(COMMON + ARRAYS)
    assert failures == [], failures


def test_on_the_numpy_fallback_page(fallback_page):
    r = fallback_page.py("""
x = np.arange(12, dtype=np.float32).reshape(3, 4)
t = await pycore.to_gpu_async(x)
added = await pycore.add_async(t.T, np.array([10, 20, 30], np.int32))
less = await pycore.less_async([[1], [5]], np.array([2.0, 6.0], np.float32))
summed = await pycore.sum_async(t[:, ::-1], axis=0, keepdims=True)
arg = await pycore.argmax_async(np.array([[1, 7, 7], [9, 0, 9]], np.int32), axis=1)
{"added": [type(added).__name__, added.device, added.dtype.name, (await added.to_numpy_async()).tolist()],
 "less": [type(less).__name__, less.tolist()],
 "summed": [type(summed).__name__, summed.shape, (await summed.to_numpy_async()).tolist()],
 "arg": [arg.dtype.name, arg.tolist()], "var": await pycore.var_async(x, correction=1),
 "backends": [e["backend"] for e in pycore.trace()[-5:]]}
""")
    x = [[float(4 * i + j) for j in range(4)] for i in range(3)]
    assert r["added"] == ["GpuArray", "numpy", "float32", [[x[i][j] + 10 * (i + 1) for i in range(3)]
                                                           for j in range(4)]]
    assert r["less"] == ["ndarray", [[True, True], [False, True]]]
    assert r["summed"] == ["GpuArray", [1, 4], [[21.0, 18.0, 15.0, 12.0]]]
    assert r["arg"] == ["int32", [1, 0]] and abs(r["var"] - 13.0) < 1e-5
    assert r["backends"] == ["numpy"] * 5


TILED_AND_INT_MATMUL = """
from pycore.engine.executor import _plans
rng = np.random.default_rng(11)
bad = []
def check(name, got, want):
    if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
        bad.append((name, str(got.dtype), str(want.dtype), list(got.shape), list(want.shape)))
# transposed inputs of at least a tile (32 x 32) each way run the tiled kernel
for shape in [(64, 48), (33, 70), (3, 40, 36)]:
    a = rng.standard_normal(shape).astype(np.float32)
    b = rng.integers(-50, 50, shape[:-2] + shape[:-3:-1]).astype(np.int32)
    A, B = await pycore.to_gpu_async(a), await pycore.to_gpu_async(b)
    Bt = B.mT if B.ndim == 3 else B.T
    bt = np.swapaxes(b, -1, -2)
    summed = await pycore.add_async(A, Bt, backend="gpu")  # (int32 with float32: float32)
    check(f"add {shape}", await summed.to_numpy_async(), (a + bt).astype(np.float32))
    less = await pycore.less_async(Bt, 0.5, backend="gpu")
    check(f"less {shape}", await less.to_numpy_async(), bt < 0.5)
    check(f"copy {shape}", await (await Bt.copy_async()).to_numpy_async(), np.ascontiguousarray(bt))
    most = await pycore.maximum_async(Bt, Bt[..., ::-1, :], backend="gpu")
    check(f"max {shape}", await most.to_numpy_async(), np.maximum(bt, bt[..., ::-1, :]))
tiled = sorted({s.kernel.name.split("(")[0] for p in _plans.values() for s in p.steps
                if s.kernel.entry == "tiled"})
# integer matmul: exact, wrapping, through strides, batch axes broadcast, 1-D operands
for sa, sb, dt in [((6, 5, 4), (4, 3), "int32"), ((4,), (2, 4, 5), "int32"),
                   ((2, 1, 3, 4), (5, 4, 2), "uint32"), ((7, 9), (9,), "int32")]:
    a = rng.integers(-1000, 1000, sa).astype(dt)
    b = rng.integers(-1000, 1000, sb).astype(dt)
    A, B = await pycore.to_gpu_async(a), await pycore.to_gpu_async(b)
    check(f"matmul {sa} {sb}", await (await pycore.matmul_async(A, B, backend="gpu")).to_numpy_async(), a @ b)
    check(f"matmul host {sa} {sb}", await pycore.matmul_async(a, b, backend="gpu"), a @ b)
big = np.full((2, 3), 2**20, np.int32)
check("matmul wraps", await pycore.matmul_async(big, big.T, backend="gpu"), big @ big.T)
m = rng.integers(-9, 9, (6, 4)).astype(np.int32)
M = await pycore.to_gpu_async(m)
mtm = await pycore.matmul_async(M.T, M, backend="gpu")
check("matmul of a transposed view", await mtm.to_numpy_async(), m.T @ m)
{"bad": bad, "tiled": tiled, "backend": pycore.trace()[-1]["backend"]}
"""


def test_transposed_inputs_run_tiled_and_integer_matmul_is_exact(gpu):
    r = gpu.py(TILED_AND_INT_MATMUL)
    assert r["bad"] == [], r
    assert {"tiled:add_f32", "tiled:less_f32", "tiled:copy_i32", "tiled:maximum_i32"} <= set(r["tiled"]), r
    assert r["backend"] == "webgpu"


def test_softmax_reads_views_through_their_strides_along_any_axis(gpu):
    # the generated kernel, whatever the axis and the view (no copy first), against float64
    r = gpu.py('''
rng = np.random.default_rng(7)
x = (rng.standard_normal((6, 40, 33)) * 30).astype(np.float32)
t = await pycore.to_gpu_async(x)
ints = rng.integers(-50, 50, (9, 7)).astype(np.int32)
bad = []

def ref(name, v, axis):
    v = v.astype(np.float64)
    s = v - v.max(axis=axis, keepdims=True)
    lse = np.log(np.exp(s).sum(axis=axis, keepdims=True))
    return np.exp(s - lse) if name == "softmax" else s - lse

views = [(t, x), (t[:, ::-3, 1:].mT, x[:, ::-3, 1:].swapaxes(-1, -2)), (t[2, 5:], x[2, 5:]),
         (await pycore.to_gpu_async(ints), ints)]
from pycore.calls.programs import PROGRAMS
kernels = set()
for tree in (None, True):  # (True: the GPU's kernels, a workgroup per row or rows side by side, anywhere)
    PROGRAMS["rowwise"].tree = tree
    for view, host in views:
        for axis in range(-view.ndim, view.ndim):
            for name in ("softmax", "log_softmax"):
                got = await getattr(pycore, name + "_async")(view, axis=axis, backend="gpu")
                ops = [e["op"] for e in pycore.trace()[-1:] if e["backend"] == "webgpu"]
                value = await got.to_numpy_async()
                err = float(np.abs(value - ref(name, host, axis)).max())
                if ops != [name] or got.dtype != np.float32 or value.shape != host.shape or err > 2e-5 * 60:
                    bad.append((tree, view.shape, view.strides, axis, name, ops, err))
PROGRAMS["rowwise"].tree = None
kernels = sorted({e.split(":")[0] for f, e in pycore.engine.runtime.RUNTIME.device.pipelines if "rows:" in e})
{"bad": bad, "kernels": kernels}
''')
    assert r["bad"] == []
    assert {"rows_tree", "rows_side"} <= set(r["kernels"]), r["kernels"]
