"""The Python Array API standard's fft extension: `pycore.fft.<name>_async` — fft, ifft, fftn,
ifftn, rfft, irfft, rfftn, irfftn, hfft, ihfft, fftfreq, rfftfreq, fftshift, ifftshift.

The transforms run on the GPU (pycore/kernels/fft.py, shaders/fft.wgsl: Stockham passes for
powers of two, Bluestein's chirp-z for other lengths, in float32) where backend="auto" predicts it
pays (SELECTOR, as the n-d ops choose), or where backend="gpu"; otherwise, and where there is no
WebGPU, NumPy's pocketfft in float64, its result rounded to complex64 (float32 for the real
results of irfft, irfftn and hfft). An n-d transform is 1-D transforms along each axis in turn,
any axis, in one GPU submit (no transposes).

The inputs are NumPy arrays (real float32 or float64, complex64 or complex128; 64-bit ones narrowed
to 32 bits with a NarrowingWarning) or float32 and complex64 GpuArrays. Results live where the
input does: a GpuArray's transform is a GpuArray (complex64, or float32 for the real results of
irfft, irfftn and hfft), so transforms chain on the GPU with the element-wise ops between them;
a NumPy array's is a NumPy array. The standard asks real
inputs of rfft, rfftn and ihfft (complex ones raise TypeError) and takes real inputs of the others
as complex with zero imaginary parts; integer and bool inputs raise TypeError. Bad arguments (an
axis out of range, n < 1, s and axes of different lengths, a norm not "backward", "ortho" or
"forward") raise ValueError or TypeError naming the argument.

>>> import asyncio, numpy as np, pycore
>>> asyncio.run(pycore.fft.fft_async(np.array([1.0, 2.0, 3.0, 4.0], np.float32)))
array([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j], dtype=complex64)
"""

from __future__ import annotations

import math
import numbers
import time
import types
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pycore.array.dtypes import FLOAT32, NarrowingWarning, as_array, pycore_dtype
from pycore.array.layout import Layout, normalize_axis
from pycore.calls.api import extension_module
from pycore.calls.arguments import device_arg, int_arg
from pycore.calls.creation import zeros_async
from pycore.calls.dispatch import BACKENDS, unfit_why
from pycore.calls.gpuarray import GpuArray, complex_view, to_gpu_async
from pycore.calls.manipulation import roll_async, stack_async
from pycore.choice.selector import SELECTOR
from pycore.engine.device import GpuOutOfMemoryError
from pycore.engine.executor import facts, planned, run_plans_async
from pycore.engine.runtime import RUNTIME
from pycore.kernels.fft import Transform, bluestein_size, is_pow2, plan_fft

Array = Any  # a GpuArray or a NumPy array (array-likes are taken where an array is)
C64 = np.dtype(np.complex64)
NORMS = ("backward", "ortho", "forward")


# ---------------------------------------------------------------- where each function runs


@dataclass(frozen=True)
class Route:
    """Where an fft function runs: "gpu" (the transform kernels, placed by backend="auto"), "host"
    (no computation worth a kernel: NumPy, the result put on device="gpu" where asked) or "roll"
    (pycore.roll_async: a GPU copy for GpuArrays); and how."""

    runs: str
    how: str


_TRANSFORM = "the transform kernels (Stockham passes; Bluestein's chirp-z for lengths not a power of two)"
ROUTES: dict[str, Route] = {
    **{name: Route("gpu", _TRANSFORM) for name in ("fft", "ifft", "fftn", "ifftn")},
    "rfft": Route("gpu", f"a complex transform of the real input by {_TRANSFORM}, its first n//2+1 values"),
    "rfftn": Route("gpu", f"a complex n-d transform of the real input by {_TRANSFORM}, the last axis halved"),
    "irfft": Route("gpu", f"the Hermitian half extended on the GPU, then {_TRANSFORM}; the real part"),
    "irfftn": Route("gpu", f"inverse transforms over the other axes, the last axis' Hermitian half extended, "
                           f"by {_TRANSFORM}; the real part"),
    "hfft": Route("gpu", f"irfft of the conjugate input by {_TRANSFORM}"),
    "ihfft": Route("gpu", f"the conjugate of rfft by {_TRANSFORM}"),
    "fftfreq": Route("host", "n values computed on the host (device='gpu': uploaded)"),
    "rfftfreq": Route("host", "n//2+1 values computed on the host (device='gpu': uploaded)"),
    "fftshift": Route("roll", "a roll by half of each axis (pycore.roll_async: on the GPU for GpuArrays)"),
    "ifftshift": Route("roll", "a roll back by half of each axis (pycore.roll_async: GPU for GpuArrays)"),
}


