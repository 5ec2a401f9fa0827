"""The packed dtypes (int8, int16, uint8, uint16, float16) without a GPU: their promotion against
NumPy 2's table, casting and inspection against the standard's reference namespace, how many bytes
they take, and what the planners make of them (unpacked reads, whole-word writes, chunks whose
starts a binding can take). The kernels themselves run in tests/e2e/test_packed.py."""

from __future__ import annotations

import itertools

import array_api_strict as xp
import numpy as np
import pytest

import pycore
from pycore.array.dtypes import DTYPES, PACKED, result_type, wide
from pycore.array.layout import Layout
from pycore.kernels.elementwise import Operand, plan_elementwise
from pycore.kernels.plan import Facts, Step, storage_bytes, wgsl_type
from pycore.kernels.reduction import NAN_HALVES, Combine, plan_reduction
from pycore.tables.ufuncs import REDUCTIONS
from tests.unit.test_cpython_api import run

NARROW = {"int64": np.dtype("int32"), "uint64": np.dtype("uint32"), "float64": np.dtype("float32"),
          "complex128": np.dtype("complex64")}


def test_promotion_is_numpys_table_narrowed_to_32_bits():
    for a, b in itertools.product(DTYPES, repeat=2):
        want = np.promote_types(a, b)
        assert result_type(a, b) == NARROW.get(want.name, want), (a, b)
    assert result_type(np.dtype("int8"), np.dtype("uint8")) == np.int16
    assert result_type(np.dtype("uint8"), np.dtype("float16")) == np.float16
    assert result_type(np.dtype("int16"), np.dtype("float16")) == np.float32
    assert result_type(np.dtype("int8"), 300) == np.int8  # (the scalar's range is checked by the call)
    assert result_type(np.dtype("float16"), 2.5) == np.float16


def test_can_cast_and_isdtype_agree_with_the_standard():
    standard = [d for d in DTYPES if hasattr(xp, d.name)]
    for a, b in itertools.product(standard, repeat=2):
        assert pycore.can_cast(a, b) == xp.can_cast(getattr(xp, a.name), getattr(xp, b.name)), (a, b)
    assert pycore.can_cast(pycore.float16, pycore.float32) and not pycore.can_cast(pycore.float32,
                                                                                    pycore.float16)
    info = pycore.__array_namespace_info__()
    assert set(info.dtypes()) == {d.name for d in DTYPES} - {"float16"}  # (the standard's dtypes)
    assert set(info.dtypes(kind="signed integer")) == {"int8", "int16", "int32"}
    assert set(info.dtypes(kind="real floating")) == {"float32"}
    assert pycore.finfo(pycore.float16).max == 65504 and pycore.iinfo(pycore.uint8).max == 255


def test_packed_arrays_take_a_quarter_or_half_of_the_words():
    assert storage_bytes((4, 4), np.dtype("int8")) == 16 and storage_bytes((4, 4), np.dtype("float32")) == 64
    assert storage_bytes((3,), np.dtype("float16")) == 8 and storage_bytes((1,), np.dtype("uint8")) == 4
    for d in PACKED:
        with pytest.raises(TypeError, match="packed"):
            wgsl_type(d)  # (a planner that reads 32-bit words refuses them)
        assert wide(d).itemsize == 4 and wide(d).kind == d.kind


def test_elementwise_plans_unpack_inputs_and_write_whole_words():
    i8, f16, f32 = np.dtype("int8"), np.dtype("float16"), np.dtype("float32")
    operands = [Operand(f16, Layout.contiguous((7, 5))), Operand(i8, Layout.contiguous((5,)))]
    plan = plan_elementwise("add", "add_f32", operands, f32, f16, (7, 5), Facts())
    step = plan.steps[0]
    assert isinstance(step, Step)
    source = step.kernel.source()
    assert "unpack2x16float(in0[" in source and "extractBits(bitcast<i32>(in1[" in source
    assert "f32_to_f16(" in source and "let first = 2u * ((t / WORKGROUP)" in source
    assert step.slots[-2].size == storage_bytes((35,), f16) == 72  # (the output's words, the last one padded)
    assert plan.outputs[0].dtype == f16


