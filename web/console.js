// The console's UI: an output pane and an input line with >>> / ... prompts, history (Up/Down),
// Tab completion and Ctrl+C. Python semantics come from web/console.py (Pyodide's console).
const PS1 = ">>> ";
const PS2 = "... ";

export async function startConsole(pyodide) {
  const output = document.getElementById("console-output");
  const input = document.getElementById("console-input");
  const prompt = document.getElementById("console-prompt");

  function write(kind, text) {
    const span = document.createElement("span");
    span.className = kind;
    span.textContent = text;
    output.append(span);
    output.scrollTop = output.scrollHeight;
  }

  const source = await (await fetch("/console.py")).text();
  const ns = pyodide.globals.get("dict")();
  pyodide.runPython(source, { globals: ns });
  const session = ns.get("ConsoleSession")(write);
  globalThis.pycoreConsole = { session, run: (code) => runLines(code) }; // for scripts and tests
  write("info", session.banner() + "\n");

  const history = [];
  let historyAt = 0;
  let busy = false;

  function setPrompt(text) { prompt.textContent = text; }
  function autosize() { input.style.height = "auto"; input.style.height = input.scrollHeight + "px"; }

  // Push each line of `code` as if typed; lines pasted together run as one block.
  async function runLines(code) {
    busy = true;
    input.disabled = true;
    try {
      for (const line of code.split("\n")) {
        write("echo", prompt.textContent + line + "\n");
        const status = await session.push(line);
        setPrompt(status === "incomplete" ? PS2 : PS1);
      }
    } finally {
      busy = false;
      input.disabled = false;
      input.focus();
      document.dispatchEvent(new CustomEvent("pycore:ran"));
    }
  }

  function complete() {
    const before = input.value.slice(0, input.selectionStart);
    const after = input.value.slice(input.selectionStart);
    const result = session.complete(before).toJs();
    const [matches, start] = result;
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
  input.addEventListener("keydown", async (ev) => {
    if (busy) { ev.preventDefault(); return; }
    if (ev.key === "Enter" && !ev.shiftKey) {
      ev.preventDefault();
      const code = input.value;
      input.value = "";
      autosize();
      if (code.trim()) history.push(code);
      historyAt = history.length;
      await runLines(code);
    } else if (ev.key === "Tab") {
      ev.preventDefault();
      if (input.value.slice(0, input.selectionStart).trim() === "") {
        document.execCommand("insertText", false, "    ");
      } else {
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
      write("echo", prompt.textContent + input.value + "^C\nKeyboardInterrupt\n");
      session.reset_buffer();
      input.value = "";
      setPrompt(PS1);
    }
  });

  document.getElementById("console").hidden = false;
  input.disabled = false;
  input.focus();
}
