"""The planner of the fast Fourier transforms (shaders/fft.wgsl): 1-D complex transforms along
axes of a C-ordered complex array (interleaved float32 pairs), one after another (an n-d
transform), each axis cropped or zero-padded to its length first where asked (and, for an inverse
real transform, its Hermitian half extended).

An axis of length n is transformed in place as (outer, n, inner) rows, with no transposes:
- n a power of two up to LOCAL_N (2048): one `fft_local` dispatch, whole transforms in workgroup
  memory (2048 / n rows per workgroup);
- longer powers of two, and transforms along a middle axis (inner > 1): `fft_local` on L-point
  sub-transforms, L <= LOCAL_N / 8 so that each workgroup loads 8 of them side by side in memory
  (coalesced), then Stockham passes over global memory: radix 16 (`fft_pass16`) while 4 bits are
  left, then radix 4 (`fft_pass4`) or 2 (`fft_pass2`), or both, for the rest;
- other lengths by Bluestein's chirp-z: the chirp's filter transformed (its own small chain),
  `fft_chirp_in`, a power-of-two transform of m >= 2n - 1 points, `fft_mul`, the inverse transform,
  `fft_chirp_out`.

Kernels form one chain, each reading the one before's output: the last writes the plan's output,
the others two scratch buffers in turn (a filter chain two more). The scale (the `norm`) rides on
each axis' last kernel.

>>> p = plan_fft((8, 4096), (Transform(1, 4096),), False, Facts())
>>> [s.kernel.entry for s in p.steps], p.outputs[0].shape
(['fft_local', 'fft_pass16'], (8, 4096, 2))
>>> p = plan_fft((3, 5), (Transform(1, 5, 0.2),), True, Facts())
>>> [s.kernel.entry for s in p.steps]
['fft_chirp_in', 'fft_local', 'fft_filter', 'fft_local', 'fft_mul', 'fft_local', 'fft_chirp_out']
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

import numpy as np

from pycore.kernels.plan import Facts, Kernel, Output, Plan, Slot, Step, grid_for, word_of
from pycore.kernels.wgsl import wgsl_constant, wgsl_source

LOCAL_N = wgsl_constant("LOCAL_N", "fft")  # values fft_local holds in workgroup memory
SIDE_BY_SIDE = 8  # sub-transforms fft_local loads side by side where they lie strided (8 x 8 bytes)
WORKGROUP = wgsl_constant("WORKGROUP")
F32 = np.dtype(np.float32)
WORDS = 9  # uniform words of every fft kernel (fft.wgsl's header)
MAX_N = 1 << 28  # the longest power-of-two transform the kernels index (twiddle's 8 j in a u32)


class Transform(NamedTuple):
    """One 1-D transform of a plan: along `axis` (normalized), to length `n` (the axis cropped or
    zero-padded first where it differs), the result times `scale`; `hermitian`: the axis holds the
    first half of a Hermitian sequence, extended to n values first (an inverse real transform)."""

    axis: int
    n: int
    scale: float = 1.0
    hermitian: bool = False


@dataclass(frozen=True)
class _Stage:
    entry: str
    words: tuple[int, ...]
    groups: int
    values: int  # complex values it writes
    aux: bool = False  # reads the filter (Bluestein's fft_mul)
    filter: tuple[_Stage, ...] = ()  # the chain that makes the filter, run just before this stage


@cache
def fft_kernel(entry: str) -> Kernel:
    """The kernel of fft.wgsl's entry point `entry` (bindings: src, dst, aux, the uniform words)."""
    return Kernel(f"fft.{entry}", entry, ("read", "write", "read", "uniform"), lambda: wgsl_source("fft"),
                  family="fft")


def is_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def bluestein_size(n: int) -> int:
    """The power-of-two length Bluestein's convolution of an n-point transform runs at (>= 2n - 1).

    >>> bluestein_size(5), bluestein_size(1000), bluestein_size(3)
    (16, 2048, 8)
    """
    return 1 << (2 * n - 2).bit_length()


