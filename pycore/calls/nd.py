"""Running a call of an n-d op (ufuncs.py): inputs to dtypes and layouts, the result's dtype and
shape, the backend, then the plan (cached by the call's key) run by the executor, or NumPy; the
result where the inputs live; a trace entry. The public `*_async` functions of the n-d ops are
made here from the tables.

Where results live: an op with any GpuArray input returns a GpuArray (host operands are uploaded
as part of the call; if auto computes on NumPy, the result is uploaded), an op on host arrays
returns a NumPy array (a reduction over every axis of host values: a NumPy scalar, as NumPy's).
`backend=` says where to compute, never where the result lives.
"""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from pycore.array.dtypes import (
    BOOL,
    FLOAT16,
    FLOAT32,
    as_array,
    pycore_dtype,
    result_type,
    scalar_kind,
    scalar_value,
    wide,
)
from pycore.array.layout import Layout, broadcast_shapes, matmul_shape, normalize_axes, normalize_axis
from pycore.calls.api import PUBLIC, bind, docstring, signature_of
from pycore.calls.dispatch import BACKENDS, KERNEL_SOURCES, is_argument_error, mark_argument_error, unfit_why
from pycore.calls.gpuarray import (
    GpuArray,
    complex_view,
    host_pairs,
    narrowed_async,
    storage_of,
    to_gpu_async,
)
from pycore.calls.placing import placed_async
from pycore.calls.programs import PROGRAMS, Rowwise
from pycore.choice.selector import SELECTOR
from pycore.engine import interrupts
from pycore.engine.device import GpuOutOfMemoryError
from pycore.engine.executor import facts, planned, replay, replay_plans, run_plans_async
from pycore.engine.runtime import RUNTIME
from pycore.kernels.attention import parts_of, plan_attention
from pycore.kernels.conv import plan_conv
from pycore.kernels.elementwise import Operand, plan_elementwise
from pycore.kernels.matmul import plan_matmul_int
from pycore.kernels.parts import parts, row_bytes, row_step
from pycore.kernels.place import Part
from pycore.kernels.plan import SUFFIX, Plan, scalar_words, storage_bytes
from pycore.kernels.pool import plan_pool
from pycore.kernels.reduction import Combine, plan_reduction
from pycore.kernels.rowwise import ROW_OPS, plan_rowwise, row_limits
from pycore.tables.ops import OPS, Op
from pycore.tables.ufuncs import REDUCTIONS, UFUNCS, Reduction, Ufunc


@dataclass(frozen=True)
class _Cost:
    """What the backend selector asks of an op: its name, rate class, FLOPs and output shape."""

    name: str
    kind: str
    per_element: float
    out: tuple[int, ...]

    def flops(self, shapes: Any) -> float:
        return self.per_element * max([math.prod(s) for s in shapes] + [math.prod(self.out)])

    def out_shape(self, shapes: Any) -> tuple[int, ...]:
        return self.out


def _argument(x: Any, name: str) -> Any:
    """A GpuArray, a weak Python scalar (bool, int, float) or a NumPy array of a pycore dtype."""
    if isinstance(x, GpuArray):
        x.check_usable()
        return x
    if not isinstance(x, np.generic) and scalar_kind(x) is not None:
        return x
    return as_array(x, name)


def _on_host(x: Any) -> Any:
    """A GpuArray held on the host (made before there was a GPU) as its NumPy array."""
    return x._host if isinstance(x, GpuArray) and x.device != "webgpu" else x


def _check_backend(name: str, backend: str) -> None:
    if backend not in BACKENDS:
        raise ValueError(f"{name}: backend must be one of {', '.join(map(repr, BACKENDS))}, got {backend!r}")


def _placement(
    name: str,
    backend: str,
    shapes: list[tuple[int, ...]],
    on_gpu: list[bool],
    keep: bool,
    cost: _Cost,
    empty: bool,
    unfit: Exception | None = None,
) -> tuple[bool, str, Any]:
    """(compute on the GPU?, why, the selector's choice to report timings to). unfit: why the GPU
    cannot take the call (auto runs it on NumPy)."""
    device = RUNTIME.device
    if backend == "gpu" and device is None:
        raise RuntimeError(
            f"{name}: backend='gpu' asked for, but there is no WebGPU device: {RUNTIME.reason}"
        )
    if device is None:
        return False, f"no WebGPU: {RUNTIME.reason}", None
    if backend == "numpy" or empty:
        return False, "nothing to compute" if empty and backend != "numpy" else "backend='numpy'", None
    if backend == "gpu":
        return True, "backend='gpu'", None
    if unfit is not None:
        return False, unfit_why(unfit), None
    waiting = _queued_behind(on_gpu, keep)
    if waiting:
        return True, waiting, None
    choice = SELECTOR.choose(cost, shapes, on_gpu, result_on_gpu=keep)  # type: ignore[arg-type]
    return choice.backend == "webgpu", choice.why, choice


def _queued_behind(on_gpu: list[bool], keep: bool) -> str:
    """Why a call whose inputs are all on the GPU stays there while GPU work is queued or in flight
    (its inputs may be that work's results: NumPy would first wait for all of it, then read them
    back, which the cost model's per-call figures do not see), or "" to ask the cost model."""
    device = RUNTIME.device
    if device is None or not keep or not on_gpu or not all(on_gpu):
        return ""
    kernels, _ = device.pending_work()
    if not kernels:
        return ""
    return (f"its inputs are on the GPU behind {kernels} queued kernel(s): NumPy would wait for them "
            "and read the inputs back")


def _record(
    name: str,
    shapes: list[tuple[int, ...]],
    backend: str,
    stages: dict[str, float],
    why: str,
    choice: Any,
    start: float,
) -> None:
    ms = {k: v * 1e3 for k, v in stages.items()}
    RUNTIME.record(
        {"op": name, "shapes": shapes, "backend": backend, "why": why, "ms": ms, "total_ms": sum(ms.values())}
    )
    if choice is not None and choice.key is not None:
        SELECTOR.observe(choice, (time.perf_counter() - start) * 1e3, backend)


async def _host(x: Any) -> Any:
    return await x.to_numpy_async() if isinstance(x, GpuArray) else x


async def _result(value: np.ndarray, keep: bool) -> Any:
    """A NumPy result where the call's inputs live: uploaded when one of them was a GpuArray."""
    if not keep:
        return value
    return await to_gpu_async(value)


def _bound(x: Any) -> Any:
    """What the executor binds for an input: a GpuArray's buffer (and its checks), or a host array
    as the GPU stores it."""
    if isinstance(x, GpuArray):
        return (*x.binding(), x.checks)
    if isinstance(x, tuple):
        return x
    return storage_of(x)


