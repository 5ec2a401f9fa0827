"""One op's work on the GPU: pooled buffers, uploads, uniforms, commands, and the readback.

A `GpuSession` is opened per call (`async with GpuSession(op) as gpu:`); every buffer it hands
out goes back to the pool when the call ends, whatever happens (WebGPU orders queue work, so a
buffer reused by the next call is written only after this call's commands have read it). Commands
queued with `dispatch` and `copy` are encoded into one command buffer by `run_async`, inside
validation and out-of-memory error scopes, so a rejected command raises (at the latest, at the
next read) instead of leaving zeros behind. Uniform blocks are cached by content.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .runtime import RUNTIME
from .transport import COPY_DST, COPY_SRC, MAP_READ, STORAGE

WORKGROUP = 256  # threads per workgroup of the 1-D kernels (elementwise, binary, rowwise, reduce)


# Usage of every data buffer: inputs, outputs and GpuArrays share one pool class, and any of them
# can be written, bound as storage, copied from and read back.
DATA_USAGE = STORAGE | COPY_SRC | COPY_DST


def grid(n_groups: int, max_per_dim: int) -> tuple[int, int, int]:
    """Workgroups (x, y, 1) covering `n_groups`, each dimension within the device limit; kernels
    recover the flat index as x + y * groups.x.

    >>> grid(10, 65535), grid(70000, 65535)
    ((10, 1, 1), (35000, 2, 1))
    """
    if n_groups <= max_per_dim:
        return (max(n_groups, 1), 1, 1)
    y = -(-n_groups // max_per_dim)
    x = -(-n_groups // y)
    if y > max_per_dim:
        raise ValueError(f"{n_groups} workgroups exceed the device's {max_per_dim}² grid")
    return (x, y, 1)


def pack_uniform(*values: float | int) -> np.ndarray:
    """Up to 8 numbers as the 32-byte uniform block the kernels declare: ints as u32, floats as
    f32 (their bits), in order.

    >>> pack_uniform(3, 1.5).view(np.uint32)[:2].tolist()
    [3, 1069547520]
    """
    words = np.zeros(8, dtype=np.uint32)
    for i, v in enumerate(values):
        if isinstance(v, (float, np.floating)):
            words[i] = np.float32(v).view(np.uint32)
        else:
            words[i] = int(v)
    return words


class GpuSession:
    def __init__(self, op_name: str, keep_result: bool = False, deferred: bool = False) -> None:
        """keep_result: the op's output stays on the GPU (see finish_async) instead of being read.
        deferred: run_async only queues (a CommandBatch submits everything once, at the end)."""
        self.op_name = op_name
        self.keep_result = keep_result or deferred
        self.deferred = deferred
        self.result: Any = None  # the kept output buffer
        self.device = RUNTIME.device
        self.pool = RUNTIME.pool
        self.limits = self.device.limits
        self._held: list[Any] = []
        self._commands: list[tuple] = []
        self.stages = {"buffers": 0.0, "upload": 0.0, "dispatch": 0.0, "readback": 0.0}

    async def __aenter__(self) -> GpuSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        held = self.release_all()
        if RUNTIME.pool is self.pool:  # the device was not lost meanwhile
            for buf in held:
                self.pool.release(buf)

    def release_all(self) -> list[Any]:
        """Hand over (and forget) every buffer this session still holds."""
        held, self._held = self._held, []
        return held

    # -- limits
    @property
    def max_binding(self) -> int:
        """Largest byte size one storage binding may have on this device (a multiple of 256)."""
        lim = min(self.limits.get("maxStorageBufferBindingSize", 128 << 20),
                  self.limits.get("maxBufferSize", 256 << 20))
        return lim // 256 * 256

    @property
    def cpu_adapter(self) -> bool:
        """Whether the adapter is a CPU implementation (SwiftShader, lavapipe/llvmpipe), where
        kernels that lean on workgroup memory and barriers run slower than ones that do not."""
        info = self.device.adapter_info
        text = " ".join(str(info.get(k, "")) for k in ("architecture", "description", "device")).lower()
        return (info.get("adapter_type") == "CPU" or bool(info.get("isFallbackAdapter"))
                or any(name in text for name in ("swiftshader", "llvmpipe", "lavapipe")))

    @property
    def loop_cap(self) -> int | None:
        """Loop iterations one shader invocation may run in all, if the driver caps them: llvmpipe
        (lavapipe) silently leaves every loop once an invocation has run 65,535 iterations (measured:
        a matmul with K / 4 = 65,600 came back wrong). None elsewhere."""
        info = self.device.adapter_info
        text = " ".join(str(info.get(k, "")) for k in ("vendor", "description", "device")).lower()
        return 65_535 if any(name in text for name in ("llvmpipe", "lavapipe")) else None

    @property
    def max_groups(self) -> int:
        return self.limits.get("maxComputeWorkgroupsPerDimension", 65535)

    # -- buffers
    def buffer(self, nbytes: int, usage: int) -> Any:
        t = time.perf_counter()
        buf = self.pool.acquire(max(nbytes, 4), usage)
        self._held.append(buf)
        self.stages["buffers"] += time.perf_counter() - t
        return buf

    def upload(self, array: Any) -> tuple:
        """A binding of `array`: a host array (C-contiguous float32) is uploaded to a new buffer,
        a GpuView already on the device is bound where it lies: (buffer, nbytes[, offset])."""
        from .gpuarray import GpuView

        if isinstance(array, GpuView):
            align = self.limits.get("minStorageBufferOffsetAlignment", 256)
            if array.offset % align:
                raise ValueError(f"{self.op_name}: a part of a GpuArray at byte {array.offset} cannot be "
                                 f"bound (offsets must be multiples of {align}); use a smaller input")
            return array.buffer, max(array.nbytes, 4), array.offset
        buf = self.buffer(array.nbytes, DATA_USAGE)
        t = time.perf_counter()
        if array.nbytes:
            self.device.write_buffer(buf, array)
        self.stages["upload"] += time.perf_counter() - t
        return buf, max(array.nbytes, 4)

    def output(self, nbytes: int) -> tuple[Any, int]:
        """A storage buffer for results."""
        return self.buffer(nbytes, DATA_USAGE), max(nbytes, 4)

    def keep(self, buf: Any) -> None:
        """Let `buf` outlive this session (a GpuArray now owns it)."""
        self._held.remove(buf)

    def result_array(self, shape: tuple[int, ...]) -> Any:
        """Where a program assembles its output: a host array, or a GpuView placeholder when the
        result stays on the GPU (its buffer is set by finish_async)."""
        from .gpuarray import GpuView

        self._result_nbytes = 4 * math.prod(shape)  # (np.prod costs more than a small op)
        return GpuView(None, shape) if self.keep_result else np.empty(shape, np.float32)

    async def finish_async(self, dst: tuple[Any, int], out_part: Any) -> None:
        """Submit the queued work that computed `dst`, then read it into `out_part` (a part of
        result_array), or, when the result stays on the GPU, keep `dst` as the result."""
        if not self.keep_result:
            await self.run_async(read=(dst[0], out_part))
            return
        if out_part.nbytes != self._result_nbytes:
            raise ValueError(f"{self.op_name}: the result is too large to stay on the GPU in one binding "
                             f"(maxStorageBufferBindingSize is {self.max_binding:,} bytes)")
        await self.run_async()
        self.keep(dst[0])
        self.result = dst[0]

    async def finish_scalar_async(self, dst: tuple[Any, int]) -> float | None:
        """A reduction's end: element 0 of `dst` read back as a float; None when deferred (the
        buffer is kept as the result, for a CommandBatch to read later)."""
        if self.deferred:
            self.keep(dst[0])
            self.result = dst[0]
            return None
        value = np.empty(1, np.float32)
        await self.run_async(read=(dst[0], value))
        return float(value[0])

    def uniform(self, *values: float | int) -> tuple[Any, int]:
        """A uniform buffer holding `values` (see pack_uniform), shared by every call that passes
        the same values: most calls find theirs already on the GPU and upload nothing."""
        words = pack_uniform(*values)
        return RUNTIME.uniform(words), words.nbytes

    # -- commands
    async def pipeline_async(self, family: str, entry: str, bindings: tuple[str, ...],
                             source: Callable[[], str] | None = None, name: str | None = None) -> Any:
        """The cached pipeline; a first use compiles it, and the trace shows that as "compile".
        `source` and `name`: a generated kernel (see RUNTIME.pipeline_async)."""
        key = RUNTIME.pipeline_key(family, entry, name)
        if key in RUNTIME.pipelines:
            return RUNTIME.pipelines[key]
        t = time.perf_counter()
        pipeline = await RUNTIME.pipeline_async(family, entry, bindings, source, name)
        self.stages["compile"] = self.stages.get("compile", 0.0) + time.perf_counter() - t
        return pipeline

    def copy(self, src: Any, dst: Any, nbytes: int, src_offset: int = 0, dst_offset: int = 0) -> None:
        self._commands.append(("copy", src, dst, nbytes, src_offset, dst_offset))

    def dispatch(self, pipeline: Any, bindings: list[tuple[Any, int]], groups: tuple[int, int, int]) -> None:
        self._commands.append(("dispatch", pipeline, bindings, groups))

    async def run_async(self, read: tuple[Any, np.ndarray] | None = None) -> None:
        """Submit the queued commands as one command buffer; with `read=(buffer, out)`, also copy
        `out.nbytes` bytes of `buffer` to a staging buffer and read them into `out`.

        Without a read nothing is awaited: the submit's error check is left with the runtime and
        settled at the next read (so ops whose results stay on the GPU queue back to back). With a
        read, the error checks and the mapping are awaited together, in one await.
        Stages: "dispatch" is encoding and submitting; "readback" is waiting for the GPU (its
        compute time included) and copying the result into NumPy memory."""
        if self.deferred:
            return
        staging = None
        if read is not None:
            staging = self.buffer(read[1].nbytes, MAP_READ | COPY_DST)
            self.copy(read[0], staging, read[1].nbytes)
        t = time.perf_counter()
        commands, self._commands = self._commands, []
        if read is None:
            RUNTIME.defer_check(self.op_name, self.device.submit(commands))
            self.stages["dispatch"] += time.perf_counter() - t
            if RUNTIME.unchecked() > 64:  # bound the backlog of a long chain with no reads
                await RUNTIME.settle_checks_async()
            return
        earlier = RUNTIME.take_checks()
        earlier_errors, error, encode_ms = await self.device.submit_and_read_async(
            commands, staging, read[1], [c for _, c in earlier])
        self.stages["dispatch"] += encode_ms / 1e3
        self.stages["readback"] += time.perf_counter() - t - encode_ms / 1e3
        RUNTIME.raise_first(list(zip([op for op, _ in earlier], earlier_errors, strict=True)))
        if error:
            raise RuntimeError(f"{self.op_name}: the GPU rejected the work: {error}")
