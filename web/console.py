"""The Python side of the page's console, on top of Pyodide's own console; it runs in the Python
worker (web/worker.js), and web/console.js is only the UI.

pyodide.console.PyodideConsole gives the conventions of CPython's REPL: incomplete-input detection
for `...` blocks, top-level `await` and rlcompleter completion. This adds what the REPL's
displayhook does, as IPython does it: results pretty-printed (pprint for containers, NumPy's repr
for arrays) and kept in `_`, long output elided between whole lines or items; tracebacks that end in
the user's own frame (pycore's frames are left out for an argument error pycore raised, kept for
anything else); a hint for a forgotten `await`; and a namespace with `np` and `pycore` imported.
"""

import builtins
import inspect
import pprint
import traceback
from pathlib import Path

from pyodide.code import eval_code_async
from pyodide.console import PyodideConsole

# (NumPy and pycore are imported where used: the worker runs this file while they still load.)
WIDTH = 100  # pprint's line width
MAX_LINES = 60  # more lines than this: the middle ones are elided
HEAD_LINES, TAIL_LINES = 40, 15
MAX_LINE = 2000  # a longer line is elided between whole items (or words)
HEAD_CHARS, TAIL_CHARS = 1200, 400


def elide(text: str) -> str:
    """`text` shortened for the console: the middle of too many lines, then the middle of a too
    long line, cut only where an item or a word ends.

    >>> elide("\\n".join(map(str, range(100)))).count("\\n")
    55
    >>> elide(", ".join(["123456"] * 1000))[-40:]
    '123456, 123456, 123456, 123456, 123456'
    """
    lines = text.split("\n")
    if len(lines) > MAX_LINES:
        hidden = len(lines) - HEAD_LINES - TAIL_LINES
        lines = [*lines[:HEAD_LINES], f"... ({hidden} more lines) ...", *lines[-TAIL_LINES:]]
    return "\n".join(_elide_line(line) for line in lines)


def _elide_line(line: str) -> str:
    if len(line) <= MAX_LINE:
        return line
    for sep in (", ", " "):
        cut = line.rfind(sep, 0, HEAD_CHARS)
        resume = line.find(sep, len(line) - TAIL_CHARS)
        if cut > 0 and resume > cut:
            hidden = resume - cut
            return f"{line[:cut + len(sep)]}... ({hidden:,} more characters) ...{line[resume:]}"
    return line  # one giant word or number: shown whole rather than cut inside it


def display(value: object) -> str:
    """What the console prints for a result: pprint for containers, repr otherwise."""
    if isinstance(value, (dict, list, tuple, set, frozenset)) and not hasattr(value, "_fields"):
        import numpy as np

        with np.printoptions(threshold=200):
            text = pprint.pformat(value, width=WIDTH, sort_dicts=False, compact=True)
    else:
        text = repr(value)
    return elide(text)


def format_exception(exc: BaseException) -> str:
    """A traceback from the user's first frame on. For an argument error pycore raised (bad shape,
    dtype, size or parameter: see pycore.calls.dispatch.is_argument_error) and for an interrupt,
    pycore's own frames are left out too: the traceback ends in the user's line. A real error
    inside pycore keeps them."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != "<console>":
        tb = tb.tb_next
    if tb is None:
        tb = exc.__traceback__
    import pycore
    from pycore.calls.dispatch import is_argument_error

    if isinstance(exc, KeyboardInterrupt) or is_argument_error(exc):
        pycore_dir = str(Path(pycore.__file__).parent)
        frames = []
        t = tb
        while t is not None:
            frames.append(t)
            t = t.tb_next
        outside = [f for f in frames if not f.tb_frame.f_code.co_filename.startswith(pycore_dir)]
        if outside:
            outside[-1].tb_next = None
    text = "".join(traceback.format_exception(type(exc), exc, tb))
    return text.replace("_IncompleteInputError", "SyntaxError")


class ConsoleSession:
    def __init__(self, write):
        """write(kind, text): kind is "stdout", "stderr", "result", "hint" or "error"."""
        import numpy as np

        import pycore

        self._write = write
        self.namespace = {"__name__": "__main__", "np": np, "pycore": pycore}
        self.console = PyodideConsole(
            self.namespace,
            stdout_callback=lambda text: write("stdout", text),
            stderr_callback=lambda text: write("stderr", text),
            filename="<console>",
        )

    def banner(self):
        info = self.namespace["pycore"].info()
        v = info["versions"]
        return (f"Python {v['python']} on Pyodide {v['pyodide']} (WebAssembly) · NumPy {v['numpy']}"
                f" · pycore {v['pycore']}\nCompute: {info['tier']}\n"
                "np and pycore are imported. Try:  await pycore.relu_async(np.linspace(-2, 2, 5))")

    async def push(self, line):
        """Run one line; returns "incomplete" (show the ... prompt), or "done"."""
        self._forget_interrupt()
        future = self.console.push(line)
        if future.syntax_check == "incomplete":
            return "incomplete"
        if future.syntax_check == "syntax-error":
            text = future.formatted_error or "SyntaxError\n"
            self._write("error", text.replace("_IncompleteInputError", "SyntaxError"))
            return "done"
        try:
            value = await future
        except BaseException as exc:  # KeyboardInterrupt included: the console goes on
            self._write("error", format_exception(exc))
            return "done"
        self._show(value)
        return "done"

    async def run_cell(self, source):
        """Run several lines at once (a paste), as a notebook cell: one block, its last expression
        shown. Returns "done"."""
        self.reset_buffer()
        self._forget_interrupt()
        try:
            with self.console.redirect_streams():
                value = await eval_code_async(source, self.namespace, filename="<console>")
        except SyntaxError as exc:
            self._write("error", "".join(traceback.format_exception_only(type(exc), exc))
                        .replace("_IncompleteInputError", "SyntaxError"))
            return "done"
        except BaseException as exc:
            self._write("error", format_exception(exc))
            return "done"
        self._show(value)
        return "done"

    @staticmethod
    def _forget_interrupt():
        """A Ctrl+C that came after the last command ended is not for this one (the page clears
        the signal; this forgets what Python noted of it)."""
        from pycore.engine import interrupts

        interrupts.forget()

    def _show(self, value):
        """What the REPL's displayhook does: print the result's repr and keep it in `_`."""
        if value is not None:
            builtins._ = value
            self.namespace["_"] = value
            self._write("result", display(value) + "\n")
            if inspect.iscoroutine(value):
                self._write("hint", "hint: that is a coroutine, not its result: did you forget "
                            "`await`? `await _` runs it.\n")

    def complete(self, source):
        """(completions, start index) for the text before the cursor."""
        return self.console.complete(source)

    def reset_buffer(self):
        """Forget a half-typed block (Ctrl+C)."""
        self.console.buffer = []