async def _run_gpu(name: str, plans: list[tuple[Plan, list[Any]]], keep: bool, out_shape: tuple[int, ...],
                   out_dtype: np.dtype) -> tuple[Any, dict[str, float]]:
    """Run plans in one session (engine.executor): the last one's output as a GpuArray, or read."""
    device = RUNTIME.device
    assert device is not None
    bound = [(plan, [_bound(x) for x in inputs]) for plan, inputs in plans]
    if keep:  # (on GpuArrays, with every kernel compiled: queued at once, no session)
        try:
            queued = replay_plans(device, name, bound)
        except Exception:  # (the session's path runs it again, and reports what failed)
            queued = None
        if queued is not None:
            return (GpuArray(out_shape, buffer=queued[0], checks=queued[1], device=device, dtype=out_dtype),
                    {"buffers": 0.0, "dispatch": 0.0})
    value, checks, stages = await run_plans_async(device, name, bound, keep)
    if keep:
        return GpuArray(out_shape, buffer=value, checks=checks, device=device, dtype=out_dtype), stages
    return (value != 0 if out_dtype == BOOL else value.view(out_dtype)), stages


def _planned(key: tuple, make: Callable[[], Plan]) -> Plan:
    """engine.executor.planned, with a planner's refusal (the device cannot take these shapes: a
    binding, a loop cap) marked as such: auto answers such a call on NumPy (see _call)."""
    try:
        return planned(key, make)
    except ValueError as exc:
        exc.pycore_unfit = True  # type: ignore[attr-defined]
        raise


async def _call(
    name: str,
    start: float,
    use_gpu: bool,
    why: str,
    choice: Any,
    shapes: list[tuple[int, ...]],
    gpu_work: Callable[[], Any],
    numpy_work: Callable[[], Any],
) -> Any:
    if use_gpu:
        device = RUNTIME.device
        assert device is not None
        try:
            result, stages = await gpu_work()
            stages = dict(stages)
            stages["python"] = time.perf_counter() - start - sum(stages.values())
            _record(name, shapes, "webgpu", stages, why, choice, start)
            return result
        except Exception as exc:
            if getattr(exc, "pycore_unfit", False) and choice is not None:  # (backend="gpu" raises it)
                why, choice = unfit_why(exc), None  # (refused while planning: nothing ran on the GPU)
            elif await RUNTIME.lost_during_async(device, exc):
                why = f"device lost during the call: {device.lost}"
            elif isinstance(exc, GpuOutOfMemoryError) and choice is not None:
                why = f"the GPU ran out of memory: {exc}"
            else:
                raise
    result = await numpy_work()
    _record(name, shapes, "numpy", {"compute": time.perf_counter() - start}, why, choice, start)
    return result


def _wgsl_function(u: Ufunc, compute: np.dtype) -> str:
    return f"{u.name}_{SUFFIX[compute.name]}"


@dataclass(frozen=True)
class _Prepared:
    """What a call on GpuArrays (and Python scalars) worked out, for the calls that repeat it: the
    plan, the result's shape and dtype, and what the selector is asked."""

    plan: Plan
    shape: tuple[int, ...]
    dtype: np.dtype
    cost: _Cost
    shapes: list[tuple[int, ...]]


_prepared: dict[tuple, _Prepared] = {}
PREPARED = 1024  # calls remembered (the table is emptied when it grows past this)


def _prepare(key: tuple, prep: _Prepared) -> None:
    if len(_prepared) > PREPARED:
        _prepared.clear()
    _prepared[key] = prep


def _call_key(name: str, args: tuple[Any, ...], backend: str, device: Any) -> tuple | None:
    """The key of a call whose arrays are all GpuArrays on the GPU and whose other arguments are
    Python scalars (their values and types: a scalar rides in the plan's words), or None."""
    key: list[Any] = [name, backend, device]
    for x in args:
        t = type(x)
        if t is GpuArray:
            if x._buffer is None:
                return None
            key += (x.dtype, x.layout)
        elif t is float:
            key += (t, x.hex())  # (bits: -0.0 is not 0.0 here)
        elif t is int or t is bool:
            key += (t, x)
        else:
            return None
    return tuple(key)


async def _replay_async(name: str, prep: _Prepared, args: tuple[Any, ...], backend: str, device: Any,
                        start: float) -> Any:
    """A call that repeats a prepared one: its plan on these arrays, no conversion or checks but
    the arrays' own state. None when auto picks NumPy (the general path answers)."""
    choice, why = None, "backend='gpu'"
    if backend == "auto":
        why = _queued_behind([True] * len(prep.shapes), True)
        if not why:
            choice = SELECTOR.choose(prep.cost, prep.shapes, [True] * len(prep.shapes),  # type: ignore[arg-type]
                                     result_on_gpu=True)
            if choice.backend != "webgpu":
                return None
            why = choice.why
    inputs = [(*x.binding(), x._checks) for x in args if type(x) is GpuArray]
    try:
        queued = replay(device, name, prep.plan, inputs)
        if queued is None:
            buf, checks, stages = await run_plans_async(device, name, [(prep.plan, inputs)], keep=True)
        else:
            (buf, checks), stages = queued, {"buffers": 0.0, "dispatch": 0.0}
    except Exception:  # (the general path runs it again, and handles a lost device or full memory)
        return None
    stages = dict(stages)
    stages["python"] = time.perf_counter() - start - sum(stages.values())
    _record(name, prep.shapes, "webgpu", stages, why, choice, start)
    return GpuArray(prep.shape, buffer=buf, checks=checks, device=device, dtype=prep.dtype)


def _row_too_big(u: Ufunc, shape: tuple[int, ...], limit: int) -> ValueError | None:
    """The error of a result whose rows (along axis 0) do not fit one GPU binding, or None."""
    if row_step(shape, limit) is not None:
        return None
    return ValueError(f"{u.name}: one row of the result {shape} needs {row_bytes(shape):,} bytes, over this "
                      f"device's binding limit of {limit:,} bytes (maxStorageBufferBindingSize); use "
                      "backend='numpy'")


async def _ufunc_in_parts_async(u: Ufunc, xs: list[Any], shape: tuple[int, ...], backend: str,
                                limit: int) -> np.ndarray:
    """Host inputs larger than one GPU binding: the op in parts along the output's axis 0 (each
    input's matching rows; broadcast ones whole), the parts' results joined."""
    rows = row_step(shape, limit)
    if rows is None:
        raise mark_argument_error(cast(ValueError, _row_too_big(u, shape, limit)))

    def part(x: Any, rows: slice) -> Any:
        if not isinstance(x, np.ndarray) or x.ndim < len(shape) or x.shape[0] == 1:
            return x  # a scalar, or broadcast along axis 0
        return x[rows]

    done = [await ufunc_async(u, tuple(part(x, p) for x in xs), backend) for p in parts(shape[0], rows)]
    return np.concatenate(done, axis=0)


