// Boot: start the Python worker (web/worker.js), which loads Pyodide, NumPy and pycore from this
// server and initialises the GPU; show its progress, then start the console. The page keeps only
// UI: Python, and every decision about devices and ops, run in the worker.
//
// For scripts and tests: globalThis.pyodide.runPythonAsync(code) (Python in the worker; resolves
// with the last expression's value when it is a str, number or bool), and globalThis.pycoreReady,
// a promise that resolves with pycore.info() once boot has finished and rejects with the error if
// a stage fails.
// ?stageTimeout=<ms> changes how long a stage may stall before it is reported (default 90 s);
// ?calibrate=manual turns off the selector's calibration in the background.
import { startConsole } from "/console.js";
import { PythonWorker } from "/pyworker.js";

const params = new URLSearchParams(location.search);
const STAGE_TIMEOUT_MS = Number(params.get("stageTimeout") || 90000);
const STAGE_LABELS = { runtime: "Python runtime", numpy: "NumPy", pycore: "pycore", gpu: "GPU device" };

let settle;
globalThis.pycoreReady = new Promise((resolve, reject) => { settle = { resolve, reject }; });
globalThis.pycoreReady.catch(() => {}); // failures are shown in the error panel

// The boot progress, the error panel and the console are the same on every page: made here, in
// the page's #boot-panels and #console-host.
const BOOT_PANELS = `
<section id="boot" class="boot" aria-label="boot progress">
  <ol id="stages">
    <li data-stage="runtime"><span class="state">·</span> Python runtime (Pyodide)<span class="ms"></span></li>
    <li data-stage="numpy"><span class="state">·</span> NumPy<span class="ms"></span></li>
    <li data-stage="pycore"><span class="state">·</span> pycore<span class="ms"></span></li>
    <li data-stage="gpu"><span class="state">·</span> GPU device<span class="ms"></span></li>
  </ol>
  <progress id="boot-progress" max="4" value="0"></progress>
</section>

<section id="tier-help" class="tier-help" role="dialog" aria-label="why NumPy" hidden>
  <h2>Running on NumPy: no WebGPU here</h2>
  <p>Why: <span id="tier-reason"></span></p>
  <p>Every call works the same on NumPy; only speed differs. To run on your GPU, open this page in
  a browser with WebGPU: Chrome or Edge 113 or later on Windows, macOS or ChromeOS; Safari 26;
  Firefox 141 or later on Windows. Chromium on Linux needs
  <code>--enable-unsafe-webgpu --enable-features=Vulkan</code>. Without a GPU, a browser offers
  WebGPU only on a CPU implementation, if at all (Chromium: <code>--enable-unsafe-webgpu</code>).</p>
</section>

<section id="error-panel" class="error-panel" role="alert" hidden>
  <h2>Start-up failed at stage <span id="error-stage"></span></h2>
  <pre id="error-message"></pre>
  <p>Reload to try again. If it persists, check that <code>python serve.py</code> is still running.</p>
</section>`;
const CONSOLE = `
<main id="console" class="console" hidden>
  <pre id="console-output" class="output" aria-live="polite"></pre>
  <div id="console-status" class="console-status" role="status" hidden>
    <span class="spinner" aria-hidden="true"></span><span id="console-status-text">running</span>
    <button id="console-stop" type="button" title="interrupt (Ctrl+C)">stop</button>
  </div>
  <div class="input-line">
    <span id="console-prompt" class="prompt">&gt;&gt;&gt; </span>
    <textarea id="console-input" rows="1" spellcheck="false" autocomplete="off"
              aria-label="Python input" disabled></textarea>
  </div>
</main>`;
document.getElementById("boot-panels").outerHTML = BOOT_PANELS;
document.getElementById("console-host").outerHTML = CONSOLE;

class StageError extends Error {
  constructor(stage, message) { super(message); this.stage = stage; }
}

function stageElement(name) { return document.querySelector(`#stages [data-stage="${name}"]`); }

function mark(name, state, ms) {
  const li = stageElement(name);
  li.className = state;
  li.querySelector(".state").textContent = { running: "…", done: "✓", failed: "✗" }[state] ?? "·";
  if (ms !== undefined) li.querySelector(".ms").textContent = `${ms.toFixed(0)} ms`;
  if (state === "done") document.getElementById("boot-progress").value += 1;
}

