"""The matmul planners: (..., m, k) @ (..., k, n), batch axes broadcast.

float32 (`plan_matmul`): the tuned tile kernels of shaders/matmul.wgsl (written out from GPU_TILES
by scripts/matmul_wgsl.py). On a GPU, one dispatch with workgroups along z covers a batch whose
matrices lie at even steps (`_along_z`), and a single product with few tiles and a long K sums
slices of K in parallel (split-K: partial products, then a reduction over them). Otherwise a
dispatch per matrix of the batch and per chunk of rows that fits one binding, each binding its
matrices where they lie; a matrix at an offset the device cannot bind is copied to a scratch
buffer first (and a result's part written to one, then copied into place).
Integers (`plan_matmul_int`): a generated kernel (shaders/matmul_int.wgsl) through the operands'
strides, in int32 or uint32.

>>> from pycore.array.layout import Layout
>>> i32 = np.dtype("int32")
>>> p = plan_matmul_int(Layout.contiguous((2, 3, 4)), Layout.contiguous((4, 5)), i32, Facts())
>>> p.outputs[0].shape, p.steps[0].grid
((2, 3, 5), (1, 1, 2))
>>> p = plan_matmul(Layout.contiguous((8, 512, 64)), Layout.contiguous((8, 64, 512)), Facts())
>>> len(p.steps), p.steps[0].kernel.entry, p.steps[0].grid
(1, 'matmul_t32z', (16, 16, 8))
>>> p = plan_matmul(Layout.contiguous((2, 1, 512, 64)), Layout.contiguous((3, 64, 512)), Facts())
>>> len(p.steps), p.steps[1].slots[0]
(6, Slot(kind='in', index=0, offset=0, size=131072))
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from pycore.array.layout import Layout, broadcast_shapes, collapse
from pycore.kernels.elementwise import Expr, convert, nested, program_lines, scalar_vec4
from pycore.kernels.plan import (
    Copy,
    Facts,
    Kernel,
    Output,
    Plan,
    Slot,
    Step,
    i32_word,
    load_packed,
    packed,
    value_type,
    walk_lines,
    wgsl_type,
)
from pycore.kernels.reduction import Combine, plan_reduction
from pycore.kernels.tiles import gpu_kernel
from pycore.kernels.wgsl import (
    used_only,
    wgsl_constant,
    wgsl_functions,
    wgsl_source,
    wgsl_template,
    wgsl_typed,
)

GROUP = 16  # rows and columns of C per workgroup


@cache
def _kernel(dtype: str, batch_rank: int) -> Kernel:
    t = wgsl_type(np.dtype(dtype))
    at = 9  # batch shape, then A's and B's batch strides
    strides = [("a_at", at + batch_rank), ("b_at", at + 2 * batch_rank)]  # (A's, B's batch strides)
    lines = walk_lines("z", "gid.z", batch_rank, at, strides)
    n_words = at + 3 * batch_rank

    def source() -> str:
        return (wgsl_template("matmul_int").replace("{{t}}", t).replace("{{batch}}", "\n".join(lines))
                .replace("{{meta_vec4s}}", str(-(-n_words // 4))))

    return Kernel(f"matmul_int:{t}[{batch_rank}]", "matmul_int", ("read", "read", "write", "uniform"), source)


def _batch_strides(x: Layout) -> tuple[int, ...]:
    """x's strides along its batch axes, 0 where an axis of length 1 broadcasts."""
    return tuple(0 if s == 1 else st for s, st in zip(x.shape[:-2], x.strides[:-2], strict=True))


