"""The planners of stable sorting along one axis (sort, argsort) and of binary search
(searchsorted), filling in shaders/sort.wgsl and shaders/search.wgsl.

`plan_sort` picks by the row length: rows of at most BITONIC_MAX elements are sorted a workgroup
per row in workgroup memory (one dispatch: many short rows, a batched sort), longer rows by an
LSD radix sort of 8-bit digits of the values' order-preserving u32 keys (4 passes; 1 for bool),
each pass a histogram per tile of a row, a scan of those counts per row and a stable scatter, the
rows independent (the counts are kept per row). Values move between passes in two scratch
buffers (argsort's indices in two more); the first pass reads the input through its strides, the
last writes the output, C-ordered in the input's shape.

>>> from pycore.array.layout import Layout
>>> f32 = np.dtype("float32")
>>> p = plan_sort(Layout.contiguous((3, 100)), 1, f32, Facts())
>>> [s.kernel.entry for s in p.steps], p.steps[0].grid
(['bitonic'], (3, 1, 1))
>>> p = plan_sort(Layout.contiguous((200_000,)), 0, f32, Facts(), indices=True)
>>> [s.kernel.entry for s in p.steps][:3], len(p.steps), p.scratch[0], p.outputs[0].dtype.name
(['histogram', 'scan', 'scatter'], 12, 50176, 'int32')
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
    grid_for,
    i32_word,
    walk_lines,
    wgsl_type,
)
from pycore.kernels.wgsl import wgsl_constant, wgsl_template

TILE_THREADS = wgsl_constant("TILE_THREADS", "sort")
TILE = TILE_THREADS * wgsl_constant("TILE_ROUNDS", "sort")  # elements per radix tile
BITONIC_MAX = wgsl_constant("BITONIC_MAX", "sort")
WORKGROUP = wgsl_constant("WORKGROUP")
DTYPES = ("float32", "int32", "uint32", "bool")
INT32 = np.dtype(np.int32)

# WGSL of the ascending sort key of a value's bits `bits`, per dtype (see shaders/sort.wgsl)
KEYS = {
    "float32": """    if ((bits & 0x7fffffffu) > 0x7f800000u) { return 0xffffffffu; }
    var b = bits;
    if (b == 0x80000000u) { b = 0u; }
    return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);""",
    "int32": "    return bits ^ 0x80000000u;",
    "uint32": "    return bits;",
    "bool": "    return bits;",
}


def sort_keys(bits: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The kernels' ascending sort keys of stored values' bits (a model of KEYS, for tests).

    >>> sort_keys(np.array([-1.0, -0.0, 0.0, 1.0, np.nan], np.float32).view(np.uint32), np.dtype("float32"))
    array([1082130431, 2147483648, 2147483648, 3212836864, 4294967295], dtype=uint32)
    """
    b = np.asarray(bits, np.uint32)
    if dtype.name == "int32":
        return b ^ np.uint32(0x80000000)
    if dtype.name != "float32":
        return b.copy()
    b = np.where(b == 0x80000000, np.uint32(0), b)
    keys = np.where(b & np.uint32(0x80000000), ~b, b | np.uint32(0x80000000)).astype(np.uint32)
    return np.where((b & np.uint32(0x7FFFFFFF)) > 0x7F800000, np.uint32(0xFFFFFFFF), keys)


