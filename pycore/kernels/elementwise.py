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
from functools import cache, cached_property
from typing import Any

import numpy as np

from pycore.array.dtypes import wide
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
    item_bytes,
    load_packed,
    pack_word,
    packed,
    scalar_words,
    storage_bytes,
    value_type,
    wgsl_type,
    word_of,
)
from pycore.kernels.wgsl import used_only, wgsl_complex, wgsl_functions, wgsl_template, wgsl_typed
from pycore.tables.ufuncs import flops_of

WORKGROUP = 256  # threads per workgroup (common.wgsl's WORKGROUP)
PER_THREAD = 4  # output elements per thread (strided.wgsl)
# From this much arithmetic per element (the ufunc table's flops, summed over an expression's
# calls: the transcendental functions) a thread computes twice PER_THREAD 32-bit elements, all
# loaded first: its loads stay in flight while the arithmetic of the first ones runs. On an H200,
# 64M float32 elements: exp 0.90 -> 0.97 of the copy's bandwidth, sinh 0.78 -> 0.85, asinh 0.66 ->
# 0.71; a copy or an add, whose arithmetic is a few instructions, ran 1-3% slower so.
HEAVY_FLOPS = 20.0
F32 = np.dtype(np.float32)
# Functions whose float16 results (computed in float32, then rounded) come from the hardware's
# builtins (shaders/ufuncs.wgsl): their error, a few float32 ULPs, is far below a float16 ULP, and
# they cost a fraction of the correctly rounded float32 versions, which set float16's pace
HALF_RESULTS = {"exp_f32": "exp_to_f16", "log_f32": "log_to_f16"}


@dataclass(frozen=True)
class Operand:
    """An input of an element-wise op: an array (its dtype and layout) or a scalar (`value`)."""

    dtype: np.dtype
    layout: Layout | None = None  # None: a scalar
    value: Any = None


def convert(expr: str, src: np.dtype, dst: np.dtype) -> str:
    """WGSL converting a vec4 of `src` values (as stored) to `dst` values (as stored); complex64
    values are a C4 (shaders/complex.wgsl): real ones convert to it, it converts to bool only.

    >>> i32, f32 = np.dtype("int32"), np.dtype("float32")
    >>> convert("a", i32, f32), convert("a", i32, np.dtype(bool))
    ('vec4<f32>(a)', 'select(vec4<u32>(0u), vec4<u32>(1u), a != vec4<i32>(0))')
    >>> convert("a", i32, np.dtype("complex64"))
    'c4_real(vec4<f32>(a))'
    """
    src, dst = wide(src), wide(dst)  # (a packed dtype's values are held in 32 bits)
    if src == dst:
        return expr
    if dst.kind == "c":
        return f"c4_real({convert(expr, src, F32)})"
    if src.kind == "c":
        if dst.name != "bool":
            raise TypeError(f"complex64 values do not convert to {dst.name} (take real() or abs() first)")
        return f"c4_nonzero({expr})"
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


def heavy(program: tuple[tuple[Any, ...], ...]) -> bool:
    """Whether an expression's calls (`Expr.program`: function names first) do HEAVY_FLOPS of
    arithmetic per element or more.

    >>> heavy((("exp_f32", (0,)),)), heavy((("add_f32", (0, 1)), ("negative_f32", (-1,))))
    (True, False)
    """
    return sum(flops_of(call[0]) for call in program) >= HEAVY_FLOPS


def _spread(words: int) -> str:
    """A thread's first element (word) of its `words`, the others a workgroup's width apart, so
    that each load and store instruction of a workgroup touches neighbouring words."""
    return f"(t / WORKGROUP) * ({words}u * WORKGROUP) + t % WORKGROUP"


