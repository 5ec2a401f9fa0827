"""The planner of the scans (shaders/scan.wgsl): cumulative sums and products along one axis of an
n-d input read through its strides, written C-ordered in its shape (the axis one longer with
include_initial, the identity first). Integers wrap, as WGSL's arithmetic does.

WebGPU promises no forward progress between workgroups, so no workgroup waits on another (no
decoupled look-back): a row longer than one block of BLOCK elements is scanned in three passes,
three dispatches in one submit: each block's total (`scan_reduce`), the block totals' exclusive
prefixes, a workgroup per chunk of BLOCK of them, which sums the totals before its chunk and
scans its own after that (`scan_carry`, in a scratch buffer), and each block scanned after its
prefix (`scan_down`). Each element is read twice and written once (a copy reads and writes
it once). Rows of one block run `scan_down` alone; short rows, rows lying side by side in memory
and CPU adapters' rows run a thread per row (`scan_serial`). Where the input and output are
32-bit arrays of one dtype with contiguous rows in whole vec4s (`in_vec4s`), the block passes
read and write vec4s and keep a block in registers (`scan_reduce4`, `scan_down4`: shaders/scan4.wgsl).
complex64 values are a vec2<f32> each (their products `prod_c64`; two to a vec4), in blocks of
half as many elements (`block_of`).

>>> from pycore.array.layout import Layout
>>> f32 = np.dtype("float32")
>>> p = plan_scan("sum", Layout.contiguous((1 << 24,)), 0, f32, f32, False, Facts())
>>> [s.kernel.entry for s in p.steps], p.steps[0].grid, p.scratch
(['scan_reduce4', 'scan_carry', 'scan_down4'], (8192, 1, 1), (65536,))
>>> p = plan_scan("prod", Layout.contiguous((4096, 5)), 1, f32, f32, True, Facts())
>>> [s.kernel.entry for s in p.steps], p.outputs[0].shape
(['scan_serial'], (4096, 6))
>>> c64 = np.dtype("complex64")
>>> p = plan_scan("prod", Layout.contiguous((3, 5000)), 1, c64, c64, False, Facts())
>>> [(s.kernel.entry, s.grid) for s in p.steps], p.scratch
([('scan_reduce4', (15, 1, 1)), ('scan_carry', (3, 1, 1)), ('scan_down4', (15, 1, 1))], (240,))
>>> p = plan_scan("sum", Layout.contiguous((3, 4999)), 1, c64, c64, False, Facts())  # (odd rows)
>>> [s.kernel.entry for s in p.steps]
['scan_reduce', 'scan_carry', 'scan_down']
"""

from __future__ import annotations

import math
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
from pycore.kernels.wgsl import used_only, wgsl_constant, wgsl_template, wgsl_typed

WORKGROUP = wgsl_constant("WORKGROUP")
ITEMS = 8  # elements a thread scans in a block (scan.wgsl's ITEMS) of 32-bit values
PAIR_ITEMS = 4  # ... of complex64 values (8 would take 18.5 KiB of workgroup memory: WebGPU promises 16)
BLOCK = WORKGROUP * ITEMS  # elements per block (scan.wgsl's BLOCK) of 32-bit values
C64 = np.dtype(np.complex64)
OPS = {"sum": ("a + b", 0), "prod": ("a * b", 1)}  # (combine, identity)


def block_of(dtype: np.dtype) -> int:
    """The elements of one block of values of `dtype` (the output's).

    >>> block_of(np.dtype("float32")), block_of(np.dtype("complex64"))
    (2048, 1024)
    """
    return WORKGROUP * (PAIR_ITEMS if dtype == C64 else ITEMS)
SERIAL_N = 32  # rows this short run a thread each
SIDE_ROWS = 2048  # as do this many rows or more lying side by side (the axis' stride is not 1)
CPU_ROWS = 64  # and on CPU adapters, this many rows or more (every barrier costs a context switch)
META = 8  # words before the other axes' shape