async def ufunc_async(u: Ufunc, args: tuple[Any, ...], backend: str = "auto") -> Any:
    """Run element-wise op `u` on `args` (array-likes, GpuArrays, Python scalars)."""
    start = time.perf_counter()
    interrupts.check()
    device = RUNTIME.device
    if device is not None and device.backlogged():  # (too much queued work held back: wait for the GPU)
        await device.keep_up_async()
    call_key = _call_key(u.name, args, backend, device) if device is not None and backend != "numpy" else None
    if call_key is not None:
        prep = _prepared.get(call_key)
        if prep is not None:
            found = await _replay_async(u.name, prep, args, backend, device, start)
            if found is not None:
                return found
    try:
        _check_backend(u.name, backend)
        names = ["x1", "x2"] if u.nin == 2 else ["x"]
        xs = [_argument(x, n) for x, n in zip(args, names, strict=True)]
        if all(not isinstance(x, (GpuArray, np.ndarray)) for x in xs):  # scalars only: as arrays
            xs = [as_array(x, n) for x, n in zip(xs, names, strict=True)]
        arrays = [x for x in xs if isinstance(x, (GpuArray, np.ndarray))]
        promoted = result_type(*[x.dtype if isinstance(x, (GpuArray, np.ndarray)) else x for x in xs])
        compute = u.compute_dtype(promoted)
        out_dtype = u.result_dtype(compute)
        scalars = {  # (in the dtype computed in: divide(uint32, -2) is -0.5 * x, as NumPy's)
            i: scalar_value(x, compute, n)
            for i, (x, n) in enumerate(zip(xs, names, strict=True))
            if not isinstance(x, (GpuArray, np.ndarray))
        }
        shapes = [tuple(x.shape) for x in arrays]
        try:
            shape = broadcast_shapes(*shapes) if len(shapes) > 1 else shapes[0]
        except ValueError as exc:
            raise ValueError(f"{u.name}: {exc}") from None
    except (ValueError, TypeError, OverflowError) as exc:
        mark_argument_error(exc)
        raise
    keep = any(isinstance(x, GpuArray) for x in xs)
    await RUNTIME.init_async()
    device = RUNTIME.device
    unfit: Exception | None = None
    if (device is not None and backend != "numpy" and not keep and shape and unfit is None
            and any(storage_bytes(x.shape, x.dtype) > device.max_binding for x in arrays)):
        unfit = _row_too_big(u, shape, device.max_binding) if backend == "auto" else None
        if unfit is None:  # (split in parts that fit; backend="gpu" raises if its rows do not)
            return await _ufunc_in_parts_async(u, xs, shape, backend, device.max_binding)
    on_gpu = [isinstance(x, GpuArray) and x.device == "webgpu" for x in arrays]
    cost = ufunc_cost(u, shape)
    use_gpu, why, choice = _placement(u.name, backend, shapes, on_gpu, keep, cost, math.prod(shape) == 0,
                                      unfit)
    if use_gpu and any(isinstance(x, GpuArray) and x.device != "webgpu" for x in arrays):
        arrays = [_on_host(x) for x in arrays]
        xs = [_on_host(x) for x in xs]

    calc = wide(compute)  # (a packed dtype computes in its 32-bit form; the result is stored packed)

    async def on_gpu_work() -> Any:
        device = RUNTIME.device
        operands = [
            Operand(calc, None, calc.type(scalars[i]))
            if i in scalars
            else Operand(x.dtype, x.layout if isinstance(x, GpuArray) else Layout.contiguous(x.shape))
            for i, x in enumerate(xs)
        ]
        fn = _wgsl_function(u, calc)
        key = (
            "ufunc",
            u.name,
            # (a scalar rides in the plan's words: its bits are part of the key)
            tuple((o.dtype.name, o.layout, o.layout or scalar_words(o.value, o.dtype)) for o in operands),
            compute.name,
            shape,
            facts(device),
        )
        plan = _planned(
            key,
            lambda: plan_elementwise(
                u.name, fn, operands, calc, out_dtype, shape, facts(device), u.gives == "bool"
            ),
        )
        if call_key is not None and device is RUNTIME.device:
            _prepare(call_key, _Prepared(plan, shape, out_dtype, cost, shapes))
        return await _run_gpu(u.name, [(plan, arrays)], keep, shape, out_dtype)

    async def on_numpy_work() -> Any:
        values = [  # (in the GPU's 32-bit form too: one rounding to a packed result)
            np.asarray(await _host(x)).astype(calc, copy=False)
            if i not in scalars
            else calc.type(scalars[i])
            for i, x in enumerate(xs)
        ]
        with np.errstate(all="ignore"):
            value = np.asarray(u.numpy(*values)).astype(out_dtype, copy=False)
        return await _result(value, keep)

    return await _call(u.name, start, use_gpu, why, choice, shapes, on_gpu_work, on_numpy_work)


ASSOCIATIVE = ("sum", "prod", "max", "min", "all", "any")  # partial results reduce the same way


async def _reduce_in_parts_async(r: Reduction, x: np.ndarray, axis: Any, axes: tuple[int, ...],
                                 keepdims: bool, backend: str, correction: float, limit: int) -> Any:
    """A host array larger than one GPU binding, reduced in parts along axis 0: parts of the
    result when axis 0 is kept; partial results reduced again on the host (they are small) when
    it is reduced and the reduction allows that (mean: a sum, then the division). Otherwise NumPy
    answers, or backend='gpu' is refused with the limit named."""
    rows = row_step(x.shape, limit)
    if rows is None or (0 in axes and r.name not in (*ASSOCIATIVE, "mean")):
        if backend == "gpu":
            raise mark_argument_error(ValueError(
                f"{r.name}: x {x.shape} needs {4 * x.size:,} bytes, over this device's binding limit of "
                f"{limit:,} bytes (maxStorageBufferBindingSize), and cannot be split for this reduction; "
                f"use backend='numpy'"))
        return await reduce_async(r, x, axis, keepdims, "numpy", correction)
    pieces = [x[p] for p in parts(x.shape[0], rows)]
    extra = {"correction": correction} if r.two_pass else {}
    if 0 not in axes:
        done = [await reduce_async(r, p, axis, keepdims, backend, **extra) for p in pieces]
        return np.concatenate([np.asarray(d) for d in done], axis=0)
    inner = REDUCTIONS["sum"] if r.name == "mean" else r
    done = [np.asarray(await reduce_async(inner, p, axes, True, backend)) for p in pieces]
    stacked = np.concatenate(done, axis=0)
    with np.errstate(all="ignore"):
        value = np.asarray(inner.numpy(stacked, axes, keepdims)).astype(inner.result_dtype(x.dtype))
        if r.name == "mean":
            value = (value / np.float32(math.prod(x.shape[d] for d in axes))).astype(np.float32)
    return value.reshape(())[()] if value.ndim == 0 else value


