"""Running an op from the table: convert the inputs, check them, pick the backend, run, record.

Every public `*_async` function lands in `run_async`. backend="gpu" or "numpy" forces one;
"auto" asks the selector (selector.py), which knows which inputs already live on the GPU, and
tells it the wall time of calls it settles by measuring, unless the device cannot take the call's
shapes at all (Program.unfit: a binding, the workgroup grid, a loop cap), when NumPy runs it. When
any array input is a GpuArray, the result is a GpuArray too, on the GPU whichever backend computed it
(reductions return floats). If the
device is lost during a call, the NumPy path answers it. Each call is recorded in the trace with
its backend, the selector's reasoning and the time per stage. A call on GpuArrays that repeats an
earlier one (same op, parameters and shapes) replays the plan that call's program made (through
the executor) instead of running the program again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from pycore.array.convert import as_float32
from pycore.calls.gpuarray import GpuArray, to_gpu_async
from pycore.calls.programs import PROGRAMS
from pycore.choice.selector import SELECTOR
from pycore.engine import interrupts
from pycore.engine.device import Device, GpuOutOfMemoryError, expect_cost
from pycore.engine.executor import remember, replay, run_plans_async
from pycore.engine.runtime import RUNTIME
from pycore.engine.session import GpuSession, GpuView
from pycore.tables.ops import OPS, Op

RUNTIME.on_device.append(lambda device: SELECTOR.forget_measurements())  # a new device, new speeds


def precompile(device: Device | None) -> None:
    """Compile the pipelines every op uses on a new device, in the background (where the
    transport compiles asynchronously), most used kinds first: a first call finds its kernel
    ready, or waits only for the compile already under way."""
    if device is None or not device.transport.compiles_in_background or not PRECOMPILE:
        return
    order = ("unary", "binary", "reduce", "rowwise", "matmul", "conv2d")
    kernels = [k for kind in order for op in OPS.values() if op.kind == kind
               for k in PROGRAMS[kind].kernels(device, op)]
    kernels += [k for source in KERNEL_SOURCES for k in source(device)]
    try:
        asyncio.get_running_loop().create_task(device.precompile_async(list(dict.fromkeys(kernels))))
    except RuntimeError:  # no running loop: the kernels compile on first use
        pass


PRECOMPILE = True  # pycore.calls.dispatch.PRECOMPILE = False: compile each kernel on its first use only
# More kernels to prepare, from the layers that plan them: device -> pipeline_async arguments (the
# n-d ops register theirs: calls/nd.py).
KERNEL_SOURCES: list[Callable[[Device], list[tuple]]] = []
RUNTIME.on_device.append(precompile)

BACKENDS = ("auto", "gpu", "numpy")


def _record(op: Op, shapes: list[tuple[int, ...]], backend: str, stages: dict[str, float],
            why: str) -> None:
    ms = {k: v * 1e3 for k, v in stages.items()}  # (pycore.trace() rounds them)
    RUNTIME.record({"op": op.name, "shapes": shapes, "backend": backend, "why": why, "ms": ms,
                    "total_ms": sum(ms.values())})


def _checked(op: Op, program: Any, inputs: list[Any], params: dict[str, Any],
             backend: str) -> tuple[list[Any], list[tuple[int, ...]]]:
    """The inputs as float32 arrays or GpuViews, and their shapes, once every argument is checked."""
    __tracebackhide__ = True  # (what it raises is the caller's mistake: see api.make_public)
    if backend not in BACKENDS:
        raise ValueError(f"{op.name}: backend must be one of {', '.join(map(repr, BACKENDS))}, "
                         f"got {backend!r}")
    arrays = [x.view() if isinstance(x, GpuArray) else as_float32(x, name)
              for x, name in zip(inputs, op.inputs, strict=True)]
    shapes = [tuple(a.shape) for a in arrays]
    program.check(op, shapes, params)
    problem = op.check(params) if op.check else None
    if problem:
        raise ValueError(f"{op.name}: {problem}")
    return arrays, shapes


def unfit_why(problem: Exception) -> str:
    """The trace's `why` of an auto call that runs on NumPy because the GPU cannot take it: its
    shapes, or (a TypeError) its dtypes."""
    if isinstance(problem, TypeError):
        return f"{problem}: ran on NumPy"
    return f"the GPU cannot take these shapes ({problem}): ran on NumPy"


def mark_argument_error(exc: BaseException) -> BaseException:
    """Mark `exc` as the caller's mistake (see is_argument_error); returns it."""
    exc.pycore_argument_error = True  # type: ignore[attr-defined]
    return exc


