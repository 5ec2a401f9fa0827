"""The standard's linear algebra (pycore/calls/linalg.py) under CPython: every function against
array_api_strict.linalg (and NumPy) on the same inputs, single and stacked matrices; dtypes; bad
input (shapes, axes, dtypes, singular matrices); host-held GpuArrays (results stay GpuArrays); the
diagonal view's layout; and what explain() says of each."""

from __future__ import annotations

import math

import array_api_strict as xp
import numpy as np
import pytest

import pycore
from pycore.calls.gpuarray import GpuArray
from pycore.calls.linalg import ROUTES
from tests.unit.test_cpython_api import run

rng = np.random.default_rng(11)
L = pycore.linalg


def f32(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def spd(*shape: int) -> np.ndarray:
    """Symmetric positive-definite matrices of shape (..., n, n)."""
    a = rng.standard_normal(shape)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(np.float32)


def ours(name: str, *args, **kwargs):
    fn = getattr(L, f"{name}_async") if name not in ("tensordot_main", "vecdot_main") else \
        getattr(pycore, name.replace("_main", "_async"))
    return run(fn(*args, **kwargs))


def theirs(name: str, *args, **kwargs):
    name = name.replace("_main", "")
    return getattr(xp.linalg, name)(*[xp.asarray(a) for a in args], **kwargs)


def close(got, want, tol: float = 2e-4) -> None:
    got = np.asarray(got._array if hasattr(got, "_array") else got)
    want = np.asarray(want._array if hasattr(want, "_array") else want)
    assert got.shape == want.shape, (got.shape, want.shape)
    finite = np.abs(want[np.isfinite(want)])
    scale = max(1.0, float(finite.max()) if finite.size else 1.0)
    assert np.allclose(got, want, rtol=tol, atol=tol * scale, equal_nan=True), (got, want)


SQUARE = [(4, 4), (3, 5, 5), (2, 2, 3, 3)]


# ---------------------------------------------------------------- against array_api_strict


@pytest.mark.parametrize("shape", SQUARE)
@pytest.mark.parametrize("name", ["det", "inv", "svdvals", "matrix_rank"])
def test_square_functions_match_the_standard(name, shape):
    x = f32(*shape)
    got = ours(name, x)
    want = theirs(name, x)
    if np.ndim(got) == 0:
        assert isinstance(got, np.generic) and not isinstance(np.asarray(want._array), GpuArray)
    close(got, want, 1e-3)
    if name != "matrix_rank":
        assert np.asarray(got).dtype == np.float32


@pytest.mark.parametrize("shape", SQUARE)
def test_symmetric_and_definite_factorizations(shape):
    a = spd(*shape)
    close(ours("cholesky", a), theirs("cholesky", a))
    close(ours("cholesky", a, upper=True), theirs("cholesky", a, upper=True))
    w, v = ours("eigh", a)
    ww, _ = theirs("eigh", a)
    close(w, ww)
    close(v @ (w[..., None] * np.swapaxes(v, -1, -2)), a, 1e-3)  # (eigenvectors up to sign)
    close(ours("eigvalsh", a), theirs("eigvalsh", a))
    sign, logabs = ours("slogdet", a)
    s2, l2 = theirs("slogdet", a)
    close(sign, s2)
    close(logabs, l2)
    assert type(ours("slogdet", a)).__name__ == "SlogdetResult"


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4), (2, 3, 2)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_and_svd_reconstruct_and_match_shapes(shape, mode):
    x = f32(*shape)
    q, r = ours("qr", x, mode=mode)
    wq, wr = theirs("qr", x, mode=mode)
    assert q.shape == wq.shape and r.shape == wr.shape and q.dtype == np.float32
    close(q @ r, x, 1e-3)
    assert np.allclose(np.tril(r, -1), 0)
    u, s, vh = ours("svd", x, full_matrices=mode == "complete")
    wu, ws, wvh = theirs("svd", x, full_matrices=mode == "complete")
    assert (u.shape, s.shape, vh.shape) == (wu.shape, ws.shape, wvh.shape)
    close(s, ws)
    k = s.shape[-1]
    close((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], x, 1e-3)
    assert type(ours("svd", x)).__name__ == "SVDResult" and type(ours("qr", x)).__name__ == "QRResult"


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5)])
@pytest.mark.parametrize("rtol", [None, 0.5])
def test_pinv_and_matrix_rank_take_rtol(shape, rtol):
    x = f32(*shape)
    close(ours("pinv", x, rtol=rtol), theirs("pinv", x, rtol=rtol), 1e-3)
    close(ours("matrix_rank", x, rtol=rtol), theirs("matrix_rank", x, rtol=rtol))
    low = np.array([[1, 2], [2, 4.000001]], np.float32)  # (rank 1 within float32's eps)
    assert ours("matrix_rank", low) == 1 and ours("matrix_rank", low).dtype == np.int32


