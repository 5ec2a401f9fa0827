"""The integer matmul generator and planner: (..., m, k) @ (..., k, n) in int32 or uint32 through
the operands' strides (shaders/matmul_int.wgsl), batch axes broadcast. The float32 matmul runs on
the tuned tile kernels of pycore/programs.py.

>>> from pycore.array.layout import Layout
>>> i32 = np.dtype("int32")
>>> p = plan_matmul_int(Layout.contiguous((2, 3, 4)), Layout.contiguous((4, 5)), i32, Facts())
>>> p.outputs[0].shape, p.steps[0].grid
((2, 3, 5), (1, 1, 2))
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from ..array.layout import Layout, broadcast_shapes, collapse
from ..shaders import wgsl_template
from .plan import Facts, Kernel, Output, Plan, Slot, Step, i32_word, wgsl_type

GROUP = 16  # rows and columns of C per workgroup


@cache
def _kernel(dtype: str, batch_rank: int) -> Kernel:
    t = wgsl_type(np.dtype(dtype))
    at = 9  # batch shape, then A's and B's batch strides
    lines = ["    var z = gid.z;"] if batch_rank else []
    for d in reversed(range(batch_rank)):
        coord = f"(z % word({at + d}u))" if d else "z"
        lines.append(f"    a_at = a_at + i32({coord}) * iword({at + batch_rank + d}u);")
        lines.append(f"    b_at = b_at + i32({coord}) * iword({at + 2 * batch_rank + d}u);")
        if d:
            lines.append(f"    z = z / word({at + d}u);")
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