async def reduce_async(
    r: Reduction,
    x: Any,
    axis: Any = None,
    keepdims: bool = False,
    backend: str = "auto",
    correction: float = 0.0,
) -> Any:
    """Run reduction `r` over `axis` of `x`."""
    start = time.perf_counter()
    interrupts.check()
    if RUNTIME.device is not None and RUNTIME.device.backlogged():  # (wait for the GPU first)
        await RUNTIME.device.keep_up_async()
    try:
        _check_backend(r.name, backend)
        if not isinstance(keepdims, (bool, np.bool_)):
            raise TypeError(f"{r.name}: keepdims must be True or False, got {keepdims!r}")
        x = _argument(x, "x")
        if not isinstance(x, (GpuArray, np.ndarray)):
            x = as_array(x, "x")
        if x.dtype.kind == "c" and not r.complex:
            raise TypeError(f"{r.name}: complex inputs are not supported (it takes real numbers)")
        if x.dtype.kind == "c" and r.complex == "bool":  # (all, any: of the values' truth)
            x = await x.astype_async(BOOL) if isinstance(x, GpuArray) else x.astype(BOOL)
        if r.arg and axis is not None:
            axis = normalize_axis(axis, x.ndim)
        axes = normalize_axes(axis, x.ndim)
        if r.two_pass and (
            isinstance(correction, bool)
            or not isinstance(correction, (int, float))
            or not math.isfinite(correction)
            or correction < 0
        ):
            raise ValueError(f"{r.name}: correction must be a finite number >= 0, got {correction!r}")
        kept = tuple(n for d, n in enumerate(x.shape) if d not in axes)
        full = tuple(1 if d in axes else n for d, n in enumerate(x.shape))
        n_red = math.prod(x.shape[d] for d in axes)
        if n_red == 0 and kept and math.prod(kept) and not r.empty_ok:
            raise ValueError(
                f"{r.name}: reducing an empty axis of shape {x.shape} has no value (no identity)"
            )
        if x.size == 0 and not kept and not r.empty_ok:
            raise ValueError(f"{r.name}: x is empty, and the {r.name} of no elements is undefined")
        acc = r.acc_dtype(x.dtype)
        out_dtype = r.result_dtype(x.dtype)
    except (ValueError, TypeError) as exc:
        mark_argument_error(exc)
        raise
    pairs = x.dtype.kind == "c" and r.complex == "pairs"  # (sum, mean: of the real and imaginary parts)
    scalar = not kept and not keepdims  # (a 0-D result: a GpuArray on the GPU, else a NumPy scalar)
    keep = isinstance(x, GpuArray)
    await RUNTIME.init_async()
    if (RUNTIME.device is not None and backend != "numpy" and isinstance(x, np.ndarray) and x.ndim
            and storage_bytes(x.shape, x.dtype) > RUNTIME.device.max_binding):
        limit = RUNTIME.device.max_binding
        return await _reduce_in_parts_async(r, x, axis, axes, keepdims, backend, correction, limit)
    on_gpu = [isinstance(x, GpuArray) and x.device == "webgpu"]
    cost = reduction_cost(r, kept)
    use_gpu, why, choice = _placement(
        r.name, backend, [tuple(x.shape)], on_gpu, keep, cost, x.size == 0 or not math.prod((*kept, 1))
    )
    shaped = full if keepdims else kept

    def finish(value: Any) -> Any:
        if scalar:
            return np.asarray(value).astype(out_dtype).reshape(())[()]
        return value.astype(out_dtype, copy=False).reshape(shaped)

    stored = wide(out_dtype)  # (the kernels write 32-bit results; a packed one is converted after)

    async def on_gpu_work() -> Any:
        device = RUNTIME.device
        src = (
            x
            if isinstance(x, GpuArray) and x.device == "webgpu"
            else _on_host(x)
        )
        src_dtype = x.dtype
        if pairs:
            src, src_dtype = (src.pairs() if isinstance(src, GpuArray) else host_pairs(src)), FLOAT32
        layout = src.layout if isinstance(src, GpuArray) else Layout.contiguous(src.shape)
        f = facts(device)
        key = ("reduce", r.name, src_dtype.name, layout, axes, float(correction), f)
        if r.two_pass:
            mean = Combine("sum", FLOAT32, 0.0, finish="scale")
            dev = Combine("sum", FLOAT32, 0.0, finish=r.finish, centered=True, correction=float(correction))
            plans = [
                (
                    _planned(
                        (*key, "mean"), lambda: plan_reduction(mean, layout, axes, x.dtype, f, name=r.name)
                    ),
                    [src],
                ),
                (
                    _planned(key, lambda: plan_reduction(dev, layout, axes, x.dtype, f, name=r.name)),
                    [src, ("plan", 0)],
                ),
            ]
        else:
            c = Combine(r.function, acc, r.identity(acc), arg=r.arg, finish=r.finish)
            plans = [
                (_planned(key, lambda: plan_reduction(c, layout, axes, src_dtype, f,
                                                      wide(acc) if pairs else stored, r.name)), [src])
            ]
        if pairs:
            value, stages = await _run_gpu(r.name, plans, keep, (*(shaped if keep else kept), 2), FLOAT32)
            return (complex_view(value) if keep else finish(complex_view(value))), stages
        value, stages = await _run_gpu(r.name, plans, keep, shaped if keep else kept, stored)
        if keep and stored != out_dtype:
            value = await value.astype_async(out_dtype)
        return (value if keep else finish(value)), stages

    async def on_numpy_work() -> Any:
        host = np.asarray(await _host(x))
        host = host.astype(wide(host.dtype), copy=False)  # (as the GPU: in 32 bits, rounded once)
        extra = {"correction": correction} if r.two_pass else {}
        with np.errstate(all="ignore"):
            value = np.asarray(
                r.numpy(host, None if axis is None else (axes if not r.arg else (axis,)), keepdims, **extra)
            ).astype(out_dtype)
        if scalar and not keep:
            return finish(value)
        return await _result(value.reshape(shaped), keep)

    return await _call(r.name, start, use_gpu, why, choice, [tuple(x.shape)], on_gpu_work, on_numpy_work)


async def matmul_async(a: Any, b: Any, *, backend: str = "auto") -> Any:
    """a @ b as numpy.matmul: (..., m, k) @ (..., k, n) -> (..., m, n), batch axes broadcast, a 1-D
    operand as a row (a) or a column (b). Integer operands multiply in their promoted dtype
    (int32 or uint32, wrapping as NumPy's) through their strides; anything else in float32 on the
    tuned float kernels.

    >>> import asyncio, pycore
    >>> asyncio.run(pycore.matmul_async([[1, 2], [3, 4]], [[1], [1]]))
    array([[3],
           [7]], dtype=int32)
    """
    start = time.perf_counter()
    try:
        _check_backend("matmul", backend)
        xa, xb = (x if isinstance(x, GpuArray) else as_array(x, n) for x, n in ((a, "a"), (b, "b")))
    except (ValueError, TypeError, OverflowError) as exc:
        raise mark_argument_error(exc) from None
    dtype = result_type(xa.dtype, xb.dtype)
    if dtype.kind == "c":
        try:
            matmul_shape(xa.shape, xb.shape)
        except ValueError as exc:
            raise mark_argument_error(exc) from None
        return await _complex_matmul_async(xa, xb, backend)
    if not (xa.dtype.kind in "iu" and xb.dtype.kind in "iu"):  # (the float kernels: float32)
        return await narrowed_async(await PUBLIC["matmul_async"](a, b, backend=backend), dtype)
    try:
        out_shape = matmul_shape(xa.shape, xb.shape)
    except ValueError as exc:
        raise mark_argument_error(exc) from None
    calc = wide(dtype)  # (int8, int16 ... multiply in 32 bits, wrapping, then narrow)
    keep = isinstance(xa, GpuArray) or isinstance(xb, GpuArray)
    await RUNTIME.init_async()
    k = xa.shape[-1]
    shapes = [tuple(xa.shape), tuple(xb.shape)]
    on_gpu = [isinstance(x, GpuArray) and x.device == "webgpu" for x in (xa, xb)]
    cost = _Cost("matmul", "matmul", 2.0 * k, out_shape)
    use_gpu, why, choice = _placement("matmul", backend, shapes, on_gpu, keep, cost,
                                      math.prod(out_shape) * k == 0)

    async def on_gpu_work() -> Any:
        device = RUNTIME.device
        ops: list[Any] = []
        for given in (xa, xb):
            x = _on_host(given)
            if isinstance(x, GpuArray):
                ops.append(x if x.dtype == calc else await x.astype_async(calc))
            else:
                ops.append(np.ascontiguousarray(x, dtype=calc))
        layouts = [x.layout if isinstance(x, GpuArray) else Layout.contiguous(x.shape) for x in ops]
        la = layouts[0].expand_dims(0) if len(layouts[0].shape) == 1 else layouts[0]
        lb = layouts[1].expand_dims(-1) if len(layouts[1].shape) == 1 else layouts[1]
        key = ("matmul_int", la, lb, calc.name, facts(device))
        plan = _planned(key, lambda: plan_matmul_int(la, lb, calc, facts(device)))
        value, stages = await _run_gpu("matmul", [(plan, ops)], keep, plan.outputs[0].shape, calc)
        return await narrowed_async(value.reshape(out_shape), dtype), stages

    async def on_numpy_work() -> Any:
        values = [np.asarray(await _host(x)).astype(calc, copy=False) for x in (xa, xb)]
        return await _result(np.asarray(np.matmul(*values)).astype(dtype, copy=False), keep)

    return await _call("matmul", start, use_gpu, why, choice, shapes, on_gpu_work, on_numpy_work)


