// pycore's browser transport on Dawn (Chrome's WebGPU implementation) in Node: the same Python,
// the same Pyodide FFI, the same WGSL compiled by the same Tint as in Chrome, on whatever adapter
// Dawn finds (a real GPU, or Mesa's lavapipe on a machine without one). What it leaves out is
// Chrome's GPU-process IPC.
//
// It boots Dawn (npm `webgpu`), Pyodide (npm `pyodide`) with the vendored NumPy wheel, and this
// checkout's pycore (PYCORE_TRANSPORT=browser), with the benchmark's yardsticks in the same process:
// web/bench/baselines.js (raw JavaScript on pycore's device), TF.js's WebGPU backend and jax-js. Then it
// answers Python snippets, one JSON line each on stdin ({"code": ...}), with one JSON line each on
// stdout ({"value": json} or {"error": traceback}), as tests/native_worker.py does: top-level await
// allowed, the last expression's value returned, one namespace kept between snippets. The first
// line it writes is {"ready": info} once pycore.init_async() has run, or {"error": ...}.
//
//   node scripts/dawn.mjs [dawn toggles ...]     e.g. enable-dawn-features=allow_unsafe_apis
//
// Used by tests/harness.py (class Dawn) and scripts/bench.py --dawn.

import { readFile } from "node:fs/promises";
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import vm from "node:vm";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const reply = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
const log = (text) => process.stderr.write(text.endsWith("\n") ? text : text + "\n");

// Relative URLs as a page served by serve.py would fetch them (baselines.js reads /shaders/).
const MOUNTS = { "/shaders/": path.join(ROOT, "shaders"), "/bench/": path.join(ROOT, "web", "bench") };
const realFetch = globalThis.fetch;
globalThis.fetch = async (url, init) => {
  const text = String(url);
  for (const [prefix, dir] of Object.entries(MOUNTS)) {
    if (text.startsWith(prefix)) {
      return new Response(await readFile(path.join(dir, path.basename(text))));
    }
  }
  return realFetch(url, init);
};

// A page's localStorage (pycore keeps its calibration there), for this process's life.
const store = new Map();
globalThis.localStorage = {
  getItem: (k) => (store.has(k) ? store.get(k) : null),
  setItem: (k, v) => store.set(k, String(v)),
  removeItem: (k) => store.delete(k),
};

async function main() {
  const { create, globals } = await import(pathToFileURL(path.join(ROOT, "node_modules", "webgpu", "index.js")));
  Object.assign(globalThis, globals);
  const gpu = create(process.argv.slice(2));
  Object.defineProperty(globalThis, "navigator", {
    value: { gpu, userAgent: `node ${process.version} (Dawn)` }, configurable: true,
  });

  // The yardsticks: TF.js into this context (its bundles are UMD scripts), raw JS as a module.
  globalThis.require = require;
  for (const file of ["@tensorflow/tfjs-core/dist/tf-core.min.js",
                      "@tensorflow/tfjs-backend-webgpu/dist/tf-backend-webgpu.min.js"]) {
    try {
      vm.runInThisContext(await readFile(path.join(ROOT, "node_modules", file), "utf8"), { filename: file });
    } catch (err) {
      log(`dawn.mjs: TF.js unavailable (${file}): ${err.message}`);
      break;
    }
  }
  // jax-js (an ES module; the fft and pipeline yardstick): its WebGPU backend starts on first use (baselines.js).
  try {
    const dir = path.join(ROOT, "node_modules", "@jax-js", "jax");
    globalThis.jaxjs = await import(pathToFileURL(path.join(dir, "dist", "index.js")));
    globalThis.jaxjsVersion = JSON.parse(await readFile(path.join(dir, "package.json"), "utf8")).version;
  } catch (err) {
    log(`dawn.mjs: jax-js unavailable: ${err.message}`);
  }
  globalThis.pycoreBaselines = await import(pathToFileURL(path.join(ROOT, "web", "bench", "baselines.js")));

  const { loadPyodide } = require(path.join(ROOT, "node_modules", "pyodide", "pyodide.js"));
  const py = await loadPyodide({
    indexURL: path.join(ROOT, "node_modules", "pyodide") + "/",
    env: { PYCORE_TRANSPORT: "browser", HOME: "/home/pyodide" },
    stdout: log, stderr: log,
  });
  const wheels = path.join(ROOT, "vendor", "wheels");
  const numpy = readdirSync(wheels).find((f) => f.startsWith("numpy-") && f.endsWith(".whl"));
  await py.loadPackage(path.join(wheels, numpy), { messageCallback: () => {} });
  py.FS.mkdirTree("/proj");
  py.mountNodeFS("/proj", ROOT);
  await py.runPythonAsync(`
import sys, importlib, json
sys.path[:0] = ["/proj", "/proj/tests"]
import numpy as np, pycore
sys.modules["pycore_reference"] = importlib.import_module("reference")  # as a page's load_reference
from pyodide.code import eval_code_async
__ns = {}
async def __run(code):
    value = await eval_code_async(code, __ns)
    return json.dumps(value, default=lambda o: o.tolist())
`);
  const run = py.globals.get("__run");
  const info = await py.runPythonAsync("json.dumps(await pycore.init_async(), default=str)");
  reply({ ready: JSON.parse(info) });

  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  for await (const line of lines) {
    if (!line.trim()) continue;
    try {
      reply({ value: await run(JSON.parse(line).code) });
    } catch (err) {
      reply({ error: String(err?.message ?? err) });
    }
  }
  process.exit(0);  // Dawn's instance keeps Node alive otherwise
}

main().catch((err) => {
  reply({ error: `dawn.mjs could not start: ${err?.stack ?? err}` });
  process.exit(1);
});
