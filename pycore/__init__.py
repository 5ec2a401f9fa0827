"""pycore: an n-d array library for Python in the browser, computing on your GPU through WebGPU.

Every op that runs on the GPU is async and named `*_async` (top-level `await` works in the
console); where there is no WebGPU, the same call runs on NumPy with the same result and dtype.
Arrays are bool, int8, int16, int32, uint8, uint16, uint32, float16 or float32 (the 8- and 16-bit
ones packed several to a GPU word); ops broadcast as NumPy's do.

  arrays        to_gpu_async(x, dtype=None) -> GpuArray; GpuArray: shape, dtype, views (.T, [...],
                reshape, ...), to_numpy_async(), copy_async(), astype_async(), release()
  element-wise  add, subtract, multiply, divide, floor_divide, remainder, pow, maximum, minimum,
                equal, not_equal, less, less_equal, greater, greater_equal, logical_and/or/xor/not;
                abs, negative, positive, sign, square, sqrt, reciprocal, floor, ceil, trunc, round;
                exp, expm1, log, log1p, log2, log10, logaddexp, hypot, copysign, nextafter;
                sin, cos, tan, asin, acos, atan, atan2, sinh, cosh, tanh, asinh, acosh, atanh;
                isnan, isinf, isfinite, signbit; bitwise_and/or/xor/invert/left_shift/right_shift;
                relu, leaky_relu, elu, sigmoid, swish, gelu, clip, scale (float32)
  reductions    sum, prod, max, min, mean, var, std, argmax, argmin, all, any (axis=, keepdims=)
  rows          softmax, log_softmax (axis=)
  linear alg.   matmul (batched), dot; images: convolve2d
  many ops      CommandBatch: queue ops, run them in one submit, fused where they can be;
                jit(fn): an async function of GpuArrays captured at its first call, its kernels
                replayed by the next calls with arrays of the same shapes (TracingError if it reads)
  Array API     the standard's creation (asarray, zeros, ones, full, empty and their _like, arange,
                linspace, eye, tril, triu, meshgrid), manipulation (reshape, permute_dims, concat,
                stack, unstack, roll, flip, tile, repeat, moveaxis, squeeze, expand_dims,
                broadcast_to, broadcast_arrays, matrix_transpose, astype) functions, each as
                `<name>_async` (the views also plain: pycore.flip(x)), device="cpu" | "gpu"; dtypes
                bool, int8 ... int32, uint8 ... uint32, float16, float32; result_type, can_cast,
                isdtype, finfo, iinfo, __array_namespace_info__(); from_dlpack, broadcast_shapes,
                real, conj
  selection     where, clip, take, take_along_axis, cumulative_sum, cumulative_prod, diff,
                count_nonzero
  sorting, sets sort, argsort (stable, descending=, on the GPU for GpuArrays), searchsorted, nonzero,
                isin, unique_values, unique_counts, unique_inverse, unique_all
  linalg        tensordot, vecdot; the standard's linalg extension as pycore.linalg.<name>_async
                (matmul, vecdot, tensordot, outer, cross, trace, diagonal, matrix_transpose,
                vector_norm, matrix_norm, matrix_power on the GPU's calls; det, slogdet, inv, solve,
                cholesky, qr, svd, svdvals, eigh, eigvalsh, pinv, matrix_rank on NumPy)
  fft           the standard's fft extension as pycore.fft.<name>_async (fft, ifft, fftn, ifftn,
                rfft, irfft, rfftn, irfftn, hfft, ihfft on the GPU's transform kernels; fftfreq,
                rfftfreq, fftshift, ifftshift); results where the input lives
  nn            pycore.nn.<name>_async: layer_norm, rms_norm, logsumexp, one_hot, embedding,
                cross_entropy, scaled_dot_product_attention, conv, max_pool, avg_pool (1-D to 3-D,
                NCHW), max_pool2d, avg_pool2d; composed of the calls above
  the backend   backend="auto" | "gpu" | "numpy" on every op; init_async, info, trace, explain,
                calibrate_async; SELECTOR (the cost model behind "auto")

Every function's docstring has a runnable example; the reference of every op, with its dtypes,
is docs/api.md in pycore's repository (written from the op tables by scripts/readme.py).

>>> import asyncio, numpy as np, pycore
>>> asyncio.run(pycore.add_async(np.array([[1, 2], [3, 4]], np.int32), 10))
array([[11, 12],
       [13, 14]], dtype=int32)
"""

