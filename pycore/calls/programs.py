"""One program per kernel kind: how an op of that kind checks its arguments, shapes its output,
binds its buffers and dispatches its WGSL, and how its NumPy path is called.

    kind        bindings (group 0, in order)              dispatch
    unary       x, y, params                              one vec4 per thread, 2-D grid
    binary      a, b, y                                   one vec4 per thread, 2-D grid
    rowwise     x, y, dims                                a workgroup (GPU) or thread (CPU) per row
    reduce      x, partials, params (+ b for dot)         passes of 1024 -> 1 (GPU) or 16 -> 1 (CPU)
    matmul      a, b, c, dims                             32x32 (vec4) or 4x4 outputs per thread
    conv2d      image, kernel, out, dims                  one thread per output pixel

Inputs larger than one storage binding are processed in parts that fit (kernels/parts.py:
element-wise, rowwise, reduce, matmul rows); what cannot be split (a matmul's B, a convolution's
image) is refused with an error naming the limit and the size. `Program.unfit` says, before a
call, whether the device can take its shapes at all (bindings, workgroups per dimension, a
driver's loop cap): backend="auto" runs a call it cannot take on NumPy, backend="gpu" raises the
error it gives.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from pycore.array.layout import Layout, broadcast_shapes, conv_shape, matmul_shape, normalize_axis
from pycore.engine.executor import execute_async, planned
from pycore.engine.executor import facts as facts_of
from pycore.engine.session import GpuSession, GpuView
from pycore.kernels.conv2d import TILE, conv_kernel, plan_conv2d
from pycore.kernels.elementwise import Operand, plan_elementwise
from pycore.kernels.matmul import GPU_TILES, float_kernel, k_step, plan_matmul, tile_kernel
from pycore.kernels.parts import flat_step, parts, row_step, too_big
from pycore.kernels.plan import Facts, Kernel, Plan
from pycore.kernels.reduction import Combine, plan_reduction
from pycore.kernels.rowwise import ROW_OPS, plan_rowwise, row_limits
from pycore.tables.ops import Op, Shapes
from pycore.tables.ufuncs import REDUCTIONS

F32 = np.dtype(np.float32)


def _too_big(op: Op, what: str, nbytes: int, limit: int) -> ValueError:
    return too_big(op.name, what, nbytes, limit)


def _shape_text(shape: tuple[int, ...]) -> str:
    return f"{len(shape)}-D shape {shape}"


def _bound_whole(gpu: GpuSession, x: GpuView | np.ndarray) -> tuple[tuple[Any, int], Layout]:
    """A float32 C-ordered input bound from its buffer's start (a host array uploaded), with its
    layout (the offset where it starts, in elements): for the planners that read through layouts."""
    if isinstance(x, GpuView):
        gpu.depend_on(x.checks)
        return (x.buffer, max(4, x.offset + x.nbytes)), Layout.contiguous(x.shape, x.offset // 4)
    return gpu.upload(x)[:2], Layout.contiguous(x.shape)


def _compiled(k: Kernel) -> tuple:
    """What the background compile takes for a generated kernel (see Device.precompile_async)."""
    return k.pipeline_args()


def _same_shapes(op: Op, shapes: Shapes) -> None:
    if len(shapes) == 2 and shapes[0] != shapes[1]:
        raise ValueError(f"{op.name}: a has shape {shapes[0]} and b has shape {shapes[1]}; "
                         "they must be the same")


class Program:
    kind = ""
    bindings: tuple[str, ...] = ()
    revision = 0  # counts changes of its settings (a replayed call's plan is made for one revision)

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if name != "revision":
            object.__setattr__(self, "revision", self.revision + 1)

    def out_shape(self, shapes: Shapes, params: dict[str, Any] | None = None) -> tuple[int, ...]:
        return shapes[0]

    def check(self, op: Op, shapes: Sequence[tuple[int, ...]], params: dict[str, Any]) -> None:
        """Raise ValueError/TypeError naming the argument when inputs of these shapes do not fit the op."""

    def unfit(self, gpu: Any, op: Op, shapes: Sequence[tuple[int, ...]], params: dict[str, Any],
              resident: bool) -> ValueError | None:
        """The error a call of these (checked) shapes would raise because `gpu` (a Device or a
        GpuSession: its max_binding, max_groups, loop_cap, cpu_adapter) cannot take them, or None
        if it can. resident: an input lies on the GPU or the result stays there (such a call cannot
        be split on the host)."""
        return None

    def needs_gpu(self, shapes: Sequence[tuple[int, ...]]) -> bool:
        """False when there is nothing to compute (empty input): the NumPy path answers."""
        for shape in shapes:  # (a loop: this runs on every auto call)
            if not math.prod(shape):
                return False
        return True

    def numpy(self, op: Op, arrays: list[np.ndarray], params: dict[str, Any]) -> Any:
        return op.numpy(*arrays, **params)

    async def gpu_async(self, gpu: GpuSession, op: Op, arrays: list[GpuView | np.ndarray],
                        params: dict[str, Any]) -> Any:
        raise NotImplementedError

    def kernels(self, device: Any, op: Op) -> list[tuple]:
        """(family, entry, bindings[, source, name]) of the pipelines `op` uses on `device`'s adapter
        for typical shapes: what the background compile prepares (source and name: a generated kernel)."""
        return [(op.family, op.entry_for(op.typical_params()), self.bindings)]


class Elementwise(Program):
    """unary and binary: the element-wise planner (kernels/elementwise.py) on the op's `<entry>_f`
    function of shaders/elementwise.wgsl or binary.wgsl, its float parameters as f32 words; an
    output past one binding in chunks. (CommandBatch fuses chains of these functions: fusion.py.)"""

    def __init__(self, kind: str, bindings: tuple[str, ...]) -> None:
        self.kind, self.bindings = kind, bindings

    def check(self, op, shapes, params):
        _same_shapes(op, shapes)

    def plan(self, op: Op, layouts: list[Layout], params: dict[str, Any], facts: Facts) -> Plan:
        numbers = tuple(float(v) for v in params.values() if isinstance(v, float))
        entry = f"{op.entry_for(params)}_f"
        key = ("elementwise", entry, tuple(n.hex() for n in numbers), tuple(layouts), facts)
        return planned(key, lambda: plan_elementwise(op.name, entry, [Operand(F32, lo) for lo in layouts],
                                                     F32, F32, layouts[0].shape, facts, params=numbers))

    def kernels(self, device, op):
        layouts = [Layout.contiguous((1 << 20,))] * len(op.inputs)
        plan = self.plan(op, layouts, op.typical_params(), facts_of(device))
        return [_compiled(k) for k in plan.kernels()]

    async def gpu_async(self, gpu, op, arrays, params):
        f = facts_of(gpu.device)
        shape = arrays[0].shape
        step = flat_step(f)
        if math.prod(shape) <= step:  # (most calls: one part)
            bound = [_bound_whole(gpu, a) for a in arrays]
            plan = self.plan(op, [layout for _, layout in bound], params, f)
            outs = await execute_async(gpu, plan, [binding for binding, _ in bound])
            return await gpu.result_async(outs[0], shape)
        out = np.empty(shape, np.float32)  # (host inputs past one binding: in parts)
        flat_in, flat_out = [a.reshape(-1) for a in arrays], out.reshape(-1)
        for part in parts(out.size, step):
            bound = [_bound_whole(gpu, a[part]) for a in flat_in]
            plan = self.plan(op, [layout for _, layout in bound], params, f)
            outs = await execute_async(gpu, plan, [binding for binding, _ in bound])
            await gpu.read_part_async(outs[0], flat_out[part])
        return out


class Rowwise(Program):
    """softmax and log_softmax along an axis (kernels/rowwise.py): a workgroup per row on GPUs, a
    thread per row on CPU adapters (where barriers cost a context switch per thread), unless there
    are few long rows or the rows are very long. `tree` = True or False overrides the choice."""

    kind, bindings = "rowwise", ("read", "write", "uniform")
    tree: bool | None = None  # None: by the adapter and the shape (kernels.rowwise.uses_tree)

    def numpy(self, op, arrays, params):
        if arrays[0].size == 0:
            return arrays[0].copy()  # rows of nothing (NumPy's max would refuse the empty axis)
        return op.numpy(*arrays, **params)

    def check(self, op, shapes, params):
        if len(shapes[0]) < 1:
            raise ValueError(f"{op.name}: x must have at least 1 dimension (rows over the last axis), "
                             f"got {_shape_text(shapes[0])}")
        normalize_axis(params.get("axis", -1), len(shapes[0]))

    def plan(self, op: Op, layout: Layout, params: dict[str, Any], facts: Facts) -> Plan:
        axis = normalize_axis(params.get("axis", -1), len(layout.shape))
        return planned(("rows", op.name, layout, axis, self.tree, facts),
                       lambda: plan_rowwise(ROW_OPS[op.name], layout, axis, facts, self.tree))

    def kernels(self, device, op):
        layout = Layout.contiguous((1000, 1000))
        return [_compiled(k) for k in self.plan(op, layout, {}, facts_of(device)).kernels()]

    def unfit(self, gpu, op, shapes, params, resident):
        return row_limits(op.name, shapes[0][normalize_axis(params.get("axis", -1), len(shapes[0]))],
                          facts_of(gpu.device if isinstance(gpu, GpuSession) else gpu))

    async def gpu_async(self, gpu, op, arrays, params):
        x = arrays[0]
        f = facts_of(gpu.device)
        if isinstance(x, np.ndarray) and x.nbytes > f.max_binding:  # rows in parts that fit
            axis = normalize_axis(params.get("axis", -1), x.ndim)
            problem = row_limits(op.name, x.shape[axis], f)
            if problem is not None:
                raise problem
            moved = np.ascontiguousarray(np.moveaxis(x, axis, -1))
            rows = moved.reshape(-1, moved.shape[-1])
            step = row_step(rows.shape, f.max_binding)
            assert step is not None  # (row_limits: a row fits)
            out = np.concatenate([await self.gpu_async(gpu, op, [rows[part]], {})
                                  for part in parts(rows.shape[0], step)])
            return np.moveaxis(out.reshape(moved.shape), -1, axis)
        binding, layout = _bound_whole(gpu, x)
        plan = self.plan(op, layout, params, f)
        outs = await execute_async(gpu, plan, [binding])
        return await gpu.result_async(outs[0], x.shape)


class Reduce(Program):
    """A whole array reduced to one value (sum, max, min; dot: the products, then their sum) by the
    reduction planner (kernels/reduction.py), in one command buffer: an input past one binding in
    parts, each part's value copied into a buffer of partials that a last pass reduces. `tree` =
    True or False plans as for a GPU (workgroups that share a reduction) or as for a CPU adapter
    (a thread per partial, no barriers), whatever the adapter."""

    kind, bindings = "reduce", ("read", "write", "uniform")
    tree: bool | None = None  # None: by the adapter (see Device.cpu_adapter)

    def out_shape(self, shapes, params=None):
        return ()

    def check(self, op, shapes, params):
        _same_shapes(op, shapes)
        if op.combine in ("max", "min") and math.prod(shapes[0]) == 0:
            raise ValueError(f"{op.name}: x is empty, and the {op.name} of no elements is undefined")

    def numpy(self, op, arrays, params):
        if arrays[0].size == 0:
            return 0.0  # sum and dot of nothing
        return op.numpy(*arrays, **params)

    def _facts(self, facts: Facts) -> Facts:
        return facts if self.tree is None else replace(facts, cpu_adapter=not self.tree)

    def plans(self, op: Op, layouts: list[Layout], facts: Facts) -> list[Plan]:
        """The plans of a whole-array reduction of inputs of these layouts (one binding each): for
        dot, the products, then their sum (the first plan's output is the second's input)."""
        f = self._facts(facts)
        key = ("whole", op.combine, tuple(layouts), f)

        def made(i: int) -> Callable[[], Plan]:
            return lambda: self._plans(op, layouts, f)[i]

        return [planned((*key, i), made(i)) for i in range(len(layouts))]  # (dot: 2 plans, else 1)

    def _plans(self, op: Op, layouts: list[Layout], f: Facts) -> list[Plan]:
        r = REDUCTIONS[op.combine]
        c = Combine(r.function, F32, r.identity(F32), finish=r.finish)
        first: list[Plan] = []
        layout = layouts[0]
        if len(layouts) == 2:
            shape = layout.shape
            first = [plan_elementwise("multiply", "multiply_f32", [Operand(F32, lo) for lo in layouts],
                                      F32, F32, shape, f)]
            layout = Layout.contiguous(shape)
        return [*first, plan_reduction(c, layout, tuple(range(len(layout.shape))), F32, f, F32, op.name)]

    def kernels(self, device, op):
        layouts = [Layout.contiguous((1 << 20,))] * len(op.inputs)
        return [_compiled(k) for plan in self.plans(op, layouts, facts_of(device)) for k in plan.kernels()]

    async def gpu_async(self, gpu, op, arrays, params):
        f = facts_of(gpu.device)
        flat = [a.reshape(-1) for a in arrays]
        chunks = parts(flat[0].size, flat_step(f)) or [slice(0, 0)]
        n_parts = len(chunks)
        partials = gpu.output(4 * n_parts) if n_parts > 1 else None
        for i, part in enumerate(chunks):
            bound = [_bound_whole(gpu, x[part]) for x in flat]
            plans = self.plans(op, [layout for _, layout in bound], f)
            inputs = [binding for binding, _ in bound]
            for plan in plans:
                inputs = await execute_async(gpu, plan, inputs)
            if partials is None:
                return await gpu.finish_scalar_async(inputs[0])
            gpu.copy(inputs[0][0], partials[0], 4, dst_offset=4 * i)
            await gpu.run_async()  # (the parts' uploads are not held all at once)
        assert partials is not None
        combine = replace(op, name=op.name, inputs=("x",))
        last = self.plans(combine, [Layout.contiguous((n_parts,))], f)[-1]
        return await gpu.finish_scalar_async((await execute_async(gpu, last, [partials]))[0])


class Matmul(Program):
    """float32 a @ b on the tile kernels (kernels/matmul.py: plan_matmul; float_kernel says which
    runs for a shape). `tiled` = True or False forces the GPU or the CPU-adapter choice; `tile` =
    128, 64 or 32 forces that GPU kernel (where N and K allow it) on any adapter. A product whose K
    passes a driver's loop cap (llvmpipe) is summed over slices of K on the host."""

    kind, bindings = "matmul", ("read", "read", "write", "uniform")
    tiled: bool | None = None  # None: by the adapter (see Device.cpu_adapter)
    tile: int | None = None  # None: by the shape (see float_kernel)
    GPU_TILES = GPU_TILES  # (scripts/matmul_wgsl.py writes the kernels out from this table)

    def kernel_for(self, cpu_adapter: bool, m: int, n: int, k: int) -> tuple[str, tuple[int, int]]:
        """The kernel for an (m x k) @ (k x n) product with this program's settings, and the
        (rows, columns) of C a workgroup of it computes (kernels.matmul.float_kernel).

        >>> mm = Matmul(); mm.tile = 64; mm.kernel_for(False, 4096, 4096, 4096)
        ('matmul_t64', (64, 64))
        """
        return float_kernel(cpu_adapter, m, n, k, self.tiled, self.tile)

    def out_shape(self, shapes, params=None):
        return matmul_shape(shapes[0], shapes[1])

    def kernels(self, device, op):
        if self.tile is not None:
            entries = [self.kernel_for(device.cpu_adapter, 4, 4, 4)[0]]  # (checks the setting)
        elif not device.cpu_adapter if self.tiled is None else self.tiled:
            entries = [*GPU_TILES, "matmul_tiled"]
        else:
            entries = ["matmul_vec4"]
        return [tile_kernel(entry).pipeline_args() for entry in entries]

    def check(self, op, shapes, params):
        matmul_shape(*shapes)

    def unfit(self, gpu, op, shapes, params, resident):
        a, b = (tuple(s) for s in shapes)
        if len(a) != 2 or len(b) != 2:
            return self._batched_unfit(gpu, op, a, b)
        (m, k), n = a, b[1]
        if 4 * k * n > gpu.max_binding:
            return _too_big(op, f"b {b}", 4 * k * n, gpu.max_binding)
        entry, _ = self.kernel_for(gpu.cpu_adapter, m, n, k)
        step = k_step(gpu.loop_cap, entry not in ("matmul", "matmul_vec4"))
        ks = {k}
        if k > step:  # a capped driver would cut the k loop short: gpu_async sums slices of K
            if resident:
                return ValueError(f"matmul: k = {k:,} needs more loop iterations per GPU thread than this "
                                  f"adapter runs ({gpu.loop_cap:,}), and inputs already on the GPU cannot "
                                  "be split: pass NumPy arrays (split on the host) or use backend='numpy'")
            ks = {step, k % step or step}
        for part_k in sorted(ks):
            _, (_, tile_cols) = self.kernel_for(gpu.cpu_adapter, m, n, part_k)
            if -(-n // tile_cols) > gpu.max_groups:
                return ValueError(f"matmul: n = {n} columns needs more than the device's "
                                  f"{gpu.max_groups} workgroups per dimension")
            if 4 * max(part_k, n) > gpu.max_binding:
                return _too_big(op, "one row of a or c", 4 * max(part_k, n), gpu.max_binding)
        return None

    def _batched_unfit(self, gpu: Any, op: Op, a: tuple[int, ...], b: tuple[int, ...]) -> ValueError | None:
        a2 = (1, *a) if len(a) == 1 else a
        b2 = (*b, 1) if len(b) == 1 else b
        m, k, n = a2[-2], a2[-1], b2[-1]
        count = math.prod(broadcast_shapes(a2[:-2], b2[:-2]))
        entry, (tile_rows, tile_cols) = self.kernel_for(gpu.cpu_adapter, m, n, k)
        if k > k_step(gpu.loop_cap, entry not in ("matmul", "matmul_vec4")):
            return ValueError(f"matmul: k = {k:,} needs more loop iterations per GPU thread than this "
                              f"adapter runs ({gpu.loop_cap:,}) in a batched product; use backend='numpy'")
        for what, nbytes in (("c", 4 * m * n * count), ("a", 4 * math.prod(a)), ("b", 4 * math.prod(b))):
            if nbytes > gpu.max_binding:
                return _too_big(op, what, nbytes, gpu.max_binding)
        if -(-n // tile_cols) > gpu.max_groups or -(-m // tile_rows) > gpu.max_groups:
            return ValueError(f"matmul: a {m} x {n} product needs more than the device's {gpu.max_groups} "
                              f"workgroups per dimension")
        return None

    def needs_gpu(self, shapes):
        return math.prod(self.out_shape(shapes)) * shapes[0][-1] > 0

    def numpy(self, op, arrays, params):
        a, b = arrays
        if a.shape[-1] == 0:
            return np.zeros(self.out_shape((a.shape, b.shape)), np.float32)
        return np.matmul(a, b)

    def plan(self, a: Layout, b: Layout, facts: Facts) -> Plan:
        """The plan of a @ b (2-D or more, matrices C-ordered) with this program's settings."""
        return planned(("matmul", a, b, self.tiled, self.tile, facts),
                       lambda: plan_matmul(a, b, facts, self.tiled, self.tile))

    async def gpu_async(self, gpu, op, arrays, params):
        a, b = arrays
        resident = isinstance(a, GpuView) or isinstance(b, GpuView) or gpu.keep_result
        problem = self.unfit(gpu, op, [a.shape, b.shape], params, resident)
        if problem is not None:
            raise problem
        f = facts_of(gpu.device)
        final = self.out_shape((a.shape, b.shape))
        a = a.reshape(1, -1) if a.ndim == 1 else a
        b = b.reshape(-1, 1) if b.ndim == 1 else b
        (m, k), n = a.shape[-2:], b.shape[-1]
        if a.ndim == 2 and b.ndim == 2:
            entry, _ = self.kernel_for(f.cpu_adapter, m, n, k)
            step = k_step(f.loop_cap, entry not in ("matmul", "matmul_vec4"))
            if k > step:  # a capped driver would cut the k loop short: sum products of slices of K
                out = np.zeros((m, n), np.float32)
                for ks in parts(k, step):
                    out += await self.gpu_async(gpu, op, [np.ascontiguousarray(a[:, ks]), b[ks]], params)
                return out.reshape(final)
        bb, lb = _bound_whole(gpu, b)
        rows = m
        if isinstance(a, np.ndarray) and a.ndim == 2 and max(a.nbytes, 4 * m * n) > f.max_binding:
            rows = row_step((m, max(k, n)), f.max_binding) or 1  # (a host input and result, in parts)
        if rows == m:
            ba, la = _bound_whole(gpu, a)
            outs = await execute_async(gpu, self.plan(la, lb, f), [ba, bb])
            return (await gpu.result_async(outs[0], self.out_shape((a.shape, b.shape)))).reshape(final)
        out = np.empty((m, n), np.float32)
        for part in parts(m, rows):
            ba, la = _bound_whole(gpu, a[part])
            outs = await execute_async(gpu, self.plan(la, lb, f), [ba, bb])
            await gpu.read_part_async(outs[0], out[part])
        return out.reshape(final)


class Conv2d(Program):
    kind, bindings = "conv2d", ("read", "read", "write", "uniform")
    TILE = TILE  # output pixels per workgroup side

    def out_shape(self, shapes, params=None):
        return conv_shape(shapes[0], shapes[1], (params or {}).get("mode", "valid"))

    def check(self, op, shapes, params):
        image, kernel = shapes
        for name, shape in (("image", image), ("kernel", kernel)):
            if len(shape) != 2:
                raise ValueError(f"convolve2d: {name} must be 2-D, got {_shape_text(shape)}")
        if math.prod(kernel) == 0:
            raise ValueError(f"convolve2d: kernel is empty {kernel}")
        mode = params["mode"]
        if mode not in ("valid", "same"):
            raise ValueError(f'convolve2d: mode must be "valid" or "same", got {mode!r}')
        if mode == "valid" and (kernel[0] > image[0] or kernel[1] > image[1]):
            raise ValueError(f"convolve2d: kernel {kernel} is larger than image {image} "
                             f'in "valid" mode (use mode="same", or a smaller kernel)')

    def numpy(self, op, arrays, params):
        if arrays[0].size == 0:
            return np.zeros(self.out_shape((arrays[0].shape, arrays[1].shape), params), np.float32)
        return op.numpy(*arrays, **params)

    def unfit(self, gpu, op, shapes, params, resident):
        (h, w), (kh, kw) = shapes
        oh, ow = self.out_shape((shapes[0], shapes[1]), params)
        for what, nbytes in (("image", 4 * h * w), ("output", oh * ow * 4), ("kernel", 4 * kh * kw)):
            if nbytes > gpu.max_binding:
                return _too_big(op, what, nbytes, gpu.max_binding)
        if max(-(-ow // self.TILE), -(-oh // self.TILE)) > gpu.max_groups:
            return ValueError(f"convolve2d: an output of {oh} x {ow} needs more than the device's "
                              f"{gpu.max_groups} workgroups per dimension")
        cap = gpu.loop_cap
        if cap and kh * kw + kh + 8 > cap:
            return ValueError(f"convolve2d: a {kh} x {kw} kernel needs more loop iterations per GPU "
                              f"thread than this adapter runs ({cap:,}); use backend='numpy'")
        return None

    def kernels(self, device, op):
        return [conv_kernel().pipeline_args()]

    async def gpu_async(self, gpu, op, arrays, params):
        image, kernel = arrays
        problem = self.unfit(gpu, op, [image.shape, kernel.shape], params, True)
        if problem is not None:
            raise problem
        (bi, li), (bk, lk) = _bound_whole(gpu, image), _bound_whole(gpu, kernel)
        f = facts_of(gpu.device)
        plan = planned(("conv2d", li, lk, params["mode"], f), lambda: plan_conv2d(li, lk, params["mode"], f))
        outs = await execute_async(gpu, plan, [bi, bk])
        return await gpu.result_async(outs[0], plan.outputs[0].shape)


PROGRAMS: dict[str, Program] = {p.kind: p for p in [
    Elementwise("unary", ()),
    Elementwise("binary", ()),
    Rowwise(), Reduce(), Matmul(), Conv2d(),
]}
