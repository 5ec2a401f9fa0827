"""The fused attention generator and planner: shaders/attention.wgsl filled in for given head
sizes, mask kind, causality and batch rank. One kernel computes softmax(q k^T * scale + mask) v
for every batch entry and query, folding each tile of keys into a running softmax (as flash
attention does), so the (L, S) scores are never written: the work one call does is reading q, k, v
(and the mask) and writing the output. calls/nn.py's scaled_dot_product_attention uses it for
float32 arrays on the GPU whose head sizes are at most MAX_DIM; other calls compose matmul,
softmax and matmul.

>>> from pycore.array.layout import Layout
>>> q = Layout.contiguous((8, 8, 512, 64))
>>> p = plan_attention(q, q, q, None, "", False, 0.125, Facts())
>>> p.outputs[0].shape, p.steps[0].kernel.name, p.steps[0].grid
((8, 8, 512, 64), 'attend:16x16:256x32:prefetch[1]', (128, 1, 1))
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
    f32_loader,
    grid_for,
    i32_word,
    walk_lines,
    word_of,
)
from pycore.kernels.wgsl import used_only, wgsl_template

F32 = np.dtype(np.float32)
# queries per workgroup, a thread each: on a GPU, WebGPU's default limit (an H200 ran 8 x 8 heads of
# 512 tokens 3x faster with 256 than with 64: more warps share each tile of keys)
QUERIES = {"gpu": 256, "cpu": 64}
PREFETCH = True  # on a GPU, read the next tile of k and v into registers before the work on this one
MAX_DIM = 128  # the largest head size (q's and v's last axis) the kernel keeps in registers
TILE_BYTES = 16384  # workgroup memory for a tile of k and v (WebGPU's default limit for all of it)
MASKS = ("", "bool", "float")  # no mask, a boolean one (True: attend), an additive one
BATCH_AT = 22  # the first word of the batch shape
# On a GPU, the keys are walked in parts (each a workgroup's, then combined: shaders/
# attention_parts.wgsl) where the blocks of queries alone would make fewer than GROUPS workgroups,
# in parts of at least PART_KEYS keys; causal attention's blocks (whose lengths grow with their
# queries) in parts of CAUSAL_KEYS keys, so that long blocks spread over several workgroups
GROUPS = 128
PART_KEYS = 512
CAUSAL_KEYS = 1024


def keys_per_tile(d4: int, v4: int, most: int = 64) -> int:
    """Keys per tile: the largest power of two up to `most` whose k and v rows fit TILE_BYTES.

    >>> keys_per_tile(16, 16), keys_per_tile(32, 32), keys_per_tile(1, 1)
    (32, 16, 64)
    """
    bc = most
    while bc > 1 and bc * (d4 + v4) * 16 > TILE_BYTES:
        bc //= 2
    return bc


def loop_iterations(d4: int, v4: int, br: int, bc: int, n_k: int) -> int:
    """The loop iterations one invocation of the kernel runs in all (rows of d4 and v4 vec4s, br
    queries per workgroup, tiles of bc of n_k keys), for drivers that cap them (Facts.loop_cap).

    >>> loop_iterations(2, 2, 64, 64, 4000)
    25411
    """
    tile = 1 + -(-bc * d4 * 4 // br) + -(-bc * v4 * 4 // br) + bc * (1 + d4) + v4 + bc * (1 + v4)
    return 5 * d4 + v4 + -(-n_k // bc) * tile + 5 * v4


# (operand, its rows' vec4s, its stride words, its row length) of the k and v tiles
_TILES = (("k", "D4", 14, "d"), ("v", "V4", 16, "dv"))


def _tile_loads(d4: int, v4: int, br: int, bc: int, prefetch: bool) -> tuple[str, str, str]:
    """WGSL that fills the tile of k and v in workgroup memory (`kt`, `vt`) for keys j0 ...: without
    `prefetch`, each thread loads its elements and stores them; with it, each thread holds its
    elements of the next tile in registers (`pk`, `pv`), read before the work on the current tile,
    and stores them at the tile's start: (before the loop, the tile's stores, after them)."""
    def at(width: str, e: str) -> list[str]:  # (element e of the tile: key j, column c)
        return [f"let j = {e} / ({width} * 4u);", f"let c = {e} % ({width} * 4u);"]

    def load(name: str, w: int, n: str, j0: str) -> list[str]:  # (x, from key j0 + j of rows of n)
        return [f"let kj = {j0} + j;", f"let x = {name}_at(u32({name}b + i32(min(kj, n_k - 1u)) * iword({w}u)"
                f" + i32(min(c, {n} - 1u)) * iword({w + 1}u)));"]

    def kept(n: str) -> str:  # (x, or 0 past the keys or the row)
        return f"select(0.0, x, kj < n_k && c < {n})"

    def indented(lines: list[str], by: int) -> list[str]:
        return [" " * by + line for line in lines]

    if not prefetch:
        lines = []
        for name, width, w, n in _TILES:
            lines += [f"for (var e = t; e < BC * {width} * 4u; e = e + BR) {{",
                      *indented([*at(width, "e"), *load(name, w, n, "j0"),
                                 f"{name}t[j * {width} + c / 4u][c % 4u] = {kept(n)};"], 4), "}"]
        return "", "\n".join(indented(lines, 8)), ""
    counts = {"k": bc * d4 * 4 // br, "v": bc * v4 * 4 // br}

    def fetch(j0: str) -> list[str]:
        lines = []
        for name, width, w, n in _TILES:
            body = [*at(width, "(t + u * BR)"), *load(name, w, n, j0), f"p{name}[u] = {kept(n)};"]
            lines += [f"for (var u = 0u; u < {counts[name]}u; u = u + 1u) {{", *indented(body, 4), "}"]
        return lines

    first = [f"var p{name}: array<f32, {counts[name]}>;" for name, *_ in _TILES] + fetch("k_lo")
    stores = []
    for name, width, _, _ in _TILES:
        body = [*at(width, "(t + u * BR)"), f"{name}t[j * {width} + c / 4u][c % 4u] = p{name}[u];"]
        stores += [f"for (var u = 0u; u < {counts[name]}u; u = u + 1u) {{", *indented(body, 4), "}"]
    after = ["if (j0 + BC < last) {", *indented(fetch("j0 + BC"), 4), "}"]
    return "\n".join(indented(first, 4)), "\n".join(indented(stores, 8)), "\n".join(indented(after, 8))


@cache
def _kernel(d4: int, v4: int, mask: str, causal: bool, batch_rank: int, br: int, bc: int, unrolled: bool,
            prefetch: bool = False, parts: bool = False, halves: tuple[bool, ...] = (False, False, False)
            ) -> Kernel:
    """The kernel for rows of d4 and v4 vec4s, a mask kind of MASKS, with or without is_causal, br
    queries per workgroup and bc keys per tile; its loops over a row and a tile `unrolled` (constant
    bounds) or not (bounds read at run time); `prefetch`: the next tile read into registers before
    the work on this one (`_tile_loads`; unrolled kernels only); `parts`: it writes a part's
    unnormalized rows, maxima and sums, for shaders/attention_parts.wgsl to combine; `halves`:
    which of q, k and v are float16 (read from u32 words)."""
    n_words = BATCH_AT + 5 * batch_rank
    targets = [(name, BATCH_AT + batch_rank * (1 + j)) for j, name in enumerate(("qb", "kb", "vb", "mb"))]
    batch = walk_lines("bb", "b", batch_rank, BATCH_AT, targets)
    binding, masking = "", []
    if mask:
        element = "u32" if mask == "bool" else "f32"
        binding = f"@group(0) @binding(5) var<storage, read> mask: array<{element}>;"
        at = "mask[u32(mb + i32(qi) * iword(18u) + i32(min(kj, n_k - 1u)) * iword(19u))]"
        masking.append(f"            sj = select(neg_inf, sj, {at} != 0u);" if mask == "bool"
                       else f"            sj = sj + {at};")
    if causal:
        masking.append("            sj = select(neg_inf, sj, kj <= i);")
    last = "min(n_k, i0 + BR)" if causal else "n_k"  # (causal: no key past the block's last query)
    last = f"min({last}, k_lo + word(20u))"
    fetch_first, tile_in, fetch_next = _tile_loads(d4, v4, br, bc, unrolled and prefetch)
    store = ["        // (l is 0 only where every key was masked: NaN, as the unfused softmax's 0 / 0)",
             "        let inv = select(1.0 / l, bitcast<f32>(0x7fc00000u | (n_q & 0u)), l == 0.0);",
             "        let ob = (b * n_q + i) * dv;"]
    if parts:
        store = ["        let inv = 1.0;", "        let ob = ((b * n_q + i) * parts + part) * (dv + 2u);",
                 "        out[ob + dv] = m;", "        out[ob + dv + 1u] = l;"]

    loaders = [f32_loader(name, half) for name, half in zip("qkv", halves, strict=True)]

    def source() -> str:
        filled = (wgsl_template("attention").replace("{{meta_vec4s}}", str(-(-n_words // 4)))
                  .replace("{{loaders}}", "\n".join(loaders))
                  .replace("{{mask_binding}}", binding).replace("{{br}}", str(br))
                  .replace("{{bc}}", str(bc)).replace("{{d4}}", str(d4)).replace("{{v4}}", str(v4))
                  .replace("{{kt_size}}", str(bc * d4)).replace("{{vt_size}}", str(bc * v4))
                  .replace("{{batch}}", "\n".join(batch)).replace("{{mask}}", "\n".join(masking))
                  .replace("{{last}}", f"    let last = {last};").replace("{{fetch_first}}", fetch_first)
                  .replace("{{tile_in}}", tile_in).replace("{{fetch_next}}", fetch_next)
                  .replace("{{store}}", "\n".join(store)))
        for name, half in zip("qkv", halves, strict=True):
            filled = filled.replace(f"{{{{{name}_type}}}}", "u32" if half else "f32")
        for slot, const, runtime in (("d4_n", "D4", "d4r"), ("v4_n", "V4", "v4r"), ("bc_n", "BC", "bcr")):
            filled = filled.replace(f"{{{{{slot}}}}}", const if unrolled else runtime)
        return used_only("\n".join([wgsl_template("common"), filled]))

    bindings = ("read", "read", "read", "write", "uniform") + (("read",) if mask else ())
    name = (f"attend:{d4}x{v4}:{br}x{bc}{'' if unrolled else ':rolled'}{':prefetch' * prefetch}"
            f"{':' + mask if mask else ''}"
            f"{':causal' * causal}{':parts' * parts}"
            f"{':f16=' + ''.join(n for n, h in zip('qkv', halves, strict=True) if h) if any(halves) else ''}"
            f"[{batch_rank}]")
    return Kernel(name, "attend", bindings, source)


COMBINE = Kernel("attention_parts", "combine", ("read", "write", "uniform"), lambda: "",
                 family="attention_parts")


def key_parts(n_groups: int, n_k: int, causal: bool, bc: int) -> int:
    """The parts a block of queries walks its keys in on a GPU (1: all in one workgroup): enough
    for GROUPS workgroups, each part PART_KEYS keys or more; causal, parts of CAUSAL_KEYS where
    the keys pass that. Parts are whole tiles of bc keys.

    >>> key_parts(128, 4096, False, 32), key_parts(16, 4096, False, 32)
    (1, 8)
    >>> key_parts(128, 4096, True, 32), key_parts(128, 512, True, 32)
    (4, 1)
    """
    parts = max(1, min(-(-GROUPS // n_groups), n_k // PART_KEYS))
    if causal:
        parts = max(parts, -(-n_k // CAUSAL_KEYS))
    return -(-n_k // _part_keys(n_k, parts, bc))


def parts_of(plan: Plan) -> int:
    """The parts an attention plan walks its keys in (1: one kernel, no combination).

    >>> from pycore.array.layout import Layout
    >>> one, long = Layout.contiguous((1, 300, 64)), Layout.contiguous((1, 4096, 64))
    >>> parts_of(plan_attention(one, long, long, None, "", False, 0.125, Facts()))
    8
    """
    step = plan.steps[0]
    return step.words[21] if isinstance(step, Step) else 1  # (words 20, 21: keys a part, parts)


def _part_keys(n_k: int, parts: int, bc: int) -> int:
    """Keys of each of `parts` parts of n_k keys, in whole tiles of bc (the last part may be shorter)."""
    per = -(-n_k // parts)
    return -(-per // bc) * bc


def plan_attention(q: Layout, k: Layout, v: Layout, mask: Layout | None, mask_kind: str, causal: bool,
                   scale: float, facts: Facts, parts: int | None = None,
                   halves: tuple[bool, bool, bool] = (False, False, False)) -> Plan:
    """The plan of softmax(q k^T * scale + mask) v for float32 q (..., L, D), k (..., S, D) and
    v (..., S, Dv) read through their layouts, whose batch axes broadcast; `mask` (broadcasting to
    (..., L, S)) of `mask_kind` ("bool": u32 words, True to attend; "float": added to the scores),
    or None; `causal` keeps key j for query i where j <= i. The output (..., L, Dv) is C-ordered.
    The caller has checked the arguments; a ValueError where a head is larger than MAX_DIM, an
    array does not fit one binding or the keys need more loop iterations than the driver runs (the
    caller composes the attention of other calls instead). `parts`: the keys' parts (`key_parts`
    on a GPU, 1 on a CPU adapter, where none is given). `halves`: which of q, k and v are float16
    (the output is float32 either way)."""
    n_q, d = q.shape[-2:]
    n_k, dv = v.shape[-2:]
    if d > MAX_DIM or dv > MAX_DIM:
        raise ValueError(f"attention: heads of {d} and {dv} exceed the fused kernel's {MAX_DIM}")
    heads = [x.shape[:-2] for x in (q, k, v, mask) if x is not None]
    batch = tuple(np.broadcast_shapes(*heads))
    views = [x.broadcast_to((*batch, *x.shape[-2:])) for x in (q, k, v)]
    views.append(Layout.contiguous((*batch, 1, 1)) if mask is None else mask.broadcast_to((*batch, n_q, n_k)))
    n_batch = math.prod(batch)
    for what, layout, half in zip(("q", "k", "v", "mask"), (q, k, v, mask), (*halves, False), strict=True):
        if layout is not None and (2 if half else 4) * (layout.span()[1] + 2) > facts.max_binding:
            raise ValueError(f"attention: {what} of shape {layout.shape} does not fit one GPU binding")
    out_shape = (*batch, n_q, dv)
    if 4 * math.prod(out_shape) > facts.max_binding:
        raise ValueError(f"attention: the result of shape {out_shape} does not fit one GPU binding")
    dims, each = collapse(tuple(batch), [tuple(x.strides[:-2]) for x in views])
    if not batch:
        dims, each = (), [() for _ in views]
    d4, v4 = -(-d // 4), -(-dv // 4)
    bc = keys_per_tile(d4, v4)
    gpu = not facts.cpu_adapter
    br = QUERIES["gpu" if gpu else "cpu"]
    if facts.loop_cap and loop_iterations(d4, v4, br, bc, n_k) > facts.loop_cap:
        raise ValueError(f"attention: {n_k} keys take more loop iterations than the driver's cap "
                         f"({facts.loop_cap:,})")
    prefetch = PREFETCH and gpu and (bc * d4 * 4) % br == 0 and (bc * v4 * 4) % br == 0
    blocks = -(-n_q // br)
    if parts is None:
        parts = key_parts(n_batch * blocks, n_k, causal, bc) if gpu else 1
    chunk = _part_keys(n_k, parts, bc)
    parts = max(1, -(-n_k // chunk))
    scratch = 4 * n_batch * n_q * parts * (dv + 2)
    if parts > 1 and scratch > facts.max_binding:
        parts, chunk, scratch = 1, -(-n_k // bc) * bc, 0
    kernel = _kernel(d4, v4, mask_kind if mask is not None else "", causal, len(dims), br, bc, gpu, prefetch,
                     parts > 1, tuple(halves))
    words = [n_q, n_k, d, dv, word_of(scale, F32), blocks, n_batch, bc, *(x.offset for x in views)]
    for x in views:
        words += x.strides[-2:]
    words += [chunk, parts, *dims, *(s for st in each for s in st)]
    into = Slot("tmp", 0) if parts > 1 else Slot("out", 0)
    slots: tuple[Slot, ...] = (Slot("in", 0), Slot("in", 1), Slot("in", 2), into, Slot("meta"))
    if mask is not None:
        slots = (*slots, Slot("in", 3))
    grid = grid_for(n_batch * blocks * parts, facts.max_groups)
    steps = [Step(kernel, slots, tuple(i32_word(w) for w in words), grid)]
    if parts == 1:
        return Plan(tuple(steps), (Output(out_shape, F32),))
    combine = (n_batch * n_q, dv, parts)
    steps.append(Step(COMBINE, (Slot("tmp", 0), Slot("out", 0), Slot("meta")), combine,
                      grid_for(-(-n_batch * n_q * dv // 256), facts.max_groups)))
    return Plan(tuple(steps), (Output(out_shape, F32),), scratch=(scratch,))