from __future__ import annotations

import numbers
from typing import Any

from pycore._version import __version__
from pycore.array.dtypes import NarrowingWarning
from pycore.bench.calibrate import calibrate_async
from pycore.calls.api import PUBLIC
from pycore.calls.batch import CommandBatch
from pycore.calls.fft import make_module as make_fft_module
from pycore.calls.gpuarray import GpuArray, to_gpu_async
from pycore.calls.jit import TracingError, jit
from pycore.calls.linalg import LAPUBLIC, make_module
from pycore.calls.namespace import NSPUBLIC
from pycore.calls.nd import NDPUBLIC
from pycore.calls.nn import make_module as make_nn_module
from pycore.calls.selection import SELPUBLIC
from pycore.calls.sorting import SORTPUBLIC
from pycore.choice.selector import SELECTOR
from pycore.choice.selector import BackendSelector as BackendSelector  # (importable, outside __all__)
from pycore.choice.selector import Calibration as Calibration
from pycore.engine.device import CancelledWorkError as CancelledWorkError  # (importable, outside __all__)
from pycore.engine.runtime import RUNTIME
from pycore.tables.ops import OPS as OPS

globals().update(PUBLIC)  # relu_async, softmax_async, matmul_async, ... (see ops.OPS)
globals().update(NDPUBLIC)  # add_async, sum_async(x, axis=...), ... (see tables/ufuncs.py): n-d, any dtype
# The Array API's creation, manipulation and data-type functions (calls/creation.py, manipulation.py,
# datatypes.py; gathered by calls/namespace.py); `bool` is answered by __getattr__, so that this
# module's own uses of the builtin stay the builtin.
globals().update({k: v for k, v in NSPUBLIC.items() if k != "bool"})
# The Array API's selection, indexing and cumulative functions (calls/selection.py); its clip_async
# takes over the fixed float32 op's name (CommandBatch's clip stays that op).
globals().update(SELPUBLIC)
globals().update(SORTPUBLIC)  # the standard's sorting and set functions (calls/sorting.py)
globals().update(LAPUBLIC)  # tensordot_async, vecdot_async
linalg = make_module()  # the Array API's linalg extension: pycore.linalg.<name>_async (calls/linalg.py)
fft = make_fft_module()  # the Array API's fft extension: pycore.fft.<name>_async (calls/fft.py)
nn = make_nn_module()  # neural-network building blocks: pycore.nn.<name>_async (calls/nn.py)

# The public namespace (what help(pycore) lists): the ops, arrays and the backend's controls. OPS,
# BackendSelector, Calibration and the modules stay importable, outside it.
__all__ = ["SELECTOR", "CommandBatch", "GpuArray", "NarrowingWarning", "TracingError", "__version__",
           "calibrate_async", "explain", "fft", "info", "init_async", "jit", "linalg", "nn", "to_gpu_async",
           "trace",
           *dict.fromkeys(name for name in [*PUBLIC, *NDPUBLIC, *NSPUBLIC, *SELPUBLIC, *SORTPUBLIC, *LAPUBLIC]
                          if name != "__array_api_version__")]


def __getattr__(name: str) -> Any:
    """pycore.bench is imported on first use (so `python3 -m pycore.bench` runs it as __main__)."""
    if name == "bool":  # (the Array API's dtype: pycore.bool)
        return NSPUBLIC["bool"]
    if name == "bench":
        import importlib

        return importlib.import_module(".bench", __name__)
    if f"{name}_async" in PUBLIC:  # pycore.relu(x): every op is async
        raise AttributeError(f"module 'pycore' has no attribute {name!r}: every pycore op is async, "
                             f"so call `await pycore.{name}_async(...)`")
    raise AttributeError(f"module 'pycore' has no attribute {name!r}")


