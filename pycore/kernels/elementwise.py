"""The n-d element-wise generator and planner: any op whose WGSL is a vec4 function
(shaders/ufuncs.wgsl, or an activation's `<entry>_f` of elementwise.wgsl), on inputs of any
layouts and pycore dtypes, broadcast to one output shape; scalars ride in the uniform block.

`plan_elementwise` collapses the axes every operand walks contiguously (so a contiguous or
simply broadcast input needs one or two index splits per element), fills in shaders/strided.wgsl
for that rank, and splits an output larger than one binding into chunks (one step each). The
uniform words, after the count and first index of a chunk (words 0, 1): for each array input its
offset, then the collapsed shape, then for each array input its strides, then the scalars' bits.

>>> from pycore.array.layout import Layout
>>> f32 = np.dtype("float32")
>>> p = plan_elementwise("add", "add_f32", [Operand(f32, Layout.contiguous((4, 3))),
...     Operand(f32, Layout.contiguous((3,)))], f32, f32, (4, 3), Facts())
>>> [s.words for s in p.steps], p.steps[0].kernel.name
([(12, 0, 0, 0, 4, 3, 3, 1, 0, 1)], 'strided:add_f32(f32[2],f32[2])->f32')
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from ..array.layout import Layout, collapse
from ..shaders import wgsl_functions, wgsl_template, wgsl_typed
from .plan import (
    Facts,
    Kernel,
    Output,
    Plan,
    Slot,
    Step,
    grid_for,
    i32_word,
    storage_bytes,
    wgsl_type,
    word_of,
)

WORKGROUP = 256  # threads per workgroup (common.wgsl's WORKGROUP)
PER_THREAD = 4  # output elements per thread (strided.wgsl)


@dataclass(frozen=True)
class Operand:
    """An input of an element-wise op: an array (its dtype and layout) or a scalar (`value`)."""

    dtype: np.dtype
    layout: Layout | None = None  # None: a scalar
    value: Any = None


def convert(expr: str, src: np.dtype, dst: np.dtype) -> str:
    """WGSL converting a vec4 of `src` values (as stored) to `dst` values (as stored).

    >>> i32, f32 = np.dtype("int32"), np.dtype("float32")
    >>> convert("a", i32, f32), convert("a", i32, np.dtype(bool))
    ('vec4<f32>(a)', 'select(vec4<u32>(0u), vec4<u32>(1u), a != vec4<i32>(0))')
    """
    if src == dst:
        return expr
    if dst.name == "bool" and src.name == "float32":  # on the bits: NaN is nonzero (`!=` may fold it)
        bits = f"bitcast<vec4<u32>>({expr}) & vec4<u32>(0x7fffffffu)"
        return f"select(vec4<u32>(0u), vec4<u32>(1u), ({bits}) != vec4<u32>(0u))"
    if dst.name == "bool":
        zero = f"vec4<{wgsl_type(src)}>(0)"
        if src.name == "uint32":
            zero = "vec4<u32>(0u)"
        return f"select(vec4<u32>(0u), vec4<u32>(1u), {expr} != {zero})"
    target = wgsl_type(dst)
    if src.name in ("int32", "uint32") and dst.name in ("int32", "uint32"):
        return f"bitcast<vec4<{target}>>({expr})"
    return f"vec4<{target}>({expr})"


@cache
def _kernel(
    function: str,
    operands: tuple[tuple[str, bool], ...],
    compute: str,
    returns_bool: bool,
    out: str,
    rank: int,
) -> Kernel:
    """The kernel computing `function` on operands ((dtype name, is scalar), ...) converted to
    `compute`, storing `out`, over outputs of `rank` collapsed axes."""
    arrays = [k for k, (_, scalar) in enumerate(operands) if not scalar]
    n_arr = len(arrays)
    shape_at = 2 + n_arr  # words: count, first, offsets..., shape..., strides..., scalars...
    stride_at = shape_at + rank
    scalar_at = stride_at + n_arr * rank
    n_words = scalar_at + sum(1 for _, s in operands if s)
    compute_dt, out_dt = np.dtype(compute), np.dtype(out)
    inputs, declare, load, args = [], [], [], []
    if rank > 1:
        load.append("        var rem = i;")
    for d in reversed(range(1, rank)):
        load.append(f"        let c{d} = rem % word({shape_at + d}u);")
        load.append(f"        rem = rem / word({shape_at + d}u);")
    if rank > 1:
        load.append("        let c0 = rem;")
    else:
        load.append("        let c0 = i;")
    scalar_k = 0
    for k, (name, scalar) in enumerate(operands):
        dt = np.dtype(name)
        t = wgsl_type(dt)
        if scalar:
            value = f"vec4<{t}>(bitcast<{t}>(word({scalar_at + scalar_k}u)))"
            scalar_k += 1
        else:
            j = arrays.index(k)
            inputs.append(f"@group(0) @binding({j}) var<storage, read> in{j}: array<{t}>;")
            declare.append(f"    var a{k}: vec4<{t}>;")
            terms = " + ".join(f"i32(c{d}) * iword({stride_at + j * rank + d}u)" for d in range(rank))
            load.append(f"        a{k}[lane] = in{j}[u32(iword({2 + j}u) + {terms})];")
            value = f"a{k}"
        args.append(convert(value, dt, compute_dt))
    result = f"{function}({', '.join(args)})"
    if returns_bool:
        result = f"select(vec4<u32>(0u), vec4<u32>(1u), {result})"
    else:
        result = convert(result, compute_dt, out_dt)
    body = f"    let y = {result};"
    signature = ",".join(wgsl_type(np.dtype(n)) + ("" if s else f"[{rank}]") for n, s in operands)
    name = f"strided:{function}({signature})->{wgsl_type(out_dt)}"

    def source() -> str:
        filled = (
            wgsl_template("strided")
            .replace("{{inputs}}", "\n".join(inputs))
            .replace("{{out}}", str(n_arr))
            .replace("{{out_type}}", wgsl_type(out_dt))
            .replace("{{meta}}", str(n_arr + 1))
            .replace("{{meta_vec4s}}", str(-(-n_words // 4)))
            .replace("{{declare}}", "\n".join(declare))
            .replace("{{load}}", "\n".join(load))
            .replace("{{body}}", body)
        )
        return "\n".join(
            [
                wgsl_template("common"),
                wgsl_functions("elementwise"),
                wgsl_functions("binary"),
                wgsl_typed("ufuncs"),
                filled,
            ]
        )

    return Kernel(name, "strided", ("read",) * n_arr + ("write", "uniform"), source)


def plan_elementwise(
    op: str,
    function: str,
    operands: list[Operand],
    compute: np.dtype,
    out: np.dtype,
    shape: tuple[int, ...],
    facts: Facts,
    returns_bool: bool = False,
) -> Plan:
    """The plan of `function` (a vec4 WGSL function) over `operands` broadcast to `shape`, computed
    in `compute` and stored as `out` (`returns_bool`: the function returns vec4<bool>). An input
    must fit one binding; the output is written in chunks that do."""
    layouts = [o.layout for o in operands if o.layout is not None]
    for layout in layouts:
        low, high = layout.span()
        if 4 * (high - low) > facts.max_binding or 4 * high > facts.max_binding:
            raise ValueError(
                f"{op}: an input of shape {layout.shape} needs {4 * high:,} bytes in one GPU "
                f"binding, over this device's maxStorageBufferBindingSize of "
                f"{facts.max_binding:,} bytes"
            )
    views = [layout.broadcast_to(shape) for layout in layouts]
    dims, strides = collapse(shape, [v.strides for v in views])
    rank = len(dims)
    kernel = _kernel(
        function,
        tuple((o.dtype.name, o.layout is None) for o in operands),
        compute.name,
        returns_bool,
        out.name,
        rank,
    )
    fixed = (
        [v.offset for v in views]
        + list(dims)
        + [i32_word(s) for st in strides for s in st]
        + [word_of(o.value, o.dtype) for o in operands if o.layout is None]
    )
    fixed = [i32_word(w) for w in fixed]
    total = int(np.prod(shape))
    chunk = facts.max_binding // 4 // (facts.offset_align // 4) * (facts.offset_align // 4)
    steps = []
    for first in range(0, max(total, 1), chunk):
        count = min(chunk, total - first)
        groups = -(-count // (WORKGROUP * PER_THREAD))
        slots = (
            *[Slot("in", j) for j in range(len(layouts))],
            Slot("out", 0, 4 * first, 4 * count),
            Slot("meta"),
        )
        steps.append(Step(kernel, slots, (count, first, *fixed), grid_for(groups, facts.max_groups)))
    return Plan(tuple(steps), (Output(tuple(shape), out),))


__all__ = ["Operand", "convert", "plan_elementwise", "storage_bytes"]
