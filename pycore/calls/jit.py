"""`pycore.jit`: an async function of arrays, captured at its first call and replayed after.

`step = pycore.jit(fn)` wraps an `async def` function whose array arguments are GpuArrays (host
arrays are uploaded first). The first call with a given signature (each array argument's shape,
dtype and layout, and the values of the other arguments, which must be hashable) runs `fn` as
usual while the device records the work it queues (engine/capture.py); later calls with that
signature queue the recorded kernels again on the new arrays and return new GpuArrays of the same
shapes, without running `fn`'s Python: a pipeline of a dozen calls costs one enqueue per slice of
work instead of a dozen calls' checks, choices and planning.

As with any tracing compiler, what `fn` computes must depend only on its arguments: Python values
it reads from elsewhere (a global, a closure's NumPy array) are the ones of the first call, and an
array it uses without taking it as an argument is read as it is at each call. `fn` may not read a
GPU value back (`to_numpy_async`, a function whose result's shape depends on the values such as
`nonzero`): the capture raises `TracingError` saying which call read. A call whose fused kernels
are still compiling in the background is not captured (its calls ran unfused): it waits for them,
and the next call is. A function whose work cannot
be replayed (it returns an input, or an array made from host data: see capture.py) runs as it is
at every call; its trace entry says why. Without a GPU, `fn` simply runs (on NumPy).

Where the device has timestamp queries, a new capture's kernels are timed once, and its replays
are predicted to take that long (the queue paces submits, and a read decides whether to wait for
earlier work first, by predictions: see engine/device.py).

A captured program keeps its intermediate buffers for the next call (its footprint is the
function's working set, kept between calls, as `held_bytes` in `step.captures()` says);
`step.clear()` gives them back, as does dropping `step`.
"""

from __future__ import annotations

import functools
import inspect
import numbers
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import numpy as np

from pycore.calls.gpuarray import GpuArray, to_gpu_async
from pycore.engine.capture import FOREIGN, RECORDING, Captured, Recorder, TracingError
from pycore.engine.executor import compiles_async, compiling
from pycore.engine.runtime import RUNTIME

CAPTURES = 16  # signatures captured per function at most (the oldest is dropped)
PACED_KERNELS = 64  # a capture of at most this many kernels is timed once (_paced_async)
STATIC = (type(None), bool, int, float, complex, str, bytes, np.generic, np.dtype, type)


class _Arrays:
    """The array arguments of one call, in order: the arrays and their distinct buffers."""

    def __init__(self) -> None:
        self.arrays: list[GpuArray] = []
        self.buffers: list[Any] = []
        self._index: dict[int, int] = {}

    def add(self, x: GpuArray) -> tuple:
        """x's part of the signature: shape, dtype, layout, and which distinct buffer it is."""
        self.arrays.append(x)
        k = self._index.get(id(x._buffer))
        if k is None:
            k = self._index[id(x._buffer)] = len(self.buffers)
            self.buffers.append(x._buffer)
        return ("array", x.shape, x.dtype.str, x.layout.strides, x.layout.offset, k)


async def _prepared_async(x: Any, arrays: _Arrays, where: str) -> tuple[Any, Any]:
    """(the argument as fn gets it, its part of the signature): GpuArrays (host arrays uploaded)
    and containers of them are walked; anything else is a static value, part of the signature."""
    if isinstance(x, np.ndarray):
        x = await to_gpu_async(x)
    if isinstance(x, GpuArray):
        x.check_usable()
        if x._buffer is None:  # (held on the host: it belongs on the GPU now)
            x = await to_gpu_async(await x.to_numpy_async())
        return x, arrays.add(x)
    if isinstance(x, (tuple, list)):
        parts = [await _prepared_async(v, arrays, f"{where}[{i}]") for i, v in enumerate(x)]
        value = [p[0] for p in parts]
        return (tuple(value) if isinstance(x, tuple) else value), (type(x).__name__, *(p[1] for p in parts))
    if isinstance(x, dict):
        items = [(k, await _prepared_async(v, arrays, f"{where}[{k!r}]")) for k, v in x.items()]
        return {k: p[0] for k, p in items}, ("dict", *((k, p[1]) for k, p in items))
    if isinstance(x, STATIC) or isinstance(x, numbers.Number):
        return x, ("value", type(x).__name__, x)
    try:
        hash(x)
    except TypeError:
        raise TypeError(f"pycore.jit: argument {where} ({type(x).__name__}) is neither an array nor "
                        f"hashable; a jitted function's other arguments are part of its signature") from None
    return x, ("value", type(x).__name__, x)


