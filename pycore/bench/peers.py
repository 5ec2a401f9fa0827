"""The yardsticks in the same page or process: raw JavaScript on pycore's own device, TF.js's WebGPU
backend and jax-js's fft (web/bench/baselines.js), and the small-op round trip against raw JavaScript
(the bridge)."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import Any, cast

import numpy as np

from pycore.bench.sweep import _median, _timed
from pycore.engine.runtime import IN_PYODIDE, RUNTIME
from pycore.tables.kinds import KINDS
from pycore.tables.ops import OPS

PEER_OPS = ("relu", "softmax", "matmul")


BRIDGE_SIZE = 1024  # elements of the small op in the bridge comparison


def _runtime_name() -> str:
    """What runs this Python: the browser's user agent (Chromium, or Node with Dawn), or CPython."""
    if IN_PYODIDE:
        import js  # type: ignore[import-not-found]

        return str(js.navigator.userAgent)
    return f"CPython {sys.version.split()[0]}"


async def _baselines_module(note: Callable[[str], Any]) -> Any:
    """web/bench/baselines.js: preloaded by the host (scripts/dawn.mjs sets globalThis.pycoreBaselines),
    else imported from serve.py's /bench/; None where there is none (a JupyterLite site served
    elsewhere, say), after `note` says so."""
    if not IN_PYODIDE or RUNTIME.backend != "webgpu":
        return None
    import js  # type: ignore[import-not-found]

    preloaded = getattr(js, "pycoreBaselines", None)
    if preloaded is not None:
        return preloaded
    from pyodide.code import run_js  # type: ignore[import-not-found]

    try:
        return await run_js("import('/bench/baselines.js')")
    except Exception as exc:
        note(f"no raw-JS or TF.js yardsticks here (/bench/baselines.js, which serve.py serves, "
             f"could not be imported: {exc})")
        return None


def _peer_shape(op: str, n: int) -> list[int]:
    return list(KINDS[OPS[op].kind].shapes(n)[0])


def _raw_head(op: str, shape: list[int]) -> np.ndarray:
    """The first 8 values of op on baselines.js's inputs (its randomData), by NumPy in float64."""
    def data(n: int) -> np.ndarray:
        return (np.sin(np.arange(n) * 12.9898) * 2).astype(np.float32).astype(np.float64)

    if op == "matmul":
        n = shape[0]
        return data(n * n)[:n] @ data(n * n).reshape(n, n)[:, :8]
    row = data(shape[-1])  # relu: the first values; softmax: the first row
    if op == "relu":
        return np.maximum(row[:8], 0)
    e = np.exp(row - row.max())
    return (e / e.sum())[:8]


def _raw_code(kernel: str, shape: list[int]) -> str | None:
    """The WGSL of a kernel pycore generates (element-wise and row-wise ops), for the raw-JS
    yardstick to run."""
    if kernel == "relu":
        from pycore.array.layout import Layout
        from pycore.calls.programs import PROGRAMS, Elementwise
        from pycore.engine.executor import facts

        assert RUNTIME.device is not None
        relu = cast(Elementwise, PROGRAMS["unary"])
        return relu.plan(OPS["relu"], [Layout.contiguous(tuple(shape))], {}, facts(RUNTIME.device)
                         ).kernels()[0].source()
    if kernel in ("softmax", "softmax_thread"):
        return _softmax_plan(shape).kernels()[0].source()
    return None


def _softmax_plan(shape: list[int]) -> Any:
    """The plan pycore runs for softmax over the last axis of `shape` on this adapter."""
    from pycore.array.layout import Layout
    from pycore.engine.executor import facts
    from pycore.kernels.rowwise import ROW_OPS, plan_rowwise

    rows, cols = (1, shape[0]) if len(shape) == 1 else shape
    assert RUNTIME.device is not None
    return plan_rowwise(ROW_OPS["softmax"], Layout.contiguous((rows, cols)), 1, facts(RUNTIME.device))


