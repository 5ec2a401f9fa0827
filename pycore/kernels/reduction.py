"""The reduction generator and planner: one kernel template (shaders/reduction.wgsl) for every
reduction over any axes of an n-d input read through its strides, from a `Combine` declaration:
how two partials combine (a function of shaders/reductions.wgsl), the accumulator's dtype and
identity, whether it is an arg reduction (value and index), whether float sums are compensated
(Kahan), and how the total is finished (a scale for mean and var, a square root for std).

`plan_reduction` picks the workgroup's shape from the layout (a workgroup per contiguous row, or
neighbouring outputs side by side for columns), splits long reductions with few outputs into
segments and adds passes that combine the segments' partials, and keeps every thread's loop within
the adapter's loop cap. var and std are two reductions: the mean, then the compensated sum of
squared deviations from it (`center`), which is stable where the textbook one-pass formula is not.

>>> from pycore.array.layout import Layout
>>> f32 = np.dtype("float32")
>>> p = plan_reduction(Combine("sum", f32, 0.0), Layout.contiguous((4096, 256)), (0,), f32, Facts())
>>> [(s.kernel.name, s.grid) for s in p.steps]
[('reduce:sum:f32/8[1|1]:16x16:f32', (128, 1, 1)), ('reduce:sum:f32/8[1|1]:16x16:f32', (16, 1, 1))]

complex64 products keep a complex accumulator (a vec2<f32>, `prod_c64`); complex sums reduce the
float32 pairs of the values (the caller's view):

>>> c64 = np.dtype("complex64")
>>> p = plan_reduction(Combine("prod", c64, 1), Layout.contiguous((8, 5000)), (1,), c64, Facts())
>>> [(s.kernel.name, s.grid) for s in p.steps], p.scratch
([('reduce:prod:c64[1|1]:1x256:c64', (72, 1, 1)), ('reduce:prod:c64[1|1]:8x32:c64', (1, 1, 1))], (576,))
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from pycore.array.layout import Layout, collapse
from pycore.kernels.elementwise import Expr, convert, nested, program_lines, scalar_vec4
from pycore.kernels.plan import (
    Facts,
    Kernel,
    Output,
    Plan,
    Slot,
    Step,
    convert_scalar,
    grid_for,
    i32_word,
    load_packed,
    packed,
    value_type,
    walk_lines,
    wgsl_type,
    word_of,
)
from pycore.kernels.wgsl import used_only, wgsl_functions, wgsl_template, wgsl_typed

F32 = np.dtype(np.float32)
BOOL = np.dtype(np.bool_)
C64 = np.dtype(np.complex64)
GPU_GROUPS = 4096  # workgroups a reduction aims to keep busy on a GPU (split when fewer)
CPU_GROUPS = 256  # ... on a CPU adapter
# ... an arg reduction (its partials cost a (value, index) pass; an H200 ran argmax over both axes
# of 4096² 1.3-1.4x faster with 1024 than with 4096, of 8192² 1.07x)
ARG_GROUPS = 1024
# ... a reduction to one value (its pass over partials then reads four a thread, not sixteen: an H200
# ran max over both axes of 4096² 1.06x faster with 1024 than with 4096, of 8192² as fast)
WHOLE_GROUPS = 1024
ARG_ROW = 64  # threads an arg reduction gives a contiguous row on a GPU, with rows to fill a workgroup
MIN_SEGMENT = 512  # reduced elements a segment covers at least (shorter ones are not worth a pass)
# loads a thread keeps in flight, by the bytes of an element read one a load (else 4): 8 for 8-bit
# elements (an H200 summed int8 columns 1.09x faster; float16 columns ran as fast with 4, and
# slower with 16)
LANES = {1: 8}
# ... for 32-bit numbers on a GPU (an H200, float32 sum and max of 4096²: rows 1.06-1.20x,
# columns 1.19-1.24x faster; 8192²: rows 1.04-1.10x, columns 1.00-1.04x; argmax along columns
# 1.15x and 1.05x, along rows the same; 16 no better than 8)
WIDE_LANES = 8
# ... and by the reduction, for a 16-bit input read a word at a time (`_in_words`; else 4): 8 (each
# step waits on the last: an H200 summed float16 rows of 8192 1.64x float32's elements per second
# with 4, 1.86-1.93x with 8; max and min, their NaN in a flag (`_nan_flagged`), 1.70-1.75x with 4,
# 1.87-1.93x with 8)
WORD_LANES = {"sum": 8, "max": 8, "min": 8}


@dataclass(frozen=True)
class Combine:
    """A reduction's declaration for the generator."""

    function: str  # `<function>_<type>` in shaders/reductions.wgsl
    acc: np.dtype  # the accumulator's dtype (inputs are converted to it; complex64: prod of complex64)
    identity: float | int | bool  # combine(identity, x) == x
    arg: bool = False  # argmax/argmin: the result is the index (int32)
    finish: str = ""  # "" | "scale" (mean, var) | "sqrt" (std: square root of the scaled total)
    centered: bool = False  # sum of (x - center[output])^2 (var's second pass)
    correction: float = 0.0  # the scale is 1 / (count - correction) (var's ddof)
    pairs: bool = False  # an arg reduction over partial results: each value's index is input 1's

    @property
    def kahan(self) -> bool:
        return self.function == "sum" and self.acc == F32


