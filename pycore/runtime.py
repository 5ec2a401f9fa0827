"""The compute backend in use: acquiring a WebGPU device, falling back to NumPy, and reporting.

There is one Runtime per Python process (`RUNTIME`). `init_async()` picks the backend once:
"webgpu" when a transport (transport.py) has a usable adapter and device, through the browser in
Pyodide or through wgpu-py under CPython, else "numpy" with the reason. $PYCORE_TRANSPORT (or
init_async's `transport`) asks for one: "auto", "browser", "native" or "numpy".
A lost device switches the runtime to "numpy" (the reason says so); later ops keep working.
"""

from __future__ import annotations

import math
import sys
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

import numpy as np

from . import __version__
from .pool import BufferPool
from .shaders import wgsl_source
from .transport import (
    COPY_DST,
    TRANSPORTS,
    UNIFORM,
    GpuUnavailableError,
    ShaderCompileError,
    Transport,
    request_async,
    wanted_transport,
)

IN_PYODIDE = sys.platform == "emscripten"
DEVICE_TIMEOUT_S = 15.0
TRACE_LENGTH = 256
UNIFORM_CACHE = 512  # distinct uniform blocks kept on the GPU (32 bytes each)


class Runtime:
    def __init__(self) -> None:
        self.backend = "numpy"
        self.reason = "not initialised yet: await pycore.init_async()"
        self.initialised = False
        self.device: Transport | None = None  # set when backend == "webgpu"
        self.transport = "none"  # "browser", "native" or "none"
        self.pool: BufferPool | None = None
        self.pipelines: dict[tuple[str, str], Any] = {}
        self.modules: dict[str, Any] = {}  # family (or generated kernel) -> GPUShaderModule
        self.compile_ms: dict[str, float] = {}
        self.trace: deque[dict[str, Any]] = deque(maxlen=TRACE_LENGTH)
        self.device_lost: str | None = None
        self.generation = 0  # bumped when a device is lost: GpuArrays of older generations are dead
        self.uniforms: OrderedDict[bytes, Any] = OrderedDict()  # packed words -> uniform buffer
        self._checks: list[tuple[str, Any]] = []  # (op, promise of error text) not yet awaited
        self.counters = {"ops_run": 0, "elements": 0, "busy_ms": 0.0}  # since the page loaded

    async def init_async(self, transport: str | None = None) -> None:
        """Acquire a device through `transport` (default: $PYCORE_TRANSPORT, else "auto")."""
        if transport is not None and transport not in TRANSPORTS:
            raise ValueError(f"init_async: transport must be one of {', '.join(TRANSPORTS)}, "
                             f"got {transport!r}")
        if self.initialised:  # every op calls this: nothing more to do once a backend is chosen
            return
        wanted = transport or wanted_transport()
        self.initialised = True
        if wanted == "numpy":
            self._fallback("the NumPy backend was asked for (transport='numpy')")
            return
        try:
            device = await request_async(wanted, DEVICE_TIMEOUT_S)
        except GpuUnavailableError as exc:
            self._fallback(str(exc))
            return
        except Exception as exc:  # an unexpected answer must not leave pycore unusable
            self._fallback(f"WebGPU initialisation failed: {type(exc).__name__}: {exc}")
            return
        self.device = device
        self.transport = device.name
        self.pool = BufferPool(device.create_buffer, device.destroy_buffer)
        self.backend = "webgpu"
        self.reason = ("WebGPU device acquired from the browser" if device.name == "browser" else
                       "WebGPU device acquired through wgpu-py (wgpu-native)")
        device.on_lost(self._on_device_lost)
        from .calibrate import load_saved

        load_saved()

    def shutdown(self) -> None:
        """Give the device back and forget everything on it: GpuArrays made so far stop working,
        and the next init_async() chooses a transport again."""
        device = self.device
        self.generation += 1
        self._fallback("shut down: await pycore.init_async() to start again")
        self.initialised = False
        if device is not None:
            device.destroy()  # its loss report finds no device left to drop
        self.device_lost = None

    def _fallback(self, reason: str) -> None:
        self.backend, self.reason = "numpy", reason
        self.device = None
        self.transport = "none"
        self.pool = None
        self.pipelines.clear()
        self.modules.clear()
        self.uniforms.clear()
        self._checks.clear()

    def record(self, entry: dict[str, Any]) -> None:
        """Add a finished call to the trace and the counters (see info())."""
        self.trace.append(entry)
        c = self.counters
        c["ops_run"] += 1
        for shape in entry["shapes"]:  # (math.prod: np.prod costs more than a small op)
            c["elements"] += math.prod(shape)
        c["busy_ms"] += entry["total_ms"]

    def uniform(self, words: np.ndarray) -> Any:
        """The uniform buffer holding `words` (made and written once, then reused)."""
        key = words.tobytes()
        buf = self.uniforms.get(key)
        if buf is not None:
            self.uniforms.move_to_end(key)
            return buf
        buf = self.device.create_buffer(words.nbytes, UNIFORM | COPY_DST, "uniform")
        self.device.write_buffer(buf, words)
        self.uniforms[key] = buf
        if len(self.uniforms) > UNIFORM_CACHE:  # work already submitted may still use it: destroy
            _, old = self.uniforms.popitem(last=False)  # lets that work finish first
            self.device.destroy_buffer(old)
        return buf

    def defer_check(self, op: str, checked: Any) -> None:
        """Remember a submit's error check, to be settled at the next read."""
        self._checks.append((op, checked))

    def unchecked(self) -> int:
        return len(self._checks)

    def take_checks(self) -> list[tuple[str, Any]]:
        """The deferred error checks (op, promise), handed over for settling."""
        checks, self._checks = self._checks, []
        return checks

    async def settle_checks_async(self) -> None:
        """Await the deferred error checks (in one await); raise for the first that found one."""
        checks = self.take_checks()
        if checks and self.device is not None:
            errors = await self.device.settle_async([c for _, c in checks])
            self.raise_first([(op, e) for (op, _), e in zip(checks, errors, strict=True)])

    @staticmethod
    def raise_first(results: list[tuple[str, Any]]) -> None:
        for op, error in results:
            if error:
                raise RuntimeError(f"{op} (an earlier call whose result stayed on the GPU): "
                                   f"the GPU rejected the work: {error}")

    def _on_device_lost(self, reason: str) -> None:
        if self.device is None:
            return
        self.device_lost = reason
        self.generation += 1
        self._fallback(f"device lost ({reason})")

    @staticmethod
    def pipeline_key(family: str, entry: str, name: str | None = None) -> tuple[str, str]:
        """The cache key of a pipeline: a generated kernel's `name` tells it from its siblings."""
        return (family, entry if name is None else f"{entry}:{name}")

    async def pipeline_async(self, family: str, entry: str, bindings: tuple[str, ...],
                             source: Callable[[], str] | None = None, name: str | None = None) -> Any:
        """The compiled pipeline for one WGSL entry point, created once per device (asynchronously,
        so compiling never blocks the page); its compile time is kept for info(). The source is
        shaders/<family>.wgsl, or `source()` for a generated kernel (called only to compile it)."""
        key = self.pipeline_key(family, entry, name)
        pipeline = self.pipelines.get(key)
        if pipeline is None:
            label, start = ".".join(key), time.perf_counter()
            module_key = family if source is None else label
            module = self.modules.get(module_key)
            try:
                if module is None:
                    module = self.device.create_shader_module(
                        wgsl_source(family) if source is None else source(), module_key)
                    self.modules[module_key] = module
                pipeline = await self.device.create_pipeline_async(module, entry, label, bindings)
            except ShaderCompileError as exc:
                what = f"shaders/{family}.wgsl" + ("" if source is None else f" (generated: {name})")
                raise RuntimeError(f"{what} does not compile:\n{exc}") from None
            self.compile_ms[label] = round((time.perf_counter() - start) * 1e3, 3)
            self.pipelines[key] = pipeline
        return pipeline

    def tier(self) -> str:
        """One line for a status bar: 'WebGPU — google / swiftshader' (in a browser), 'WebGPU
        (wgpu-native) — llvmpipe / ...' (native), or 'NumPy fallback — <reason>'."""
        if self.backend == "webgpu":
            names = (self.device.adapter_info.get(k) for k in ("vendor", "architecture", "description"))
            where = "WebGPU" if self.transport == "browser" else "WebGPU (wgpu-native)"
            return f"{where} — " + (" / ".join(n for n in names if n) or "unnamed adapter")
        return f"NumPy fallback — {self.reason}"

    def info(self) -> dict[str, Any]:
        dev = self.device
        versions = {"pycore": __version__, "numpy": np.__version__,
                    "python": sys.version.split()[0]}
        if IN_PYODIDE:
            import pyodide  # type: ignore[import-not-found]

            versions["pyodide"] = pyodide.__version__
        elif self.transport == "native":
            import wgpu

            versions["wgpu"] = wgpu.__version__
        return {
            "backend": self.backend,
            "transport": self.transport,
            "reason": self.reason,
            "tier": self.tier(),
            "adapter": dict(dev.adapter_info) if dev else None,
            "limits": dict(dev.limits) if dev else {},
            "features": list(dev.features) if dev else [],
            "versions": versions,
            "memory": self.pool.stats() if self.pool else None,
            "pipelines_compiled_ms": dict(self.compile_ms),
            "device_lost": self.device_lost,
            "counters": {**self.counters, "busy_ms": round(self.counters["busy_ms"], 4)},
        }


RUNTIME = Runtime()
