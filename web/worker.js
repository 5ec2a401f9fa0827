// The Python worker: Pyodide, NumPy, pycore and pycore's WebGPU device live here, off the page's
// main thread, so Python computing never freezes the page. The page (web/pyworker.js) talks to it
// with the messages below; this file is glue only: every decision is pycore's, in Python.
//
// page → worker   {type: "boot", interrupt, settings, calibrate}  once, first
//                 {id, type: "run", code}                     run Python; answers {id, value | error}
//                 {id, type: "console", method, args}         a call on the console session (console.py)
// worker → page   {type: "stage", name, state, ms, error}     boot progress
//                 {type: "ready", info}                       boot finished: pycore.info()
//                 {type: "write", kind, text}                 console output
//                 {type: "progress", task, done, total, detail}  long pycore work (see pycore.engine.progress)
//                 {type: "event", name, text}                 pageEvent(name, text) called from Python
//                 {type: "setting", key, value}               a setting to keep in the page's localStorage
//                 {id, value} or {id, error}                  the answer to a request
import { loadPyodide, version } from "/pyodide/pyodide.mjs";

const here = (path) => new URL(path, location.origin).href; // Pyodide wants absolute URLs

// The page may start this worker before it listens (an inline script, to save the time its own
// scripts take to load): what the worker says waits until the page's "boot" message.
let listening = false;
const early = [];
function post(msg) {
  if (listening) postMessage(msg);
  else early.push(msg);
}
let pyodide = null;
let session = null; // the console session (console.py), made during boot
let booted = null; // a promise: requests wait for boot

// Settings (pycore's saved calibrations) live in the page's localStorage,
// which workers lack: the page hands over a copy at boot, and every change goes back to it.
function settingsStore(initial) {
  const values = new Map(Object.entries(initial ?? {}));
  return {
    getItem: (key) => values.get(key) ?? null,
    setItem(key, value) { values.set(key, String(value)); post({ type: "setting", key, value: String(value) }); },
    removeItem(key) { values.delete(key); post({ type: "setting", key, value: null }); },
  };
}

// An error nothing caught (an exception in a Python callback, say) is logged here: it must not
// reach the page, which takes a worker error for a crash.
addEventListener("error", (ev) => { ev.preventDefault(); console.error("python worker:", ev.message); });
addEventListener("unhandledrejection", (ev) => { ev.preventDefault(); console.error("python worker:", ev.reason); });

// Python may tell the page something (a benchmark row, say) with js.pageEvent(name, text).
globalThis.pageEvent = (name, text) => post({ type: "event", name: String(name), text: String(text) });
// pycore's progress reports (pycore.engine.progress) go to the page as they come.
globalThis.postProgress = (task, done, total, detail) => post({ type: "progress", task, done, total, detail });

async function stage(name, work) {
  post({ type: "stage", name, state: "running" });
  const t0 = performance.now();
  try {
    const result = await work();
    post({ type: "stage", name, state: "done", ms: performance.now() - t0 });
    return result;
  } catch (err) {
    post({ type: "stage", name, state: "failed", error: err?.message ?? String(err) });
    throw err;
  }
}

async function loadPackages(names) {
  const errors = [];
  await pyodide.loadPackage(names, { errorCallback: (msg) => errors.push(msg), messageCallback: () => {} });
  if (errors.length) throw new Error(errors.join("\n"));
}

// Started as soon as the worker is: the runtime, and where the current pycore wheel is (serve.py
// builds it from the sources) and the console's code, asked at once.
const wheel = fetch("/pycore-wheel.json").then(async (res) => {
  if (!res.ok) throw new Error(`/pycore-wheel.json: HTTP ${res.status} ${await res.text()}`);
  return res.json();
});
const consoleSource = fetch("/console.py").then(async (res) => {
  if (!res.ok) throw new Error(`/console.py: HTTP ${res.status}`);
  return res.text();
});
const runtime = stage("runtime", () => loadPyodide({
  // Pyodide's runtime files from their versioned URL, which the browser may keep for good: a
  // later visit compiles nothing again (a new Pyodide is a new URL).
  indexURL: here(`/pyodide@${version}/`), lockFileURL: here("/pyodide-lock.json"), packageBaseUrl: here("/wheels/"),
}));
for (const started of [wheel, consoleSource, runtime]) started.catch(() => {}); // (boot reports them)

