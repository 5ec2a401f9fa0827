"""Where the WGSL lives: one file per kernel family in the repository's shaders/ folder, which the
pycore wheel carries as pycore/shaders/. shaders/common.wgsl holds helpers every family uses and
is prepended to each family's source (WGSL has no #include). A family file's part above the line
`// ---- the kernels` is pure functions, which the fused kernels (shaders/fused.wgsl) reuse."""

from __future__ import annotations

import re
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


def wgsl_constant(name: str, family: str = "common") -> int:
    """An integer constant of shaders/<family>.wgsl (`const NAME: u32 = 256u;`): the WGSL owns the
    workgroup sizes and tiles, and the dispatch grids read them from there.

    >>> wgsl_constant("WORKGROUP") % 64, wgsl_constant("TILE", "conv2d")
    (0, 16)
    """
    found = re.search(rf"^const {name}: u32 = (\d+)u;", _read(family), re.MULTILINE)
    if not found:
        raise ValueError(f"shaders/{family}.wgsl defines no `const {name}: u32`")
    return int(found.group(1))


KERNELS_MARK = "// ---- the kernels"


@cache
def wgsl_functions(family: str) -> str:
    """The function part of shaders/<family>.wgsl: everything above its `// ---- the kernels` line.

    >>> "fn relu_f" in wgsl_functions("elementwise") and "@compute" not in wgsl_functions("elementwise")
    True
    """
    text = _read(family)
    if KERNELS_MARK not in text:
        raise ValueError(f"shaders/{family}.wgsl has no '{KERNELS_MARK}' line")
    return text[:text.index(KERNELS_MARK)]


@cache
def wgsl_template(name: str) -> str:
    """shaders/<name>.wgsl as it is, for a generator to fill in (see pycore/fusion.py)."""
    return _read(name)
