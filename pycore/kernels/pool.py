"""The pooling generator and planner: shaders/pool.wgsl filled in for 1 to 3 spatial axes and a
max or an average, a thread per output element reducing its window straight from x through its
strides; the padding is never stored (taps outside x are skipped, and an average's count says
which of them count). One kernel for any window, where composing the pool of calls stacks
prod(kernel) strided views of a padded copy of x first (calls/nn.py composes it so for host arrays).

>>> from pycore.array.layout import Layout
>>> p = plan_pool(Layout.contiguous((8, 3, 64, 64)), "max", (2, 2), (2, 2), (0, 0), (1, 1), (32, 32),
...               True, Facts())
>>> p.outputs[0].shape, p.steps[0].kernel.name, p.steps[0].grid
((8, 3, 32, 32), 'pool:2d:max:k2x2', (96, 1, 1))
"""

from __future__ import annotations

import itertools
import math
from functools import cache

import numpy as np

from pycore.array.layout import Layout
from pycore.kernels.plan import Facts, Kernel, Output, Plan, Slot, Step, f32_loader, grid_for, i32_word
from pycore.kernels.wgsl import used_only, wgsl_constant, wgsl_template

F32 = np.dtype(np.float32)
WORKGROUP = wgsl_constant("WORKGROUP")  # threads per workgroup (common.wgsl)
HEAD_WORDS = 5  # outputs, channels, x's offset, batch and channel strides
# words per spatial axis: out, x size, x stride, kernel, stride, padding, dilation, and the positions an
# average counts, from and to
AXIS_WORDS = 9
REDUCES = ("max", "avg")
UNROLLED_TAPS = 64  # a window of at most this many taps is written out tap by tap (else loops)


