"""The fft extension (pycore/calls/fft.py) under CPython on NumPy: every function against numpy.fft
in float64 and array_api_strict.fft on the same inputs; bad arguments; the module, its routes and
explain(). The planner (pycore/kernels/fft.py) with made-up Facts: the steps, passes and Bluestein
sizes it picks, and its plans run by a NumPy model of shaders/fft.wgsl's kernels (each entry point
in vectorized NumPy, in float64), which must give NumPy's transforms: the chain of buffers, the
words and the scales are what the model reads."""

from __future__ import annotations

import math

import array_api_strict as xp
import numpy as np
import pytest

import pycore
from pycore.calls.fft import ROUTES
from pycore.calls.gpuarray import GpuArray
from pycore.kernels.fft import LOCAL_N, Transform, bluestein_size, plan_fft, radices
from pycore.kernels.plan import Facts, Plan, Step
from tests.unit.test_cpython_api import run

rng = np.random.default_rng(3)
F = pycore.fft
EPS = 2.0 ** -23


def c64(*shape: int) -> np.ndarray:
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


def f32(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def close(got, want, dtype=np.complex64, tol: float = 4 * EPS) -> None:
    """got (dtype) is want rounded: within a few float32 roundings of the norm."""
    want = np.asarray(want._array if hasattr(want, "_array") else want)
    assert isinstance(got, np.ndarray) and got.dtype == dtype, (type(got), getattr(got, "dtype", None))
    assert got.shape == want.shape, (got.shape, want.shape)
    scale = max(float(np.linalg.norm(want)), 1e-30)
    assert np.linalg.norm(got.astype(want.dtype) - want) <= tol * scale


# ---------------------------------------------------------------- the functions, on NumPy


@pytest.mark.parametrize("n", [1, 2, 5, 8, 12, 17])
@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
@pytest.mark.parametrize("name", ["fft", "ifft"])
def test_complex_transforms_match_numpy_and_array_api_strict(name, norm, n):
    x = c64(3, n)
    for kw in ({}, {"n": n + 3}, {"n": max(1, n - 1), "axis": 1}, {"axis": 0}):
        got = run(getattr(F, f"{name}_async")(x, norm=norm, **kw))
        close(got, getattr(np.fft, name)(x.astype(np.complex128), norm=norm, **kw))
        close(got, getattr(xp.fft, name)(xp.asarray(x), norm=norm, **kw))


@pytest.mark.parametrize("n", [1, 2, 5, 8, 13])
@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_real_and_hermitian_transforms_match_numpy(norm, n):
    r, h = f32(4, n), c64(4, n // 2 + 1)
    for kw in ({}, {"n": n + 2}, {"axis": 0}):
        close(run(F.rfft_async(r, norm=norm, **kw)), xp.fft.rfft(xp.asarray(r), norm=norm, **kw))
        close(run(F.ihfft_async(r, norm=norm, **kw)), np.fft.ihfft(r.astype(np.float64), norm=norm, **kw))
        if h.shape[kw.get("axis", -1)] > 1 or "n" in kw:
            close(run(F.irfft_async(h, norm=norm, **kw)), xp.fft.irfft(xp.asarray(h), norm=norm, **kw),
                  np.float32)
            close(run(F.hfft_async(h, norm=norm, **kw)), xp.fft.hfft(xp.asarray(h), norm=norm, **kw),
                  np.float32)


@pytest.mark.parametrize(("s", "axes"), [(None, None), (None, (0, 2)), ((4, 6), (2, 0)),
                                         ((3, -1, 5), (0, 1, 2)), (None, (-1,))])
def test_n_dimensional_transforms_match_numpy(s, axes):
    x, r = c64(4, 6, 5), f32(4, 6, 5)
    for name in ("fftn", "ifftn"):
        got = run(getattr(F, f"{name}_async")(x, s=s, axes=axes, norm="ortho"))
        close(got, getattr(xp.fft, name)(xp.asarray(x), s=s, axes=axes, norm="ortho"))
    close(run(F.rfftn_async(r, s=s, axes=axes)), xp.fft.rfftn(xp.asarray(r), s=s, axes=axes))
    spectrum = np.fft.rfftn(r, s=s, axes=axes).astype(np.complex64)
    close(run(F.irfftn_async(spectrum, s=s, axes=axes)), xp.fft.irfftn(xp.asarray(spectrum), s=s, axes=axes),
          np.float32)


def test_inputs_real_complex_64_bit_and_gpuarrays_held_on_the_host():
    x = rng.standard_normal(16)
    with pytest.warns(pycore.NarrowingWarning):
        got = run(F.fft_async(x + 1j * x))  # complex128 -> complex64
    close(got, np.fft.fft((x + 1j * x).astype(np.complex64).astype(np.complex128)))
    close(run(F.fft_async(x.astype(np.float32))), np.fft.fft(x.astype(np.float32).astype(np.float64)))
    close(run(F.fft_async([1.0, 2.0, 3.0])), np.fft.fft([1.0, 2.0, 3.0]))
    g = run(pycore.to_gpu_async(x.astype(np.float32)))  # (no WebGPU here: held on the host)
    assert isinstance(g, GpuArray)
    spectrum = run(F.fft_async(g))
    assert isinstance(spectrum, GpuArray) and spectrum.dtype == np.complex64  # (where the input lives)
    close(run(spectrum.to_numpy_async()), np.fft.fft(x.astype(np.float32).astype(np.float64)))
    back = run(F.ifft_async(spectrum))  # (a complex64 GpuArray in)
    close(run(back.to_numpy_async()), x.astype(np.float32).astype(np.complex128))
    real = run(F.irfft_async(g))
    assert isinstance(real, GpuArray)  # (a real result stays where the input lives)
    close(run(real.to_numpy_async()), np.fft.irfft(x.astype(np.float32).astype(np.float64)), np.float32)
    assert run(F.fft_async(np.zeros((0, 4), np.float32))).shape == (0, 4)
    same = run(F.fftn_async(f32(2, 3), axes=()))
    assert same.shape == (2, 3) and same.dtype == np.complex64


def test_bad_arguments_raise_naming_them():
    x = c64(4, 5)
    cases = [
        (F.fft_async(x, axis=2), ValueError, "axis"),
        (F.fft_async(x, axis=1.5), TypeError, "axis"),
        (F.fft_async(x, n=0), ValueError, "n must be >= 1"),
        (F.ifft_async(x, n=True), TypeError, "n must be an int"),
        (F.fft_async(x, norm="none"), ValueError, "norm"),
        (F.fft_async(x, backend="cuda"), ValueError, "backend"),
        (F.fft_async(np.float32(1.0)), ValueError, "at least one dimension"),
        (F.fft_async(np.arange(4, dtype=np.int32)), TypeError, "floating-point"),
        (F.fft_async(np.ones(3, bool)), TypeError, "floating-point"),
        (F.rfft_async(x), TypeError, "real-valued"),
        (F.ihfft_async(x), TypeError, "real-valued"),
        (F.fftn_async(x, s=(3, 3), axes=(0,)), ValueError, "s has 2 lengths"),
        (F.fftn_async(x, s=(3, 3)), ValueError, "axes must be given"),
        (F.fftn_async(x, s=(0,), axes=(0,)), ValueError, "s[0]"),
        (F.fftn_async(x, axes=(0, -2)), ValueError, "twice"),
        (F.fftn_async(x, axes=(3,)), ValueError, "axes"),
        (F.irfftn_async(c64(3, 1)), ValueError, "pass s"),
        (F.rfftn_async(f32(3, 2), axes=()), ValueError, "at least one axis"),
        (F.irfft_async(c64(1)), ValueError, "pass n"),
        (F.fftfreq_async(0), ValueError, "n must be >= 1"),
        (F.fftfreq_async(4, d="x"), TypeError, "d must be"),
        (F.rfftfreq_async(4, dtype="int32"), TypeError, "dtype"),
        (F.fftfreq_async(4, device="tpu"), ValueError, "device"),
        (F.fftshift_async(x, axes=5), ValueError, "axes"),
    ]
    for call, kind, says in cases:
        with pytest.raises(kind, match=None) as found:
            run(call)
        assert says in str(found.value), (says, found.value)


def test_frequencies_and_shifts():
    for n in (1, 4, 5):
        for d in (1.0, 0.25):
            close(run(F.fftfreq_async(n, d=d)), xp.fft.fftfreq(n, d=d), np.float32)
            close(run(F.rfftfreq_async(n, d=d, dtype="float32")), xp.fft.rfftfreq(n, d=d), np.float32)
    assert isinstance(run(F.fftfreq_async(8, device="gpu")), GpuArray)
    a = np.arange(30, dtype=np.float32).reshape(5, 6)
    for axes in (None, 0, (1,), (0, 1)):
        for name in ("fftshift", "ifftshift"):
            got = run(getattr(F, f"{name}_async")(a, axes=axes))
            assert np.array_equal(got, getattr(np.fft, name)(a, axes=axes))
            z = c64(5, 6)
            assert np.array_equal(run(getattr(F, f"{name}_async")(z, axes=axes)),
                                  getattr(np.fft, name)(z, axes=axes))
    shifted = run(F.fftshift_async(run(pycore.to_gpu_async(a))))
    assert isinstance(shifted, GpuArray) and np.array_equal(run(shifted.to_numpy_async()), np.fft.fftshift(a))


def test_module_routes_trace_and_explain():
    import pycore.fft as imported

    assert imported is F and "fft" in pycore.__all__
    assert set(xp.fft.__all__) <= {n.removesuffix("_async") for n in F.__all__}
    assert set(ROUTES) == {n.removesuffix("_async") for n in F.__all__}
    run(F.rfft_async(f32(8)))
    last = pycore.trace()[-1]
    assert last["op"] == "fft.rfft" and last["backend"] == "numpy"
    got = pycore.explain("fft.fftn", (64, 64))
    assert got["op"] == "fft.fftn" and got["choice"] == "numpy" and "Stockham" in got["why"]
    assert pycore.explain("fft.fftshift", (8,))["choice"] == "roll"
    with pytest.raises(ValueError, match="unknown op"):
        pycore.explain("fft.nope", (8,))
    with pytest.raises(ValueError, match="1 input shape"):
        pycore.explain("fft.fft", (8,), (8,))
    with pytest.raises(RuntimeError, match="no WebGPU"):
        run(F.fft_async(c64(8), backend="gpu"))


def test_docstring_examples_run():
    import doctest

    from pycore.calls import fft
    from pycore.kernels import fft as planner
    from tests.unit.test_cpython_api import in_thread

    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    finder = doctest.DocTestFinder(recurse=False)

    def examples() -> None:
        for fn in (fft, *fft.FFT.values()):
            for test in finder.find(fn, getattr(fn, "__name__", "fft"), module=False, globs={}):
                runner.run(test)
        for fn in (planner, planner.bluestein_size, planner.radices):
            for test in finder.find(fn, fn.__name__, module=False, globs=dict(vars(planner))):
                runner.run(test)

    in_thread(examples)
    assert runner.failures == 0 and runner.tries > 20


# ---------------------------------------------------------------- the planner


def entries(plan: Plan) -> list[str]:
    return [s.kernel.entry for s in plan.steps if isinstance(s, Step)]


def test_the_planner_picks_local_transforms_then_passes():
    assert radices(1) == (1, ()) and radices(LOCAL_N) == (LOCAL_N, ())
    assert radices(1 << 24) == (256, (16, 16, 16, 16)) and radices(1 << 13) == (256, (16, 2))
    assert radices(64, inner=5) == (64, ()) and radices(1024, inner=3) == (256, (4,))
    assert entries(plan_fft((5, 64), (Transform(1, 64),), False, Facts())) == ["fft_local"]
    p = plan_fft((1 << 24,), (Transform(0, 1 << 24),), False, Facts(max_binding=1 << 30))
    assert entries(p) == ["fft_local", *["fft_pass16"] * 4]
    words = [s.words for s in p.steps if isinstance(s, Step)]
    assert [w[3] for w in words] == [256, 1 << 8, 1 << 12, 1 << 16, 1 << 20]
    assert words[0][7] == 8  # (8 sub-transforms side by side per workgroup: coalesced loads)
    assert [w[5] for w in words[:-1]] == [0x3F800000] * 4  # (1.0: the scale rides on the last)
    # short rows share a workgroup: 2048 / 16 rows each
    p = plan_fft((1000, 16), (Transform(1, 16),), False, Facts())
    assert p.steps[0].words[7] == LOCAL_N // 16 and p.steps[0].grid == (8, 1, 1)  # type: ignore[union-attr]
    # many workgroups go over y
    p = plan_fft((1 << 20, 2048), (Transform(1, 2048),), False, Facts(max_binding=1 << 34))
    x, y, _ = p.steps[0].grid  # type: ignore[union-attr]
    assert x <= 65535 and (x - 1) * y < 1 << 20 <= x * y


def test_bluestein_sizes_and_steps():
    assert [bluestein_size(n) for n in (2, 3, 5, 1000, 1025, 3001)] == [4, 8, 16, 2048, 4096, 8192]
    p = plan_fft((2, 3001), (Transform(1, 3001),), True, Facts())
    fft8192 = ["fft_local", "fft_pass16", "fft_pass2"]
    assert entries(p) == ["fft_chirp_in", *fft8192, "fft_filter", *fft8192, "fft_mul", *fft8192,
                          "fft_chirp_out"]
    assert p.scratch == (2 * 8192 * 8, 2 * 8192 * 8, 8192 * 8, 8192 * 8)
    with pytest.raises(ValueError, match="maxStorageBufferBindingSize"):
        plan_fft((1 << 23,), (Transform(0, (1 << 23) + 1),), False, Facts())
    with pytest.raises(ValueError, match="longer than the kernels index"):
        plan_fft((1 << 28,), (Transform(0, (1 << 27) + 1),), False, Facts(max_binding=1 << 40))
    with pytest.raises(ValueError, match="nothing to transform"):
        plan_fft((0, 4), (Transform(1, 4),), False, Facts())


# A NumPy model of shaders/fft.wgsl: each entry point as the kernel computes it, in float64.


def _tw(j, m, inverse):
    return np.exp((2j if inverse else -2j) * np.pi * (np.asarray(j) % m) / m)


def _chirp(j, n, inverse):
    return _tw((np.asarray(j, np.int64) ** 2) % (2 * n), 2 * n, inverse)


def _stockham(v, n, p, r, inverse):
    """One Stockham pass of radix r, span p, over rows (outer, n, inner)."""
    q = n // r
    j = np.arange(q)
    k = j % p
    ins = np.stack([v[:, j + t * q, :] * _tw(k * t, p * r, inverse)[None, :, None] for t in range(r)])
    outs = np.fft.fft(ins, axis=0) if not inverse else np.fft.ifft(ins, axis=0) * r
    out = np.empty_like(v)
    for t in range(r):
        out[:, (j - k) * r + k + t * p, :] = outs[t]
    return out


def _model_step(step: Step, src: np.ndarray, aux: np.ndarray, dst_size: int) -> np.ndarray:
    w = step.words
    entry = step.kernel.entry
    n, inner, inverse = w[1], w[2], bool(w[4])
    scale = float(np.array(w[5], np.uint32).view(np.float32))
    out = np.zeros(dst_size, complex)
    if entry in ("fft_pass16", "fft_pass4", "fft_pass2"):
        r = int(entry.removeprefix("fft_pass"))
        v = src[:w[0] * r].reshape(-1, n, inner)
        got = _stockham(v, n, w[3], r, inverse) * scale
    elif entry == "fft_local":
        subs, length, big_s, bits = w[0], w[3], w[6], w[8]
        v = src[:subs * length].reshape(-1, length, big_s, inner)  # (outer, i, q, c): value q + i S
        v = np.moveaxis(v, 1, 2).reshape(-1, length, inner)  # rows (o, q), values i
        p = 1
        if bits % 2:
            v, p = _stockham(v, length, 1, 2, inverse), 2
        while p < length:
            v, p = _stockham(v, length, p, 4, inverse), p * 4
        got = v * scale  # outputs q L + f of row o
    elif entry == "fft_resize":
        h = w[6]
        v = src[:w[0] // n * h].reshape(-1, h, inner)
        got = np.zeros((v.shape[0], n, inner), complex)
        k = np.arange(n)
        direct = k if not w[7] else k[k <= n // 2]
        direct = direct[direct < h]
        got[:, direct] = v[:, direct]
        if w[7]:
            mirror = k[(k > n // 2) & (n - k < h)]
            got[:, mirror] = np.conj(v[:, n - mirror])
        got = got * scale
    elif entry == "fft_chirp_in":
        m, n_src = n, w[6]
        v = src[:w[0] // m * n_src].reshape(-1, n_src, inner)
        got = np.zeros((v.shape[0], m, inner), complex)
        got[:, :n_src] = v * _chirp(np.arange(n_src), n_src, inverse)[None, :, None]
    elif entry == "fft_filter":
        m, n_src = n, w[6]
        j = np.arange(m)
        got = np.where(j < n_src, _chirp(j, n_src, not inverse),
                       np.where(m - j < n_src, _chirp((m - j) % m, n_src, not inverse), 0))
    elif entry == "fft_mul":
        got = src[:w[0]].reshape(-1, n, inner) * aux[:n][None, :, None]
    elif entry == "fft_chirp_out":
        m = w[6]
        v = src[:w[0] // n * m].reshape(-1, m, inner)[:, :n]
        got = v * _chirp(np.arange(n), n, inverse)[None, :, None] * scale
    else:
        raise AssertionError(entry)
    flat = np.asarray(got).reshape(-1)
    out[:flat.size] = flat
    return out


def model_run(plan: Plan, x: np.ndarray) -> np.ndarray:
    """What the plan computes from x (complex), kernel by kernel, through its buffers."""
    buffers: dict[tuple[str, int], np.ndarray] = {("in", 0): x.reshape(-1).astype(complex)}
    out_size = math.prod(plan.outputs[0].shape[:-1])
    for i, size in enumerate(plan.scratch):
        buffers[("tmp", i)] = np.full(size // 8, np.nan, complex)  # (a value read before written shows)
    buffers[("out", 0)] = np.full(out_size, np.nan, complex)
    for step in plan.steps:
        assert isinstance(step, Step)
        src, dst, aux, _ = step.slots
        assert (src.kind, src.index) != (dst.kind, dst.index)
        size = buffers[(dst.kind, dst.index)].size
        buffers[(dst.kind, dst.index)] = _model_step(step, buffers[(src.kind, src.index)],
                                                     buffers[(aux.kind, aux.index)], size)
    return buffers[("out", 0)].reshape(plan.outputs[0].shape[:-1])


@pytest.mark.parametrize(("shape", "transforms", "inverse"), [
    ((3, 16), (Transform(1, 16),), False),
    ((2, 8192), (Transform(1, 8192, 1 / 8192),), True),
    ((4, 5, 3), (Transform(1, 5),), False),
    ((3, 4100), (Transform(1, 4100, 0.5),), True),
    ((6, 7, 4), (Transform(0, 8), Transform(2, 3), Transform(1, 7)), False),
    ((1, 1), (Transform(1, 1, 2.0),), False),
])
def test_plans_compute_numpys_transforms_in_a_model_of_the_kernels(shape, transforms, inverse):
    x = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape))
    got = model_run(plan_fft(shape, transforms, inverse, Facts()), x)
    want = x
    for t in transforms:
        if inverse:
            want = np.fft.ifft(want, n=t.n, axis=t.axis) * t.n
        else:
            want = np.fft.fft(want, n=t.n, axis=t.axis)
        want = want * t.scale
    assert got.shape == want.shape
    assert np.allclose(got, want, atol=1e-9 * np.abs(want).max())


def test_hermitian_plans_model_irfft():
    h = c64(3, 5).astype(complex)
    for n in (8, 9, 4):
        plan = plan_fft((3, 5), (Transform(1, n, 1 / n, hermitian=True),), True, Facts())
        got = model_run(plan, h)
        assert np.allclose(got.real, np.fft.irfft(h, n=n), atol=1e-12)
