#!/usr/bin/env python3
"""Run pycore's benchmarks headlessly: serve.py, Chromium with WebGPU, the app booted, then
`pycore.bench.run_async(...)` in the page. Writes the JSON and prints the table.

    python3 scripts/bench.py                       # full sweep -> bench-results.json
    python3 scripts/bench.py --quick               # a small sweep, for a first look
    python3 scripts/bench.py --dawn --quick        # the same in Node on Dawn (Chrome's WebGPU), on the
                                                   # machine's GPU (or lavapipe: scripts/lavapipe.sh)
    python3 scripts/bench.py --ops relu,matmul --sizes 1000,1000000 --matrix-sizes 256,512
    python3 scripts/bench.py --write-readme        # also put the table into docs/benchmarks.md
    python3 scripts/bench.py --native-readme docs/bench/native-h200.json
                      # docs/benchmarks.md's native table from a `python3 -m pycore.bench --native` JSON

The machine this runs on matters: on a CPU-only machine Chromium's WebGPU is SwiftShader (a CPU
rasteriser), and its numbers say nothing about a real GPU. Compare ratios from one run.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scripts.readme import BENCHMARKS, replace_section
from tests.harness import ROOT, Server, boot, launch


def run_dawn(args: argparse.Namespace, kwargs: str) -> dict:
    """The same benchmark in Node on Dawn (scripts/dawn.mjs): Pyodide, pycore's browser transport,
    raw JS and TF.js in one process. Exits with a message when Dawn finds no adapter."""
    from tests.harness import Dawn

    try:
        worker = Dawn(tuple(args.dawn_toggle or ()))
    except (RuntimeError, FileNotFoundError) as exc:
        raise SystemExit(f"bench.py --dawn: Dawn did not start: {exc}") from None
    try:
        info = worker.ready()
        if info["backend"] != "webgpu":
            raise SystemExit(f"bench.py --dawn: Dawn found no WebGPU adapter ({info['reason']}); on a "
                             "machine without a GPU run: bash scripts/lavapipe.sh")
        print(f"Dawn: {info['tier']}", file=sys.stderr)
        started = time.time()
        print(f"running pycore.bench.run_async({kwargs}) ...", file=sys.stderr, flush=True)
        result = worker.py(f"await pycore.bench.run_async({kwargs})")
        print(f"done in {time.time() - started:.0f} s", file=sys.stderr)
    finally:
        worker.close()
    return result


def run(args: argparse.Namespace) -> dict:
    from pycore.bench import call_kwargs

    call = {**call_kwargs(args), "peers": not args.no_peers}
    kwargs = ", ".join(f"{k}={v!r}" for k, v in call.items())
    if args.dawn:
        return run_dawn(args, kwargs)
    from playwright.sync_api import sync_playwright

    server = Server()
    try:
        with sync_playwright() as pw:
            browser = launch(pw, webgpu=not args.no_webgpu)
            page = boot(browser, server.url + "/")
            page.page.set_default_timeout(args.timeout * 1000)
            page.page.on("console", lambda m: print(f"[page] {m.text}", file=sys.stderr)
                         if m.type == "error" else None)
            started = time.time()
            print(f"running pycore.bench.run_async({kwargs}) ...", file=sys.stderr, flush=True)
            result = page.py(f"await pycore.bench.run_async({kwargs})")
            print(f"done in {time.time() - started:.0f} s", file=sys.stderr)
            browser.close()
    finally:
        server.stop()
    return result


def readme_table(result: dict, json_path: str) -> str:
    from pycore.bench import format_report

    return (f"Measured with `python3 scripts/bench.py --write-readme` on {result['when']}: a 2-core "
            f"machine with no GPU, so WebGPU is **SwiftShader** ({result['tier']}), a CPU implementation. "
            f"The numbers show pycore's overheads and the ratios between implementations in one page "
            f"and one run, not what a real GPU does. Raw data: `{json_path}`.\n\n"
            f"```text\n{format_report(result)}\n```\n")


def native_readme(json_path: str) -> str:
    """The README's native section: the reference's published figures beside a native run's, then
    the whole table (folded)."""
    from pycore.bench import REFERENCE, format_report

    result = json.loads(Path(json_path).read_text())
    env = result["environment"]
    adapter = env.get("adapter") or {}
    rows = ["| | reference (" + REFERENCE + ", published) | pycore, native, this run | |",
            "| --- | ---: | ---: | ---: |"]
    rows += [f"| {r['what']} | {r['reference_ms']} ms | {r['pycore_ms']:.3g} ms | {r['speedup']}x |"
             for r in result["reference"]]
    versions = env.get("versions", {})
    return (f"Measured with `bash scripts/native-gpu-run.sh` on {result['when']}: "
            f"{adapter.get('device') or result['tier']} ({adapter.get('backend_type', '')}, driver "
            f"{adapter.get('description', '?')}) through wgpu {versions.get('wgpu', '?')}, Python "
            f"{versions.get('python', '?')}, NumPy {versions.get('numpy', '?')}. Round trips from NumPy "
            f"to NumPy, medians; raw data: `{json_path}`.\n\n" + "\n".join(rows) +
            f"\n\n<details><summary>the whole run</summary>\n\n```text\n{format_report(result)}\n```\n"
            f"</details>\n")


def dawn_section(bench_path: str, cost_path: str) -> str:
    """docs/benchmarks.md's real-GPU section: a Dawn run of the sweep (scripts/bench.py --dawn) and
    of scripts/call_cost.py on the same machine, pycore beside raw JavaScript and TF.js."""
    from pycore.bench import format_report

    result = json.loads(Path(bench_path).read_text())
    cost = json.loads(Path(cost_path).read_text())
    small, chain = cost["small"], cost["chain"]
    env = result["environment"]
    peers: dict[tuple[str, int], dict[str, float]] = {}
    for row in result.get("peers", []):
        impl = "tfjs" if row["impl"].startswith("tfjs") else row["impl"]
        peers.setdefault((row["op"], row["size"]), {})[impl] = row["ms"]
    ours = {(r["op"], r["size"]): r["gpu_ms"] for r in result["sweep"]}
    tfjs = next((r["impl"][5:] for r in result.get("peers", []) if r["impl"].startswith("tfjs")), "")
    tf_relu = peers.get(("relu", 1000), {}).get("tfjs", float("nan"))
    lines = [
        f"Measured on {result['when']} with `bash scripts/dawn-gpu-run.sh`: {cost['tier']}, through Dawn "
        f"(npm `webgpu`) in {env.get('runtime', 'Node')}, Pyodide {env['versions'].get('pyodide', '?')}. "
        f"pycore, raw JavaScript and TF.js {tfjs} run in one process on one device. Medians in "
        f"milliseconds. Raw data: `{bench_path}`, `{cost_path}`.", "",
        "**The cost of a call** (relu on 1,024 floats unless said)", "",
        "| | pycore | raw JS | TF.js |", "| --- | ---: | ---: | ---: |",
        f"| round trip, NumPy in, NumPy out | {small['relu_1k_round_trip_ms']:.3f} | "
        f"{small['raw_js_round_trip_ms']:.3f} | {tf_relu:.3f} |",
        "| host time of an op on a GpuArray, 200 in a row, nothing read: results' buffers made / "
        f"pooled | {small['resident_relu_host_ms']:.3f} / {small['resident_relu_host_warm_ms']:.3f} | | |",
        "| relu → scale → add on 1M floats: eager calls on GpuArrays / CommandBatch / three round trips | "
        f"{chain['eager_gpuarrays_ms']:.2f} / {chain['command_batch_ms']:.2f} / "
        f"{chain['round_trips_ms']:.2f} | | |",
        "", "**Matmul**: chained on arrays that stay on the GPU (ms per matmul and TFLOP/s: a chain of "
        "17 and a chain of 1, each ending in one read, timed alternately; (17's time − 1's) / 16), "
        "and from NumPy to NumPy", "",
        "| n | pycore chained | TF.js chained | pycore round trip | TF.js round trip |",
        "| ---: | ---: | ---: | ---: | ---: |"]
    for r in cost["matmul"]:
        lines.append(f"| {r['n']}² | {r['pycore_chain_ms']:.3f} ({r['pycore_tflops']:.3g}) | "
                     f"{r['tfjs_chain_ms']:.3f} ({r['tfjs_tflops']:.3g}) | {r['pycore_round_trip_ms']:.2f} | "
                     f"{r['tfjs_round_trip_ms']:.2f} |")
    lines += ["", "**Round trips beside the peers** (the sweep's sizes; matrices n × n)", "",
              "| op | size | pycore | raw JS | TF.js |", "| --- | ---: | ---: | ---: | ---: |"]
    for (op, size), row in peers.items():
        shown = f"{size}²" if op == "matmul" else f"{size:,}"
        lines.append(f"| {op} | {shown} | {ours.get((op, size), float('nan')):.3f} | "
                     f"{row.get('raw-js', float('nan')):.3f} | {row.get('tfjs', float('nan')):.3f} |")
    pre = cost.get("background_compile") or {}
    if pre:
        slowest = max(pre["compile_ms"].items(), key=lambda kv: kv[1])
        lines += ["", f"**First use**: the {pre['progress']['total']} kernels this adapter's ops use compile "
                  f"in the background once the device is acquired; all were ready "
                  f"{pre['waited_after_init_s'] * 1e3:.0f} ms after `init_async()` returned (the slowest, "
                  f"{slowest[0]}, took {slowest[1]:.0f} ms)."]
    lines += ["", "<details><summary>the whole sweep</summary>", "", "```text", format_report(result), "```",
              "</details>", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    from pycore.bench import add_arguments, write_result

    add_arguments(ap)
    ap.add_argument("--no-peers", action="store_true", help="skip raw JavaScript and TF.js")
    ap.add_argument("--no-webgpu", action="store_true", help="Chromium without WebGPU: the NumPy fallback")
    ap.add_argument("--timeout", type=int, default=3600, help="seconds the whole run may take")
    ap.add_argument("--dawn", action="store_true",
                    help="run in Node on Dawn (npm webgpu: a real GPU, or lavapipe) instead of Chromium")
    ap.add_argument("--dawn-readme", nargs=2, metavar=("BENCH_JSON", "CALL_COST_JSON"),
                    help="only write docs/benchmarks.md's real-GPU section from a Dawn run's two JSON files")
    ap.add_argument("--dawn-toggle", action="append", metavar="TOGGLE",
                    help="a Dawn option for --dawn, e.g. enable-dawn-features=allow_unsafe_apis")
    ap.add_argument("--write-readme", action="store_true", help="put the table into docs/benchmarks.md")
    ap.add_argument("--native-readme", metavar="JSON",
                    help="only write docs/benchmarks.md's native table from this native run's JSON")
    args = ap.parse_args(argv)
    if args.dawn_readme:
        replace_section("dawn", dawn_section(*args.dawn_readme), path=BENCHMARKS)
        return 0
    if args.native_readme:
        replace_section("native", native_readme(args.native_readme), path=BENCHMARKS)
        return 0

    result = run(args)
    write_result(result, args.out)
    out = Path(args.out)
    if args.write_readme:
        rel = out.resolve().relative_to(ROOT).as_posix() if out.resolve().is_relative_to(ROOT) else str(out)
        replace_section("bench", readme_table(result, rel), path=BENCHMARKS)
    return 0 if all(t["met"] is not False for t in result.get("targets", [])) else 1


if __name__ == "__main__":
    sys.exit(main())