@cache
def _kernel(d: int, reduce: str, half: bool, sizes: tuple[int, ...] | None = None) -> Kernel:
    """The kernel for `d` spatial axes reducing each window by `reduce` ("max" or "avg") of a
    float32 x (or float16: `half`): with the kernel's `sizes`, its taps written out one by one
    (each axis' positions and bounds worked out once), else loops over the sizes in the words.
    An average of written-out taps counts them per axis in closed form (no dilation).

    >>> "count = count + select(0.0, 1.0, counted0 && counted1);" in _kernel(2, "avg", False).source()
    True
    >>> _kernel(2, "max", False, (3, 3)).source().count("if (in0_")
    9
    """
    at = [HEAD_WORDS + AXIS_WORDS * a for a in range(d)]  # each axis' words
    n_words = HEAD_WORDS + AXIS_WORDS * d
    position = []
    for a in reversed(range(d)):  # the output position, innermost axis first
        position += [f"    let q{a} = rem % word({at[a]}u);", f"    rem = rem / word({at[a]}u);"]
    start = [f"    let s{a} = i32(q{a} * word({at[a] + 4}u)) - iword({at[a] + 5}u);" for a in range(d)]
    if reduce == "max":
        start.append("    var acc = bitcast<f32>(0xff800000u | (i & 0u));  // -inf (built at run time: WGSL "
                     "has no inf constant)")
    else:
        start.append("    var acc = 0.0;\n    var count = 0.0;")
    keep = "acc = select(acc, v, (v > acc || is_nan(v)) && !is_nan(acc));"
    taps: list[str] = []
    if sizes is not None:  # written out: per axis, each offset's position, bounds and x offset once
        for a in range(d):
            w = at[a]
            for k in range(sizes[a]):
                taps += [f"    let p{a}_{k} = s{a} + {k} * iword({w + 6}u);",
                         f"    let in{a}_{k} = p{a}_{k} >= 0 && p{a}_{k} < iword({w + 1}u);",
                         f"    let r{a}_{k} = p{a}_{k} * iword({w + 2}u);"]
        for offsets in itertools.product(*(range(n) for n in sizes)):
            inside = " && ".join(f"in{a}_{k}" for a, k in enumerate(offsets))
            x_at = " + ".join(["xc", *(f"r{a}_{k}" for a, k in enumerate(offsets))])
            taps.append(f"    if ({inside}) {{ let v = x_at(u32({x_at})); {keep} }}" if reduce == "max"
                        else f"    if ({inside}) {{ acc = acc + x_at(u32({x_at})); }}")
        if reduce == "avg":  # (the taps from s to s + size, within the counted positions)
            counts = [f"(min(s{a} + {sizes[a]}, iword({at[a] + 8}u)) - max(s{a}, iword({at[a] + 7}u)))"
                      for a in range(d)]
            taps.append(f"    count = f32({' * '.join(counts)});")
    else:
        indent = "    "
        for a in range(d):  # nested loops over the kernel offsets: each axis' position and bounds
            w = at[a]
            taps += [f"{indent}for (var k{a} = 0u; k{a} < word({w + 3}u); k{a} = k{a} + 1u) {{",
                     f"{indent}    let p{a} = s{a} + i32(k{a} * word({w + 6}u));"]
            if reduce == "avg":
                taps.append(f"{indent}    let counted{a} = p{a} >= iword({w + 7}u)"
                            f" && p{a} < iword({w + 8}u);")
            taps.append(f"{indent}    let in{a} = p{a} >= 0 && p{a} < iword({w + 1}u);")
            indent += "    "
        inside = " && ".join(f"in{a}" for a in range(d))
        x_at = " + ".join(["xc", *(f"p{a} * iword({at[a] + 2}u)" for a in range(d))])
        if reduce == "max":
            taps += [f"{indent}if ({inside}) {{", f"{indent}    let v = x_at(u32({x_at}));",
                     f"{indent}    {keep}", f"{indent}}}"]
        else:
            counted = " && ".join(f"counted{a}" for a in range(d))
            taps += [f"{indent}if ({inside}) {{ acc = acc + x_at(u32({x_at})); }}",
                     f"{indent}count = count + select(0.0, 1.0, {counted});"]
        for _ in range(d):
            indent = indent[:-4]
            taps.append(f"{indent}}}")
    finish = "    out[i] = acc;" if reduce == "max" else "    out[i] = acc / count;"

    def source() -> str:
        filled = (wgsl_template("pool").replace("{{meta_vec4s}}", str(-(-n_words // 4)))
                  .replace("{{position}}", "\n".join(position)).replace("{{start}}", "\n".join(start))
                  .replace("{{taps}}", "\n".join(taps)).replace("{{finish}}", finish)
                  .replace("{{loaders}}", f32_loader("x", half))
                  .replace("{{x_type}}", "u32" if half else "f32"))
        return used_only("\n".join([wgsl_template("common"), filled]))

    shape = "" if sizes is None else ":k" + "x".join(map(str, sizes))
    return Kernel(f"pool:{d}d:{reduce}{shape}{':f16' if half else ''}", "pool", ("read", "write", "uniform"),
                  source)


def plan_pool(x: Layout, reduce: str, kernel: tuple[int, ...], stride: tuple[int, ...],
              padding: tuple[int, ...], dilation: tuple[int, ...], out: tuple[int, ...],
              include_pad: bool, facts: Facts, half: bool = False) -> Plan:
    """The plan of a max or average pool (`reduce`) of x (N, C, *spatial), float32 or float16
    (`half`), read through its layout; the output (N, C, *out) is float32, C-ordered. `padding`:
    on each side of each spatial axis (the last window may reach past it: ceil_mode); an average
    divides by the count of its taps inside x padded so (`include_pad`) or inside x only. The
    caller has checked the arguments and worked out `out`; a ValueError where x or the output
    does not fit one binding, or a window's loops pass the adapter's cap (the caller composes the
    pool of other calls instead).

    >>> try:
    ...     plan_pool(Layout.contiguous((1, 1, 70000)), "max", (66000,), (1,), (0,), (1,), (4001,), True,
    ...               Facts(loop_cap=65_535))
    ... except ValueError as exc:
    ...     print(str(exc)[:45])
    pool: a window of 66,000 taps runs 66,000 loo
    """
    if reduce not in REDUCES:
        raise ValueError(f"pool: unknown reduction {reduce!r}; known: {REDUCES}")
    d = x.ndim - 2
    n, c = x.shape[0], x.shape[1]
    total = n * c * math.prod(out)
    if (2 if half else 4) * (x.span()[1] + 2) > facts.max_binding:
        raise ValueError(f"pool: x of shape {x.shape} does not fit one GPU binding")
    if 4 * total > facts.max_binding:
        raise ValueError(f"pool: the result of shape {(n, c, *out)} does not fit one GPU binding")
    words = [total, c, x.offset, x.strides[0], x.strides[1]]
    for a in range(d):
        size, pad = x.shape[2 + a], padding[a]
        words += [out[a], size, x.strides[2 + a], kernel[a], stride[a], pad, dilation[a],
                  -pad if include_pad else 0, size + pad if include_pad else size]
    unrolled = math.prod(kernel) <= UNROLLED_TAPS and (reduce == "max" or all(di == 1 for di in dilation))
    loops = sum(math.prod(kernel[:a + 1]) for a in range(d))  # (each nested loop's iterations)
    if not unrolled and facts.loop_cap and loops > facts.loop_cap:
        raise ValueError(f"pool: a window of {math.prod(kernel):,} taps runs {loops:,} loop iterations, more "
                         f"than this adapter runs in one invocation ({facts.loop_cap:,})")
    step = Step(_kernel(d, reduce, half, tuple(kernel) if unrolled else None), (Slot("in", 0), Slot("out", 0),
                                                                                 Slot("meta")),
                tuple(i32_word(v) for v in words), grid_for(-(-total // WORKGROUP), facts.max_groups))
    return Plan((step,), (Output((n, c, *out), F32),))
