"""The native transport: WebGPU under CPython through wgpu-py (`pip install wgpu`), on wgpu-native
(see transport.py for the interface).

wgpu-native runs on Vulkan, Metal or D3D12: a desktop GPU, a datacenter GPU, or Mesa's lavapipe on
a machine without one. The calls are the same as the browser's, in wgpu-py's snake_case; wgpu-py
reports a rejected call by raising GPUError at the call, so a submit's check is known at once.
Waiting for the GPU (mapping the readback buffer) blocks the calling thread, as NumPy would.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import wgpu

from pycore.engine.transport import (
    BUFFER_BINDING_TYPES,
    COPY_SRC,
    LIMIT_NAMES,
    MAP_READ,
    STAGE_COMPUTE,
    STORAGE,
    Command,
    Dispatch,
    GpuUnavailableError,
    ShaderCompileError,
    Transport,
    is_lost_text,
)

ADAPTER_INFO_KEYS = ("vendor", "architecture", "device", "description", "adapter_type", "backend_type")


def _kebab(name: str) -> str:
    """A WebGPU limit's spec name as wgpu-py spells it: maxBufferSize -> max-buffer-size."""
    return re.sub(r"([A-Z])", lambda m: "-" + m.group(1).lower(), name)


class _Pipeline:
    """A compute pipeline with its bind group layout (made explicitly, so kept beside it)."""

    __slots__ = ("layout", "pipeline")

    def __init__(self, pipeline: Any, layout: Any) -> None:
        self.pipeline, self.layout = pipeline, layout


