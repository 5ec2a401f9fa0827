"""The compute backend in use: acquiring a WebGPU device, falling back to NumPy, getting a new
device after a loss, and reporting.

There is one Runtime per Python process (`RUNTIME`). `init_async()` picks the backend once:
"webgpu" when a transport (transport.py) has a usable adapter and device, through the browser in
Pyodide or through wgpu-py under CPython, else "numpy" with the reason. $PYCORE_TRANSPORT (or
init_async's `transport`) asks for one: "auto", "browser", "native" or "numpy". Asking init_async
for another transport than the one chosen later switches to it (see init_async).

A lost device (a driver reset, a GPU removed, a device destroyed) switches the runtime to "numpy"
at once, so calls in flight and later calls are answered on NumPy. Every op calls init_async(),
which then asks for a new device: at the first call after the loss, and if that fails, again after
1, 2, 4 ... up to 60 seconds. The trace records the loss and the new device (op "device").
"""

from __future__ import annotations

import asyncio
import math
import sys
import time
from collections import deque
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

import numpy as np

from pycore._version import __version__
from pycore.engine import settings
from pycore.engine.device import Device, DeviceLostError
from pycore.engine.transport import TRANSPORTS, GpuUnavailableError, Transport, is_lost_text, wanted_transport

IN_PYODIDE = sys.platform == "emscripten"
DEVICE_TIMEOUT_S = 15.0
TRACE_LENGTH = 256
RETRY_MAX_S = 60.0  # the longest wait between tries for a new device after a loss
STABLE_S = 60.0  # a device that lived this long before its loss is retried at once
LOSS_REPORT_S = 0.25  # how long a failed call waits for the device's own report of a loss
# Set in pycore's own background work (the background calibration): its calls are not the user's,
# so they are neither traced nor counted as activity.
QUIET: ContextVar[bool] = ContextVar("pycore_quiet", default=False)


async def request_async(wanted: str, timeout_s: float) -> Transport:
    """The transport `wanted` ("auto", "browser" or "native"), with a device acquired.

    Raises GpuUnavailableError naming why none is usable (no WebGPU in this browser, wgpu not
    installed, no adapter ...)."""
    import sys

    in_pyodide = sys.platform == "emscripten"
    if wanted not in TRANSPORTS or wanted == "numpy":
        raise ValueError(f"transport must be one of {', '.join(TRANSPORTS[:3])}, got {wanted!r}")
    if wanted == "auto":
        wanted = "browser" if in_pyodide else "native"
    if wanted == "browser":
        if not in_pyodide:
            raise GpuUnavailableError("the browser transport needs Pyodide (this is CPython)")
        from pycore.engine import browser

        return await browser.request_device_async(timeout_s)
    if in_pyodide:
        raise GpuUnavailableError("the native transport (wgpu-py) does not run in Pyodide")
    try:
        from pycore.engine import native
    except ImportError as exc:
        raise GpuUnavailableError(f"wgpu is not installed ({exc}); `pip install wgpu` for the "
                                  "native WebGPU transport") from None
    return await native.request_device_async(timeout_s)



