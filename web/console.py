"""The Python side of the page's console, on top of Pyodide's own console.

pyodide.console.PyodideConsole gives the conventions of CPython's REPL: incomplete-input detection
for `...` blocks, top-level `await`, rlcompleter completion and tracebacks trimmed to the user's
frames. This adds what the REPL's displayhook does (the repr of the last expression, kept in `_`)
and a namespace with `np` and `pycore` already imported. The page's console.js is only the UI.
"""

import builtins

import numpy as np
from pyodide.console import PyodideConsole, repr_shorten

import pycore


class ConsoleSession:
    def __init__(self, write):
        """write(kind, text): kind is "stdout", "stderr", "result" or "error"."""
        self._write = write
        self.namespace = {"__name__": "__main__", "np": np, "pycore": pycore}
        self.console = PyodideConsole(
            self.namespace,
            stdout_callback=lambda text: write("stdout", text),
            stderr_callback=lambda text: write("stderr", text),
            filename="<console>",
        )

    def banner(self):
        info = pycore.info()
        v = info["versions"]
        return (f"Python {v['python']} on Pyodide {v['pyodide']} (WebAssembly) · NumPy {v['numpy']}"
                f" · pycore {v['pycore']}\nCompute: {info['tier']}\n"
                "np and pycore are imported. Try:  await pycore.relu_async(np.linspace(-2, 2, 5))")

    async def push(self, line):
        """Run one line; returns "incomplete" (show the ... prompt), or "done"."""
        future = self.console.push(line)
        if future.syntax_check == "incomplete":
            return "incomplete"
        if future.syntax_check == "syntax-error":
            self._write("error", future.formatted_error or "SyntaxError\n")
            return "done"
        try:
            value = await future
        except BaseException as exc:
            self._write("error", future.formatted_error or self.console.formattraceback(exc))
            return "done"
        if value is not None:
            builtins._ = value
            self.namespace["_"] = value
            self._write("result", repr_shorten(value, separator="\n[[...]]\n") + "\n")
        return "done"

    def complete(self, source):
        """(completions, start index) for the text before the cursor."""
        return self.console.complete(source)

    def reset_buffer(self):
        """Forget a half-typed block (Ctrl+C)."""
        self.console.buffer = []