class NativeTransport(Transport):
    """A wgpu-native device."""

    name = "native"

    def __init__(self, adapter: Any, device: Any, adapter_info: dict[str, Any],
                 limits: dict[str, int], features: list[str]) -> None:
        self.adapter = adapter
        self.device = device
        self.queue = device.queue
        self.adapter_info = adapter_info
        self.limits = limits
        self.features = features
        self._lost: list[Callable[[str], None]] = []
        self._fence: Any = None

    # -- buffers
    def create_buffer(self, size: int, usage: int, label: str = "") -> Any:
        try:
            return self.device.create_buffer(size=size, usage=usage, label=label)
        except wgpu.GPUError as exc:
            text = self._error_text(exc)
            if "memory" in text.lower():
                raise MemoryError(text) from None
            raise

    def create_buffer_checked(self, size: int, usage: int, label: str = "") -> tuple[Any, Any]:
        return self.create_buffer(size, usage, label), None

    def destroy_buffer(self, buffer: Any) -> None:
        buffer.destroy()

    def write_buffer(self, buffer: Any, array: np.ndarray) -> None:
        try:
            self.queue.write_buffer(buffer, 0, array.reshape(-1).view(np.uint8))
        except wgpu.GPUError as exc:
            self._error_text(exc)  # a lost device is reported
            raise

    # -- pipelines
    def create_shader_module(self, wgsl: str, label: str) -> Any:
        try:
            return self.device.create_shader_module(code=wgsl, label=label)
        except wgpu.GPUError as exc:  # naga parses and validates here, at creation
            self._error_text(exc)  # a lost device is reported
            raise ShaderCompileError(str(exc)) from None

    async def create_pipeline_async(self, module: Any, entry_point: str, label: str,
                                    bindings: tuple[str, ...]) -> Any:
        try:
            layout = self.device.create_bind_group_layout(label=label, entries=[
                {"binding": i, "visibility": STAGE_COMPUTE, "buffer": {"type": BUFFER_BINDING_TYPES[kind]}}
                for i, kind in enumerate(bindings)])
            pipeline = self.device.create_compute_pipeline(
                label=label, layout=self.device.create_pipeline_layout(bind_group_layouts=[layout]),
                compute={"module": module, "entry_point": entry_point})
        except wgpu.GPUError as exc:
            self._error_text(exc)  # a lost device is reported
            raise ShaderCompileError(str(exc)) from None
        return _Pipeline(pipeline, layout)

    # -- commands
    def _encode(self, commands: list[Command]) -> Any:
        encoder = self.device.create_command_encoder()
        compute = None
        for c in commands:
            if isinstance(c, Dispatch):
                group = self.device.create_bind_group(layout=c.pipeline.layout, entries=[
                    {"binding": i, "resource": {"buffer": b[0], "offset": b[2] if len(b) > 2 else 0,
                                                "size": b[1]}}
                    for i, b in enumerate(c.bindings)])
                if compute is None:
                    compute = encoder.begin_compute_pass()
                compute.set_pipeline(c.pipeline.pipeline)
                compute.set_bind_group(0, group)
                compute.dispatch_workgroups(*c.groups)
            else:
                if compute is not None:
                    compute.end()
                    compute = None
                encoder.copy_buffer_to_buffer(c.src, c.src_offset, c.dst, c.dst_offset, c.nbytes)
        if compute is not None:
            compute.end()
        return encoder.finish()

    def submit(self, commands: list[Command]) -> str | None:
        """The check is the error text itself (wgpu-py raises at the call that was rejected)."""
        try:
            self.queue.submit([self._encode(commands)])
        except wgpu.GPUError as exc:
            return self._error_text(exc)
        return None

    async def settle_async(self, checks: list[Any]) -> list[str | None]:
        return list(checks)

    async def submit_and_read_async(self, commands: list[Command], staging: Any, out: np.ndarray,
                                    earlier: list[Any]) -> tuple[list[str | None], str | None, float]:
        if not out.flags.c_contiguous:
            raise ValueError("submit_and_read_async needs a C-contiguous destination")
        start = time.perf_counter()
        error = self.submit(commands) if commands else None
        encode_ms = (time.perf_counter() - start) * 1e3
        if error is None:
            try:
                staging.map_sync(MAP_READ, 0, out.nbytes)
                try:
                    data = staging.read_mapped(0, out.nbytes, copy=False)
                    out.reshape(-1).view(np.uint8)[:] = np.frombuffer(data, np.uint8)
                finally:
                    staging.unmap()
            except (wgpu.GPUError, RuntimeError) as exc:
                error = "mapAsync failed: " + self._error_text(exc)
        return list(earlier), error, encode_ms

    async def work_done_async(self) -> None:
        # Mapping waits for all earlier queue work. (wgpu-py 0.32's on_submitted_work_done fails
        # on a callback signature mismatch with its wgpu-native, so a 4-byte readback stands in.)
        if self._fence is None:
            self._fence = self.create_buffer(4, COPY_SRC | STORAGE, "work-done")
        self.queue.read_buffer(self._fence, 0, 4)

    def _error_text(self, exc: Exception) -> str:
        """The error's text; a lost device (wgpu-native reports none by itself) is reported."""
        text = f"{type(exc).__name__.removeprefix('GPU')}: {exc}"
        if is_lost_text(str(exc)):
            self._report_lost(" ".join(str(exc).split()))
        return text

    # -- the device
    def on_lost(self, callback: Callable[[str], None]) -> None:
        """wgpu-native reports no loss by itself: destroy() and calls that fail with a lost device
        report it."""
        self._lost.append(callback)

    def _report_lost(self, reason: str) -> None:
        callbacks, self._lost = self._lost, []
        for callback in callbacks:
            callback(reason)

    def destroy(self) -> None:
        self.device.destroy()
        self._report_lost("destroyed: the device was destroyed")


async def request_device_async(timeout_s: float) -> NativeTransport:
    """An adapter (high-performance preferred) and a device with the adapter's full limits.

    Raises GpuUnavailableError when wgpu-native finds no adapter (no Vulkan/Metal/D3D12 driver)."""
    try:
        adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    except Exception as exc:  # wgpu-native raises when no backend has an adapter
        raise GpuUnavailableError(f"wgpu found no GPU adapter ({type(exc).__name__}: {exc}); a Vulkan "
                                  "driver is needed (on Debian: apt install mesa-vulkan-drivers)") from None
    if adapter is None:
        raise GpuUnavailableError("wgpu found no GPU adapter; a Vulkan driver is needed "
                                  "(on Debian: apt install mesa-vulkan-drivers)")
    limits = {}
    for name in LIMIT_NAMES:
        value = adapter.limits.get(_kebab(name))
        if value is not None:
            limits[name] = int(value)
    try:
        device = adapter.request_device_sync(required_limits={_kebab(k): v for k, v in limits.items()})
    except Exception as exc:
        raise GpuUnavailableError(f"requestDevice() failed: {type(exc).__name__}: {exc}") from None
    raw = adapter.info
    info: dict[str, Any] = {key: str(raw.get(key, "") or "") for key in ADAPTER_INFO_KEYS}
    info["isFallbackAdapter"] = bool(getattr(adapter, "is_fallback_adapter", False))
    return NativeTransport(adapter, device, info, limits, sorted(str(f) for f in adapter.features))
