// The console's UI: an output pane and an input line with >>> / ... prompts, history (Up/Down, kept
// across reloads), Tab completion, Ctrl+C. Python runs in the worker (web/pyworker.js), so the page
// stays responsive while it computes: the console shows that it is busy (aria-busy, elapsed time,
// pycore's progress), keeps what is typed meanwhile and runs it after, and Ctrl+C or the stop
// button interrupts. Python semantics come from web/console.py.
const PS1 = ">>> ";
const PS2 = "... ";
const HISTORY_KEY = "pycore-console-history";
const HISTORY_MAX = 500;
const SHOW_ELAPSED_AFTER_MS = 1000;

function loadHistory() {
  try {
    const saved = JSON.parse(localStorage.getItem(HISTORY_KEY) ?? "[]");
    return Array.isArray(saved) ? saved.filter((x) => typeof x === "string") : [];
  } catch {
    return [];
  }
}

function saveHistory(history) {
  try { localStorage.setItem(HISTORY_KEY, JSON.stringify(history.slice(-HISTORY_MAX))); } catch { /* full or disabled */ }
}

export async function startConsole(py, ready) {
  const root = document.getElementById("console");
  const output = document.getElementById("console-output");
  const input = document.getElementById("console-input");
  const prompt = document.getElementById("console-prompt");
  const status = document.getElementById("console-status");
  const statusText = document.getElementById("console-status-text");
  const stop = document.getElementById("console-stop");

  function write(kind, text) {
    const span = document.createElement("span");
    span.className = kind;
    span.textContent = text;
    output.append(span);
    output.scrollTop = output.scrollHeight;
  }
  py.on("write", write);

  const history = loadHistory();
  let historyAt = history.length;
  const queue = []; // commands entered while another runs, or before Python is up: run next, in order
  let running = null; // {started, progress, timer} while a command runs
  let starting = true; // until boot has finished: what is typed waits

  function setPrompt(text) { prompt.textContent = text; }
  function autosize() { input.style.height = "auto"; input.style.height = input.scrollHeight + "px"; }

  function showStatus() {
    if (starting) {
      statusText.textContent = "starting Python (NumPy, pycore, the GPU): what you type runs once it is up" +
        (queue.length ? ` · ${queue.length} queued` : "");
      return;
    }
    if (!running) return;
    const parts = [];
    const ms = performance.now() - running.started;
    parts.push(ms >= SHOW_ELAPSED_AFTER_MS ? `running ${(ms / 1000).toFixed(1)} s` : "running");
    const p = running.progress;
    if (p && p.task === "gpu") parts.push(p.detail); // queued GPU work: pycore words it whole
    else if (p) parts.push(p.total > 1 ? `${p.task} ${p.done}/${p.total}${p.detail ? ": " + p.detail : ""}`
      : `${p.task}${p.detail ? " " + p.detail : ""}`);
    if (queue.length) parts.push(`${queue.length} queued`);
    statusText.textContent = parts.join(" · ");
  }
  py.on("progress", (p) => {
    if (!running) return;
    // a compile, or a wait for queued GPU work, that ended says nothing more
    running.progress = p.done >= p.total && (p.task === "compile" || p.task === "gpu") ? null : p;
    showStatus();
  });

  function setBusy(on) {
    root.setAttribute("aria-busy", on ? "true" : "false");
    root.classList.toggle("busy", on);
    status.hidden = !on;
    stop.hidden = starting;
    root.classList.toggle("running", on && !starting);
    if (on) {
      running = { started: performance.now(), progress: null, timer: setInterval(showStatus, 200) };
      showStatus();
    } else if (running) {
      clearInterval(running.timer);
      running = null;
    }
  }

  // Run one entry: a line (or a block line by line, as typed), or several lines pasted at once,
  // which run together as one cell.
  async function execute(code) {
    py.clearInterrupt(); // a Ctrl+C that came while nothing ran is not for this command
    const lines = code.split("\n");
    try {
      if (lines.length > 1 && prompt.textContent === PS1) {
        lines.forEach((line, i) => write("echo", (i ? PS2 : PS1) + line + "\n"));
        await py.console("run_cell", code);
        setPrompt(PS1);
      } else {
        for (const line of lines) {
          write("echo", prompt.textContent + line + "\n");
          const state = await py.console("push", line);
          setPrompt(state === "incomplete" ? PS2 : PS1);
        }
      }
    } catch (err) {
      write("error", `${err.message}\n`);
      setPrompt(PS1);
    }
  }

  async function submit(code) {
    if (code.trim() && history[history.length - 1] !== code) {
      history.push(code);
      saveHistory(history);
    }
    historyAt = history.length;
    queue.push(code);
    if (running || starting) { showStatus(); return; }
    await drain();
  }

  async function drain() {
    setBusy(true);
    try {
      while (queue.length) await execute(queue.shift());
    } finally {
      setBusy(false);
      document.dispatchEvent(new CustomEvent("pycore:ran"));
    }
  }
  globalThis.pycoreConsole = { run: submit }; // for scripts and tests

  function interrupt() {
    if (!running) return;
    if (!py.interrupt()) {
      write("stderr", "Ctrl+C cannot interrupt here: the page is not cross-origin isolated.\n");
      return;
    }
    // what was typed ahead goes back to the input line rather than running after the interrupt
    const kept = queue.splice(0).join("\n");
    if (kept) { input.value = kept + (input.value ? "\n" + input.value : ""); autosize(); }
  }
  stop.addEventListener("click", () => { interrupt(); input.focus(); });

  async function complete() {
    const before = input.value.slice(0, input.selectionStart);
    const after = input.value.slice(input.selectionStart);
    const [matches, start] = await py.console("complete", before);
    if (!matches.length) return;
    let common = matches[0];
    for (const m of matches) while (!m.startsWith(common)) common = common.slice(0, -1);
    if (matches.length > 1 && common.length <= before.length - start) {
      write("echo", prompt.textContent + input.value + "\n");
      write("stdout", matches.join("  ") + "\n");
    }
    input.value = before.slice(0, start) + common + after;
    input.selectionStart = input.selectionEnd = start + common.length;
  }

  input.addEventListener("input", autosize);
  input.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey) {
      ev.preventDefault();
      const code = input.value;
      input.value = "";
      autosize();
      submit(code);
    } else if (ev.key === "Tab") {
      ev.preventDefault();
      if (input.value.slice(0, input.selectionStart).trim() === "") {
        document.execCommand("insertText", false, "    ");
      } else if (!running && !starting) { // (a busy worker would answer late, for text since changed)
        complete();
      }
    } else if (ev.key === "ArrowUp" && !input.value.slice(0, input.selectionStart).includes("\n")) {
      if (historyAt > 0) { ev.preventDefault(); input.value = history[--historyAt]; autosize(); }
    } else if (ev.key === "ArrowDown" && !input.value.slice(input.selectionEnd).includes("\n")) {
      if (historyAt < history.length) {
        ev.preventDefault();
        historyAt += 1;
        input.value = history[historyAt] ?? "";
        autosize();
      }
    } else if (ev.key === "c" && ev.ctrlKey && input.selectionStart === input.selectionEnd) {
      ev.preventDefault();
      if (running) {
        interrupt();
      } else {
        write("echo", prompt.textContent + input.value + "^C\nKeyboardInterrupt\n");
        py.console("reset_buffer");
        input.value = "";
        autosize();
        setPrompt(PS1);
      }
    }
  });

  // The console is there at once, while Python starts in the worker; once it is up, the banner,
  // then whatever was typed meanwhile. If the start fails, the console goes (the page says why).
  root.hidden = false;
  input.disabled = false;
  input.focus();
  setBusy(true);
  clearInterval(running.timer); // (no elapsed time while starting)
  running = null;
  showStatus();
  try {
    await ready;
  } catch {
    root.hidden = true;
    return;
  }
  write("info", await py.console("banner") + "\n");
  if (!py.canInterrupt) {
    write("hint", "Ctrl+C cannot interrupt running code on this page: it is not cross-origin isolated " +
      "(no SharedArrayBuffer). Serve it with python serve.py for interrupts.\n");
    stop.disabled = true;
    stop.title = "interrupts need a cross-origin isolated page";
  }
  starting = false;
  stop.hidden = false;
  if (queue.length) await drain();
  else setBusy(false);
}