async def _signature_async(args: tuple, kwargs: dict[str, Any]
                           ) -> tuple[_Arrays, tuple, dict[str, Any], tuple]:
    """A call's array arguments, its arguments as fn gets them, and its signature."""
    arrays = _Arrays()
    prepared = [await _prepared_async(x, arrays, f"{i}") for i, x in enumerate(args)]
    named = {k: await _prepared_async(v, arrays, k) for k, v in kwargs.items()}
    key = (tuple(p[1] for p in prepared), tuple((k, p[1]) for k, p in named.items()))
    return arrays, tuple(p[0] for p in prepared), {k: p[0] for k, p in named.items()}, key


def _results(value: Any, found: list[GpuArray]) -> Any:
    """The shape of fn's result with its GpuArrays listed in `found` (("array", k) in their place),
    or None where it holds what a replay could not give again (anything but arrays, containers of
    them, and Python scalars)."""
    if isinstance(value, GpuArray):
        found.append(value)
        return ("array", len(found) - 1)
    if isinstance(value, (tuple, list)):
        parts = [_results(v, found) for v in value]
        return None if any(p is None for p in parts) else (type(value).__name__, parts)
    if isinstance(value, dict):
        items = [(k, _results(v, found)) for k, v in value.items()]
        return None if any(p is None for _, p in items) else ("dict", items)
    if value is None or isinstance(value, (bool, int, float, complex, str)):
        return ("value", value)
    return None


def _rebuilt(shape: Any, arrays: list[GpuArray]) -> Any:
    kind = shape[0]
    if kind == "array":
        return arrays[shape[1]]
    if kind == "value":
        return shape[1]
    if kind == "dict":
        return {k: _rebuilt(v, arrays) for k, v in shape[1]}
    parts = [_rebuilt(v, arrays) for v in shape[1]]
    return tuple(parts) if kind == "tuple" else parts


class _Program:
    """A captured program and how to make its results: the result shape (see _results), and per
    result array (its buffer's index among the program's results, shape, dtype, layout, and the
    array that owned that buffer in the capture: (shape, dtype, layout), None if it was itself)."""

    def __init__(self, captured: Captured, shape: Any, arrays: list[tuple]) -> None:
        self.captured, self.shape, self.arrays = captured, shape, arrays


