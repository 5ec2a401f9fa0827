"""What a run means: the targets with their goals, pycore beside the reference library's published
figures, and the readable table."""

from __future__ import annotations

from typing import Any

from pycore.bench.functions import is_matrix, parse

TARGETS = {
    "regret": "auto <= 1.10 x the faster of gpu and numpy, at every size",
    "chain_eager": "3-op chain as eager calls on GpuArrays <= 1.1 x the same chain through CommandBatch",
    "chain_raw": "3-op chain through CommandBatch <= 1.1 x raw JavaScript doing the same transfers",
    "bridge": "pycore small-op round trip <= 1.5 x the raw JavaScript round trip",
    "matmul_vs_tfjs": "matmul >= 2 x faster than TF.js WebGPU at 512 and 1024",
    "matmul_vs_numpy": "matmul on the GPU >= 10 x faster than NumPy at 1024",
}


# The reference library's published numbers (native wgpu on an RTX 4090; ../notes in the design
# docs): (what, function, size, milliseconds). Size None: the small-op round trip of the bridge row.
REFERENCE = "trueno wgpu, RTX 4090"


REFERENCE_MS = (
    ("fixed cost per op (small op round trip)", "relu", None, 3.5),
    ("matmul 1000²", "matmul", 1000, 7.84),
    ("add 1M", "add", 1_000_000, 5.98),
    ("dot 1M", "dot", 1_000_000, 6.25),
)


def _targets(result: dict[str, Any]) -> list[dict[str, Any]]:
    out = []

    def target(key: str, value: float | None, goal: float, higher_is_better: bool, detail: str) -> None:
        met = None if value is None else (value >= goal if higher_is_better else value <= goal)
        out.append({"name": key, "goal": TARGETS[key], "value": value, "met": met, "detail": detail})

    regrets = [r for r in result["sweep"] if "regret" in r]
    if regrets:
        worst = max(regrets, key=lambda r: r["regret"])
        target("regret", worst["regret"], 1.10, False,
               f"worst: {worst['op']} at {worst['size']:,}; "
               f"{sum(r['regret'] > 1.10 for r in regrets)} of {len(regrets)} cells over 1.10")
    chain = result.get("chain")
    if chain:
        eager = round(chain["gpu_array_ms"] / chain["command_batch_ms"], 3)
        target("chain_eager", eager, 1.10, False, f"GpuArray {chain['gpu_array_ms']} ms, CommandBatch "
               f"{chain['command_batch_ms']} ms at {chain['size']:,} elements (round trips "
               f"{chain['round_trips_ms']} ms)")
        if "raw_js_ms" in chain:
            raw = round(chain["command_batch_ms"] / chain["raw_js_ms"], 3)
            target("chain_raw", raw, 1.10, False, f"CommandBatch {chain['command_batch_ms']} ms, raw JS "
                   f"{chain['raw_js_ms']} ms")
    bridge = result.get("bridge", {})
    if "ratio" in bridge:
        target("bridge", bridge["ratio"], 1.5, False,
               f"trimmed means: pycore {bridge['pycore_ms']} ms vs raw JS {bridge['raw_js_ms']} ms "
               f"(floor {bridge['raw_floor_ms']} ms; medians {bridge['pycore_median_ms']} vs "
               f"{bridge['raw_js_median_ms']} ms)")
    mm = {r["size"]: r for r in result["sweep"] if r["op"] == "matmul"}
    tf = {r["size"]: r["ms"] for r in result.get("peers", []) if r["op"] == "matmul"
          and r["impl"].startswith("tfjs")}
    sizes = [n for n in (512, 1024) if n in mm and n in tf]
    if sizes:
        ratios = {n: round(tf[n] / mm[n]["gpu_ms"], 3) for n in sizes}
        target("matmul_vs_tfjs", min(ratios.values()), 2.0, True,
               ", ".join(f"{n}²: TF.js {tf[n]:.1f} ms / pycore {mm[n]['gpu_ms']:.1f} ms = {v}x"
                         for n, v in ratios.items()))
    if 1024 in mm and "numpy_ms" in mm[1024]:
        r = mm[1024]
        target("matmul_vs_numpy", round(r["numpy_ms"] / r["gpu_ms"], 3), 10.0, True,
               f"NumPy {r['numpy_ms']:.0f} ms / GPU {r['gpu_ms']:.1f} ms at 1024²")
    return out


def _reference(result: dict[str, Any]) -> list[dict[str, Any]]:
    """pycore's GPU time beside the reference's published one, for each that this run measured
    (under the function's namespace name, or an old name of it: vec_add for add)."""
    gpu = {(_standard(r["op"]), r["size"]): r["gpu_ms"] for r in result["sweep"] if "gpu_ms" in r}
    rows = []
    for what, op, size, ref_ms in REFERENCE_MS:
        ours = result.get("bridge", {}).get("pycore_ms") if size is None else gpu.get((op, size))
        if ours is not None:
            rows.append({"what": what, "reference_ms": ref_ms, "pycore_ms": ours,
                         "speedup": round(ref_ms / max(ours, 1e-6), 2)})
    return rows


def _fmt(ms: float | None) -> str:
    if ms is None:
        return "-"
    return f"{ms:.3g}" if ms < 10 else f"{ms:,.0f}"


