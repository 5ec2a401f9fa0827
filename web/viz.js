// The visualization page: cards that run a few lines of Python through pycore and draw the result.
// Glue and drawing only: every number comes from the Python shown on its card (CARDS below),
// which is exactly what runs, and which "console ▸" pastes into the Python console at the bottom.
//
// For tests: globalThis.vizState holds each card's last data, the charts, and `ready` (a promise
// that resolves once every card has drawn once).
/* global Chart */

const COLORS = { gpu: "#6fcf97", numpy: "#f2c94c", auto: "#56ccf2", error: "#eb5757", grid: "#242b38",
                 fg: "#d8dee9", dim: "#7b8494" };
const STAGE_COLORS = { buffers: "#9b51e0", upload: "#2d9cdb", dispatch: "#27ae60", readback: "#f2994a",
                       python: "#bdbdbd", compile: "#eb5757", compute: "#f2c94c" };
const STAGES = ["buffers", "upload", "dispatch", "readback", "python"]; // of a GPU call
// The functions each scope times, by their names in pycore's namespace (pycore.<name>_async), with
// keyword arguments where they matter (pycore/bench/functions.py says which, and their inputs).
const BENCH_SCOPES = {
  quick: { ops: ["relu", "add", "softmax", "sum", "matmul"], sizes: [1000, 100000], matrix: [64, 256], repeats: 3 },
  standard: { ops: ["add", "multiply", "exp", "relu", "sigmoid", "gelu", "sum", "sum(axis=0)", "argmax", "softmax",
                    "cumulative_sum", "sort", "matmul", "convolve2d"],
              sizes: [1000, 10000, 100000, 1000000], matrix: [64, 128, 256, 512], repeats: 3 },
};

// ---- the Python each card runs (its last expression is the data the card draws)
const CODE = {
  bench: (scope) => `import js, json

def report(event):  # after each measured row: stream it to the page
    js.pageEvent("bench", json.dumps(event))

await pycore.bench.run_async(
    ops=${pyTuple(scope.ops.map((o) => JSON.stringify(o)))},
    sizes=${pyTuple(scope.sizes.map(pyInt))}, matrix_sizes=${pyTuple(scope.matrix.map(String))},
    repeats=${scope.repeats}, progress=report)`,
  gallery: () => `x = np.linspace(-8, 8, 321, dtype=np.float32)
backend = "gpu" if pycore.info()["backend"] == "webgpu" else "numpy"
calls = {"exp": (x,), "log": (x,), "sqrt": (x,), "sin": (x,), "tanh": (x,), "logaddexp": (x, 1.0),
         "relu": (x,), "sigmoid": (x,), "gelu": (x,)}  # (log, sqrt of x < 0: NaN on both)
curves = {}
for name, args in calls.items():
    fn = getattr(pycore, f"{name}_async")
    got = await fn(*args, backend=backend)
    ref = await fn(*args, backend="numpy")
    curves[name] = {"more_args": args[1:], "gpu": got, "numpy": ref, "error": np.abs(got - ref)}
{"x": x, "backend": backend, "curves": curves}`,
  matmul: (n) => `rng = np.random.default_rng(${n})
a = rng.standard_normal((${n}, ${n}), dtype=np.float32)
b = rng.standard_normal((${n}, ${n}), dtype=np.float32)
c = await pycore.matmul_async(a, b)
last = pycore.trace()[-1]
{"a": a, "b": b, "c": c, "ms": last["total_ms"] - last["ms"].get("compile", 0),
 "compile_ms": last["ms"].get("compile", 0), "backend": last["backend"]}`,
  conv: (kernel) => `n = 128
yy, xx = np.mgrid[0:n, 0:n] / n
image = (0.3 * xx + ((xx - 0.5) ** 2 + (yy - 0.45) ** 2 < 0.08)
         + 0.6 * ((xx > 0.15) & (xx < 0.35) & (yy > 0.7))).astype(np.float32)
kernels = {"edge": [[-1, -1, -1], [-1, 8, -1], [-1, -1, -1]], "blur": np.ones((5, 5)) / 25,
           "sharpen": [[0, -1, 0], [-1, 5, -1], [0, -1, 0]], "emboss": [[-2, -1, 0], [-1, 1, 1], [0, 1, 2]]}
out = await pycore.convolve2d_async(image, kernels[${JSON.stringify(kernel)}], mode="same")
last = pycore.trace()[-1]
{"image": image, "out": out, "ms": last["total_ms"] - last["ms"].get("compile", 0),
 "compile_ms": last["ms"].get("compile", 0), "backend": last["backend"]}`,
  softmax: () => `logits = np.random.default_rng().normal(0, 2, 12).astype(np.float32)
probs = await pycore.softmax_async(logits)
last = pycore.trace()[-1]
{"logits": logits, "probs": probs, "ms": last["total_ms"] - last["ms"].get("compile", 0),
 "compile_ms": last["ms"].get("compile", 0), "backend": last["backend"]}`,
  pipelines: (names) => `await pycore.bench.run_pipelines_async(
    small=True${names ? `, names=${pyTuple(names.map((n) => JSON.stringify(n)))}` : ""}, count=3, repeats=3)`,
  trace: () => `pycore.trace()[-24:]`,
  choices: () => `{"calibration": pycore.SELECTOR.calibration.source, "backend": pycore.info()["backend"],
 "calls": pycore.SELECTOR.last_calls()[-12:]}`,
  stats: () => `info = pycore.info()
{"counters": info["counters"], "memory": info["memory"], "adapter": info["adapter"],
 "tier": info["tier"], "backend": info["backend"], "last": (pycore.trace() or [None])[-1]}`,
};