def per_thread(out: np.dtype, eight: bool = False) -> int:
    """Output elements a thread computes: four 32-bit words of them (four of 32 bits or more, eight
    of 16 bits, sixteen of 8), so a packed array's thread moves as many bytes as a float32 one's;
    eight of 32 bits where the arithmetic is heavy (`eight`: `heavy`; not complex64).

    >>> per_thread(np.dtype("float32")), per_thread(np.dtype("float16")), per_thread(np.dtype("uint8"))
    (4, 8, 16)
    >>> per_thread(np.dtype("float32"), eight=True)
    8
    """
    if packed(out):
        return 4 * (4 // out.itemsize)
    return 2 * PER_THREAD if eight and out.kind != "c" else PER_THREAD


def _lanes(out: np.dtype, eight: bool = False) -> tuple[str, list[list[str]]]:
    """(a thread's first element, its elements in groups of four: a vec4 each) in the output's
    chunk, as WGSL, for `per_thread(out, eight)` elements. A thread's words are a workgroup's width
    apart (neighbouring threads, neighbouring words). A packed output is written a word at a time,
    so a word's elements are one thread's: each of an 8-bit output's groups is one word, each of a
    16-bit output's two.

    >>> _lanes(np.dtype("float16"))[1][1][1:3]  # (a thread's third and fourth words)
    ['first + 4u * WORKGROUP + 1u', 'first + 6u * WORKGROUP + 0u']
    >>> _lanes(np.dtype("float32"), eight=True)[1][1][0]
    'first + 4u * WORKGROUP'
    """
    if not packed(out):
        n = per_thread(out, eight)
        return _spread(n), [[f"first + {j}u * WORKGROUP" for j in range(g, g + PER_THREAD)]
                            for g in range(0, n, PER_THREAD)]
    per = 4 // out.itemsize  # (elements in a word)
    first = f"{per}u * ({_spread(4)})"
    groups = []
    for g in range(per):
        lanes = []
        for j in range(PER_THREAD):
            k, e = divmod(4 * g + j, per)  # (element e of the thread's word k)
            lanes.append(f"first + {per * k}u * WORKGROUP + {e}u" if k else f"first + {e}u")
        groups.append(lanes)
    return first, groups


def _whole(dtype: np.dtype, offset: int, strides: tuple[int, ...], out: np.dtype) -> bool:
    """Whether an input is read a word at a time: it is packed like the output, contiguous (one
    collapsed axis of stride 1) and starts on a word, so each output word's elements are one input
    word's (a thread's elements come in whole words: `_lanes`).

    >>> f16 = np.dtype("float16")
    >>> _whole(f16, 0, (1,), f16), _whole(f16, 1, (1,), f16), _whole(f16, 0, (2,), f16)
    (True, False, False)
    """
    return (packed(dtype) and packed(out) and dtype.itemsize == out.itemsize and tuple(strides) == (1,)
            and offset % (4 // dtype.itemsize) == 0)


def _type_name(dtype: np.dtype) -> str:
    """A dtype's name in kernel names: its WGSL type, or a packed dtype's NumPy name (c64: complex64)."""
    if dtype.kind == "c":
        return "c64"
    return dtype.name if packed(dtype) else wgsl_type(dtype)


@dataclass(frozen=True)
class Call:
    """One vec4 WGSL function applied in an element-wise kernel: its arguments (k >= 0: operand k;
    k < 0: the value of call -k - 1), computed in `compute`, giving `out` (`returns_bool`: the
    function returns vec4<bool>), with f32 `params` after its arguments (an activation's alpha)."""

    function: str
    args: tuple[int, ...]
    compute: np.dtype
    out: np.dtype
    returns_bool: bool = False
    params: tuple[float, ...] = ()

    def key(self) -> tuple:
        """What makes two calls the same, bit for bit (-0.0 is not 0.0 here)."""
        return (self.function, self.args, self.compute.name, self.out.name, self.returns_bool,
                tuple(float(p).hex() for p in self.params))


@dataclass(frozen=True)
class Expr:
    """What an element-wise kernel computes over `shape`: its operands (arrays, read through their
    layouts broadcast to `shape`, and scalars) and its calls, the last of which is the result.

    >>> f32 = np.dtype("float32")
    >>> e = Expr((Operand(f32, Layout.contiguous((4,))),),
    ...          (Call("exp_f32", (0,), f32, f32), Call("negative_f32", (-1,), f32, f32)), (4,))
    >>> e.out, e.name
    (dtype('float32'), 'negative_f32(exp_f32(f32[1]))')
    """

    operands: tuple[Operand, ...]
    calls: tuple[Call, ...]
    shape: tuple[int, ...]

    @property
    def out(self) -> np.dtype:
        return self.calls[-1].out

    @property
    def arrays(self) -> list[int]:
        """The operands that are arrays (each a binding of the kernel, in this order)."""
        return [k for k, o in enumerate(self.operands) if o.layout is not None]

    def key(self) -> tuple:
        """What makes two expressions the same kernel and words (a plan's cache key)."""
        return (tuple((o.dtype.name, o.layout, o.layout or scalar_words(o.value, o.dtype))
                      for o in self.operands),
                tuple(c.key() for c in self.calls), self.shape)

    def reshaped(self, shape: tuple[int, ...]) -> Expr | None:
        """The same values laid out in another shape of as many elements (C order), its operands'
        views reshaped to match; None where a view cannot be (a broadcast axis merged, say).

        >>> f32 = np.dtype("float32")
        >>> e = Expr((Operand(f32, Layout.contiguous((4, 6))),), (Call("exp_f32", (0,), f32, f32),), (4, 6))
        >>> e.reshaped((24,)).operands[0].layout
        Layout(shape=(24,), strides=(1,), offset=0)
        """
        operands = []
        for o in self.operands:
            view = o.layout
            if view is not None:
                view = view.broadcast_to(self.shape).reshape(shape)
                if view is None:
                    return None
            operands.append(Operand(o.dtype, view, o.value))
        return Expr(tuple(operands), self.calls, tuple(shape))

    @cached_property
    def program(self) -> tuple[tuple[str, tuple[int, ...], str, bool, str, int], ...]:
        """The calls as the kernel generators take them (hashable: their cache keys); a call whose
        result is rounded to float16 computes it with its HALF_RESULTS function where it has one."""
        return tuple((HALF_RESULTS.get(c.function, c.function) if c.out.name == "float16" else c.function,
                      c.args, c.compute.name, c.returns_bool, c.out.name, len(c.params))
                     for c in self.calls)

    @cached_property
    def specs(self) -> tuple[tuple[str, bool], ...]:
        """The operands as the kernel generators take them: (dtype name, is scalar) each."""
        return tuple((o.dtype.name, o.layout is None) for o in self.operands)

    def fixed_words(self) -> list[int]:
        """The uniform words of the scalars' bits, then the calls' f32 parameters."""
        return ([w for o in self.operands if o.layout is None for w in scalar_words(o.value, o.dtype)]
                + [word_of(p, F32) for c in self.calls for p in c.params])

    @cached_property
    def name(self) -> str:
        """The expression as nested calls of the operands' dtypes ([rank] marks an array)."""
        marks = [_type_name(o.dtype) + ("" if o.layout is None else f"[{o.layout.ndim}]")
                 for o in self.operands]
        return nested([(c.function, c.args, len(c.params)) for c in self.calls], marks)


def nested(calls: list[tuple[str, tuple[int, ...], int]], marks: list[str]) -> str:
    """Calls (function, arguments as in `Call`, f32 parameters) as nested text of the operands'
    `marks`; a call used again is named where it first appears (v1=...) and then by that name.

    >>> nested([("exp_f32", (0,), 0), ("multiply_f32", (-1, -1), 0)], ["f32[1]"])
    'multiply_f32(v0=exp_f32(f32[1]),v0)'
    """
    uses: dict[int, int] = {}
    for _, args, _ in calls:
        for a in args:
            uses[a] = uses.get(a, 0) + 1
    shown: set[int] = set()

    def text(arg: int) -> str:
        if arg >= 0:
            return marks[arg]
        if arg in shown:
            return f"v{-arg - 1}"
        shown.add(arg)
        function, args, n_params = calls[-arg - 1]
        body = f"{function}({','.join(text(a) for a in args)}{',f32' * n_params})"
        return f"v{-arg - 1}={body}" if uses.get(arg, 0) > 1 else body
    return text(-len(calls))


def inline(consumer: Expr, k: int, producer: Expr, keys: list[Any], producer_keys: list[Any]
           ) -> tuple[Expr, list[Any]]:
    """`consumer` with its array operand k (the producer's result, read whole: its layout is the
    contiguous layout of `producer.shape`, broadcast) computed from the producer's operands instead.
    `keys`/`producer_keys`: an identity per array operand (where it is bound); operands with equal
    keys and layouts are read once, equal calls computed once. Returns the expression and its keys.

    >>> f32 = np.dtype("float32")
    >>> x = Operand(f32, Layout.contiguous((4,)))
    >>> p = Expr((x,), (Call("exp_f32", (0,), f32, f32),), (4,))
    >>> c = Expr((x, x), (Call("multiply_f32", (0, 1), f32, f32),), (4,))
    >>> e, keys = inline(c, 1, p, ["a", "b"], ["a"])
    >>> e.name, keys
    ('multiply_f32(f32[1],exp_f32(f32[1]))', ['a'])
    """
    operands = list(consumer.operands)
    op_keys: list[Any] = [None] * len(operands)
    for j, at in enumerate(consumer.arrays):
        op_keys[at] = keys[j]
    where: dict[int, int] = {}  # producer operand -> combined operand
    for j, o in enumerate(producer.operands):
        key = producer_keys[producer.arrays.index(j)] if o.layout is not None else None
        same = next((i for i, (q, qk) in enumerate(zip(operands, op_keys, strict=True))
                     if key is not None and qk == key and q.layout == o.layout and q.dtype == o.dtype), None)
        if same is None:
            operands.append(o)
            op_keys.append(key)
            same = len(operands) - 1
        where[j] = same
    n_p = len(producer.calls)
    calls = [Call(c.function, tuple(where[a] if a >= 0 else a for a in c.args), c.compute, c.out,
                  c.returns_bool, c.params) for c in producer.calls]
    root = -n_p  # the producer's result
    calls += [Call(c.function, tuple(root if a == k else a if a >= 0 else a - n_p for a in c.args),
                   c.compute, c.out, c.returns_bool, c.params) for c in consumer.calls]
    return _tidied(operands, op_keys, calls, consumer.shape)


def _tidied(operands: list[Operand], op_keys: list[Any], calls: list[Call], shape: tuple[int, ...]
            ) -> tuple[Expr, list[Any]]:
    """The expression from its result back: only the operands and calls it uses, each call once."""
    used: list[int] = []
    out_calls: list[Call] = []
    seen: dict[tuple, int] = {}
    done: dict[int, int] = {}

    def visit(arg: int) -> int:
        if arg >= 0:
            if arg not in used:
                used.append(arg)
            return used.index(arg)
        if arg in done:
            return done[arg]
        c = calls[-arg - 1]
        args = tuple(visit(a) for a in c.args)
        call = Call(c.function, args, c.compute, c.out, c.returns_bool, c.params)
        ref = seen.get(call.key())
        if ref is None:
            out_calls.append(call)
            ref = seen[call.key()] = -len(out_calls)
        done[arg] = ref
        return ref

    visit(-len(calls))
    expr = Expr(tuple(operands[k] for k in used), tuple(out_calls), shape)
    return expr, [op_keys[k] for k in used if operands[k].layout is not None]


def scalar_vec4(dtype: np.dtype, at: int) -> str:
    """WGSL of a scalar operand as every lane of a vec4: its bits in uniform word `at` (a complex64
    one's in words `at` and `at + 1`, as a C4).

    >>> scalar_vec4(np.dtype("float32"), 5)
    'vec4<f32>(bitcast<f32>(word(5u)))'
    """
    if dtype.kind == "c":
        return f"C4({scalar_vec4(F32, at)}, {scalar_vec4(F32, at + 1)})"
    t = value_type(dtype)
    return f"vec4<{t}>(bitcast<{t}>(word({at}u)))"


def program_lines(program: tuple[tuple[str, tuple[int, ...], str, bool, str, int], ...],
                  dtypes: list[np.dtype], values: list[str], param_at: int, suffix: str = "") -> list[str]:
    """WGSL computing `program` (as `_kernel` takes it) on vec4 values of the operands (their
    dtypes and WGSL `values`), its f32 parameters from uniform words param_at on: call c's value
    is `v<c><suffix>`, of its out dtype as stored (bool as u32 0 or 1).

    >>> f32 = np.dtype("float32")
    >>> program_lines((("exp_f32", (0,), "float32", False, "float32", 0),), [f32], ["a0"], 4)
    ['    let v0 = exp_f32(a0);']
    """
    body = []
    param = param_at
    for c, (function, args, compute, returns_bool, out, n_params) in enumerate(program):
        compute_dt = np.dtype(compute)
        xs = [convert(values[a], dtypes[a], compute_dt) if a >= 0
              else convert(f"v{-a - 1}{suffix}", np.dtype(program[-a - 1][4]), compute_dt) for a in args]
        xs += [f"bitcast<f32>(word({param + i}u))" for i in range(n_params)]
        param += n_params
        result = f"{function}({', '.join(xs)})"
        if returns_bool:
            result = f"select(vec4<u32>(0u), vec4<u32>(1u), {result})"
        else:  # (a complex function giving a real value, abs, gives it as float32)
            gives = F32 if compute_dt.kind == "c" and np.dtype(out).kind != "c" else compute_dt
            result = convert(result, gives, np.dtype(out))
        body.append(f"    let v{c}{suffix} = {result};")
    return body


@cache
def _kernel(
    program: tuple[tuple[str, tuple[int, ...], str, bool, str, int], ...],
    operands: tuple[tuple[str, bool], ...],
    rank: int,
    whole: tuple[bool, ...] = (),
) -> Kernel:
    """The kernel computing `program` (per call: function, arguments as in `Call`, compute dtype,
    returns_bool, out dtype, number of f32 parameters; the last call's value is stored) on operands
    ((dtype name, is scalar), ...), over outputs of `rank` collapsed axes. `whole`: per array
    operand, whether it is read a word at a time (`_whole`)."""
    arrays = [k for k, (_, scalar) in enumerate(operands) if not scalar]
    n_arr = len(arrays)
    shape_at = 2 + n_arr  # words: count, first, offsets..., shape..., strides..., scalars..., params...
    stride_at = shape_at + rank
    scalar_at = stride_at + n_arr * rank
    param_at = scalar_at + sum(_words(name) for name, s in operands if s)
    n_words = param_at + sum(c[5] for c in program)
    out_dt = np.dtype(program[-1][4])
    packed_out = packed(out_dt)
    eight = heavy(program) and not packed_out and out_dt.kind != "c"  # (per_thread's eight)
    first, groups = _lanes(out_dt, eight)
    inputs = []
    for k, (name, scalar) in enumerate(operands):
        dt = np.dtype(name)
        if not scalar:
            stored = "f32" if dt.kind == "c" else "u32" if packed(dt) else value_type(dt)
            inputs.append(f"@group(0) @binding({arrays.index(k)}) var<storage, read> in{arrays.index(k)}: "
                          f"array<{stored}>;")
    verbatim = (len(program) == 1 and program[0][0].startswith("copy_") and n_arr == 1 and bool(whole)
                and whole[0] and np.dtype(operands[arrays[0]][0]) == out_dt)  # (words: NaNs keep their bits)

    def group(at: list[str], g: str) -> tuple[list[str], list[str]]:
        """(loads, then arithmetic and stores) of the four elements at `at`, their names ending in
        `g` (written out: the lanes' values stay in registers)."""
        load: list[str] = []
        values: list[str] = []
        for lane in range(PER_THREAD):
            load.append(f"    let i{lane}{g} = word(1u) + min({at[lane]}, n - 1u);")
            if rank > 1:
                load.append(f"    var rem{lane}{g} = i{lane}{g};")
            for d in reversed(range(1, rank)):
                load.append(f"    let c{d}_{lane}{g} = rem{lane}{g} % word({shape_at + d}u);")
                load.append(f"    rem{lane}{g} = rem{lane}{g} / word({shape_at + d}u);")
            load.append(f"    let c0_{lane}{g} = {'rem' if rank > 1 else 'i'}{lane}{g};")
        scalar_k = 0
        for k, (name, scalar) in enumerate(operands):
            dt = np.dtype(name)
            t = "f32" if dt.kind == "c" else value_type(dt)
            if scalar:
                values.append(scalar_vec4(dt, scalar_at + scalar_k))
                scalar_k += _words(name)
                continue
            j = arrays.index(k)
            if dt.kind == "c":  # (two f32 words an element: a C4 of the real parts and the imaginary ones)
                re: list[str] = []
                im: list[str] = []
                for lane in range(PER_THREAD):
                    terms = " + ".join(f"i32(c{d}_{lane}{g}) * iword({stride_at + j * rank + d}u)"
                                       for d in range(rank))
                    load.append(f"    let e{k}_{lane}{g} = 2u * u32(iword({2 + j}u) + {terms});")
                    re.append(f"in{j}[e{k}_{lane}{g}]")
                    im.append(f"in{j}[e{k}_{lane}{g} + 1u]")
                load.append(f"    let a{k}{g} = C4(vec4<f32>({', '.join(re)}), vec4<f32>({', '.join(im)}));")
                values.append(f"a{k}{g}")
                continue
            lanes = []
            if whole and whole[j]:  # a word holds one output word's elements: one load for them
                per = 4 // dt.itemsize
                for w in range(PER_THREAD // per):
                    at_word = f"(u32(iword({2 + j}u)) + i{w * per}{g}) / {per}u"
                    load.append(f"    let w{k}_{w}{g} = in{j}[{at_word}];")
                    if dt.kind == "f":
                        load.append(f"    let h{k}_{w}{g} = unpack2x16float(w{k}_{w}{g});")
                        lanes += [f"h{k}_{w}{g}.x", f"h{k}_{w}{g}.y"]
                    else:
                        word = f"bitcast<i32>(w{k}_{w}{g})" if dt.kind == "i" else f"w{k}_{w}{g}"
                        bits = 8 * dt.itemsize
                        lanes += [f"extractBits({word}, {e * bits}u, {bits}u)" for e in range(per)]
            for lane in range(PER_THREAD if not (whole and whole[j]) else 0):
                terms = " + ".join(f"i32(c{d}_{lane}{g}) * iword({stride_at + j * rank + d}u)"
                                   for d in range(rank))
                index = f"u32(iword({2 + j}u) + {terms})"
                if packed(dt):
                    load.append(f"    let e{k}_{lane}{g} = {index};")
                    lanes.append(load_packed(f"in{j}", f"e{k}_{lane}{g}", dt))
                else:
                    lanes.append(f"in{j}[{index}]")
            load.append(f"    let a{k}{g} = vec4<{t}>({', '.join(lanes)});")
            values.append(f"a{k}{g}")
        body = program_lines(program, [np.dtype(n) for n, _ in operands], values, param_at, g)
        body.append(f"    let y{g} = v{len(program) - 1}{g};")
        if packed_out:  # whole words: the four elements of 8 bits, or two words of two 16-bit ones
            per = 4 // out_dt.itemsize
            store = []
            for w in range(PER_THREAD // per):
                word_value = pack_word([f"y{g}[{w * per + e}]" for e in range(per)], out_dt)
                if verbatim:
                    word_value = f"w{arrays[0]}_{w}{g}"
                lead = at[w * per]
                store.append(f"    if ({lead} < n) {{ out[({lead}) / {per}u] = {word_value}; }}")
        elif out_dt.kind == "c":
            store = [f"    if ({at[j]} < n) {{ out[2u * ({at[j]})] = y{g}.re[{j}]; "
                     f"out[2u * ({at[j]}) + 1u] = y{g}.im[{j}]; }}" for j in range(PER_THREAD)]
        else:
            store = [f"    if ({at[j]} < n) {{ out[{at[j]}] = y{g}[{j}]; }}" for j in range(PER_THREAD)]
        return load, body + store

    parts = [group(at, f"_{k}" if len(groups) > 1 else "") for k, at in enumerate(groups)]
    lines = [line for load, _ in parts for line in load] + [line for _, rest in parts for line in rest]
    # (every group's loads before any store: the compiler keeps loads after a store in order, as
    # the output could alias an input, and a thread's loads in flight set a packed kernel's pace)
    flags = iter(whole or [False] * n_arr)
    marks = [_type_name(np.dtype(n)) + ("" if s else "[w]" if next(flags) else f"[{rank}]")
             for n, s in operands]
    if len(program) > 1 or program[0][1] != tuple(range(len(operands))):  # (an operand read twice, or
        marks = [f"x{k}:{m}" for k, m in enumerate(marks)]  # several calls: each operand by its number)
    name = f"strided:{nested([(c[0], c[1], c[5]) for c in program], marks)}->{_type_name(out_dt)}"
    if eight:
        name += "/8"

    def source() -> str:
        filled = (
            wgsl_template("strided")
            .replace("{{inputs}}", "\n".join(inputs))
            .replace("{{out}}", str(n_arr))
            .replace("{{out_type}}", "u32" if packed_out else _type_name(out_dt).replace("c64", "f32"))
            .replace("{{first}}", first)
            .replace("{{meta}}", str(n_arr + 1))
            .replace("{{meta_vec4s}}", str(-(-n_words // 4)))
            .replace("{{lanes}}", "\n".join(lines))
        )
        names = [n for n, _ in operands] + [c[2] for c in program] + [c[4] for c in program]
        complex_lib = [wgsl_complex()] if "complex64" in names else []
        return used_only("\n".join([wgsl_template("common"), wgsl_functions("elementwise"),
                                     wgsl_functions("binary"), wgsl_typed("ufuncs"), *complex_lib, filled]))

    return Kernel(name, "strided", ("read",) * n_arr + ("write", "uniform"), source)


def _words(name: str) -> int:
    """Uniform words of a scalar operand of dtype `name`: a complex64's two, else one."""
    return 2 if name == "complex64" else 1


TILE = 32  # rows and columns of the output per workgroup of the tiled kernel (shaders/tiled.wgsl)


def _source(template: str, fills: dict[str, str]) -> str:
    """A template of shaders/ filled in, after the functions every element-wise kernel may call."""
    text = wgsl_template(template)
    for mark, value in fills.items():
        text = text.replace("{{" + mark + "}}", value)
    return used_only("\n".join([wgsl_template("common"), wgsl_functions("elementwise"),
                                 wgsl_functions("binary"), wgsl_typed("ufuncs"), text]))


@cache
def _tiled_kernel(function: str, operands: tuple[tuple[str, bool, bool], ...], compute: str,
                  returns_bool: bool, out: str, n_params: int = 0) -> Kernel:
    """The tiled kernel (shaders/tiled.wgsl) of `function` on operands ((dtype name, is scalar, is
    read column-wise), ...): column-wise inputs are staged through workgroup memory."""
    arrays = [k for k, (_, scalar, _) in enumerate(operands) if not scalar]
    n_arr = len(arrays)
    scalar_at = 2 + 4 * n_arr
    param_at = scalar_at + sum(1 for _, s, _ in operands if s)
    n_words = param_at + n_params
    compute_dt, out_dt = np.dtype(compute), np.dtype(out)
    inputs, tiles, load, gather, args = [], [], [], [], []
    scalar_k = 0
    for k, (name, scalar, columns) in enumerate(operands):
        dt = np.dtype(name)
        t = wgsl_type(dt)
        if scalar:
            value = scalar_vec4(dt, scalar_at + scalar_k)
            scalar_k += 1
            args.append(convert(value, dt, compute_dt))
            continue
        j = arrays.index(k)
        at = 2 + 4 * j  # offset, row stride, column stride, batch stride
        base = f"iword({at}u) + batch * iword({at + 3}u)"
        inputs.append(f"@group(0) @binding({j}) var<storage, read> in{j}: array<{t}>;")
        gather.append(f"    var a{k}: vec4<{t}>;")
        if columns:  # staged: load along the input's contiguous axis (the output's rows)
            tiles.append(f"var<workgroup> tile{k}: array<array<{t}, {TILE + 1}>, {TILE}>;")
            load += ["    for (var j = 0u; j < 4u; j = j + 1u) {",
                     "        let r = min(row0 + tx, m - 1u);",
                     "        let c = min(col0 + ty + 8u * j, n - 1u);",
                     f"        tile{k}[ty + 8u * j][tx] = in{j}[u32({base} + i32(r) * iword({at + 1}u)"
                     f" + i32(c) * iword({at + 2}u))];",
                     "    }"]
            read = f"a{k}[j] = tile{k}[tx][ty + 8u * j];"
            gather.append(f"    for (var j = 0u; j < 4u; j = j + 1u) {{ {read} }}")
        else:
            gather += ["    for (var j = 0u; j < 4u; j = j + 1u) {",
                       "        let r = min(row0 + ty + 8u * j, m - 1u);",
                       "        let c = min(col0 + tx, n - 1u);",
                       f"        a{k}[j] = in{j}[u32({base} + i32(r) * iword({at + 1}u)"
                       f" + i32(c) * iword({at + 2}u))];",
                       "    }"]
        args.append(convert(f"a{k}", dt, compute_dt))
    args += [f"bitcast<f32>(word({param_at + i}u))" for i in range(n_params)]
    result = f"{function}({', '.join(args)})"
    result = (f"select(vec4<u32>(0u), vec4<u32>(1u), {result})" if returns_bool
              else convert(result, compute_dt, out_dt))
    signature = ",".join(wgsl_type(np.dtype(n)) + ("" if s else "[T]" if c else "[2]")
                         for n, s, c in operands)
    name = f"tiled:{function}({signature}{',f32' * n_params})->{wgsl_type(out_dt)}"

    def source() -> str:
        return _source("tiled", {"inputs": "\n".join(inputs), "out": str(n_arr),
                                 "out_type": wgsl_type(out_dt),
                                 "meta": str(n_arr + 1), "meta_vec4s": str(-(-n_words // 4)),
                                 "tiles": "\n".join(tiles), "load": "\n".join(load),
                                 "gather": "\n".join(gather), "body": f"    let y = {result};"})

    return Kernel(name, "tiled", ("read",) * n_arr + ("write", "uniform"), source)


def _plan_tiled(function: str, operands: list[Operand], compute: np.dtype, out: np.dtype,
                shape: tuple[int, ...], facts: Facts, returns_bool: bool, params: tuple[float, ...]
                ) -> Plan | None:
    """The tiled plan, where it pays: the output collapses to (batch,) rows x columns, each at
    least a tile, an input is read column-wise (stride 1 along the rows, not along the columns),
    and the output fits one binding and the grid. None otherwise."""
    layouts = [o.layout for o in operands if o.layout is not None]
    if packed(out) or out.kind == "c" or any(packed(o.dtype) or o.dtype.kind == "c" for o in operands):
        return None  # (the tiles hold 32-bit values)
    views = [layout.broadcast_to(shape) for layout in layouts]
    dims, strides = collapse(shape, [v.strides for v in views])
    if len(dims) not in (2, 3) or dims[-1] < TILE or dims[-2] < TILE:
        return None
    columns = [abs(st[-2]) == 1 and abs(st[-1]) != 1 for st in strides]
    if not any(columns) or 4 * int(np.prod(dims)) > facts.max_binding:
        return None
    batch = dims[0] if len(dims) == 3 else 1
    grid = (-(-dims[-1] // TILE), -(-dims[-2] // TILE), batch)
    if max(grid) > facts.max_groups:
        return None
    flags = iter(columns)
    specs = tuple((o.dtype.name, o.layout is None, o.layout is not None and next(flags)) for o in operands)
    kernel = _tiled_kernel(function, specs, compute.name, returns_bool, out.name, len(params))
    words = [dims[-2], dims[-1]]
    for v, st in zip(views, strides, strict=True):
        words += [v.offset, st[-2], st[-1], st[0] if len(st) == 3 else 0]
    words += [word_of(o.value, o.dtype) for o in operands if o.layout is None]
    words += [word_of(p, F32) for p in params]
    slots = (*[Slot("in", j) for j in range(len(layouts))], Slot("out", 0), Slot("meta"))
    step = Step(kernel, slots, tuple(i32_word(w) for w in words), grid)
    return Plan((step,), (Output(tuple(shape), out),))


def plan_elementwise(
    op: str,
    function: str,
    operands: list[Operand],
    compute: np.dtype,
    out: np.dtype,
    shape: tuple[int, ...],
    facts: Facts,
    returns_bool: bool = False,
    params: tuple[float, ...] = (),
) -> Plan:
    """The plan of `function` (a vec4 WGSL function) over `operands` broadcast to `shape`, computed
    in `compute` and stored as `out` (`returns_bool`: the function returns vec4<bool>; `params`:
    f32 arguments after the operands, as an activation's alpha). An input must fit one binding;
    the output is written in chunks that do."""
    for o in operands:
        if o.layout is None:
            continue
        high = storage_bytes((o.layout.span()[1],), o.dtype)
        if high > facts.max_binding:
            raise ValueError(
                f"{op}: an input of shape {o.layout.shape} needs {high:,} bytes in one GPU "
                f"binding, over this device's maxStorageBufferBindingSize of "
                f"{facts.max_binding:,} bytes"
            )
    tiled = _plan_tiled(function, operands, compute, out, shape, facts, returns_bool, params)
    if tiled is not None:
        return tiled
    call = Call(function, tuple(range(len(operands))), compute, out, returns_bool, tuple(params))
    return plan_expr(Expr(tuple(operands), (call,), tuple(shape)), facts)


def plan_expr(expr: Expr, facts: Facts) -> Plan:
    """The plan of an element-wise expression (its operands fit one binding each): the strided
    kernel of its rank, the output in chunks that each fit one binding. A plan of one step carries
    `expr` (what it computes: engine/executor.py fuses such steps)."""
    shape = expr.shape
    arrays = [expr.operands[k] for k in expr.arrays]
    views = [o.layout.broadcast_to(shape) for o in arrays if o.layout is not None]
    dims, strides = collapse(shape, [v.strides for v in views])
    rank = len(dims)
    out = expr.out
    kernel = _kernel(
        expr.program,
        expr.specs,
        rank,
        tuple(_whole(o.dtype, v.offset, st, out) for o, v, st in zip(arrays, views, strides, strict=True)),
    )
    fixed = (
        [v.offset for v in views]
        + list(dims)
        + [i32_word(s) for st in strides for s in st]
        + expr.fixed_words()
    )
    fixed = [i32_word(w) for w in fixed]
    total = int(np.prod(shape))
    size = item_bytes(out)
    chunk = facts.max_binding // facts.offset_align * facts.offset_align // size  # (aligned starts)
    steps = []
    per_group = WORKGROUP * per_thread(out, heavy(expr.program))  # (output elements a workgroup computes)
    for first in range(0, max(total, 1), chunk):
        count = min(chunk, total - first)
        groups = -(-count // per_group)
        slots = (
            *[Slot("in", j) for j in range(len(arrays))],
            Slot("out", 0, first * size, storage_bytes((count,), out)),
            Slot("meta"),
        )
        steps.append(Step(kernel, slots, (count, first, *fixed), grid_for(groups, facts.max_groups)))
    return Plan(tuple(steps), (Output(tuple(shape), out),), expr=expr if len(steps) == 1 else None)


__all__ = ["Call", "Expr", "Operand", "convert", "heavy", "inline", "nested", "per_thread",
           "plan_elementwise", "plan_expr", "program_lines", "scalar_vec4", "storage_bytes"]