def _standard(name: str) -> str:
    """A row's function by its namespace name (vec_add: add), or the name as it is."""
    try:
        return parse(name).standard
    except ValueError:
        return name


def _size(n: int, name: str) -> str:
    if is_matrix(name):
        return f"{n}²"
    return f"{n // 1_000_000}M" if n >= 1_000_000 and n % 1_000_000 == 0 else (
        f"{n // 1000}K" if n % 1000 == 0 else str(n))


def format_report(result: dict[str, Any]) -> str:
    """The result of run_async as text tables (what scripts/bench.py prints)."""
    lines = [f"pycore benchmark, {result['when']}, on {result['tier']}",
             f"median ms over {result['repeats']} to {4 * result['repeats']} runs; "
             f"auto = the selector's choice (margin {result['margin']})", ""]
    head = f"{'function':<14}{'size':>7}{'gpu':>9}{'numpy':>9}{'auto':>9}  {'auto ran':<8}{'regret':>7}"
    head += "   gpu stages: buffers/upload/dispatch/readback/python"
    lines += [head, "-" * len(head)]
    for r in result["sweep"]:
        st = r.get("stages_ms")
        stages = "/".join(_fmt(st.get(k)) for k in ("buffers", "upload", "dispatch", "readback", "python")) \
            if st else ""
        ran = r.get("auto_backend", "") + ("*" if r.get("auto_settling_calls") else "")
        lines.append(f"{r['op']:<14}{_size(r['size'], r['op']):>7}{_fmt(r.get('gpu_ms')):>9}"
                     f"{_fmt(r.get('numpy_ms')):>9}{_fmt(r.get('auto_ms')):>9}  "
                     f"{ran:<8}{r.get('regret', ''):>7}   {stages}")
    settled = [r["auto_settling_calls"] for r in result["sweep"] if r.get("auto_settling_calls")]
    if settled:
        lines.append(f"* auto settled this call by measuring both backends first ({len(settled)} "
                     f"cells, {sum(settled)} calls in all, before the timed rounds)")
    if result.get("crossover"):
        lines += ["", "crossover (the GPU is faster from this size on): measured / predicted by the selector"]
        for name, c in result["crossover"].items():
            shown = [_size(c[k], name) if c[k] else "never" for k in ("measured", "predicted")]
            lines.append(f"  {name:<14}{shown[0]:>8} / {shown[1]}")
    chain = result.get("chain")
    if chain:
        lines += ["", f"chain relu -> scale -> add on {chain['size']:,} elements: "
                      f"round trips {_fmt(chain['round_trips_ms'])} ms, "
                      f"GpuArray {_fmt(chain['gpu_array_ms'])} ms ({chain['speedup_gpu_array']}x), "
                      f"CommandBatch {_fmt(chain['command_batch_ms'])} ms "
                      f"({chain['speedup_command_batch']}x)"
                      + (f", raw JS with the batch's fused kernel {_fmt(chain['raw_js_ms'])} ms"
                         if "raw_js_ms" in chain else "")]
    bridge = result.get("bridge")
    if bridge and "raw_js_ms" in bridge:
        lines.append(f"bridge: relu on {bridge['size']} elements, {bridge['runs']} calls each, "
                     f"trimmed means: pycore {_fmt(bridge['pycore_ms'])} ms, "
                     f"raw JS {_fmt(bridge['raw_js_ms'])} ms "
                     f"({bridge['ratio']}x); raw floor (empty dispatch + 4-byte readback) "
                     f"{_fmt(bridge['raw_floor_ms'])} ms; medians {_fmt(bridge['pycore_median_ms'])} / "
                     f"{_fmt(bridge['raw_js_median_ms'])} / {_fmt(bridge['raw_floor_median_ms'])} ms")
    if result.get("peers"):
        ours = {(r["op"], r["size"]): r.get("gpu_ms") for r in result["sweep"]}
        impls = list(dict.fromkeys(r["impl"] for r in result["peers"]))
        lines += ["", f"{'peer':<10}{'size':>7}{'pycore':>9}" + "".join(f"{i:>14}" for i in impls)]
        keys = list(dict.fromkeys((r["op"], r["size"]) for r in result["peers"]))
        for op, n in keys:
            cells = {r["impl"]: r["ms"] for r in result["peers"] if (r["op"], r["size"]) == (op, n)}
            lines.append(f"{op:<10}{_size(n, op):>7}{_fmt(ours.get((op, n))):>9}"
                         + "".join(f"{_fmt(cells.get(i)):>14}" for i in impls))
    if result.get("targets"):
        lines += ["", "targets"]
        for t in result["targets"]:
            mark = {True: "met", False: "NOT met", None: "n/a"}[t["met"]]
            lines.append(f"  [{mark:>7}] {t['goal']}: {t['value']}  ({t['detail']})")
    if result.get("reference"):
        lines += ["", f"beside the reference ({REFERENCE}, its published numbers)",
                  f"  {'':<42}{'reference':>10}{'pycore':>10}"]
        lines += [f"  {r['what']:<42}{_fmt(r['reference_ms']):>10}{_fmt(r['pycore_ms']):>10}  "
                  f"({r['speedup']}x)" for r in result["reference"]]
    for note in result.get("notes", []):
        lines.append(f"note: {note}")
    lines.append(f"({result['seconds']} s)")
    return "\n".join(lines)