function pyInt(n) { return n >= 10000 ? n.toLocaleString("en").replaceAll(",", "_") : String(n); }
function pyTuple(items) { return `(${items.join(", ")}${items.length === 1 ? "," : ""})`; }

// ---- running Python (in the Python worker, like the console): the snippet's last expression
// comes back through JSON (arrays as lists; NaN and infinities, which JSON lacks, as null). `code`
// goes in as a Python string literal (a JSON string is one).
const PY_SETUP = `import json, math
import numpy as np, pycore

def __viz_json(value):
    def plain(o):
        if isinstance(o, np.ndarray):
            if o.dtype.kind == "f" and not np.isfinite(o).all():
                o, bad = o.astype(object), ~np.isfinite(o)
                o[bad] = None
            return o.tolist()
        if isinstance(o, np.generic):
            o = o.item()
        if isinstance(o, float) and not math.isfinite(o):
            return None
        if isinstance(o, dict):
            return {k: plain(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [plain(v) for v in o]
        return o
    return json.dumps(plain(value))

__viz_ns = {"np": np, "pycore": pycore}`;

function evalPython(code) {
  return pyodide.runPythonAsync(
    "from pyodide.code import eval_code_async\n" +
    `__viz_json(await eval_code_async(${JSON.stringify(code)}, __viz_ns))`,
  ).then(JSON.parse);
}

// The cards' snippets run one at a time.
let queue = Promise.resolve();
function runPython(code) {
  const job = queue.then(async () => {
    const data = await evalPython(code);
    document.dispatchEvent(new Event("pycore:ran"));
    return data;
  });
  queue = job.catch(() => {});
  return job;
}

// Run a snippet without waiting for the queue (only for quick, read-only snippets: the stats).
const peekPython = evalPython;

// The element of class `cls` in a card, made by `make` (which places it) the first time.
function part(cardId, cls, tag, make) {
  const card = document.getElementById(cardId);
  let el = card.querySelector(`.${cls}`);
  if (!el) {
    el = document.createElement(tag);
    el.className = cls;
    make(el, card);
  }
  return el;
}

// ---- each card shows its code, with a button that pastes it into the console
function showCode(cardId, code) {
  const box = part(cardId, "code", "div", (el, card) => {
    el.innerHTML = '<pre></pre><button class="paste" title="paste into the Python console">console ▸</button>';
    el.querySelector("button").addEventListener("click", () => pasteIntoConsole(el.dataset.code));
    card.append(el);
  });
  box.dataset.code = code;
  box.querySelector("pre").textContent = code;
}

function pasteIntoConsole(code) {
  const drawer = document.getElementById("drawer");
  drawer.open = true;
  const input = document.getElementById("console-input");
  input.value = code;
  input.dispatchEvent(new Event("input"));
  input.focus();
}

function cardError(cardId, err) {
  const box = part(cardId, "card-error", "pre", (el, card) => card.querySelector("h2").after(el));
  box.textContent = String(err?.message ?? err).split("\n").slice(-4).join("\n");
}

