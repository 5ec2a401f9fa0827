"""Which CommandBatch steps fuse (pycore/kernels/fusion.py's plan), and the kernels generated for them."""

from __future__ import annotations

import re

import numpy as np

from pycore.kernels.fusion import FusedKernel, Node, fused_kernels, plan
from pycore.kernels.plan import Facts
from pycore.tables.ops import OPS

N = 1000


def _steps(*specs):
    """(op name or None for an upload, input indices, params) -> plan's step tuples."""
    return [(None if name is None else OPS[name], list(inputs), params) for name, inputs, params in specs]


def _plan(steps, alive=(), max_inputs=7, max_elements=1 << 20, elements=None):
    return plan(steps, elements or [N] * len(steps), lambda i: i in alive, max_inputs, max_elements)


CHAIN = _steps((None, [], {}), (None, [], {}), ("relu", [0], {}), ("scale", [2], {"s": 2.0}),
               ("vec_add", [3, 1], {}))


def test_a_chain_of_dropped_handles_fuses_into_its_last_step():
    trees = _plan(CHAIN)
    assert list(trees) == [4] and sorted(trees[4].folded()) == [2, 3]
    kernel = FusedKernel(trees[4])
    assert kernel.name == "vec_add(scale(relu(x0),p),x1)"
    assert kernel.inputs == [0, 1] and kernel.numbers == [2.0]
    assert kernel.plan(N, Facts()).steps[0].kernel.bindings == ("read", "read", "write", "uniform")


def test_a_held_handle_is_computed_and_stored():
    trees = _plan(CHAIN, alive={3})  # scale kept: relu folds into it; vec_add reads it
    assert list(trees) == [3] and FusedKernel(trees[3]).name == "scale(relu(x0),p)"
    trees = _plan(CHAIN, alive={2})  # relu kept: scale folds into vec_add, reading relu's result
    assert list(trees) == [4] and FusedKernel(trees[4]).name == "vec_add(scale(x0,p),x1)"
    assert FusedKernel(trees[4]).inputs == [2, 1]


def test_a_value_used_twice_is_stored_once():
    steps = _steps((None, [], {}), ("relu", [0], {}), ("vec_mul", [1, 1], {}))
    assert _plan(steps) == {}
    steps = _steps((None, [], {}), ("relu", [0], {}), ("vec_mul", [1, 0], {}))
    assert FusedKernel(_plan(steps)[2]).name == "vec_mul(relu(x0),x0)"  # x0 bound once


def test_only_element_wise_steps_fuse_and_only_when_they_fit():
    steps = _steps((None, [], {}), ("relu", [0], {}), ("softmax", [1], {}))
    assert _plan(steps) == {}  # softmax reads relu's stored result
    steps = _steps((None, [], {}), ("relu", [0], {}), ("sum", [1], {}))
    assert _plan(steps) == {}
    assert _plan(CHAIN, max_elements=N - 1) == {}  # larger than one binding: run in chunks
    assert _plan(CHAIN, elements=[0] * 5) == {}  # empty: nothing to run


def test_the_input_count_stays_within_the_storage_binding_limit():
    # s = x0 + x1 + ... + x9: one kernel would read 10 arrays
    specs = [(None, [], {})] * 10 + [("vec_add", [0, 1], {})]
    specs += [("vec_add", [10 + k, k + 2], {}) for k in range(8)]
    trees = _plan(_steps(*specs), max_inputs=4)
    assert trees and all(len(FusedKernel(t).inputs) <= 4 for t in trees.values())
    folded = {i for t in trees.values() for i in t.folded()}
    assert not folded & set(trees) and 18 in trees  # the last step is a root; no step runs twice


def test_parameters_are_uniforms_and_variants_have_their_own_kernel():
    x = 0
    clip = Node(2, OPS["clip"], {"min": -1.0, "max": 0.5}, [x])
    erf = FusedKernel(Node(3, OPS["gelu"], {"approximate": False}, [clip]))
    tanh = FusedKernel(Node(3, OPS["gelu"], {"approximate": True}, [clip]))
    assert erf.name == "gelu_erf(clip(x0,p,p))" and tanh.name == "gelu(clip(x0,p,p))"
    assert erf.numbers == [-1.0, 0.5]
    step = erf.plan(N, Facts()).steps[0]
    source = step.kernel.source()
    param = r"bitcast<f32>\(word\(\d+u\)\)"  # (the parameters are uniform words)
    assert re.search(rf"let v0 = clip_f\(a0, {param}, {param}\);", source)
    assert "let v1 = gelu_erf_f(v0);" in source and "let y = v1;" in source
    assert source.count("@compute") == 1  # no one-op kernel came along
    assert [np.uint32(w).view(np.float32) for w in step.words[-2:]] == [-1.0, 0.5]  # (the last words)
    other = erf.with_numbers([-2.0, 0.25]).plan(N, Facts()).steps[0]
    assert other.kernel.name == step.kernel.name and other.words[-2:] != step.words[-2:]  # one pipeline
    assert tanh.plan(N, Facts()).steps[0].kernel.name != step.kernel.name


