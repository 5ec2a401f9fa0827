"""Where the WGSL lives: one file per kernel family in the repository's shaders/ folder, which the
pycore wheel carries as pycore/shaders/."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_HERE = Path(__file__).resolve().parent
SHADER_DIRS = (_HERE / "shaders", _HERE.parent / "shaders")  # installed wheel, then a checkout


@cache
def wgsl_source(family: str) -> str:
    """The WGSL text of `shaders/<family>.wgsl`.

    >>> "fn relu" in wgsl_source("elementwise")
    True
    """
    for folder in SHADER_DIRS:
        path = folder / f"{family}.wgsl"
        if path.is_file():
            return path.read_text()
    raise FileNotFoundError(f"no shader family {family!r} in {', '.join(map(str, SHADER_DIRS))}")