@pytest.mark.parametrize("a, b", [((4, 4), (4,)), ((3, 4, 4), (4,)), ((3, 4, 4), (3, 4, 2)), ((4, 4), (4, 3)),
                                  ((2, 1, 3, 3), (4, 3, 1))])
def test_solve_matches_the_standard(a, b):
    x1, x2 = spd(*a), f32(*b)
    close(ours("solve", x1, x2), theirs("solve", x1, x2), 1e-3)


@pytest.mark.parametrize("shape", [(3,), (4, 5), (2, 3, 4), (0, 3)])
@pytest.mark.parametrize("ord", [2, 1, math.inf, -math.inf, 0, 3, 0.5, -1])
@pytest.mark.parametrize("axis", [None, -1, (0, -1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_vector_norm_matches_the_standard(shape, ord, axis, keepdims):  # noqa: A002
    x = f32(*shape)
    if len(shape) > 1 and x.size:
        x[0, ...] = 0  # (zeros for ord 0 and negative p)
    if axis == (0, -1) and len(shape) < 2:
        axis = 0
    try:
        want = theirs("vector_norm", x, axis=axis, keepdims=keepdims, ord=ord)
    except ValueError:
        with pytest.raises(ValueError):
            ours("vector_norm", x, axis=axis, keepdims=keepdims, ord=ord)
        return
    got = ours("vector_norm", x, axis=axis, keepdims=keepdims, ord=ord)
    close(got, want)
    assert isinstance(got, np.generic) if np.ndim(want._array) == 0 else isinstance(got, np.ndarray)
    assert got.dtype == np.float32


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (2, 3, 4)])
@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf])
@pytest.mark.parametrize("keepdims", [False, True])
def test_matrix_norm_matches_the_standard(shape, ord, keepdims):  # noqa: A002
    x = f32(*shape)
    close(ours("matrix_norm", x, ord=ord, keepdims=keepdims), theirs("matrix_norm", x, ord=ord,
                                                                       keepdims=keepdims))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, -1, -3])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_matrix_power_matches_the_standard(n, shape):
    x = (spd(*shape) / shape[-1]).astype(np.float32)
    close(ours("matrix_power", x, n), theirs("matrix_power", x, n), 1e-3)


DTS = ["float32", "int32", "uint32"]


def data(dt: str, *shape: int) -> np.ndarray:
    if dt == "float32":
        return f32(*shape)
    low = 0 if dt == "uint32" else -5
    return rng.integers(low, 6, shape).astype(dt)


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("a, b, axes", [((3, 4), (4, 5), 1), ((2, 3, 4), (3, 4, 5), 2), ((3,), (4,), 0),
                                        ((2, 3, 4), (4, 3, 2), ([1, 2], [1, 0])), ((3, 4), (3, 4), 2),
                                        ((2, 3), (3, 2), ([-1], [0]))])
def test_tensordot_matches_the_standard(dt, a, b, axes):
    x1, x2 = data(dt, *a), data(dt, *b)
    got, want = ours("tensordot_main", x1, x2, axes=axes), theirs("tensordot", x1, x2, axes=axes)
    close(got, want)
    assert np.asarray(got).dtype == np.dtype(dt) or np.ndim(want._array) == 0
    close(ours("tensordot", x1, x2, axes=axes), want)


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("a, b, axis", [((5,), (5,), -1), ((3, 4), (4,), -1), ((3, 4), (2, 1, 4), -1),
                                        ((4, 3), (4, 1), -2), ((2, 4, 3), (4, 3), -2)])
def test_vecdot_matches_the_standard(dt, a, b, axis):
    x1, x2 = data(dt, *a), data(dt, *b)
    want = xp.vecdot(xp.asarray(x1), xp.asarray(x2), axis=axis)
    got = ours("vecdot_main", x1, x2, axis=axis)
    close(got, want)
    close(ours("vecdot", x1, x2, axis=axis), want)
    if np.ndim(want._array):
        assert got.dtype == np.dtype(dt)