def plan_matmul_int(a: Layout, b: Layout, dtype: np.dtype, facts: Facts) -> Plan:
    """The plan of a @ b for 2-D or more operands (1-D ones are made 2-D by the caller) of an
    integer dtype; the output is C-ordered (batch..., m, n)."""
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    if facts.loop_cap and k > facts.loop_cap:
        raise ValueError(f"matmul: k = {k:,} needs more loop iterations per GPU thread than this "
                         f"adapter runs ({facts.loop_cap:,}); use backend='numpy'")
    count = math.prod(batch)
    if 4 * count * m * n > facts.max_binding:
        raise ValueError(f"matmul: the result needs {4 * count * m * n:,} bytes in one GPU binding, over "
                         f"this device's maxStorageBufferBindingSize of {facts.max_binding:,} bytes")
    lead_a, lead_b = len(batch) - (a.ndim - 2), len(batch) - (b.ndim - 2)
    a_b = (0,) * lead_a + _batch_strides(a)
    b_b = (0,) * lead_b + _batch_strides(b)
    if batch:
        dims, (a_b, b_b) = collapse(batch, [a_b, b_b])
    else:
        dims = ()
    grid = (-(-n // GROUP), -(-m // GROUP), max(count, 1))
    if max(grid) > facts.max_groups:
        raise ValueError(f"matmul: a product of {count:,} matrices of {m} x {n} needs more than the device's "
                         f"{facts.max_groups:,} workgroups per dimension")
    words = [m, n, k, a.strides[-2], a.strides[-1], b.strides[-2], b.strides[-1], a.offset, b.offset,
             *dims, *a_b, *b_b]
    kernel = _kernel(dtype.name, len(dims))
    step = Step(kernel, (Slot("in", 0), Slot("in", 1), Slot("out", 0), Slot("meta")),
                tuple(i32_word(w) for w in words), grid)
    return Plan((step,), (Output((*batch, m, n), dtype),))


# ---------------------------------------------------------------- float32: the tile kernels

F32 = np.dtype(np.float32)
TILE = wgsl_constant("TILE", "matmul")  # rows and columns of C per workgroup of `matmul`
TILED = wgsl_constant("TILED", "matmul")  # rows and columns of C per workgroup of `matmul_tiled`
VEC4_ROWS, VEC4_COLS4, VEC4_GROUP = 32, 8, (4, 8)  # per thread, and threads per workgroup
VEC4_TILE = (VEC4_ROWS * VEC4_GROUP[1], 4 * VEC4_COLS4 * VEC4_GROUP[0])  # C rows, columns per group
# GPU kernels, largest first: entry -> (C rows, C columns per workgroup, K per slice, C rows and
# columns per thread). Chosen on an H100 through Dawn against 17 other shapes (docs/benchmarks.md).
GPU_TILES: dict[str, tuple[int, int, int, int, int]] = {
    "matmul_t128": (128, 128, 8, 8, 16),
    "matmul_t64": (64, 64, 16, 4, 4),
    "matmul_t32": (32, 32, 16, 4, 4),
}
FILL = 256  # workgroups a tile's grid must have to be chosen over the next smaller one


def float_kernel(cpu_adapter: bool, m: int, n: int, k: int, tiled: bool | None = None,
                 tile: int | None = None) -> tuple[str, tuple[int, int]]:
    """The tile kernel for an (m x k) @ (k x n) float product and the (rows, columns) of C a
    workgroup of it computes. On a GPU, when N and K are multiples of 4: the largest of GPU_TILES
    whose grid still has FILL workgroups (a small product keeps the cores busy), else
    `matmul_tiled` (scalar loads, any shape). On a CPU adapter, where barriers cost more than the
    reloads they save: `matmul_vec4` (N and K multiples of 4) or `matmul`. `tiled` forces the
    GPU (True) or CPU-adapter (False) choice; `tile` forces one of GPU_TILES where N and K allow.

    >>> [float_kernel(False, s, s, s)[0] for s in (4096, 1024, 256)], float_kernel(False, 9, 9, 9)
    (['matmul_t128', 'matmul_t64', 'matmul_t32'], ('matmul_tiled', (64, 64)))
    >>> float_kernel(True, 64, 64, 64), float_kernel(True, 3, 5, 7)
    (('matmul_vec4', (256, 128)), ('matmul', (32, 32)))
    >>> float_kernel(False, 64, 64, 64, tile=16)
    Traceback (most recent call last):
    ValueError: matmul: tile must be None or one of 128, 64, 32, got 16
    """
    vec4 = n % 4 == 0 and k % 4 == 0
    if tile is not None and f"matmul_t{tile}" not in GPU_TILES:
        sizes = ", ".join(str(rows) for rows, *_ in GPU_TILES.values())
        raise ValueError(f"matmul: tile must be None or one of {sizes}, got {tile!r}")
    if tile is not None and vec4:
        return f"matmul_t{tile}", (tile, tile)
    if not (not cpu_adapter if tiled is None else tiled):
        return ("matmul_vec4", VEC4_TILE) if vec4 else ("matmul", (TILE, TILE))
    if not vec4:
        return "matmul_tiled", (TILED, TILED)
    for entry, (rows, cols, *_) in GPU_TILES.items():
        if -(-m // rows) * -(-n // cols) >= FILL:
            return entry, (rows, cols)
    return entry, (rows, cols)  # the smallest tile


def k_step(cap: int | None, tiled: bool) -> int:
    """The longest K one dispatch may loop over within `cap` iterations per invocation: about K
    for `matmul_tiled` (16 per staged slice, plus the slice loop; the GPU_TILES kernels loop
    K / 8 or K / 16 times, fewer), K / 4 (+3) for the CPU-adapter kernels.

    >>> k_step(65_535, False), k_step(65_535, True), k_step(None, True) > 1e9
    (262108, 61680, True)
    """
    if cap is None:
        return 1 << 62
    return (cap * 16 // 17) // 16 * 16 if tiled else 4 * (cap - 8)


@cache
def tile_kernel(entry: str) -> Kernel:
    """An entry point of shaders/matmul.wgsl as a plan's kernel."""
    return Kernel(f"matmul.{entry}", entry, ("read", "read", "write", "uniform"),
                  lambda: wgsl_source("matmul"), family="matmul")


@dataclass(frozen=True)
class Product:
    """What a float32 matmul plan computes (its planner's arguments), for engine/executor.py to
    plan it again with an element-wise epilogue in its stores: `epilogue` an Expr over the
    output's shape whose operand `acc` is the product (its other operands read at each element of
    C), None for the product alone."""

    a: Layout
    b: Layout
    tiled: bool | None
    tile: int | None
    epilogue: Expr | None = None
    acc: int = 0

    @property
    def shape(self) -> tuple[int, ...]:
        """The product's shape (batch..., m, n)."""
        return (*broadcast_shapes(self.a.shape[:-2], self.b.shape[:-2]), self.a.shape[-2], self.b.shape[-1])

    def planned(self, epilogue: Expr, acc: int, facts: Facts) -> Plan:
        """The same product with `epilogue` stored instead (ValueError where its plan cannot take one)."""
        return plan_matmul(self.a, self.b, facts, self.tiled, self.tile, epilogue, acc)


EPILOGUE_WORDS = 4  # per array operand of an epilogue: offset, row, column and z strides


@cache
def _epilogue_kernel(entry: str, program: tuple, specs: tuple[tuple[str, bool], ...], acc: int) -> Kernel:
    """A GPU tile kernel (`entry`, plain or z form) storing `program` of the product (operand
    `acc`) and the other operands at each element of C: one thread's vec4 of four columns."""
    z = entry.endswith("z")
    bm, bn, bk, tm, tn = GPU_TILES[entry[:-1] if z else entry]
    arrays = [k for k, (_, scalar) in enumerate(specs) if not scalar and k != acc]
    scalar_at = EPILOGUE_WORDS * len(arrays)
    param_at = scalar_at + sum(1 for _, scalar in specs if scalar)
    n_words = param_at + sum(call[5] for call in program)
    lines, values, dtypes = ["    let col = c4 * 4u;"], [], []
    scalar_k = 0
    for k, (name, scalar) in enumerate(specs):
        dt = np.dtype(name)
        dtypes.append(dt)
        t = value_type(dt)
        if k == acc:
            values.append("acc")
        elif scalar:
            values.append(scalar_vec4(dt, scalar_at + scalar_k))
            scalar_k += 1
        else:
            j = arrays.index(k)
            at = EPILOGUE_WORDS * j
            lines += [f"    let b{j} = iword({at}u) + i32(z) * iword({at + 3}u) + i32(row) * iword({at + 1}u)"
                      f" + i32(col) * iword({at + 2}u);", f"    let s{j} = iword({at + 2}u);"]
            loads = [f"u32(b{j} + {e} * s{j})" for e in range(4)]
            lanes = [load_packed(f"in{j}", i, dt) if packed(dt) else f"in{j}[{i}]" for i in loads]
            lines.append(f"    let a{k} = vec4<{t}>({', '.join(lanes)});")
            values.append(f"a{k}")
    lines += program_lines(program, dtypes, values, param_at)
    lines.append(f"    return {convert(f'v{len(program) - 1}', np.dtype(program[-1][4]), F32)};")
    inputs = [f"@group(0) @binding({4 + j}) var<storage, read> in{j}: "
              f"array<{'u32' if packed(np.dtype(specs[k][0])) else value_type(np.dtype(specs[k][0]))}>;"
              for j, k in enumerate(arrays)]
    marks = ["acc" if k == acc else f"x{k}:{n}" + ("" if s else "[a]") for k, (n, s) in enumerate(specs)]
    name = f"matmul.{entry}+{nested([(c[0], c[1], c[5]) for c in program], marks)}"

    def store(row: str, col: str, value: str) -> str:
        return f"epilogue({value}, {row}, {col}, wid.z)"

    def source() -> str:
        head = [
            "struct Dims { M: u32, N: u32, K: u32, a_z: u32, b_z: u32, c_z: u32, k_z: u32, _p7: u32,",
            f"              e: array<vec4<u32>, {max(1, -(-n_words // 4))}> }}",
            "@group(0) @binding(0) var<storage, read> A4: array<vec4<f32>>;",
            "@group(0) @binding(1) var<storage, read> B4: array<vec4<f32>>;",
            "@group(0) @binding(2) var<storage, read_write> C4: array<vec4<f32>>;",
            "@group(0) @binding(3) var<uniform> dims: Dims;",
            *inputs,
            "fn word(k: u32) -> u32 { return dims.e[k / 4u][k % 4u]; }",
            "fn iword(k: u32) -> i32 { return bitcast<i32>(dims.e[k / 4u][k % 4u]); }",
            "// the stored vec4 of C at (row, columns 4 c4 ... 4 c4 + 3) of product z",
            "fn epilogue(acc: vec4<f32>, row: u32, c4: u32, z: u32) -> vec4<f32> {",
            *lines,
            "}",
            gpu_kernel(entry, bm, bn, bk, tm, tn, along_z=z, store=store),
        ]
        return used_only("\n".join([wgsl_template("common"), wgsl_functions("elementwise"),
                                     wgsl_functions("binary"), wgsl_typed("ufuncs"), *head]))

    return Kernel(name, entry, ("read", "read", "write", "uniform") + ("read",) * len(arrays), source)


def _with_epilogue(plan: Plan, epilogue: Expr, acc: int) -> Plan | None:
    """A one-step tile-kernel plan storing `epilogue` of its product instead: the kernel generated
    with it, its words after the product's, its other arrays bound after the uniform block (inputs
    2, 3, ...). None where the plan has copies or several steps, runs another kernel, or an
    operand's batch does not follow the product's (one step along z per product)."""
    if len(plan.steps) != 1 or plan.scratch or not isinstance(plan.steps[0], Step):
        return None
    step = plan.steps[0]
    entry = step.kernel.entry
    if (entry[:-1] if entry.endswith("z") else entry) not in GPU_TILES or epilogue.out != F32:
        return None
    shape = plan.outputs[0].shape
    if epilogue.shape != shape or epilogue.operands[acc].layout != Layout.contiguous(shape):
        return None
    batch = shape[:-2]
    words: list[int] = []
    for k, operand in enumerate(epilogue.operands):
        if k == acc or operand.layout is None:
            continue
        view = operand.layout.broadcast_to(shape)
        zs = 0
        if batch:  # (the z index walks the batch in C order: one stride must do for it)
            zs = view.strides[len(batch) - 1]
            if any(st != zs * math.prod(batch[d + 1:]) for d, st in enumerate(view.strides[:len(batch)])):
                return None
        words += [view.offset, view.strides[-2], view.strides[-1], zs]
    words += epilogue.fixed_words()
    kernel = _epilogue_kernel(entry, epilogue.program, epilogue.specs, acc)
    extra = tuple(Slot("in", 2 + j) for j in range(len(epilogue.arrays) - 1))
    grown = Step(kernel, (*step.slots, *extra), (*step.words, *(i32_word(w) for w in words)), step.grid)
    return Plan((grown,), plan.outputs)


def _matrix_offsets(x: Layout, batch: tuple[int, ...]) -> list[int]:
    """The element offset of each matrix of x for the broadcast batch (C order)."""
    own = x.shape[:-2]
    strides = (0,) * (len(batch) - len(own)) + _batch_strides(x)
    offsets = np.full(batch, x.offset, np.int64) if batch else np.array(x.offset, np.int64)
    for d, st in enumerate(strides):
        shape = [1] * len(batch)
        shape[d] = batch[d]
        offsets = offsets + st * np.arange(batch[d]).reshape(shape)
    return [int(v) for v in np.asarray(offsets).reshape(-1)]


SPLIT_GROUPS = 128  # a single product whose grid has fewer workgroups sums slices of K in parallel...
SPLIT_K = 2048  # ... when K is at least this long,
SPLIT_SLICE = 1024  # ... each slice this long at least (a multiple of 16: every tile's K step)


def _along_z(a: Layout, b: Layout, batch: tuple[int, ...], entry: str, tile: tuple[int, int], facts: Facts
             ) -> tuple[int, int, tuple[int, ...], int, int] | None:
    """How one dispatch of a GPU tile kernel covers the work with workgroups along z (see
    shaders/matmul.wgsl's Dims): a product per z, where the batch collapses to one axis of vec4
    strides; or, for a single product with few workgroups and a long K, the partial product of a
    slice of K per z. Returns (A's and B's elements bound, the uniform words, z workgroups,
    slices of K (0: a batch)), or None: a dispatch per product (the bindings or the grid do not
    take it, or it would not pay).

    >>> _along_z(Layout.contiguous((64, 8192)), Layout.contiguous((8192, 16)), (), "matmul_t32", (32, 32),
    ...          Facts())
    (524288, 131072, (64, 16, 8192, 256, 4096, 256, 256, 0), 8, 8)
    """
    if entry not in GPU_TILES:
        return None
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    count = math.prod(batch)
    groups = -(-n // tile[1]) * -(-m // tile[0])
    if max(-(-n // tile[1]), -(-m // tile[0])) > facts.max_groups:
        return None
    if count == 1:
        if groups >= SPLIT_GROUPS or k < SPLIT_K:
            return None
        slices = min(-(-2 * SPLIT_GROUPS // groups), k // SPLIT_SLICE)
        length = -(-k // slices)
        length = -(-length // 16) * 16  # (a multiple of every tile's K step)
        slices = -(-k // length)
        if slices < 2 or 4 * slices * m * n > facts.max_binding or slices > facts.max_groups:
            return None
        words = (m, n, k, length // 4, length * n // 4, m * n // 4, length // 4, 0)
        return m * k, k * n, words, slices, slices
    a_b = (0,) * (len(batch) - (a.ndim - 2)) + _batch_strides(a)
    b_b = (0,) * (len(batch) - (b.ndim - 2)) + _batch_strides(b)
    c_b = tuple(s * m * n for s in Layout.contiguous(batch).strides)
    dims, (za, zb, zc) = collapse(batch, [a_b, b_b, c_b])
    if len(dims) != 1 or min(za[0], zb[0]) < 0 or za[0] % 4 or zb[0] % 4 or count > facts.max_groups:
        return None
    a_span = (count - 1) * za[0] + m * k
    b_span = (count - 1) * zb[0] + k * n
    if 4 * max(a_span, b_span, count * m * n) > facts.max_binding:
        return None
    return a_span, b_span, (m, n, k, za[0] // 4, zb[0] // 4, zc[0] // 4, 0, 0), count, 0


def plan_matmul(a: Layout, b: Layout, facts: Facts, tiled: bool | None = None, tile: int | None = None,
                epilogue: Expr | None = None, acc: int = 0) -> Plan:
    """The plan of a @ b in float32 for operands of 2 or more dimensions (the caller makes 1-D ones
    2-D) whose matrices are C-ordered (strides (k, 1) and (n, 1); batch strides any); the output
    is C-ordered (batch..., m, n). The caller has checked the bindings, the grid and the loop cap
    (see programs.Matmul.unfit). `epilogue`: an element-wise expression of the product (its
    operand `acc`) stored instead, its other arrays the plan's inputs 2, 3, ... (ValueError where
    the plan cannot take one: see `_with_epilogue`). The plan's `matmul` says what it computes."""
    plan = _plan_matmul(a, b, facts, tiled, tile)
    product = Product(a, b, tiled, tile, epilogue, acc)
    if epilogue is not None:
        grown = _with_epilogue(plan, epilogue, acc)
        if grown is None:
            raise ValueError("matmul: this product's plan cannot store an epilogue")
        plan = grown
    return Plan(plan.steps, plan.outputs, plan.scratch, matmul=product)


def _plan_matmul(a: Layout, b: Layout, facts: Facts, tiled: bool | None, tile: int | None) -> Plan:
    """plan_matmul's product alone."""
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    for name, x, cols in (("a", a, k), ("b", b, n)):
        if x.strides[-1] != 1 or x.strides[-2] != cols:
            raise ValueError(f"matmul: {name}'s matrices must be C-ordered for the tile kernels, got strides "
                             f"{x.strides}")
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    entry, (tile_rows, tile_cols) = float_kernel(facts.cpu_adapter, m, n, k, tiled, tile)
    kernel = tile_kernel(entry)
    align = facts.offset_align
    # rows per chunk: what one binding and the grid take, a multiple of `unit` (chunks stay aligned)
    unit = math.lcm(align // math.gcd(align, 4 * k), align // math.gcd(align, 4 * n))
    rows = min(facts.max_binding // (4 * max(k, 1)), facts.max_binding // (4 * n),
               facts.max_groups * tile_rows)
    if rows < m:
        rows = max(unit, rows // unit * unit)
    steps: list[Step | Copy] = []
    scratch: list[int] = []
    copied: dict[tuple[int, int, int], Slot] = {}

    def bound(index: int, at: int, size: int) -> Slot:
        """Input `index`'s bytes [at, at + size) as a binding: where they lie, or copied (once)."""
        if at % align == 0:
            return Slot("in", index, at, size)
        found = copied.get((index, at, size))
        if found is None:
            found = copied[(index, at, size)] = Slot("tmp", len(scratch), 0, size)
            scratch.append(size)
            steps.append(Copy(Slot("in", index, at, size), found, size))
        return found

    along = _along_z(a, b, batch, entry, (tile_rows, tile_cols), facts)
    if along is not None:  # one dispatch: a product per z, or a slice of K per z and their sum
        a_span, b_span, words, depth, split = along
        a_slot, b_slot = bound(0, 4 * a.offset, 4 * a_span), bound(1, 4 * b.offset, 4 * b_span)
        out = Slot("tmp", len(scratch), 0, 4 * split * m * n) if split else Slot("out", 0)
        grid = (-(-n // tile_cols), -(-m // tile_rows), depth)
        steps.append(Step(tile_kernel(entry + "z"), (a_slot, b_slot, out, Slot("meta")), words, grid))
        if not split:
            return Plan(tuple(steps), (Output((*batch, m, n), F32),), tuple(scratch))
        scratch.append(4 * split * m * n)  # (the partials, then their sum: a reduction over the slices)
        total = plan_reduction(Combine("sum", F32, 0.0), Layout.contiguous((split, m * n)), (0,), F32, facts,
                               name="matmul")
        for step in total.steps:
            assert isinstance(step, Step)
            slots = tuple(out if s.kind == "in" else Slot("tmp", s.index + len(scratch)) if s.kind == "tmp"
                          else s for s in step.slots)
            steps.append(Step(step.kernel, slots, step.words, step.grid))
        scratch += total.scratch
        return Plan(tuple(steps), (Output((*batch, m, n), F32),), tuple(scratch))
    offsets_a, offsets_b = _matrix_offsets(a, batch), _matrix_offsets(b, batch)
    for i, (oa, ob) in enumerate(zip(offsets_a, offsets_b, strict=True)):
        b_slot = bound(1, 4 * ob, 4 * k * n)
        for lo in range(0, m, rows):
            part = min(rows, m - lo)
            a_slot = bound(0, 4 * (oa + lo * k), 4 * part * k)
            at, size = 4 * (i * m * n + lo * n), 4 * part * n
            out = Slot("out", 0, at, size) if at % align == 0 else Slot("tmp", len(scratch), 0, size)
            grid = (-(-n // tile_cols), -(-part // tile_rows), 1)
            steps.append(Step(kernel, (a_slot, b_slot, out, Slot("meta")), (part, n, k, 0, 0, 0, 0, 0), grid))
            if out.kind == "tmp":
                scratch.append(size)
                steps.append(Copy(out, Slot("out", 0, at, size), size))
    return Plan(tuple(steps), (Output((*batch, m, n), F32),), tuple(scratch))