@dataclass(frozen=True)
class _Cost:
    """What the backend selector asks of a transform: its FLOPs (5 n log2 n per transform of n,
    Bluestein's three transforms of m >= 2n - 1 for other lengths) and the output's floats."""

    per_element: float
    out: tuple[int, ...]
    name: str = "fft"
    kind: str = "rowwise"  # (a rate class of the selector's tables: passes over rows in memory)

    def flops(self, shapes: Any) -> float:
        return self.per_element * max([math.prod(s) for s in shapes] + [math.prod(self.out)])

    def out_shape(self, shapes: Any) -> tuple[int, ...]:
        return self.out


def _cost(transforms: Sequence[Transform], out: tuple[int, ...]) -> _Cost:
    work = 0.0
    for t in transforms:
        m = t.n if is_pow2(t.n) else bluestein_size(t.n)
        work += 5 * max(1, math.log2(m)) * (1 if m == t.n else 3 * m / t.n)
    return _Cost(work / 2, (*out, 2))  # (per float of the complex output)


def explain_fft(name: str, shapes: list[tuple[int, ...]], on_gpu: list[bool]) -> dict[str, Any]:
    """explain() of fft function `name` on an input of this shape, with the function's defaults
    (every axis of the n-d ones, the last of the others): where it runs and why."""
    route = ROUTES[name]
    if len(shapes) != 1:
        raise ValueError(f"explain: fft.{name} takes 1 input shape, got {len(shapes)}")
    shape = shapes[0]
    if route.runs != "gpu":
        return {"op": f"fft.{name}", "choice": "numpy" if route.runs == "host" else "roll",
                "predicted_choice": route.runs, "why": route.how, "gpu_ms": None, "numpy_ms": None,
                "measured_ms": None, "backend_available": RUNTIME.backend, "last_call": None, "off": False}
    if not shape or 0 in shape:
        raise ValueError(f"explain: fft.{name} needs an input of at least 1 dimension and no empty axis, "
                         f"got {shape}")
    axes = range(len(shape)) if name.endswith("n") else [len(shape) - 1]
    transforms = [Transform(a, shape[a]) for a in axes]
    cost = _cost(transforms, shape)
    flags = list(on_gpu) if on_gpu else [False]
    prediction = SELECTOR.predict(cost, [(*shape, 2)], flags).as_dict()  # type: ignore[arg-type]
    prediction["predicted_choice"] = prediction["choice"]
    if RUNTIME.device is None:
        prediction["choice"], prediction["why"] = "numpy", f"no WebGPU: {RUNTIME.reason}"
    prediction.update({"op": f"fft.{name}", "why": f"{route.how}; {prediction['why']}",
                       "measured_ms": SELECTOR.measured(cost, [(*shape, 2)], flags),  # type: ignore[arg-type]
                       "backend_available": RUNTIME.backend})
    return prediction


# ---------------------------------------------------------------- arguments


_warned: set[str] = set()


