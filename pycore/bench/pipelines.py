"""The pipeline benchmark: whole computations written as a user writes them with pycore (a dense
layer, column statistics of a table, a k-means step, an image filter chain, attention over a batch
of heads of 512 tokens and over heads of 4096, a layer-norm + GELU MLP block, a softmax
cross-entropy loss), each beside the same work in TF.js and jax-js in the same process on the same
adapter (web/bench/baselines.js's tfPipeline and jaxPipeline), a raw-JS transfer floor (upload
every input, read every output, nothing else; the uploads through staging buffers kept mapped, as
pycore's, and apart through writeBuffer) and a copy kernel's bandwidth on pycore's device
(baselines.js's transferFloor and copyBandwidth).

Two modes, each library alike:

  resident    the inputs already on the GPU (GpuArrays, tensors, jax arrays); a chain of `count`
              pipeline runs on them, then the last run's result read back (the one sync); ms per run
              (the median of `repeats` chains, after warm-up chains)
  round trip  from host arrays to a host result: upload every input, run, read the result back;
              the median of `repeats` runs, after warm-up runs

A warm-up is one run, and more until WARM_S has passed (the GPU clocked up: see WARM_S); the
transfer floor is timed alike. The float64 references are computed before anything is timed, so that
no library's timing follows seconds of an idle GPU.

Every library's result is checked against a float64 NumPy reference (error: the largest absolute
difference over the largest absolute reference value). `GB/s`: the bytes a pipeline must move at
least (its inputs read once, its output written once) over its resident time, beside the copy
kernel's (2 x its buffer over its time).

>>> import numpy as np
>>> p = PIPELINES["dense"]
>>> xs = p.inputs(small=True)
>>> [x.shape for x in xs], p.reference(*xs).shape, p.min_bytes(xs) > 0
([(64, 32), (32, 48), (48,)], (64, 48), True)
"""

from __future__ import annotations

import math
import statistics
import time
import types
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pycore.calls.api import PUBLIC
from pycore.calls.gpuarray import GpuArray, to_gpu_async
from pycore.calls.jit import Jitted, jit
from pycore.calls.namespace import NSPUBLIC
from pycore.calls.nd import NDPUBLIC
from pycore.calls.nn import make_module as make_nn_module
from pycore.calls.selection import SELPUBLIC
from pycore.engine.executor import compiles_async
from pycore.engine.runtime import RUNTIME

# pycore's namespace as `import pycore` assembles it (pycore/__init__.py: the later tables take over
# a name), so that the pipelines read as a user's code with `pc` for `pycore`; pycore.bench sits
# below the package itself in the layers, so it does not import it.
pc = types.SimpleNamespace(**{**PUBLIC, **NDPUBLIC, **{k: v for k, v in NSPUBLIC.items() if k != "bool"},
                              **SELPUBLIC}, nn=make_nn_module(), to_gpu_async=to_gpu_async)

Maker = Callable[[dict[str, int], np.random.Generator], list[np.ndarray]]


@dataclass(frozen=True)
class Pipeline:
    """One pipeline: its pycore code (`run_async`, taking GpuArrays or host arrays), its float64
    reference, how its inputs are made at a size, and its sizes on GPUs (`full`) and on CPU adapters
    (`small`). baselines.js's PIPELINES holds its TF.js and jax-js code under the same name."""

    name: str
    what: str
    run_async: Callable[..., Awaitable[Any]]
    reference: Callable[..., np.ndarray]
    make: Maker
    full: dict[str, int]
    small: dict[str, int]
    tolerance: float = 1e-4
    seed: int = field(default=0)

    def inputs(self, small: bool = False) -> list[np.ndarray]:
        """The inputs at the small or full size (float32; class indices int32)."""
        return self.make(self.small if small else self.full, np.random.default_rng(self.seed))

    def min_bytes(self, inputs: list[np.ndarray], out: np.ndarray | None = None) -> int:
        """The bytes the pipeline must move at least: every input read once, the (float32) output
        written once (`out`: the reference's result, if at hand)."""
        out = self.reference(*inputs) if out is None else out
        return sum(x.nbytes for x in inputs) + 4 * max(1, out.size)


def _f32(rng: np.random.Generator, *shape: int, scale: float = 1.0) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def _f64(*xs: np.ndarray) -> list[np.ndarray]:
    return [x.astype(np.float64) if x.dtype.kind == "f" else x for x in xs]