async def _complex_matmul_async(a: Any, b: Any, backend: str) -> Any:
    """a @ b of complex64 values as one float32 matmul: a's values as pairs, (..., m, 2k), times
    b's rows written out twice, (re, im) then i times them (-im, re), (..., 2k, 2n): each output
    pair is a complex product's sum (its real, then its imaginary part). On NumPy where no input is
    a GpuArray in GPU memory (or backend='numpy')."""
    gpu = RUNTIME.device is not None and backend != "numpy" and (
        backend == "gpu" or any(isinstance(x, GpuArray) and x._buffer is not None for x in (a, b)))
    if not gpu:
        values = [np.asarray(await _host(x)).astype(np.complex64, copy=False) for x in (a, b)]
        return await _result(np.matmul(*values), isinstance(a, GpuArray) or isinstance(b, GpuArray))
    ops = []
    for x in (a, b):
        if not (isinstance(x, GpuArray) and x._buffer is not None):
            x = await to_gpu_async(np.asarray(_on_host(x)))
        ops.append(x if x.dtype.kind == "c" else await x.astype_async(np.complex64))
    xa = ops[0].expand_dims(0) if ops[0].ndim == 1 else ops[0]
    xb = ops[1].expand_dims(-1) if ops[1].ndim == 1 else ops[1]
    k, n = xb.shape[-2], xb.shape[-1]
    left = xa.pairs().reshape((*xa.shape[:-1], 2 * k)) if xa.layout.is_contiguous else None
    if left is None:
        left = (await xa.copy_async()).pairs().reshape((*xa.shape[:-1], 2 * k))
    turned = await ufunc_async(UFUNCS["multiply"], (xb, 1j), backend)  # (i b: -im + re i)
    batch = xb.shape[:-2]
    shape = (*batch, k, 2, n, 2)
    whole = Layout.contiguous(shape)
    rows = [whole.getitem((*[slice(None)] * (len(batch) + 1), j)) for j in (0, 1)]
    right = await placed_async("matmul", lambda ls: [
        Part(rows[0], "copy", source=ls[0], dtype=FLOAT32),
        Part(rows[1], "copy", source=ls[1], dtype=FLOAT32, index=1)],
        [xb.pairs(), turned.pairs()], shape, FLOAT32)
    product = await matmul_async(left, right.reshape((*batch, 2 * k, 2 * n)), backend=backend)
    out = complex_view(product.reshape((*product.shape[:-1], n, 2)))
    if ops[0].ndim == 1:
        out = out.squeeze(-2)
    return out.squeeze(-1) if ops[1].ndim == 1 else out


ROWWISE = cast(Rowwise, PROGRAMS["rowwise"])  # (its `tree` setting forces a kernel variant)


async def _rowwise_in_parts_async(op: Op, x: np.ndarray, axis: int, backend: str, limit: int) -> np.ndarray:
    """A host array larger than one GPU binding: its rows (along `axis`, moved last) in parts that
    fit, the parts' results joined and the axis moved back."""
    cols = x.shape[axis]
    moved = np.ascontiguousarray(np.moveaxis(x, axis, -1))
    rows = moved.reshape(-1, cols)
    step = row_step(rows.shape, limit) or 1  # (the caller checked that a row fits: row_limits)
    done = [await rowwise_async(op, rows[p], -1, backend) for p in parts(rows.shape[0], step)]
    return np.moveaxis(np.concatenate(done, axis=0).reshape(moved.shape), -1, axis)


async def rowwise_async(op: Op, x: Any, axis: int = -1, backend: str = "auto") -> Any:
    """Run row-wise op `op` (softmax, log_softmax) along `axis` of `x` (float32; other dtypes are
    converted), reading a GpuArray through its strides."""
    start = time.perf_counter()
    interrupts.check()
    device = RUNTIME.device
    if device is not None and device.backlogged():  # (too much queued work held back: wait for the GPU)
        await device.keep_up_async()
    call_key = None
    if device is not None and backend != "numpy" and type(x) is GpuArray and x.dtype == FLOAT32:
        call_key = _call_key(op.name, (x, axis), backend, device)
        prep = _prepared.get(call_key) if call_key is not None else None
        if prep is not None:
            found = await _replay_async(op.name, prep, (x,), backend, device, start)
            if found is not None:
                return found
    try:
        _check_backend(op.name, backend)
        x = _argument(x, "x")
        if not isinstance(x, (GpuArray, np.ndarray)):
            x = as_array(x, "x")
        if x.ndim < 1:
            raise ValueError(f"{op.name}: x must have at least 1 dimension (rows along an axis), "
                             "got a 0-D shape ()")
        axis = normalize_axis(axis, x.ndim)
    except (ValueError, TypeError, OverflowError) as exc:
        mark_argument_error(exc)
        raise
    shape = tuple(x.shape)
    keep = isinstance(x, GpuArray)
    await RUNTIME.init_async()
    device = RUNTIME.device
    if (device is not None and backend != "numpy" and isinstance(x, np.ndarray) and x.size
            and 4 * x.size > device.max_binding and row_limits(op.name, shape[axis], facts(device)) is None):
        return await _rowwise_in_parts_async(op, x.astype(FLOAT32, copy=False), axis, backend,
                                             device.max_binding)
    on_gpu = [isinstance(x, GpuArray) and x.device == "webgpu"]
    cost = rowwise_cost(op, shape)
    unfit = None
    if device is not None and backend == "auto" and x.size:
        unfit = row_limits(op.name, shape[axis], facts(device))
    use_gpu, why, choice = _placement(op.name, backend, [shape], on_gpu, keep, cost, math.prod(shape) == 0,
                                      unfit)

    async def on_gpu_work() -> Any:
        device = RUNTIME.device
        src = _on_host(x)
        if isinstance(src, GpuArray):
            src = src if src.dtype == FLOAT32 else await src.astype_async(FLOAT32)
            layout = src.layout
        else:
            src = np.ascontiguousarray(src, FLOAT32)
            layout = Layout.contiguous(shape)
        f = facts(device)
        row_op = ROW_OPS[op.name]
        plan = _planned(("rows", op.name, layout, axis, ROWWISE.tree, f),
                        lambda: plan_rowwise(row_op, layout, axis, f, ROWWISE.tree))
        if call_key is not None and device is RUNTIME.device:
            _prepare(call_key, _Prepared(plan, shape, FLOAT32, cost, [shape]))
        return await _run_gpu(op.name, [(plan, [src])], keep, shape, FLOAT32)

    async def on_numpy_work() -> Any:
        host = np.asarray(await _host(x)).astype(FLOAT32, copy=False)
        with np.errstate(all="ignore"):
            value = host.copy() if host.size == 0 else np.asarray(op.numpy(host, axis=axis), FLOAT32)
        return await _result(value, keep)

    return await _call(op.name, start, use_gpu, why, choice, [shape], on_gpu_work, on_numpy_work)


