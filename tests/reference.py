"""Float64 references, tolerances and test cases for every op in pycore.OPS.

Plain NumPy, no pytest: the same module runs under CPython (the NumPy path) and inside the page
(loaded into Pyodide by the end-to-end tests, on WebGPU and on the fallback), and
scripts/error_table.py uses it to measure the worst-case error per op.

Tolerances, against a float64 reference computed from the float32 inputs:
  exact      equal after rounding the reference to float32 (relu, clip, scale by a power of two,
             add, sub, mul, max, min). WGSL lets a GPU flush subnormals to zero, so where the
             reference or the result is subnormal, the other may be a zero.
  onnx       |err| <= 1e-3 or |err| <= 1e-5 |ref| (ONNX Runtime Web's WebGPU bar).
  sum(L)     |err| <= 1e-6 + (log2 L + 16) eps32 sum|terms|: tree and pairwise sums of L terms.
  seq(L)     |err| <= 1e-6 + L eps32 sum|terms|: sequential dot products of length L (matmul,
             convolution).
In every mode NaN must pair with NaN and infinities must match exactly, sign included.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

EPS32 = float(np.finfo(np.float32).eps)
TINY32 = float(np.finfo(np.float32).tiny)  # smallest normal float32

EDGE = np.array([0.0, -0.0, 1e-40, -1e-40, 1.0, -1.0, 0.5, -2.5, 44.0, -44.0, 89.0, -89.0,
                 1e4, -1e4, np.nan, np.inf, -np.inf], dtype=np.float32)
FINITE_EDGE = EDGE[np.isfinite(EDGE)]
SIZES = [1, 7, 256, 1000, 65_537]
BIG = 16_777_300  # past 65,535 workgroups of 256 (16,776,960 elements): needs the 2-D dispatch


def _sigmoid(x):
    with np.errstate(over="ignore"):
        return np.where(x >= 0, 1 / (1 + np.exp(-x)), np.exp(x) / (1 + np.exp(x)))


def _gated(x, s):  # x * s with the limit 0 at x = -inf
    with np.errstate(invalid="ignore"):
        return np.where(np.isneginf(x), 0.0, x * s)


def _gelu_tanh(x):
    with np.errstate(over="ignore", invalid="ignore"):
        return _gated(x, 0.5 * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))))


def _gelu_erf(x):
    erf = np.vectorize(math.erf, otypes=[np.float64])  # test code: clarity over speed
    return _gated(x, 0.5 * (1 + erf(x / math.sqrt(2))))


def _softmax(x):
    m = np.max(x, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore"):
        e = np.exp(x - m)
        return e / e.sum(axis=-1, keepdims=True)


def _log_softmax(x):
    m = np.max(x, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


def _conv_full(image, kernel):
    """The full 2-D convolution by its definition, over the image padded with zeros: one shifted,
    scaled copy of the padded image per kernel entry (so a non-finite kernel entry that meets the
    padding gives NaN, 0 * inf, as SciPy's and NumPy's zero padding does)."""
    (h, w), (kh, kw) = image.shape, kernel.shape
    padded = np.pad(image, ((kh - 1, kh - 1), (kw - 1, kw - 1)))
    out = np.zeros((h + kh - 1, w + kw - 1))
    for i in range(kh):
        for j in range(kw):
            top, left = kh - 1 - i, kw - 1 - j
            out += kernel[i, j] * padded[top:top + h + kh - 1, left:left + w + kw - 1]
    return out


def _conv(image, kernel, mode="valid"):
    (h, w), (kh, kw) = image.shape, kernel.shape
    full = _conv_full(image, kernel)
    if mode == "same":
        top, left = (kh - 1) // 2, (kw - 1) // 2
        return full[top:top + h, left:left + w]
    return full[kh - 1:h, kw - 1:w]


def _conv_abs(image, kernel, mode="valid"):
    return _conv(np.abs(image), np.abs(kernel), mode)


# op -> (float64 reference, tolerance mode, sum|terms| function for the bounded modes)
REFERENCES: dict[str, tuple[Any, str]] = {
    "relu": (lambda x: np.maximum(x, 0), "exact"),
    "leaky_relu": (lambda x, alpha: np.where(x < 0, alpha * x, x), "onnx"),
    "elu": (lambda x, alpha: np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0))), "onnx"),
    "sigmoid": (_sigmoid, "onnx"),
    "tanh": (np.tanh, "onnx"),
    "swish": (lambda x: _gated(x, _sigmoid(x)), "onnx"),
    "gelu": (lambda x, approximate: _gelu_tanh(x) if approximate else _gelu_erf(x), "onnx"),
    "clip": (lambda x, min, max: np.clip(x, min, max), "exact"),  # noqa: A006
    "scale": (lambda x, s: x * s, "exact"),  # cases use powers of two
    "vec_add": (np.add, "exact"),
    "vec_sub": (np.subtract, "exact"),
    "vec_mul": (np.multiply, "exact"),
    "softmax": (_softmax, "onnx"),
    "log_softmax": (_log_softmax, "onnx"),
    "sum": (lambda x: np.sum(x), "sum"),
    "max": (lambda x: np.max(x), "exact"),
    "min": (lambda x: np.min(x), "exact"),
    "dot": (lambda a, b: np.sum(a * b), "sum"),
    "matmul": (np.matmul, "seq"),
    "convolve2d": (_conv, "seq"),
}


def _terms(op: str, inputs: list[np.ndarray], params: dict) -> tuple[Any, int]:
    """(sum of |terms| per output, reduction length L) for the bounded modes."""
    a = [np.abs(x) for x in inputs]
    if op == "sum":
        return np.sum(a[0]), max(inputs[0].size, 1)
    if op == "dot":
        return np.sum(a[0] * a[1]), max(inputs[0].size, 1)
    if op == "matmul":
        return a[0] @ a[1], max(inputs[0].shape[1], 1)
    if op == "convolve2d":
        return _conv_abs(*inputs, **params), inputs[1].size
    raise KeyError(op)


@dataclass
class Report:
    ok: bool
    max_abs: float = 0.0  # exact ops: against the reference rounded to float32
    max_rel: float = 0.0  # where |reference| is a normal float32 (>= 1.2e-38)
    used: float = 0.0  # the largest share of the tolerance any element used (<= 1 passes)
    problems: list[str] = field(default_factory=list)


def compare(op: str, got: Any, inputs: list[np.ndarray], params: dict) -> Report:
    """Check pycore's result for `op` against the float64 reference, as the module doc says.

    WGSL lets a GPU flush subnormal inputs to zero, so an element also passes when it matches the
    reference computed from the inputs with their subnormals flushed."""
    with np.errstate(all="ignore"):  # inf/NaN arithmetic below is intended
        x32 = [np.asarray(x, np.float32) for x in inputs]
        got = np.asarray(got)
        ref = _reference(op, x32, params)
        if got.shape != ref.shape:
            return Report(False, problems=[f"shape {got.shape} != {ref.shape}"])
        g = got.astype(np.float64)
        bad, kinds, used = _bad(op, g, ref, x32, params)
        if any(np.any((np.abs(x) < TINY32) & (x != 0)) for x in x32):
            flushed = [np.where(np.abs(x) < TINY32, np.float32(0), x) for x in x32]
            bad_ftz, _, used_ftz = _bad(op, g, _reference(op, flushed, params), flushed, params)
            bad = bad & bad_ftz
            used = np.minimum(used, used_ftz)
        rep = Report(ok=not np.any(bad))
        if got.dtype != np.float32 and got.shape != ():
            rep.ok = False
            rep.problems.append(f"dtype {got.dtype} is not float32")
        for kind, mask in kinds.items():
            hit = np.atleast_1d(mask & bad)
            if np.any(hit):
                where = int(np.flatnonzero(hit)[0])
                got_v, want_v = np.atleast_1d(g).flat[where], np.atleast_1d(ref).flat[where]
                rep.problems.append(f"{kind} at {int(hit.sum())} places, e.g. got {got_v!r} want {want_v!r}")
        target = ref.astype(np.float32).astype(np.float64) if REFERENCES[op][1] == "exact" else ref
        fin = np.atleast_1d(np.isfinite(g) & np.isfinite(target))
        err = np.atleast_1d(np.abs(g - target))
        refa = np.atleast_1d(np.abs(target))
        if np.any(fin):
            rep.max_abs = float(err[fin].max())
            normal = fin & (refa >= TINY32)
            rep.max_rel = float(np.max(err[normal] / refa[normal])) if np.any(normal) else 0.0
            rep.used = float(np.max(np.atleast_1d(used)[fin]))
        return rep


def _reference(op: str, x32: list[np.ndarray], params: dict) -> np.ndarray:
    return np.asarray(REFERENCES[op][0](*[x.astype(np.float64) for x in x32], **params), dtype=np.float64)


def _bad(op, g, ref, x32, params):
    """Per-element failure mask, and which rule each failure broke."""
    mode = REFERENCES[op][1]
    r32 = ref.astype(np.float32).astype(np.float64)  # the reference rounded to float32
    nan_ref, nan_got = np.isnan(ref), np.isnan(g)
    nan_bad = nan_ref != nan_got
    inf_bad = (np.isinf(g) | np.isinf(r32)) & ~nan_ref & ~nan_got & (g != r32)
    fin = ~nan_ref & ~nan_got & np.isfinite(r32) & np.isfinite(g)
    err = np.abs(g - ref)
    if mode == "exact":
        tiny = (np.abs(r32) < TINY32) & (np.abs(g) < TINY32)  # flushed subnormal outputs
        val_bad = fin & (g != r32) & ~tiny
        used = np.where(val_bad, np.inf, 0.0)
        rule = "not exact"
    elif mode == "onnx":
        used = np.minimum(err / 1e-3, err / np.maximum(1e-5 * np.abs(ref), 1e-300))
        val_bad = fin & (used > 1)
        rule = "beyond 1e-3 abs / 1e-5 rel"
    else:
        terms, length = _terms(op, [x.astype(np.float64) for x in x32], params)
        factor = (math.log2(length) + 16) if mode == "sum" else length
        used = err / (1e-6 + factor * EPS32 * np.asarray(terms))
        val_bad = fin & (used > 1)
        rule = f"beyond the length-{length} error bound"
    kinds = {"NaN mismatch": nan_bad, "infinity mismatch": inf_bad, rule: val_bad}
    return nan_bad | inf_bad | val_bad, kinds, np.where(fin, used, 0.0)


@dataclass
class Case:
    op: str
    label: str
    make: Any  # rng -> list of input arrays
    params: dict = field(default_factory=dict)
    big: bool = False  # tens of millions of elements: one per kind is enough


def _normal(*shapes, scale=3.0):
    return lambda rng: [rng.normal(scale=scale, size=s).astype(np.float32) for s in shapes]


def _const(*arrays):
    return lambda rng: [np.array(a, dtype=np.float32) for a in arrays]


UNARY_PARAMS: dict[str, list[dict[str, Any]]] = {
    "leaky_relu": [{"alpha": 0.01}, {"alpha": 0.25}], "elu": [{"alpha": 1.0}, {"alpha": 0.5}],
    "gelu": [{"approximate": True}, {"approximate": False}],
    "clip": [{"min": -1.0, "max": 2.0}, {"min": 0.5, "max": 0.5}],
    "scale": [{"s": 2.0}, {"s": -0.25}]}
def _of_kind(kind: str) -> list[str]:
    """The op table's ops of one kind: a new op of that kind gets these cases with no edit here."""
    from pycore.tables.ops import OPS

    return [name for name, op in OPS.items() if op.kind == kind]


