"""The arithmetic of an element-wise function alone, for benchmarks: a kernel that makes its values
from a hash of each thread's index, applies the function as the element-wise kernel does and
writes one sum a thread (shaders/arithmetic.wgsl), so that its time is the function's arithmetic
without the memory traffic. scripts/arith_bench.py times it beside the element-wise kernel and a
copy: where the two take as long, the arithmetic sets the kernel's pace, not the bytes.

>>> p = plan_arithmetic("asinh", np.dtype(np.complex64), 1 << 20)
>>> p.steps[0].kernel.name, p.steps[0].grid
('arithmetic:asinh_c64(c64)', (1024, 1, 1))
"""

from __future__ import annotations

import numpy as np

from pycore.kernels.plan import Kernel, Output, Plan, Slot, Step, grid_for
from pycore.kernels.wgsl import (
    used_only,
    wgsl_complex,
    wgsl_constant,
    wgsl_functions,
    wgsl_template,
    wgsl_typed,
)

C64 = np.dtype(np.complex64)
F32 = np.dtype(np.float32)


def _bits(x: float) -> int:
    return int(np.float32(x).view(np.uint32))


def plan_arithmetic(function: str, dtype: np.dtype, count: int, arity: int = 1, scalar: complex | None = None,
                    scale: float = 3.0, steps: int = 1, max_groups: int = 65535) -> Plan:
    """The plan of `function`'s arithmetic (`<function>_f32` of ufuncs.wgsl for float32, `<function>_c64`
    of complex.wgsl for complex64) on about `count` values, their parts (and a second operand's,
    `arity` 2) uniform in (-scale, scale); `scalar`: a complex64 function's second operand, the same
    for every value (as pow(x, 2.5 + 0.5j)). `steps`: groups of four values a thread (1, as the
    element-wise kernel: a thread's function calls side by side, not in a loop whose register use
    may differ). Its one output holds a sum per thread (a float32 per four values at steps 1: under
    a sixteenth of a complex kernel's bytes)."""
    if dtype not in (F32, C64):
        raise ValueError(f"plan_arithmetic: float32 or complex64, not {dtype}")
    if dtype == C64:
        args = ["C4(lo, hi)"]
        if scalar is not None:
            args.append("C4(vec4<f32>(bitcast<f32>(words.z)), vec4<f32>(bitcast<f32>(words.w)))")
        call, fold = f"{function}_c64({', '.join(args)})", "y.re + y.im"
    else:
        call, fold = f"{function}_f32({', '.join(['lo', 'hi'][:arity])})", "y"
    workgroup = wgsl_constant("WORKGROUP")
    groups = max(1, -(-count // (4 * steps * workgroup)))
    filled = wgsl_template("arithmetic").replace("{{call}}", call).replace("{{fold}}", fold)
    libraries = [wgsl_template("common"), wgsl_functions("elementwise"), wgsl_functions("binary"),
                 wgsl_typed("ufuncs"), *([wgsl_complex()] if dtype == C64 else [])]
    text = used_only("\n".join([*libraries, filled]))
    shown = "c64" if dtype == C64 else "f32"
    name = f"arithmetic:{function}_{shown}({','.join([shown] * (arity if scalar is None else 2))})"
    kernel = Kernel(name, "arithmetic", ("write", "uniform"), lambda: text)
    value = complex(scalar) if scalar is not None else 0j
    words = (steps, _bits(scale / 32768.0), _bits(value.real), _bits(value.imag))
    step = Step(kernel, (Slot("out", 0), Slot("meta")), words, grid_for(groups, max_groups))
    return Plan((step,), (Output((groups * workgroup,), F32),))
