"""Where the WGSL lives: one file per kernel family in the repository's shaders/ folder, which the
pycore wheel carries as pycore/shaders/. shaders/common.wgsl holds helpers every family uses and
is prepended to each family's source (WGSL has no #include). A family file's part above the line
`// ---- the kernels` is pure functions, which the fused kernels (shaders/fused.wgsl) reuse."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # pycore/
SHADER_DIRS = (_PACKAGE / "shaders", _PACKAGE.parent / "shaders")  # installed wheel, then a checkout


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
    """shaders/<name>.wgsl as it is, for a generator to fill in (see pycore/kernels/fusion.py)."""
    return _read(name)


TYPED = ("f32", "i32", "u32")  # the numeric WGSL types a `_T` function is instantiated for


@cache
def wgsl_typed(name: str) -> str:
    """shaders/<name>.wgsl with each function written for every numeric type (`fn <op>_T(`, with T
    its scalar type) instantiated as `<op>_f32`, `<op>_i32` and `<op>_u32`, except where a function
    of that name is written out.

    >>> src = wgsl_typed("ufuncs")
    >>> "fn add_i32(a: vec4<i32>" in src, src.count("fn maximum_f32("), "_T(" in src
    (True, 1, False)
    """
    text = _read(name)
    chunks = re.split(r"(?m)^(?=fn )", text)
    out = []
    for chunk in chunks:
        found = re.match(r"fn (\w+)_T\(", chunk)
        if not found:
            out.append(chunk)
            continue
        stem = found.group(1)
        for t in TYPED:
            if re.search(rf"(?m)^fn {stem}_{t}\(", text):
                continue
            out.append(re.sub(r"\bT\b", t, chunk.replace(f"fn {stem}_T(", f"fn {stem}_{t}(")))
    return "".join(out)