async function boot({ interrupt, settings, calibrate }) {
  globalThis.pycoreSettings = settingsStore(settings);
  globalThis.pycoreInterrupt = interrupt ?? null; // pycore's readbacks wait for it too (browser.py)
  pyodide = await runtime;
  if (interrupt) pyodide.setInterruptBuffer(interrupt);
  // NumPy and the pycore wheel download and install together; a wheel URL needs no package manager.
  // Meanwhile Python, idle, reads the console's code (console.py imports them only when used).
  const pycoreWheel = wheel.then(({ url }) => here(url));
  // The wheel's modules compiled by this Pyodide, where serve.py has them (checked-hash .pyc
  // files: Python uses one only while its source is unchanged): `import pycore` then compiles
  // nothing. Without them it compiles its sources, as any import does.
  const bytecode = wheel.then(({ bytecode }) => (bytecode ? fetch(here(bytecode)) : null))
    .then((res) => (res?.ok ? res.arrayBuffer() : null)).catch(() => null);
  const packages = pycoreWheel.then((url) => loadPackages(["numpy", url]), () => loadPackages(["numpy"]));
  const consoleNs = pyodide.globals.get("dict")();
  await stage("numpy", async () => {
    const defined = consoleSource.then((src) => pyodide.runPython(src, { globals: consoleNs, filename: "/console.py" }));
    await Promise.all([packages, defined]);
    pyodide.runPython("import numpy");
  });
  await stage("pycore", async () => {
    await pycoreWheel; // (says why, if the wheel could not be found)
    const compiled = await bytecode;
    if (compiled) {
      try {
        const sitePackages = pyodide.runPython("import sysconfig\nsysconfig.get_path('purelib')");
        pyodide.unpackArchive(compiled, "zip", { extractDir: sitePackages });
      } catch (err) {
        console.warn("pycore: its bytecode could not be unpacked; compiling its sources", err);
      }
    }
    pyodide.runPython("import js, pycore, pycore.engine.progress\npycore.engine.progress.listen(js.postProgress)");
    session = consoleNs.get("ConsoleSession")((kind, text) => post({ type: "write", kind, text }));
    consoleNs.destroy();
  });
  if (interrupt) {
    pyodide.runPython("import js, pycore.engine.interrupts\n" +
      "pycore.engine.interrupts.install(js.pycoreInterrupt, internal=('/console.py',), target='<console>')");
  }
  // What Python holds now (the standard library, NumPy, pycore's modules) lives as long as the
  // page: the cycle collector need not look at it again. Each full collection otherwise walks it
  // all, a pause of 55-85 ms in the console's loops (and before its Ctrl+C); after the freeze, it
  // walks only what the user's code made.
  pyodide.runPython("import gc\ngc.collect()\ngc.freeze()");
  const info = await stage("gpu", async () =>
    JSON.parse(await pyodide.runPythonAsync("import json, pycore\njson.dumps(await pycore.init_async())")));
  // The selector calibrates itself while the page is idle (?calibrate=manual: only when asked).
  if (calibrate !== "manual") pyodide.runPython("import pycore.bench.calibrate\npycore.bench.calibrate.calibrate_in_background()");
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
    listening = true;
    for (const said of early.splice(0)) postMessage(said);
    booted = boot(msg);
    booted.then((info) => post({ type: "ready", info }), () => {});
    return;
  }
  try {
    post({ id: msg.id, value: await answer(msg) });
  } catch (err) {
    post({ id: msg.id, error: err?.message ?? String(err), name: err?.type ?? err?.name });
  }
};