def test_a_packed_output_thread_computes_four_words_and_loads_them_all_before_storing():
    f32, f16, u8 = np.dtype("float32"), np.dtype("float16"), np.dtype("uint8")
    n = 1 << 20
    grids = {}
    for dt, compute in ((f32, f32), (f16, f32), (u8, np.dtype("uint32"))):
        operands = [Operand(dt, Layout.contiguous((n,))), Operand(dt, Layout.contiguous((n,)))]
        plan = plan_elementwise("add", f"add_{wgsl_type(compute)}", operands, compute, dt, (n,), Facts())
        step = plan.steps[0]
        assert isinstance(step, Step)
        grids[dt.name] = step.grid
        body = step.kernel.source().split("fn strided(")[1]
        # (a store before a later load would keep that load waiting: the output could alias an input)
        assert body.rindex("in1[") < body.index("out["), dt
    assert grids == {"float32": (n // 1024, 1, 1), "float16": (n // 2048, 1, 1), "uint8": (n // 4096, 1, 1)}
    f16_body = plan_elementwise("add", "add_f32", [Operand(f16, Layout.contiguous((n,)))] * 2, f32, f16, (n,),
                                Facts()).steps[0].kernel.source()
    assert "f32x2_to_f16(vec2<f32>(y_1[2], y_1[3]))" in f16_body  # (a word's two elements at once)


def test_a_large_packed_output_is_written_in_chunks_that_start_where_a_binding_can():
    u8 = np.dtype("uint8")
    facts = Facts(max_binding=1000, offset_align=256)
    plan = plan_elementwise("copy", "copy_u32", [Operand(u8, Layout.contiguous((900,)))], np.dtype("uint32"),
                            u8, (900,), facts)
    firsts = [s.words[1] for s in plan.steps if isinstance(s, Step)]
    outs = [s.slots[-2] for s in plan.steps if isinstance(s, Step)]
    assert firsts == [0, 768] and [o.offset for o in outs] == [0, 768]
    assert all(o.offset % 256 == 0 and (o.size or 0) <= 1000 for o in outs)
    with pytest.raises(ValueError, match="needs 2,600 bytes in one GPU binding"):
        plan_elementwise("copy", "copy_u32", [Operand(u8, Layout.contiguous((2600,)))], np.dtype("uint32"),
                         u8, (2600,), facts)


def test_reductions_read_packed_sources_and_accumulate_in_32_bits():
    f16 = np.dtype("float16")
    c = Combine("sum", np.dtype("float32"), 0.0)
    plan = plan_reduction(c, Layout.contiguous((6, 9)), (0,), f16, Facts())  # (odd: an element a load)
    source = plan.steps[0].kernel.source()  # type: ignore[union-attr]
    assert "unpack2x16float(src[" in source and plan.outputs[0].dtype == np.float32
    rows = plan_reduction(c, Layout.contiguous((6, 10)), (1,), f16, Facts())  # (rows: two elements a load)
    source = rows.steps[0].kernel.source()  # type: ignore[union-attr]
    assert "unpack2x16float(w)" in source and "float16/words" in rows.steps[0].kernel.name  # type: ignore[union-attr]
    # a sum of words keeps eight loads in flight per thread (each step waits on the last), a product four
    assert "let x7 = value(" in source and rows.steps[0].kernel.name.startswith("reduce:sum:float16/words/8[")  # type: ignore[union-attr]
    prod = plan_reduction(Combine("prod", np.dtype("float32"), 1.0), Layout.contiguous((6, 10)), (1,), f16,
                          Facts())
    assert "/words[" in prod.steps[0].kernel.name and "let x4 = " not in prod.steps[0].kernel.source()  # type: ignore[union-attr]
    odd = plan_reduction(c, Layout.contiguous((6, 9)), (1,), f16, Facts())  # (an odd row: elements)
    assert "words" not in odd.steps[0].kernel.name  # type: ignore[union-attr]
    # columns of even rows: a thread reduces two neighbouring columns from each word, and writes both
    columns = plan_reduction(c, Layout.contiguous((4096, 6)), (0,), f16, Facts())
    first = columns.steps[0]
    assert isinstance(first, Step) and "float16/columns" in first.kernel.name
    assert first.words[0] == 3 and columns.outputs[0].shape == (6,)  # (3 pairs of outputs)
    assert "unpack2x16float(w)" in first.kernel.source() and "out[segment * 2u * n_out + 2u * o + 1u]" in (
        first.kernel.source())
    if len(columns.steps) > 1:  # (split: the partials of the 6 columns, combined)
        assert columns.scratch[0] == 4 * 6 * (columns.steps[1].words[1])  # type: ignore[union-attr]
    for layout, axes in [(Layout.contiguous((6, 9)), (0,)), (Layout((6, 8), (8, 1), 1), (0,)),
                         (Layout.contiguous((6, 8)), (1,))]:  # odd, an odd offset, rows
        assert "columns" not in plan_reduction(c, layout, axes, f16, Facts()).steps[0].kernel.name  # type: ignore[union-attr]
    arg = plan_reduction(Combine("argmax", np.dtype("float32"), -np.inf, arg=True), Layout.contiguous((6, 8)),
                         (0,), f16, Facts())
    assert "columns" not in arg.steps[0].kernel.name  # type: ignore[union-attr]
    assert REDUCTIONS["sum"].result_dtype(np.dtype("int8")) == np.int32
    assert REDUCTIONS["sum"].result_dtype(np.dtype("uint16")) == np.uint32
    assert REDUCTIONS["mean"].result_dtype(f16) == f16
    assert REDUCTIONS["max"].result_dtype(np.dtype("int8")) == np.int8


def test_packed_results_on_numpy_are_computed_in_32_bits_and_rounded_once():
    x = np.array([1.0, 2049.0, 65504.0, -0.0, np.nan], np.float16)
    got = run(pycore.add_async(x, np.float16(1.0)))
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, (x.astype(np.float32) + 1).astype(np.float16))
    y = np.array([100, -128, 127], np.int8)
    assert run(pycore.multiply_async(y, 2)).tolist() == [-56, 0, -2]  # (wrapping, as NumPy's int8)
    assert run(pycore.sum_async(y)) == 99 and run(pycore.cumulative_sum_async(y)).dtype == np.int32
    with pytest.raises(OverflowError, match="out of uint8's range"):
        run(pycore.add_async(np.array([1], np.uint8), 300))


def test_float16_max_and_min_keep_nan_in_a_flag():
    # the flag's expression (WGSL, evaluated here on every float16 in either half of a word, the
    # other half every kind of value): a half's top bit is set exactly when that half is NaN
    halves = np.arange(1 << 16, dtype=np.uint32)
    nan = np.isnan(halves.astype(np.uint16).view(np.float16))
    for other in (0x0000, 0x7C00, 0x7C01, 0x7FFF, 0xFC00, 0xFFFF, 0x3C00):
        for shift, bit in ((0, 0x8000), (16, 0x80000000)):
            w = (halves << shift) | (np.uint32(other) << (16 - shift))
            flags = eval(NAN_HALVES.replace("u", ""), {"w": w})
            assert np.array_equal((flags & bit) != 0, nan)
            assert np.array_equal((flags & (0x80008000 ^ bit)) != 0, np.full(w.shape, np.isnan(
                np.array([other], np.uint16).view(np.float16)[0])))
    f16, f32 = np.dtype("float16"), np.dtype("float32")
    top = Combine("max", f32, -np.inf)
    gpu, cpu = Facts(), Facts(cpu_adapter=True)
    rows = plan_reduction(top, Layout.contiguous((6, 10)), (1,), f16, gpu).steps[0]
    assert isinstance(rows, Step) and rows.kernel.name.startswith("reduce:max:float16/words/8/nan-flag[")
    source = rows.kernel.source()
    assert "var seen = 0u;" in source and "v = max(v, x0);" in source and "max_f32(v, x0)" not in source
    for facts, flagged in ((gpu, True), (cpu, False)):  # (columns: not on a CPU adapter)
        step = plan_reduction(top, Layout.contiguous((4096, 6)), (0,), f16, facts).steps[0]
        assert isinstance(step, Step) and "float16/columns" in step.kernel.name
        assert ("nan-flag" in step.kernel.name) == flagged
    for c, dt in ((Combine("sum", f32, 0.0), f16),
                  (Combine("max", np.dtype("int32"), -(1 << 31)), np.dtype("int16"))):
        step = plan_reduction(c, Layout.contiguous((6, 10)), (1,), dt, gpu).steps[0]
        assert isinstance(step, Step) and "nan-flag" not in step.kernel.name
    # float32: the largest magnitude's bits in the flag, on GPU adapters (rows and columns alike)
    for axis in (0, 1):
        for facts, flagged in ((gpu, True), (cpu, False)):
            step = plan_reduction(top, Layout.contiguous((64, 4096)), (axis,), f32, facts).steps[0]
            assert isinstance(step, Step) and ("/nan-flag" in step.kernel.name) == flagged
    source = plan_reduction(top, Layout.contiguous((64, 4096)), (1,), f32, gpu).steps[0].kernel.source()
    assert "*seen = max(*seen, bitcast<u32>(x) & 0x7fffffffu);" in source
    assert "if (seen > 0x7f800000u) { v = bitcast<f32>(seen); }" in source and "v = max(v, x7);" in source