# ---------------------------------------------------------------- (1) dense layer: relu(x @ W + b)

async def dense_async(x: Any, w: Any, b: Any) -> Any:
    """relu(x @ w + b)."""
    return await pc.relu_async(await pc.add_async(await pc.matmul_async(x, w), b))


def _dense_ref(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    x, w, b = _f64(x, w, b)
    return np.maximum(x @ w + b, 0)


def _dense_make(s: dict[str, int], rng: np.random.Generator) -> list[np.ndarray]:
    return [_f32(rng, s["n"], s["d"]), _f32(rng, s["d"], s["h"], scale=1 / math.sqrt(s["d"])),
            _f32(rng, s["h"])]


# ---------------------------------------------------------------- (2) column standardization

async def standardize_async(x: Any) -> Any:
    """(x - mean(x, axis=0)) / std(x, axis=0): each column of a table to zero mean, unit variance."""
    mean = await pc.mean_async(x, axis=0)
    std = await pc.std_async(x, axis=0)
    return await pc.divide_async(await pc.subtract_async(x, mean), std)


def _standardize_ref(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    return (x - x.mean(axis=0)) / x.std(axis=0)


def _standardize_make(s: dict[str, int], rng: np.random.Generator) -> list[np.ndarray]:
    scales = rng.uniform(0.5, 20, s["cols"])
    return [(rng.standard_normal((s["rows"], s["cols"])) * scales + scales).astype(np.float32)]


# ---------------------------------------------------------------- (3) k-means step

async def kmeans_step_async(points: Any, centroids: Any) -> Any:
    """One Lloyd step: each point to its nearest centroid (argmin of |c|^2 - 2 x.c), the new centroids
    the means of their points (one_hot(labels)^T @ points over the counts; an empty cluster's
    centroid 0)."""
    k = centroids.shape[0]
    c2 = await pc.sum_async(await pc.square_async(centroids), axis=1)
    xc = await pc.matmul_async(points, pc.matrix_transpose(centroids))
    dist = await pc.subtract_async(c2, await pc.multiply_async(xc, 2.0))
    labels = await pc.argmin_async(dist, axis=1)
    onehot = await pc.nn.one_hot_async(labels, k)
    sums = await pc.matmul_async(pc.matrix_transpose(onehot), points)
    counts = await pc.sum_async(onehot, axis=0, keepdims=True)
    return await pc.divide_async(sums, await pc.maximum_async(pc.matrix_transpose(counts), 1.0))


def _kmeans_ref(points: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    x, c = _f64(points, centroids)
    labels = ((x * x).sum(1)[:, None] - 2 * x @ c.T + (c * c).sum(1)).argmin(1)
    onehot = np.eye(len(c))[labels]
    return (onehot.T @ x) / np.maximum(onehot.sum(0), 1)[:, None]


def _kmeans_make(s: dict[str, int], rng: np.random.Generator) -> list[np.ndarray]:
    # well-separated clusters (centres 10 apart on average, points 0.5 around them): no point is
    # near a tie between two centroids, so float32 and float64 assign alike
    centres = rng.standard_normal((s["k"], s["d"])) * 10
    points = centres[rng.integers(0, s["k"], s["n"])] + rng.standard_normal((s["n"], s["d"])) * 0.5
    start = centres + rng.standard_normal(centres.shape) * 0.2
    return [points.astype(np.float32), start.astype(np.float32)]


# ---------------------------------------------------------------- (4) image filter chain

async def blur_clip_async(images: Any, kernel: Any) -> Any:
    """A 3 x 3 filter (zero padding) over (N, 1, H, W) images, then a contrast stretch clipped to
    [0, 1]: clip((blur - 0.5) * 4 + 0.5, 0, 1)."""
    blurred = await pc.nn.conv_async(images, kernel, padding=1)
    stretched = await pc.add_async(await pc.multiply_async(
        await pc.subtract_async(blurred, 0.5), 4.0), 0.5)
    return await pc.clip_async(stretched, 0.0, 1.0)


def _blur_ref(images: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    x, w = _f64(images, kernel)
    h, wd = x.shape[2:]
    p = np.pad(x[:, 0], ((0, 0), (1, 1), (1, 1)))
    out = sum(w[0, 0, i, j] * p[:, i:i + h, j:j + wd] for i in range(3) for j in range(3))
    return np.clip((out - 0.5) * 4 + 0.5, 0, 1)[:, None]


def _blur_make(s: dict[str, int], rng: np.random.Generator) -> list[np.ndarray]:
    images = rng.uniform(0, 1, (s["n"], 1, s["h"], s["w"])).astype(np.float32)
    kernel = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], np.float32).reshape(1, 1, 3, 3) / 16
    return [images, kernel]


# ---------------------------------------------------------------- (5) attention over heads

async def attention_async(q: Any, k: Any, v: Any) -> Any:
    """softmax(q k^T / sqrt(d)) v over (batch, heads, tokens, d)."""
    return await pc.nn.scaled_dot_product_attention_async(q, k, v)


def _attention_ref(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    q, k, v = _f64(q, k, v)
    s = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ v


def _attention_make(s: dict[str, int], rng: np.random.Generator) -> list[np.ndarray]:
    shape = (s["batch"], s["heads"], s["tokens"], s["d"])
    return [_f32(rng, *shape) for _ in range(3)]


# ---------------------------------------------------------------- (6) layer norm + GELU MLP block

async def gelu_async(x: Any) -> Any:
    """GELU, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    cube = await pc.multiply_async(await pc.multiply_async(x, x), x)
    inner = await pc.multiply_async(
        await pc.add_async(x, await pc.multiply_async(cube, 0.044715)), math.sqrt(2 / math.pi))
    return await pc.multiply_async(
        await pc.multiply_async(x, 0.5), await pc.add_async(await pc.tanh_async(inner), 1.0))


async def mlp_block_async(x: Any, gamma: Any, beta: Any, w1: Any, b1: Any, w2: Any, b2: Any) -> Any:
    """gelu(layer_norm(x) @ w1 + b1) @ w2 + b2."""
    h = await pc.nn.layer_norm_async(x, x.shape[-1], weight=gamma, bias=beta)
    h = await gelu_async(await pc.add_async(await pc.matmul_async(h, w1), b1))
    return await pc.add_async(await pc.matmul_async(h, w2), b2)


def _mlp_ref(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, w1: np.ndarray, b1: np.ndarray,
             w2: np.ndarray, b2: np.ndarray) -> np.ndarray:
    x, gamma, beta, w1, b1, w2, b2 = _f64(x, gamma, beta, w1, b1, w2, b2)
    h = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5) * gamma + beta
    h = h @ w1 + b1
    h = 0.5 * h * (1 + np.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h**3)))
    return h @ w2 + b2


def _mlp_make(s: dict[str, int], rng: np.random.Generator) -> list[np.ndarray]:
    d, hidden = s["d"], 4 * s["d"]
    return [_f32(rng, s["n"], d), (1 + _f32(rng, d, scale=0.1)), _f32(rng, d, scale=0.1),
            _f32(rng, d, hidden, scale=1 / math.sqrt(d)), _f32(rng, hidden, scale=0.1),
            _f32(rng, hidden, d, scale=1 / math.sqrt(hidden)), _f32(rng, d, scale=0.1)]


# ---------------------------------------------------------------- (7) softmax cross-entropy loss

async def cross_entropy_async(logits: Any, targets: Any) -> Any:
    """The mean softmax cross-entropy of logits (n, classes) against class indices (n,)."""
    return await pc.nn.cross_entropy_async(logits, targets)


def _cross_entropy_ref(logits: np.ndarray, targets: np.ndarray) -> np.ndarray:
    z = logits.astype(np.float64)
    z = z - z.max(-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
    return np.asarray(-logp[np.arange(len(z)), targets].mean())


def _cross_entropy_make(s: dict[str, int], rng: np.random.Generator) -> list[np.ndarray]:
    return [_f32(rng, s["n"], s["classes"], scale=3.0),
            rng.integers(0, s["classes"], s["n"]).astype(np.int32)]


PIPELINES: dict[str, Pipeline] = {p.name: p for p in (
    Pipeline("dense", "relu(x @ W + b)", dense_async, _dense_ref, _dense_make,
             {"n": 4096, "d": 1024, "h": 1024}, {"n": 64, "d": 32, "h": 48}),
    Pipeline("standardize", "(x - mean(x, 0)) / std(x, 0) of a table", standardize_async,
             _standardize_ref, _standardize_make, {"rows": 100_000, "cols": 64}, {"rows": 1000, "cols": 8}),
    Pipeline("kmeans", "k-means step: argmin distances, one_hot^T @ x / counts", kmeans_step_async,
             _kmeans_ref, _kmeans_make, {"n": 262_144, "d": 16, "k": 64}, {"n": 512, "d": 4, "k": 8}),
    Pipeline("blur_clip", "3x3 conv blur of images, stretch, clip", blur_clip_async, _blur_ref, _blur_make,
             {"n": 8, "h": 512, "w": 512}, {"n": 2, "h": 32, "w": 32}),
    Pipeline("attention", "softmax(q k^T / sqrt(d)) v over (batch, heads)", attention_async,
             _attention_ref, _attention_make, {"batch": 8, "heads": 8, "tokens": 512, "d": 64},
             {"batch": 1, "heads": 2, "tokens": 16, "d": 8}),
    Pipeline("attention_long", "the same over 8 heads of 4096 tokens", attention_async, _attention_ref,
             _attention_make, {"batch": 1, "heads": 8, "tokens": 4096, "d": 64},
             {"batch": 1, "heads": 1, "tokens": 96, "d": 8}),
    Pipeline("mlp_block", "gelu(layer_norm(x) @ W1 + b1) @ W2 + b2", mlp_block_async, _mlp_ref, _mlp_make,
             {"n": 2048, "d": 512}, {"n": 32, "d": 16}, tolerance=1e-3),
    Pipeline("cross_entropy", "mean softmax cross-entropy of logits vs classes", cross_entropy_async,
             _cross_entropy_ref, _cross_entropy_make, {"n": 8192, "classes": 1000},
             {"n": 64, "classes": 10}),
)}


def error(got: Any, want: np.ndarray) -> float:
    """The largest absolute difference over the largest absolute reference value (NaN: inf).

    >>> error(np.array([1.0, 2.1]), np.array([1.0, 2.0]))
    0.05
    """
    got = np.asarray(got, np.float64).reshape(want.shape)
    if not np.isfinite(got).all():
        return math.inf
    return round(float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30)), 12)


# ---------------------------------------------------------------- pycore's side


# Each library runs its work for this long before it is timed (web/bench/baselines.js's timeRuns
# does the same for the peers): a GPU left idle for a few hundred milliseconds clocks down (an
# H200's SM clock from 1980 to 345-420 MHz, measured with nvidia-smi) and takes about 250 ms of
# load to clock up again, so whichever library ran first after an idle spell would pay for it.
# (That is not always enough after seconds of idle: the float64 references are computed before
# anything is timed, see run_pipelines_async.)
WARM_S = 0.3


async def _to_host_async(y: Any) -> np.ndarray:
    return await y.to_numpy_async() if isinstance(y, GpuArray) else np.asarray(y)


async def _warm_async(run: Callable[[], Awaitable[Any]], seconds: float) -> None:
    """Run `run()` once, and again until `seconds` have passed."""
    start = time.perf_counter()
    await run()
    while time.perf_counter() - start < seconds:
        await run()


async def pycore_resident_async(p: Pipeline, xs: list[np.ndarray], count: int,
                                repeats: int, jitted: bool = False) -> dict[str, Any]:
    """pycore on GpuArray inputs: `repeats` chains of `count` runs, the last run's result read back;
    ms per run (median), the result, the calls one run makes (its trace entries: op, backend, "+"
    where the call's kernel computed earlier calls too) and how many of its kernels fusion left out.
    jitted: the pipeline as `pycore.jit` captures it (and "captured": what it replays)."""
    gs = [await pc.to_gpu_async(x) for x in xs]
    run = jit(p.run_async) if jitted else p.run_async

    async def chain(k: int) -> Any:
        outs = []  # (every run's result held to the end, as the peers' are: a result dropped
        for _ in range(k):  # before the GPU ran it would never be computed)
            outs.append(await run(*gs))
        return await _to_host_async(outs[-1])

    try:
        await chain(1)
        await compiles_async()  # (fused kernels compile in the background)
        await chain(1)  # (a jitted pipeline is captured once they are compiled)
        device = RUNTIME.device
        RUNTIME.trace.clear()
        away = device.fused_away if device is not None else 0
        result = await chain(1)
        fused_away = (device.fused_away if device is not None else 0) - away  # (the read submitted all)
        calls = [f"{e['op']}" + ("" if e["backend"] == "webgpu" else f" ({e['backend']})")
                 + ("+" if e.get("fused") else "")
                 for e in RUNTIME.trace if e["op"] not in ("wait for queued work", "device")]
        await _warm_async(lambda: chain(count), WARM_S)
        runs = []
        for _ in range(repeats):
            t = time.perf_counter()
            await chain(count)
            runs.append((time.perf_counter() - t) * 1e3 / count)
        out = {"ms": statistics.median(runs), "runs": runs, "result": result, "calls": calls,
               "fused_away": fused_away}
        if isinstance(run, Jitted):  # (its kernels' GPU time from timestamps, None where there are
            out["captured"] = run.captures()  # none; the GPU kept busy for WARM_S first: the chain's
            await _warm_async(lambda: run.kernel_ms_async(*gs), WARM_S)  # readback let it clock down)
            out["kernel_ms"] = await run.kernel_ms_async(*gs)
            run.clear()
    finally:
        for g in gs:
            g.release()
    return out


async def pycore_round_trip_async(p: Pipeline, xs: list[np.ndarray], repeats: int,
                                  jitted: bool = False) -> dict[str, Any]:
    """pycore from host arrays: to_gpu_async each input, the pipeline (jitted: as `pycore.jit`
    captures it), to_numpy_async; median ms."""
    run = jit(p.run_async) if jitted else p.run_async

    async def once() -> np.ndarray:
        gs = [await pc.to_gpu_async(x) for x in xs]
        out = await _to_host_async(await run(*gs))
        for g in gs:
            g.release()
        return out

    result = await once()
    await _warm_async(once, WARM_S)
    runs = []
    for _ in range(repeats):
        t = time.perf_counter()
        await once()
        runs.append((time.perf_counter() - t) * 1e3)
    if isinstance(run, Jitted):
        run.clear()
    return {"ms": statistics.median(runs), "runs": runs, "result": result}


# ---------------------------------------------------------------- the yardsticks (baselines.js)


def _js_inputs(xs: list[np.ndarray]) -> Any:
    """The inputs as JavaScript [shape, typed array] pairs (copies the JS side owns)."""
    from pyodide.ffi import create_proxy, to_js  # type: ignore[import-not-found]

    pairs = []
    for x in xs:
        proxy = create_proxy(np.ascontiguousarray(x))
        view = proxy.getBuffer()
        try:
            pairs.append(to_js([list(x.shape), view.data.slice(), str(x.dtype)]))
        finally:
            view.release()
            proxy.destroy()
    return to_js(pairs)


def _from_js(got: dict[str, Any], shape: tuple[int, ...]) -> np.ndarray:
    out = got["out"]
    data = out.to_bytes() if hasattr(out, "to_bytes") else bytes(out)
    return np.frombuffer(data, np.float32).reshape(shape)


async def _peer_async(pending: Awaitable[Any], want: np.ndarray) -> dict[str, Any]:
    """A baselines.js pipeline's row (its promise awaited), with its error against `want`; on an
    exception (a peer without an op, out of memory), {"failed": why}."""
    try:
        got = (await pending).to_py()
    except Exception as exc:  # (a peer without the op, or out of memory: the row says so)
        return {"failed": f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"}
    row = {k: v for k, v in got.items() if k != "out"}
    row["error"] = error(_from_js(got, want.shape), want)
    return row


def _checked(row: dict[str, Any], tolerance: float) -> None:
    for key in ("pycore", "pycore_jit", "tfjs", "jax", "jax_jit"):
        if "error" in row.get(key, {}):
            row[key]["ok"] = row[key]["error"] <= tolerance


async def run_pipelines_async(small: bool = False, names: tuple[str, ...] | None = None, count: int = 10,
                              repeats: int = 5, peers: bool = True,
                              copy_bytes: int | None = None) -> dict[str, Any]:
    """Run the pipelines at the full (or `small`) sizes: pycore resident and round trip, and (in a
    WebGPU page or Dawn, `peers`) TF.js, jax-js eager and jitted, the transfer floor and the copy
    kernel's bandwidth. Every library's result's error against float64 is in its row ("ok": within
    the pipeline's tolerance; the table marks the others), a peer that failed has {"failed": why}.

    >>> import asyncio
    >>> r = asyncio.run(run_pipelines_async(small=True, names=("dense",), count=1, repeats=1))
    >>> r["rows"][0]["name"], r["rows"][0]["pycore"]["error"] < 1e-4
    ('dense', True)
    """
    from pycore.bench.peers import _baselines_module

    await RUNTIME.init_async()
    picked = list(PIPELINES) if names is None else list(names)
    unknown = [n for n in picked if n not in PIPELINES]
    if unknown:
        raise ValueError(f"pipelines: unknown pipeline(s) {unknown}; known: {list(PIPELINES)}")
    notes: list[str] = []
    # Every pipeline's inputs and float64 reference first, before anything is timed: a reference
    # takes seconds of CPU (a GPU idle that long clocks down, and whichever library ran next paid
    # for the climb: pycore's resident dense layer took 0.89-1.23 ms a run after one, 0.47-0.55
    # without, in one process on an H200)
    cases = {name: (xs := PIPELINES[name].inputs(small), PIPELINES[name].reference(*xs)) for name in picked}
    gpu = RUNTIME.backend == "webgpu"
    module = await _baselines_module(notes.append) if gpu and peers else None
    result: dict[str, Any] = {"adapter": str(RUNTIME.info()["adapter"]), "backend": RUNTIME.backend,
                              "small": small, "count": count, "repeats": repeats, "rows": [], "notes": notes}
    device = RUNTIME.device.transport.js_device() if module is not None and RUNTIME.device else None
    if module is not None:
        for lib, start in (("tfjs", module.tfjs), ("jax", module.jaxjs)):
            try:
                result[lib] = (await start()).to_py()
            except Exception as exc:
                notes.append(f"{lib} unavailable: {exc}")
        assert RUNTIME.device is not None
        nbytes = min(copy_bytes or ((1 << 20) if small else (256 << 20)), RUNTIME.device.max_binding)
        result["copy"] = (await module.copyBandwidth(device, nbytes, count, repeats)).to_py()
    for name in picked:
        p = PIPELINES[name]
        xs, want = cases.pop(name)
        row: dict[str, Any] = {"name": name, "what": p.what, "shapes": [list(x.shape) for x in xs],
                               "min_bytes": p.min_bytes(xs, want), "tolerance": p.tolerance}
        try:
            resident = await pycore_resident_async(p, xs, count, repeats)
            trip = await pycore_round_trip_async(p, xs, repeats)
            row["pycore"] = {"resident_ms": resident["ms"], "round_trip_ms": trip["ms"],
                             "error": max(error(resident["result"], want), error(trip["result"], want)),
                             "calls": resident["calls"], "fused_away": resident["fused_away"]}
        except Exception as exc:  # (a size past a device limit, say: the other pipelines still run)
            row["pycore"] = {"failed": f"{type(exc).__name__}: {exc}"}
        if gpu:  # (the same code as pycore.jit captures it: on NumPy it would only run as it is)
            try:
                resident = await pycore_resident_async(p, xs, count, repeats, jitted=True)
                trip = await pycore_round_trip_async(p, xs, repeats, jitted=True)
                worst = max(error(resident["result"], want), error(trip["result"], want))
                row["pycore_jit"] = {"resident_ms": resident["ms"], "round_trip_ms": trip["ms"],
                                     "error": worst, "captured": resident["captured"],
                                     "kernel_ms": resident["kernel_ms"]}
            except Exception as exc:
                row["pycore_jit"] = {"failed": f"{type(exc).__name__}: {exc}"}
        if module is not None:
            ins = _js_inputs(xs)
            if "tfjs" in result:
                row["tfjs"] = await _peer_async(module.tfPipeline(name, ins, count, repeats), want)
            if "jax" in result:
                for key, jitted in (("jax", False), ("jax_jit", True)):
                    row[key] = await _peer_async(module.jaxPipeline(name, ins, count, repeats, jitted), want)
            out_bytes = max(1, want.size) * 4
            for key, staged in (("floor_ms", True), ("floor_write_ms", False)):
                floor = (await module.transferFloor(device, ins, out_bytes, repeats, staged)).to_py()
                row[key] = floor["ms"]
        _checked(row, p.tolerance)
        result["rows"].append(row)
    return result


def _ms(row: dict[str, Any], key: str, mode: str) -> float | None:
    cell = row.get(key) or {}
    return cell.get(f"{mode}_ms")


def format_pipelines(result: dict[str, Any]) -> str:
    """The table of a run_pipelines_async result: per pipeline and mode, ms of pycore (its calls as
    written, and as pycore.jit captures them), TF.js, jax-js (the faster of eager and jit), the
    transfer floor (uploads through mapped staging buffers, and through writeBuffer); pycore (the
    faster of its two) / the best peer; GB/s (pycore's faster) and its
    share of the copy kernel's; each library's error against float64; the calls pycore made."""
    copy = result.get("copy") or {}
    lines = [f"adapter: {result['adapter']}  ({'small' if result['small'] else 'full'} sizes; resident: "
             f"chains of {result['count']} runs, one readback; median of {result['repeats']})"]
    libs = [f"{name} {result[key]['version']} on {result[key]['backend']}"
            for key, name in (("tfjs", "TF.js"), ("jax", "jax-js")) if key in result]
    if libs:
        lines.append("peers in the same process: " + ", ".join(libs))
    if copy:
        lines.append(f"copy kernel: {copy['gbps']:.1f} GB/s ({copy['bytes'] / 2**20:.0f} MiB, "
                     f"{copy['ms']:.3f} ms)")
    head = (f"{'pipeline':14s} {'mode':10s} {'pycore':>9s} {'pc jit':>9s} {'TF.js':>9s} {'jax-js':>9s} "
            f"{'floor':>8s} {'fl.write':>8s} {'pyc/best':>8s} {'GB/s':>7s} {'of copy':>7s}")
    lines.append(head)
    for row in result["rows"]:
        for mode in ("resident", "round_trip"):
            eager, jitted = _ms(row, "pycore", mode), _ms(row, "pycore_jit", mode)
            mine = [t for t in (eager, jitted) if t is not None]
            ours = min(mine) if mine else None
            tf = _ms(row, "tfjs", mode)
            jax = [t for t in (_ms(row, "jax", mode), _ms(row, "jax_jit", mode)) if t is not None]
            jx = min(jax) if jax else None
            peers = [t for t in (tf, jx) if t is not None]
            cells = [f"{t:9.3f}" if t is not None else f"{'-':>9s}" for t in (eager, jitted, tf, jx)]
            floor = " ".join(f"{row[k]:8.3f}" if mode == "round_trip" and k in row else f"{'':8s}"
                             for k in ("floor_ms", "floor_write_ms"))
            ratio = f"{ours / min(peers):8.2f}" if peers and ours else f"{'-':>8s}"
            rate = row["min_bytes"] / ours / 1e6 if mode == "resident" and ours else None
            gbps = f"{rate:7.2f}" if rate is not None else f"{'':7s}"
            share = f"{rate / copy['gbps']:7.1%}" if rate is not None and copy else ""
            lines.append(f"{row['name']:14s} {mode.replace('_', ' '):10s} {' '.join(cells)} {floor} "
                         f"{ratio} {gbps} {share}".rstrip())
    lines.append("\nerrors against float64 (max |diff| / max |reference|) and pycore's calls per run:")
    for row in result["rows"]:
        errs = []
        for key in ("pycore", "pycore_jit", "tfjs", "jax", "jax_jit"):
            cell = row.get(key)
            if cell is not None:
                errs.append(f"{key} {cell['error']:.1e}" + ("" if cell["ok"] else " WRONG") if "error" in cell
                            else f"{key} failed ({cell['failed']})")
        lines.append(f"{row['name']:14s} {'; '.join(errs)}")
        calls = row["pycore"].get("calls")
        if calls is not None:
            away = row["pycore"].get("fused_away", 0)
            lines.append(f"{'':14s} {len(calls)} calls ({away} kernels left out, fused into later ones "
                         f"marked +): {', '.join(calls)}")
        jit_row = row.get("pycore_jit") or {}
        captured = jit_row.get("captured")
        if captured:
            c, kernel_ms = captured[0], jit_row.get("kernel_ms")
            timed = "" if kernel_ms is None else f" (their GPU time {kernel_ms:.3f} ms, from timestamps)"
            lines.append(f"{'':14s} pycore.jit: " + (f"{c['kernels']} kernels in {c['slices']} submit(s) "
                         f"replayed per run{timed}, {c['held_bytes'] / 2**20:.1f} MiB kept between runs"
                         if c["replayed"] else f"runs its calls: {c['why']}"))
    lines += [f"note: {n}" for n in result["notes"]]
    return "\n".join(lines)