// Show a card's code, run it, keep its data for tests: what every drawing card does first.
async function runCard(cardId, key, code) {
  showCode(cardId, code);
  const data = await runPython(code);
  vizState.data[key] = data;
  return data;
}

// ---- charts
Chart.defaults.color = COLORS.fg;
Chart.defaults.borderColor = COLORS.grid;
Chart.defaults.animation = false;
Chart.defaults.maintainAspectRatio = false;
Chart.defaults.font.size = 11;

const charts = {};
// Compact legends: a compared run doubles the entries, and they must not squeeze the plot.
Chart.defaults.plugins.legend.labels.boxWidth = 10;
Chart.defaults.plugins.legend.labels.font = { size: 10 };
Chart.defaults.plugins.legend.maxHeight = 46;

function chart(id, config) {
  charts[id]?.destroy();
  charts[id] = new Chart(document.getElementById(id), config);
  return charts[id];
}

const logAxis = (title) => ({ type: "logarithmic", title: { display: true, text: title } });

// ---- benchmark explorer
const bench = { result: null, rows: [], chain: null, other: null };
const ALL_OPS = [];  // the scope's functions, for the selector before any run

// A run's short name for legends: the adapter and whether it ran in a browser or natively.
function runName(result) {
  const native = result?.environment?.transport === "native" || /wgpu-native/.test(result?.tier ?? "");
  const adapter = result?.environment?.adapter;
  const gpu = adapter?.device || adapter?.architecture || (result?.tier ?? "").split("—").at(-1).trim();
  return `${gpu || "this run"}, ${native ? "native" : "browser"}`;
}

function benchOps() {
  return [...new Set(bench.rows.map((r) => r.op))];
}