def _input(x: Any, fn: str, real: bool = False) -> GpuArray | np.ndarray:
    """x as a float32 or complex64 GpuArray, or a NumPy float32 or complex64 array (64-bit ones
    narrowed): TypeError for other dtypes, and for complex ones where `real` (rfft, rfftn, ihfft)."""
    if isinstance(x, GpuArray):
        x.check_usable()
        if x.dtype.kind == "c" and real:
            raise TypeError(f"{fn}: x must have a real-valued floating-point dtype, got {x.dtype}")
        if x.dtype not in (FLOAT32, C64):
            raise TypeError(f"{fn}: x must have a floating-point dtype, got a GpuArray of {x.dtype}"
                            + (" (convert it with pycore.astype_async(x, 'float32'))" if x.dtype.kind == "f"
                               else ""))
        return x
    try:
        arr = None if isinstance(x, np.ma.MaskedArray) else np.asarray(x)
    except Exception:  # (ragged lists and the like: as_array says why)
        arr = None
    if arr is not None and arr.dtype.kind == "c":
        if real:
            raise TypeError(f"{fn}: x must have a real-valued floating-point dtype, got {arr.dtype}")
        if arr.dtype != C64:
            if isinstance(x, (np.ndarray, np.generic)) and arr.dtype.name not in _warned:
                _warned.add(arr.dtype.name)
                warnings.warn(f"{arr.dtype.name} input narrowed to complex64: WebGPU has no 64-bit types",
                              NarrowingWarning, stacklevel=3)
            arr = arr.astype(C64)
        return arr
    try:
        found = as_array(x, "x")
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{fn}: {exc}") from None
    if found.dtype.kind == "f":  # (float16 is transformed in float32, as complex64)
        return found.astype(FLOAT32, copy=False)
    raise TypeError(f"{fn}: x must have a floating-point dtype, got {found.dtype}")


def _int(value: Any, fn: str, name: str) -> int:
    return int_arg(value, f"{fn}: {name}")


def _length(n: Any, fn: str, name: str = "n") -> int:
    k = _int(n, fn, name)
    if k < 1:
        raise ValueError(f"{fn}: {name} must be >= 1, got {k}")
    return k


def _norm(norm: Any, fn: str) -> str:
    if not isinstance(norm, str) or norm not in NORMS:
        raise ValueError(f"{fn}: norm must be one of {', '.join(map(repr, NORMS))}, got {norm!r}")
    return norm


def _scale(norm: str, n: int, inverse: bool) -> float:
    """The factor a transform of n points is scaled by under `norm`."""
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    return 1.0 / n if (norm == "backward") == inverse else 1.0


def _axis(axis: Any, x: Any, fn: str) -> int:
    if x.ndim == 0:
        raise ValueError(f"{fn}: x must have at least one dimension, got a 0-d array")
    try:
        return normalize_axis(_int(axis, fn, "axis"), x.ndim)
    except ValueError as exc:
        raise ValueError(f"{fn}: {exc}") from None


def _axes(x: Any, s: Any, axes: Any, fn: str) -> tuple[list[int], list[int | None]]:
    """The axes and their lengths (None: the input's, where s is None or -1) of an n-d transform."""
    if x.ndim == 0:
        raise ValueError(f"{fn}: x must have at least one dimension, got a 0-d array")
    if axes is None:
        if s is not None:
            raise ValueError(f"{fn}: axes must be given where s is (s[i] is the length along axes[i])")
        found = list(range(x.ndim))
    else:
        if not isinstance(axes, (tuple, list)):
            raise TypeError(f"{fn}: axes must be a sequence of ints or None, got {type(axes).__name__}")
        try:
            found = [normalize_axis(_int(a, fn, "axes"), x.ndim, "axes") for a in axes]
        except ValueError as exc:
            raise ValueError(f"{fn}: {exc}") from None
        if len(set(found)) != len(found):
            raise ValueError(f"{fn}: axes {tuple(axes)} names an axis twice")
    if s is None:
        return found, [None] * len(found)
    if not isinstance(s, (tuple, list)):
        raise TypeError(f"{fn}: s must be a sequence of ints or None, got {type(s).__name__}")
    if len(s) != len(found):
        raise ValueError(f"{fn}: s has {len(s)} lengths for {len(found)} axes {tuple(axes)}: they must "
                         "have one length")
    sizes: list[int | None] = []
    for i, v in enumerate(s):
        k = _int(v, fn, f"s[{i}]")
        if k != -1 and k < 1:
            raise ValueError(f"{fn}: s[{i}] must be >= 1 (or -1: the input's length), got {k}")
        sizes.append(None if k == -1 else k)
    return found, sizes


def _backend(backend: Any, fn: str) -> str:
    if backend not in BACKENDS:
        raise ValueError(f"{fn}: backend must be one of {', '.join(map(repr, BACKENDS))}, got {backend!r}")
    return str(backend)


# ---------------------------------------------------------------- running a transform


