"""The bridge to the browser's WebGPU API: the only module of pycore that talks to JavaScript.

It maps the few WebGPU calls pycore needs onto Pyodide's FFI, in the spirit of wgpu-py: the names
are the spec's (`requestAdapter`, `createBuffer`, `writeBuffer`, `mapAsync` ...), descriptors are
plain dicts, and nothing here knows about ops. Data crosses without per-element conversion:
uploads hand WebGPU a typed-array *view* of the NumPy array's memory in the WebAssembly heap
(`PyProxy.getBuffer`), readbacks copy the mapped range straight into a NumPy array (`assign_to`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import js  # type: ignore[import-not-found]  # Pyodide only
import numpy as np
from pyodide.ffi import create_once_callable, create_proxy, jsnull, to_js  # type: ignore[import-not-found]

# GPUBufferUsage / GPUMapMode / GPUShaderStage flags, from the WebGPU spec.
MAP_READ, COPY_SRC, COPY_DST, UNIFORM, STORAGE = 0x0001, 0x0004, 0x0008, 0x0040, 0x0080
MAP_MODE_READ = 0x0001
STAGE_COMPUTE = 0x4
# A kernel's bindings, in binding order: "read" (read-only storage), "write" (storage), "uniform".
BUFFER_BINDING_TYPES = {"read": "read-only-storage", "write": "storage", "uniform": "uniform"}

# Limits requested from the adapter (its real values, not the spec defaults).
LIMIT_NAMES = (
    "maxBufferSize", "maxStorageBufferBindingSize", "maxUniformBufferBindingSize",
    "maxComputeWorkgroupsPerDimension", "maxComputeInvocationsPerWorkgroup",
    "maxComputeWorkgroupSizeX", "maxComputeWorkgroupSizeY", "maxComputeWorkgroupSizeZ",
    "maxComputeWorkgroupStorageSize", "maxStorageBuffersPerShaderStage", "maxBindGroups",
    "minStorageBufferOffsetAlignment", "minUniformBufferOffsetAlignment",
)


class GpuUnavailableError(RuntimeError):
    """No usable WebGPU device; the message is the reason shown to the user."""


def _js(obj: Any) -> Any:
    """A descriptor dict -> a plain JavaScript object (nested dicts and lists included)."""
    return to_js(obj, dict_converter=js.Object.fromEntries)


def _present(value: Any) -> bool:
    """JS null/undefined reach Python as jsnull/None; both mean 'absent' (`is None` is not enough)."""
    return value is not None and value is not jsnull


class Device:
    """A GPUDevice with the adapter facts pycore reports, and the calls pycore makes on it."""

    def __init__(self, adapter: Any, device: Any, adapter_info: dict[str, Any],
                 limits: dict[str, int], features: list[str]) -> None:
        self.adapter = adapter
        self.device = device
        self.queue = device.queue
        self.adapter_info = adapter_info
        self.limits = limits
        self.features = features

    # -- buffers
    def create_buffer(self, size: int, usage: int, label: str = "") -> Any:
        return self.device.createBuffer(_js({"size": size, "usage": usage, "label": label}))

    def write_buffer(self, buffer: Any, array: np.ndarray) -> None:
        """Upload a C-contiguous array with no intermediate copy on the Python side."""
        proxy = create_proxy(array)
        view = proxy.getBuffer("u8")
        try:
            self.queue.writeBuffer(buffer, 0, view.data, 0, array.nbytes)
        finally:
            view.release()
            proxy.destroy()

    async def read_buffer_async(self, staging: Any, out: np.ndarray) -> None:
        """Map a MAP_READ buffer and copy its first `out.nbytes` bytes into `out` (one copy)."""
        if not out.flags.c_contiguous:
            raise ValueError("read_buffer_async needs a C-contiguous destination")
        await staging.mapAsync(MAP_MODE_READ, 0, out.nbytes)
        try:
            mapped = js.Uint8Array.new(staging.getMappedRange(0, out.nbytes))
            mapped.assign_to(out.reshape(-1).view(np.uint8))
        finally:
            staging.unmap()

    # -- pipelines
    def create_shader_module(self, wgsl: str, label: str) -> Any:
        return self.device.createShaderModule(_js({"code": wgsl, "label": label}))

    async def compilation_errors_async(self, module: Any) -> str:
        """The WGSL compiler's errors for `module`, one per line with its position ('' if none)."""
        info = await module.getCompilationInfo()
        return "\n".join(f"line {m.lineNum}:{m.linePos}: {m.message}" for m in info.messages
                         if str(m.type) == "error")

    async def create_pipeline_async(self, module: Any, entry_point: str, label: str,
                                    bindings: tuple[str, ...]) -> Any:
        """A compute pipeline with an explicit layout: group 0 holds `bindings` in order."""
        layout = self.device.createBindGroupLayout(_js({"label": label, "entries": [
            {"binding": i, "visibility": STAGE_COMPUTE, "buffer": {"type": BUFFER_BINDING_TYPES[kind]}}
            for i, kind in enumerate(bindings)]}))
        return await self.device.createComputePipelineAsync(_js({
            "label": label,
            "layout": self.device.createPipelineLayout(_js({"bindGroupLayouts": [layout]})),
            "compute": {"module": module, "entryPoint": entry_point},
        }))

    # -- commands
    def submit(self, commands: list[tuple]) -> None:
        """Encode `commands` into one command buffer and submit it. Each command is
        ("dispatch", pipeline, [(buffer, bound size[, offset]), ...], (x, y, z)) or
        ("copy", src, dst, nbytes, src_offset, dst_offset). Dispatches share one compute pass;
        WebGPU orders their storage writes, so a dispatch sees what the one before it wrote."""
        encoder = self.device.createCommandEncoder()
        compute = None
        for cmd in commands:
            if cmd[0] == "dispatch":
                _, pipeline, buffers, groups = cmd
                entries = [{"binding": i, "resource": {"buffer": b[0], "size": b[1],
                                                       "offset": b[2] if len(b) > 2 else 0}}
                           for i, b in enumerate(buffers)]
                bind_group = self.device.createBindGroup(_js({
                    "layout": pipeline.getBindGroupLayout(0), "entries": entries}))
                if compute is None:
                    compute = encoder.beginComputePass()
                compute.setPipeline(pipeline)
                compute.setBindGroup(0, bind_group)
                compute.dispatchWorkgroups(*groups)
            else:
                if compute is not None:
                    compute.end()
                    compute = None
                _, src, dst, nbytes, src_offset, dst_offset = cmd
                encoder.copyBufferToBuffer(src, src_offset, dst, dst_offset, nbytes)
        if compute is not None:
            compute.end()
        self.queue.submit(_js([encoder.finish()]))

    # -- errors
    def push_error_scopes(self) -> None:
        self.device.pushErrorScope("out-of-memory")
        self.device.pushErrorScope("validation")

    async def pop_error_scopes_async(self) -> str | None:
        """The first validation or out-of-memory error since push_error_scopes, as text."""
        messages = []
        for kind in ("validation", "out-of-memory"):
            err = await self.device.popErrorScope()
            if _present(err):
                messages.append(f"{kind} error: {err.message}")
        return "; ".join(messages) or None

    def on_lost(self, callback: Callable[[str], None]) -> None:
        """Call `callback(reason)` once if the device is lost (destroyed, driver reset ...)."""
        def lost(info: Any) -> None:
            callback(f"{info.reason}: {info.message}" if _present(info.message) else str(info.reason))
        self.device.lost.then(create_once_callable(lost))

    def destroy(self) -> None:
        self.device.destroy()


async def request_device_async(timeout_s: float) -> Device:
    """Acquire an adapter and a device with the adapter's full limits.

    Raises GpuUnavailableError naming the cause: no navigator.gpu, a null adapter, a failed or stalled
    requestDevice."""
    gpu = getattr(js.navigator, "gpu", None)
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
        device = await asyncio.wait_for(adapter.requestDevice(_js({"requiredLimits": limits})), timeout_s)
    except TimeoutError:
        raise GpuUnavailableError(f"requestDevice() did not answer within {timeout_s:g} s") from None
    except Exception as exc:
        raise GpuUnavailableError(f"requestDevice() failed: {exc}") from None
    raw_info = adapter.info
    info = {key: str(getattr(raw_info, key, "") or "")
            for key in ("vendor", "architecture", "device", "description")}
    info["isFallbackAdapter"] = bool(getattr(raw_info, "isFallbackAdapter", False))
    return Device(adapter, device, info, limits, features)