function drawBench() {
  const select = document.getElementById("bench-op");
  const measured = benchOps();
  const ops = measured.length ? measured : ALL_OPS;
  if (ops.join() !== [...select.options].map((o) => o.value).join()) {
    const keep = select.value;
    select.replaceChildren(...ops.map((o) => new Option(o, o)));
    if (ops.includes(keep)) select.value = keep;
  }
  const op = select.value || ops[0];
  const rows = bench.rows.filter((r) => r.op === op).sort((a, b) => a.size - b.size);
  const series = (key) => rows.filter((r) => r[key] !== undefined).map((r) => ({ x: r.size, y: r[key] }));
  const other = (bench.other?.sweep ?? []).filter((r) => r.op === op).sort((a, b) => a.size - b.size);
  const named = (b) => (bench.other ? `${b} · ${runName(bench.result)}` : b);
  const datasets = ["gpu", "numpy", "auto"].map((b) => ({
    label: named(b), data: series(`${b}_ms`), borderColor: COLORS[b], backgroundColor: COLORS[b], showLine: true,
    borderDash: b === "auto" ? [4, 3] : [],
  })).filter((d) => d.data.length);
  for (const b of ["gpu", "numpy"]) {  // the compared run: hollow points, dotted lines
    const data = other.filter((r) => r[`${b}_ms`] !== undefined).map((r) => ({ x: r.size, y: r[`${b}_ms`] }));
    if (data.length) {
      datasets.push({ label: `${b} · ${runName(bench.other)}`, data, borderColor: COLORS[b],
                      backgroundColor: "transparent", showLine: true, borderDash: [1, 3], pointStyle: "rectRot" });
    }
  }
  const crossover = bench.result?.crossover?.[op]?.measured ?? measuredCrossover(rows);
  if (crossover) {
    const ys = rows.flatMap((r) => [r.gpu_ms, r.numpy_ms]).filter((y) => y > 0);
    datasets.push({ label: `crossover ${crossover.toLocaleString("en")}`, data: [
      { x: crossover, y: Math.min(...ys) }, { x: crossover, y: Math.max(...ys) }],
      borderColor: COLORS.dim, borderDash: [2, 2], showLine: true, pointRadius: 0 });
  }
  chart("chart-time", { type: "scatter", data: { datasets },
    options: { scales: { x: logAxis("size (elements, or n for n × n)"), y: logAxis("ms") } } });
  chart("chart-speedup", { type: "scatter", data: { datasets: [
    { label: named("numpy / gpu"), data: rows.filter((r) => r.gpu_ms).map((r) => ({ x: r.size, y: r.numpy_ms / r.gpu_ms })),
      borderColor: COLORS.gpu, backgroundColor: COLORS.gpu, showLine: true },
    ...(other.some((r) => r.gpu_ms) ? [{ label: `numpy / gpu · ${runName(bench.other)}`,
      data: other.filter((r) => r.gpu_ms).map((r) => ({ x: r.size, y: r.numpy_ms / r.gpu_ms })),
      borderColor: COLORS.gpu, backgroundColor: "transparent", showLine: true, borderDash: [1, 3],
      pointStyle: "rectRot" }] : []),
    { label: "break-even", data: rows.length ? [{ x: rows[0].size, y: 1 }, { x: rows.at(-1).size, y: 1 }] : [],
      borderColor: COLORS.dim, borderDash: [2, 2], showLine: true, pointRadius: 0 }] },
    options: { scales: { x: logAxis("size"), y: logAxis("speedup") } } });
  const staged = rows.filter((r) => r.stages_ms);
  chart("chart-stages", { type: "bar", data: {
    labels: staged.map((r) => r.size.toLocaleString("en")),
    datasets: STAGES.map((s) => ({ label: s, data: staged.map((r) => r.stages_ms[s] ?? 0),
                                   backgroundColor: STAGE_COLORS[s] })) },
    options: { scales: { x: { stacked: true }, y: { stacked: true, title: { display: true, text: "ms" } } } } });
  const chain = bench.chain;
  showEmpty(rows, chain);
  chart("chart-chain", { type: "bar", data: {
    labels: ["3 round trips", "GpuArray", "CommandBatch"],
    datasets: [{ label: chain ? `${chain.size.toLocaleString("en")} elements` : "",
                 data: chain ? [chain.round_trips_ms, chain.gpu_array_ms, chain.command_batch_ms] : [],
                 backgroundColor: [COLORS.numpy, COLORS.auto, COLORS.gpu] }] },
    options: { scales: { y: { title: { display: true, text: "ms" } } } } });
  const targets = document.getElementById("bench-targets");
  targets.replaceChildren(...(bench.result?.targets ?? []).map((t) => {
    const div = document.createElement("div");
    div.className = t.met === true ? "met" : t.met === false ? "missed" : "";
    div.textContent = `${t.met === true ? "✓" : t.met === false ? "✗" : "·"} ${t.goal}: ${t.value} (${t.detail})`;
    return div;
  }));
}

// Before a run (or without the GPU a chart needs), a chart says why it is empty instead of showing
// an empty grid.
function showEmpty(rows, chain) {
  const gpu = globalThis.vizBackend === "webgpu" || bench.rows.some((r) => r.gpu_ms !== undefined);
  const none = "No measurements yet: press Run (a quick sweep of a few ops), or load a JSON written by "
    + "scripts/bench.py.";
  const needsGpu = "Needs WebGPU: this page runs on NumPy here (see the badge). Load a JSON from a GPU run "
    + "to see it.";
  const states = {
    "chart-time": rows.length ? null : none,
    "chart-speedup": !gpu && !rows.some((r) => r.gpu_ms) ? needsGpu : rows.length ? null : none,
    "chart-stages": !gpu && !rows.some((r) => r.stages_ms) ? needsGpu : rows.some((r) => r.stages_ms) ? null : none,
    "chart-chain": chain ? null : gpu ? none : needsGpu,
  };
  for (const [id, text] of Object.entries(states)) emptyNote(id, text);
}

// A chart's note in place of its plot (text), or the plot (null).
function emptyNote(id, text) {
  const plot = document.getElementById(id).parentElement;
  let note = plot.querySelector(".empty");
  if (!note) {
    note = document.createElement("p");
    note.className = "empty";
    plot.append(note);
  }
  note.textContent = text ?? "";
  note.hidden = !text;
  document.getElementById(id).style.visibility = text ? "hidden" : "visible";
}

function measuredCrossover(rows) {
  let found = null;
  for (const r of [...rows].reverse()) {
    if (!(r.gpu_ms < r.numpy_ms)) break;
    found = r.size;
  }
  return found;
}