def _matmul_kernel(n: int) -> tuple[str, tuple[int, int]]:
    """The matmul kernel pycore runs for n x n matrices on this adapter, and the (rows, columns) of C
    one workgroup of it computes (programs.Matmul chooses both)."""
    from pycore.calls.programs import PROGRAMS, Matmul

    assert RUNTIME.device is not None  # (the peers run only on a WebGPU device)
    return cast(Matmul, PROGRAMS["matmul"]).kernel_for(RUNTIME.device.cpu_adapter, n, n, n)


def _raw_kernel(op: str, shape: list[int]) -> str:
    """The baselines.js kernel that runs what pycore runs for op at shape on this adapter."""
    if op == "matmul":
        return _matmul_kernel(shape[0])[0]
    if op == "softmax":
        return "softmax" if _softmax_plan(shape).kernels()[0].entry == "rows_tree" else "softmax_thread"
    return op


async def _peers(module: Any, sizes: tuple[int, ...], matrix_sizes: tuple[int, ...], repeats: int,
                 note: Callable[[str], None]) -> list[dict[str, Any]]:
    from pyodide.ffi import to_js  # type: ignore[import-not-found]

    rows = []
    try:
        tf = (await module.tfjs()).to_py()
    except Exception as exc:  # no TF.js (npm ci not run?): the raw-JS rows still count
        tf = None
        note(f"TF.js unavailable: {exc}")
    assert RUNTIME.device is not None
    device = RUNTIME.device.transport.js_device()
    for op in PEER_OPS:
        for n in matrix_sizes if op == "matmul" else sizes:
            shape = _peer_shape(op, n)
            reps = max(1, min(repeats, 3)) if op == "matmul" and n >= 512 else repeats
            kernel = _raw_kernel(op, shape)
            tile = to_js(list(_matmul_kernel(n)[1])) if op == "matmul" else None
            code = _raw_code(kernel, shape)
            raw = (await module.rawOp(device, kernel, to_js(shape), reps, tile, code)).to_py()
            want = _raw_head(op, shape)
            if not np.allclose(raw["head"], want, rtol=1e-4, atol=1e-6):
                raise AssertionError(f"bench: raw-JS {op} at {shape} computed {raw['head']}, "
                                     f"NumPy {want.tolist()}")
            rows.append({"impl": "raw-js", "op": op, "size": n, "shape": shape, "ms": round(raw["ms"], 4)})
            if tf:
                got = (await module.tfjsOp(op, to_js(shape), reps)).to_py()
                rows.append({"impl": f"tfjs {tf['version']}", "op": op, "size": n, "shape": shape,
                             "ms": round(got["ms"], 4)})
    return rows


async def _bridge(module: Any, repeats: int) -> dict[str, Any]:
    """relu on BRIDGE_SIZE elements through pycore and in raw JavaScript (same kernel, same device),
    and the raw floor: 12 rounds of a few calls each, the order alternating, so that a shared
    machine's drift hits all alike.

    The ratio compares trimmed means (the middle 80% of the calls), not medians: in Chromium a small
    round trip's latency is bimodal (about 0.5-1 ms when the GPU process's first check finds the
    work done, 2.5-3 ms when it waits for its next poll; the share of each varies by run), and a
    median lands in either mode by chance. Both statistics are in the row."""
    from pycore.calls.api import PUBLIC

    relu_async = PUBLIC["relu_async"]

    x = np.random.default_rng(1).standard_normal(BRIDGE_SIZE, dtype=np.float32)
    await relu_async(x, backend="gpu")
    per_round = max(repeats, 5)
    ours: list[float] = []
    raw: list[float] = []
    floor: list[float] = []

    async def pycore_calls() -> None:
        ours.extend([await _timed(lambda: relu_async(x, backend="gpu")) for _ in range(per_round)])

    async def raw_calls() -> None:
        from pyodide.ffi import to_js  # type: ignore[import-not-found]

        assert RUNTIME.device is not None
        device = RUNTIME.device.transport.js_device()
        raw.extend((await module.rawOp(device, "relu", to_js([BRIDGE_SIZE]), per_round, None,
                                       _raw_code("relu", [BRIDGE_SIZE]))).to_py()["runs"])
        floor.extend((await module.rawFloor(device, per_round)).to_py()["runs"])

    sides = [pycore_calls] + ([raw_calls] if module is not None else [])
    for r in range(12):
        for calls in (sides if r % 2 == 0 else sides[::-1]):
            await calls()
    row: dict[str, Any] = {"op": "relu", "size": BRIDGE_SIZE, "runs": len(ours),
                           "pycore_ms": _trimmed_mean(ours), "pycore_median_ms": _median(ours)}
    if raw:
        row |= {"raw_js_ms": _trimmed_mean(raw), "raw_js_median_ms": _median(raw),
                "raw_floor_ms": _trimmed_mean(floor), "raw_floor_median_ms": _median(floor),
                "ratio": round(_trimmed_mean(ours) / _trimmed_mean(raw), 3),
                "statistic": "trimmed mean (middle 80%)"}
    return row