async def normalized_rows_async(name: str, x: GpuArray, axis: int, weight: Any, bias: Any, eps: float
                                ) -> GpuArray:
    """layer_norm or rms_norm (ROW_OPS) of a GpuArray along `axis` in one kernel: each row's
    statistics, then every element normalized, times the weight and plus the bias of its column
    (None, or vectors of the axis' length: GpuArrays or host arrays, uploaded with the call). In
    float32; a float16 x is converted, and the result back. A ValueError if the adapter cannot
    take the rows (row_limits): the caller composes the op of other calls instead."""
    start = time.perf_counter()
    device = RUNTIME.device
    assert device is not None
    src = x if x.dtype == FLOAT32 else await x.astype_async(FLOAT32)
    extra: list[Any] = []
    for v in (weight, bias):
        if isinstance(v, GpuArray):  # (read from the buffer's start: a contiguous float32 copy if not so)
            plain = v.dtype == FLOAT32 and v.layout.offset == 0 and v.layout.is_contiguous
            extra.append(v if plain else await v.astype_async(FLOAT32))
        elif v is not None:
            extra.append(np.ascontiguousarray(np.asarray(v).reshape(-1), FLOAT32))
    f = facts(device)
    has_w, has_b = weight is not None, bias is not None
    plan = _planned(("norm", name, src.layout, axis, has_w, has_b, float(eps), ROWWISE.tree, f),
                    lambda: plan_rowwise(ROW_OPS[name], src.layout, axis, f, ROWWISE.tree, eps, has_w, has_b))
    shape = tuple(x.shape)
    value, stages = await _run_gpu(name, [(plan, [src, *extra])], True, shape, FLOAT32)
    stages = dict(stages)
    stages["python"] = time.perf_counter() - start - sum(stages.values())
    _record(name, [shape], "webgpu", stages, "a GpuArray input (one fused kernel)", None, start)
    return value if x.dtype == FLOAT32 else await value.astype_async(x.dtype)


async def _one_kernel_async(name: str, operands: list[Any], key: tuple,
                            plan_of: Callable[[list[Layout], Any], Plan], why: str | Callable[[Plan], str]
                            ) -> GpuArray:
    """A call that runs one planned kernel on GpuArrays and host arrays (uploaded with the call):
    its first output as a GpuArray, recorded in the trace with `why` (or what it says of the plan).
    `key` (with the operands' layouts) identifies the plan. A ValueError where the device cannot
    take the shapes."""
    start = time.perf_counter()
    device = RUNTIME.device
    assert device is not None
    layouts = [v.layout if isinstance(v, GpuArray) else Layout.contiguous(v.shape) for v in operands]
    f = facts(device)
    plan = _planned((name, *layouts, *key, f), lambda: plan_of(layouts, f))
    out = plan.outputs[0]
    value, stages = await _run_gpu(name, [(plan, operands)], True, out.shape, out.dtype)
    stages = dict(stages)
    stages["python"] = time.perf_counter() - start - sum(stages.values())
    said = why if isinstance(why, str) else why(plan)
    _record(name, [tuple(v.shape) for v in operands], "webgpu", stages, said, None, start)
    return value


def _f32_operand(v: Any) -> Any:
    return v if isinstance(v, GpuArray) else np.ascontiguousarray(v, FLOAT32)


async def convolved_async(x: GpuArray, w: Any, bias: Any, stride: tuple[int, ...],
                          pads: tuple[tuple[int, int], ...], dilation: tuple[int, ...], groups: int
                          ) -> GpuArray:
    """nn.conv of a float32 or float16 GpuArray x by float32 or float16 w (and bias): the direct
    kernel (kernels/conv.py), its result float32; w and bias GpuArrays, or host arrays uploaded
    with the call as float32. A ValueError where the device cannot take the shapes: the caller
    composes the convolution of other calls instead."""
    operands = [x, *(_f32_operand(v) for v in (w, bias) if v is not None)]
    halves = (x.dtype == FLOAT16, operands[1].dtype == FLOAT16,
              bias is not None and operands[2].dtype == FLOAT16)

    def plan_of(layouts: list[Layout], f: Any) -> Plan:
        b_layout = layouts[2] if bias is not None else None
        return plan_conv(layouts[0], layouts[1], b_layout, stride, pads, dilation, groups, f, halves)

    return await _one_kernel_async("conv", operands, (stride, pads, dilation, groups, halves), plan_of,
                                   "a GpuArray input (one direct kernel)")


async def pooled_async(x: GpuArray, reduce: str, kernel: tuple[int, ...], stride: tuple[int, ...],
                       padding: tuple[int, ...], dilation: tuple[int, ...], out: tuple[int, ...],
                       include_pad: bool) -> GpuArray:
    """nn.max_pool ("max") or nn.avg_pool ("avg") of a float32 or float16 GpuArray x: the direct
    kernel (kernels/pool.py), its result float32. A ValueError where the device cannot take the
    shapes: the caller composes the pool of other calls instead."""
    half = x.dtype == FLOAT16

    def plan_of(layouts: list[Layout], f: Any) -> Plan:
        return plan_pool(layouts[0], reduce, kernel, stride, padding, dilation, out, include_pad, f, half)

    return await _one_kernel_async(f"{reduce}_pool", [x], (reduce, kernel, stride, padding, dilation, out,
                                                           include_pad, half), plan_of,
                                   "a GpuArray input (one direct kernel)")