function showBenchResult(result, status) {
  bench.result = result;
  bench.rows = result.sweep ?? [];
  bench.chain = result.chain ?? null;
  vizState.data.bench = result;
  document.getElementById("bench-status").textContent = status;
  drawBench();
}

function benchEvent(text) {
  const event = JSON.parse(text);
  if (event.section === "sweep") bench.rows.push(event.row);
  if (event.section === "chain") bench.chain = event.row;
  const bar = document.getElementById("bench-progress");
  bar.max = event.total;
  bar.value = event.done;
  document.getElementById("bench-status").textContent =
    `${event.done} / ${event.total}: ${event.section}${event.row?.op ? " " + event.row.op + " " + event.row.size : ""}`;
  drawBench();
  refreshStats().catch(() => {});
}

async function runBench() {
  const scope = BENCH_SCOPES[document.getElementById("bench-run").dataset.scope ?? "quick"];
  const code = CODE.bench(scope);
  showCode("card-bench", code);
  bench.rows = [];
  bench.chain = null;
  bench.result = null;
  const button = document.getElementById("bench-run");
  button.disabled = true;
  try {
    const result = await runPython(code);
    showBenchResult(result, `done in ${result.seconds} s on ${result.tier}`);
  } catch (err) {
    cardError("card-bench", err);
  } finally {
    button.disabled = false;
    refreshTrace();
  }
}

// ---- pipelines: a run_pipelines_async result (this page's, or a JSON scripts/pipeline_bench.py wrote)
const PIPE_LIBS = [["pycore", "pycore (calls)", COLORS.auto], ["pycore_jit", "pycore.jit", COLORS.gpu],
                   ["tfjs", "TF.js", COLORS.numpy], ["jax", "jax-js", COLORS.dim]];

function pipeMs(row, lib, mode) {
  const ms = (key) => row[key]?.[`${mode}_ms`];
  if (lib !== "jax") return ms(lib);
  const both = [ms("jax"), ms("jax_jit")].filter((t) => t !== undefined);  // (the faster of eager and jit)
  return both.length ? Math.min(...both) : undefined;
}

function drawPipelines() {
  const result = vizState.data.pipelines;
  const rows = result?.rows ?? [];
  const mode = document.getElementById("pipe-mode").value;
  const labels = rows.map((r) => r.name);
  const datasets = PIPE_LIBS.map(([lib, label, color]) => ({
    label, backgroundColor: color, data: rows.map((r) => pipeMs(r, lib, mode) ?? null) }));
  if (mode === "round_trip") {
    datasets.push({ label: "transfer floor", backgroundColor: STAGE_COLORS.buffers, data: rows.map((r) => r.floor_ms ?? null) });
  }
  chart("chart-pipes", { type: "bar", data: { labels, datasets },
    options: { scales: { y: logAxis(mode === "resident" ? "ms per run (resident)" : "ms per round trip") } } });
  const ours = (r, m) => Math.min(...["pycore", "pycore_jit"].map((k) => pipeMs(r, k, m)).filter((t) => t > 0));
  const copy = result?.copy?.gbps;
  chart("chart-pipe-gbps", { type: "bar", data: { labels, datasets: [
    { label: "pycore", backgroundColor: COLORS.gpu, data: rows.map((r) => r.min_bytes / ours(r, "resident") / 1e6) },
    ...(copy ? [{ label: "copy kernel", type: "line", borderColor: COLORS.dim, pointRadius: 0, borderDash: [4, 3],
                  data: rows.map(() => copy) }] : [])] },
    options: { scales: { y: logAxis("GB/s") } } });
  const table = rows.map((r) => {
    const peers = ["tfjs", "jax"].map((k) => pipeMs(r, k, mode)).filter((t) => t > 0);
    const ratio = peers.length ? `${(ours(r, mode) / Math.min(...peers)).toFixed(2)}×` : "–";
    const calls = r.pycore?.calls ? `${r.pycore.calls.length} calls: ${r.pycore.calls.join(", ")}` : (r.pycore?.failed ?? "");
    const c = r.pycore_jit?.captured?.[0];
    const kernelMs = r.pycore_jit?.kernel_ms;
    const jit = !c ? "" : c.replayed ? ` · pycore.jit replays ${c.kernels} kernel${c.kernels === 1 ? "" : "s"}`
      + (kernelMs ? ` (${kernelMs.toFixed(3)} ms of GPU time)` : "") : ` · pycore.jit: ${c.why}`;
    const tr = document.createElement("tr");
    for (const [text, cls] of [[r.name, ""], [ratio, "num"], [calls + jit, ""]]) {
      const td = document.createElement("td");
      td.textContent = text;
      td.className = cls;
      tr.append(td);
    }
    tr.title = r.what;
    return tr;
  });
  document.querySelector("#pipe-table tbody").replaceChildren(...table);
  const empty = rows.length ? null
    : "No pipeline run yet: press Run (small sizes, in this browser), or load a JSON written by scripts/pipeline_bench.py.";
  for (const id of ["chart-pipes", "chart-pipe-gbps"]) emptyNote(id, empty);
}