def _trimmed_mean(xs: list[float], cut: float = 0.1) -> float:
    xs = sorted(xs)
    k = int(len(xs) * cut)
    kept = xs[k:len(xs) - k] or xs
    return round(sum(kept) / len(kept), 4)


def jax_fft_input(shape: tuple[int, ...]) -> np.ndarray:
    """The complex64 values baselines.js's jaxFft transforms (its complexData): real parts the first
    half, imaginary parts the second half of randomData over twice the size.

    >>> jax_fft_input((2, 2)).round(3)
    array([[0.   +1.985j, 0.822+1.709j],
           [1.498+1.131j, 1.91 +0.353j]], dtype=complex64)
    """
    size = math.prod(shape)
    data = (np.sin(np.arange(2 * size) * 12.9898) * 2).astype(np.float32)
    return (data[:size] + 1j * data[size:]).astype(np.complex64).reshape(shape)


# jaxFft's sampled values against NumPy's, relative to the largest magnitude: a wrong transform is off
# by about 1; float32 with a GPU's sin and cos (jax-js computes its twiddles so) by 1e-9 (lavapipe)
# to 3e-5 (SwiftShader)
JAX_FFT_TOLERANCE = 1e-3


async def jax_fft_async(module: Any, shape: tuple[int, ...], axes: tuple[int, ...], count: int,
                        repeats: int, jitted: bool = False) -> dict[str, Any]:
    """jax-js's fftn over `axes` of jax_fft_input(shape) on its WebGPU backend (baselines.js's
    jaxFft: `repeats` chains of `count` transforms on its GPU, one sync each): its row, with "ms"
    per transform, "backend", "adapter", and "error" (its sampled values against NumPy's in float64,
    relative to the largest magnitude). Raises RuntimeError where the arrays were not on WebGPU, and
    AssertionError where the values are off by more than JAX_FFT_TOLERANCE."""
    from pyodide.ffi import to_js  # type: ignore[import-not-found]

    got = (await module.jaxFft(to_js(list(shape)), to_js(list(axes)), count, repeats, jitted)).to_py()
    if got["backend"] != "webgpu" or list(got["devices"]) != ["webgpu"]:
        raise RuntimeError(f"bench: jax-js ran on {got['devices']} (default {got['backend']}), not on WebGPU")
    want = np.fft.fftn(jax_fft_input(shape).astype(np.complex128), axes=axes).ravel()
    at = np.array([int(i) for i, _, _ in got["sample"]])
    values = np.array([complex(re, im) for _, re, im in got["sample"]])
    error = float(np.abs(values - want[at]).max() / np.abs(want).max())
    if not error <= JAX_FFT_TOLERANCE:
        raise AssertionError(f"bench: jax-js fftn of {shape} over axes {axes}: error {error:.2e} "
                             "against NumPy")
    return {k: v for k, v in got.items() if k != "sample"} | {"error": error, "shape": list(shape),
                                                              "axes": list(axes)}