def _reader(source: str, dtype: str, indices: bool) -> tuple[list[str], str]:
    """Bindings (declaration lines, from 0) and the WGSL of value_at / index_at for values read from
    the input ("input", through its strides) or from the scratch buffers between passes ("buffer")."""
    if source == "input":
        decl = [f"@group(0) @binding(0) var<storage, read> src: array<{wgsl_type(np.dtype(dtype))}>;"]
        code = ("fn value_at(row: u32, ib: i32, c: u32) -> u32 {\n"
                "    return bitcast<u32>(src[u32(ib + i32(c) * iword(6u))]);\n}\n"
                "fn index_at(row: u32, c: u32) -> u32 {\n    return c;\n}")
        return decl, code
    decl = ["@group(0) @binding(0) var<storage, read> vin: array<u32>;"]
    index = "c"
    if indices:
        decl.append("@group(0) @binding(1) var<storage, read> iin: array<u32>;")
        index = "iin[row * word(1u) + c]"
    code = ("fn value_at(row: u32, ib: i32, c: u32) -> u32 {\n    return vin[row * word(1u) + c];\n}\n"
            f"fn index_at(row: u32, c: u32) -> u32 {{\n    return {index};\n}}")
    return decl, code


def _writer(target: str, indices: bool, at: int) -> tuple[list[str], str]:
    """Bindings (from `at`) and the WGSL of put(row, ob, dest, bits, index): into the scratch buffers
    ("buffer"), or the result ("out": the values, or argsort's indices)."""
    head = "fn put(row: u32, ob: i32, dest: u32, bits: u32, index: u32) {\n"
    if target == "out":
        decl = [f"@group(0) @binding({at}) var<storage, read_write> out: array<u32>;"]
        what = "index" if indices else "bits"
        return decl, head + f"    out[u32(ob + i32(dest) * iword(7u))] = {what};\n}}"
    decl = [f"@group(0) @binding({at}) var<storage, read_write> vout: array<u32>;"]
    lines = ["    vout[row * word(1u) + dest] = bits;"]
    if indices:
        decl.append(f"@group(0) @binding({at + 1}) var<storage, read_write> iout: array<u32>;")
        lines.append("    iout[row * word(1u) + dest] = index;")
    return decl, head + "\n".join(lines) + "\n}"