function showPipelines(result, status) {
  vizState.data.pipelines = result;
  document.getElementById("pipe-status").textContent = status;
  drawPipelines();
}

async function runPipelines(names) {
  const code = CODE.pipelines(names);
  showCode("card-pipelines", code);
  const button = document.getElementById("pipe-run");
  button.disabled = true;
  document.getElementById("pipe-status").textContent = "running (each pipeline in pycore, TF.js and jax-js) …";
  try {
    const result = await runPython(code);
    showPipelines(result, `${result.rows.length} pipelines on ${result.adapter} (small sizes)`);
  } catch (err) {
    cardError("card-pipelines", err);
  } finally {
    button.disabled = false;
    refreshTrace();
  }
}

// ---- element-wise gallery
async function drawGallery() {
  const data = await runCard("card-gallery", "gallery", CODE.gallery());
  const box = document.getElementById("gallery");
  box.replaceChildren();
  for (const [name, c] of Object.entries(data.curves)) {
    const fig = document.createElement("figure");
    const call = `${name}(x${c.more_args.map((a) => `, ${a}`).join("")})`;
    const worst = Math.max(...c.error.filter((e) => e !== null));
    fig.innerHTML = `<figcaption>${call} · max |Δ| ${worst.toExponential(1)}</figcaption>` +
      `<div class="plot small"><canvas id="g-${name}"></canvas></div><div class="plot tiny"><canvas id="e-${name}"></canvas></div>`;
    box.append(fig);
    const xy = (ys) => data.x.map((x, i) => ({ x, y: ys[i] }));
    chart(`g-${name}`, { type: "scatter", data: { datasets: [
      { label: "numpy", data: xy(c.numpy), borderColor: COLORS.numpy, borderWidth: 4, showLine: true, pointRadius: 0 },
      { label: data.backend === "gpu" ? "webgpu" : "numpy (no GPU)", data: xy(c.gpu), borderColor: COLORS.gpu,
        borderWidth: 1.5, showLine: true, pointRadius: 0 }] },
      options: { plugins: { legend: { display: false } }, scales: { x: { min: -8, max: 8 } } } });
    chart(`e-${name}`, { type: "scatter", data: { datasets: [
      { label: "|gpu - numpy|", data: xy(c.error.map((e) => (e === null ? null : Math.max(e, 1e-12)))), borderColor: COLORS.error,
        showLine: true, pointRadius: 0, borderWidth: 1 }] },
      options: { plugins: { legend: { display: false } },
                 scales: { x: { min: -8, max: 8, ticks: { display: false } },
                           y: { type: "logarithmic", min: 1e-12, max: 1e-2,
                                ticks: { callback: (v) => [1e-12, 1e-7, 1e-2].includes(v) ? v.toExponential(0) : "" } } } } });
  }
}

// ---- heatmaps
function heatmap(canvasId, matrix) {
  const rows = matrix.length;
  const cols = matrix[0].length;
  let lo = Infinity;
  let hi = -Infinity;
  for (const row of matrix) for (const v of row) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  const span = Math.max(Math.abs(lo), Math.abs(hi)) || 1;
  const img = new ImageData(cols, rows);
  matrix.forEach((row, i) => row.forEach((v, j) => {
    const t = v / span; // -1 .. 1: blue .. dark .. red
    const k = 4 * (i * cols + j);
    img.data[k] = t > 0 ? 40 + 215 * t : 40;
    img.data[k + 1] = 40 + 60 * (1 - Math.abs(t));
    img.data[k + 2] = t < 0 ? 40 - 215 * t : 40;
    img.data[k + 3] = 255;
  }));
  const off = new OffscreenCanvas(cols, rows);
  off.getContext("2d").putImageData(img, 0, 0);
  const canvas = document.getElementById(canvasId);
  const ctx = canvas.getContext("2d");
  ctx.imageSmoothingEnabled = false;
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.drawImage(off, 0, 0, canvas.width, canvas.height);
}

