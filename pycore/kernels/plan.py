"""What a planner returns and the executor runs: a `Plan` is a list of `Step`s (a kernel, its
bindings as slots, its uniform words and its grid) and `Copy`s (bytes from one slot to another,
where a binding cannot start: offsets are multiples of the device's alignment), and the specs of
its outputs. A kernel is generated (its `source()`) or a hand-written entry point of a family
(shaders/<family>.wgsl: the tuned matmul tiles, the convolution).

Slots name buffers the executor provides: an input ("in", k: bound whole, its layout's offset is
in the uniform words), an output ("out", k) or a scratch buffer ("tmp", k), each optionally a byte
range of it (a chunk of a large output), and "meta" (the step's uniform words). Plans hold numbers
only, so they can be cached by their call's key and replayed.

>>> Slot("out", 0, 256, 1024)
Slot(kind='out', index=0, offset=256, size=1024)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from pycore.array.dtypes import wide


@dataclass(frozen=True)
class Facts:
    """What planners need to know about the adapter (engine/executor.py reads them off a Device)."""

    max_binding: int = 128 << 20  # bytes of one storage binding (maxStorageBufferBindingSize, rounded)
    max_groups: int = 65_535  # workgroups per grid dimension
    cpu_adapter: bool = False  # SwiftShader, lavapipe: barriers are expensive
    loop_cap: int | None = None  # loop iterations one invocation may run (llvmpipe: 65,535)
    offset_align: int = 256  # minStorageBufferOffsetAlignment
    max_storage: int = 8  # storage buffers one kernel may bind (maxStorageBuffersPerShaderStage)


@dataclass(frozen=True)
class Kernel:
    """A WGSL kernel: `name` identifies it (the pipeline cache key), `source()` writes it; a
    `family` other than "generated" is shaders/<family>.wgsl's entry point `entry`."""

    name: str
    entry: str
    bindings: tuple[str, ...]  # "read", "write", "uniform", in binding order
    source: Callable[[], str] = field(compare=False, repr=False)
    family: str = "generated"

    def pipeline_args(self) -> tuple:
        """What Device.pipeline_async takes to compile it: (family, entry, bindings[, source, name])."""
        if self.family == "generated":
            return ("generated", self.entry, self.bindings, self.source, self.name)
        return (self.family, self.entry, self.bindings)

    @cached_property
    def pipeline_key(self) -> tuple[str, str]:
        """Its key in a Device's pipeline cache (Device.pipeline_key)."""
        return ("generated", f"{self.entry}:{self.name}") if self.family == "generated" else (self.family,
                                                                                              self.entry)


@dataclass(frozen=True)
class Slot:
    kind: str  # "in" | "out" | "tmp" | "meta"
    index: int = 0
    offset: int = 0  # bytes into the buffer
    size: int | None = None  # bytes; None: the whole buffer from offset


