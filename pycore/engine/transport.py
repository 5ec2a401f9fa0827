"""The transport: the few WebGPU calls pycore makes, and the choice of who answers them.

Two transports implement `Transport`: `browser.py` (the browser's WebGPU, through Pyodide's FFI)
and `native.py` (wgpu-py on wgpu-native, under CPython). Nothing above this module knows which one
is in use; the WGSL in shaders/ is the same for both. `runtime.request_async()` picks one from the
environment: Pyodide -> browser; CPython with `wgpu` importable and an adapter present -> native;
otherwise none, and pycore runs on NumPy, with the reason in `pycore.info()`.

Commands (what `submit` and `submit_and_read_async` encode, in order, into one command buffer) are
`Dispatch` and `Copy` below. Dispatches share one compute pass; WebGPU orders their storage writes,
so a dispatch sees what the one before it wrote. A submit runs inside validation and out-of-memory
error scopes: its "check" says later (settle_async) whether the GPU rejected it, so nothing waits
at submit time.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

# GPUBufferUsage / GPUMapMode / GPUShaderStage flags, from the WebGPU spec.
MAP_READ, COPY_SRC, COPY_DST, UNIFORM, STORAGE = 0x0001, 0x0004, 0x0008, 0x0040, 0x0080
STAGE_COMPUTE = 0x4
# A kernel's bindings, in binding order: "read" (read-only storage), "write" (storage), "uniform".
BUFFER_BINDING_TYPES = {"read": "read-only-storage", "write": "storage", "uniform": "uniform"}
# Limits requested from the adapter (its real values, not the spec defaults), by their spec names.
LIMIT_NAMES = (
    "maxBufferSize", "maxStorageBufferBindingSize", "maxUniformBufferBindingSize",
    "maxComputeWorkgroupsPerDimension", "maxComputeInvocationsPerWorkgroup",
    "maxComputeWorkgroupSizeX", "maxComputeWorkgroupSizeY", "maxComputeWorkgroupSizeZ",
    "maxComputeWorkgroupStorageSize", "maxStorageBuffersPerShaderStage", "maxBindGroups",
    "minStorageBufferOffsetAlignment", "minUniformBufferOffsetAlignment",
)
TRANSPORTS = ("auto", "browser", "native", "numpy")


def is_lost_text(text: str) -> bool:
    """Whether a transport's error text says the device is gone ("Parent device is lost", ...)."""
    low = text.lower()
    return "device is lost" in low or "device lost" in low or "device was lost" in low \
        or "device is destroyed" in low



class Dispatch(NamedTuple):
    """Run `pipeline` over a (x, y, z) grid of workgroups with these bindings, in binding order:
    (buffer, bound bytes) or (buffer, bound bytes, offset)."""

    pipeline: Any
    bindings: list[tuple]
    groups: tuple[int, int, int]


class Copy(NamedTuple):
    """Copy `nbytes` bytes of `src` (from src_offset) to `dst` (at dst_offset)."""

    src: Any
    dst: Any
    nbytes: int
    src_offset: int = 0
    dst_offset: int = 0


Command = Dispatch | Copy


class GpuUnavailableError(RuntimeError):
    """No usable WebGPU device; the message is the reason shown to the user."""


class ShaderCompileError(RuntimeError):
    """The WGSL compiler rejected a shader; the message lists its errors with line numbers."""