// An op's time, never counting the one-time compile of its GPU pipeline (said apart when it happened).
function timing(data) {
  const compile = data.compile_ms > 0 ? ` (+ ${data.compile_ms.toFixed(0)} ms compiling its kernel, once)` : "";
  return `${data.ms.toFixed(2)} ms on ${data.backend}${compile}`;
}

async function drawMatmul() {
  const n = Number(document.getElementById("matmul-size").value);
  const data = await runCard("card-matmul", "matmul", CODE.matmul(n));
  heatmap("heat-a", data.a);
  heatmap("heat-b", data.b);
  heatmap("heat-c", data.c);
  document.getElementById("matmul-time").textContent = `${n} × ${n}: ${timing(data)}`;
}

async function drawConv() {
  const kernel = document.getElementById("conv-kernel").value;
  const data = await runCard("card-conv", "conv", CODE.conv(kernel));
  heatmap("conv-in", data.image);
  heatmap("conv-out", data.out);
  document.getElementById("conv-time").textContent = `${kernel}: ${timing(data)}`;
}

async function drawSoftmax() {
  const data = await runCard("card-softmax", "softmax", CODE.softmax());
  chart("chart-softmax", { type: "bar", data: {
    labels: data.logits.map((v) => v.toFixed(2)),
    datasets: [{ label: "softmax(logits)", data: data.probs, backgroundColor: COLORS.auto }] },
    options: { scales: { x: { title: { display: true, text: "logit" } }, y: { min: 0, max: 1 } } } });
  document.getElementById("softmax-time").textContent = timing(data);
}

// ---- trace timeline and stats bar
async function refreshTrace() {
  const code = CODE.trace();
  showCode("card-trace", code);
  const entries = await peekPython(code);
  vizState.data.trace = entries;
  const labels = entries.map((e, i) => `${i + 1}. ${e.op} · ${e.backend}`
    + (e.ms.compile ? ` (+${e.ms.compile.toFixed(0)} ms compile)` : ""));
  const stages = [...new Set(entries.flatMap((e) => Object.keys(e.ms)))].filter((s) => s !== "compile");
  chart("chart-trace", { type: "bar", data: { labels,
    datasets: stages.map((s) => ({ label: s, data: entries.map((e) => e.ms[s] ?? 0),
                                   backgroundColor: STAGE_COLORS[s] ?? COLORS.numpy })) },
    options: { indexAxis: "y", scales: { x: { stacked: true, type: "linear", title: { display: true, text: "ms" } },
                                         y: { stacked: true, ticks: { autoSkip: false } } } } });
}

// ---- backend choice: auto's last calls, how far off their predictions were, and where they came from
async function refreshChoices() {
  const code = CODE.choices();
  showCode("card-choices", code);
  const data = await peekPython(code);
  vizState.data.choices = data;
  document.getElementById("choices-model").textContent = `cost model: ${data.calibration}`;
  const rows = data.calls.map((c) => {
    const tr = document.createElement("tr");
    const factor = c.ratio >= 1 ? c.ratio : 1 / c.ratio;
    const cells = [c.op, c.shapes.map((s) => `(${s.join(", ")})`).join(" "), c.backend, c.ms.toFixed(2),
                   c.predicted_ms.toFixed(2), c.off ? `⚠ ${factor.toFixed(1)}× ${c.ratio >= 1 ? "slower" : "faster"}` : "",
                   c.prediction_from];
    cells.forEach((text, i) => {
      const td = document.createElement("td");
      td.textContent = text;
      td.className = ["", "", "", "num", "num", "flag", ""][i];
      tr.append(td);
    });
    if (c.off) {
      tr.className = "off";
      tr.title = `this call took ${factor.toFixed(1)}× ${c.ratio >= 1 ? "longer" : "less"} than predicted `
        + "(more than 3× off); calls off the same way 3 times in a row correct the rate the prediction used";
    }
    return tr;
  });
  document.querySelector("#choices-table tbody").replaceChildren(...rows);
  document.getElementById("choices-empty").textContent = rows.length ? ""
    : data.backend === "webgpu" ? "No call on backend=\"auto\" timed yet."
      : "No WebGPU here: every call runs on NumPy, and auto has no choice to make.";
}