class Runtime:
    def __init__(self) -> None:
        self.backend = "numpy"
        self.reason = "not initialised yet: await pycore.init_async()"
        self.initialised = False
        self.wanted = "auto"  # the transport asked for
        self.device: Device | None = None  # set when backend == "webgpu"
        self.transport = "none"  # "browser", "native" or "none"
        self.trace: deque[dict[str, Any]] = deque(maxlen=TRACE_LENGTH)
        self.device_lost: str | None = None  # the last loss's reason
        self.losses = 0
        self.recoveries = 0
        self._retry_at: float | None = None  # when to ask for a new device after a loss
        self._backoff = 0.0
        self.counters = {"ops_run": 0, "elements": 0, "busy_ms": 0.0}  # since the page loaded
        self.calls_running = 0  # the user's calls under way (see idle_s)
        self.last_call_at = time.monotonic()  # when the user's last call ended
        # Called with the new Device when one is acquired, and with None when it goes (the
        # selector forgets its measurements; the saved calibration is loaded).
        self.on_device: list[Callable[[Device | None], None]] = []

    async def init_async(self, transport: str | None = None) -> None:
        """Acquire a device through `transport` (default: $PYCORE_TRANSPORT, else "auto"); after a
        loss, try for a new one when the backoff allows. Once a transport is chosen, a call without
        `transport` (every op makes one) or with the one chosen changes nothing; naming another
        switches to it: the device in use is given back (GpuArrays on it raise RuntimeError from
        then on; a batch that ran on it is read as after a device loss) and the new transport is set up."""
        if transport is not None and transport not in TRANSPORTS:
            raise ValueError(f"init_async: transport must be one of {', '.join(TRANSPORTS)}, "
                             f"got {transport!r}")
        if self.initialised and transport is not None and self._switches_to(transport):
            was = self.transport if self.transport != "none" else self.wanted
            self.shutdown(f"given back when init_async switched from transport {was!r} to {transport!r}")
        if self.initialised:  # every op calls this: nothing more to do once a backend is chosen
            if self._retry_at is not None and time.monotonic() >= self._retry_at:
                await self._reacquire_async()
            return
        self.wanted = transport or wanted_transport()
        self.initialised = True
        if self.wanted == "numpy":
            self._fallback("the NumPy backend was asked for (transport='numpy')")
            return
        try:
            await self._acquire_async()
        except BaseException:  # interrupted: the next call starts again
            self.initialised = False
            raise

    def _switches_to(self, transport: str) -> bool:
        """Whether asking for `transport` now means another choice than the one made: not the
        transport asked for before nor the one in use ("auto" keeps a device it found)."""
        if transport in (self.wanted, self.transport):
            return False
        return not (transport == "auto" and self.device is not None)

    async def _acquire_async(self) -> str | None:
        """Get a device through self.wanted; on failure, fall back and return the reason."""
        try:
            transport = await request_async(self.wanted, DEVICE_TIMEOUT_S)
            await settings.STORE.open_async()  # (the saved calibration is loaded from it next)
        except GpuUnavailableError as exc:
            self._fallback(str(exc))
            return str(exc)
        except Exception as exc:  # an unexpected answer must not leave pycore unusable
            self._fallback(f"WebGPU initialisation failed: {type(exc).__name__}: {exc}")
            return self.reason
        device = Device(transport)
        self.device = device
        self.transport = transport.name
        self.backend = "webgpu"
        self.reason = ("WebGPU device acquired from the browser" if transport.name == "browser" else
                       "WebGPU device acquired through wgpu-py (wgpu-native)")
        transport.on_lost(lambda reason: self.lose(device, reason))
        device.on_wait = self.waited
        for hook in self.on_device:
            hook(device)
        return None

    async def _reacquire_async(self) -> None:
        lost, start = self.device_lost, time.perf_counter()
        self._retry_at = None  # calls arriving meanwhile run on NumPy, and do not ask again
        try:
            failed = await self._acquire_async()
        except BaseException:  # interrupted: the next call asks again
            self._retry_at = time.monotonic()
            raise
        ms = (time.perf_counter() - start) * 1e3
        if failed is None:
            self.recoveries += 1
            self.reason += f" (a new device, after the last was lost: {lost})"
            self.note(f"a new WebGPU device, after the last was lost ({lost})", ms)
            return
        self._backoff = min(max(2 * self._backoff, 1.0), RETRY_MAX_S)
        self._retry_at = time.monotonic() + self._backoff
        self.reason = (f"device lost ({lost}); no new device yet ({failed}); "
                       f"next try in {self._backoff:g} s")
        self.note(f"no new WebGPU device: {failed}", ms)

    def lose(self, device: Device, reason: str) -> None:
        """`device` was lost: switch to NumPy now, and ask for a new device at the next call."""
        if self.device is not device or device.lost is not None:
            return  # an earlier device, or a loss already handled
        device.lost = reason
        self.device_lost = reason
        self.losses += 1
        if time.monotonic() - device.acquired_at > STABLE_S:
            self._backoff = 0.0
        self._retry_at = time.monotonic() + self._backoff
        self._fallback(f"device lost ({reason}); pycore asks for a new one at the next call")
        self.note(f"WebGPU device lost: {reason}", 0.0)

    async def lost_during_async(self, device: Device, exc: BaseException) -> bool:
        """Whether `device` was lost by the time a call on it raised `exc` (then NumPy answers the
        call). An error that says the device is lost reports the loss itself; otherwise the loss's
        own report, if one is on its way, gets LOSS_REPORT_S to arrive (only failed calls wait)."""
        if device.lost is None and (isinstance(exc, DeviceLostError) or is_lost_text(str(exc))):
            self.lose(device, str(exc))
        if device.lost is None:
            await asyncio.sleep(0)
        if device.lost is None and await device.transport.lost_within_async(LOSS_REPORT_S):
            await asyncio.sleep(0)  # (the runtime's own callback ran first; let it finish)
        return device.lost is not None

    def shutdown(self, why: str = "pycore was shut down") -> None:
        """Give the device back and forget everything on it: GpuArrays made so far stop working
        (saying `why`), and the next init_async() chooses a transport again."""
        device = self.device
        self._fallback("shut down: await pycore.init_async() to start again")
        self.initialised = False
        self._retry_at, self._backoff = None, 0.0
        if device is not None:
            if device.lost is None:
                device.lost = why  # (what its GpuArrays say; nothing more runs on it)
            device.destroy()  # its loss report finds it is no longer the device in use
        self.device_lost = None

    def _fallback(self, reason: str) -> None:
        had = self.device is not None
        self.backend, self.reason = "numpy", reason
        self.device = None
        self.transport = "none"
        if had:
            for hook in self.on_device:
                hook(None)

    def call_started(self) -> bool:
        """A call begins; returns whether it is the user's (see QUIET), to pass to call_ended."""
        if QUIET.get():
            return False
        self.calls_running += 1  # (idle_s is 0 while a call runs: no time taken here)
        return True

    def call_ended(self, users: bool) -> None:
        if users:
            self.calls_running -= 1
            self.last_call_at = time.monotonic()

    def idle_s(self) -> float:
        """How long no call of the user's has been running (0 while one is)."""
        return 0.0 if self.calls_running else time.monotonic() - self.last_call_at

    def record(self, entry: dict[str, Any]) -> None:
        """Add a finished call to the trace and the counters (see info()); pycore's own
        background calls (QUIET) are left out."""
        device = self.device
        if getattr(device, "fused_note", None) is not None:  # (its kernel computed earlier calls too)
            entry["fused"], device.fused_note = device.fused_note.name, None  # type: ignore[union-attr]
        if QUIET.get():
            return
        self.trace.append(entry)
        c = self.counters
        c["ops_run"] += 1
        for shape in entry["shapes"]:  # (math.prod: np.prod costs more than a small op)
            c["elements"] += math.prod(shape)
        c["busy_ms"] += entry["total_ms"]

    def waited(self, ms: float, why: str) -> None:
        """A wait for queued GPU work (Device.drain_async) in the trace, as its own entry (op "wait
        for queued work"): charged to that work, not to the call that happened to wait."""
        if QUIET.get():
            return
        self.trace.append({"op": "wait for queued work", "shapes": [], "backend": "webgpu", "why": why,
                           "ms": {"wait": ms}, "total_ms": ms})
        self.counters["busy_ms"] += ms

    def note(self, why: str, ms: float) -> None:
        """A device event in the trace (op "device"): a loss, a new device, a failed try."""
        self.trace.append({"op": "device", "shapes": [], "backend": self.backend, "why": why,
                           "ms": {"acquire": ms}, "total_ms": ms})

    def tier(self) -> str:
        """One line for a status bar: 'WebGPU — google / swiftshader' (in a browser), 'WebGPU
        (wgpu-native) — llvmpipe / ...' (native), or 'NumPy fallback — <reason>'."""
        if self.device is not None:
            names = (self.device.adapter_info.get(k) for k in ("vendor", "architecture", "description"))
            where = "WebGPU" if self.transport == "browser" else "WebGPU (wgpu-native)"
            return f"{where} — " + (" / ".join(n for n in names if n) or "unnamed adapter")
        return f"NumPy fallback — {self.reason}"

    def info(self) -> dict[str, Any]:
        dev = self.device
        if dev is not None:
            dev.flush()  # (queued work's buffers go back to the pool once it is submitted)
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
            "features": list(dev.transport.features) if dev else [],
            "settings": settings.STORE.where if dev else "not kept (no WebGPU device)",
            "versions": versions,
            "memory": ({**dev.pool.stats(), "upload_staging_bytes": dev.transport.staged_bytes()}
                       if dev else None),
            "fused_away": dev.fused_away if dev else 0,  # kernels left out: fused kernels computed them
            "pipelines_compiled_ms": dict(dev.compile_ms) if dev else {},
            "precompiled": dict(dev.precompiled) if dev else None,
            "gpu_errors": list(dev.errors) if dev else [],
            "device_lost": self.device_lost,
            "device_losses": self.losses,
            "device_recoveries": self.recoveries,
            "counters": {**self.counters, "busy_ms": round(self.counters["busy_ms"], 4)},
        }


RUNTIME = Runtime()