def _load_functions(t: str, pair: bool) -> str:
    """The functions of shaders/scan4.wgsl that depend on the value type `t`: a load of four 32-bit
    values (a vec4), or of two complex64 values (`pair`: a vec4 of two vec2s)."""
    if pair:
        return f"""alias Load = vec4<f32>;
alias Pair = vec4<f32>;
const PER: u32 = 2u;
fn load_none() -> Load {{ return Load(identity(), identity()); }}
fn load_total(v: Load) -> {t} {{ return combine(v.xy, v.zw); }}
fn load_scan(v: Load) -> Load {{ return Load(v.xy, combine(v.xy, v.zw)); }}
fn load_last(v: Load) -> {t} {{ return v.zw; }}
fn load_apply(p: {t}, v: Load) -> Load {{ return Load(combine(p, v.xy), combine(p, v.zw)); }}
fn pair_of(x: {t}, y: {t}) -> Pair {{ return Pair(x, y); }}
fn pair_x(p: Pair) -> {t} {{ return p.xy; }}
fn pair_y(p: Pair) -> {t} {{ return p.zw; }}
"""
    return f"""alias Load = vec4<{t}>;
alias Pair = vec2<{t}>;
const PER: u32 = 4u;
fn load_none() -> Load {{ return Load(identity()); }}
fn load_total(v: Load) -> {t} {{ return combine(combine(v.x, v.y), combine(v.z, v.w)); }}
fn load_scan(v: Load) -> Load {{
    let y = combine(v.x, v.y);
    let z = combine(y, v.z);
    return Load(v.x, y, z, combine(z, v.w));
}}
fn load_last(v: Load) -> {t} {{ return v.w; }}
fn load_apply(p: {t}, v: Load) -> Load {{
    return Load(combine(p, v.x), combine(p, v.y), combine(p, v.z), combine(p, v.w));
}}
fn pair_of(x: {t}, y: {t}) -> Pair {{ return Pair(x, y); }}
fn pair_x(p: Pair) -> {t} {{ return p.x; }}
fn pair_y(p: Pair) -> {t} {{ return p.y; }}
"""


