"""The README's short tour, line by line as the console runs it (top-level await), on the NumPy
backend here: each expression's repr must be the one the README shows. tests/e2e runs the same
lines on the GPU targets (test_tour_on_the_gpu)."""

from __future__ import annotations

import ast
import asyncio
import re
from pathlib import Path

from tests.unit.test_cpython_api import run

README = Path(__file__).resolve().parents[2] / "README.md"


def tour() -> list[tuple[str, str]]:
    """(statement, the repr the README shows after it, or "") for each line of the tour."""
    text = README.read_text()
    block = text[text.index("<!-- tour:begin -->"):text.index("<!-- tour:end -->")]
    body = block.split("```python\n", 1)[1].rsplit("```", 1)[0]
    steps: list[tuple[str, str]] = []
    for line in body.splitlines():
        if line.startswith(">>> "):
            steps.append((line[4:], ""))
        elif steps:
            source, shown = steps[-1]
            steps[-1] = (source, f"{shown}\n{line}" if shown else line)
    return steps


async def replay_async(steps: list[tuple[str, str]]) -> list[str]:
    """Run each statement as the console does; the differences from what the README shows (the
    spacing aside, and `dtype=int32`, which NumPy leaves out where it is the default integer: in
    Pyodide, a 32-bit platform)."""

    def same(text: str) -> str:
        return re.sub(r"\s+", " ", text.replace(", dtype=int32)", ")"))

    scope: dict = {}
    problems = []
    for source, shown in steps:
        try:
            code = compile(source, "<tour>", "eval", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        except SyntaxError:
            code = compile(source, "<tour>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        value = eval(code, scope)
        if asyncio.iscoroutine(value):
            value = await value
        got = "" if value is None else repr(value)
        if same(got) != same(shown):
            problems.append(f"{source}\n  shows: {shown}\n  gives: {got}")
    return problems


def test_the_readme_tour_runs_as_shown():
    steps = tour()
    assert len(steps) > 15
    assert run(replay_async(steps)) == []