def is_argument_error(exc: BaseException) -> bool:
    """Whether pycore raised `exc` because of the call's arguments (shape, dtype, size, parameter)
    rather than while computing.

    >>> import asyncio, pycore
    >>> try:
    ...     asyncio.run(pycore.matmul_async([[1.0, 2.0]], [[1.0, 2.0]]))
    ... except ValueError as exc:
    ...     is_argument_error(exc)
    True
    """
    return bool(getattr(exc, "pycore_argument_error", False))


def plan_key(op: Op, shapes: list[tuple[int, ...]], params: dict[str, Any], device: Device,
             program: Any) -> tuple | None:
    """The key of a fixed-kernel call's plan on GpuArrays: the op, its parameters by their exact
    bits (-0.0 == 0.0, yet x * -0.0 is not x * 0.0), the shapes, and what can change which kernel
    runs (the program's settings, the device's binding limit); None when a parameter cannot be a key."""
    try:
        values = tuple(v.hex() if type(v) is float else v for v in params.values())
        k = (op.name, values, tuple(shapes), program.revision, device.max_binding)
        hash(k)
    except TypeError:
        return None
    return k


async def _replayed_async(op: Op, program: Any, inputs: list[Any], params: dict[str, Any], backend: str,
                          start: float) -> GpuArray | None:
    """The result of a call on GpuArrays that repeats a planned one (engine.executor.remember), or
    None to take the general path. Its arguments need no checks: a call with the same shapes,
    parameters and program settings passed them (the inputs' own state is still checked, by
    binding()). Anything unusual (a GpuArray on the NumPy fallback, auto choosing NumPy, a failing
    replay) goes the general way."""
    device = RUNTIME.device
    if device is None or not device.plans or (backend != "gpu" and backend != "auto"):
        return None
    for x in inputs:
        if type(x) is not GpuArray or not x._plain:
            return None
    shapes = [x.shape for x in inputs]
    known = device.plans.get(plan_key(op, shapes, params, device, program))
    if known is None:
        return None
    plan, shape = known
    bound = [(*x.binding(), x.checks) for x in inputs]
    why = "backend='gpu'"
    choice = None
    if backend == "auto":
        choice = SELECTOR.choose(op, shapes, [True] * len(shapes), result_on_gpu=True)
        if choice.backend != "webgpu":
            return None
        why = choice.why
    expect_cost(op.name, SELECTOR.work_ms(op, shapes))
    try:
        queued = replay(device, op.name, plan, bound)
        if queued is None:
            buf, checks, stages = await run_plans_async(device, op.name, [(plan, bound)], keep=True)
        else:
            (buf, checks), stages = queued, {"buffers": 0.0, "dispatch": 0.0}
    except Exception:  # (the general path runs it again, and handles a lost device or full memory)
        return None
    took = time.perf_counter() - start
    _record(op, shapes, "webgpu", {**stages, "python": took - sum(stages.values())}, why)
    if choice is not None and choice.key is not None:  # a call auto settles by timing it
        SELECTOR.observe(choice, took * 1e3, "webgpu")
    return GpuArray(shape, buffer=buf, checks=checks, device=device)


async def _plain_async(x: Any) -> Any:
    """A GpuArray as the fixed-kernel programs bind it: float32, C-contiguous from its buffer's start
    (a view, or another dtype, is copied on the GPU first, queued with the call's own work)."""
    if type(x) is not GpuArray or x._plain:
        return x
    if x.device != "webgpu":
        return GpuArray(x.shape, host=np.ascontiguousarray(await x.to_numpy_async(), np.float32))
    return await x.astype_async(np.float32)


async def _dot_async(inputs: list[Any], backend: str) -> Any:
    """numpy.dot beyond two vectors (which the dot kernels answer: None here): a 0-d operand
    multiplies; otherwise a sum over a's last axis and b's second-to-last (its only one when 1-D),
    which is a matmul (b moved to (k, rest) when it has more than 2 dimensions)."""
    a, b = (x if isinstance(x, GpuArray) else as_float32(x, n)
            for x, n in zip(inputs, ("a", "b"), strict=True))
    if a.ndim == 1 and b.ndim == 1:
        return None
    matmul = OPS["matmul"]
    if a.ndim == 0 or b.ndim == 0:  # a scale of the other operand
        s, x = (a, b) if a.ndim == 0 else (b, a)
        value = float(await s.to_numpy_async() if isinstance(s, GpuArray) else s)
        return await run_async(OPS["scale"], [x], {"s": value}, backend)
    if b.ndim <= 2:
        k = b.shape[-2 if b.ndim == 2 else 0]
        if a.shape[-1] != k:
            raise mark_argument_error(ValueError(
                f"dot: a {a.shape} and b {b.shape} do not match: a's last axis ({a.shape[-1]}) must equal "
                f"b's {'second-to-last' if b.ndim == 2 else 'only'} axis ({k})"))
        return await run_async(matmul, [a, b], {}, backend)
    k = b.shape[-2]
    if a.shape[-1] != k:
        raise mark_argument_error(ValueError(f"dot: a {a.shape} and b {b.shape} do not match: a's last axis "
                                             f"({a.shape[-1]}) must equal b's second-to-last axis ({k})"))
    order = (b.ndim - 2, *range(b.ndim - 2), b.ndim - 1)
    moved = b.transpose(order)
    if isinstance(moved, GpuArray):
        moved = await moved.copy_async()
    out = await run_async(matmul, [a, moved.reshape(k, -1)], {}, backend)
    return out.reshape(*a.shape[:-1], *b.shape[:-2], b.shape[-1])