class Transport(ABC):
    """One WebGPU device, and the calls pycore makes on it. Buffers, modules and pipelines are the
    transport's own objects: pycore only hands them back to it."""

    name: str  # "browser" or "native"
    compiles_in_background: bool = False  # create_pipeline_async lets other work run meanwhile
    adapter_info: dict[str, Any]  # vendor, architecture, device, description, ...
    limits: dict[str, int]  # by LIMIT_NAMES
    features: list[str]

    # -- buffers
    @abstractmethod
    def create_buffer(self, size: int, usage: int, label: str = "") -> Any: ...
    @abstractmethod
    def create_buffer_checked(self, size: int, usage: int, label: str = "") -> tuple[Any, Any]:
        """A buffer and the check of its allocation (settled like a submit's; None when the
        transport knew at once). Raises MemoryError if the allocation failed at once."""
    @abstractmethod
    def destroy_buffer(self, buffer: Any) -> None: ...
    @abstractmethod
    def write_buffer(self, buffer: Any, array: np.ndarray) -> None:
        """Queue an upload of the C-contiguous `array` to the start of `buffer`."""
    def staged_bytes(self) -> int:
        return 0  # host memory kept for uploads between them (staging buffers), in bytes

    # -- pipelines (pycore caches them: one per entry point and device)
    @abstractmethod
    def create_shader_module(self, wgsl: str, label: str) -> Any: ...
    @abstractmethod
    async def create_pipeline_async(self, module: Any, entry_point: str, label: str,
                                    bindings: tuple[str, ...]) -> Any:
        """A compute pipeline whose bind group 0 holds `bindings` (see BUFFER_BINDING_TYPES) in
        order. Raises ShaderCompileError with the compiler's messages if the WGSL is wrong."""

    # -- commands
    @abstractmethod
    def submit(self, commands: list[Command]) -> Any:
        """Encode and submit `commands`; return their check without waiting for it."""
    @abstractmethod
    async def settle_async(self, checks: list[Any]) -> list[str | None]:
        """The error text of each check (None: accepted), in one wait."""
    @abstractmethod
    async def submit_and_read_async(self, commands: list[Command], staging: Any, out: np.ndarray,
                                    earlier: list[Any]) -> tuple[list[str | None], str | None, float]:
        """Submit `commands` (the last copies into the MAP_READ buffer `staging`; none: the copy was
        submitted before), map `staging` and copy its first out.nbytes bytes into `out`; settle
        the `earlier` checks on the way.
        Returns (earlier checks' errors, this submit's error, milliseconds spent encoding)."""
    @abstractmethod
    async def work_done_async(self) -> None:
        """Wait until the GPU has finished everything submitted so far."""
    def mark(self) -> Any:
        return None  # a mark of the work submitted so far (None: this transport keeps none)
    def marked(self, mark: Any) -> bool | None:
        return None  # whether the work up to `mark` has finished (None: cannot tell without waiting)
    async def wait_marked_async(self, mark: Any) -> None:
        """Wait for the work up to `mark` (KeyboardInterrupt if the page interrupts meanwhile)."""
        await self.work_done_async()

    async def time_dispatch_async(self, pipeline: Any, bindings: list[tuple], groups: tuple[int, int, int],
                                  reps: int) -> float | None:
        """GPU ms per dispatch of `pipeline` on `bindings` over `groups`, from timestamp queries
        around `reps` dispatches in one pass; None where the device cannot tell."""
        return None

    # -- the device
    @abstractmethod
    def on_lost(self, callback: Callable[[str], None]) -> None:
        """Call `callback(reason)` once if the device is lost."""

    def js_device(self) -> Any:
        """The JavaScript GPUDevice, for JavaScript beside pycore (the raw-JS yardsticks); or None."""
        return None

    async def lost_within_async(self, seconds: float) -> bool:
        """Whether the device reports a loss within `seconds` (its on_lost callbacks have run by
        then). For a call that failed: a loss may be reported after the call's own error."""
        return False
    @abstractmethod
    def destroy(self) -> None: ...


def wanted_transport() -> str:
    """The transport asked for by the environment: $PYCORE_TRANSPORT, else "auto"."""
    wanted = os.environ.get("PYCORE_TRANSPORT", "auto").strip().lower() or "auto"
    if wanted not in TRANSPORTS:
        raise ValueError(f"PYCORE_TRANSPORT must be one of {', '.join(TRANSPORTS)}, got {wanted!r}")
    return wanted