UNARY, BINARY, ROWWISE = _of_kind("unary"), _of_kind("binary"), _of_kind("rowwise")


def cases() -> list[Case]:
    out: list[Case] = []
    for op in UNARY:
        for params in UNARY_PARAMS.get(op, [{}]):
            tag = ",".join(f"{k}={v}" for k, v in params.items())
            for n in SIZES:
                out.append(Case(op, f"n={n} {tag}", _normal(n), params))
            out.append(Case(op, f"edge {tag}", _const(EDGE), params))
            out.append(Case(op, f"2-D strided {tag}", lambda rng: [rng.normal(size=(40, 30))[::3, ::2]],
                            params))
            out.append(Case(op, f"empty {tag}", _const(np.zeros((0, 3))), params))
    out.append(Case("relu", f"n={BIG}", _normal(BIG), big=True))
    for op in BINARY:
        for n in SIZES:
            out.append(Case(op, f"n={n}", _normal(n, n)))
        out.append(Case(op, "edge", _const(EDGE, np.roll(EDGE, 5))))
        out.append(Case(op, "2-D", _normal((33, 17), (33, 17))))
        out.append(Case(op, "empty", _const(np.zeros(0), np.zeros(0))))
    for op in ROWWISE:
        for n in SIZES:
            out.append(Case(op, f"1-D n={n}", _normal(n)))
        for shape in [(3, 1000), (1000, 3), (70_000, 3)]:
            out.append(Case(op, f"2-D {shape}", _normal(shape)))
        out.append(Case(op, "edge rows", _const([[1e4, -1e4, 0, 1], [89, 88, -89, 44], [0, 0, 0, 0],
                                                 [-np.inf, 0, 1, 2], [np.nan, 1, 2, 3]])))
        out.append(Case(op, "non-finite rows", _const(  # NaN rows, as NumPy gives (inf - inf, exp(NaN))
            [[0, np.inf, 0, 1], [-np.inf] * 4, [np.nan, 0, 0, 0], [np.inf, np.inf, 0, 0],
             [-np.inf, 0, 1, -np.inf]])))
        out.append(Case(op, "large values", _normal(1000, scale=1e4)))
        # rows of large magnitude: log_softmax must not round max + log(sum) to max's float32 spacing
        out.append(Case(op, "large-magnitude rows", _const(
            [[1e6, 1e6, 1e6, 1e6], [1e8, 1e8, 1e8, 1e8], [-1e8, -1e8, -1e8, -1e8],
             [1e6, 1e6 + 1, 1e6 - 3, 1e6 + 0.5], [-1e8, 1e8, 1e8, 0], [1e8, 1e8 + 8, -1e6, 1e6]])))
        out.append(Case(op, "large-magnitude 1-D", _const([1e6, 1e6])))
        out.append(Case(op, "large-magnitude (3, 1000) near 1e6", lambda rng: [
            (1e6 + rng.normal(scale=10, size=(3, 1000))).astype(np.float32)]))
        out.append(Case(op, "large-magnitude (1000, 3) near -1e8", lambda rng: [
            (-1e8 + rng.normal(scale=100, size=(1000, 3))).astype(np.float32)]))
        out.append(Case(op, "empty", _const(np.zeros((0, 4)))))
    for op in [name for name in _of_kind("reduce") if name != "dot"]:  # one input
        for n in SIZES:
            out.append(Case(op, f"n={n}", _normal(n)))
        out.append(Case(op, "edge with NaN", _const(EDGE)))
        out.append(Case(op, "edge without NaN", _const(FINITE_EDGE)))
        out.append(Case(op, "2-D", _normal((300, 7))))
    out.append(Case("sum", "empty", _const(np.zeros(0))))
    out.append(Case("sum", f"n={BIG}", _normal(BIG), big=True))
    for n in [*SIZES, 300000]:
        out.append(Case("dot", f"n={n}", _normal(n, n)))
    out.append(Case("dot", "edge", _const(FINITE_EDGE, np.roll(FINITE_EDGE, 3))))
    out.append(Case("dot", "empty", _const(np.zeros(0), np.zeros(0))))
    # the vec4 kernel (n and k multiples of 4) and the scalar one (any shape), edges of both tiles
    for m, k, n in [(1, 1, 1), (3, 5, 7), (127, 129, 131), (256, 256, 256), (1, 300, 1), (70, 2, 3),
                    (1, 4, 4), (5, 8, 12), (129, 132, 260), (300, 64, 136)]:
        out.append(Case("matmul", f"{m}x{k}x{n}", _normal((m, k), (k, n), scale=1.0)))
    out.append(Case("matmul", "empty m", _const(np.zeros((0, 3)), np.zeros((3, 4)))))
    out.append(Case("matmul", "empty k", _const(np.zeros((3, 0)), np.zeros((0, 4)))))
    out.append(Case("matmul", "NaN row", _const([[np.nan, 1], [1, 2]], [[1, 2], [3, 4]])))
    for kshape in [(1, 1), (3, 3), (5, 5), (2, 4), (1, 7)]:
        for mode in ["valid", "same"]:
            out.append(Case("convolve2d", f"37x41 * {kshape} {mode}", _normal((37, 41), kshape, scale=1.0),
                            {"mode": mode}))
    out.append(Case("convolve2d", "300x300 * 5x5 same", _normal((300, 300), (5, 5), scale=1.0),
                    {"mode": "same"}))
    for mode in ["valid", "same"]:  # zero padding times inf or NaN is NaN, as in SciPy
        out.append(Case("convolve2d", f"non-finite kernel, {mode}", lambda rng: [
            rng.normal(size=(9, 11)).astype(np.float32),
            np.array([[np.inf, 1, 1], [1, 1, 1], [1, np.nan, -1]], np.float32)], {"mode": mode}))
    out.append(Case("convolve2d", "kernel larger, same", _normal((3, 3), (5, 5)), {"mode": "same"}))
    out.append(Case("convolve2d", "empty image, same", _const(np.zeros((0, 5)), np.ones((3, 3))),
                    {"mode": "same"}))
    return out