@cache
def _kernel(op: str, src: str, out: str, rank: int, entry: str) -> Kernel:
    out_dt = np.dtype(out)
    pair = out_dt == C64  # (a complex64 product: values are vec2<f32>, combined by prod_c64)
    t = "vec2<f32>" if pair else wgsl_type(out_dt)
    combine, one = OPS[op]
    identity = f"{one}.0, 0.0" if pair else str(one)
    if pair and op == "prod":
        combine = "prod_c64(a, b)"
    kept = walk_lines("r", "row", rank, META, [("ib", META + rank), ("ob", META + 2 * rank)])
    n_words = META + 3 * rank

    def source() -> str:
        template = "\n".join([wgsl_template("scan"), _load_functions(t, pair), wgsl_template("scan4")])
        filled = (
            template
            .replace("{{in_type}}", t if pair else wgsl_type(np.dtype(src)))
            .replace("{{out_type}}", t)
            .replace("{{items}}", str(PAIR_ITEMS if pair else ITEMS))
            .replace("{{meta_vec4s}}", str(-(-n_words // 4)))
            .replace("{{combine}}", combine)
            .replace("{{identity}}", f"{t}({identity})")
            .replace("{{load}}", "src[u32(k)]" if pair
                     else convert_scalar("src[u32(k)]", np.dtype(src), out_dt))
            .replace("{{kept}}", "\n".join(kept))
        )
        return used_only("\n".join([wgsl_template("common"), wgsl_typed("reductions"), filled]))

    name = f"scan:{op}({src})->{'c64' if pair else t}[{rank}]"
    return Kernel(name, entry, ("read", "write", "write", "uniform"), source)


def uses_serial(facts: Facts, rows: int, n: int, stride: int) -> bool:
    """Whether rows of n elements (the axis' stride `stride`) run a thread per row: short rows,
    many rows side by side in memory, or a CPU adapter's many rows; never past a loop cap.

    >>> uses_serial(Facts(), 1, 1 << 20, 1), uses_serial(Facts(), 100_000, 1000, 100_000)
    (False, True)
    """
    if facts.loop_cap and n + 8 > facts.loop_cap:
        return False
    return (
        n <= SERIAL_N or (abs(stride) != 1 and rows >= SIDE_ROWS) or (facts.cpu_adapter and rows >= CPU_ROWS)
    )


def in_vec4s(layout: Layout, axis: int, src: np.dtype, dtype: np.dtype, include_initial: bool) -> bool:
    """Whether the block passes can read the input and write the output as vec4s: one dtype in
    and out, 32-bit (four values a vec4) or complex64 (two), the axis the input's stride-1 axis
    and the output's last, its length and every row's start (the offset, the other axes' strides)
    whole vec4s, no identity first.

    >>> f32, c64 = np.dtype("float32"), np.dtype("complex64")
    >>> in_vec4s(Layout.contiguous((4, 1024)), 1, f32, f32, False)
    True
    >>> in_vec4s(Layout.contiguous((4, 1022)), 1, f32, f32, False)  # (rows 1,022 long)
    False
    >>> in_vec4s(Layout.contiguous((4, 1022)), 1, c64, c64, False)  # (511 vec4s a row)
    True
    """
    shape, strides = layout.shape, layout.strides
    n = shape[axis]
    per = 2 if src == C64 else 4
    return (src == dtype and (src == C64 or (src.itemsize == 4 and src.kind in "fiu")) and not include_initial
            and axis == len(shape) - 1 and strides[axis] == 1 and n % per == 0 and layout.offset % per == 0
            and all(st % per == 0 for d, (m, st) in enumerate(zip(shape, strides, strict=True))
                    if d != axis and m > 1))


def plan_scan(
    op: str,
    layout: Layout,
    axis: int,
    src: np.dtype,
    dtype: np.dtype,
    include_initial: bool,
    facts: Facts,
    serial: bool | None = None,
    vector: bool = True,
) -> Plan:
    """The plan of cumulative `op` ("sum" or "prod") along `axis` (normalized) of an input of
    `layout` and dtype `src`, accumulated and written in `dtype`, C-ordered (the axis one longer
    with include_initial). serial forces the choice of uses_serial; vector=False keeps the block
    passes scalar where in_vec4s would allow vec4s. ValueError for an op not
    known, an empty axis or no rows (the callers answer those on the host), or an input or output
    past one binding."""
    if op not in OPS:
        raise ValueError(f"scan: unknown op {op!r}; the ops are {', '.join(OPS)}")
    if (src == C64 or dtype == C64) and src != dtype:
        raise ValueError(f"scan: complex64 values scan into complex64 only, not {dtype}")
    size = dtype.itemsize if dtype == C64 else 4
    block = block_of(dtype)
    shape = layout.shape
    n = shape[axis]
    rows = math.prod(shape) // n if n else 0
    if rows == 0:
        raise ValueError(f"scan: nothing to scan in shape {tuple(shape)} along axis {axis}")
    out_shape = tuple(m + include_initial if d == axis else m for d, m in enumerate(shape))
    for what, nbytes in (("an output", size * math.prod(out_shape)), ("an input", size * layout.span()[1])):
        if nbytes > facts.max_binding:
            raise ValueError(
                f"{what} of shape {tuple(shape)} needs {nbytes:,} bytes in one GPU binding, over "
                f"this device's maxStorageBufferBindingSize of {facts.max_binding:,}"
            )
    out_strides = Layout.contiguous(out_shape).strides
    others = [d for d in range(len(shape)) if d != axis]
    dims, (in_st, out_st) = collapse(
        tuple(shape[d] for d in others),
        [tuple(layout.strides[d] for d in others), tuple(out_strides[d] for d in others)],
    )
    if rows == 1:
        dims, in_st, out_st = (), (), ()
    stride = layout.strides[axis]
    chosen = uses_serial(facts, rows, n, stride) if serial is None else serial
    blocks = 1 if chosen else -(-n // block)
    chunks = -(-blocks // block)  # (of block totals, a workgroup each in scan_carry)
    words = tuple(
        i32_word(w)
        for w in (
            rows,
            n,
            layout.offset,
            stride,
            out_strides[axis],
            int(include_initial),
            blocks,
            chunks,
            *dims,
            *in_st,
            *out_st,
        )
    )
    slots = (Slot("in", 0), Slot("out", 0), Slot("tmp", 0), Slot("meta"))
    rank = len(dims)

    def step(entry: str, groups: int) -> Step:
        return Step(
            _kernel(op, src.name, dtype.name, rank, entry), slots, words, grid_for(groups, facts.max_groups)
        )

    v4 = "4" if vector and in_vec4s(layout, axis, src, dtype, include_initial) else ""
    if chosen:
        steps = [step("scan_serial", -(-rows // WORKGROUP))]
    elif blocks == 1:
        steps = [step("scan_down" + v4, rows)]
    else:
        steps = [
            step("scan_reduce" + v4, rows * blocks),
            step("scan_carry", rows * chunks),
            step("scan_down" + v4, rows * blocks),
        ]
    scratch = 2 * size * rows * blocks if blocks > 1 else 4  # (the block totals, then their prefixes)
    return Plan(tuple(steps), (Output(out_shape, dtype),), (scratch,))


__all__ = ["BLOCK", "OPS", "block_of", "in_vec4s", "plan_scan", "uses_serial"]