class Jitted:
    """An async function captured per signature (see the module doc).

    >>> import asyncio, numpy as np, pycore
    >>> @pycore.jit
    ... async def dense(x, w, b):
    ...     return await pycore.relu_async(await pycore.add_async(await pycore.matmul_async(x, w), b))
    >>> async def demo():
    ...     x, w, b = [await pycore.to_gpu_async(a) for a in ([[1.0, -2.0]], [[1.0], [1.0]], [0.5])]
    ...     first = await dense(x, w, b)           # runs the calls, and captures them
    ...     again = await dense(x, w, b)           # replays the captured kernels
    ...     return await first.to_numpy_async(), await again.to_numpy_async()
    >>> asyncio.run(demo())
    (array([[0.]], dtype=float32), array([[0.]], dtype=float32))
    """

    def __init__(self, fn: Callable[..., Awaitable[Any]]) -> None:
        self.fn = fn
        self.name = getattr(fn, "__name__", "function")
        self._programs: dict[tuple, _Program | str] = {}
        self._device: Any = None
        functools.update_wrapper(self, fn)
        weakref.finalize(self, _closed, self._programs)

    def __repr__(self) -> str:
        return f"<pycore.jit of {self.name}: {len(self._programs)} signature(s) captured>"

    def captures(self) -> list[dict[str, Any]]:
        """What each signature captured: kernels, commands and slices replayed per call, the
        bytes of GPU memory the program keeps between calls and the GPU milliseconds a replay is
        predicted to take; or why it runs its calls one by one."""
        out = []
        for program in self._programs.values():
            if isinstance(program, str):
                out.append({"replayed": False, "why": program})
                continue
            c = program.captured
            out.append({"replayed": True, "kernels": c.kernels, "commands": c.commands,
                        "slices": len(c.slices), "held_bytes": c.held_bytes,
                        "predicted_ms": sum(ms for _, ms, _ in c.slices)})
        return out

    async def kernel_ms_async(self, *args: Any, **kwargs: Any) -> float | None:
        """GPU milliseconds of the kernels a call with these arguments replays, from timestamp
        queries (each kernel timed alone: see Captured.time_async); None where the device has no
        timestamp queries or nothing is captured for these arguments yet."""
        device = RUNTIME.device
        if device is None or device is not self._device:
            return None
        arrays, _, _, key = await _signature_async(args, kwargs)
        program = self._programs.get(key)
        if not isinstance(program, _Program) or program.captured.closed:
            return None
        return await program.captured.time_async(arrays.buffers)

    def clear(self) -> None:
        """Forget every capture and give back the buffers they keep."""
        _closed(self._programs)

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        await RUNTIME.init_async()
        device = RUNTIME.device
        if device is None or device.recorder is not None:  # (no GPU; or inside another capture,
            return await self.fn(*args, **kwargs)  # which records these calls as its own)
        if device is not self._device:
            self.clear()
            self._device = device
        arrays, args, kwargs, key = await _signature_async(args, kwargs)
        program = self._programs.get(key)
        if isinstance(program, _Program) and not program.captured.closed:
            return self._run(program, arrays)
        if isinstance(program, str):
            return await self.fn(*args, **kwargs)
        return await self._capture_async(key, arrays, args, kwargs)

    def _run(self, program: _Program, arrays: _Arrays) -> Any:
        t = time.perf_counter()
        captured = program.captured
        checks = [c for x in arrays.arrays for c in x.checks]
        buffers, pending = captured.run(self.name, arrays.buffers, checks)
        device = captured.device
        made: dict[int, GpuArray] = {}
        results = []
        for k, shape, dtype, layout, owner in program.arrays:
            buf = buffers[k]
            if owner is None and k not in made:
                made[k] = x = GpuArray(shape, buffer=buf, checks=pending, device=device, dtype=dtype,
                                       layout=layout)
                results.append(x)
                continue
            base = made.get(k)
            if base is None:
                o_shape, o_dtype, o_layout = owner if owner is not None else (shape, dtype, layout)
                base = made[k] = GpuArray(o_shape, buffer=buf, checks=pending, device=device, dtype=o_dtype,
                                          layout=o_layout)
            results.append(GpuArray(shape, buffer=buf, checks=pending, device=device, dtype=dtype,
                                    layout=layout, base=base))
        self._note(arrays, f"replayed the {captured.kernels} kernels captured at an earlier call with "
                   f"arguments like these", t)
        return _rebuilt(program.shape, results)

    async def _capture_async(self, key: tuple, arrays: _Arrays, args: tuple, kwargs: dict[str, Any]) -> Any:
        """Run fn while the device records its work; keep the program (or why there is none)."""
        device = RUNTIME.device
        assert device is not None
        t, calls = time.perf_counter(), RUNTIME.counters["ops_run"]
        device.flush()  # (what was queued before is not the function's)
        recorder = Recorder(device)
        device.recorder, token = recorder, RECORDING.set(recorder)
        device.pool.trimming = False  # (a buffer it drops may be one a replay uses: none is destroyed)
        try:
            value = await self.fn(*args, **kwargs)
            device.flush()
        except BaseException:
            recorder.abandon()
            raise
        finally:
            device.recorder = None
            RECORDING.reset(token)
            device.pool.trimming = True
        found: list[GpuArray] = []
        shape = _results(value, found)
        if compiling():  # (its calls ran unfused: the next call, which finds the fused kernels
            recorder.abandon()  # compiled, is captured)
            device.pool.trim()
            await compiles_async()
            self._note(arrays, "ran its calls; captured at the next call, once the fused kernels they "
                       "started compiling are ready", t)
            return value
        program = self._program(recorder, shape, found, arrays)
        device.pool.trim()
        if isinstance(program, _Program):
            self._keep(key, program)
            ms = await _paced_async(program.captured, arrays.buffers)
            timed = "" if ms is None else f" (their GPU time {ms:.3g} ms by timestamps)"
            self._note(arrays, f"captured {program.captured.kernels} kernels{timed} of "
                       f"{RUNTIME.counters['ops_run'] - calls} calls: the next calls with these arguments "
                       f"replay them", t)
        elif program == FOREIGN:  # (another task's work: the next call tries again)
            self._note(arrays, f"ran its calls, not captured: {program}", t)
        else:
            self._keep(key, program)
            self._note(arrays, f"runs its calls one by one: {program}", t)
        return value

    @staticmethod
    def _program(recorder: Recorder, shape: Any, found: list[GpuArray], arrays: _Arrays) -> _Program | str:
        """The captured program of fn's result (its shape, and the arrays in it), or why none."""
        if shape is None:
            recorder.abandon()
            return "it returns something other than arrays, containers of them and scalars"
        if any(x._buffer is None or x._device is not recorder.device for x in found):
            recorder.abandon()
            return "it returns a host array"
        results: list[Any] = []
        index: dict[int, int] = {}
        for x in found:
            if id(x._buffer) not in index:
                index[id(x._buffer)] = len(results)
                results.append(x._buffer)
        captured = recorder.finish(arrays.buffers, results)
        if isinstance(captured, str):
            return captured
        described = [(index[id(x._buffer)], x.shape, x.dtype, x.layout,
                      None if x._base is None else (x._base.shape, x._base.dtype, x._base.layout))
                     for x in found]
        return _Program(captured, shape, described)

    def _keep(self, key: tuple, program: _Program | str) -> None:
        if len(self._programs) >= CAPTURES:
            _close(self._programs.pop(next(iter(self._programs))))  # (the oldest)
        self._programs[key] = program

    def _note(self, arrays: _Arrays, why: str, t: float) -> None:
        """A trace entry for this call of the function (its own calls have theirs)."""
        ms = (time.perf_counter() - t) * 1e3
        RUNTIME.record({"op": f"jit {self.name}", "shapes": [x.shape for x in arrays.arrays],
                        "backend": "webgpu", "why": why, "ms": {"dispatch": ms}, "total_ms": ms})


