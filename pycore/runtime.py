"""The compute backend in use: acquiring the WebGPU device, falling back to NumPy, and reporting.

There is one Runtime per Python process (`RUNTIME`). `init_async()` picks the backend once:
"webgpu" when running in Pyodide with a usable adapter and device, else "numpy" with the reason.
A lost device switches the runtime to "numpy" (the reason says so); later ops keep working.
"""

from __future__ import annotations

import sys
import time
from collections import OrderedDict, deque
from typing import Any

import numpy as np

from . import __version__
from .pool import BufferPool
from .shaders import wgsl_source

IN_PYODIDE = sys.platform == "emscripten"
DEVICE_TIMEOUT_S = 15.0
TRACE_LENGTH = 256
UNIFORM_CACHE = 512  # distinct uniform blocks kept on the GPU (32 bytes each)


class Runtime:
    def __init__(self) -> None:
        self.backend = "numpy"
        self.reason = "not initialised yet: await pycore.init_async()"
        self.initialised = False
        self.device: Any = None  # webgpu.Device when backend == "webgpu"
        self.pool: BufferPool | None = None
        self.pipelines: dict[tuple[str, str], Any] = {}
        self.modules: dict[str, Any] = {}  # family -> GPUShaderModule
        self.compile_ms: dict[str, float] = {}
        self.trace: deque[dict[str, Any]] = deque(maxlen=TRACE_LENGTH)
        self.device_lost: str | None = None
        self.generation = 0  # bumped when a device is lost: GpuArrays of older generations are dead
        self.uniforms: OrderedDict[bytes, Any] = OrderedDict()  # packed words -> uniform buffer
        self._checks: list[tuple[str, Any]] = []  # (op, promise of error text) not yet awaited
        self.counters = {"ops_run": 0, "elements": 0, "busy_ms": 0.0}  # since the page loaded

    async def init_async(self) -> None:
        if self.initialised:
            return
        self.initialised = True
        if not IN_PYODIDE:
            self._fallback("not running in a browser: pycore's WebGPU transport needs Pyodide")
            return
        from . import webgpu

        try:
            device = await webgpu.request_device_async(DEVICE_TIMEOUT_S)
        except webgpu.GpuUnavailableError as exc:
            self._fallback(str(exc))
            return
        except Exception as exc:  # an unexpected browser answer must not leave pycore unusable
            self._fallback(f"WebGPU initialisation failed: {type(exc).__name__}: {exc}")
            return
        self.device = device
        self.pool = BufferPool(device.create_buffer, lambda buf: buf.destroy())
        self.backend = "webgpu"
        self.reason = "WebGPU device acquired"
        device.on_lost(self._on_device_lost)
        from .calibrate import load_saved

        load_saved()

    def _fallback(self, reason: str) -> None:
        self.backend, self.reason = "numpy", reason
        self.device = None
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
        c["elements"] += sum(int(np.prod(s)) for s in entry["shapes"])
        c["busy_ms"] = round(c["busy_ms"] + entry["total_ms"], 4)

    def uniform(self, words: np.ndarray) -> Any:
        """The uniform buffer holding `words` (made and written once, then reused)."""
        key = words.tobytes()
        buf = self.uniforms.get(key)
        if buf is not None:
            self.uniforms.move_to_end(key)
            return buf
        from .webgpu import COPY_DST, UNIFORM

        buf = self.device.create_buffer(words.nbytes, UNIFORM | COPY_DST, "uniform")
        self.device.write_buffer(buf, words)
        self.uniforms[key] = buf
        if len(self.uniforms) > UNIFORM_CACHE:  # work already submitted may still use it: destroy
            _, old = self.uniforms.popitem(last=False)  # lets that work finish first
            old.destroy()
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
            import js  # type: ignore[import-not-found]
            from pyodide.ffi import to_js  # type: ignore[import-not-found]

            errors = (await js.Promise.all(to_js([c for _, c in checks]))).to_py()
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

    async def pipeline_async(self, family: str, entry: str, bindings: tuple[str, ...]) -> Any:
        """The compiled pipeline for one WGSL entry point, created once per device (asynchronously,
        so compiling never blocks the page); its compile time is kept for info()."""
        key = (family, entry)
        pipeline = self.pipelines.get(key)
        if pipeline is None:
            label, start = f"{family}.{entry}", time.perf_counter()
            module = self.modules.get(family)
            if module is None:
                module = self.modules[family] = self.device.create_shader_module(wgsl_source(family), family)
            try:
                pipeline = await self.device.create_pipeline_async(module, entry, label, bindings)
            except Exception as exc:
                errors = await self.device.compilation_errors_async(module)
                if not errors:
                    raise
                raise RuntimeError(f"shaders/{family}.wgsl does not compile:\n{errors}") from exc
            self.compile_ms[label] = round((time.perf_counter() - start) * 1e3, 3)
            self.pipelines[key] = pipeline
        return pipeline

    def tier(self) -> str:
        """One line for a status bar: 'WebGPU — google / swiftshader' or 'NumPy fallback — <reason>'."""
        if self.backend == "webgpu":
            names = (self.device.adapter_info.get(k) for k in ("vendor", "architecture", "description"))
            return "WebGPU — " + (" / ".join(n for n in names if n) or "unnamed adapter")
        return f"NumPy fallback — {self.reason}"

    def info(self) -> dict[str, Any]:
        dev = self.device
        versions = {"pycore": __version__, "numpy": np.__version__,
                    "python": sys.version.split()[0]}
        if IN_PYODIDE:
            import pyodide  # type: ignore[import-not-found]

            versions["pyodide"] = pyodide.__version__
        return {
            "backend": self.backend,
            "reason": self.reason,
            "tier": self.tier(),
            "adapter": dict(dev.adapter_info) if dev else None,
            "limits": dict(dev.limits) if dev else {},
            "features": list(dev.features) if dev else [],
            "versions": versions,
            "memory": self.pool.stats() if self.pool else None,
            "pipelines_compiled_ms": dict(self.compile_ms),
            "device_lost": self.device_lost,
            "counters": dict(self.counters),
        }


RUNTIME = Runtime()