def test_a_batch_built_like_an_earlier_one_reuses_its_kernels_with_its_own_values():
    def chain(s, approximate=True):
        return _steps((None, [], {}), (None, [], {}), ("clip", [0], {"min": -s, "max": s}),
                      ("gelu", [2], {"approximate": approximate}), ("vec_add", [3, 1], {}))

    def kernels(steps, alive=(), elements=None):
        return fused_kernels(steps, elements or [N] * len(steps), lambda i: i in alive, 7, 1 << 20)

    first, inside = kernels(chain(1.0))
    again, inside_again = kernels(chain(2.5))
    assert list(first) == list(again) == [4] and inside == inside_again == {2, 3}
    assert first[4].numbers == [-1.0, 1.0] and again[4].numbers == [-2.5, 2.5]
    assert again[4].name == first[4].name and again[4].expr(N).calls[0].params == (-2.5, 2.5)
    assert kernels(chain(1.0))[0][4] is first[4]  # the same values: the very same kernel
    # What shapes the kernel is part of the match: an entry point, a held handle, a size.
    assert kernels(chain(1.0, approximate=False))[0][4].name == "vec_add(gelu_erf(clip(x0,p,p)),x1)"
    held, inside_held = kernels(chain(1.0), alive={3})
    assert held[3].name == "gelu(clip(x0,p,p))" and 4 not in held and inside_held == {2}
    assert kernels(chain(1.0), elements=[N, N, 0, 0, 0]) == ({}, frozenset())


# ---------------------------------------------------------------- reductions with a prologue

def _prologue(shape):
    """(x - m) ** 2 with m a broadcast row, as the queue's fusion hands a reduction."""
    from pycore.array.layout import Layout
    from pycore.kernels.elementwise import Call, Expr, Operand
    f32 = np.dtype(np.float32)
    x = Operand(f32, Layout.contiguous(shape))
    m = Operand(f32, Layout.contiguous(shape[-1:]))
    calls = (Call("subtract_f32", (0, 1), f32, f32), Call("multiply_f32", (-1, -1), f32, f32))
    return Expr((x, m), calls, shape)


def test_a_reduction_reads_each_prologue_input_through_its_own_strides():
    from pycore.kernels.reduction import Combine, plan_reduction
    f32 = np.dtype(np.float32)
    e = _prologue((300, 40))
    x = e.operands[0].layout
    plan = plan_reduction(Combine("sum", f32, 0.0), x, (0,), f32, Facts(), prologue=e)
    (step,) = plan.steps
    assert step.kernel.name.startswith("reduce:sum:multiply_f32(v0=subtract_f32(x0:f32[a],x1:f32[a]),v0)")
    assert step.kernel.bindings == ("read", "write", "uniform", "read")  # the row after the fixed ones
    assert [s.kind + str(s.index) for s in step.slots] == ["in0", "out0", "meta0", "in1"]
    words = step.words
    assert words[7:9] == (0, 0)  # each input's offset; then the kept axis (40) and its strides
    assert words[9] == 40 and words[10:12] == (1, 1)  # x walks columns, m its elements
    assert words[12] == 300 and words[13:15] == (40, 0)  # the reduced axis: x's rows, m broadcast
    source = step.kernel.source()
    assert "let xs = value(r0, min(r1, r_hi - 1u)" in source and "subtract_f32(a0, a1)" in source
    assert plan.reduce.prologue is e and plan.reduce.planned(e, Facts()).steps == plan.steps


def test_a_centered_or_split_reduction_keeps_its_other_bindings_after_the_prologues_inputs():
    from pycore.kernels.reduction import Combine, plan_reduction
    f32 = np.dtype(np.float32)
    e = _prologue((100_000, 4))
    dev = Combine("sum", f32, 0.0, finish="scale", centered=True)
    plan = plan_reduction(dev, e.operands[0].layout, (0,), f32, Facts(), prologue=e)
    first, *rest = plan.steps
    assert [s.kind + str(s.index) for s in first.slots] == ["in0", "tmp0", "meta0", "in2", "in1"]
    assert "center[oc]" in first.kernel.source() and rest  # split: the partials combined after
    assert all("prologue" not in s.kernel.name and "subtract" not in s.kernel.name for s in rest)


def test_a_producer_is_read_whole_or_through_a_contiguous_reshape_only():
    from pycore.array.layout import Layout
    from pycore.engine.executor import _read
    from pycore.kernels.elementwise import Call, Expr, Operand
    f32 = np.dtype(np.float32)
    e = _prologue((6, 4))
    assert _read(Operand(f32, Layout.contiguous((6, 4))), e) is e
    assert _read(Operand(f32, Layout.contiguous((4, 6))), e) is None  # (m's broadcast axis would merge)
    e = Expr(e.operands[:1], (Call("exp_f32", (0,), f32, f32),), (6, 4))
    assert _read(Operand(f32, Layout.contiguous((4, 6))), e).operands[0].layout == Layout.contiguous((4, 6))
    assert _read(Operand(f32, Layout.contiguous((6, 4)).transpose()), e) is None  # (read as stored)
    assert _read(Operand(np.dtype(np.int32), Layout.contiguous((6, 4))), e) is None