def explain(op: str, *shapes: tuple[int, ...], on_gpu: tuple[bool, ...] | None = None, axis: Any = None,
            keepdims: bool = False) -> dict[str, Any]:
    """Which backend backend="auto" would pick for `op` on inputs of these shapes, and why: the
    predicted milliseconds of each (gpu_ms, numpy_ms, predicted_choice) and, where auto settles
    such calls by measuring, the recent wall times it measured (measured_ms). on_gpu: which inputs
    are already GpuArrays. Each shape is a tuple (or list) of sizes >= 0, one per input of the op
    (an element-wise op's Python scalar operand has none: leave it out), and they must fit the op
    as a call's would (TypeError or ValueError naming the input if not). axis: a reduction's axis
    (None, the default: every axis), or softmax's; keepdims: a reduction's.

    Where the prediction came from: prediction_from is "default" (the adapter class's defaults),
    "calibrated <when>" or "corrected by use <when>" (auto's own calls showed a rate was off), and
    rates gives each backend's rate (GFLOP/s) and where it came from. last_call is the last call
    like this one auto timed since the predictions last changed (the backend that ran, ms,
    predicted_ms, their ratio), or None; off is True when that call took more than 3x more or
    less than predicted (calls under half a millisecond are not judged).

    A linalg function ("linalg.inv", "linalg.vector_norm", ...; "tensordot", "vecdot") is answered
    from pycore.linalg.ROUTES: the factorizations run on NumPy (choice "numpy", and why), the views
    compute nothing (choice "view"), and the others are composed of n-d calls: the prediction of
    the one that does the work (a matmul, a multiply, a sum), its why prefixed with how. An fft
    function ("fft.fft", "fft.rfftn", ...) is answered from pycore.fft.ROUTES: the transforms'
    prediction (over the last axis, or every axis for the n-d ones), the others where they run.

    >>> import pycore
    >>> pycore.explain("matmul", (1024, 1024), (1024, 1024))["choice"] in ("webgpu", "numpy")
    True
    >>> pycore.explain("mean", (1000, 64), axis=1)["prediction_from"].split()[0] in ("default", "calibrated")
    True
    >>> pycore.explain("linalg.inv", (64, 64))["choice"]
    'numpy'
    """
    from pycore.calls.linalg import ROUTES, explain_linalg
    from pycore.calls.nd import ALIASES, nd_placement
    from pycore.kernels.rowwise import ROW_OPS
    from pycore.tables.ufuncs import REDUCTIONS, UFUNCS

    if isinstance(op, str) and op.startswith("fft."):
        from pycore.calls.fft import ROUTES as FFT_ROUTES
        from pycore.calls.fft import explain_fft

        if op.removeprefix("fft.") not in FFT_ROUTES:
            raise ValueError(f"explain: unknown op {op!r}; the fft ops are "
                             f"{', '.join('fft.' + n for n in FFT_ROUTES)}")
        if axis is not None or keepdims:
            raise TypeError(f"explain: {op} takes no axis or keepdims here")
        found = [_explained_shape(s, f"{op}'s input {i}") for i, s in enumerate(shapes)]
        if on_gpu is not None and (not isinstance(on_gpu, (tuple, list)) or len(on_gpu) != len(found)
                                   or not all(isinstance(f, bool) for f in on_gpu)):
            raise TypeError(f"explain: on_gpu must be a tuple of bools, one per input shape, got {on_gpu!r}")
        return explain_fft(op.removeprefix("fft."), found, list(on_gpu or []))
    if isinstance(op, str) and (op.removeprefix("linalg.") in ROUTES and (
            op.startswith("linalg.") or op in ("tensordot", "vecdot"))):
        if axis is not None or keepdims:
            raise TypeError(f"explain: {op} takes no axis or keepdims here")
        found = [_explained_shape(s, f"{op}'s input {i}") for i, s in enumerate(shapes)]
        if on_gpu is not None and (not isinstance(on_gpu, (tuple, list)) or len(on_gpu) != len(found)
                                   or not all(isinstance(f, bool) for f in on_gpu)):
            raise TypeError(f"explain: on_gpu must be a tuple of bools, one per input shape, got {on_gpu!r}")
        return explain_linalg(op.removeprefix("linalg."), found, list(on_gpu or []), explain)
    name = ALIASES.get(op, op) if isinstance(op, str) else ""
    nd = name in UFUNCS or name in REDUCTIONS or name in ROW_OPS
    if not nd and (not isinstance(op, str) or op not in OPS):
        ops = ", ".join(n.removesuffix("_async") for n in dict.fromkeys([*PUBLIC, *NDPUBLIC]))
        raise ValueError(f"explain: unknown op {op!r}; the ops are {ops}")
    if name in UFUNCS:
        inputs = ("x1", "x2") if UFUNCS[name].nin == 2 else ("x",)
        counts, says = range(1, len(inputs) + 1), f"{len(inputs)} input shape(s)"
        if len(inputs) == 2:
            says = "1 or 2 input shape(s) (a Python scalar operand has none)"
    else:
        inputs = ("x",) if nd else OPS[op].inputs
        counts, says = range(len(inputs), len(inputs) + 1), f"{len(inputs)} input shape(s)"
    if len(shapes) not in counts:
        raise ValueError(f"explain: {op} takes {says}, got {len(shapes)}")
    shapes = tuple(_explained_shape(s, f"{op}'s {what}") for s, what in zip(shapes, inputs, strict=False))
    if on_gpu is not None and (not isinstance(on_gpu, (tuple, list))
                               or not all(isinstance(f, bool) for f in on_gpu)):
        raise TypeError(f"explain: on_gpu must be a tuple of bools (one per input shape), got {on_gpu!r}")
    if on_gpu is not None and len(on_gpu) != len(shapes):
        raise ValueError(f"explain: on_gpu has {len(on_gpu)} flag(s) for {len(shapes)} input shape(s)")
    if not isinstance(keepdims, bool):
        raise TypeError(f"explain: keepdims must be True or False, got {keepdims!r}")
    if keepdims and name not in REDUCTIONS:
        raise TypeError(f"explain: keepdims is a reduction's; {op} takes none")
    if axis is not None and not (name in REDUCTIONS or name in ROW_OPS):
        raise TypeError(f"explain: axis is a reduction's (or softmax's); {op} takes none")
    flags = list(on_gpu) if on_gpu is not None else [False] * len(shapes)
    if nd:
        try:
            cost, keep, use_gpu, why, choice = nd_placement(name, list(shapes), flags, axis, keepdims)
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"explain: {exc}") from None
        prediction = SELECTOR.predict(cost, list(shapes), flags, result_on_gpu=keep).as_dict()  # type: ignore[arg-type]
        prediction["predicted_choice"] = prediction["choice"]
        prediction["choice"], prediction["why"] = _decided("webgpu" if use_gpu else "numpy", why, choice)
    else:
        cost, keep = OPS[op], all(flags) and OPS[op].kind != "reduce"
        prediction = _explain_fixed(cost, shapes, flags, keep, axis)
    c = SELECTOR.calibration
    last = SELECTOR.last_call(cost, list(shapes), flags, result_on_gpu=keep)  # type: ignore[arg-type]
    prediction["measured_ms"] = SELECTOR.measured(cost, list(shapes), flags, result_on_gpu=keep)  # type: ignore[arg-type]
    prediction["backend_available"] = RUNTIME.backend
    prediction["calibration"] = c.source
    prediction["margin"] = SELECTOR.margin
    prediction["prediction_from"] = c.origin(cost.name, cost.kind)
    prediction["rates"] = {b: dict(zip(("gflops", "from"), c.rate(b, cost.name, cost.kind), strict=True))
                           for b in ("webgpu", "numpy")}
    prediction["last_call"] = last
    prediction["off"] = bool(last and last["off"])
    return prediction