@cache
def _kernel(c: Combine, src: str, out: str, kept_rank: int, red_rank: int, ox: int, ry: int,
            emit_pairs: bool = False, words: bool = False, prologue: tuple | None = None, lanes: int = 4,
            columns: bool = False, flagged: bool = False) -> Kernel:
    """The kernel of one pass. An arg reduction's pass that writes partials (`emit_pairs`) writes
    each partial's value to `out` and its index to binding 3; a pass over such partials
    (`c.pairs`) reads the indices from binding 3. `words`: a 16-bit input read a word (two
    neighbouring reduced elements) at a time, its layout in words (`_in_words`). `prologue`: the
    reduced values are an element-wise expression (`Expr.program`, `Expr.specs`) of inputs read
    through their own strides (`_prologue_parts`), `src` its result's dtype. `lanes`: the loads
    each thread has in flight (4; more for a plain reduction of 8-bit elements, LANES). `columns`:
    a 16-bit input whose reduced elements are read a word at a time, two neighbouring outputs' each
    (`_column_words`): a thread computes both, its accumulator a vec2, and writes two outputs.
    `flagged`: a max or min that keeps NaN in a flag (`_nan_flagged`)."""
    pair = c.acc == C64  # (a complex64 product: each value a vec2 (re, im), written as two float32s)
    acc_t = "vec2<f32>" if pair else wgsl_type(c.acc)
    fn = f"{c.function}_{'u32' if c.acc == BOOL else 'c64' if pair else acc_t}"
    one_fn, one_t = fn, acc_t
    if columns:  # (each function applied to both lanes)
        acc_t, fn = f"vec2<{acc_t}>", f"{fn}_2"
    out_t = "f32" if np.dtype(out) == C64 else wgsl_type(np.dtype(out))
    src_dt = np.dtype(src)
    center = "@group(0) @binding(3) var<storage, read> center: array<f32>;" if c.centered else ""
    if c.pairs:
        center = "@group(0) @binding(3) var<storage, read> idx: array<u32>;"
    if emit_pairs:
        center += f"\n@group(0) @binding({4 if c.pairs else 3}) var<storage, read_write> out_i: array<u32>;"
    fixed = 3 + bool(c.centered or c.pairs) + emit_pairs  # (bindings before a prologue's other inputs)
    lanes = lanes if prologue is None and not c.pairs else 4
    # an arg reduction's float values: NaN in the flag (`seen`), the thread's first NaN found again
    # after the loop where it is set
    scan = c.arg and not c.pairs and c.acc.kind == "f"
    flagged = flagged or (scan and prologue is None)
    if columns:
        inputs, kept, value, loads, n_words, shown = _column_input(c, src_dt, kept_rank, red_rank, lanes,
                                                                   flagged)
    elif prologue is None:
        inputs, kept, value, loads, n_words, shown = _one_input(c, src_dt, kept_rank, red_rank, words, lanes,
                                                                flagged)
    else:
        inputs, kept, value, loads, n_words, shown = _prologue_parts(c, prologue, kept_rank, red_rank, fixed)
    index = ["    return r;"]
    if c.pairs:  # the element's index is the partial's, stored beside it
        index = ["    var off = base;", *walk_lines("rr", "r", red_rank, 7 + 2 * kept_rank,
                                                      [("off", 7 + 2 * kept_rank + red_rank)]),
                 "    return idx[u32(off)];"]
    if c.arg:
        step = f"        if ({fn}(v, vi, x, r)) {{ v = x; vi = r; }}"
        merge = (
            f"    if ({fn}(v, vi, w, wi)) {{ return vec2<u32>(bitcast<u32>(w), wi); }}\n"
            f"    return vec2<u32>(bitcast<u32>(v), vi);"
        )
        finish = "total" if emit_pairs else "i32(total_i)"
    else:
        step = f"        v = {fn}(v, x);"
        if flagged:  # (NaN is in the flag: the hardware's max or min, which may drop it, is enough)
            step = f"        v = {c.function}(v, x);"
        if c.kahan:  # compensated while finite (an overflow to inf must stay inf, not turn NaN)
            zero, finite = ("vec2<f32>(0.0)", "finite_2") if columns else ("0.0", "is_finite")
            step = (
                "        let yk = x - comp;\n        let tk = v + yk;\n"
                f"        comp = select({zero}, (tk - v) - yk, {finite}(tk));\n        v = tk;"
            )
        merge = f"    return vec2<u32>(bitcast<u32>({fn}(v, w)), 0u);"
        if columns or pair:
            merge = f"    return bitcast<vec2<u32>>({fn}(v, w));"
        finish = {
            "": "total",
            "scale": "total * bitcast<f32>(word(6u))",
            "sqrt": "sqrt(total * bitcast<f32>(word(6u)))",
        }[c.finish]
        finish = convert_scalar(finish, c.acc, np.dtype(out)) if not c.finish else finish
    # `lanes` (four or eight) loads in flight per thread, then as many steps (the last ones guarded): in
    # order into one accumulator, or for an arg reduction into four independent (value, index)
    # pairs merged at the end (its combine compares indices, so the order does not matter); each
    # pair sees its elements' indices rising from its first (`_arg_firsts`), so its step is a plain
    # comparison, NaN kept apart (a pass over partials, whose indices are stored, takes the full
    # combine)
    loop = ["    var seen = 0u;"] if flagged or scan else []
    if c.arg:
        loop += [f"    var v{j} = v;\n    var vi{j} = vi;" for j in range(1, 4)]
    if c.arg and not c.pairs:
        loop += _arg_firsts()
    loop.append(f"    for (var r0 = r_lo + lid.y; r0 < r_hi; r0 = r0 + {lanes}u * RY) {{")
    for j in range(1, lanes):
        loop.append(f"        let r{j} = r0 + {j}u * RY;")
    loop += loads
    if scan and prologue is not None:
        loop += ["        let bits = bitcast<vec4<u32>>(xs) & vec4<u32>(0x7fffffffu);",
                 "        seen = max(seen, max(max(bits.x, bits.y), max(bits.z, bits.w)));"]
    for j in range(lanes):
        body = step.replace("        ", "            ")
        if c.arg:
            acc, acc_i = ("v", "vi") if j % 4 == 0 else (f"v{j % 4}", f"vi{j % 4}")  # (load j % 4's pair)
            at = f"index(r{j}, base, oc)" if c.pairs else f"r{j}"
            test = (f"{fn}({acc}, {acc_i}, x{j}, i{j})" if c.pairs  # (a partial's index may be any)
                    else f"x{j} {'>' if c.function == 'argmax' else '<'} {acc}")
            body = (f"            let i{j} = {at};\n"
                    f"            if ({test}) {{ {acc} = x{j}; {acc_i} = i{j}; }}")
        body = body.replace("(v, x)", f"(v, x{j})").replace("x - comp", f"x{j} - comp")
        loop += [f"        if (r{j} < r_hi) {{" if j else "        {", body, "        }"]
    loop.append("    }")
    if flagged and not c.arg and src_dt == F32:  # (seen: the largest magnitude's bits, past inf's for NaN)
        loop.append("    if (seen > 0x7f800000u) { v = bitcast<f32>(seen); }")
    elif flagged and not c.arg:  # (an arg reduction's scan, below, finds its NaN's index)
        nan = "bitcast<f32>(0x7fc00000u | seen)"  # (a NaN; a constant one is refused by some compilers)
        loop += [f"    if ((seen & 0x80008000u) != 0u) {{ v = {nan}; }}"] if not columns else [
            f"    if ((seen & 0x8000u) != 0u) {{ v.x = {nan}; }}",
            f"    if ((seen & 0x80000000u) != 0u) {{ v.y = {nan}; }}"]
    if c.arg:
        for j in range(1, 4):
            loop += [f"    let m{j} = merge(v, vi, v{j}, vi{j});",
                     f"    v = bitcast<{acc_t}>(m{j}.x);", f"    vi = m{j}.y;"]
    if scan:  # (the flag may also have seen the segment's last element, another thread's: then none)
        again = "value(r, r, r, r, " + ", ".join(f"base{j}" for j in range(_arrays(prologue))) + ", oc).x" \
            if prologue is not None else f"value(r, base, oc{', &seen' if flagged else ''})"
        loop += ["    if (seen > 0x7f800000u) {",
                 "        for (var r = r_lo + lid.y; r < r_hi; r = r + RY) {",
                 f"            let x = {again};",
                 "            if (is_nan(x)) { v = x; vi = r; break; }",
                 "        }", "    }"]
    store = f"out[segment * n_out + o] = {finish};"
    if columns or pair:  # (outputs 2o and 2o + 1 of the 2 n_out; a complex output's two parts)
        at = "segment * 2u * n_out + 2u * o"
        store = (f"out[{at}] = {finish.replace('total', 'total.x')};\n"
                 f"        out[{at} + 1u] = {finish.replace('total', 'total.y')};")
    store_index = "out_i[segment * n_out + o] = total_i;" if emit_pairs else ""
    name = (
        f"reduce:{c.function}{'~' if c.centered else ''}{'+i' if c.pairs else ''}{'>i' if emit_pairs else ''}"
        f"{c.finish and ':' + c.finish}:{shown}{'/words' if words else ''}{'/columns' if columns else ''}"
        f"{f'/{lanes}' if lanes != 4 else ''}{'/nan-flag' if flagged else ''}"
        f"[{kept_rank}|{red_rank}]:{ox}x{ry}:{'c64' if pair else out_t}"
    )
    if c.acc == BOOL:
        name += ":bool"

    def source() -> str:
        filled = (
            wgsl_template("reduction")
            .replace("{{inputs}}", "\n".join(inputs))
            .replace("{{out_type}}", out_t)
            .replace("{{acc_type}}", acc_t)
            .replace("{{meta_vec4s}}", str(-(-n_words // 4)))
            .replace("{{center_binding}}", center)
            .replace("{{ox}}", str(ox))
            .replace("{{ry}}", str(ry))
            .replace("{{threads}}", str(ox * ry))
            .replace("{{merge}}", merge)
            .replace("{{merged}}", "m" if columns or pair else "m.x")
            .replace("{{identity}}", f"{acc_t}(bitcast<{one_t}>(word(5u)))" if columns
                     else "vec2<f32>(bitcast<f32>(word(5u)), 0.0)" if pair else f"bitcast<{acc_t}>(word(5u))")
            .replace("{{kept}}", "\n".join(kept))
            .replace("{{value}}", "\n".join(value))
            .replace("{{index}}", "\n".join(index))
            .replace("{{store}}", store)
            .replace("{{store_index}}", store_index)
            .replace("{{loop}}", "\n".join(loop))
        )
        libraries = [wgsl_template("common"), wgsl_typed("reductions")]
        if columns:
            both = f"{acc_t}({one_fn}(a.x, b.x), {one_fn}(a.y, b.y))"
            libraries.append(
                f"fn {fn}(a: {acc_t}, b: {acc_t}) -> {acc_t} {{ return {both}; }}\n"
                "fn finite_2(x: vec2<f32>) -> vec2<bool> {\n"
                "    return vec2<bool>(is_finite(x.x), is_finite(x.y));\n}")
        if prologue is not None:  # (what an element-wise expression may call)
            libraries += [wgsl_functions("elementwise"), wgsl_functions("binary"), wgsl_typed("ufuncs")]
        return used_only("\n".join([*libraries, filled]))

    bindings = ("read", "write", "uniform") + (("read",) if c.centered or c.pairs else ())
    if emit_pairs:
        bindings = (*bindings, "write")
    if prologue is not None:
        bindings = (*bindings, *("read",) * (sum(1 for _, scalar in prologue[1] if not scalar) - 1))
    return Kernel(name, "reduce_axes", bindings, source)


Parts = tuple[list[str], list[str], list[str], list[str], int, str]


def _arrays(prologue: tuple) -> int:
    """How many of a prologue's operands are arrays (each walked from its own base)."""
    return sum(1 for _, scalar in prologue[1] if not scalar)


def _arg_firsts() -> list[str]:
    """An arg reduction's four (value, index) pairs given their first elements' indices (r_lo +
    lid.y + j RY; none for a pair past the segment), their values the identity: the loop's step is
    then a plain comparison (indices rise within a pair: the first of equal values stays, and a
    pair whose elements all equal the identity keeps its first), a NaN found apart (`_kernel`'s
    scan)."""
    lines = []
    for j in range(4):
        at = f"r_lo + lid.y + {j}u * RY"
        lines.append(f"    {'vi' if j == 0 else f'vi{j}'} = select(0xffffffffu, {at}, {at} < r_hi);")
    return lines


def _nan_flagged(c: Combine, src: np.dtype, rows: bool, columns: bool, facts: Facts) -> bool:
    """Whether a max or min keeps NaN apart: the values combined by the hardware's max or min
    (which may drop a NaN), a flag turning the result NaN at the end. float16 words: each word's
    NaN halves found by one integer add on both (`NAN_HALVES`) and or-ed into the flag; float32:
    the largest magnitude's bits kept (a NaN's are past inf's). Half the operations of the
    NaN-propagating combine per element: an H200 ran float16 max at 1.23-1.50x float32's elements
    per second without it (bound by those operations), at 1.73-2.33x with it (rows with 8 loads in
    flight). float32 on GPU adapters only; float16 columns not on a CPU adapter (lavapipe ran them
    2.8x slower)."""
    if c.arg or c.function not in ("max", "min") or (facts.cpu_adapter and not rows):
        return False
    return ((rows or columns) and src == np.dtype(np.float16)) or (src == F32 and not facts.cpu_adapter)


# a word's two float16 halves with a NaN among them: a half's magnitude above 0x7c00 (inf) passes
# 0x7fff when 0x03ff is added, setting the half's top bit (no carry leaves the half)
NAN_HALVES = "(((w & 0x7fff7fffu) + 0x03ff03ffu) & 0x80008000u)"


def _one_input(c: Combine, src_dt: np.dtype, kept_rank: int, red_rank: int, words: bool, lanes: int = 4,
               flagged: bool = False) -> Parts:
    """A pass reading one input (`src`) through its strides: (declarations, the kept axes' walk,
    the value function, the loop's loads, uniform words, the input's name in the kernel's).
    `flagged`: a max or min of float16 words whose NaNs go to the loop's flag (`_nan_flagged`)."""
    kept_at = 7
    red_at = kept_at + 2 * kept_rank
    n_words = red_at + 2 * red_rank
    kept = ["    var base = iword(4u);",
            *walk_lines("ko", "oc", kept_rank, kept_at, [("base", kept_at + kept_rank)])]
    reduced = ["    var off = base;", *walk_lines("rr", "r", red_rank, red_at, [("off", red_at + red_rank)])]
    loaded = load_packed("src", "u32(off)", src_dt) if packed(src_dt) else "src[u32(off)]"
    value = loaded if src_dt == C64 else convert_scalar(loaded, src_dt, c.acc)
    if words:  # both halves of the word, combined (a sum of squared deviations: both squares)
        fn = f"{c.function}_{'u32' if c.acc == BOOL else wgsl_type(c.acc)}"
        reduced.append("    let w = src[u32(off)];")
        if src_dt.kind == "f":
            reduced.append("    let h = unpack2x16float(w);")
            halves = ["h.x", "h.y"]
        else:
            word = "bitcast<i32>(w)" if src_dt.kind == "i" else "w"
            halves = [f"extractBits({word}, {b}u, 16u)" for b in (0, 16)]
        lo, hi = (convert_scalar(e, src_dt, c.acc) for e in halves)
        if flagged:
            reduced.append(f"    *seen = *seen | {NAN_HALVES};")
            fn = c.function
        if c.centered:
            reduced += [f"    let d0 = {lo} - center[oc];", f"    let d1 = {hi} - center[oc];"]
            value = "d0 * d0 + d1 * d1"
        else:
            value = f"{fn}({lo}, {hi})"
    elif c.centered:
        reduced.append(f"    let dev = {value} - center[oc];")
        value = "dev * dev"
    elif flagged:  # (float32: the largest magnitude's bits kept, past inf's only for a NaN)
        reduced += [f"    let x = {value};", "    *seen = max(*seen, bitcast<u32>(x) & 0x7fffffffu);"]
        value = "x"
    reduced.append(f"    return {value};")
    acc_t = "vec2<f32>" if c.acc == C64 else wgsl_type(c.acc)
    flag = ", seen: ptr<function, u32>" if flagged else ""
    fn_lines = [f"fn value(r: u32, base: i32, oc: u32{flag}) -> {acc_t} {{", *reduced, "}"]
    stored = "u32" if packed(src_dt) else "vec2<f32>" if src_dt == C64 else wgsl_type(src_dt)
    inputs = [f"@group(0) @binding(0) var<storage, read> src: array<{stored}>;"]
    shown = src_dt.name if packed(src_dt) else "c64" if src_dt == C64 else wgsl_type(src_dt)
    return inputs, kept, fn_lines, _loads(lanes, flagged), n_words, shown


def _loads(lanes: int, flagged: bool = False) -> list[str]:
    """The loop's `lanes` loads of `value` (the last ones clamped to the block's last row)."""
    flag = ", &seen" if flagged else ""
    return [f"        let x0 = value(r0, base, oc{flag});",
            *[f"        let x{j} = value(min(r{j}, r_hi - 1u), base, oc{flag});" for j in range(1, lanes)]]


def _column_input(c: Combine, src_dt: np.dtype, kept_rank: int, red_rank: int, lanes: int = 4,
                  flagged: bool = False) -> Parts:
    """As `_one_input`, for a 16-bit input read a word (two neighbouring outputs' elements) at a
    time: the value is both halves, as a vec2 of the accumulator's type (`_kernel`'s columns)."""
    kept_at = 7
    red_at = kept_at + 2 * kept_rank
    n_words = red_at + 2 * red_rank
    acc_t = wgsl_type(c.acc)
    kept = ["    var base = iword(4u);",
            *walk_lines("ko", "oc", kept_rank, kept_at, [("base", kept_at + kept_rank)])]
    reduced = ["    var off = base;", *walk_lines("rr", "r", red_rank, red_at, [("off", red_at + red_rank)]),
               "    let w = src[u32(off)];"]
    if src_dt.kind == "f":
        halves = ["h.x", "h.y"]
        reduced.append("    let h = unpack2x16float(w);")
    else:
        word = "bitcast<i32>(w)" if src_dt.kind == "i" else "w"
        halves = [f"extractBits({word}, {b}u, 16u)" for b in (0, 16)]
    value = f"vec2<{acc_t}>({', '.join(convert_scalar(e, src_dt, c.acc) for e in halves)})"
    if flagged:
        reduced.append(f"    *seen = *seen | {NAN_HALVES};")
    if c.centered:  # (output oc's pair of centers)
        reduced.append(f"    let dev = {value} - vec2<f32>(center[2u * oc], center[2u * oc + 1u]);")
        value = "dev * dev"
    reduced.append(f"    return {value};")
    flag = ", seen: ptr<function, u32>" if flagged else ""
    fn_lines = [f"fn value(r: u32, base: i32, oc: u32{flag}) -> vec2<{acc_t}> {{", *reduced, "}"]
    inputs = ["@group(0) @binding(0) var<storage, read> src: array<u32>;"]
    return inputs, kept, fn_lines, _loads(lanes, flagged), n_words, src_dt.name


def _prologue_parts(c: Combine, prologue: tuple, kept_rank: int, red_rank: int, fixed: int) -> Parts:
    """A pass whose reduced values are an element-wise expression (see `_kernel`): each array input
    walked through its own strides, the expression evaluated on four elements at once (a vec4, as
    the element-wise kernels do). Words: 0-6 as a one-input pass's (4 unused), then each input's
    offset, the kept shape, each input's kept strides, the reduced shape, each input's reduced
    strides, the scalars' bits and the calls' parameters (`Expr.fixed_words`)."""
    program, specs = prologue
    arrays = [k for k, (_, scalar) in enumerate(specs) if not scalar]
    n_arr = len(arrays)
    kept_at = 7 + n_arr
    kept_strides = kept_at + kept_rank
    red_at = kept_strides + n_arr * kept_rank
    red_strides = red_at + red_rank
    scalar_at = red_strides + n_arr * red_rank
    param_at = scalar_at + sum(1 for _, scalar in specs if scalar)
    n_words = param_at + sum(call[5] for call in program)
    acc_t = wgsl_type(c.acc)
    bases = [f"base{j}" for j in range(n_arr)]
    kept = [f"    var base{j} = iword({7 + j}u);" for j in range(n_arr)]
    kept += walk_lines("ko", "oc", kept_rank, kept_at,
                       [(f"base{j}", kept_strides + j * kept_rank) for j in range(n_arr)])
    params = ", ".join([*(f"r{lane}: u32" for lane in range(4)), *(f"{b}: i32" for b in bases), "oc: u32"])
    body: list[str] = []
    for lane in range(4):
        body += [f"    var off{j}_{lane} = base{j};" for j in range(n_arr)]
        body += walk_lines(f"rr{lane}", f"r{lane}", red_rank, red_at,
                           [(f"off{j}_{lane}", red_strides + j * red_rank) for j in range(n_arr)])
    inputs, values, dtypes = [], [], []
    scalar_k = 0
    for k, (name, scalar) in enumerate(specs):
        dt = np.dtype(name)
        dtypes.append(dt)
        t = value_type(dt)
        if scalar:
            values.append(scalar_vec4(dt, scalar_at + scalar_k))
            scalar_k += 1
            continue
        j = arrays.index(k)
        binding = 0 if j == 0 else fixed + j - 1
        inputs.append(f"@group(0) @binding({binding}) var<storage, read> in{j}: "
                      f"array<{'u32' if packed(dt) else t}>;")
        lanes = [load_packed(f"in{j}", f"u32(off{j}_{lane})", dt) if packed(dt)
                 else f"in{j}[u32(off{j}_{lane})]" for lane in range(4)]
        body.append(f"    let a{k} = vec4<{t}>({', '.join(lanes)});")
        values.append(f"a{k}")
    body += program_lines(program, dtypes, values, param_at)
    result = convert(f"v{len(program) - 1}", np.dtype(program[-1][4]), c.acc)
    if c.centered:
        body += [f"    let dev = {result} - vec4<f32>(center[oc]);", "    return dev * dev;"]
    else:
        body.append(f"    return {result};")
    fn_lines = [f"fn value({params}) -> vec4<{acc_t}> {{", *body, "}"]
    at = ", ".join(["r0", *(f"min(r{j}, r_hi - 1u)" for j in range(1, 4)), *bases, "oc"])
    loads = [f"        let xs = value({at});", *[f"        let x{j} = xs[{j}];" for j in range(4)]]
    marks = [f"x{k}:{name if packed(np.dtype(name)) else wgsl_type(np.dtype(name))}{'' if scalar else '[a]'}"
             for k, (name, scalar) in enumerate(specs)]
    shown = nested([(call[0], call[1], call[5]) for call in program], marks)
    return inputs, kept, fn_lines, loads, n_words, shown


def _pow2_at_most(n: int, cap: int) -> int:
    p = 1
    while p * 2 <= min(n, cap):
        p *= 2
    return p


def _shape_of_group(n_out: int, n_red: int, red_stride: int, facts: Facts, arg: bool = False
                    ) -> tuple[int, int]:
    """(OX, RY): outputs per workgroup and threads per output. `arg`: an arg reduction's first
    pass, whose tree of (value, index) partials costs more: a quarter of the workgroup per row
    where there are rows for all of it (an H200 ran argmax along the rows of 4096² 1.25x faster,
    of 8192² 1.05x)."""
    threads = 64 if facts.cpu_adapter else 256
    if facts.cpu_adapter:  # barriers cost a context switch per thread: a thread per output
        return _pow2_at_most(max(n_out, 1), threads), 1
    if abs(red_stride) == 1 and n_red >= 32:  # contiguous rows: a workgroup (or a part of one) per row
        ry = _pow2_at_most(n_red, ARG_ROW if arg and n_out >= threads // ARG_ROW else threads)
        return threads // ry, ry
    ox = _pow2_at_most(max(n_out, 1), 64 if n_out >= 64 * 64 else 16)  # columns: outputs side by side
    return ox, threads // ox


@dataclass(frozen=True)
class Reading:
    """What a reduction plan reduces (its planner's arguments), for engine/executor.py to plan it
    again with the element-wise work that wrote its input computed in its loads (a prologue)."""

    combine: Combine
    layout: Layout
    axes: tuple[int, ...]
    src: np.dtype
    out: np.dtype | None
    name: str
    count: int | None
    prologue: Expr | None

    def planned(self, prologue: Expr, facts: Facts) -> Plan:
        """The same reduction of `prologue`'s values (an expression over the input's shape)."""
        return plan_reduction(self.combine, self.layout, self.axes, prologue.out, facts, self.out, self.name,
                              self.count, prologue)


def plan_reduction(
    c: Combine,
    layout: Layout,
    axes: tuple[int, ...],
    src: np.dtype,
    facts: Facts,
    out: np.dtype | None = None,
    name: str = "reduce",
    count: int | None = None,
    prologue: Expr | None = None,
    partials: bool = False,
) -> Plan:
    """The plan reducing `layout`'s `axes` (sorted, distinct) with `c`; its output is C-ordered
    over the kept axes (a reshape gives keepdims). `out`: the result's dtype (default: the
    accumulator's; int32 for an arg reduction). Slot ("tmp", k) are the partials of split passes;
    a centered reduction binds its centers as input 1. `count`: the elements each output reduces,
    for the final scale (a pass over partials is given the original count). `prologue`: reduce
    the values of this element-wise expression over `layout.shape` instead (of dtype `src`): its
    array operands are the plan's inputs, in order, the centers after them. `partials`: a pass
    over split passes' partials, not split again unless the loop cap asks (its few thousand
    elements a workgroup reads faster than another pass would start: an H200 reduced 4096² over
    both axes 1.1-1.2x faster in two passes than in three). The plan's `reduce` says what it
    reduces (`Reading`).

    >>> from pycore.kernels.elementwise import Call, Operand
    >>> x = Operand(F32, Layout.contiguous((64, 8)))
    >>> e = Expr((x,), (Call("multiply_f32", (0, 0), F32, F32),), (64, 8))
    >>> p = plan_reduction(Combine("sum", F32, 0.0), x.layout, (0,), F32, Facts(), prologue=e)
    >>> p.steps[0].kernel.name
    'reduce:sum:multiply_f32(x0:f32[a],x0:f32[a])[1|1]:8x32:f32'
    """
    if c.acc == C64 and (c.function != "prod" or src != C64 or prologue is not None):
        raise ValueError(f"{name}: a complex64 accumulator takes the product of complex64 elements only "
                         f"(sums reduce their float32 pairs)")
    reading = Reading(c, layout, axes, src, out, name, count, prologue)
    out = out or (np.dtype(np.int32) if c.arg else c.acc)
    as_words = _in_words(c, layout, axes, src) if prologue is None else None
    if as_words is not None:  # (the scale counts elements, not words)
        count = count or math.prod(layout.shape[d] for d in axes)
        layout = as_words
    kept_axes = [d for d in range(layout.ndim) if d not in axes]
    kept_shape = tuple(layout.shape[d] for d in kept_axes)
    n_kept = math.prod(kept_shape)  # (the outputs: n_out counts the kernel's, pairs of them in columns)
    columns = _column_words(c, layout, axes, src) if prologue is None and as_words is None else None
    if columns is not None:
        layout = columns
    walked_shape = tuple(layout.shape[d] for d in kept_axes)
    red_shape = tuple(layout.shape[d] for d in axes)
    n_out, n_red = math.prod(walked_shape), math.prod(red_shape)
    if n_out == 0 or n_red == 0:
        raise ValueError(f"{name}: nothing to reduce on the GPU (the NumPy path answers empty inputs)")
    views = [layout]
    if prologue is not None:
        views = [o.layout.broadcast_to(layout.shape) for o in prologue.operands if o.layout is not None]
    k_dims, k_each = collapse(walked_shape, [tuple(v.strides[d] for d in kept_axes) for v in views])
    r_dims, r_each = collapse(red_shape, [tuple(v.strides[d] for d in axes) for v in views])
    if n_out == 1:
        k_dims, k_each = (), [() for _ in views]
    walked = [abs(st[-1]) for st in r_each if st[-1]]  # (the widest step sets the workgroup's shape)
    ox, ry = _shape_of_group(n_out, n_red, max(walked, default=1), facts, c.arg and not c.pairs)
    blocks = -(-n_out // ox)
    target = (CPU_GROUPS if facts.cpu_adapter else ARG_GROUPS if c.arg and not c.pairs
              else WHOLE_GROUPS if n_out == 1 else GPU_GROUPS)
    segments = 1
    if blocks < target and n_red >= 2 * MIN_SEGMENT and not partials:  # (within the grid)
        segments = max(1, min(-(-target // blocks), n_red // MIN_SEGMENT, facts.max_groups ** 2 // blocks))
    if facts.loop_cap:  # each thread's loop runs segment / RY times
        segments = max(segments, -(-n_red // (ry * facts.loop_cap)))
    seg_len = -(-n_red // segments)
    segments = -(-n_red // seg_len)
    split = segments > 1
    first = Combine(c.function, c.acc, c.identity, c.arg, "" if split else c.finish, c.centered,
                    pairs=c.pairs)
    left = (count or n_red) - c.correction
    scale = word_of(1.0 / left if left > 0 else math.inf, F32) if c.finish and not split else 0
    pairs_out = split and c.arg  # a split arg reduction's partials: values, and their indices beside
    plain = packed(src) and as_words is None and prologue is None and not c.arg
    lanes = 4
    if plain or as_words is not None:
        lanes = LANES.get(src.itemsize, 4) if plain else WORD_LANES.get(c.function, 4)
    elif (prologue is None and not c.pairs and not facts.cpu_adapter and src.itemsize == 4
          and src.kind in "fiu"):
        lanes = WIDE_LANES
    flagged = prologue is None and _nan_flagged(c, src, as_words is not None, columns is not None, facts)
    kernel = _kernel(first, src.name, (c.acc if split else out).name, len(k_dims), len(r_dims), ox, ry,
                     pairs_out, as_words is not None,
                     None if prologue is None else (prologue.program, prologue.specs), lanes,
                     columns is not None, flagged)
    identity = word_of(c.identity, F32 if c.acc == C64 else c.acc)  # (a complex identity's real part)
    words = [n_out, n_red, seg_len, blocks, i32_word(layout.offset), identity, scale]
    if prologue is None:
        words += [*k_dims, *[i32_word(s) for s in k_each[0]], *r_dims, *[i32_word(s) for s in r_each[0]]]
    else:  # (each input's offset and strides; word 4 unused)
        words[4] = 0
        words += [i32_word(v.offset) for v in views]
        words += [*k_dims, *[i32_word(s) for st in k_each for s in st]]
        words += [*r_dims, *[i32_word(s) for st in r_each for s in st], *prologue.fixed_words()]
    steps = []
    slots: tuple[Slot, ...] = (Slot("in", 0), Slot("tmp", 0) if split else Slot("out", 0), Slot("meta"))
    if c.centered or c.pairs:
        slots = (*slots, Slot("in", len(views)))
    if pairs_out:
        slots = (*slots, Slot("tmp", 1))
    slots = (*slots, *[Slot("in", j) for j in range(1, len(views))])  # (a prologue's other inputs)
    steps.append(Step(kernel, slots, tuple(words), grid_for(blocks * segments, facts.max_groups)))
    scratch = []
    if split:  # partials (segments, n_kept), C order (and their indices): combine over axis 0
        scratch += [(8 if c.acc == C64 else 4) * segments * n_kept] * (2 if pairs_out else 1)
        rest = plan_reduction(
            Combine(c.function, c.acc, c.identity, c.arg, c.finish, False, c.correction, pairs=c.arg),
            Layout.contiguous((segments, n_kept)),
            (0,),
            c.acc,
            facts,
            out,
            name,
            count or n_red,
            partials=True,
        )
        for step in rest.steps:
            assert isinstance(step, Step)  # (a reduction's plan has no copies)
            steps.append(
                Step(step.kernel, tuple(_shift(s, len(scratch)) for s in step.slots), step.words, step.grid)
            )
        scratch.extend(rest.scratch)
    return Plan(tuple(steps), (Output(kept_shape, out),), tuple(scratch), reduce=reading)


def _in_words(c: Combine, layout: Layout, axes: tuple[int, ...], src: np.dtype) -> Layout | None:
    """A 16-bit input's layout in u32 words, where a reduction can read two reduced elements per
    load: the last axis is reduced (`_words`; so each word holds two of one output's elements, in
    order). None otherwise.

    >>> f16 = np.dtype("float16")
    >>> _in_words(Combine("sum", F32, 0.0), Layout.contiguous((3, 8)), (1,), f16)
    Layout(shape=(3, 4), strides=(4, 1), offset=0)
    """
    return _words(c, layout, src) if layout.ndim - 1 in axes else None


def _column_words(c: Combine, layout: Layout, axes: tuple[int, ...], src: np.dtype) -> Layout | None:
    """A 16-bit input's layout in u32 words where a thread can reduce two neighbouring outputs
    from each word it loads: the last axis is kept (`_words`). None otherwise.

    >>> f16 = np.dtype("float16")
    >>> _column_words(Combine("sum", F32, 0.0), Layout.contiguous((3, 8)), (0,), f16)
    Layout(shape=(3, 4), strides=(4, 1), offset=0)
    """
    return _words(c, layout, src) if layout.ndim and layout.ndim - 1 not in axes else None


def _words(c: Combine, layout: Layout, src: np.dtype) -> Layout | None:
    """A 16-bit input's layout in u32 words (its last axis halved), where the last axis is
    contiguous and of even length and every other stride and the offset are even; None otherwise,
    and for the reductions that read elements one by one (arg reductions: their indices are
    elements')."""
    if not (packed(src) and src.itemsize == 2) or c.arg or c.function not in ("sum", "prod", "max", "min"):
        return None
    last = layout.ndim - 1
    if last < 0 or layout.strides[last] != 1 or layout.shape[last] % 2:
        return None
    if layout.offset % 2 or any(s % 2 for d, s in enumerate(layout.strides) if d != last):
        return None
    strides = tuple(s // 2 if d != last else 1 for d, s in enumerate(layout.strides))
    return Layout((*layout.shape[:last], layout.shape[last] // 2), strides, layout.offset // 2)


def _shift(slot: Slot, taken: int) -> Slot:
    """A slot of a nested plan whose inputs are this plan's first scratch buffers (the partials,
    and an arg reduction's indices) and whose own scratch buffers come after this plan's `taken`."""
    if slot.kind == "in":
        return Slot("tmp", slot.index)
    if slot.kind == "tmp":
        return Slot("tmp", slot.index + taken)
    return slot
