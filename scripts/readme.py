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


def _row(name: str, summary: str, example: str, shows: str) -> str:
    import pycore

    sig = inspect.signature(getattr(pycore, name))
    params = str(sig.replace(return_annotation=inspect.Signature.empty,
                             parameters=[p.replace(annotation=inspect.Parameter.empty)
                                         for p in sig.parameters.values()])).replace("'", '"')
    shows = " ".join(shows.split()).replace("|", "\\|")
    return f"| `{name}{params}` | {summary} | `await {example}` | `{shows}` |"


def op_reference() -> str:
    """One row per op: call, what it does, a one-line example and its value. The n-d ops
    (pycore.ufuncs) first, then the fixed-kernel ops of pycore.ops whose names they do not take."""
    sys.path.insert(0, str(ROOT))
    from pycore.calls import NDPUBLIC
    from pycore.ops import OPS
    from pycore.ufuncs import REDUCTIONS, UFUNCS

    rows = ["| call | what it computes | example (in the console) | gives |", "| --- | --- | --- | --- |"]
    for u in UFUNCS.values():
        also = f" Also `{'`, `'.join(a + '_async' for a in u.aliases)}`." if u.aliases else ""
        rows.append(_row(f"{u.name}_async", u.summary + also, u.example, u.shows))
    for r in REDUCTIONS.values():
        rows.append(_row(f"{r.name}_async", r.summary, r.example, r.shows))
    for op in OPS.values():
        if op.public_name not in NDPUBLIC:
            rows.append(_row(op.public_name, op.summary, op.example, op.shows))
    return "\n".join(rows)


if __name__ == "__main__":
    replace_section("ops", op_reference())
