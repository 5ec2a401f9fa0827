"""The browser transport: WebGPU through Pyodide's FFI (see transport.py for the interface), with
its JavaScript half in bridge.js (loaded by bridge.py). The settings kept in the browser are
settings.py's, not the transport's.

It maps the calls onto the browser's API in the spirit of wgpu-py: the names are the spec's
(`requestAdapter`, `createBuffer`, `writeBuffer`, `mapAsync` ...) and descriptors are plain dicts.
Data crosses without per-element conversion: uploads hand WebGPU the NumPy array's bytes straight
from the WebAssembly heap, readbacks copy the mapped range straight into the NumPy array's memory.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import js  # type: ignore[import-not-found]  # Pyodide only
import numpy as np
from pyodide.ffi import create_once_callable, create_proxy, jsnull, to_js  # type: ignore[import-not-found]

from pycore.engine import bridge, interrupts
from pycore.engine.transport import (
    BUFFER_BINDING_TYPES,
    LIMIT_NAMES,
    STAGE_COMPUTE,
    Command,
    Dispatch,
    GpuUnavailableError,
    ShaderCompileError,
    Transport,
)


def _flat(commands: list[Command]) -> Any:
    """Commands as one flat JavaScript array, as bridge.js's encode reads them (buffers and
    pipelines pass through as themselves; one flat list converts several times faster than nested
    ones): a dispatch is 0, pipeline, x, y, z, n, then n times (buffer, size, offset); a copy is
    1, src, dst, nbytes, src offset, dst offset."""
    flat: list[Any] = []
    for c in commands:
        if type(c) is Dispatch:
            flat += (0, c.pipeline, *c.groups, len(c.bindings))
            for b in c.bindings:
                flat += (b[0], b[1], b[2] if len(b) > 2 else 0)
        else:
            flat += (1, *c)
    return to_js(flat)


def _js(obj: Any) -> Any:
    """A descriptor dict -> a plain JavaScript object (nested dicts and lists included)."""
    return to_js(obj, dict_converter=js.Object.fromEntries)


def _present(value: Any) -> bool:
    """JS null/undefined reach Python as jsnull/None; both mean 'absent' (`is None` is not enough)."""
    return value is not None and value is not jsnull


class BrowserTransport(Transport):
    """A GPUDevice of the browser, with the adapter facts pycore reports."""

    name = "browser"
    compiles_in_background = True  # createComputePipelineAsync

    def __init__(self, adapter: Any, device: Any, adapter_info: dict[str, Any],
                 limits: dict[str, int], features: list[str]) -> None:
        self.adapter = adapter
        self.device = device  # the JavaScript GPUDevice (see js_device)
        self.queue = device.queue
        self.adapter_info = adapter_info
        self.limits = limits
        self.features = features

    # -- buffers
    def create_buffer(self, size: int, usage: int, label: str = "") -> Any:
        # (positional arguments to a bridge function: a third of the cost of converting a dict)
        return bridge.functions().create(self.device, size, usage, label)

    def create_buffer_checked(self, size: int, usage: int, label: str = "") -> tuple[Any, Any]:
        buffer, check = bridge.functions().createChecked(self.device, size, usage, label)
        return buffer, check

    def destroy_buffer(self, buffer: Any) -> None:
        bridge.functions().destroy(self.device, buffer)  # (its cached bind groups go with it)

    def write_buffer(self, buffer: Any, array: np.ndarray) -> None:
        """Upload a C-contiguous array straight from the WebAssembly heap (no copy in Python); a large
        one through a staging buffer kept mapped between uploads (bridge.js's `upload`)."""
        if bridge.heap_module() is not None:
            bridge.functions().write(self.device, buffer, array.ctypes.data, array.nbytes)
            return
        proxy = create_proxy(array)  # public API, four FFI calls: used if the heap is not exposed
        view = proxy.getBuffer("u8")
        try:
            self.queue.writeBuffer(buffer, 0, view.data, 0, array.nbytes)
        finally:
            view.release()
            proxy.destroy()

    def staged_bytes(self) -> int:
        return int(bridge.functions().stagedBytes(self.device))

    # -- pipelines
    def create_shader_module(self, wgsl: str, label: str) -> Any:
        return self.device.createShaderModule(_js({"code": wgsl, "label": label}))

    async def create_pipeline_async(self, module: Any, entry_point: str, label: str,
                                    bindings: tuple[str, ...]) -> Any:
        layout = self.device.createBindGroupLayout(_js({"label": label, "entries": [
            {"binding": i, "visibility": STAGE_COMPUTE, "buffer": {"type": BUFFER_BINDING_TYPES[kind]}}
            for i, kind in enumerate(bindings)]}))
        try:
            return await self.device.createComputePipelineAsync(_js({
                "label": label,
                "layout": self.device.createPipelineLayout(_js({"bindGroupLayouts": [layout]})),
                "compute": {"module": module, "entryPoint": entry_point},
            }))
        except Exception as exc:
            info = await module.getCompilationInfo()
            errors = "\n".join(f"line {m.lineNum}:{m.linePos}: {m.message}" for m in info.messages
                               if str(m.type) == "error")
            if not errors:
                raise
            raise ShaderCompileError(errors) from exc

    # -- commands (encoded in bridge.js: one FFI call per submit instead of a dozen per dispatch)
    def submit(self, commands: list[Command]) -> Any:
        """Returns a promise of the error scopes' text or null."""
        return bridge.functions().submit(self.device, _flat(commands))

    async def settle_async(self, checks: list[Any]) -> list[str | None]:
        if not checks:
            return []
        errors = (await js.Promise.all(to_js(checks))).to_py()
        return [str(e) if _present(e) else None for e in errors]

    async def submit_and_read_async(self, commands: list[Command], staging: Any, out: np.ndarray,
                                    earlier: list[Any]) -> tuple[list[str | None], str | None, float]:
        """One await in all: every Python await of a JavaScript promise costs a trip through the
        event loop (~0.3 ms measured here)."""
        if not out.flags.c_contiguous:
            raise ValueError("submit_and_read_async needs a C-contiguous destination")
        if bridge.heap_module() is None:
            raise RuntimeError("pycore needs Pyodide's WebAssembly heap (pyodide._module.HEAPU8)")
        got = await bridge.functions().submitAndRead(self.device, _flat(commands), staging, out.nbytes,
                                            out.ctypes.data, to_js(earlier) if earlier else jsnull,
                                            _interrupt_buffer())
        if type(got) is float or type(got) is int:  # no errors: the encode time
            return [None] * len(earlier), None, float(got)
        if isinstance(got, str):  # "interrupted": the page asked Python to stop (Ctrl-C)
            interrupts.taken()
            raise KeyboardInterrupt
        got = got.to_py()
        earlier_errors, error, map_error, encode_ms = got
        return ([str(e) if _present(e) else None for e in earlier_errors],
                str(error) if _present(error) else (str(map_error) if _present(map_error) else None),
                float(encode_ms))

    async def work_done_async(self) -> None:
        await self.queue.onSubmittedWorkDone()

    def mark(self) -> Any:
        return bridge.functions().mark(self.queue)

    def marked(self, mark: Any) -> bool | None:
        return bool(mark.done)

    async def wait_marked_async(self, mark: Any) -> None:
        """Interrupted like a readback (see submit_and_read_async)."""
        if mark.done:
            return
        if isinstance(await bridge.functions().waitMark(mark, _interrupt_buffer()), str):
            interrupts.taken()
            raise KeyboardInterrupt

    async def time_dispatch_async(self, pipeline: Any, bindings: list[tuple], groups: tuple[int, int, int],
                                  reps: int) -> float | None:
        if "timestamp-query" not in self.features:
            return None
        flat = [[b[0], b[1], b[2] if len(b) > 2 else 0] for b in bindings]
        ns = await bridge.functions().timeDispatch(self.device, pipeline, to_js(flat), *groups, reps)
        return float(ns) / 1e6

    def js_device(self) -> Any:
        return self.device

    async def lost_within_async(self, seconds: float) -> bool:
        """(A destroyed device fails a pending mapAsync before its `lost` promise resolves.)"""
        return bool(await bridge.functions().lostWithin(self.device, seconds * 1e3))

    def on_lost(self, callback: Callable[[str], None]) -> None:
        def lost(info: Any) -> None:
            callback(f"{info.reason}: {info.message}" if _present(info.message) else str(info.reason))
        self.device.lost.then(create_once_callable(lost))

    def destroy(self) -> None:
        self.device.destroy()


def _interrupt_buffer() -> Any:
    """Pyodide's interrupt buffer where the host installed pycore's handler on it (web/worker.js):
    a readback waiting for the GPU stops when the page signals it. Else null (not interrupted)."""
    buffer = interrupts.buffer()
    return buffer if buffer is not None and buffer is not jsnull else jsnull


async def request_device_async(timeout_s: float) -> BrowserTransport:
    """Acquire an adapter and a device with the adapter's full limits.

    Raises GpuUnavailableError naming the cause: no navigator.gpu, a null adapter, a failed or stalled
    requestDevice."""
    gpu: Any = getattr(js.navigator, "gpu", None)
    if not _present(gpu):
        raise GpuUnavailableError("navigator.gpu is missing (this browser or page has no WebGPU)")
    try:
        adapter = await asyncio.wait_for(gpu.requestAdapter(_js({"powerPreference": "high-performance"})),
                                         timeout_s)
    except TimeoutError:
        raise GpuUnavailableError(f"requestAdapter() did not answer within {timeout_s:g} s") from None
    except Exception as exc:
        raise GpuUnavailableError(f"requestAdapter() failed: {exc}") from None
    if not _present(adapter):
        raise GpuUnavailableError("requestAdapter() returned null (no suitable GPU adapter; "
                             "is WebGPU enabled for this GPU?)")
    limits = {name: int(getattr(adapter.limits, name)) for name in LIMIT_NAMES
              if _present(getattr(adapter.limits, name, None))}
    features = sorted(str(f) for f in getattr(js.Array, "from")(adapter.features))
    try:
        wanted: dict[str, Any] = {"requiredLimits": limits}
        if "timestamp-query" in features:  # (kernel times for the benchmarks: time_dispatch_async)
            wanted["requiredFeatures"] = ["timestamp-query"]
        device = await asyncio.wait_for(adapter.requestDevice(_js(wanted)), timeout_s)
    except TimeoutError:
        raise GpuUnavailableError(f"requestDevice() did not answer within {timeout_s:g} s") from None
    except Exception as exc:
        raise GpuUnavailableError(f"requestDevice() failed: {exc}") from None
    raw_info = adapter.info
    info: dict[str, Any] = {key: str(getattr(raw_info, key, "") or "")
                            for key in ("vendor", "architecture", "device", "description")}
    info["isFallbackAdapter"] = bool(getattr(raw_info, "isFallbackAdapter", False))
    return BrowserTransport(adapter, device, info, limits, features)