async def attended_async(q: GpuArray, k: Any, v: Any, mask: Any, causal: bool, scale: float) -> GpuArray:
    """nn.scaled_dot_product_attention of a float32 or float16 GpuArray q with float32 or float16 k
    and v (GpuArrays, or host arrays uploaded with the call as float32) and a bool or float32 mask
    (or None): the fused kernel (kernels/attention.py), its result float32. A ValueError where the
    device cannot take the shapes: the caller composes the attention of other calls instead."""
    kind = "" if mask is None else "bool" if mask.dtype == BOOL else "float"
    operands = [q, _f32_operand(k), _f32_operand(v)]
    if mask is not None:
        operands.append(mask if isinstance(mask, GpuArray) or kind == "bool" else _f32_operand(mask))
    halves = (q.dtype == FLOAT16, operands[1].dtype == FLOAT16, operands[2].dtype == FLOAT16)

    def plan_of(layouts: list[Layout], f: Any) -> Plan:
        m_layout = layouts[3] if mask is not None else None
        return plan_attention(layouts[0], layouts[1], layouts[2], m_layout, kind, causal, scale, f,
                              halves=halves)

    def why(plan: Plan) -> str:
        parts = parts_of(plan)
        return "a GpuArray input (one fused kernel" + (
            f", the keys in {parts} parts, then a kernel combining them)" if parts > 1 else ")")

    return await _one_kernel_async("scaled_dot_product_attention", operands, (kind, causal, scale, halves),
                                   plan_of, why)


# ---------------------------------------------------------------- the public functions


def _doc(summary: str, params: list[str], example: str, shows: str) -> str:
    return "\n".join(
        [
            summary,
            "",
            *params,
            'backend: "auto" (the cost model picks), "gpu" or "numpy".',
            "",
            ">>> import asyncio, pycore",
            f">>> asyncio.run({example})",
            shows,
        ]
    )


def _public(fn: Any, name: str, signature: inspect.Signature, doc: str) -> Any:
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = "pycore"
    fn.__doc__ = doc
    fn.__signature__ = signature
    return fn


def _hide(exc: BaseException) -> None:
    if is_argument_error(exc):
        __tracebackhide__ = True


def make_ufunc(u: Ufunc) -> Any:
    P = inspect.Parameter  # noqa: N806
    names = ["x1", "x2"] if u.nin == 2 else ["x"]
    signature = inspect.Signature(
        [P(n, P.POSITIONAL_ONLY) for n in names] + [P("backend", P.KEYWORD_ONLY, default="auto")]
    )

    async def public(*args: Any, backend: str = "auto") -> Any:
        if len(args) != u.nin:
            raise mark_argument_error(
                TypeError(
                    f"{u.name}_async() takes {u.nin} array argument(s) ({', '.join(names)}), got {len(args)}"
                )
            )
        try:
            return await ufunc_async(u, args, backend)
        except (ValueError, TypeError, OverflowError) as exc:
            if is_argument_error(exc):
                __tracebackhide__ = True
            raise

    params = [f"{n}: array-like, GpuArray or Python scalar (broadcast together)." for n in names]
    return _public(public, f"{u.name}_async", signature, _doc(u.summary, params, u.example, u.shows))


TYPED_REDUCTIONS = ("sum", "prod")  # (the standard's reductions with a dtype= parameter)


async def _typed_reduce_async(r: Reduction, x: Any, axis: Any, keepdims: bool, backend: str,
                             dtype: Any) -> Any:
    """sum or prod with the standard's `dtype`: x cast to it, reduced, and the result in it."""
    want = pycore_dtype(dtype, "dtype")
    if want == BOOL:
        raise mark_argument_error(TypeError(f"{r.name}: dtype must be a numeric dtype, got bool"))
    x = x if isinstance(x, GpuArray) else as_array(x, "x")
    if x.dtype != want:
        x = await x.astype_async(want) if isinstance(x, GpuArray) else x.astype(want)
    out = await reduce_async(r, x, axis, keepdims, backend)
    if out.dtype == want:
        return out
    with np.errstate(over="ignore"):  # (wrapping, as the dtype's own arithmetic does)
        return await out.astype_async(want) if isinstance(out, GpuArray) else out.astype(want)


def make_reduction(r: Reduction) -> Any:
    P = inspect.Parameter  # noqa: N806
    params = [
        P("x", P.POSITIONAL_ONLY),
        P("axis", P.KEYWORD_ONLY, default=None),
        P("keepdims", P.KEYWORD_ONLY, default=False),
    ]
    if r.two_pass:
        params.append(P("correction", P.KEYWORD_ONLY, default=0.0))
    typed = r.name in TYPED_REDUCTIONS
    if typed:
        params.insert(2, P("dtype", P.KEYWORD_ONLY, default=None))
    params.append(P("backend", P.KEYWORD_ONLY, default="auto"))
    signature = inspect.Signature(params)
    allowed = {"correction"} if r.two_pass else {"dtype"} if typed else set()

    async def public(
        x: Any, *, axis: Any = None, keepdims: bool = False, backend: str = "auto", **extra: Any
    ) -> Any:
        if set(extra) - allowed:
            raise mark_argument_error(
                TypeError(f"{r.name}_async() got unexpected keyword argument(s) {', '.join(sorted(extra))}")
            )
        try:
            dtype = extra.pop("dtype", None)
            if dtype is None:
                return await reduce_async(r, x, axis, keepdims, backend, **extra)
            return await _typed_reduce_async(r, x, axis, keepdims, backend, dtype)
        except (ValueError, TypeError, OverflowError) as exc:
            if is_argument_error(exc):
                __tracebackhide__ = True
            raise

    lines = [
        "x: array-like or GpuArray.",
        *(["dtype: None (x's dtype; integers in int32 or uint32 by kind), or the dtype x is cast to "
           "before it is reduced and the result's."] if typed else []),
        "axis: an int, a tuple of ints, or None (every axis)."
        if not r.arg
        else "axis: an int, or None (the flattened array).",
        "keepdims: keep the reduced axes with length 1.",
    ]
    if r.two_pass:
        lines.append("correction: subtracted from N in the divisor (1 for the sample variance).")
    lines.append(
        "Returns an array where x lives: a GpuArray for a GpuArray input (0-D when every axis is "
        "reduced: it stays on the GPU), else a NumPy array (a NumPy scalar when every axis is reduced)."
    )
    return _public(public, f"{r.name}_async", signature, _doc(r.summary, lines, r.example, r.shows))


# The public names the n-d tables describe (their docs and stubs come from there; the others'
# from the op table, whichever layer runs them).
TABLED = frozenset(
    [f"{n}_async" for n in (*UFUNCS, *REDUCTIONS)]
    + [f"{a}_async" for u in UFUNCS.values() for a in u.aliases]
)

NDPUBLIC: dict[str, Any] = {
    **{f"{u.name}_async": make_ufunc(u) for u in UFUNCS.values()},
    **{f"{r.name}_async": make_reduction(r) for r in REDUCTIONS.values()},
}
for _u in UFUNCS.values():
    for _alias in _u.aliases:
        NDPUBLIC[f"{_alias}_async"] = NDPUBLIC[f"{_u.name}_async"]


async def _matmul_public(a: Any, b: Any, *, backend: str = "auto") -> Any:
    try:
        return await matmul_async(a, b, backend=backend)
    except (ValueError, TypeError, OverflowError) as exc:
        if is_argument_error(exc):
            __tracebackhide__ = True
        raise


TYPICAL = 1 << 20  # elements of the typical n-d call whose kernels the background compile prepares


