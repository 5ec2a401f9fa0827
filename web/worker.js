// The Python worker: Pyodide, NumPy, pycore and pycore's WebGPU device live here, off the page's
// main thread, so Python computing never freezes the page. The page (web/pyworker.js) talks to it
// with the messages below; this file is glue only: every decision is pycore's, in Python.
//
// page → worker   {type: "boot", interrupt, settings, calibrate}  once, first
//                 {id, type: "run", code}                     run Python; answers {id, value | error}
//                 {id, type: "console", method, args}         a call on the console session (console.py)
// worker → page   {type: "stage", name, state, ms, error}     boot progress
//                 {type: "write", kind, text}                 console output
//                 {type: "progress", task, done, total, detail}  long pycore work (see pycore.progress)
//                 {type: "event", name, text}                 pageEvent(name, text) called from Python
//                 {type: "setting", key, value}               a setting to keep in the page's localStorage
//                 {id, value} or {id, error}                  the answer to a request
import { loadPyodide, version } from "/pyodide/pyodide.mjs";

const here = (path) => new URL(path, location.origin).href; // Pyodide wants absolute URLs
let pyodide = null;
let session = null; // the console session (console.py), made during boot
let booted = null; // a promise: requests wait for boot

// Settings (pycore's saved calibration, the console's history) live in the page's localStorage,
// which workers lack: the page hands over a copy at boot, and every change goes back to it.
function settingsStore(initial) {
  const values = new Map(Object.entries(initial ?? {}));
  return {
    getItem: (key) => values.get(key) ?? null,
    setItem(key, value) { values.set(key, String(value)); postMessage({ type: "setting", key, value: String(value) }); },
    removeItem(key) { values.delete(key); postMessage({ type: "setting", key, value: null }); },
  };
}

// An error nothing caught (an exception in a Python callback, say) is logged here: it must not
// reach the page, which takes a worker error for a crash.
addEventListener("error", (ev) => { ev.preventDefault(); console.error("python worker:", ev.message); });
addEventListener("unhandledrejection", (ev) => { ev.preventDefault(); console.error("python worker:", ev.reason); });

// Python may tell the page something (a benchmark row, say) with js.pageEvent(name, text).
globalThis.pageEvent = (name, text) => postMessage({ type: "event", name: String(name), text: String(text) });
// pycore's progress reports (pycore.progress) go to the page as they come.
globalThis.postProgress = (task, done, total, detail) => postMessage({ type: "progress", task, done, total, detail });

async function stage(name, work) {
  postMessage({ type: "stage", name, state: "running" });
  const t0 = performance.now();
  try {
    const result = await work();
    postMessage({ type: "stage", name, state: "done", ms: performance.now() - t0 });
    return result;
  } catch (err) {
    postMessage({ type: "stage", name, state: "failed", error: err?.message ?? String(err) });
    throw err;
  }
}

async function loadPackages(names) {
  const errors = [];
  await pyodide.loadPackage(names, { errorCallback: (msg) => errors.push(msg), messageCallback: () => {} });
  if (errors.length) throw new Error(errors.join("\n"));
}

async function boot({ interrupt, settings, calibrate }) {
  // Where the current pycore wheel is, asked at once (serve.py builds it from the sources).
  const wheel = fetch("/pycore-wheel.json").then(async (res) => {
    if (!res.ok) throw new Error(`/pycore-wheel.json: HTTP ${res.status} ${await res.text()}`);
    return res.json();
  });
  wheel.catch(() => {}); // (reported by the pycore stage)
  const consoleSource = fetch("/console.py").then(async (res) => {
    if (!res.ok) throw new Error(`/console.py: HTTP ${res.status}`);
    return res.text();
  });
  globalThis.pycoreSettings = settingsStore(settings);
  globalThis.pycoreInterrupt = interrupt ?? null; // pycore's readbacks wait for it too (browser.py)
  pyodide = await stage("runtime", () => loadPyodide({
    // Pyodide's runtime files from their versioned URL, which the browser may keep for good: a
    // later visit compiles nothing again (a new Pyodide is a new URL).
    indexURL: here(`/pyodide@${version}/`), lockFileURL: here("/pyodide-lock.json"), packageBaseUrl: here("/wheels/"),
  }));
  if (interrupt) pyodide.setInterruptBuffer(interrupt);
  // NumPy and the pycore wheel download and install together; a wheel URL needs no package manager.
  // Meanwhile Python, idle, reads the console's code (console.py imports them only when used).
  const pycoreWheel = wheel.then(({ url }) => here(url));
  const packages = pycoreWheel.then((url) => loadPackages(["numpy", url]), () => loadPackages(["numpy"]));
  const consoleNs = pyodide.globals.get("dict")();
  await stage("numpy", async () => {
    const defined = consoleSource.then((src) => pyodide.runPython(src, { globals: consoleNs, filename: "/console.py" }));
    await Promise.all([packages, defined]);
    pyodide.runPython("import numpy");
  });
  await stage("pycore", async () => {
    await pycoreWheel; // (says why, if the wheel could not be found)
    pyodide.runPython("import js, pycore, pycore.progress\npycore.progress.listen(js.postProgress)");
    session = consoleNs.get("ConsoleSession")((kind, text) => postMessage({ type: "write", kind, text }));
    consoleNs.destroy();
  });
  if (interrupt) {
    pyodide.runPython("import js, pycore.interrupts\n" +
      "pycore.interrupts.install(js.pycoreInterrupt, internal=('/console.py',))");
  }
  const info = await stage("gpu", async () =>
    JSON.parse(await pyodide.runPythonAsync("import json, pycore\njson.dumps(await pycore.init_async())")));
  // The selector calibrates itself while the page is idle (?calibrate=manual: only when asked).
  if (calibrate !== "manual") pyodide.runPython("import pycore.calibrate\npycore.calibrate.calibrate_in_background()");
  return info;
}


// The value of the last expression, as the page's contract promises: a str, number or bool
// (anything else comes back as undefined).
function plain(value) {
  if (value === null || ["string", "number", "boolean"].includes(typeof value)) return value;
  if (value && typeof value.destroy === "function") value.destroy();
  return undefined;
}

async function answer(msg) {
  await booted;
  if (msg.type === "run") return plain(await pyodide.runPythonAsync(msg.code));
  if (msg.type === "console") {
    const result = await session[msg.method](...(msg.args ?? []));
    if (result && typeof result.toJs === "function") {
      const js = result.toJs();
      result.destroy();
      return js;
    }
    return result;
  }
  throw new Error(`unknown request ${msg.type}`);
}

onmessage = async ({ data: msg }) => {
  if (msg.type === "boot") {
    booted = boot(msg);
    booted.then((info) => postMessage({ type: "ready", info }), () => {});
    return;
  }
  try {
    postMessage({ id: msg.id, value: await answer(msg) });
  } catch (err) {
    postMessage({ id: msg.id, error: err?.message ?? String(err), name: err?.type ?? err?.name });
  }
};