@pytest.mark.parametrize("dt", DTS)
def test_outer_cross_trace_diagonal_matmul_match_the_standard(dt):
    a, b = data(dt, 4), data(dt, 3)
    close(ours("outer", a, b), theirs("outer", a, b))
    x1, x2 = data(dt, 2, 3, 4), data(dt, 4, 4)
    close(ours("matmul", x1, x2), theirs("matmul", x1, x2))
    for axis in (-1, -2):
        u, v = data(dt, 5, 3, 3), data(dt, 3, 3)
        if dt == "uint32":
            continue  # (differences wrap around in uint32; the standard leaves them to the dtype)
        close(ours("cross", u, v, axis=axis), theirs("cross", u, v, axis=axis))
    m = data(dt, 2, 3, 5)
    for k in (-3, -1, 0, 2, 4, 6):
        close(L.diagonal(m, offset=k), theirs("diagonal", m, offset=k))
        close(ours("trace", m, offset=k), theirs("trace", m, offset=k))
    square = data(dt, 4, 4)
    assert ours("trace", square) == pytest.approx(float(np.trace(square.astype(np.float64))), rel=1e-5)
    assert isinstance(ours("trace", square), np.generic)


def test_trace_takes_a_dtype():
    m = np.arange(9, dtype=np.int32).reshape(3, 3)
    got = ours("trace", m[None], dtype=pycore.float32)
    assert got.dtype == np.float32 and got.tolist() == [12.0]
    with pytest.raises(TypeError, match="dtype"):
        ours("trace", m, dtype=pycore.bool)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("name, args, kwargs, error, match", [
    ("det", (np.ones((2, 3), np.float32),), {}, ValueError, r"det: x must be a \(stack of\) square"),
    ("inv", (np.ones(3, np.float32),), {}, ValueError, "inv: x must have at least 2 dimensions"),
    ("inv", (np.ones((2, 2), np.int32),), {}, TypeError, "inv: x must have a floating-point dtype"),
    ("cholesky", (np.eye(2, dtype=np.int32),), {}, TypeError, "floating-point"),
    ("vector_norm", (np.ones(3, np.int32),), {}, TypeError, "floating-point"),
    ("matrix_norm", (np.ones((2, 2), np.float32),), {"ord": 3}, ValueError, "ord must be"),
    ("matrix_norm", (np.ones((2, 2), np.float32),), {"ord": "max"}, ValueError, "ord must be"),
    ("matrix_power", (np.ones((2, 2), np.float32), 1.5), {}, TypeError, "n must be an int"),
    ("matrix_power", (np.ones((2, 2), np.int32), 2), {}, TypeError, "floating-point"),
    ("qr", (np.ones((2, 2), np.float32),), {"mode": "r"}, ValueError, "mode must be"),
    ("solve", (np.eye(3, dtype=np.float32), np.ones(2, np.float32)), {}, ValueError, "x2 of shape"),
    ("outer", (np.ones((2, 2), np.float32), np.ones(2, np.float32)), {}, ValueError, "x1 must be 1-D"),
    ("outer", (np.ones(2, bool), np.ones(2, np.float32)), {}, TypeError, "numeric"),
    ("cross", (np.ones(2, np.float32), np.ones(2, np.float32)), {}, ValueError, "length 3"),
    ("cross", (np.ones(3, np.float32), np.ones(3, np.float32)), {"axis": 0}, ValueError, "negative"),
    ("vecdot", (np.ones(3, np.float32), np.ones(4, np.float32)), {}, ValueError, "one length"),
    ("vecdot", (np.ones((2, 3), np.float32), np.ones(3, np.float32)), {"axis": -2}, ValueError, "out|length"),
    ("vecdot", (np.ones((2, 3), np.float32), np.ones((2, 3), np.float32)), {"axis": 1}, ValueError,
     "negative"),
    ("tensordot", (np.ones((2, 3), np.float32), np.ones((2, 3), np.float32)), {"axes": 1}, ValueError,
     "one length"),
    ("tensordot", (np.ones(2, np.float32), np.ones(2, np.float32)), {"axes": 3}, ValueError, "axes=3"),
    ("tensordot", (np.ones(2, np.float32), np.ones(2, np.float32)), {"axes": ([0], [0, 0])}, ValueError,
     "names 1 axes"),
    ("trace", (np.ones(3, np.float32),), {}, ValueError, "at least 2 dimensions"),
    ("trace", (np.ones((2, 2), bool),), {}, TypeError, "numeric"),
    ("diagonal", (np.ones((2, 2), np.float32),), {"offset": 1.0}, TypeError, "offset must be an int"),
    ("pinv", (np.ones((2, 2), np.float32),), {"rtol": np.ones(3)}, ValueError, "rtol of shape"),
    ("matrix_rank", (np.ones((4, 2, 2), np.float32),), {"rtol": np.ones(3)}, ValueError, "rtol of shape"),
])
def test_bad_input_raises_a_clear_error(name, args, kwargs, error, match):
    with pytest.raises(error, match=match):
        ours(name, *args, **kwargs)