def _explain_fixed(spec: Any, shapes: tuple[tuple[int, ...], ...], flags: list[bool], keep: bool,
                   axis: Any) -> dict[str, Any]:
    """explain() of a fixed-kernel op (ops.OPS): its prediction, and what a call would run."""
    from pycore.calls.programs import PROGRAMS

    op = spec.name
    params = spec.typical_params()
    if axis is not None:
        if "axis" not in params:
            raise TypeError(f"explain: axis is a reduction's (or softmax's); {op} takes none")
        params["axis"] = axis
    if spec.kind == "conv2d":
        params["mode"] = "same"  # (explain takes no mode: any kernel fits "same")
    try:
        if op != "dot":  # (numpy.dot's shapes: beyond two vectors, a call of it is a matmul)
            PROGRAMS[spec.kind].check(spec, shapes, params)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"explain: {exc}") from None
    prediction = SELECTOR.predict(spec, list(shapes), flags, result_on_gpu=keep).as_dict()
    choice = SELECTOR.choose(spec, list(shapes), flags, result_on_gpu=keep)
    prediction["predicted_choice"] = prediction["choice"]
    prediction["choice"], prediction["why"] = _decided(choice.backend, choice.why, choice)
    problem = None if RUNTIME.device is None or op == "dot" else PROGRAMS[spec.kind].unfit(
        RUNTIME.device, spec, list(shapes), params, any(flags) or keep)
    if RUNTIME.device is None:  # what a call would do now: there is no GPU to choose
        prediction["choice"] = "numpy"
        prediction["why"] = f"no WebGPU: {RUNTIME.reason}"
    elif problem is not None:  # nor where the GPU cannot take these shapes
        from pycore.calls.dispatch import unfit_why

        prediction["choice"], prediction["why"] = "numpy", unfit_why(problem)
    return prediction