function formatRate(n) {
  for (const [unit, scale] of [["G", 1e9], ["M", 1e6], ["K", 1e3]]) if (n >= scale) return `${(n / scale).toFixed(1)} ${unit}`;
  return n.toFixed(0);
}

async function refreshStats() {
  const s = await peekPython(CODE.stats());
  vizState.data.stats = s;
  const c = s.counters;
  document.getElementById("stat-ops").textContent = c.ops_run.toLocaleString("en");
  document.getElementById("stat-rate").textContent = c.busy_ms > 0 ? formatRate(c.elements / (c.busy_ms / 1000)) : "–";
  document.getElementById("stat-last").textContent = s.last
    ? `${s.last.op} · ${s.last.total_ms.toFixed(2)} ms · ${s.last.backend}` : "–";
  const mib = (n) => (n / 1048576).toFixed(2);
  document.getElementById("stat-memory").textContent = s.memory
    ? `${mib(s.memory.bytes_in_use)} MiB (${mib(s.memory.bytes_pooled)} MiB pooled)` : "none (NumPy)";
  const a = s.adapter;
  document.getElementById("stat-adapter").textContent = a
    ? [a.vendor, a.architecture, a.description].filter(Boolean).join(" / ") + (a.isFallbackAdapter ? " (fallback adapter)" : "")
    : s.tier;
}

// ---- start
const vizState = globalThis.vizState = { data: {}, charts, runBench, runPipelines, scopes: BENCH_SCOPES, ready: null };

async function start() {
  await globalThis.pycoreReady;
  await pyodide.runPythonAsync(PY_SETUP);
  globalThis.vizBackend = JSON.parse(await pyodide.runPythonAsync("json.dumps(pycore.info()['backend'])"));
  pyodide.worker.on("event", (name, text) => { if (name === "bench") benchEvent(text); });
  document.getElementById("cards").classList.add("live");
  const button = document.getElementById("bench-run");
  button.dataset.scope = new URLSearchParams(location.search).get("bench") === "standard" ? "standard" : "quick";
  ALL_OPS.push(...BENCH_SCOPES[button.dataset.scope].ops);
  button.addEventListener("click", runBench);
  document.getElementById("bench-op").addEventListener("change", drawBench);
  document.getElementById("bench-file").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (file) showBenchResult(JSON.parse(await file.text()), `loaded ${file.name}`);
  });
  document.getElementById("bench-compare").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    bench.other = vizState.data.compare = JSON.parse(await file.text());
    document.getElementById("bench-status").textContent = `comparing with ${file.name} (${runName(bench.other)})`;
    drawBench();
  });
  document.getElementById("pipe-run").addEventListener("click", () => runPipelines());
  document.getElementById("pipe-mode").addEventListener("change", drawPipelines);
  document.getElementById("pipe-file").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (file) showPipelines(JSON.parse(await file.text()), `loaded ${file.name}`);
  });
  document.getElementById("matmul-size").addEventListener("change", () => drawMatmul().catch((x) => cardError("card-matmul", x)));
  document.getElementById("conv-kernel").addEventListener("change", () => drawConv().catch((x) => cardError("card-conv", x)));
  document.getElementById("softmax-again").addEventListener("click", () => drawSoftmax().catch((x) => cardError("card-softmax", x)));
  document.addEventListener("pycore:ran", () => {
    refreshStats().catch(() => {});
    refreshChoices().catch((err) => cardError("card-choices", err));
  });
  showCode("card-bench", CODE.bench(BENCH_SCOPES[button.dataset.scope]));
  drawBench();
  showCode("card-pipelines", CODE.pipelines());
  drawPipelines();
  await refreshStats();
  const cards = [["card-gallery", drawGallery], ["card-matmul", drawMatmul], ["card-conv", drawConv],
                 ["card-softmax", drawSoftmax]];
  for (const [id, draw] of cards) await draw().catch((err) => cardError(id, err));
  await refreshTrace();
  await refreshChoices().catch((err) => cardError("card-choices", err));
}

vizState.ready = start();