@cache
def _kernel(entry: str, dtype: str, rank: int, source: str, target: str, indices: bool) -> Kernel:
    """A sort.wgsl kernel: `entry` over rows whose other axes have `rank` axes, reading values of
    `dtype` from `source` ("input" or "buffer"), writing to `target` ("out", "buffer" or "none":
    histogram and scan write only the counts); argsort's indices carried where `indices`."""
    decl, read = _reader(source, dtype, indices) if entry != "scan" else ([], "")
    kinds = ["read"] * len(decl)
    if entry in ("histogram", "scan"):
        decl.append(f"@group(0) @binding({len(decl)}) var<storage, read_write> hist: array<u32>;")
        kinds.append("write")
    elif entry == "scatter":
        decl.append(f"@group(0) @binding({len(decl)}) var<storage, read> hist: array<u32>;")
        kinds.append("read")
    write = ""
    if target != "none":
        more, write = _writer(target, indices, len(decl))
        decl += more
        kinds += ["write"] * len(more)
    if entry == "scan":  # (scan reads no values; the other kernels' helpers still need them)
        read = ("fn value_at(row: u32, ib: i32, c: u32) -> u32 {\n    return 0u;\n}\n"
                "fn index_at(row: u32, c: u32) -> u32 {\n    return c;\n}")
    if target == "none":
        write = "fn put(row: u32, ob: i32, dest: u32, bits: u32, index: u32) {\n}"
    words_at = 8
    n_words = words_at + 3 * rank
    kept = walk_lines("r", "row", rank, words_at, [("ib", words_at + rank), ("ob", words_at + 2 * rank)])
    meta = len(decl)

    def text() -> str:
        filled = (wgsl_template("sort")
                  .replace("{{bindings}}", "\n".join(decl))
                  .replace("{{meta}}", str(meta))
                  .replace("{{meta_vec4s}}", str(-(-n_words // 4)))
                  .replace("{{key}}", KEYS[dtype])
                  .replace("{{kept}}", "\n".join(kept))
                  .replace("{{read}}", read)
                  .replace("{{write}}", write))
        head, *kernels = filled.split("@compute")
        own = [k for k in kernels if f"fn {entry}(" in k]  # (only this entry: the others bind more)
        return wgsl_template("common") + "\n" + head + "@compute" + own[0]

    name = f"sort:{entry}:{dtype}[{rank}]:{source}->{target}{':idx' if indices else ''}"
    return Kernel(name, entry, (*kinds, "uniform"), text)


def plan_sort(layout: Layout, axis: int, dtype: np.dtype, facts: Facts, *, descending: bool = False,
              indices: bool = False) -> Plan:
    """The plan of a stable sort of an input of `layout` and `dtype` along `axis` (normalized):
    its output, C-ordered in layout.shape, holds the sorted values (dtype) or, where `indices`,
    each sorted value's position along the axis (int32, argsort). descending: largest first,
    equal values still in their order (NaN first). ValueError where the data cannot be bound."""
    if dtype.name not in DTYPES:
        raise ValueError(f"sort: dtype {dtype} is not one of {', '.join(DTYPES)}")
    shape = layout.shape
    cols = shape[axis]
    rows = math.prod(shape) // cols if cols else 0
    if rows == 0:
        raise ValueError("sort: nothing to sort on the GPU (the caller answers empty inputs)")
    if 4 * rows * cols > facts.max_binding or 4 * layout.span()[1] > facts.max_binding:
        raise ValueError(f"sort: an array of shape {tuple(shape)} needs {4 * rows * cols:,} bytes in one GPU "
                         f"binding, over this device's maxStorageBufferBindingSize of {facts.max_binding:,}")
    out_strides = Layout.contiguous(shape).strides
    others = [d for d in range(len(shape)) if d != axis]
    k_shape = tuple(shape[d] for d in others)
    dims, (in_st, out_st) = collapse(k_shape, [tuple(layout.strides[d] for d in others),
                                               tuple(out_strides[d] for d in others)])
    if rows == 1:
        dims, in_st, out_st = (), (), ()
    rank = len(dims)
    flip = 0xFFFFFFFF if descending else 0
    out = Output(tuple(shape), INT32 if indices else dtype)

    def words(tiles: int, shift: int) -> tuple[int, ...]:
        w = [rows, cols, tiles, shift, flip, layout.offset, layout.strides[axis], out_strides[axis],
             *dims, *in_st, *out_st]
        return tuple(i32_word(x) for x in w)

    if cols <= BITONIC_MAX:
        size = 1 << max(1, (cols - 1).bit_length())
        kernel = _kernel("bitonic", dtype.name, rank, "input", "out", indices)
        step = Step(kernel, (Slot("in", 0), Slot("out", 0), Slot("meta")), words(size, 0),
                    grid_for(rows, facts.max_groups))
        return Plan((step,), (out,))
    tiles = -(-cols // TILE)
    passes = 1 if dtype.name == "bool" else 4
    hist = Slot("tmp", 0)
    values = (Slot("tmp", 1), Slot("tmp", 2))
    index_slots = (Slot("tmp", 3), Slot("tmp", 4))
    tile_grid = grid_for(rows * tiles, facts.max_groups)
    steps: list[Step] = []
    for p in range(passes):
        source = "input" if p == 0 else "buffer"
        target = "out" if p == passes - 1 else "buffer"
        if p == 0:
            reads: tuple[Slot, ...] = (Slot("in", 0),)
        else:
            reads = (values[(p - 1) % 2],) + ((index_slots[(p - 1) % 2],) if indices else ())
        if target == "out":
            writes: tuple[Slot, ...] = (Slot("out", 0),)
        else:
            writes = (values[p % 2],) + ((index_slots[p % 2],) if indices else ())
        w = words(tiles, 8 * p)
        steps += [
            Step(_kernel("histogram", dtype.name, rank, source, "none", indices),
                 (*reads, hist, Slot("meta")), w, tile_grid),
            Step(_kernel("scan", "uint32", 0, "input", "none", False), (hist, Slot("meta")), w,
                 grid_for(rows, facts.max_groups)),
            Step(_kernel("scatter", dtype.name, rank, source, target, indices),
                 (*reads, hist, *writes, Slot("meta")), w, tile_grid),
        ]
    n = 4 * rows * cols
    scratch = [4 * rows * 256 * tiles]
    if passes > 1:
        scratch += [n, n if passes > 2 else 4]
        if indices:
            scratch += [n, n if passes > 2 else 4]
    return Plan(tuple(steps), (out,), tuple(scratch))


@cache
def _search_kernel(dtype: str, sorter: bool) -> Kernel:
    t = wgsl_type(np.dtype(dtype))
    decl = [f"@group(0) @binding(0) var<storage, read> sorted: array<{t}>;",
            f"@group(0) @binding(1) var<storage, read> queries: array<{t}>;"]
    if sorter:
        decl.append("@group(0) @binding(2) var<storage, read> sorter: array<i32>;")
        at = "sorted[u32(iword(3u) + sorter[u32(iword(6u) + i32(i) * iword(7u))] * iword(4u))]"
    else:
        at = "sorted[u32(iword(3u) + i32(i) * iword(4u))]"
    decl.append(f"@group(0) @binding({len(decl)}) var<storage, read_write> out: array<u32>;")
    read = f"fn sorted_at(i: u32) -> u32 {{\n    return bitcast<u32>({at});\n}}"

    def text() -> str:
        filled = (wgsl_template("search")
                  .replace("{{bindings}}", "\n".join(decl))
                  .replace("{{meta}}", str(len(decl)))
                  .replace("{{key}}", KEYS[dtype])
                  .replace("{{read}}", read))
        return wgsl_template("common") + "\n" + filled

    kinds = ("read", "read") + (("read",) if sorter else ()) + ("write", "uniform")
    return Kernel(f"search:{dtype}{':sorter' if sorter else ''}", "search", kinds, text)


def plan_search(sorted_layout: Layout, queries: Layout, dtype: np.dtype, side: str, facts: Facts,
                sorter: Layout | None = None) -> Plan:
    """The plan of searchsorted: for each query (a C-contiguous layout, read in order), where it
    goes in the 1-D sorted values (`sorted_layout`, or that permuted by `sorter`'s int32 indices);
    side "left" or "right". Output: int32 in the queries' shape.

    >>> from pycore.array.layout import Layout
    >>> p = plan_search(Layout.contiguous((10,)), Layout.contiguous((3, 4)), np.dtype("float32"), "right",
    ...                 Facts())
    >>> p.steps[0].words, p.outputs[0].shape
    ((10, 12, 1, 0, 1, 0, 0, 0), (3, 4))
    """
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if dtype.name not in DTYPES:
        raise ValueError(f"searchsorted: dtype {dtype} is not one of {', '.join(DTYPES)}")
    n, count = sorted_layout.size, queries.size
    for what, lay in (("x1", sorted_layout), ("x2", queries)):
        if 4 * max(lay.span()[1], lay.size) > facts.max_binding:
            raise ValueError(f"searchsorted: {what} of shape {lay.shape} needs more than this device's "
                             f"maxStorageBufferBindingSize ({facts.max_binding:,} bytes) in one binding")
    words = [n, count, int(side == "right"), sorted_layout.offset, sorted_layout.strides[0] if n else 0,
             queries.offset, sorter.offset if sorter else 0, sorter.strides[0] if sorter and n else 0]
    slots = (Slot("in", 0), Slot("in", 1)) + ((Slot("in", 2),) if sorter else ()) + (Slot("out", 0),
                                                                                      Slot("meta"))
    step = Step(_search_kernel(dtype.name, sorter is not None), slots, tuple(i32_word(w) for w in words),
                grid_for(-(-count // WORKGROUP), facts.max_groups))
    return Plan((step,), (Output(tuple(queries.shape), INT32),))


__all__ = ["BITONIC_MAX", "KEYS", "TILE", "plan_search", "plan_sort", "sort_keys"]