def case_ids(include_big: bool = True) -> list[str]:
    return [f"{c.op}: {c.label}" for c in cases() if include_big or not c.big]


async def run_case_async(case_id: str, seed: int = 0, backend: str = "auto") -> dict:
    """Run one case through pycore; returns the report and the backend that ran it."""
    import pycore

    case = next(c for c in cases() if f"{c.op}: {c.label}" == case_id)
    inputs = case.make(np.random.default_rng(seed))
    got = await getattr(pycore, f"{case.op}_async")(*inputs, **case.params, backend=backend)
    rep = compare(case.op, got, inputs, case.params)
    return {"case": case_id, "ok": rep.ok, "max_abs": rep.max_abs, "max_rel": rep.max_rel, "used": rep.used,
            "problems": rep.problems, "backend": pycore.trace()[-1]["backend"] if pycore.trace() else None}


async def fused_chains_async(n: int = 4099, seed: int = 5) -> dict[str, dict]:
    """Every unary op inside vec_mul(op(vec_sub(x, y)), y) in a CommandBatch, twice: with the
    intermediate handles dropped (the batch fuses the chain into one generated kernel) and held
    (three kernels). Per case: the fused kernel names, the largest difference, and problems."""
    import pycore

    rng = np.random.default_rng(seed)
    x, y = (rng.normal(size=n) * 3).astype(np.float32), (rng.normal(size=n) * 3).astype(np.float32)
    x[:4] = [np.inf, -np.inf, np.nan, -0.0]

    async def chain(name: str, params: dict, keep: bool) -> tuple[list[np.ndarray], list[str]]:
        async with pycore.CommandBatch() as b:
            hx, hy = b.upload(x), b.upload(y)
            d = b.vec_sub(hx, hy)
            u = getattr(b, name)(d, **params)
            out = b.vec_mul(u, hy)
            kept = (d, u) if keep else ()
            del d, u  # dropped handles: the batch may fuse their steps
            await b.execute_async()
            return [cast(np.ndarray, await b.read_async(h)) for h in (out, *kept)], b.fused

    results = {}
    for name, op in pycore.OPS.items():
        if op.kind != "unary":
            continue
        for params in [op.typical_params()] + ([{"approximate": False}] if name == "gelu" else []):
            (fused,), names = await chain(name, params, keep=False)
            (apart, d, _), none = await chain(name, params, keep=True)
            finite = np.isfinite(apart)
            diff = float(np.abs(fused[finite].astype(np.float64) - apart[finite]).max())
            problems = []
            if not np.array_equal(np.isnan(fused), np.isnan(apart)):
                problems.append("NaN where the separate kernels give a number, or the reverse")
            if not np.array_equal(fused[np.isinf(apart)], apart[np.isinf(apart)]):
                problems.append("infinities differ")
            if not np.array_equal(d, x - y, equal_nan=True):
                problems.append("the held vec_sub handle read back wrong")
            if diff > 1e-5:  # a fused multiply-add may round once where two kernels round twice
                problems.append(f"differs from the separate kernels by {diff:.3g}")
            results[f"{name} {params}"] = {"fused": names, "apart": none, "diff": diff, "problems": problems}
    return results