async def _paced_async(captured: Captured, inputs: list[Any]) -> float | None:
    """Time a new capture's kernels once (timestamps; at most PACED_KERNELS of them) and have its
    replays predicted by that (Captured.pace): the cost model's figures for the calls, which
    include each call's fixed costs, are tens of times a captured pipeline's kernels (an H200's
    k-means step: 30.5 ms predicted, 0.5 ms of kernels), and a read after predicted-long work
    waits for it first. The GPU milliseconds, or None (no timestamp queries, too many kernels, or
    the timing failed: the predictions stay)."""
    if captured.kernels > PACED_KERNELS:
        return None
    try:
        ms = await captured.time_async(inputs, reps=1)
    except Exception:  # (a lost device says so at the next call)
        return None
    if ms is not None:
        captured.pace(ms)
    return ms


def _close(program: _Program | str) -> None:
    if isinstance(program, _Program):
        program.captured.close()


def _closed(programs: dict[tuple, _Program | str]) -> None:
    for program in programs.values():
        _close(program)
    programs.clear()


def jit(fn: Callable[..., Awaitable[Any]]) -> Jitted:
    """`fn` (an `async def` function of arrays) captured at its first call with each signature and
    replayed after: see pycore.calls.jit. Use it as a decorator (`@pycore.jit`).

    >>> import pycore
    >>> async def scaled(x, s):
    ...     return await pycore.multiply_async(x, s)
    >>> pycore.jit(scaled)
    <pycore.jit of scaled: 0 signature(s) captured>
    """
    if isinstance(fn, Jitted):
        return fn
    if not inspect.iscoroutinefunction(fn):
        raise TypeError(f"pycore.jit: fn must be an async function (async def ...), got {type(fn).__name__}")
    return Jitted(fn)


__all__ = ["Jitted", "TracingError", "jit"]