async def run_async(op: Op, inputs: list[Any], params: dict[str, Any], backend: str = "auto") -> Any:
    """Run `op` on `inputs` (array-likes or GpuArrays, named as in op.inputs) with checked `params`."""
    users = RUNTIME.call_started()
    try:
        start = time.perf_counter()
        interrupts.check()
        if RUNTIME.device is not None and RUNTIME.device.backlogged():  # (wait for the GPU first)
            await RUNTIME.device.keep_up_async()
        program = PROGRAMS[op.kind]
        replayed = await _replayed_async(op, program, inputs, params, backend, start)
        if replayed is not None:
            return replayed
        if op.name == "dot":
            product = await _dot_async(inputs, backend)
            if product is not None:
                return product
        plain = [await _plain_async(x) for x in inputs]
        if any(p is not x for p, x in zip(plain, inputs, strict=True)):  # (a view copied: a known plan
            replayed = await _replayed_async(op, program, plain, params, backend, start)  # may take it now)
            if replayed is not None:
                return replayed
        inputs = plain
        try:
            arrays, shapes = _checked(op, program, inputs, params, backend)
        except (ValueError, TypeError) as exc:
            mark_argument_error(exc)
            __tracebackhide__ = True
            raise
        on_gpu = [isinstance(a, GpuView) for a in arrays]
        keep = any(isinstance(x, GpuArray) for x in inputs) and op.kind != "reduce"  # host operands upload
        await RUNTIME.init_async()
        device = RUNTIME.device
        if backend == "gpu" and device is None:
            raise RuntimeError(f"{op.name}: backend='gpu' asked for, but there is no WebGPU device: "
                               f"{RUNTIME.reason}")
        why = f"backend={backend!r}"
        choice = None
        use_gpu = device is not None and program.needs_gpu(shapes) and backend != "numpy"
        if use_gpu and backend == "auto":
            problem = program.unfit(device, op, shapes, params, any(on_gpu) or keep)
            if problem is not None:  # (backend="gpu" raises it, from the program)
                use_gpu, why = False, unfit_why(problem)
            else:
                choice = SELECTOR.choose(op, shapes, on_gpu, result_on_gpu=keep)
                use_gpu, why = choice.backend == "webgpu", choice.why
        elif device is None:
            why = f"no WebGPU: {RUNTIME.reason}"
        if use_gpu:
            assert device is not None  # (use_gpu needs a device)
            key = plan_key(op, shapes, params, device, program) if keep and all(on_gpu) else None
            expect_cost(op.name, SELECTOR.work_ms(op, shapes))
            try:
                async with GpuSession(device, op.name, keep_result=keep) as gpu:
                    result = await program.gpu_async(gpu, op, arrays, params)
                if key is not None:
                    remember(device, key, gpu, arrays, result)
                stages = gpu.stages
                stages["python"] = time.perf_counter() - start - sum(stages.values())
                _record(op, shapes, "webgpu", stages, why)
                if choice is not None and choice.key is not None:  # a call auto settles by timing it
                    SELECTOR.observe(choice, (time.perf_counter() - start) * 1e3, "webgpu")
                return GpuArray.of(result, device) if keep else result
            except Exception as exc:
                if await RUNTIME.lost_during_async(device, exc):
                    why = f"device lost during the call: {device.lost}"
                elif isinstance(exc, GpuOutOfMemoryError) and backend == "auto":
                    why = f"the GPU ran out of memory: {exc}"
                else:
                    raise
        host = [await x.to_numpy_async() if isinstance(x, GpuArray) and isinstance(a, GpuView) else a
                for x, a in zip(inputs, arrays, strict=True)]
        with np.errstate(all="ignore"):  # IEEE results for inf/NaN inputs, as on the GPU, without warnings
            result = program.numpy(op, host, params)
        _record(op, shapes, "numpy", {"compute": time.perf_counter() - start}, why)
        if choice is not None and choice.key is not None and choice.backend == "numpy":
            SELECTOR.observe(choice, (time.perf_counter() - start) * 1e3, "numpy")
        if keep and RUNTIME.device is not None:  # computed on the host, kept where its inputs live
            return await to_gpu_async(result)
        return GpuArray.of(result) if keep else result
    finally:
        RUNTIME.call_ended(users)
