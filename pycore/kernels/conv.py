"""The direct convolution generator and planner: shaders/conv.wgsl filled in for 1 to 3 spatial
axes, a thread per output element summing its window's taps (channels of its group times kernel
offsets) straight from x and w through their strides, zero padding by bounds checks. For windows
of few taps (an image filter, a depthwise kernel) this reads each input once from the cache and
writes the output once; wide ones (many channels) run as im2col and the tile matmul instead
(calls/nn.py chooses, by DIRECT_TAPS).

>>> from pycore.array.layout import Layout
>>> p = plan_conv(Layout.contiguous((8, 1, 64, 64)), Layout.contiguous((1, 1, 3, 3)), None, (1, 1),
...               ((1, 1), (1, 1)), (1, 1), 1, Facts())
>>> p.outputs[0].shape, p.steps[0].kernel.name, p.steps[0].grid
((8, 1, 64, 64), 'conv:2d', (128, 1, 1))
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from pycore.array.layout import Layout
from pycore.kernels.plan import Facts, Kernel, Output, Plan, Slot, Step, f32_loader, grid_for, i32_word
from pycore.kernels.wgsl import used_only, wgsl_constant, wgsl_template

F32 = np.dtype(np.float32)
WORKGROUP = wgsl_constant("WORKGROUP")  # threads per workgroup (common.wgsl)
DIRECT_TAPS = 64  # taps per output (channels per group x kernel elements) the direct kernel takes at most
AXIS_WORDS = 8  # words per spatial axis: out, x size, x stride, kernel, w stride, stride, padding, dilation


@cache
def _kernel(d: int, bias: bool, halves: tuple[bool, ...] = (False, False, False)) -> Kernel:
    """The kernel for `d` spatial axes, with a bias (binding 4) or not; `halves`: which of x, w and
    the bias are float16 (read from u32 words)."""
    at = [12 + AXIS_WORDS * a for a in range(d)]  # each axis' words
    n_words = 12 + AXIS_WORDS * d
    position = []
    for a in reversed(range(d)):  # the output position, innermost axis first
        position += [f"    let q{a} = rem % word({at[a]}u);", f"    rem = rem / word({at[a]}u);"]
    taps: list[str] = []
    indent = "        "
    for a in range(d):  # nested loops over the kernel offsets, each axis' position and bounds
        s = at[a]
        at_k = f"q{a} * word({s + 5}u) + k{a} * word({s + 7}u)"
        taps += [f"{indent}for (var k{a} = 0u; k{a} < word({s + 3}u); k{a} = k{a} + 1u) {{",
                 f"{indent}    let p{a} = i32({at_k}) - iword({s + 6}u);",
                 f"{indent}    let in{a} = p{a} >= 0 && p{a} < iword({s + 1}u);"]
        indent += "    "
    inside = " && ".join(f"in{a}" for a in range(d))
    x_at = " + ".join(["xc", *(f"max(p{a}, 0) * iword({at[a] + 2}u)" for a in range(d))])
    w_at = " + ".join(["wc", *(f"i32(k{a}) * iword({at[a] + 4}u)" for a in range(d))])
    taps += [f"{indent}let v = select(0.0, x_at(u32({x_at})), {inside});",
             f"{indent}acc = acc + v * w_at(u32({w_at}));"]
    for _ in range(d):
        indent = indent[:-4]
        taps.append(f"{indent}}}")
    names = ("x", "w", "bias")
    types = {name: "u32" if half else "f32" for name, half in zip(names, halves, strict=True)}
    binding = f"@group(0) @binding(4) var<storage, read> bias: array<{types['bias']}>;" if bias else ""
    add = "    acc = acc + bias_at(u32(iword(10u) + i32(o) * iword(11u)));" if bias else ""
    loaders = [f32_loader(name, half) for name, half in zip(names, halves, strict=True)
               if name != "bias" or bias]

    def source() -> str:
        filled = (wgsl_template("conv").replace("{{meta_vec4s}}", str(-(-n_words // 4)))
                  .replace("{{bias_binding}}", binding).replace("{{position}}", "\n".join(position))
                  .replace("{{taps}}", "\n".join(taps)).replace("{{bias}}", add)
                  .replace("{{loaders}}", "\n".join(loaders))
                  .replace("{{x_type}}", types["x"]).replace("{{w_type}}", types["w"]))
        return used_only("\n".join([wgsl_template("common"), filled]))

    bindings = ("read", "read", "write", "uniform") + (("read",) if bias else ())
    halved = "".join(name[0] for name, half in zip(names, halves, strict=True) if half)
    return Kernel(f"conv:{d}d{'+bias' if bias else ''}{':f16=' + halved if halved else ''}", "conv", bindings,
                  source)


def plan_conv(x: Layout, w: Layout, bias: Layout | None, stride: tuple[int, ...],
              pads: tuple[tuple[int, int], ...], dilation: tuple[int, ...], groups: int, facts: Facts,
              halves: tuple[bool, bool, bool] = (False, False, False)) -> Plan:
    """The plan of the direct convolution of x (N, C, *spatial) with w (O, C // groups, *kernel)
    (+ bias (O,)), float32 or float16 (`halves`: which of x, w, bias), each read through its
    layout; the output (N, O, *out) is float32, C-ordered.
    `pads`: (before, after) zeros per spatial axis. The caller has checked the arguments; a
    ValueError where an input or the output does not fit one binding (the caller composes the
    convolution of other calls instead)."""
    d = x.ndim - 2
    n, o = x.shape[0], w.shape[0]
    kernel = w.shape[2:]
    out = tuple((m + lo + hi - di * (k - 1) - 1) // s + 1
                for m, k, s, di, (lo, hi) in zip(x.shape[2:], kernel, stride, dilation, pads, strict=True))
    total = n * o * math.prod(out)
    for what, layout, half in zip(("x", "w", "bias"), (x, w, bias), halves, strict=True):
        if layout is not None and (2 if half else 4) * (layout.span()[1] + 2) > facts.max_binding:
            raise ValueError(f"conv: {what} of shape {layout.shape} does not fit one GPU binding")
    if 4 * total > facts.max_binding:
        raise ValueError(f"conv: the result of shape {(n, o, *out)} does not fit one GPU binding")
    words = [total, o, w.shape[1], o // groups, x.offset, x.strides[0], x.strides[1], w.offset, w.strides[0],
             w.strides[1], bias.offset if bias else 0, bias.strides[0] if bias else 0]
    for a in range(d):
        words += [out[a], x.shape[2 + a], x.strides[2 + a], kernel[a], w.strides[2 + a], stride[a],
                  pads[a][0], dilation[a]]
    slots = (Slot("in", 0), Slot("in", 1), Slot("out", 0), Slot("meta")) + ((Slot("in", 2),) if bias else ())
    step = Step(_kernel(d, bias is not None, tuple(halves)), slots, tuple(i32_word(v) for v in words),
                grid_for(-(-total // WORKGROUP), facts.max_groups))
    return Plan((step,), (Output((n, o, *out), F32),))