def radices(n: int, inner: int = 1) -> tuple[int, tuple[int, ...]]:
    """A power of two n (along an axis with `inner` values after each) as (the fft_local
    transform's length, the global passes' radices after it).

    >>> radices(8), radices(2048), radices(1 << 20), radices(2048, inner=2048)
    ((8, ()), (2048, ()), (256, (16, 16, 16)), (256, (4, 2)))
    """
    local = min(n, LOCAL_N) if n <= LOCAL_N and inner == 1 else min(n, LOCAL_N // SIDE_BY_SIDE)
    rest = (n // local).bit_length() - 1
    tail = {0: (), 1: (2,), 2: (4,), 3: (4, 2)}[rest % 4]
    return local, (16,) * (rest // 4) + tail


def _words(*values: int, scale: float = 1.0) -> tuple[int, ...]:
    """Words 0-4 and 6-8 as given (word 5: scale's f32 bits), padded to WORDS."""
    head, tail = values[:5], values[5:]
    words = (*head, *(0,) * (5 - len(head)), word_of(scale, F32), *tail)
    return words + (0,) * (WORDS - len(words))


def _pow2_stages(outer: int, n: int, inner: int, inverse: bool, scale: float) -> list[_Stage]:
    local, passes = radices(n, inner)
    big_s = n // local
    subs = outer * inner * big_s
    per_group = max(1, min(LOCAL_N // local, subs))
    stages = [_Stage("fft_local", _words(subs, n, inner, local, int(inverse), big_s, per_group,
                                         local.bit_length() - 1, scale=1.0 if passes else scale),
                     -(-subs // per_group), outer * n * inner)]
    p = local
    for i, r in enumerate(passes):
        items = outer * inner * n // r
        last = i == len(passes) - 1
        words = _words(items, n, inner, p, int(inverse), scale=scale if last else 1.0)
        stages.append(_Stage(f"fft_pass{r}", words, -(-items // WORKGROUP), outer * n * inner))
        p *= r
    return stages


def _bluestein_stages(outer: int, n: int, inner: int, inverse: bool, scale: float) -> list[_Stage]:
    m = bluestein_size(n)
    inv = int(inverse)
    made = (_Stage("fft_filter", _words(m, m, 1, m, inv, n), -(-m // WORKGROUP), m),
            *_pow2_stages(1, m, 1, False, 1.0))
    items = outer * m * inner
    out_items = outer * n * inner
    return [
        _Stage("fft_chirp_in", _words(items, m, inner, m, inv, n), -(-items // WORKGROUP), items),
        *_pow2_stages(outer, m, inner, False, 1.0),
        _Stage("fft_mul", _words(items, m, inner, m), -(-items // WORKGROUP), items, aux=True, filter=made),
        *_pow2_stages(outer, m, inner, True, 1.0),
        _Stage("fft_chirp_out", _words(out_items, n, inner, n, inv, m, scale=scale / m),
               -(-out_items // WORKGROUP), out_items),
    ]


def _stages(shape: tuple[int, ...], transforms: tuple[Transform, ...], inverse: bool
            ) -> tuple[list[_Stage], tuple[int, ...]]:
    """The chain of stages of the transforms, and the output's shape."""
    stages: list[_Stage] = []
    now = list(shape)
    for t in transforms:
        outer, inner = math.prod(now[:t.axis]), math.prod(now[t.axis + 1:])
        if now[t.axis] != t.n or t.hermitian:
            items = outer * t.n * inner
            stages.append(_Stage("fft_resize", _words(items, t.n, inner, 0, 0, now[t.axis], int(t.hermitian)),
                                 -(-items // WORKGROUP), items))
            now[t.axis] = t.n
        make = _pow2_stages if is_pow2(t.n) else _bluestein_stages
        stages += make(outer, t.n, inner, inverse, t.scale)
    return stages, tuple(now)


def plan_fft(shape: tuple[int, ...], transforms: tuple[Transform, ...], inverse: bool, facts: Facts) -> Plan:
    """The plan of 1-D complex transforms (inverse: exp(+2 pi i jk / n)) along `transforms`' axes in
    turn, of a C-ordered complex array of `shape` (float32 pairs: its bytes 8 per value), into a new
    one (its output: shape (..., 2) float32). ValueError for an empty array, a length < 1, or a
    buffer past one binding (the caller computes those on the host)."""
    if not transforms:
        raise ValueError("fft: no axis to transform")
    if math.prod(shape) == 0 or any(t.n < 1 for t in transforms):
        raise ValueError(f"fft: nothing to transform in shape {shape} to lengths {[t.n for t in transforms]}")
    for t in transforms:
        if (t.n if is_pow2(t.n) else bluestein_size(t.n)) > MAX_N:
            raise ValueError(f"fft: a transform of {t.n:,} points is longer than the kernels index "
                             f"({MAX_N:,} points, or half that for lengths not a power of two)")
    stages, out_shape = _stages(tuple(shape), transforms, inverse)
    filters = [f for s in stages for f in s.filter]
    sizes = [8 * math.prod(shape), 8 * math.prod(out_shape), *(8 * s.values for s in stages),
             *(8 * f.values for f in filters)]
    if max(sizes) > facts.max_binding:
        raise ValueError(f"fft: a transform of shape {shape} needs {max(sizes):,} bytes in one GPU binding, "
                         f"over this device's maxStorageBufferBindingSize of {facts.max_binding:,}")
    a, b, f, g = (Slot("tmp", i) for i in range(4))
    steps: list[Step] = []

    def step(s: _Stage, src: Slot, dst: Slot, aux: Slot) -> Step:
        grid = grid_for(s.groups, facts.max_groups)
        return Step(fft_kernel(s.entry), (src, dst, aux, Slot("meta")), s.words, grid)

    src = Slot("in", 0)
    for i, s in enumerate(stages):
        if s.filter:  # (its own chain: the last writes f, the others g and f in turn)
            count = len(s.filter)
            for j, fs in enumerate(s.filter):
                fdst = f if (count - 1 - j) % 2 == 0 else g
                fsrc = g if fdst is f else f
                steps.append(step(fs, fsrc, fdst, fsrc))
        dst = Slot("out", 0) if i == len(stages) - 1 else (a if (len(stages) - 2 - i) % 2 == 0 else b)
        steps.append(step(s, src, dst, f if s.aux else src))
        src = dst
    scratch = [max(4, 8 * max([s.values for s in stages[:-1]], default=1))] * 2
    if filters:
        scratch += [8 * max(fs.values for fs in filters)] * 2
    return Plan(tuple(steps), (Output((*out_shape, 2), F32),), tuple(scratch))


__all__ = ["LOCAL_N", "Transform", "bluestein_size", "fft_kernel", "is_pow2", "plan_fft", "radices"]
