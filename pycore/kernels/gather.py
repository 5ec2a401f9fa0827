"""The planner of the selecting kernels (shaders/gather.wgsl): each element of a C-ordered output
computed from a few input views, each read through its own strides over the output's shape (0
along broadcast axes). The modes: "where" (condition, x1, x2) and "gather" (x read at an index
taken from an index array along one axis: take and take_along_axis). The Array API's selection
functions (pycore/calls/selection.py) are plans of one step of these (clip is element-wise:
kernels/elementwise.py).

A `View` is an input as the kernel reads it: a layout of the output's shape and the input's dtype.
`plan_select` collapses the axes every view walks contiguously and writes the words gather.wgsl
reads: the count, the output's shape, each input's offset and strides, then the mode's values.

>>> from pycore.array.layout import Layout
>>> f32 = np.dtype("float32")
>>> c = View(Layout((2, 3), (0, 0)), np.dtype(bool))  # a scalar
>>> x, y = View(Layout((2, 3), (0, 1)), f32), View(Layout((2, 3), (3, 1)), f32)  # a row, a matrix
>>> p = plan_select("where", [c, x, y], (2, 3), f32, Facts())
>>> p.steps[0].kernel.name, p.steps[0].words
('select:where(bool,float32,float32)->f32[2]', (6, 2, 3, 0, 0, 0, 0, 0, 1, 0, 3, 1))
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
    walk_lines,
    wgsl_type,
)
from pycore.kernels.wgsl import wgsl_constant, wgsl_template

WORKGROUP = wgsl_constant("WORKGROUP")
MODES = ("where", "gather")
BOOL = np.dtype(bool)


@dataclass(frozen=True)
class View:
    """An input as a selecting kernel reads it: `layout` has the output's shape (strides 0 along
    broadcast axes; a gather's x without its axis, which the index selects), `dtype` is the input's."""

    layout: Layout
    dtype: np.dtype


def _value(mode: str, srcs: tuple[str, ...], out: str, extra_at: int) -> list[str]:
    """The WGSL computing `v`, an output element, from the inputs at positions p0, p1, ..."""
    out_dt = np.dtype(out)
    loads = [f"in{k}[u32(p{k})]" for k in range(len(srcs))]
    if mode == "where":
        cond = convert_scalar(loads[0], np.dtype(srcs[0]), BOOL)
        a, b = (convert_scalar(loads[k], np.dtype(srcs[k]), out_dt) for k in (1, 2))
        return [f"    var v = select({b}, {a}, {cond} != 0u);"]
    if mode == "gather":
        n, stride = f"iword({extra_at}u)", f"iword({extra_at + 1}u)"
        if srcs[1] == "uint32":
            j = [f"    let j = i32(min({loads[1]}, u32({n}) - 1u));"]
        else:
            j = [
                f"    var j = {loads[1]};",
                f"    if (j < 0) {{ j = j + {n}; }}",
                f"    j = clamp(j, 0, {n} - 1);",
            ]
        load = f"in0[u32(p0 + j * {stride})]"
        return [*j, f"    var v = {convert_scalar(load, np.dtype(srcs[0]), out_dt)};"]
    raise ValueError(f"select: unknown mode {mode!r}; the modes are {', '.join(MODES)}")


@cache
def _kernel(mode: str, srcs: tuple[str, ...], out: str, rank: int) -> Kernel:
    k_in = len(srcs)
    inputs_at = 1 + rank
    extra_at = inputs_at + k_in * (1 + rank)
    n_words = extra_at + (2 if mode == "gather" else 0)
    value = _value(mode, srcs, out, extra_at)  # (raises for an unknown mode)
    starts = [f"    var p{k} = iword({inputs_at + k * (1 + rank)}u);" for k in range(k_in)]
    walk = walk_lines("r", "i", rank, 1, [(f"p{k}", inputs_at + k * (1 + rank) + 1) for k in range(k_in)])
    inputs = "\n".join(
        f"@group(0) @binding({k}) var<storage, read> in{k}: array<{wgsl_type(np.dtype(s))}>;"
        for k, s in enumerate(srcs)
    )
    t = wgsl_type(np.dtype(out))
    name = f"select:{mode}({','.join(srcs)})->{t}[{rank}]"

    def source() -> str:
        filled = (
            wgsl_template("gather")
            .replace("{{inputs}}", inputs)
            .replace("{{out}}", str(k_in))
            .replace("{{out_type}}", t)
            .replace("{{meta}}", str(k_in + 1))
            .replace("{{meta_vec4s}}", str(-(-n_words // 4)))
            .replace("{{walk}}", "\n".join(starts + walk))
            .replace("{{value}}", "\n".join(value))
        )
        return wgsl_template("common") + "\n" + filled

    return Kernel(name, "gather", ("read",) * k_in + ("write", "uniform"), source)


def plan_select(
    mode: str,
    views: list[View],
    shape: tuple[int, ...],
    dtype: np.dtype,
    facts: Facts,
    *,
    axis: tuple[int, int] = (0, 0),
) -> Plan:
    """The plan computing an output of `shape` and `dtype` (C-contiguous, not empty) by `mode` from
    `views` (the inputs, in order: where's condition, x1, x2; gather's x and its indices). axis: a
    gather's (length n, x's stride along it). ValueError where the output or an input does not fit
    one binding, for a gather from an empty axis, or views that do not match the mode or the shape."""
    count = math.prod(shape)
    if count == 0:
        raise ValueError(f"select: nothing to compute for an empty output of shape {tuple(shape)}")
    wanted = {"where": 3, "gather": 2}.get(mode)
    if wanted is None:
        raise ValueError(f"select: unknown mode {mode!r}; the modes are {', '.join(MODES)}")
    if len(views) != wanted or any(v.layout.shape != tuple(shape) for v in views):
        raise ValueError(f"select: {mode} takes {wanted} views of the output's shape {tuple(shape)}")
    if mode == "gather" and axis[0] <= 0:
        raise ValueError("select: a gather from an axis of length 0 has no element to take")
    if 4 * count > facts.max_binding:
        raise ValueError(
            f"an output of shape {tuple(shape)} needs {4 * count:,} bytes in one GPU binding, "
            f"over this device's maxStorageBufferBindingSize of {facts.max_binding:,}"
        )
    for k, v in enumerate(views):
        read = v.layout
        if mode == "gather" and k == 0:  # (with the axis the index walks)
            read = Layout((*read.shape, axis[0]), (*read.strides, axis[1]), read.offset)
        low, high = read.span()
        if 4 * high > facts.max_binding or low < 0:
            raise ValueError(
                f"an input of shape {v.layout.shape} needs {4 * high:,} bytes in one GPU binding, "
                f"over this device's maxStorageBufferBindingSize of {facts.max_binding:,}"
            )
    out_strides = Layout.contiguous(tuple(shape)).strides
    dims, strides = collapse(tuple(shape), [out_strides, *[v.layout.strides for v in views]])
    rank = len(dims)
    srcs = tuple(v.dtype.name for v in views)
    kernel = _kernel(mode, srcs, dtype.name, rank)
    words: list[int] = [count, *dims]
    for v, st in zip(views, strides[1:], strict=True):
        words += [v.layout.offset, *st]
    if mode == "gather":
        words += [axis[0], axis[1]]
    slots = (*[Slot("in", k) for k in range(len(views))], Slot("out", 0), Slot("meta"))
    step = Step(
        kernel, slots, tuple(i32_word(w) for w in words), grid_for(-(-count // WORKGROUP), facts.max_groups)
    )
    return Plan((step,), (Output(tuple(shape), dtype),))


__all__ = ["MODES", "View", "plan_select"]
