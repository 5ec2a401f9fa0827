// The page's side of the Python worker (web/worker.js): starts it, forwards requests, and keeps
// what the page needs from it (boot stages, console output, progress, events, settings).
//
// Interrupts: where the page is cross-origin isolated, a SharedArrayBuffer is shared with the
// worker as Pyodide's interrupt buffer; interrupt() writes SIGINT (2) into it, and Python raises
// KeyboardInterrupt at its next bytecode (pycore's readbacks watch it too). Without isolation there
// is no SharedArrayBuffer, so no interrupt: `canInterrupt` says which.
const SIGINT = 2;
const SETTINGS_PREFIX = "pycore"; // the localStorage keys the worker may read and write

export class PythonWorker {
  constructor() {
    // (the page's inline script may have started it already: see index.html)
    this.worker = globalThis.pycoreWorker ?? new Worker("/worker.js", { type: "module", name: "python" });
    this.pending = new Map();
    this.nextId = 1;
    this.listeners = { stage: [], write: [], progress: [], event: [], ready: [], crash: [] };
    this.canInterrupt = globalThis.crossOriginIsolated === true && typeof SharedArrayBuffer === "function";
    this.interruptBuffer = this.canInterrupt ? new Int32Array(new SharedArrayBuffer(4)) : null;
    this.worker.onmessage = ({ data }) => this.receive(data);
    this.worker.onerror = (ev) => this.crash(ev.message || "the Python worker failed to start");
    this.worker.onmessageerror = () => this.crash("a message from the Python worker could not be read");
  }

  on(type, listener) { this.listeners[type].push(listener); }

  emit(type, ...args) { for (const listener of this.listeners[type]) listener(...args); }

  boot() {
    const settings = {};
    try {
      for (let i = 0; i < localStorage.length; i++) {
        const key = localStorage.key(i);
        if (key.startsWith(SETTINGS_PREFIX)) settings[key] = localStorage.getItem(key);
      }
    } catch { /* storage disabled: nothing is kept across reloads */ }
    const calibrate = new URLSearchParams(location.search).get("calibrate") ?? "background";
    this.worker.postMessage({ type: "boot", interrupt: this.interruptBuffer, settings, calibrate });
  }

  crash(message) {
    this.emit("crash", message);
    for (const { reject } of this.pending.values()) reject(new Error(message));
    this.pending.clear();
  }

  receive(msg) {
    if (msg.id !== undefined) {
      const call = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (!call) return;
      if (msg.error !== undefined) {
        const err = new Error(msg.error);
        err.pythonType = msg.name;
        call.reject(err);
      } else {
        call.resolve(msg.value);
      }
    } else if (msg.type === "stage") {
      this.emit("stage", msg);
    } else if (msg.type === "ready") {
      this.emit("ready", msg.info);
    } else if (msg.type === "write") {
      this.emit("write", msg.kind, msg.text);
    } else if (msg.type === "progress") {
      this.emit("progress", msg);
    } else if (msg.type === "event") {
      this.emit("event", msg.name, msg.text);
    } else if (msg.type === "setting") {
      try {
        if (msg.value === null) localStorage.removeItem(msg.key);
        else localStorage.setItem(msg.key, msg.value);
      } catch { /* storage full or disabled */ }
    }
  }

  request(type, fields) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, type, ...fields });
    });
  }

  /** Run Python in the worker; resolves with the last expression's value if it is a str, number
   * or bool (else undefined), rejects with the traceback. */
  runPythonAsync(code) { return this.request("run", { code: String(code) }); }

  /** A call on the console session (see web/console.py). */
  console(method, ...args) { return this.request("console", { method, args }); }

  /** Ask the running Python code to stop (KeyboardInterrupt). False where interrupts are unavailable. */
  interrupt() {
    if (!this.interruptBuffer) return false;
    Atomics.store(this.interruptBuffer, 0, SIGINT);
    Atomics.notify(this.interruptBuffer, 0);
    return true;
  }

  /** Forget an interrupt that nothing picked up (Python was idle when it came). */
  clearInterrupt() { if (this.interruptBuffer) Atomics.store(this.interruptBuffer, 0, 0); }
}