@dataclass(frozen=True)
class _Job:
    """A call's transforms and how its result is finished: conjugated (hfft's input, ihfft's
    output), halved along an axis (rfft), or its real part (irfft); and NumPy's answer."""

    fn: str
    transforms: tuple[Transform, ...]
    inverse: bool
    numpy: Callable[[np.ndarray], np.ndarray]
    conj_in: bool = False
    conj_out: bool = False
    half: int | None = None  # the axis cut to n//2 + 1 values
    real: bool = False


def _finish(job: _Job, value: np.ndarray) -> np.ndarray:
    if job.conj_out:
        value = np.conj(value)
    if job.half is not None:
        keep = value.shape[job.half] // 2 + 1
        value = value[(slice(None),) * job.half + (slice(0, keep),)]
    if job.real:
        return np.ascontiguousarray(value.real, dtype=FLOAT32)
    return np.ascontiguousarray(value, dtype=C64)


async def _complex_on_gpu_async(x: GpuArray) -> GpuArray:
    """A float32 GpuArray's values as complex ones: (..., 2) pairs with zero imaginary parts."""
    zeros = await zeros_async(x.shape, dtype=FLOAT32, device="gpu")
    return await stack_async([x, zeros], axis=-1)  # type: ignore[no-any-return]


async def _gpu_async(job: _Job, x: GpuArray | np.ndarray) -> tuple[Any, dict[str, float]]:
    device = RUNTIME.device
    assert device is not None
    f = facts(device)
    shape = tuple(x.shape)
    try:
        plan = planned(("fft", shape, job.transforms, job.inverse, f),
                       lambda: plan_fft(shape, job.transforms, job.inverse, f))
    except ValueError as exc:
        exc.pycore_unfit = True  # type: ignore[attr-defined]
        raise
    if isinstance(x, GpuArray):
        if x.dtype == C64:  # (bound from the buffer's start: a view is copied first)
            src = x
            if job.conj_in:
                src = await x._copy_async(C64, "conj")
            elif x.layout != Layout.contiguous(x.shape):
                src = await x.copy_async()
            pairs = src.pairs()
        else:
            pairs = await _complex_on_gpu_async(x)
        bound: Any = (*pairs.binding(), pairs.checks)
    else:
        host = np.conj(x) if job.conj_in and x.dtype == C64 else x
        bound = np.ascontiguousarray(host, dtype=C64).view(np.float32)
    out_shape = plan.outputs[0].shape[:-1]
    if isinstance(x, GpuArray):  # (the result stays on the GPU: complex64, or its real parts)
        buf, checks, stages = await run_plans_async(device, job.fn, [(plan, [bound])], keep=True)
        pairs = GpuArray((*out_shape, 2), buffer=buf, checks=checks, device=device, dtype=FLOAT32)
        cut: tuple[slice, ...] = ()
        if job.half is not None:
            cut = (*(slice(None),) * job.half, slice(0, out_shape[job.half] // 2 + 1))
        if job.real:
            return await (pairs[cut] if job.half is not None else pairs)[..., 0].copy_async(), stages
        value = complex_view(pairs)
        if job.conj_out:
            value = await value._copy_async(C64, "conj")
        return (value[cut] if job.half is not None else value), stages
    raw, _, stages = await run_plans_async(device, job.fn, [(plan, [bound])], keep=False)
    value = _finish(job, raw.view(C64).reshape(out_shape))
    return (await to_gpu_async(value) if job.real and isinstance(x, GpuArray) else value), stages


async def _numpy_async(job: _Job, x: GpuArray | np.ndarray) -> Any:
    host = await x.to_numpy_async() if isinstance(x, GpuArray) else x
    wide = host.astype(np.complex128 if host.dtype.kind == "c" else np.float64)
    value = np.asarray(job.numpy(wide))
    value = np.ascontiguousarray(value, dtype=FLOAT32 if value.dtype.kind == "f" else C64)
    return await to_gpu_async(value) if isinstance(x, GpuArray) else value


def _placement(job: _Job, x: Any, backend: str, out: tuple[int, ...]) -> tuple[bool, str, Any]:
    """(run on the GPU?, why, the selector's choice to report the time to), as the n-d ops decide."""
    device = RUNTIME.device
    if backend == "gpu" and device is None:
        raise RuntimeError(f"{job.fn}: backend='gpu' asked for, but there is no WebGPU device: "
                           f"{RUNTIME.reason}")
    if device is None:
        return False, f"no WebGPU: {RUNTIME.reason}", None
    if backend == "numpy":
        return False, "backend='numpy'", None
    if x.size == 0:
        return False, "nothing to compute", None
    if backend == "gpu":
        return True, "backend='gpu'", None
    on_gpu = isinstance(x, GpuArray) and x.device == "webgpu"
    choice = SELECTOR.choose(_cost(job.transforms, out), [(*x.shape, 2)], [on_gpu])  # type: ignore[arg-type]
    return choice.backend == "webgpu", choice.why, choice


async def _run_async(job: _Job, x: GpuArray | np.ndarray, backend: str, out: tuple[int, ...]) -> Any:
    start = time.perf_counter()
    await RUNTIME.init_async()
    if isinstance(x, GpuArray) and x.device != "webgpu" and RUNTIME.device is not None:
        x = np.asarray(await x.to_numpy_async())  # (held on the host: made before there was a GPU)
    use_gpu, why, choice = _placement(job, x, backend, out)
    shapes = [tuple(x.shape)]
    if use_gpu:
        device = RUNTIME.device
        assert device is not None
        try:
            result, stages = await _gpu_async(job, x)
            ms = {k: v * 1e3 for k, v in stages.items()}
            ms["python"] = (time.perf_counter() - start) * 1e3 - sum(ms.values())
            RUNTIME.record({"op": f"fft.{job.fn}", "shapes": shapes, "backend": "webgpu", "why": why,
                            "ms": ms, "total_ms": sum(ms.values())})
            if choice is not None and choice.key is not None:
                SELECTOR.observe(choice, (time.perf_counter() - start) * 1e3, "webgpu")
            return result
        except Exception as exc:
            if getattr(exc, "pycore_unfit", False) and backend == "auto":
                why, choice = unfit_why(exc), None
            elif await RUNTIME.lost_during_async(device, exc):
                why = f"device lost during the call: {device.lost}"
            elif isinstance(exc, GpuOutOfMemoryError) and backend == "auto":
                why = f"the GPU ran out of memory: {exc}"
            else:
                raise
    result = await _numpy_async(job, x)
    took = (time.perf_counter() - start) * 1e3
    RUNTIME.record({"op": f"fft.{job.fn}", "shapes": shapes, "backend": "numpy", "why": why,
                    "ms": {"compute": took}, "total_ms": took})
    if choice is not None and choice.key is not None:
        SELECTOR.observe(choice, took, "numpy")
    return result


def _out_shape(x: Any, transforms: Sequence[Transform]) -> tuple[int, ...]:
    shape = list(x.shape)
    for t in transforms:
        shape[t.axis] = t.n
    return tuple(shape)


async def _one_axis_async(fn: str, x: Any, n: Any, axis: Any, norm: Any, backend: str, real_in: bool,
                          numpy: Callable[..., np.ndarray]) -> Any:
    """fft, ifft, rfft, irfft, hfft, ihfft: one axis."""
    x = _input(x, fn, real=real_in)
    ax = _axis(axis, x, fn)
    norm = _norm(norm, fn)
    backend = _backend(backend, fn)
    length = None if n is None else _length(n, fn)
    m = x.shape[ax]
    inverse = fn in ("ifft", "irfft", "hfft")
    hermitian = fn in ("irfft", "hfft")
    size = length if length is not None else (2 * (m - 1) if hermitian else m)
    if size < 1:
        raise ValueError(f"{fn}: x has {m} value(s) along axis {ax}: the transform's length "
                         f"{'2 * (m - 1) ' if hermitian else ''}is {size}; pass n >= 1")
    swapped = norm
    if fn in ("hfft", "ihfft"):  # (a forward transform's scaling on an inverse one, and back)
        swapped = {"backward": "forward", "forward": "backward"}.get(norm, norm)
    t = Transform(ax, size, _scale(swapped, size, inverse), hermitian)
    job = _Job(fn, (t,), inverse, lambda v: numpy(v, n=size, axis=ax, norm=norm), conj_in=fn == "hfft",
               conj_out=fn == "ihfft", half=ax if fn in ("rfft", "ihfft") else None, real=hermitian)
    return await _run_async(job, x, backend, _out_shape(x, [t]))


async def _n_axes_async(fn: str, x: Any, s: Any, axes: Any, norm: Any, backend: str,
                        numpy: Callable[..., np.ndarray]) -> Any:
    """fftn, ifftn, rfftn, irfftn."""
    x = _input(x, fn, real=fn == "rfftn")
    found, sizes = _axes(x, s, axes, fn)
    if not found and fn in ("rfftn", "irfftn"):
        raise ValueError(f"{fn}: axes must name at least one axis (the last is the real one), got ()")
    norm = _norm(norm, fn)
    backend = _backend(backend, fn)
    inverse = fn in ("ifftn", "irfftn")
    transforms = []
    lengths = []
    for i, (a, k) in enumerate(zip(found, sizes, strict=True)):
        last = fn == "irfftn" and i == len(found) - 1
        m = x.shape[a]
        size = k if k is not None else (2 * (m - 1) if last else m)
        if size < 1:
            raise ValueError(f"{fn}: x has {m} value(s) along axis {a}: the transform's length is {size}; "
                             "pass s with lengths >= 1")
        transforms.append(Transform(a, size, _scale(norm, size, inverse), last))
        lengths.append(size)
    job = _Job(fn, tuple(transforms), inverse, lambda v: numpy(v, s=lengths, axes=found, norm=norm),
               half=found[-1] if fn == "rfftn" and found else None, real=fn == "irfftn")
    if not transforms:  # (axes=(): no transform, the values as complex64)
        return np.asarray(await x.to_numpy_async() if isinstance(x, GpuArray) else x).astype(C64)
    return await _run_async(job, x, backend, _out_shape(x, transforms))


# ---------------------------------------------------------------- the transforms


async def fft_async(x: Any, /, *, n: Any = None, axis: Any = -1, norm: Any = "backward",
                    backend: str = "auto") -> Array:
    """The 1-D discrete Fourier transform along `axis`: X[k] = sum_j x[j] exp(-2 pi i jk / n), the
    axis cropped or zero-padded to n values first (None: its length); norm "backward" (no scaling),
    "ortho" (1/sqrt(n)) or "forward" (1/n). complex64.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.fft.fft_async(np.array([1, 1j, -1, -1j], np.complex64)))
    array([0.+0.j, 4.+0.j, 0.+0.j, 0.+0.j], dtype=complex64)
    """
    return await _one_axis_async("fft", x, n, axis, norm, backend, False, np.fft.fft)


async def ifft_async(x: Any, /, *, n: Any = None, axis: Any = -1, norm: Any = "backward",
                     backend: str = "auto") -> Array:
    """The inverse of fft along `axis`: x[j] = (1/n) sum_k X[k] exp(2 pi i jk / n) under norm
    "backward" ("ortho": 1/sqrt(n), "forward": no scaling); n as fft's. complex64.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.fft.ifft_async(np.array([4, 0, 0, 0], np.complex64)))
    array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j], dtype=complex64)
    """
    return await _one_axis_async("ifft", x, n, axis, norm, backend, False, np.fft.ifft)


async def fftn_async(x: Any, /, *, s: Any = None, axes: Any = None, norm: Any = "backward",
                     backend: str = "auto") -> Array:
    """The n-d discrete Fourier transform over `axes` (None: every axis), each axis cropped or
    zero-padded to its length in `s` first (s[i] for axes[i]; -1: the input's length; s
    needs axes). norm as fft's, over the product of the lengths. complex64.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.fft.fftn_async(np.ones((2, 2), np.float32)))
    array([[4.+0.j, 0.+0.j],
           [0.+0.j, 0.+0.j]], dtype=complex64)
    """
    return await _n_axes_async("fftn", x, s, axes, norm, backend, np.fft.fftn)


async def ifftn_async(x: Any, /, *, s: Any = None, axes: Any = None, norm: Any = "backward",
                      backend: str = "auto") -> Array:
    """The inverse of fftn over `axes` (None: every axis); s and norm as fftn's. complex64.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.fft.ifftn_async(np.array([[4, 0], [0, 0]], np.complex64)))
    array([[1.+0.j, 1.+0.j],
           [1.+0.j, 1.+0.j]], dtype=complex64)
    """
    return await _n_axes_async("ifftn", x, s, axes, norm, backend, np.fft.ifftn)


async def rfft_async(x: Any, /, *, n: Any = None, axis: Any = -1, norm: Any = "backward",
                     backend: str = "auto") -> Array:
    """fft of a real `x` along `axis`, its non-negative frequencies only: n//2 + 1 values
    (complex64). x must be real (TypeError for complex input).

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.fft.rfft_async(np.array([1.0, 2.0, 3.0, 4.0], np.float32)))
    array([10.+0.j, -2.+2.j, -2.+0.j], dtype=complex64)
    """
    return await _one_axis_async("rfft", x, n, axis, norm, backend, True, np.fft.rfft)


async def irfft_async(x: Any, /, *, n: Any = None, axis: Any = -1, norm: Any = "backward",
                      backend: str = "auto") -> Array:
    """The inverse of rfft: n real values (None: 2 * (m - 1), m the input's length along `axis`)
    from the first n//2 + 1 values of a Hermitian sequence (cropped or zero-padded to them; the
    imaginary parts of the zero frequency, and of n/2 for even n, are ignored). float32.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.fft.irfft_async(np.array([10, -2 + 2j, -2], np.complex64)))
    array([1., 2., 3., 4.], dtype=float32)
    """
    return await _one_axis_async("irfft", x, n, axis, norm, backend, False, np.fft.irfft)


async def rfftn_async(x: Any, /, *, s: Any = None, axes: Any = None, norm: Any = "backward",
                      backend: str = "auto") -> Array:
    """fftn of a real `x`, the last of `axes` cut to its non-negative frequencies (s[-1]//2 + 1
    values); s and norm as fftn's. complex64.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.fft.rfftn_async(np.ones((2, 4), np.float32))).shape
    (2, 3)
    """
    return await _n_axes_async("rfftn", x, s, axes, norm, backend, np.fft.rfftn)


async def irfftn_async(x: Any, /, *, s: Any = None, axes: Any = None, norm: Any = "backward",
                       backend: str = "auto") -> Array:
    """The inverse of rfftn: inverse transforms over `axes`, the last of them from the first half
    of a Hermitian sequence to s[-1] real values (None or -1: 2 * (m - 1)). float32.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.fft.irfftn_async(np.array([[8, 0, 0], [0, 0, 0]], np.complex64)))
    array([[1., 1., 1., 1.],
           [1., 1., 1., 1.]], dtype=float32)
    """
    return await _n_axes_async("irfftn", x, s, axes, norm, backend, np.fft.irfftn)


async def hfft_async(x: Any, /, *, n: Any = None, axis: Any = -1, norm: Any = "backward",
                     backend: str = "auto") -> Array:
    """The transform of a Hermitian-symmetric signal given by its first half: n real values
    (None: 2 * (m - 1)); irfft of the conjugate, with the norm's scaling of a forward transform.
    float32.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.fft.hfft_async(np.array([1, 0, 0], np.complex64)))
    array([1., 1., 1., 1.], dtype=float32)
    """
    return await _one_axis_async("hfft", x, n, axis, norm, backend, False, np.fft.hfft)


async def ihfft_async(x: Any, /, *, n: Any = None, axis: Any = -1, norm: Any = "backward",
                      backend: str = "auto") -> Array:
    """The inverse of hfft: the conjugate of rfft of a real `x`, with the norm's scaling of an
    inverse transform: n//2 + 1 values. complex64; x must be real.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.fft.ihfft_async(np.array([4.0, 0.0, 0.0, 0.0], np.float32))).real
    array([1., 1., 1.], dtype=float32)
    """
    return await _one_axis_async("ihfft", x, n, axis, norm, backend, True, np.fft.ihfft)


# ---------------------------------------------------------------- frequencies and shifts


def _freq_args(n: Any, d: Any, dtype: Any, device: Any, fn: str) -> tuple[int, float, str | None]:
    k = _length(n, fn)
    if isinstance(d, (bool, np.bool_)) or not isinstance(d, numbers.Real):
        raise TypeError(f"{fn}: d must be a real number, got {type(d).__name__} {d!r}")
    if dtype is not None and pycore_dtype(dtype, "dtype") != FLOAT32:
        raise TypeError(f"{fn}: dtype must be a real floating-point dtype (float32), got {np.dtype(dtype)}")
    return k, float(d), device_arg(device)


async def _placed(value: np.ndarray, where: str | None) -> Array:
    value = np.ascontiguousarray(value, dtype=FLOAT32)
    return await to_gpu_async(value) if where == "gpu" else value


async def fftfreq_async(n: Any, /, *, d: Any = 1.0, dtype: Any = None, device: Any = None) -> Array:
    """The sample frequencies of an n-point transform with sample spacing d: [0, 1, ..., n//2 - 1
    (n even) or (n-1)//2 (n odd), -(n//2), ..., -1] / (d n), float32 (dtype: float32); a GpuArray
    for device="gpu".

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.fft.fftfreq_async(4, d=0.5))
    array([ 0. ,  0.5, -1. , -0.5], dtype=float32)
    """
    k, step, where = _freq_args(n, d, dtype, device, "fftfreq")
    return await _placed(np.fft.fftfreq(k, d=step), where)


async def rfftfreq_async(n: Any, /, *, d: Any = 1.0, dtype: Any = None, device: Any = None) -> Array:
    """The non-negative sample frequencies of an n-point rfft: [0, 1, ..., n//2] / (d n), float32;
    a GpuArray for device="gpu".

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.fft.rfftfreq_async(5))
    array([0. , 0.2, 0.4], dtype=float32)
    """
    k, step, where = _freq_args(n, d, dtype, device, "rfftfreq")
    return await _placed(np.fft.rfftfreq(k, d=step), where)


async def _shift_async(fn: str, x: Any, axes: Any, sign: int) -> Array:
    if isinstance(x, np.ndarray) and x.dtype.kind == "c":  # (complex values: NumPy's, as they are)
        x = _input(x, fn)
        found = range(x.ndim) if axes is None else [axes] if not isinstance(axes, (tuple, list)) else axes
        named = [normalize_axis(_int(a, fn, "axes"), x.ndim, "axes") for a in found]
        return np.roll(x, [sign * (x.shape[a] // 2) for a in named], axis=named) if named else x.copy()
    if not isinstance(x, GpuArray):
        try:
            x = as_array(x, "x")
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{fn}: {exc}") from None
    if axes is None:
        named = list(range(x.ndim))
    else:
        given = [axes] if not isinstance(axes, (tuple, list)) else list(axes)
        try:
            named = [normalize_axis(_int(a, fn, "axes"), x.ndim, "axes") for a in given]
        except ValueError as exc:
            raise ValueError(f"{fn}: {exc}") from None
    if not named:
        return await x.copy_async() if isinstance(x, GpuArray) else x.copy()
    return await roll_async(x, [sign * (x.shape[a] // 2) for a in named], axis=tuple(named))


async def fftshift_async(x: Any, /, *, axes: Any = None) -> Array:
    """x with the zero frequency moved to the middle: rolled by n//2 along each of `axes` (an int
    or a sequence; None: every axis). On a GpuArray a roll on the GPU; complex NumPy arrays too.

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.fft.fftshift_async(np.array([0, 1, 2, -2, -1], np.float32)))
    array([-2., -1.,  0.,  1.,  2.], dtype=float32)
    """
    return await _shift_async("fftshift", x, axes, 1)


async def ifftshift_async(x: Any, /, *, axes: Any = None) -> Array:
    """The inverse of fftshift: rolled back by n//2 along each of `axes` (None: every axis).

    >>> import asyncio, numpy as np, pycore
    >>> asyncio.run(pycore.fft.ifftshift_async(np.array([-2, -1, 0, 1, 2], np.float32)))
    array([ 0.,  1.,  2., -2., -1.], dtype=float32)
    """
    return await _shift_async("ifftshift", x, axes, -1)


# ---------------------------------------------------------------- the module

FFT: dict[str, Callable[..., Any]] = {f.__name__: f for f in (
    fft_async, ifft_async, fftn_async, ifftn_async, rfft_async, irfft_async, rfftn_async, irfftn_async,
    hfft_async, ihfft_async, fftfreq_async, rfftfreq_async, fftshift_async, ifftshift_async)}
for _f in FFT.values():
    _f.__module__ = "pycore.fft"


def make_module() -> types.ModuleType:
    """The `pycore.fft` module (registered in sys.modules): the extension's functions and ROUTES."""
    return extension_module("fft", __doc__, FFT, {"ROUTES": ROUTES})