@pytest.mark.parametrize("name", ["inv", "solve", "cholesky"])
def test_singular_or_indefinite_matrices_raise_linalgerror_like_numpy(name):
    singular = np.array([[[1, 2], [2, 4]]], np.float32)
    args = (singular, np.ones(2, np.float32)) if name == "solve" else (singular,)
    with pytest.raises(np.linalg.LinAlgError):
        ours(name, *args)
    assert issubclass(np.linalg.LinAlgError, ValueError)
    assert ours("det", singular[0]) == 0.0 and ours("slogdet", singular[0]).sign == 0.0


def test_floating_only_functions_reject_integers_as_the_standard_does():
    m = np.eye(3, dtype=np.int32)
    for name in ("det", "slogdet", "inv", "cholesky", "qr", "svd", "svdvals", "eigh", "eigvalsh", "pinv",
                 "matrix_rank", "matrix_norm", "vector_norm"):
        if name != "matrix_rank":  # (array_api_strict takes integers there; the standard asks for floats)
            with pytest.raises(TypeError):
                theirs(name, m)
        with pytest.raises(TypeError, match=f"{name}: x must have a floating-point dtype"):
            ours(name, m)


# ---------------------------------------------------------------- GpuArrays (held on the host here)


def test_gpuarray_inputs_give_gpuarrays():
    a = spd(2, 3, 3)
    g = run(pycore.to_gpu_async(a))
    for name, args in [("inv", (g,)), ("cholesky", (g,)), ("matrix_power", (g, 3)), ("det", (g,)),
                       ("matrix_norm", (g,)), ("trace", (g,)), ("vector_norm", (g,)), ("svdvals", (g,)),
                       ("solve", (g, np.ones(3, np.float32))), ("tensordot", (g, a[0])),
                       ("outer", (g[0, 0], g[1, 1])), ("cross", (g, g[0]))]:
        got = ours(name, *args)
        host = ours(name, *[x if not isinstance(x, GpuArray) else a if x is g else np.asarray(run(
            x.to_numpy_async())) for x in args])
        assert isinstance(got, GpuArray), name  # (0-D results too: they stay where the inputs are)
        close(run(got.to_numpy_async()) if isinstance(got, GpuArray) else got, host)
    q, r = ours("qr", g)
    assert isinstance(q, GpuArray) and isinstance(r, GpuArray)


def test_diagonal_of_a_gpuarray_is_a_strided_view():
    m = np.arange(2 * 3 * 5, dtype=np.float32).reshape(2, 3, 5)
    g = run(pycore.to_gpu_async(m))
    for k in (-2, 0, 1, 4, 7):
        d = L.diagonal(g, offset=k)
        want = np.diagonal(m, offset=k, axis1=-2, axis2=-1)
        assert d.shape == want.shape and d._base is g
        if want.size:
            assert d.layout.strides[-1] == 6 and d.layout.offset == max(0, -k) * 5 + max(0, k)
        assert np.array_equal(run(d.to_numpy_async()), want)
    t = L.diagonal(g.mT, offset=1)  # (a transposed view: strides 1 and 5)
    assert t.layout.strides[-1] == 6 and np.array_equal(run(t.to_numpy_async()),
                                                        np.diagonal(m.swapaxes(-1, -2), 1, -2, -1))


# ---------------------------------------------------------------- explain


def test_explain_says_where_each_linalg_function_runs():
    for name, route in ROUTES.items():
        shapes = [(8, 8)] * route.inputs if name not in ("outer",) else [(8,), (8,)]
        got = pycore.explain(f"linalg.{name}", *shapes)
        assert got["op"] == f"linalg.{name}"
        if route.runs == "numpy":
            assert got["choice"] == "numpy" and "no GPU kernel" in got["why"]
        elif route.runs == "view":
            assert got["choice"] == "view"
        else:
            assert got["gpu_ms"] > 0 and got["why"].startswith(route.how)
    assert pycore.explain("tensordot", (4, 8, 8), (8, 8, 2))["op"] == "linalg.tensordot"
    with pytest.raises(ValueError, match="takes 1 input shape"):
        pycore.explain("linalg.inv", (3, 3), (3, 3))
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        pycore.explain("linalg.det", (3,))


def test_the_namespace_lists_the_extension():
    assert set(xp.linalg.__all__) <= set(n.removesuffix("_async") for n in L.__all__)
    assert {"tensordot_async", "vecdot_async", "linalg"} <= set(pycore.__all__)
    import pycore.linalg as imported

    assert imported is L and L.matrix_transpose(np.zeros((2, 3), np.float32)).shape == (3, 2)


