"""The 2-D convolution planner: the convolution kernel of shaders/conv2d.wgsl (a thread per output
pixel, TILE x TILE per workgroup) on a C-ordered image and kernel, "valid" or "same".

>>> from pycore.array.layout import Layout
>>> p = plan_conv2d(Layout.contiguous((64, 48)), Layout.contiguous((3, 3)), "same", Facts())
>>> p.outputs[0].shape, p.steps[0].grid, p.steps[0].words[:8]
((64, 48), (3, 4, 1), (64, 48, 3, 3, 64, 48, 1, 1))
"""

from __future__ import annotations

from functools import cache

import numpy as np

from pycore.array.layout import Layout, conv_shape
from pycore.kernels.plan import Copy, Facts, Kernel, Output, Plan, Slot, Step, word_of
from pycore.kernels.wgsl import wgsl_constant, wgsl_source

TILE = wgsl_constant("TILE", "conv2d")  # output pixels per workgroup side
F32 = np.dtype(np.float32)


@cache
def conv_kernel() -> Kernel:
    return Kernel("conv2d.convolve2d", "convolve2d", ("read", "read", "write", "uniform"),
                  lambda: wgsl_source("conv2d"), family="conv2d")


def plan_conv2d(image: Layout, kernel: Layout, mode: str, facts: Facts) -> Plan:
    """The plan of the convolution of a 2-D C-ordered float32 image with a 2-D C-ordered kernel;
    an input at an offset the device cannot bind is copied to a scratch buffer first. The caller
    has checked the shapes, the bindings, the grid and the loop cap (programs.Conv2d)."""
    (h, w), (kh, kw) = image.shape, kernel.shape
    oh, ow = conv_shape(image.shape, kernel.shape, mode)
    pad = (kh // 2, kw // 2) if mode == "same" else (0, 0)
    steps: list[Step | Copy] = []
    scratch: list[int] = []
    slots = []
    for index, x in enumerate((image, kernel)):
        if x.strides != Layout.contiguous(x.shape).strides:
            raise ValueError(f"convolve2d: the kernel reads C-ordered inputs, got strides {x.strides}")
        at, size = 4 * x.offset, max(4, 4 * x.shape[0] * x.shape[1])
        slot = Slot("in", index, at, size)
        if at % facts.offset_align:
            steps.append(Copy(slot, Slot("tmp", len(scratch), 0, size), size))
            slot = Slot("tmp", len(scratch), 0, size)
            scratch.append(size)
        slots.append(slot)
    words = (h, w, kh, kw, oh, ow, *pad, word_of(np.nan, F32), 0, 0, 0)
    grid = (-(-ow // TILE), -(-oh // TILE), 1)
    steps.append(Step(conv_kernel(), (*slots, Slot("out", 0), Slot("meta")), words, grid))
    return Plan(tuple(steps), (Output((oh, ow), F32),), tuple(scratch))
