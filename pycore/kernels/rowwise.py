"""The row-wise generator and planner: ops that reduce each row along one axis to its max and its
sum of exp(x - max), then write every element of the row from them (softmax, log_softmax), declared
once each as a `RowOp` (two WGSL expressions), in one dispatch over an n-d input read through its
strides (shaders/rowwise.wgsl). The result is C-ordered in the input's shape.

`plan_rowwise` collapses the other axes (a row's start is one or two index splits away), and
picks a workgroup per row (tree reductions in workgroup memory: GPUs, and few long rows), 16 rows
per workgroup side by side where neighbouring rows' elements are neighbours in memory (softmax
along the first axis: a workgroup per row would read one element per row at a time), or a thread
per row (CPU adapters, where every barrier costs a context switch per thread).

>>> from pycore.array.layout import Layout
>>> p = plan_rowwise(ROW_OPS["softmax"], Layout.contiguous((8, 512, 512)), 2, Facts())
>>> p.steps[0].kernel.name, p.steps[0].words[:5], p.steps[0].grid  # doctest: +NORMALIZE_WHITESPACE
('rows:softmax:tree[1]', (4096, 512, 0, 1, 1), (4096, 1, 1))
>>> p = plan_rowwise(ROW_OPS["softmax"], Layout.contiguous((8, 512, 512)), 0, Facts())
>>> p.steps[0].kernel.entry, p.steps[0].words[:5], p.steps[0].grid
('rows_side', (262144, 8, 0, 262144, 262144), (16384, 1, 1))
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
    grid_for,
    i32_word,
    walk_lines,
    word_of,
)
from pycore.kernels.wgsl import wgsl_constant, wgsl_template

F32 = np.dtype(np.float32)
WORKGROUP = wgsl_constant("WORKGROUP")  # threads per workgroup of rows_tree (common.wgsl)
THREAD_GROUP = wgsl_constant("THREAD_GROUP")  # threads per workgroup of rows_thread
THREAD_ROWS, THREAD_COLS = 64, 4096  # CPU adapters: fewer rows, each longer, keep the workgroups
THREAD_COLS_MAX = 16_384  # and so do longer rows (a thread's three loops over a row stay within a loop cap)
NEG_INF = int(np.float32(-np.inf).view(np.uint32))
SIDE_OX, SIDE_RY = 16, 16  # rows_side: rows per workgroup, threads along each (rowwise.wgsl's OX, RY)


@dataclass(frozen=True)
class RowOp:
    """A row-wise op, as WGSL expressions (shaders/rowwise.wgsl): pass 1 reduces `first` (of x) by
    max (`first_max`) or by sum to t; `center` (of t and n, the row's length) is the row's m; pass 2
    sums `second` (of x and m; "" for none) to s; `prepare` (of m, s, n and eps) is the row's
    constant k; `finish` (of x, m and k) an element's result. `nan_rows`: a row whose m is not
    finite is NaN throughout (softmax's, as NumPy's)."""

    name: str
    first: str
    first_max: bool
    center: str
    second: str
    prepare: str
    finish: str
    nan_rows: bool = False


ROW_OPS = {
    "softmax": RowOp("softmax", "x", True, "t", "exp(x - m)", "1.0 / s", "exp(x - m) * k", True),
    "log_softmax": RowOp("log_softmax", "x", True, "t", "exp(x - m)", "log(s)", "(x - m) - k",  # (this
                         True),  # order: see rowwise.wgsl)
    "layer_norm": RowOp("layer_norm", "x", False, "t / n", "(x - m) * (x - m)", "inverseSqrt(s / n + eps)",
                        "(x - m) * k"),
    "rms_norm": RowOp("rms_norm", "x * x", False, "t / n", "", "inverseSqrt(m + eps)", "x * k"),
}


def uses_tree(facts: Facts, rows: int, cols: int, tree: bool | None = None) -> bool:
    """Whether rows of `cols` elements run a workgroup per row (else a thread per row): on GPUs,
    and on CPU adapters for few long rows or very long ones (a thread takes ~0.3 s for a row of 1M
    on SwiftShader; barriers cost ~0.6 ms per row there), or where a thread's loops over a row
    would pass the loop cap. `tree` forces the choice (but never past a loop cap).

    >>> uses_tree(Facts(cpu_adapter=True), 100_000, 10), uses_tree(Facts(cpu_adapter=True), 1, 1 << 20)
    (False, True)
    """
    few_long = rows < THREAD_ROWS and cols > THREAD_COLS
    chosen = not facts.cpu_adapter or few_long or cols > THREAD_COLS_MAX if tree is None else tree
    cap = facts.loop_cap
    return chosen or bool(cap and 3 * cols + cols // 64 + 8 > cap)


def row_limits(name: str, cols: int, facts: Facts) -> ValueError | None:
    """The error of rows the adapter cannot take (a row past one binding, or past the loop cap of
    a workgroup's threads), or None."""
    if 4 * cols > facts.max_binding:
        return ValueError(f"{name}: one row needs {4 * cols:,} bytes in one GPU binding, over this "
                          f"device's maxStorageBufferBindingSize of {facts.max_binding:,} bytes")
    cap = facts.loop_cap
    if cap and 3 * -(-cols // WORKGROUP) > cap:
        return ValueError(f"{name}: rows of {cols:,} values need more loop iterations per GPU thread "
                          f"than this adapter runs ({cap:,}); use backend='numpy'")
    return None


@cache
def _kernel(op: RowOp, rank: int, variant: str, weight: bool = False, bias: bool = False) -> Kernel:
    """The kernel of `op` over rows whose other axes collapse to `rank`; `weight`, `bias`: the
    result times a weight and plus a bias per column (bindings 3 and 4, float32 vectors)."""
    kept_at = 7
    n_words = kept_at + 3 * rank
    kept = walk_lines("r", "row", rank, kept_at, [("ib", kept_at + rank), ("ob", kept_at + 2 * rank)])
    entry = f"rows_{variant}"
    bindings = []
    affine = "y"
    if weight:
        bindings.append("@group(0) @binding(3) var<storage, read> weight: array<f32>;")
        affine = "y * weight[c]"
    if bias:
        bindings.append(f"@group(0) @binding({3 + weight}) var<storage, read> bias: array<f32>;")
        affine = f"{affine} + bias[c]"
    fills = {"meta_vec4s": str(-(-n_words // 4)), "affine_bindings": "\n".join(bindings),
             "kept": "\n".join(kept), "nan_rows": str(op.nan_rows).lower(),
             "first_max": str(op.first_max).lower(), "second_pass": str(bool(op.second)).lower(),
             "first": op.first, "center": op.center, "second": op.second or "0.0",
             "prepare": op.prepare, "finish": op.finish, "affine": affine}

    def source() -> str:
        filled = wgsl_template("rowwise")
        for mark, value in fills.items():
            filled = filled.replace("{{" + mark + "}}", value)
        return "\n".join([wgsl_template("common"), filled])

    name = f"rows:{op.name}:{variant}[{rank}]{'*w' if weight else ''}{'+b' if bias else ''}"
    return Kernel(name, entry, ("read", "write", "uniform") + ("read",) * (weight + bias), source)


def plan_rowwise(op: RowOp, layout: Layout, axis: int, facts: Facts, tree: bool | None = None,
                 eps: float = 0.0, weight: bool = False, bias: bool = False) -> Plan:
    """The plan of `op` along `axis` (normalized) of a float32 input of `layout`; its output is
    C-ordered in layout.shape. `eps`: the norms'; `weight`, `bias`: contiguous float32 vectors of
    the axis' length, inputs 1 and 2 (the output times the weight, plus the bias, per column).
    Raises ValueError for rows the adapter cannot take (row_limits)."""
    shape = layout.shape
    cols = shape[axis]
    rows = math.prod(shape) // cols if cols else 0
    if rows == 0:
        raise ValueError(f"{op.name}: nothing to compute on the GPU (the NumPy path answers empty inputs)")
    problem = row_limits(op.name, cols, facts)
    if problem is not None:
        raise problem
    out_strides = Layout.contiguous(shape).strides
    others = [d for d in range(len(shape)) if d != axis]
    k_shape = tuple(shape[d] for d in others)
    dims, (in_st, out_st) = collapse(k_shape, [tuple(layout.strides[d] for d in others),
                                               tuple(out_strides[d] for d in others)])
    if rows == 1:
        dims, in_st, out_st = (), (), ()
    chosen = uses_tree(facts, rows, cols, tree)
    variant = "tree" if chosen else "thread"
    if chosen and rows > 1 and abs(layout.strides[axis]) != 1 and abs(in_st[-1]) == 1 and (
            not facts.loop_cap or 3 * -(-cols // SIDE_RY) + 8 <= facts.loop_cap):
        variant = "side"  # (neighbouring rows lie side by side: read them together)
    kernel = _kernel(op, len(dims), variant, weight, bias)
    words = [rows, cols, layout.offset, layout.strides[axis], out_strides[axis], NEG_INF, word_of(eps, F32),
             *dims, *in_st, *out_st]
    per_group = {"tree": 1, "thread": THREAD_GROUP, "side": SIDE_OX}[variant]
    grid = grid_for(-(-rows // per_group), facts.max_groups)
    slots = (Slot("in", 0), Slot("out", 0), Slot("meta"), *[Slot("in", 1 + k) for k in range(weight + bias)])
    step = Step(kernel, slots, tuple(i32_word(w) for w in words), grid)
    return Plan((step,), (Output(tuple(shape), F32),))


__all__ = ["ROW_OPS", "RowOp", "plan_rowwise", "row_limits", "uses_tree"]