def _decided(backend: str, why: str, choice: Any) -> tuple[str, str]:
    """What auto decided for such calls, and why: the prediction's choice where the next call is one
    now and then on the other backend (to check the prediction), which `why` then says."""
    if choice is None or not (choice.probe and choice.predicted):
        return backend, why
    p = choice.prediction
    return p.choice, f"{p.why}; the next such call tries {choice.backend}, to check the prediction"


def _explained_shape(shape: Any, what: str) -> tuple[int, ...]:
    """`shape` as a tuple of ints, if it is a tuple or list of sizes >= 0 (TypeError, ValueError)."""
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(n, numbers.Integral) and not isinstance(n, bool) for n in shape):
        raise TypeError(f"explain: {what} shape must be a tuple of ints, got {shape!r}")
    if any(n < 0 for n in shape):
        raise ValueError(f"explain: {what} shape {tuple(shape)} has a negative size")
    return tuple(int(n) for n in shape)


async def init_async(transport: str | None = None) -> dict[str, Any]:
    """Acquire a WebGPU adapter and device (with the adapter's full limits), or settle on the
    NumPy fallback and record why. Idempotent; ops call it themselves. Returns `info()`.

    transport: "auto" (the default, or $PYCORE_TRANSPORT): the browser's WebGPU in Pyodide, wgpu-py
    under CPython; or "browser", "native" or "numpy". Once one is chosen, naming another switches
    to it (`init_async("numpy")` to compute on NumPy from now on, `init_async("auto")` to go back):
    the device in use is given back, and GpuArrays made on it raise RuntimeError from then on (a
    CommandBatch that ran on it is computed again on NumPy, as after a device loss). No transport,
    or the one chosen, changes nothing.

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.init_async())["backend"] in ("webgpu", "numpy")
    True
    """
    await RUNTIME.init_async(transport)
    return RUNTIME.info()


def info() -> dict[str, Any]:
    """The backend in use ("webgpu" or "numpy"), the transport ("browser", "native" or "none") and
    why, adapter info, device limits and features, where settings are kept, versions, GPU memory
    counters, pipeline compile times, and counters of the ops run (ops_run, elements, busy_ms)
    since the page loaded.

    >>> import pycore
    >>> sorted(pycore.info())[:3]
    ['adapter', 'backend', 'counters']
    """
    return RUNTIME.info()


def trace() -> list[dict[str, Any]]:
    """The most recent dispatches, oldest first: op, input shapes, backend, milliseconds per stage.

    >>> import pycore
    >>> isinstance(pycore.trace(), list)
    True
    """
    return [{**e, "ms": {k: round(v, 4) for k, v in e["ms"].items()}, "total_ms": round(e["total_ms"], 4)}
            for e in RUNTIME.trace]
