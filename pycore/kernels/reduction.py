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
[('reduce:sum:f32[1|1]:16x16:f32', (128, 1, 1)), ('reduce:sum:f32[1|1]:16x16:f32', (16, 1, 1))]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from pycore.array.layout import Layout, collapse
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
    walk_lines,
    wgsl_type,
    word_of,
)
from pycore.kernels.wgsl import used_only, wgsl_template, wgsl_typed

F32 = np.dtype(np.float32)
BOOL = np.dtype(np.bool_)
GPU_GROUPS = 4096  # workgroups a reduction aims to keep busy on a GPU (split when fewer)
CPU_GROUPS = 256  # ... on a CPU adapter
MIN_SEGMENT = 512  # reduced elements a segment covers at least (shorter ones are not worth a pass)


@dataclass(frozen=True)
class Combine:
    """A reduction's declaration for the generator."""

    function: str  # `<function>_<type>` in shaders/reductions.wgsl
    acc: np.dtype  # the accumulator's dtype (inputs are converted to it)
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
            emit_pairs: bool = False, words: bool = False) -> Kernel:
    """The kernel of one pass. An arg reduction's pass that writes partials (`emit_pairs`) writes
    each partial's value to `out` and its index to binding 3; a pass over such partials
    (`c.pairs`) reads the indices from binding 3. `words`: a 16-bit input read a word (two
    neighbouring reduced elements) at a time, its layout in words (`_in_words`)."""
    acc_t = wgsl_type(c.acc)
    fn = f"{c.function}_{'u32' if c.acc == BOOL else acc_t}"
    kept_at = 7
    red_at = kept_at + 2 * kept_rank
    n_words = red_at + 2 * red_rank
    kept = walk_lines("ko", "oc", kept_rank, kept_at, [("base", kept_at + kept_rank)])
    reduced = ["    var off = base;", *walk_lines("rr", "r", red_rank, red_at, [("off", red_at + red_rank)])]
    src_dt = np.dtype(src)
    loaded = load_packed("src", "u32(off)", src_dt) if packed(src_dt) else "src[u32(off)]"
    value = convert_scalar(loaded, src_dt, c.acc)
    if words:  # both halves of the word, combined (a sum of squared deviations: both squares)
        reduced.append("    let w = src[u32(off)];")
        if src_dt.kind == "f":
            reduced.append("    let h = unpack2x16float(w);")
            halves = ["h.x", "h.y"]
        else:
            word = "bitcast<i32>(w)" if src_dt.kind == "i" else "w"
            halves = [f"extractBits({word}, {b}u, 16u)" for b in (0, 16)]
        lo, hi = (convert_scalar(e, src_dt, c.acc) for e in halves)
        if c.centered:
            reduced += [f"    let d0 = {lo} - center[oc];", f"    let d1 = {hi} - center[oc];"]
            value = "d0 * d0 + d1 * d1"
        else:
            value = f"{fn}({lo}, {hi})"
    elif c.centered:
        reduced.append(f"    let dev = {value} - center[oc];")
        value = "dev * dev"
    index = ["    return r;"]
    if c.pairs:  # the element's index is the partial's, stored beside it
        index = [*reduced, "    return idx[u32(off)];"]
    reduced.append(f"    return {value};")
    if c.arg:
        step = f"        if ({fn}(v, vi, x, r)) {{ v = x; vi = r; }}"
        merge = (
            f"    if ({fn}(v, vi, w, wi)) {{ return vec2<u32>(bitcast<u32>(w), wi); }}\n"
            f"    return vec2<u32>(bitcast<u32>(v), vi);"
        )
        finish = "total" if emit_pairs else "i32(total_i)"
    else:
        step = f"        v = {fn}(v, x);"
        if c.kahan:  # compensated while finite (an overflow to inf must stay inf, not turn NaN)
            step = (
                "        let yk = x - comp;\n        let tk = v + yk;\n"
                "        comp = select(0.0, (tk - v) - yk, is_finite(tk));\n        v = tk;"
            )
        merge = f"    return vec2<u32>(bitcast<u32>({fn}(v, w)), 0u);"
        finish = {
            "": "total",
            "scale": "total * bitcast<f32>(word(6u))",
            "sqrt": "sqrt(total * bitcast<f32>(word(6u)))",
        }[c.finish]
        finish = convert_scalar(finish, c.acc, np.dtype(out)) if not c.finish else finish
    # four loads in flight per thread, then the four steps (the last ones guarded): in order into
    # one accumulator, or for an arg reduction into four independent (value, index) pairs merged
    # at the end (its combine compares indices, so the order does not matter)
    loop = []
    if c.arg:
        loop += [f"    var v{j} = v;\n    var vi{j} = vi;" for j in range(1, 4)]
    loop.append("    for (var r0 = r_lo + lid.y; r0 < r_hi; r0 = r0 + 4u * RY) {")
    for j in range(1, 4):
        loop.append(f"        let r{j} = r0 + {j}u * RY;")
    loop.append("        let x0 = value(r0, base, oc);")
    for j in range(1, 4):
        loop.append(f"        let x{j} = value(min(r{j}, r_hi - 1u), base, oc);")
    for j in range(4):
        body = step.replace("        ", "            ")
        if c.arg:
            acc, acc_i = ("v", "vi") if j == 0 else (f"v{j}", f"vi{j}")
            at = f"index(r{j}, base, oc)" if c.pairs else f"r{j}"
            body = (f"            let i{j} = {at};\n"
                    f"            if ({fn}({acc}, {acc_i}, x{j}, i{j})) {{ {acc} = x{j}; {acc_i} = i{j}; }}")
        body = body.replace("(v, x)", f"(v, x{j})").replace("x - comp", f"x{j} - comp")
        loop += [f"        if (r{j} < r_hi) {{" if j else "        {", body, "        }"]
    loop.append("    }")
    if c.arg:
        for j in range(1, 4):
            loop += [f"    let m{j} = merge(v, vi, v{j}, vi{j});",
                     f"    v = bitcast<{acc_t}>(m{j}.x);", f"    vi = m{j}.y;"]
    center = "@group(0) @binding(3) var<storage, read> center: array<f32>;" if c.centered else ""
    if c.pairs:
        center = "@group(0) @binding(3) var<storage, read> idx: array<u32>;"
    if emit_pairs:
        center += f"\n@group(0) @binding({4 if c.pairs else 3}) var<storage, read_write> out_i: array<u32>;"
    store = "out_i[segment * n_out + o] = total_i;" if emit_pairs else ""
    name = (
        f"reduce:{c.function}{'~' if c.centered else ''}{'+i' if c.pairs else ''}{'>i' if emit_pairs else ''}"
        f"{c.finish and ':' + c.finish}:"
        f"{src if packed(src_dt) else wgsl_type(src_dt)}{'/words' if words else ''}"
        f"[{kept_rank}|{red_rank}]:{ox}x{ry}:{wgsl_type(np.dtype(out))}"
    )
    if c.acc == BOOL:
        name += ":bool"

    def source() -> str:
        filled = (
            wgsl_template("reduction")
            .replace("{{src_type}}", "u32" if packed(src_dt) else wgsl_type(src_dt))
            .replace("{{out_type}}", wgsl_type(np.dtype(out)))
            .replace("{{acc_type}}", acc_t)
            .replace("{{meta_vec4s}}", str(-(-n_words // 4)))
            .replace("{{center_binding}}", center)
            .replace("{{ox}}", str(ox))
            .replace("{{ry}}", str(ry))
            .replace("{{threads}}", str(ox * ry))
            .replace("{{merge}}", merge)
            .replace("{{kept}}", "\n".join(kept))
            .replace("{{reduced}}", "\n".join(reduced))
            .replace("{{index}}", "\n".join(index))
            .replace("{{store_index}}", store)
            .replace("{{loop}}", "\n".join(loop))
            .replace("{{finish}}", finish)
        )
        return used_only("\n".join([wgsl_template("common"), wgsl_typed("reductions"), filled]))

    bindings = ("read", "write", "uniform") + (("read",) if c.centered or c.pairs else ())
    if emit_pairs:
        bindings = (*bindings, "write")
    return Kernel(name, "reduce_axes", bindings, source)


def _pow2_at_most(n: int, cap: int) -> int:
    p = 1
    while p * 2 <= min(n, cap):
        p *= 2
    return p


def _shape_of_group(n_out: int, n_red: int, red_stride: int, facts: Facts) -> tuple[int, int]:
    """(OX, RY): outputs per workgroup and threads per output."""
    threads = 64 if facts.cpu_adapter else 256
    if facts.cpu_adapter:  # barriers cost a context switch per thread: a thread per output
        return _pow2_at_most(max(n_out, 1), threads), 1
    if abs(red_stride) == 1 and n_red >= 32:  # contiguous rows: a workgroup (or a part of one) per row
        ry = _pow2_at_most(n_red, threads)
        return threads // ry, ry
    ox = _pow2_at_most(max(n_out, 1), 64 if n_out >= 64 * 64 else 16)  # columns: outputs side by side
    return ox, threads // ox


def plan_reduction(
    c: Combine,
    layout: Layout,
    axes: tuple[int, ...],
    src: np.dtype,
    facts: Facts,
    out: np.dtype | None = None,
    name: str = "reduce",
    count: int | None = None,
) -> Plan:
    """The plan reducing `layout`'s `axes` (sorted, distinct) with `c`; its output is C-ordered
    over the kept axes (a reshape gives keepdims). `out`: the result's dtype (default: the
    accumulator's; int32 for an arg reduction). Slot ("tmp", k) are the partials of split passes;
    a centered reduction binds its centers as input 1. `count`: the elements each output reduces,
    for the final scale (a pass over partials is given the original count)."""
    out = out or (np.dtype(np.int32) if c.arg else c.acc)
    as_words = _in_words(c, layout, axes, src)
    if as_words is not None:  # (the scale counts elements, not words)
        count = count or math.prod(layout.shape[d] for d in axes)
        layout = as_words
    kept_axes = [d for d in range(layout.ndim) if d not in axes]
    kept_shape = tuple(layout.shape[d] for d in kept_axes)
    red_shape = tuple(layout.shape[d] for d in axes)
    n_out, n_red = math.prod(kept_shape), math.prod(red_shape)
    if n_out == 0 or n_red == 0:
        raise ValueError(f"{name}: nothing to reduce on the GPU (the NumPy path answers empty inputs)")
    k_dims, (k_strides,) = collapse(kept_shape, [tuple(layout.strides[d] for d in kept_axes)])
    r_dims, (r_strides,) = collapse(red_shape, [tuple(layout.strides[d] for d in axes)])
    if n_out == 1:
        k_dims, k_strides = (), ()
    ox, ry = _shape_of_group(n_out, n_red, r_strides[-1], facts)
    blocks = -(-n_out // ox)
    target = CPU_GROUPS if facts.cpu_adapter else GPU_GROUPS
    segments = 1
    if blocks < target and n_red >= 2 * MIN_SEGMENT:  # (within the grid the device can launch)
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
    kernel = _kernel(first, src.name, (c.acc if split else out).name, len(k_dims), len(r_dims), ox, ry,
                     pairs_out, as_words is not None)
    identity = word_of(c.identity, c.acc)
    words = [
        n_out,
        n_red,
        seg_len,
        blocks,
        i32_word(layout.offset),
        identity,
        scale,
        *k_dims,
        *[i32_word(s) for s in k_strides],
        *r_dims,
        *[i32_word(s) for s in r_strides],
    ]
    steps = []
    slots: tuple[Slot, ...] = (Slot("in", 0), Slot("tmp", 0) if split else Slot("out", 0), Slot("meta"))
    if c.centered or c.pairs:
        slots = (*slots, Slot("in", 1))
    if pairs_out:
        slots = (*slots, Slot("tmp", 1))
    steps.append(Step(kernel, slots, tuple(words), grid_for(blocks * segments, facts.max_groups)))
    scratch = []
    if split:  # partials (segments, n_out), C order (and their indices): combine over axis 0
        scratch += [4 * segments * n_out] * (2 if pairs_out else 1)
        rest = plan_reduction(
            Combine(c.function, c.acc, c.identity, c.arg, c.finish, False, c.correction, pairs=c.arg),
            Layout.contiguous((segments, n_out)),
            (0,),
            c.acc,
            facts,
            out,
            name,
            count or n_red,
        )
        for step in rest.steps:
            assert isinstance(step, Step)  # (a reduction's plan has no copies)
            steps.append(
                Step(step.kernel, tuple(_shift(s, len(scratch)) for s in step.slots), step.words, step.grid)
            )
        scratch.extend(rest.scratch)
    return Plan(tuple(steps), (Output(kept_shape, out),), tuple(scratch))


def _in_words(c: Combine, layout: Layout, axes: tuple[int, ...], src: np.dtype) -> Layout | None:
    """A 16-bit input's layout in u32 words, where a reduction can read two reduced elements per
    load: the last axis is reduced, contiguous and of even length, and every other stride and
    the offset are even (so each word holds two of one output's elements, in order). None
    otherwise, and for arg reductions (their indices are elements').

    >>> f16 = np.dtype("float16")
    >>> _in_words(Combine("sum", F32, 0.0), Layout.contiguous((3, 8)), (1,), f16)
    Layout(shape=(3, 4), strides=(4, 1), offset=0)
    """
    if not (packed(src) and src.itemsize == 2) or c.arg or c.function not in ("sum", "prod", "max", "min"):
        return None
    last = layout.ndim - 1
    if last < 0 or last not in axes or layout.strides[last] != 1 or layout.shape[last] % 2:
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
