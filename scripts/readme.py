"""Generated sections of the docs, each between `<!-- NAME:begin -->` and `<!-- NAME:end -->`
markers: README.md's op reference (from pycore.ops.OPS) and error table, and the measured tables of
docs/benchmarks.md.

    python3 scripts/readme.py      rewrites the op reference (tests check it is current)
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BENCHMARKS = ROOT / "docs" / "benchmarks.md"


def replace_section(name: str, body: str, text: str | None = None, path: Path = README) -> str:
    """The file's text with the `name` section replaced by `body`; written unless `text` is given."""
    source = path.read_text() if text is None else text
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    head, rest = source.split(begin, 1)
    _, tail = rest.split(end, 1)
    updated = f"{head}{begin}\n{body}\n{end}{tail}"
    if text is None:
        path.write_text(updated)
    return updated


def op_reference() -> str:
    """One row per op: call, what it does, a one-line example and its value."""
    sys.path.insert(0, str(ROOT))
    import pycore
    from pycore.ops import OPS

    rows = ["| call | what it computes | example (in the console) | gives |", "| --- | --- | --- | --- |"]
    for op in OPS.values():
        sig = inspect.signature(getattr(pycore, op.public_name))
        params = ", ".join(str(p.replace(annotation=inspect.Parameter.empty)).replace("'", '"')
                           for p in sig.parameters.values())
        shows = " ".join(op.shows.split()).replace("|", "\\|")
        rows.append(f"| `{op.public_name}({params})` | {op.summary} | `await {op.example}` | `{shows}` |")
    return "\n".join(rows)


if __name__ == "__main__":
    replace_section("ops", op_reference())
