"""Where the WGSL lives: one file per kernel family in the repository's shaders/ folder, which the
pycore wheel carries as pycore/shaders/. shaders/common.wgsl holds helpers every family uses and
is prepended to each family's source (WGSL has no #include)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_HERE = Path(__file__).resolve().parent
SHADER_DIRS = (_HERE / "shaders", _HERE.parent / "shaders")  # installed wheel, then a checkout


def _read(name: str) -> str:
    for folder in SHADER_DIRS:
        path = folder / f"{name}.wgsl"
        if path.is_file():
            return path.read_text()
    raise FileNotFoundError(f"no shader file {name}.wgsl in {', '.join(map(str, SHADER_DIRS))}")


@cache
def wgsl_source(family: str) -> str:
    """The WGSL compiled for a kernel family: shaders/common.wgsl, then shaders/<family>.wgsl.

    >>> src = wgsl_source("elementwise")
    >>> "fn relu" in src and "fn is_nan" in src
    True
    """
    return _read("common") + "\n" + _read(family)
