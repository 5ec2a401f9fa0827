"""The planner of the placing kernels (shaders/place.wgsl): an output made of regions, each written
by one step from an input view (a copy, converting dtypes), a constant, a ramp (arange, linspace),
or the diagonal of a matrix (eye), optionally masked to a triangle (tril, triu). The Array API's
creation and manipulation functions that move data (pycore/calls/creation.py, manipulation.py) are
plans of these, run by pycore/calls/placing.py.

A `Part` is one region: a strided view of the output (`region`, in elements) and what fills it.
`plan_place` makes one step per part, with the uniform words place.wgsl reads: count, the region's
offset, the input's offset, the region's shape (its axes collapsed where every view walks them
contiguously and no coordinate is needed), the output's strides, the input's strides, then the
mode's values.

>>> from pycore.array.layout import Layout
>>> f32 = np.dtype("float32")
>>> out = Layout.contiguous((2, 6))
>>> left = Part(out.getitem((slice(None), slice(0, 3))), "copy", source=Layout.contiguous((2, 3)), dtype=f32)
>>> p = plan_place([left, Part(out.getitem((slice(None), slice(3, 6))), "value", values=(1.5,))],
...                (2, 6), f32, Facts())
>>> [s.words for s in p.steps]
[(6, 0, 0, 2, 3, 6, 1, 3, 1), (6, 3, 0, 2, 3, 6, 1, 1069547520)]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

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
    wgsl_type,
    word_of,
)
from pycore.kernels.wgsl import wgsl_template

WORKGROUP = 256  # threads per workgroup (common.wgsl's WORKGROUP)
F32 = np.dtype(np.float32)
MODES = ("copy", "value", "ramp", "diagonal")
TRIANGLES = ("tril", "triu")
VALUES = {"copy": 0, "value": 1, "ramp": 4, "diagonal": 1}  # the words of each mode's values


@dataclass(frozen=True)
class Part:
    """One region of the output and what fills it.

    mode: "copy" (input `index`, of `dtype`, read through `source`, a layout of the region's shape),
    "value" (values: (the value,)), "ramp" (values: (start, step, last index, last value): element
    i of the region is start + i * step, the one at the last index is the last value; an index past
    the region has none), "diagonal" (values: (k,): 1 where column - row == k, else 0, over the
    region's last two axes). triangle: "tril" or "triu" keeps what lies on or below / on or above
    diagonal k (values' last entry for a copy, after k for the others), zeroes the rest."""

    region: Layout
    mode: str
    source: Layout | None = None
    dtype: np.dtype | None = None
    index: int = 0
    values: tuple[Any, ...] = ()
    triangle: str | None = None


@cache
def _kernel(mode: str, src: str | None, out: str, rank: int, triangle: str | None) -> Kernel:
    """The kernel of a mode over regions of `rank` axes, storing dtype `out` (a copy reads `src`)."""
    copy = mode == "copy"
    out_dt = np.dtype(out)
    t = wgsl_type(out_dt)
    shape_at = 3
    values_at = shape_at + rank * (3 if copy else 2)
    walk = ["    var r = i;"] if rank else []
    for d in reversed(range(rank)):
        coord = f"r % word({shape_at + d}u)" if d else "r"
        walk.append(f"    let c{d} = {coord};")
        walk.append(f"    o = o + i32(c{d}) * iword({shape_at + rank + d}u);")
        if copy:
            walk.append(f"    s = s + i32(c{d}) * iword({shape_at + 2 * rank + d}u);")
        if d:
            walk.append(f"    r = r / word({shape_at + d}u);")
    inputs, value = "", []
    if copy:
        assert src is not None
        src_dt = np.dtype(src)
        inputs = f"@group(0) @binding(0) var<storage, read> in0: array<{wgsl_type(src_dt)}>;"
        value.append(f"    var v = {convert_scalar('in0[u32(s)]', src_dt, out_dt)};")
    elif mode == "value":
        value.append(f"    var v = bitcast<{t}>(word({values_at}u));")
    elif mode == "ramp":
        index = "f32(i)" if t == "f32" else f"{t}(i)"
        start, step = f"bitcast<{t}>(word({values_at}u))", f"bitcast<{t}>(word({values_at + 1}u))"
        value += [f"    var v = {start} + {index} * {step};",
                  f"    if (i == word({values_at + 2}u)) {{ v = bitcast<{t}>(word({values_at + 3}u)); }}"]
    elif mode == "diagonal":
        value.append(f"    var v = select({t}(0), {t}(1), i32(c{rank - 1}) - i32(c{rank - 2}) == "
                     f"iword({values_at}u));")
    else:
        raise ValueError(f"place: unknown mode {mode!r}")
    if triangle is not None:
        k_at = values_at + VALUES[mode]
        keep = ">=" if triangle == "triu" else "<="
        value.append(f"    v = select({t}(0), v, i32(c{rank - 1}) - i32(c{rank - 2}) {keep} iword({k_at}u));")
    n_words = values_at + VALUES[mode] + (triangle is not None)  # (as plan_place writes them)
    name = f"place:{mode}({src or ''})->{t}[{rank}]{triangle or ''}"

    def source() -> str:
        filled = (wgsl_template("place")
                  .replace("{{inputs}}", inputs)
                  .replace("{{out}}", "1" if copy else "0")
                  .replace("{{out_type}}", t)
                  .replace("{{meta}}", "2" if copy else "1")
                  .replace("{{meta_vec4s}}", str(-(-n_words // 4)))
                  .replace("{{walk}}", "\n".join(walk))
                  .replace("{{value}}", "\n".join(value)))
        return wgsl_template("common") + "\n" + filled

    bindings = ("read", "write", "uniform") if copy else ("write", "uniform")
    return Kernel(name, "place", bindings, source)


def plan_place(parts: list[Part], shape: tuple[int, ...], dtype: np.dtype, facts: Facts) -> Plan:
    """The plan writing an output of `shape` and `dtype` (C-contiguous) from `parts`, one step
    each, in order (a later part may overwrite an earlier one's elements). The output and every
    input must fit one binding (ValueError naming the shape if not)."""
    if 4 * math.prod(shape) > facts.max_binding:
        raise ValueError(f"an output of shape {tuple(shape)} needs {4 * math.prod(shape):,} bytes in one GPU "
                         f"binding, over this device's maxStorageBufferBindingSize of {facts.max_binding:,}")
    steps = []
    for part in parts:
        if part.mode not in MODES:
            raise ValueError(f"place: unknown mode {part.mode!r}; the modes are {', '.join(MODES)}")
        if part.triangle is not None and (part.triangle not in TRIANGLES or part.region.ndim < 2):
            raise ValueError(f"place: a triangle ({part.triangle!r}) masks a region of 2 or more axes")
        count = part.region.size
        if count == 0:
            continue
        copy = part.mode == "copy"
        if copy:
            if part.source is None or part.dtype is None or part.source.shape != part.region.shape:
                raise ValueError(f"place: a copy needs a source of the region's shape {part.region.shape}")
            high = part.source.span()[1]
            if 4 * high > facts.max_binding:
                raise ValueError(f"an input of shape {part.source.shape} needs {4 * high:,} bytes in one "
                                 f"GPU binding, over this device's maxStorageBufferBindingSize of "
                                 f"{facts.max_binding:,}")
        views = [part.region.strides] + ([part.source.strides] if copy and part.source else [])
        if part.triangle is None and part.mode in ("copy", "value"):
            dims, strides = collapse(part.region.shape, views)
        else:
            dims, strides = part.region.shape, views
        rank = len(dims)
        kernel = _kernel(part.mode, part.dtype.name if copy and part.dtype else None, dtype.name, rank,
                         part.triangle)
        words: list[int] = [count, part.region.offset, part.source.offset if copy and part.source else 0,
                            *dims, *[s for st in strides for s in st]]
        if part.mode == "value":
            words.append(word_of(part.values[0], dtype))
        elif part.mode == "ramp":
            start, step, last, last_value = part.values
            words += [word_of(start, dtype), word_of(step, dtype), last, word_of(last_value, dtype)]
        elif part.mode == "diagonal":
            words.append(int(part.values[0]))
        if part.triangle is not None:
            words.append(int(part.values[-1]))
        slots = ((Slot("in", part.index),) if copy else ()) + (Slot("out", 0), Slot("meta"))
        grid = grid_for(-(-count // WORKGROUP), facts.max_groups)
        steps.append(Step(kernel, slots, tuple(i32_word(w) for w in words), grid))
    return Plan(tuple(steps), (Output(tuple(shape), dtype),))


def _plane(layout: Layout, k: int) -> Layout:
    """A layout of complex64 elements as the float32 elements of their real (k = 0) or imaginary
    (k = 1) parts."""
    return Layout(layout.shape, tuple(2 * s for s in layout.strides), 2 * layout.offset + k)


def complex_planes(parts: list[Part]) -> list[Part]:
    """The parts of a complex64 output as parts of its float32 pairs (the output as (*shape, 2)):
    each part once on the plane of real parts and once on the imaginary parts'. A real source or a
    diagonal fills the imaginary plane with zeros; values and ramps split into their two parts.

    >>> region = Layout.contiguous((3,))
    >>> [(p.region.offset, p.region.strides, p.values)
    ...  for p in complex_planes([Part(region, "value", values=(1 + 2j,))])]
    [(0, (2,), (1.0,)), (1, (2,), (2.0,))]
    """
    out = []
    for p in parts:
        for k in (0, 1):
            region = _plane(p.region, k)
            if p.mode == "copy" and p.dtype is not None and p.dtype.kind == "c":
                assert p.source is not None
                out.append(replace(p, region=region, source=_plane(p.source, k), dtype=F32))
            elif p.mode in ("copy", "diagonal") and k == 1:  # (real values: no imaginary parts)
                out.append(Part(region, "value", values=(0.0,)))
            elif p.mode in ("copy", "diagonal"):
                out.append(replace(p, region=region))
            else:
                part = [complex(v) for v in p.values]
                values = [v.imag if k else v.real for v in part]
                if p.mode == "ramp":  # (start, step, last index, last value)
                    values[2] = p.values[2]
                elif p.triangle is not None:
                    values[-1] = p.values[-1]
                out.append(replace(p, region=region, values=tuple(values)))
    return out


__all__ = ["MODES", "Part", "complex_planes", "plan_place"]
