"""Where the WGSL lives: one file per kernel family in the repository's shaders/ folder, which the
pycore wheel carries as pycore/shaders/. shaders/common.wgsl holds helpers every family uses and
is prepended to each family's source (WGSL has no #include). A family file's part above the line
`// ---- the kernels` is pure functions, which the generated element-wise kernels reuse (one op, a
CommandBatch's fused chain, or the queue's: kernels/elementwise.py)."""

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


_ONE_VALUE = re.compile(r"(?m)^fn cx_(\w+)\(z: vec2<f32>\) -> vec2<f32> \{")


@cache
def wgsl_complex() -> str:
    """shaders/complex.wgsl with `<name>_c64(a: C4) -> C4` made for each function of one complex
    value, `cx_<name>(z: vec2<f32>) -> vec2<f32>`, that has none written out: the function on each
    of a C4's four values (the kernels call the `_c64` functions; see elementwise.py).

    >>> src = wgsl_complex()
    >>> "fn sinh_c64(a: C4) -> C4" in src, src.count("fn exp_c64("), src.count("fn sin_c64(")
    (True, 1, 1)
    """
    text = _read("complex")
    made = []
    for name in _ONE_VALUE.findall(text):
        if not re.search(rf"(?m)^fn {name}_c64\(", text):
            lanes = ", ".join(f"cx_{name}(c_at(a, {k}u))" for k in range(4))
            made.append(f"fn {name}_c64(a: C4) -> C4 {{ return c4_of({lanes}); }}\n")
    note = "\n// (made by pycore/kernels/wgsl.py: each function of one value on a C4)\n"
    return "".join([text, note, *made])


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


_FN = re.compile(r"(?m)^fn (\w+)\(")
_WORD = re.compile(r"\b\w+\b")
_COMMENT_LINE = re.compile(r"(?m)^[ \t]*//.*\n")
_BRACE = re.compile(r"//[^\n]*|[{}]")  # (a comment to the end of its line is skipped whole)


def _function_spans(source: str) -> list[tuple[str, int, int]]:
    """(name, start, end) of each top-level `fn` without attributes (its text through its closing
    brace; braces inside `//` comments are not counted).

    >>> _function_spans("fn a() { // }\\n}\\n@compute @workgroup_size(1)\\nfn main() {}\\nfn b() { {} }")
    [('a', 0, 15), ('b', 57, 70)]
    """
    spans = []
    for found in _FN.finditer(source):
        j = found.start() - 1
        while j >= 0 and source[j] in " \t\r\n":
            j -= 1
        if source[source.rfind("\n", 0, j + 1) + 1:j + 1].lstrip().startswith("@"):
            continue  # (an entry point: `@compute @workgroup_size(...)` on the line before)
        depth, opened = 0, False
        for token in _BRACE.finditer(source, found.end()):
            t = token.group()
            if t == "{":
                depth, opened = depth + 1, True
            elif t == "}":
                depth -= 1
                if opened and depth == 0:
                    spans.append((found.group(1), found.start(), token.end()))
                    break
    return spans


def used_only(source: str) -> str:
    """`source` without the top-level functions nothing calls: the libraries of pure functions
    every generated kernel is assembled from (shaders/ufuncs.wgsl alone holds hundreds of lines)
    need not be parsed and compiled for each pipeline. Reachability by name, from everything
    outside those functions (the entry points, constants, bindings). Whole-line comments go too.

    >>> print(used_only("fn a() -> u32 { return 1u; }\\nfn b() -> u32 { return a(); }\\nfn c() {}\\n"
    ...                 "@compute @workgroup_size(1)\\nfn main() { let x = b(); }"))
    fn a() -> u32 { return 1u; }
    fn b() -> u32 { return a(); }
    @compute @workgroup_size(1)
    fn main() { let x = b(); }
    """
    spans = _function_spans(source)
    if not spans:
        return source
    bodies = {name: source[start:end] for name, start, end in spans}
    rest, at = [], 0
    for _, start, end in spans:
        rest.append(source[at:start])
        at = end
    rest.append(source[at:])
    wanted, todo = set(), [w for w in _WORD.findall("".join(rest)) if w in bodies]
    while todo:
        name = todo.pop()
        if name in wanted:
            continue
        wanted.add(name)
        todo += [w for w in _WORD.findall(bodies[name].split("(", 1)[1]) if w in bodies and w not in wanted]
    out, at = [], 0
    for name, start, end in spans:
        out.append(source[at:start])
        if name in wanted:
            out.append(source[start:end])
        at = end + (1 if name not in wanted and source[end:end + 1] == "\n" else 0)
    out.append(source[at:])
    return _COMMENT_LINE.sub("", "".join(out))