def test_docstring_examples_run():
    import doctest

    from pycore.calls import linalg
    from tests.unit.test_cpython_api import in_thread

    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    finder = doctest.DocTestFinder(recurse=False)

    def examples() -> None:
        for fn in (linalg, *linalg.LINALG.values(), *linalg.LAPUBLIC.values()):
            for test in finder.find(fn, getattr(fn, "__name__", "linalg"), module=False, globs={}):
                runner.run(test)

    in_thread(examples)
    assert runner.failures == 0 and runner.tries > 20


def test_eig_and_eigvals_give_complex64_as_the_standard():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((3, 4, 4)).astype(np.float32)
    w, v = ours("eig", x)
    assert w.dtype == np.complex64 and v.dtype == np.complex64 and w.shape == (3, 4) and v.shape == (3, 4, 4)
    lhs = x.astype(np.complex128) @ v.astype(np.complex128)
    assert np.allclose(lhs, v * w[..., None, :], atol=1e-4)  # A v = v diag(w)
    want = theirs("eigvals", x)
    got = ours("eigvals", x)
    assert got.dtype == np.complex64
    key = lambda a: np.sort_complex(np.asarray(a._array if hasattr(a, "_array") else a).astype(np.complex128))  # noqa: E731
    assert np.allclose(key(got), key(want), atol=1e-4)
    real = ours("eigvals", np.diag(np.array([3.0, 1.0], np.float32)))
    assert real.dtype == np.complex64 and sorted(real.real.tolist()) == [1.0, 3.0]  # (even when real)
    with pytest.raises(ValueError, match="eig"):
        ours("eig", np.ones((2, 3), np.float32))
    assert pycore.explain("linalg.eig", (4, 4))["predicted_choice"] == "numpy"


def test_real_imag_conj_of_complex_host_values_and_real_dtypes():
    z = np.array([1 + 2j, -3 - 0.5j], np.complex128)
    assert pycore.real(z).dtype == np.float32 and pycore.real(z).tolist() == [1.0, -3.0]
    got = run(pycore.imag_async(z))
    assert got.dtype == np.float32 and got.tolist() == [2.0, -0.5]
    assert pycore.conj(z).dtype == np.complex64 and pycore.conj(z).tolist() == [1 - 2j, -3 + 0.5j]
    x = np.array([[1, -2]], np.int8)
    assert pycore.real(x) is x and pycore.conj(x) is x
    zeros = run(pycore.imag_async(x))
    assert zeros.dtype == np.int8 and zeros.tolist() == [[0, 0]]
    with pytest.raises(TypeError, match="imag: x must have a numeric dtype"):
        run(pycore.imag_async(np.array([True])))


def test_the_factorizations_and_norms_take_complex64():
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))).astype(np.complex64)
    h = (a @ a.conj().T + 3 * np.eye(3)).astype(np.complex64)
    b = (rng.standard_normal(3) + 1j * rng.standard_normal(3)).astype(np.complex64)
    la = pycore.linalg
    for got, want in [(run(la.det_async(a)), np.linalg.det(a)), (run(la.inv_async(a)), np.linalg.inv(a)),
                      (run(la.solve_async(a, b)), np.linalg.solve(a, b)),
                      (run(la.cholesky_async(h)), np.linalg.cholesky(h)),
                      (run(la.pinv_async(a)), np.linalg.pinv(a))]:
        assert got.dtype == np.complex64 and np.allclose(got, want, rtol=1e-4, atol=1e-4)
    assert run(la.svdvals_async(a)).dtype == np.float32 and run(la.eigvalsh_async(h)).dtype == np.float32
    q, r = run(la.qr_async(a))
    assert np.allclose(q @ r, a, atol=1e-5)
    for o in (2, 1, np.inf, 0, 3):
        assert np.isclose(run(la.vector_norm_async(b, ord=o)), np.linalg.vector_norm(b, ord=o), rtol=1e-5)
    for o in ("fro", "nuc", 1, 2, -2, np.inf):
        assert np.isclose(run(la.matrix_norm_async(a, ord=o)), np.linalg.matrix_norm(a, ord=o), rtol=1e-5)
    for n in (0, 1, 3, -2):
        got, want = run(la.matrix_power_async(a, n)), np.linalg.matrix_power(a.astype(np.complex128), n)
        assert got.dtype == np.complex64 and np.allclose(got, want, rtol=1e-4, atol=1e-4), n