def typical_kernels(device: Any) -> list[tuple]:
    """The kernels of the n-d calls a session most likely starts with, on float32 (each a
    pipeline_async argument tuple): the arithmetic ufuncs on two arrays, on an array and a scalar,
    and on a matrix and a row (a bias); sum, mean and max along the last axis, along the first
    and over everything. What dispatch.precompile prepares in the background beside the fixed ops."""
    f = facts(device)
    flat, rows = Layout.contiguous((TYPICAL,)), Layout.contiguous((1024, TYPICAL // 1024))
    row = Layout.contiguous((TYPICAL // 1024,))
    plans = []
    for name in ("add", "subtract", "multiply", "divide", "maximum", "minimum"):
        fn = _wgsl_function(UFUNCS[name], FLOAT32)
        for operands, shape in (([Operand(FLOAT32, flat), Operand(FLOAT32, flat)], flat.shape),
                                ([Operand(FLOAT32, flat), Operand(FLOAT32, None, np.float32(2))], flat.shape),
                                ([Operand(FLOAT32, rows), Operand(FLOAT32, row)], rows.shape)):
            plans.append(plan_elementwise(name, fn, operands, FLOAT32, FLOAT32, shape, f))
    for name in ("sum", "mean", "max"):
        r = REDUCTIONS[name]
        c = Combine(r.function, FLOAT32, r.identity(FLOAT32), finish=r.finish)
        for layout, axes in ((rows, (1,)), (rows, (0,)), (flat, (0,))):
            plans.append(plan_reduction(c, layout, axes, FLOAT32, f, FLOAT32, name))
    return list(dict.fromkeys(k.pipeline_args() for plan in plans for k in plan.kernels()))


KERNEL_SOURCES.append(typical_kernels)


def make_rowwise(op: Op) -> Any:
    """The public function of a row-wise op (its signature and docstring from the op table)."""
    signature = signature_of(op)

    async def public(*args: Any, **kwargs: Any) -> Any:
        try:
            (x,), params, rest = bind(op, signature, op.public_name, args, kwargs)
        except (ValueError, TypeError) as exc:
            raise mark_argument_error(exc) from None
        try:
            return await rowwise_async(op, x, params["axis"], rest["backend"])
        except (ValueError, TypeError, OverflowError) as exc:
            if is_argument_error(exc):
                __tracebackhide__ = True
            raise

    return _public(public, op.public_name, signature, docstring(op))


for _op in OPS.values():
    if _op.kind == "rowwise":
        NDPUBLIC[_op.public_name] = make_rowwise(_op)

NDPUBLIC["matmul_async"] = _public(_matmul_public, "matmul_async", inspect.signature(PUBLIC["matmul_async"]),
                                   inspect.cleandoc(matmul_async.__doc__ or ""))


# ---------------------------------------------------------------- what auto is asked (explain)

ALIASES = {alias: u.name for u in UFUNCS.values() for alias in u.aliases}  # vec_add -> add, ...


def ufunc_cost(u: Ufunc, shape: tuple[int, ...]) -> _Cost:
    """What a call of element-wise op `u` whose result has `shape` asks the selector."""
    return _Cost(u.name, u.kind, u.flops, shape)


def reduction_cost(r: Reduction, kept: tuple[int, ...]) -> _Cost:
    """What a call of reduction `r` whose result keeps the axes of sizes `kept` asks the selector."""
    return _Cost(r.name, r.kind, r.flops, kept)


def rowwise_cost(op: Op, shape: tuple[int, ...]) -> _Cost:
    """What a call of row-wise op `op` (softmax, log_softmax) on an array of `shape` asks the selector."""
    return _Cost(op.name, op.kind, op.flops((shape,)) / max(1, math.prod(shape)), shape)


def nd_cost(name: str, shapes: list[tuple[int, ...]], axis: Any = None) -> _Cost:
    """What a call of n-d op `name` (an element-wise op, an alias of one, a reduction, or a row-wise
    op) on arrays of these shapes asks the selector, as ufunc_async, reduce_async and rowwise_async
    make it: a reduction over `axis` (every axis when None), a row-wise op along it (the last when
    None). Raises as such a call would: ValueError for shapes that do not broadcast, an axis out of
    range, an empty reduction without a value; TypeError for an axis that is not an int (or a tuple
    of them, where the reduction takes one); KeyError for another name.

    >>> nd_cost("sum", [(1000, 10)], axis=1).out, nd_cost("vec_add", [(3, 1), (4,)]).out
    ((1000,), (3, 4))
    """
    u = UFUNCS.get(ALIASES.get(name, name))
    if u is not None:
        try:
            return ufunc_cost(u, broadcast_shapes(*shapes) if len(shapes) > 1 else shapes[0])
        except ValueError as exc:
            raise ValueError(f"{u.name}: {exc}") from None
    if name in ROW_OPS:
        (shape,) = shapes
        if not shape:
            raise ValueError(f"{name}: x must have at least 1 dimension (rows along an axis), "
                             "got a 0-D shape ()")
        normalize_axis(-1 if axis is None else axis, len(shape))
        return rowwise_cost(OPS[name], shape)
    r = REDUCTIONS[name]
    (shape,) = shapes
    if r.arg and axis is not None:
        axis = normalize_axis(axis, len(shape))
    axes = normalize_axes(axis, len(shape))
    kept = tuple(n for d, n in enumerate(shape) if d not in axes)
    if not r.empty_ok and 0 in shape and 0 not in kept:  # (as reduce_async)
        raise ValueError(f"{r.name}: reducing an empty axis of shape {shape} has no value (no identity)"
                         if kept else f"{r.name}: x is empty, and the {r.name} of no elements is undefined")
    return reduction_cost(r, kept)


def nd_placement(name: str, shapes: list[tuple[int, ...]], on_gpu: list[bool], axis: Any = None,
                 keepdims: bool = False) -> tuple[_Cost, bool, bool, str, Any]:
    """What backend="auto" does with a call of n-d op `name` on arrays of these shapes (on_gpu:
    which are GpuArrays), as ufunc_async, reduce_async and rowwise_async decide it: (its cost,
    whether its result stays on the GPU, whether it runs on the GPU, why, the selector's Choice or
    None)."""
    cost = nd_cost(name, shapes, axis)
    if name in REDUCTIONS:
        keep = on_gpu[0] and bool(cost.out or keepdims)  # (a reduction to a scalar returns a Python scalar)
    else:
        keep = any(on_gpu)
    empty = math.prod(cost.out) == 0 or any(math.prod(s) == 0 for s in shapes)
    device, unfit = RUNTIME.device, None
    if device is not None and name in ROW_OPS and not empty:
        unfit = row_limits(name, cost.out[normalize_axis(-1 if axis is None else axis, len(cost.out))],
                           facts(device))
    elif (device is not None and name in UFUNCS and not keep and cost.out
            and any(4 * math.prod(s) > device.max_binding for s in shapes)):
        unfit = _row_too_big(UFUNCS[ALIASES.get(name, name)], cost.out, device.max_binding)
    use_gpu, why, choice = _placement(cost.name, "auto", shapes, on_gpu, keep, cost, empty,
                                      unfit)
    return cost, keep, use_gpu, why, choice