// The stages run in the Python worker (web/worker.js), which reports each start and end; a stage
// that neither finishes nor fails within STAGE_TIMEOUT_MS is reported as stalled (a wrong MIME type
// on the .wasm, for one, makes loadPyodide wait forever).
function bootWorker(py) {
  return new Promise((resolve, reject) => {
    let current = "runtime";
    let started = performance.now();
    let timer;
    let over = false; // failed: later reports are ignored
    const fail = (err) => {
      if (over) return;
      over = true;
      clearTimeout(timer);
      mark(err.stage, "failed");
      reject(err);
    };
    const watch = () => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        const hint = current === "runtime" ? await diagnoseRuntime().catch(() => "") : "";
        fail(new StageError(current, `stage "${STAGE_LABELS[current]}" stalled: no result after ` +
          `${STAGE_TIMEOUT_MS / 1000} s.${hint ? " " + hint : ""}`));
      }, STAGE_TIMEOUT_MS);
    };
    py.on("stage", ({ name, state, ms, error }) => {
      if (over) return;
      if (state === "failed") return fail(new StageError(name, error));
      current = name;
      if (state === "running") started = performance.now();
      mark(name, state, state === "done" ? ms ?? performance.now() - started : undefined);
      watch();
    });
    py.on("crash", (message) => fail(new StageError(current, message)));
    py.on("ready", (info) => { clearTimeout(timer); resolve(info); });
    mark("runtime", "running");
    watch();
    py.boot();
  });
}

async function diagnoseRuntime() {
  const { version } = await import("/pyodide/pyodide.mjs");
  const wasm = `/pyodide@${version}/pyodide.asm.wasm`; // (where the worker loads it from)
  const res = await fetch(wasm, { method: "HEAD" });
  const type = res.headers.get("content-type") || "(none)";
  if (!res.ok) return `The server answered ${res.status} for ${wasm}.`;
  if (!type.startsWith("application/wasm")) {
    return `The server sends pyodide.asm.wasm as "${type}", not "application/wasm", ` +
      "which makes the WebAssembly runtime hang: serve the page with python serve.py.";
  }
  return "The runtime files were served correctly; the browser may be out of memory.";
}

function showFailure(err) {
  document.getElementById("error-stage").textContent = STAGE_LABELS[err.stage] ?? "boot";
  document.getElementById("error-message").textContent = err.message;
  document.getElementById("error-panel").hidden = false;
  const tier = document.getElementById("tier");
  tier.className = "badge failed";
  tier.textContent = "not started";
}

function showStatus(info) {
  const v = info.versions;
  document.getElementById("versions").textContent =
    `Python ${v.python} · Pyodide ${v.pyodide} · NumPy ${v.numpy} · pycore ${v.pycore}`;
  const tier = document.getElementById("tier");
  tier.className = `badge ${info.backend}`;
  const gpu = info.backend === "webgpu";
  tier.textContent = gpu ? info.tier : "NumPy fallback (no WebGPU): why?";
  tier.title = gpu ? info.reason : "click: why, and how to get WebGPU";
  document.getElementById("tier-reason").textContent = info.reason;
  if (gpu) document.getElementById("tier-help").hidden = true;
  tier.setAttribute("role", gpu ? "status" : "button");
  tier.tabIndex = gpu ? -1 : 0;
}

// The selector's calibration, measured in the background while the page is idle (pycore.bench.calibrate).
function showCalibration({ task, done, total, detail }) {
  if (task !== "background calibration") return;
  let el = document.getElementById("calibration");
  if (!el) {
    el = document.createElement("span");
    el.id = "calibration";
    el.className = "calibration";
    el.setAttribute("role", "status");
    document.getElementById("tier").before(el);
  }
  const finished = done >= total;
  el.textContent = finished ? "calibrated" : `calibrating ${done}/${total}`;
  el.title = finished ? "the selector now uses speeds measured here (kept for later visits)"
    : `measuring this browser and GPU while the page is idle (${detail}); your calls come first`;
  el.classList.toggle("finished", finished);
}

function toggleTierHelp(event) {
  if (event.type === "keydown" && event.key !== "Enter" && event.key !== " ") return;
  if (!document.getElementById("tier").classList.contains("numpy")) return;
  const help = document.getElementById("tier-help");
  help.hidden = !help.hidden;
}
for (const type of ["click", "keydown"]) document.getElementById("tier").addEventListener(type, toggleTierHelp);

async function boot() {
  const py = new PythonWorker();
  // The page's scripting contract: pyodide.runPythonAsync(code) runs Python (in the worker) and
  // resolves with the last expression's value when it is a str, number or bool.
  globalThis.pyodide = {
    runPythonAsync: (code) => py.runPythonAsync(code),
    interrupt: () => py.interrupt(),
    worker: py,
  };
  const booted = bootWorker(py);
  const consoleUp = startConsole(py, booted); // usable at once: typing waits for Python
  const info = await booted;
  showStatus(info);
  py.on("progress", showCalibration);
  // The backend can change after boot (a lost device falls back to NumPy): refresh after each run.
  document.addEventListener("pycore:ran", async () =>
    showStatus(JSON.parse(await py.runPythonAsync("import json, pycore\njson.dumps(pycore.info())"))));
  document.getElementById("boot").classList.add("finished");
  await consoleUp;
  return info;
}

boot().then(settle.resolve, (err) => {
  showFailure(err);
  settle.reject(err);
});
