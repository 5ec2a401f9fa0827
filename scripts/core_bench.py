#!/usr/bin/env python3
"""Speed of the n-d core, measured in one process (Dawn in Node by default: the browser transport on
whatever adapter Dawn finds; `--native` for wgpu-py): ratios that do not depend on the machine.

- element-wise `add` on 2048 x 2048 float32 inputs: contiguous, a transposed view, a broadcast row,
  a strided slice, and the fixed op relu (its kernel from the same generator) and softmax along the
  last axis and along the first (rows read through strides) beside them; each as time per op in a chain of
  ops (the chain of K ops minus the chain of 1, over K - 1, then a 4-element read), and its ratio
  to contiguous. At this size a chained op on a fast GPU costs its host work more than its kernel;
- reductions of a 4096 x 4096 float32 array as GB/s read, against a copy of the same array
  (`copy_async`: bytes read and written) measured the same way;
- host time of a resident small op (1,024 elements, result kept on the GPU) for `add` (an n-d
  plan) against the fixed op `relu` (its plan replayed), over 200 calls;
- the same element-wise cases and reductions on 8192 x 8192 arrays, where the kernels (0.3 ms and
  more on an H100) outweigh the host's work per op; strided against contiguous of the same bytes;
- kernel times from GPU timestamp queries (engine.executor.time_plan_async) of the same 8192²
  element-wise cases and reductions, of the copy, and of a sort and an argsort of 16M float32 keys
  (against NumPy's stable sort of them in the same process), where the adapter has "timestamp-query";
- fused element-wise kernels (the queue's fusion of a chain of calls) timed the same way: a
  two-input chain of four calls and GELU's tanh form (eight calls), and reductions with a fused
  prologue (centred squares over columns, exponentials over rows, a largest absolute difference),
  against the copy's GB/s;
- matmul kernels timed the same way (TFLOP/s): 2-D products, a batch as one dispatch with
  workgroups along z against a dispatch per product, a long-K product split into slices of K
  against one pass;
- attention timed the same way (TFLOP/s): nn.scaled_dot_product_attention's fused kernel against
  the kernels of the composed calls (the batched products and the softmax), at 8 x 8 heads of 512
  tokens and 8 heads of 4096 tokens;
- packed (float16, int8) and complex64 element-wise kernels against the same work on float32;
- batched matmul against the same products as separate 2-D calls (then batched again: the
  first timed case of a process runs slower on some machines);
- every timed case once against NumPy (float64).

    python3 scripts/core_bench.py [--native] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SNIPPET = r'''
import json, time, numpy as np, pycore

async def chain_ms(make, k):
    y = None
    t = time.perf_counter()
    for _ in range(k):
        y = await make()
    tail = y[(0,) * (y.ndim - 1)][:4] if y.ndim else y
    await tail.to_numpy_async()
    return (time.perf_counter() - t) * 1e3

async def gpu_bound_ms(make, k=17, rounds=3):
    """Per op in a chain of large arrays, each result dropped for the next to reuse (kept results
    would time a new buffer's allocation and zeroing per op): the GPU, not the host, sets the
    pace, as long as an op's kernel takes longer than its host work and submit."""
    return await per_op_ms(make, k, rounds)

async def per_op_ms(make, k=33, rounds=5):
    await chain_ms(make, k)  # compile, pool, and let the chain settle
    best = []
    for _ in range(rounds):
        one = await chain_ms(make, 1)
        many = await chain_ms(make, k)
        best.append((many - one) / (k - 1))
    best.sort()
    return best[len(best) // 2]

rng = np.random.default_rng(0)
n = 2048
a = await pycore.to_gpu_async(rng.standard_normal((n, n), dtype=np.float32))
b = await pycore.to_gpu_async(rng.standard_normal((n, n), dtype=np.float32))
wide = await pycore.to_gpu_async(rng.standard_normal((n, 2 * n), dtype=np.float32))
row = await pycore.to_gpu_async(rng.standard_normal((n,), dtype=np.float32))
out = {"elementwise": {}, "reduce": {}, "host": {}}
# single ops are timed: no fusion (it would fold a chain into one kernel, and leave out an op whose
# result is dropped before the GPU runs it)
pycore.engine.runtime.RUNTIME.device.fusion = False
cases = {
    "contiguous": lambda: pycore.add_async(a, b, backend="gpu"),
    "transposed": lambda: pycore.add_async(a.T, b, backend="gpu"),
    "broadcast row": lambda: pycore.add_async(a, row, backend="gpu"),
    "strided slice": lambda: pycore.add_async(wide[:, ::2], b, backend="gpu"),
    "relu (fixed op)": lambda: pycore.relu_async(a, backend="gpu"),
    "softmax last axis": lambda: pycore.softmax_async(a, backend="gpu"),
    "softmax axis 0 (strided rows)": lambda: pycore.softmax_async(a, axis=0, backend="gpu"),
}
for name, make in cases.items():
    out["elementwise"][name] = await per_op_ms(make)
base = out["elementwise"]["contiguous"]
out["elementwise_ratio"] = {k: v / base for k, v in out["elementwise"].items()}

m = 4096
big = await pycore.to_gpu_async(rng.standard_normal((m, m), dtype=np.float32))
nbytes = 4 * m * m
copy_ms = await per_op_ms(lambda: big.copy_async(), k=17)
out["copy_gbps"] = 2 * nbytes / copy_ms / 1e6
reductions = {
    "sum axis=0": lambda: pycore.sum_async(big, axis=0, backend="gpu"),
    "sum axis=1": lambda: pycore.sum_async(big, axis=1, backend="gpu"),
    "sum all (keepdims)": lambda: pycore.sum_async(big, axis=(0, 1), keepdims=True, backend="gpu"),
    "mean axis=0": lambda: pycore.mean_async(big, axis=0, backend="gpu"),
    "max axis=1": lambda: pycore.max_async(big, axis=1, backend="gpu"),
    "var axis=0 (reads twice)": lambda: pycore.var_async(big, axis=0, backend="gpu"),
    "argmax axis=1": lambda: pycore.argmax_async(big, axis=1, backend="gpu"),
    "sum axis=1 of the transpose": lambda: pycore.sum_async(big.T, axis=1, backend="gpu"),
}
for name, make in reductions.items():
    ms = await per_op_ms(make, k=17)
    gbps = nbytes / ms / 1e6
    out["reduce"][name] = {"ms": ms, "gbps": gbps, "of_copy": gbps / out["copy_gbps"]}

small = await pycore.to_gpu_async(rng.standard_normal(1024, dtype=np.float32))
for name, make in {"add (n-d plan)": lambda: pycore.add_async(small, small, backend="gpu"),
                   "relu (fixed op)": lambda: pycore.relu_async(small, backend="gpu")}.items():
    for _ in range(20):
        await make()
    t = time.perf_counter()
    for _ in range(200):
        y = await make()
    host = (time.perf_counter() - t) / 200 * 1e3
    await y.to_numpy_async()
    out["host"][name] = host
checks = []  # each case once against NumPy (float64), so the timings are of right answers
ha, hb, hw, hr, hbig = [await x.to_numpy_async() for x in (a, b, wide, row, big)]
for name, make, want in [
        ("contiguous", cases["contiguous"], ha + hb), ("transposed", cases["transposed"], ha.T + hb),
        ("broadcast row", cases["broadcast row"], ha + hr),
        ("strided slice", cases["strided slice"], hw[:, ::2] + hb),
        ("sum axis=0", reductions["sum axis=0"], hbig.astype(np.float64).sum(0)),
        ("sum axis=1 of the transpose", reductions["sum axis=1 of the transpose"],
         hbig.astype(np.float64).T.sum(1)),
        ("var axis=0", reductions["var axis=0 (reads twice)"], hbig.astype(np.float64).var(0)),
        ("argmax axis=1", reductions["argmax axis=1"], hbig.argmax(1))]:
    got = await (await make()).to_numpy_async()
    checks.append([name, float(np.max(np.abs(got - want)))])
out["max_abs_error"] = checks
# large arrays: the GPU's pace (kernel time; the host's per-op work and submit overlap it)
cpu = "llvmpipe" in str(pycore.info()["adapter"]) or "swiftshader" in str(pycore.info()["adapter"]).lower()
side = 1024 if cpu else 8192
while 4 * side * side > pycore.engine.runtime.RUNTIME.device.max_binding and side > 1024:
    side //= 2
for x in (a, b, wide, big):
    x.release()
A = await pycore.to_gpu_async(rng.standard_normal((side, side), dtype=np.float32))
B = await pycore.to_gpu_async(rng.standard_normal((side, side), dtype=np.float32))
R = await pycore.to_gpu_async(rng.standard_normal((side,), dtype=np.float32))
big_bytes = 4 * side * side
gb = {"side": side}
gb["copy GB/s"] = 2 * big_bytes / await gpu_bound_ms(lambda: A.copy_async()) / 1e6
for name, make in {"add contiguous": lambda: pycore.add_async(A, B, backend="gpu"),
                   "add transposed": lambda: pycore.add_async(A.T, B, backend="gpu"),
                   "add broadcast row": lambda: pycore.add_async(A, R, backend="gpu"),
                   "add strided (every other column)":
                       lambda: pycore.add_async(A[:, ::2], B[:, ::2], backend="gpu"),
                   "add contiguous half (same bytes as strided)": lambda: pycore.add_async(
                       A[: side // 2], B[: side // 2], backend="gpu")}.items():
    gb[name + " ms"] = await gpu_bound_ms(make)
for name, make in {"sum axis=0": lambda: pycore.sum_async(A, axis=0, backend="gpu"),
                   "sum axis=1": lambda: pycore.sum_async(A, axis=1, backend="gpu"),
                   "max axis=0": lambda: pycore.max_async(A, axis=0, backend="gpu"),
                   "mean axis=1": lambda: pycore.mean_async(A, axis=1, backend="gpu"),
                   "sum all (keepdims)":
                       lambda: pycore.sum_async(A, axis=(0, 1), keepdims=True, backend="gpu"),
                   "argmax axis=1": lambda: pycore.argmax_async(A, axis=1, backend="gpu")}.items():
    ms = await gpu_bound_ms(make)
    gb[name + " GB/s"] = big_bytes / ms / 1e6
out["gpu_bound"] = gb

# kernel times from timestamp queries (None where the adapter has none): the same plans the calls run
from pycore.engine.executor import facts, time_plan_async
from pycore.kernels.elementwise import Operand, plan_elementwise
from pycore.kernels.reduction import Combine, plan_reduction
dev = pycore.engine.runtime.RUNTIME.device
f = facts(dev)
f32 = np.dtype(np.float32)
def ew(fn, arrays, shape):
    return plan_elementwise("bench", fn, [Operand(f32, x.layout) for x in arrays], f32, f32, shape, f)
async def kernel_ms(plan, arrays):
    return await time_plan_async(dev, plan, [x.binding() for x in arrays])
half = side // 2
from pycore.kernels.rowwise import ROW_OPS, plan_rowwise
total = Combine("sum", f32, 0.0)
arg = Combine("argmax", f32, -np.inf, arg=True)
cases = {
    "copy": (lambda: ew("copy_f32", [A], A.shape), [A], 2 * big_bytes),
    "add contiguous": (lambda: ew("add_f32", [A, B], A.shape), [A, B], 3 * big_bytes),
    "add transposed": (lambda: ew("add_f32", [A.T, B], A.shape), [A.T, B], 3 * big_bytes),
    "add broadcast row": (lambda: ew("add_f32", [A, R], A.shape), [A, R], 2 * big_bytes),
    "add strided (every other column)": (lambda: ew("add_f32", [A[:, ::2], B[:, ::2]], (side, half)),
                                         [A[:, ::2], B[:, ::2]], 3 * big_bytes // 2),
    "add contiguous half": (lambda: ew("add_f32", [A[:half], B[:half]], (half, side)), [A[:half], B[:half]],
                            3 * big_bytes // 2),
    "softmax last axis": (lambda: plan_rowwise(ROW_OPS["softmax"], A.layout, 1, f), [A], 2 * big_bytes),
    "softmax axis 0 (strided rows)": (lambda: plan_rowwise(ROW_OPS["softmax"], A.layout, 0, f), [A],
                                      2 * big_bytes),
}
for fn in ("sin", "exp", "log", "sqrt", "abs", "floor"):  # the Array API's element-wise functions
    cases[fn] = ((lambda fn=fn: ew(f"{fn}_f32", [A], A.shape)), [A], 2 * big_bytes)
for fn in ("pow", "atan2", "hypot", "logaddexp", "copysign"):
    cases[fn] = ((lambda fn=fn: ew(f"{fn}_f32", [A, B], A.shape)), [A, B], 3 * big_bytes)
# a stable sort of 16M random float32 keys (the radix sort's four passes) and an argsort (indices too);
# bytes: each pass reads and writes the keys (and the indices)
from pycore.kernels.sort import plan_sort
keys_host = np.random.default_rng(1).random(1 << 24, dtype=np.float32)
keys = await pycore.to_gpu_async(keys_host)
cases["sort 16M float32"] = (lambda: plan_sort(keys.layout, 0, f32, f), [keys], 4 * 8 * keys.size)
cases["argsort 16M float32"] = (lambda: plan_sort(keys.layout, 0, f32, f, indices=True), [keys],
                                4 * 16 * keys.size)
import time as _time
_t = _time.perf_counter()
np.sort(keys_host, kind="stable")
out["numpy_sort_16M_ms"] = (_time.perf_counter() - _t) * 1e3
for name, c, axes in [("sum axis=0", total, (0,)), ("sum axis=1", total, (1,)), ("sum all", total, (0, 1)),
                      ("max axis=0", Combine("max", f32, -np.inf), (0,)),
                      ("max axis=1", Combine("max", f32, -np.inf), (1,)),
                      ("mean axis=1", Combine("sum", f32, 0.0, finish="scale"), (1,)),
                      ("argmax axis=1", arg, (1,)), ("argmax axis=0", arg, (0,)),
                      ("argmax all", arg, (0, 1))]:
    cases[name] = ((lambda c=c, axes=axes: plan_reduction(c, A.layout, axes, f32, f)), [A], big_bytes)
# the scans (kernels/scan.py: reduce, carry, down) on 16M float32 (A's first rows), counted as a copy
# is (each element read and written once): the target is at least half the copy's GB/s
from pycore.array.layout import Layout
from pycore.kernels.scan import plan_scan
scan_n = min(1 << 24, side * side)
scan_flat = Layout((scan_n,), (1,), A.layout.offset)
scan_rows = Layout((scan_n // side, side), (side, 1), A.layout.offset)
cases["cumulative_sum 16M"] = (lambda: plan_scan("sum", scan_flat, 0, f32, f32, False, f), [A], 8 * scan_n)
cases["cumulative_sum axis=0 (strided rows)"] = (lambda: plan_scan("sum", scan_rows, 0, f32, f32, False, f),
                                                 [A], 8 * scan_n)
cases["cumulative_sum axis=1"] = (lambda: plan_scan("sum", scan_rows, 1, f32, f32, False, f), [A], 8 * scan_n)
# the packed dtypes (kernels/elementwise.py and reduction.py unpack them): the same work on half or a
# quarter of the bytes; the target is float16 at 1.8x float32's elements per second or better
f16 = np.dtype(np.float16)
A16 = await pycore.astype_async(A, "float16")
B16 = await pycore.astype_async(B, "float16")
A8 = await pycore.astype_async(await pycore.multiply_async(A, 40.0), "int8")
def ewp(fn, arrays, shape, compute, out_dt):
    operands = [Operand(x.dtype, x.layout) for x in arrays]
    return plan_elementwise("bench", fn, operands, compute, out_dt, shape, f)
cases["copy float16"] = (lambda: ewp("copy_f32", [A16], A.shape, f32, f16), [A16], big_bytes)
cases["add float16"] = (lambda: ewp("add_f32", [A16, B16], A.shape, f32, f16), [A16, B16],
                        3 * big_bytes // 2)
cases["exp float16"] = (lambda: ewp("exp_f32", [A16], A.shape, f32, f16), [A16], big_bytes)
cases["sum axis=1 float16"] = (lambda: plan_reduction(total, A16.layout, (1,), f16, f), [A16], big_bytes // 2)
cases["sum axis=0 float16"] = (lambda: plan_reduction(total, A16.layout, (0,), f16, f), [A16], big_bytes // 2)
top = Combine("max", f32, -np.inf)
cases["max axis=1 float16"] = (lambda: plan_reduction(top, A16.layout, (1,), f16, f), [A16], big_bytes // 2)
cases["max axis=0 float16"] = (lambda: plan_reduction(top, A16.layout, (0,), f16, f), [A16], big_bytes // 2)
i32, i8 = np.dtype(np.int32), np.dtype(np.int8)
cases["add int8"] = (lambda: ewp("add_i32", [A8, A8], A.shape, i32, i8), [A8, A8], 3 * big_bytes // 4)
cases["int8 (image data) to float32"] = (lambda: ewp("copy_f32", [A8], A.shape, f32, f32), [A8],
                                         5 * big_bytes // 4)
# complex64 (shaders/complex.wgsl: two float32 words an element): A's and B's bytes as side x side/2
# complex values; arithmetic is bandwidth-bound like float32's, exp and abs add the scalar functions
from pycore.calls.gpuarray import complex_view
c64 = np.dtype(np.complex64)
CA = complex_view(A.reshape((side, half, 2)))
CB = complex_view(B.reshape((side, half, 2)))
cases["add complex64"] = (lambda: ewp("add_c64", [CA, CB], CA.shape, c64, c64), [CA, CB], 3 * big_bytes)
cases["multiply complex64"] = (lambda: ewp("multiply_c64", [CA, CB], CA.shape, c64, c64), [CA, CB],
                               3 * big_bytes)
cases["exp complex64"] = (lambda: ewp("exp_c64", [CA], CA.shape, c64, c64), [CA], 2 * big_bytes)
cases["abs complex64 (float32 out)"] = (lambda: ewp("abs_c64", [CA], CA.shape, c64, f32), [CA],
                                        3 * big_bytes // 2)
# fused element-wise kernels (what the queue's fusion runs for a chain of calls on temporaries): a
# two-input chain ((a * 2 + b) * a - 1: four calls) and GELU's tanh form (eight calls on one input);
# bytes are the inputs read once and the output written once (tanh is the activation's `tanh__f`)
from pycore.calls.nd import _wgsl_function
from pycore.kernels.elementwise import Call, Expr, plan_expr
from pycore.tables.ufuncs import UFUNCS
def fn_of(name):
    return _wgsl_function(UFUNCS[name], f32)
def call(name, *args):
    return Call(fn_of(name), args, f32, f32)
def scalar(v):
    return Operand(f32, None, np.float32(v))
chain2 = Expr((Operand(f32, A.layout), scalar(2.0), Operand(f32, B.layout), scalar(1.0)),
              (call("multiply", 0, 1), call("add", -1, 2), call("multiply", -2, 0), call("subtract", -3, 3)),
              A.shape)
gelu = Expr((Operand(f32, A.layout), scalar(0.044715), scalar(0.7978845608), scalar(1.0), scalar(0.5)),
            (call("multiply", 0, 0), call("multiply", -1, 0), call("multiply", -2, 1), call("add", 0, -3),
             call("multiply", -4, 2), Call("tanh__f", (-5,), f32, f32), call("add", -6, 3),
             call("multiply", 0, 4), call("multiply", -8, -7)), A.shape)
cases["fused (a*2+b)*a-1 (4 calls)"] = (lambda: plan_expr(chain2, f), [A, B], 3 * big_bytes)
cases["fused GELU (tanh form, 8 calls)"] = (lambda: plan_expr(gelu, f), [A], 2 * big_bytes)
# reductions with a fused prologue (what the queue's fusion runs for a reduction of temporaries):
# bytes are the inputs read once (a column statistic's centred squares, a row sum of exponentials,
# the largest absolute difference of two arrays)
dev2 = Expr((Operand(f32, A.layout), Operand(f32, R.layout)),
            (call("subtract", 0, 1), call("multiply", -1, -1)), A.shape)
exps = Expr((Operand(f32, A.layout),), (call("exp", 0),), A.shape)
diff = Expr((Operand(f32, A.layout), Operand(f32, B.layout)), (call("subtract", 0, 1), call("abs", -1)),
            A.shape)
cases["fused sum((a-m)**2, axis=0)"] = (lambda: plan_reduction(total, A.layout, (0,), f32, f, prologue=dev2),
                                        [A, R], big_bytes)
cases["fused sum(exp(a), axis=1)"] = (lambda: plan_reduction(total, A.layout, (1,), f32, f, prologue=exps),
                                      [A], big_bytes)
cases["fused max(abs(a-b))"] = (lambda: plan_reduction(Combine("max", f32, -np.inf), A.layout, (0, 1), f32, f,
                                                       prologue=diff), [A, B], 2 * big_bytes)
# A GPU's clocks ramp up under load (an H100 ran the same kernels 1.8x faster in a third round
# than in the first): a round to warm up, not kept, then three rounds, each case once per round;
# each case's fastest round counts, and every round is kept
for _ in range(4):
    await kernel_ms(cases["copy"][0](), [A])
for name, (make, arrays, n) in cases.items():
    await kernel_ms(make(), arrays)
rounds = {name: [] for name in cases}
for _ in range(3):
    for name, (make, arrays, n) in cases.items():
        rounds[name].append(await kernel_ms(make(), arrays))
kt = {}
for name, (_, _, n) in cases.items():
    got = [ms for ms in rounds[name] if ms is not None]
    kt[name] = (min(got) if got else None, n)
out["kernel_rounds_ms"] = rounds
out["kernel_times"] = {k: {"ms": ms, "GB/s": (n / ms / 1e6 if ms else None)} for k, (ms, n) in kt.items()}
for x in (A, B, keys, A16, B16, A8):
    x.release()

# matmul kernels from timestamps (TFLOP/s): 2-D products on the tile kernels, a batch of 64
# products as one dispatch with workgroups along z against a dispatch per product (each timed
# alone: the kernels' time, not the host's per dispatch), and a long-K product with few tiles
# split into slices of K (partial products and their sum) against one pass over K
import pycore.kernels.matmul as mk
def mm_plan(a_shape, b_shape, along=True):
    saved = mk._along_z
    if not along:
        mk._along_z = lambda *args, **kw: None
    try:
        return mk.plan_matmul(Layout.contiguous(a_shape), Layout.contiguous(b_shape), f)
    finally:
        mk._along_z = saved
mm_cases = {}
for s in (() if cpu else (2048, 4096, 8192)):  # (a CPU adapter: none of these)
    mm_cases[f"{s}^2"] = ((s, s), (s, s), True)
if not cpu:
    mm_cases["64 x (512x64 @ 64x512), along z"] = ((64, 512, 64), (64, 64, 512), True)
    mm_cases["64 x (512x64 @ 64x512), a dispatch each"] = ((64, 512, 64), (64, 64, 512), False)
    mm_cases["64 x (512x512 @ 512x64), along z"] = ((64, 512, 512), (64, 512, 64), True)
    mm_cases["64 x (512x512 @ 512x64), a dispatch each"] = ((64, 512, 512), (64, 512, 64), False)
    mm_cases["64x262144 @ 262144x16, split-K"] = ((64, 262144), (262144, 16), True)
    mm_cases["64x262144 @ 262144x16, one pass"] = ((64, 262144), (262144, 16), False)
mm_rounds = {name: [] for name in mm_cases}
mm_arrays = {}
for name, (sa, sb, along) in mm_cases.items():
    key = (sa, sb)
    if key not in mm_arrays:
        mm_arrays[key] = (await pycore.to_gpu_async(rng.standard_normal(sa, dtype=np.float32)),
                          await pycore.to_gpu_async(rng.standard_normal(sb, dtype=np.float32)))
for rnd in range(3):
    for name, (sa, sb, along) in mm_cases.items():
        ms = await kernel_ms(mm_plan(sa, sb, along), list(mm_arrays[(sa, sb)]))
        mm_rounds[name].append(ms)
mm_kt = {}
for name, (sa, sb, _) in mm_cases.items():
    got = [ms for ms in mm_rounds[name] if ms is not None]
    flops = 2.0 * np.prod(sa[:-1]) * sa[-1] * sb[-1]
    mm_kt[name] = {"ms": min(got) if got else None, "TFLOP/s": flops / min(got) / 1e9 if got else None,
                   "rounds": mm_rounds[name]}
out["matmul_kernel_times"] = mm_kt
for pair in mm_arrays.values():
    for x in pair:
        x.release()

# attention from timestamps (TFLOP/s: two products of 2 B L S d FLOPs each): the fused kernel
# (kernels/attention.py: tiles of keys folded into a running softmax, the scores never stored)
# against the kernels the composed calls run (the batched product q k^T, softmax over its rows, the
# product with v; k^T given contiguous, so without the transpose a view costs the composed path)
from pycore.kernels.attention import plan_attention
att = {}
for label, (bh, tokens, d, causal) in {"8x8 heads, 512 tokens, d 64": (64, 512, 64, False),
                                       "8 heads, 4096 tokens, d 64": (8, 4096, 64, False),
                                       "8 heads, 4096 tokens, d 64, causal": (8, 4096, 64, True)}.items():
    if cpu:
        break
    qkv = [await pycore.to_gpu_async(rng.standard_normal((bh, tokens, d), dtype=np.float32))
           for _ in range(3)]
    kT = await pycore.to_gpu_async(rng.standard_normal((bh, d, tokens), dtype=np.float32))
    scores = await pycore.to_gpu_async(rng.standard_normal((bh, tokens, tokens), dtype=np.float32))
    fused_plan = plan_attention(qkv[0].layout, qkv[1].layout, qkv[2].layout, None, "", causal, d ** -0.5, f)
    ms_rounds = {"fused": [], "composed": []}
    warm = time.perf_counter()  # (the uploads above left the GPU idle: its clock falls within ms)
    while time.perf_counter() - warm < 0.3:
        await kernel_ms(fused_plan, qkv[:3])
    for _ in range(3):
        ms_rounds["fused"].append(await kernel_ms(fused_plan, qkv[:3]))
        if not causal:
            rows = Layout.contiguous((bh * tokens, tokens))
            parts = [await kernel_ms(mm_plan((bh, tokens, d), (bh, d, tokens)), [qkv[0], kT]),
                     await kernel_ms(plan_rowwise(ROW_OPS["softmax"], rows, 1, f), [scores]),
                     await kernel_ms(mm_plan((bh, tokens, tokens), (bh, tokens, d)), [scores, qkv[2]])]
            ms_rounds["composed"].append(None if None in parts else sum(parts))
    flops = 4.0 * bh * tokens * tokens * d * (0.5 if causal else 1.0)
    entry = {}
    for k, got in ms_rounds.items():
        got = [ms for ms in got if ms is not None]
        if got:
            entry[k] = {"ms": min(got), "TFLOP/s": flops / min(got) / 1e9, "rounds": ms_rounds[k]}
    att[label] = entry
    for x in (*qkv, kT, scores):
        x.release()
out["attention_kernel_times"] = att

# batched matmul against the same work as separate 2-D products (both chained, results kept)
mm = {}
for batch, m, k, n in ((8, 1024, 1024, 1024), (8, 512, 64, 512), (32, 256, 256, 256)):
    a3 = rng.standard_normal((batch, m, k), dtype=np.float32)
    b3 = rng.standard_normal((batch, k, n), dtype=np.float32)
    A3, B3 = await pycore.to_gpu_async(a3), await pycore.to_gpu_async(b3)
    A2 = [await pycore.to_gpu_async(a3[i]) for i in range(batch)]
    B2 = [await pycore.to_gpu_async(b3[i]) for i in range(batch)]
    async def separate():
        ys = [await pycore.matmul_async(A2[i], B2[i], backend="gpu") for i in range(batch)]
        return ys[-1]
    flops = 2.0 * batch * m * k * n
    got = await (await pycore.matmul_async(A3, B3, backend="gpu")).to_numpy_async()
    err = float(np.max(np.abs(got - a3.astype(np.float64) @ b3)))
    t_b = await gpu_bound_ms(lambda: pycore.matmul_async(A3, B3, backend="gpu"))
    t_s = await gpu_bound_ms(separate)
    t_b2 = await gpu_bound_ms(lambda: pycore.matmul_async(A3, B3, backend="gpu"))  # (again: the order)
    t_s2 = await gpu_bound_ms(separate)
    mm[f"({batch}, {m}, {k}) @ ({batch}, {k}, {n})"] = {
        "batched TFLOP/s": flops / t_b / 1e9, "2-D TFLOP/s": flops / t_s / 1e9, "ratio": t_s / t_b,
        "batched again TFLOP/s": flops / t_b2 / 1e9, "2-D again TFLOP/s": flops / t_s2 / 1e9,
        "ratio again": t_s2 / t_b2,
        "max abs error": err}
    for x in (A3, B3, *A2, *B2):
        x.release()
out["batched_matmul"] = mm
out["adapter"] = pycore.info()["adapter"]
json.dumps(out)
'''


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--native", action="store_true", help="wgpu-py instead of Dawn")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    from tests.harness import gpu_worker

    worker = gpu_worker(args.native)
    if worker is None:
        return 1
    result = json.loads(worker.py(SNIPPET))
    worker.close()
    print(f"adapter: {result['adapter']}")
    print("element-wise add, 2048 x 2048 float32 (ms per op in a chain; ratio to contiguous)")
    for name, ms in result["elementwise"].items():
        print(f"  {name:28s} {ms:8.3f} ms  {result['elementwise_ratio'][name]:5.2f}x")
    print(f"copy of 4096 x 4096 float32: {result['copy_gbps']:.1f} GB/s (read + written)")
    print("reductions of 4096 x 4096 float32 (GB/s read; fraction of the copy's GB/s)")
    for name, r in result["reduce"].items():
        print(f"  {name:30s} {r['ms']:8.3f} ms {r['gbps']:8.1f} GB/s  {r['of_copy']:5.2f}")
    print("host time of a resident 1,024-element op (ms per call, 200 calls)")
    for name, ms in result["host"].items():
        print(f"  {name:24s} {ms:.4f}")
    errors = ", ".join(f"{n} {e:.2g}" for n, e in result["max_abs_error"])
    print(f"largest difference from NumPy (float64): {errors}")
    gb = result["gpu_bound"]
    side = gb["side"]
    print(f"GPU-bound ({side} x {side} float32, per op in a chain):")
    for k, v in gb.items():
        if k != "side":
            print(f"  {k:48s} {v:9.3f}")
    base = gb["add contiguous ms"]
    for k in ("add transposed ms", "add broadcast row ms"):
        print(f"  ratio {k[:-3]} / contiguous: {gb[k] / base:.2f}")
    strided = gb["add strided (every other column) ms"] / gb["add contiguous half (same bytes as strided) ms"]
    print(f"  ratio strided / contiguous of the same bytes: {strided:.2f}")
    for k, v in gb.items():
        if k.endswith("GB/s") and k != "copy GB/s":
            print(f"  {k[:-5]} / copy bandwidth: {v / gb['copy GB/s']:.2f}")
    kt = result.get("kernel_times", {})
    if kt and kt["copy"]["ms"] is not None:
        print(f"kernel times from timestamp queries ({side} x {side} float32; GB/s: bytes read and written)")
        for k, v in kt.items():
            print(f"  {k:40s} {v['ms']:8.4f} ms {v['GB/s']:8.1f} GB/s")
        base = kt["add contiguous"]["ms"]
        print(f"  ratio transposed / contiguous {kt['add transposed']['ms'] / base:.2f}, broadcast row "
              f"{kt['add broadcast row']['ms'] / base:.2f}, strided / contiguous of the same bytes "
              f"{kt['add strided (every other column)']['ms'] / kt['add contiguous half']['ms']:.2f}")
        copy = kt["copy"]["GB/s"]
        for k in ("sum axis=0", "sum axis=1", "sum all", "max axis=0", "mean axis=1", "argmax axis=1",
                  "argmax axis=0", "argmax all", "cumulative_sum 16M", "cumulative_sum axis=0 (strided rows)",
                  "cumulative_sum axis=1"):
            print(f"  {k} / copy bandwidth: {kt[k]['GB/s'] / copy:.2f}")
        for k in ("sin", "exp", "log", "sqrt", "abs", "floor", "pow", "atan2", "hypot", "logaddexp",
                  "copysign"):
            print(f"  {k} / copy bandwidth: {kt[k]['GB/s'] / copy:.2f}")
        print("matmul kernels (GPU timestamps; TFLOP/s)")
        for k, v in result.get("matmul_kernel_times", {}).items():
            if v["ms"] is not None:
                print(f"  {k:44s} {v['ms']:8.3f} ms  {v['TFLOP/s']:6.2f} TFLOP/s")
        print("attention kernels (GPU timestamps; TFLOP/s): the fused kernel, the composed calls' kernels")
        for k, v in result.get("attention_kernel_times", {}).items():
            line = "; ".join(f"{how} {r['ms']:.3f} ms, {r['TFLOP/s']:.2f} TFLOP/s" for how, r in v.items())
            if "fused" in v and "composed" in v:
                line += f"; composed / fused {v['composed']['ms'] / v['fused']['ms']:.2f}"
            print(f"  {k:40s} {line}")
        print("fused element-wise and reduction kernels (inputs read once, output written once; "
              "target >= 0.70 of copy)")
        for k in ("fused (a*2+b)*a-1 (4 calls)", "fused GELU (tanh form, 8 calls)",
                  "fused sum((a-m)**2, axis=0)", "fused sum(exp(a), axis=1)", "fused max(abs(a-b))"):
            if kt.get(k, {}).get("ms"):
                print(f"  {k:34s} {kt[k]['ms']:8.3f} ms  {kt[k]['GB/s'] / copy:5.2f} of copy bandwidth")
        print("packed dtypes: elements per second against the same op on float32 (target: float16 >= 1.8)")
        for k, base in (("copy float16", "copy"), ("add float16", "add contiguous"), ("exp float16", "exp"),
                        ("sum axis=1 float16", "sum axis=1"), ("sum axis=0 float16", "sum axis=0"),
                        ("max axis=1 float16", "max axis=1"), ("max axis=0 float16", "max axis=0"),
                        ("add int8", "add contiguous"), ("int8 (image data) to float32", "copy"),
                        ("add complex64", "add contiguous"), ("multiply complex64", "add contiguous"),
                        ("exp complex64", "exp"), ("abs complex64 (float32 out)", "abs")):
            if kt.get(k, {}).get("ms") and kt[base]["ms"]:
                print(f"  {k:28s} {kt[k]['ms']:8.3f} ms  {kt[base]['ms'] / kt[k]['ms']:5.2f}x {base}"
                      f"  ({kt[k]['GB/s'] / copy:.2f} of copy bandwidth)")
        if result.get("numpy_sort_16M_ms"):
            for k in ("sort 16M float32", "argsort 16M float32"):
                print(f"  {k}: {result['numpy_sort_16M_ms'] / kt[k]['ms']:.1f}x NumPy's stable sort here "
                      f"({result['numpy_sort_16M_ms']:.1f} ms)")
        print("  each kernel's three rounds (ms):")
        for k, v in result.get("kernel_rounds_ms", {}).items():
            print(f"    {k:40s} " + " ".join(f"{ms:.4f}" if ms is not None else "-" for ms in v))
    else:
        print("kernel times: this adapter has no timestamp queries")
    print("batched matmul against the same products as separate 2-D calls (chained)")
    for shape, r in result["batched_matmul"].items():
        print(f"  {shape:34s} batched {r['batched TFLOP/s']:6.2f} TFLOP/s, 2-D {r['2-D TFLOP/s']:6.2f}, "
              f"batched/2-D {r['ratio']:.2f}; again: batched {r['batched again TFLOP/s']:6.2f}, 2-D "
              f"{r['2-D again TFLOP/s']:6.2f}, batched/2-D {r['ratio again']:.2f} "
              f"(max abs error {r['max abs error']:.2g})")
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