@dataclass(frozen=True)
class Step:
    kernel: Kernel
    slots: tuple[Slot, ...]
    words: tuple[int, ...]  # the uniform block (u32 words; padded to whole vec4s by the executor)
    grid: tuple[int, int, int]

    @cached_property
    def block(self) -> np.ndarray:
        """The uniform block as bound: the words padded to whole vec4s (made once per step)."""
        block = np.zeros(-(-max(len(self.words), 1) // 4) * 4, np.uint32)
        block[:len(self.words)] = self.words
        return block


@dataclass(frozen=True)
class Copy:
    """`size` bytes from one slot's buffer to another's (each at its slot's offset, a multiple of 4)."""

    src: Slot
    dst: Slot
    size: int


@dataclass(frozen=True)
class Output:
    shape: tuple[int, ...]
    dtype: np.dtype


@dataclass(frozen=True)
class Plan:
    steps: tuple[Step | Copy, ...]
    outputs: tuple[Output, ...]
    scratch: tuple[int, ...] = ()  # bytes of each scratch buffer
    expr: Any = field(default=None, compare=False)  # a one-step element-wise plan's Expr (elementwise.py)
    reduce: Any = field(default=None, compare=False)  # a reduction plan's Reading (reduction.py)
    matmul: Any = field(default=None, compare=False)  # a float matmul plan's Product (matmul.py)

    @cached_property
    def out_bytes(self) -> int:
        """Bytes of the first output on the GPU (at least 4: a buffer is never empty)."""
        spec = self.outputs[0]
        return max(4, storage_bytes(spec.shape, spec.dtype))

    def kernels(self) -> list[Kernel]:
        """The distinct kernels the plan runs (what a background compile prepares)."""
        return list({s.kernel.name: s.kernel for s in self.steps if isinstance(s, Step)}.values())


def storage_bytes(shape: tuple[int, ...], dtype: np.dtype) -> int:
    """Bytes an array of this shape takes on the GPU: whole u32 words (bool takes a word, int8 a
    quarter, float16 a half).

    >>> storage_bytes((3, 2), np.dtype("bool")), storage_bytes((5,), np.dtype("int8"))
    (24, 8)
    """
    n = 1
    for s in shape:
        n *= s
    return -(-n * item_bytes(dtype) // 4) * 4


def item_bytes(dtype: np.dtype) -> int:
    """Bytes of one element on the GPU (a bool is a u32). (`kind`, not `name`: NumPy computes a
    dtype's name in Python, which a hot path avoids, and Ctrl+C can land in.)"""
    return 4 if dtype.kind == "b" else dtype.itemsize


WGSL_TYPE = {"float32": "f32", "int32": "i32", "uint32": "u32", "bool": "u32"}
SUFFIX = {"float32": "f32", "int32": "i32", "uint32": "u32", "bool": "bool", "complex64": "c64"}
PACKED_WGSL = {"int8": "i32", "int16": "i32", "uint8": "u32", "uint16": "u32", "float16": "f32"}


PACKED = frozenset(np.dtype(name) for name in PACKED_WGSL)


def packed(dtype: np.dtype) -> bool:
    """Whether several elements of `dtype` share a u32 word on the GPU (int8, int16, uint8, uint16,
    float16). (A set of dtypes: a dtype's `name` is Python code in NumPy, which a hot path avoids.)

    >>> packed(np.dtype("float16")), packed(np.dtype("float32"))
    (True, False)
    """
    return dtype in PACKED


def wgsl_type(dtype: np.dtype) -> str:
    """The WGSL storage type of a 32-bit pycore dtype (bool is a u32 0 or 1). Packed dtypes have
    none: a planner that reads arrays as typed words refuses them here (see `value_type`)."""
    found = WGSL_TYPE.get(dtype.name)
    if found is None:
        how = ("two float32 words an element" if dtype.kind == "c"
               else "packed (several elements to a u32 word)")
        raise TypeError(f"{dtype.name} is stored as {how}; this kernel reads 32-bit elements only")
    return found


def value_type(dtype: np.dtype) -> str:
    """The WGSL type a kernel holds one value of `dtype` in: its storage type, or for a packed
    dtype its 32-bit form (int8 and int16 as i32, uint8 and uint16 as u32, float16 as f32).

    >>> value_type(np.dtype("int8")), value_type(np.dtype("float16")), value_type(np.dtype("bool"))
    ('i32', 'f32', 'u32')
    """
    return PACKED_WGSL.get(dtype.name) or wgsl_type(dtype)


def load_packed(buffer: str, index: str, dtype: np.dtype) -> str:
    """WGSL reading element `index` (a u32 expression, used twice) of a packed `dtype` from the u32
    words of `buffer`, as its 32-bit value (`value_type`). float16 converts the word's two halves
    and picks one (on an H200 a broadcast float16 add ran 18% faster so, sums of float16 elements
    19-22%, a float16 conv 17-20%, than extracting the half and converting it; the same results).

    >>> load_packed("in0", "e", np.dtype("int8"))
    'extractBits(bitcast<i32>(in0[(e) / 4u]), ((e) % 4u) * 8u, 8u)'
    """
    per = 4 // dtype.itemsize
    bits = 8 * dtype.itemsize
    word = f"{buffer}[({index}) / {per}u]"
    at = f"(({index}) % {per}u) * {bits}u"
    if dtype.kind == "i":
        return f"extractBits(bitcast<i32>({word}), {at}, {bits}u)"
    if dtype.kind == "f":
        return f"unpack2x16float({word})[({index}) % 2u]"
    return f"extractBits({word}, {at}, {bits}u)"


def f32_loader(name: str, half: bool) -> str:
    """WGSL `fn <name>_at(i: u32) -> f32`: element i of the binding `name`, float32, or float16 read
    from its u32 words (`half`: `load_packed`).

    >>> f32_loader("x", True)
    'fn x_at(i: u32) -> f32 { return unpack2x16float(x[(i) / 2u])[(i) % 2u]; }'
    """
    element = load_packed(name, "i", np.dtype(np.float16)) if half else f"{name}[i]"
    return f"fn {name}_at(i: u32) -> f32 {{ return {element}; }}"


def pack_word(values: list[str], dtype: np.dtype) -> str:
    """WGSL of one u32 word holding the values (expressions of `value_type`, lowest element first)
    of a packed `dtype`: integers keep their low bits (they wrap), float16 rounds to nearest even
    (a word's two at once).

    >>> pack_word(["a", "b"], np.dtype("uint16"))
    '(a & 0xffffu) | ((b & 0xffffu) << 16u)'
    """
    if dtype.kind == "f" and len(values) == 2:
        return f"f32x2_to_f16(vec2<f32>({values[0]}, {values[1]}))"
    bits = 8 * dtype.itemsize
    mask = f"0x{(1 << bits) - 1:x}u"
    terms = []
    for k, v in enumerate(values):
        raw = f"f32_to_f16({v})" if dtype.kind == "f" else f"bitcast<u32>({v})" if dtype.kind == "i" else v
        term = f"({raw} & {mask})"
        terms.append(term if k == 0 else f"({term} << {k * bits}u)")
    return " | ".join(terms)


def convert_scalar(expr: str, src: np.dtype, dst: np.dtype) -> str:
    """WGSL converting one stored `src` value to a stored `dst` value (bool is a u32 0 or 1; a
    float is nonzero on its bits: NaN is True, -0.0 False), for every kernel generator.

    >>> convert_scalar("a", np.dtype("float32"), np.dtype(bool))
    'select(0u, 1u, (bitcast<u32>(a) & 0x7fffffffu) != 0u)'
    >>> i32, u32 = np.dtype("int32"), np.dtype("uint32")
    >>> convert_scalar("x", i32, np.dtype(bool)), convert_scalar("u", u32, i32)
    ('select(0u, 1u, x != i32(0))', 'bitcast<i32>(u)')
    """
    src, dst = wide(src), wide(dst)
    if src == dst:
        return expr
    if dst.name == "bool":
        if src.name == "float32":  # (on the bits: `!=` may be folded for NaN)
            return f"select(0u, 1u, (bitcast<u32>({expr}) & 0x7fffffffu) != 0u)"
        return f"select(0u, 1u, {expr} != {wgsl_type(src)}(0))"
    if src.name in ("int32", "uint32", "bool") and dst.name in ("int32", "uint32"):
        return f"bitcast<{wgsl_type(dst)}>({expr})"
    return f"{wgsl_type(dst)}({expr})"


def word_of(value: Any, dtype: np.dtype) -> int:
    """A scalar's bits as a u32 word of the uniform block.

    >>> word_of(1.0, np.dtype("float32")), word_of(-1, np.dtype("int32")), word_of(True, np.dtype(bool))
    (1065353216, 4294967295, 1)
    """
    if dtype.name == "bool":
        return int(bool(value))
    with np.errstate(over="ignore"):
        value = np.array(value, dtype=dtype)  # (a float16 scalar rounds here, then widens)
        return int(value.astype(wide(dtype)).view(np.uint32))


def scalar_words(value: Any, dtype: np.dtype) -> tuple[int, ...]:
    """A scalar's words in a uniform block: one (`word_of`), or a complex64's two (re, im).

    >>> scalar_words(1 - 2j, np.dtype("complex64"))
    (1065353216, 3221225472)
    """
    if dtype.kind == "c":
        value = complex(value)
        return (word_of(value.real, np.dtype(np.float32)), word_of(value.imag, np.dtype(np.float32)))
    return (word_of(value, dtype),)


def i32_word(value: int) -> int:
    """A signed integer (a stride, an offset) as its u32 bits."""
    return value & 0xFFFFFFFF


def walk_lines(counter: str, start: str, rank: int, dims_at: int, targets: list[tuple[str, int]]
               ) -> list[str]:
    """WGSL that splits the u32 index `start` into `rank` C-ordered coordinates over the shape in
    words dims_at, dims_at + 1, ... (the generated kernels' uniform words), and adds each coordinate
    times its stride (the words from each target's offset on, as i32) to each target variable.

    >>> print("\\n".join(walk_lines("r", "row", 2, 6, [("ib", 8)])))
        var r = row;
        ib = ib + i32((r % word(7u))) * iword(9u);
        r = r / word(7u);
        ib = ib + i32(r) * iword(8u);
    """
    lines = [f"    var {counter} = {start};"] if rank else []
    for d in reversed(range(rank)):
        coord = f"({counter} % word({dims_at + d}u))" if d else counter  # (the outermost needs no modulo)
        lines += [f"    {t} = {t} + i32({coord}) * iword({at + d}u);" for t, at in targets]
        if d:
            lines.append(f"    {counter} = {counter} / word({dims_at + d}u);")
    return lines


def grid_for(n_groups: int, max_per_dim: int) -> tuple[int, int, int]:
    """Workgroups (x, y, 1) covering n_groups, each dimension within the device's limit; kernels
    recover the flat index as x + y * groups.x.

    >>> grid_for(10, 65535), grid_for(70000, 65535)
    ((10, 1, 1), (35000, 2, 1))
    """
    if n_groups <= max_per_dim:
        return (max(n_groups, 1), 1, 1)
    y = -(-n_groups // max_per_dim)
    if y > max_per_dim:
        raise ValueError(f"{n_groups:,} workgroups exceed the device's {max_per_dim:,}² grid")
    return (-(-n_groups // y), y, 1)
