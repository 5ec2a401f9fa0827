"""One program per kernel kind: how an op of that kind checks its arguments, shapes its output,
binds its buffers and dispatches its WGSL, and how its NumPy path is called.

    kind        bindings (group 0, in order)              dispatch
    unary       x, y, params                              one vec4 per thread, 2-D grid
    binary      a, b, y                                   one vec4 per thread, 2-D grid
    rowwise     x, y, dims                                a workgroup (GPU) or thread (CPU) per row
    reduce      x, partials, params (+ b for dot)         passes of 1024 -> 1 (GPU) or 16 -> 1 (CPU)
    matmul      a, b, c, dims                             32x32 (vec4) or 4x4 outputs per thread
    conv2d      image, kernel, out, dims                  one thread per output pixel

Inputs larger than one storage binding are processed in chunks that fit (element-wise, rowwise,
reduce, matmul rows); what cannot be split (a matmul's B, a convolution's image) is refused with
an error naming the limit and the size. `Program.unfit` says, before a call, whether the device can
take its shapes at all (bindings, workgroups per dimension, a driver's loop cap): backend="auto"
runs a call it cannot take on NumPy, backend="gpu" raises the error it gives.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, ClassVar

import numpy as np

from .array.layout import Layout, broadcast_shapes, normalize_axis
from .engine.executor import execute_async
from .engine.executor import facts as facts_of
from .gpu import GpuSession, GpuView
from .kernels.elementwise import Operand, plan_elementwise
from .kernels.plan import Facts, Kernel, Plan
from .kernels.reduction import Combine, plan_reduction
from .kernels.rowwise import ROW_OPS, plan_rowwise, row_limits
from .ops import Op, Shapes
from .shaders import wgsl_constant
from .ufuncs import REDUCTIONS

F32 = np.dtype(np.float32)


def _too_big(op: Op, what: str, nbytes: int, limit: int) -> ValueError:
    return ValueError(f"{op.name}: {what} needs {nbytes:,} bytes in one GPU binding, over this device's "
                      f"maxStorageBufferBindingSize of {limit:,} bytes")


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
    return ("generated", k.entry, k.bindings, k.source, k.name)


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
        return plan_elementwise(op.name, f"{op.entry_for(params)}_f", [Operand(F32, lo) for lo in layouts],
                                F32, F32, layouts[0].shape, facts, params=numbers)

    def kernels(self, device, op):
        layouts = [Layout.contiguous((1 << 20,))] * len(op.inputs)
        plan = self.plan(op, layouts, op.typical_params(), facts_of(device))
        return [_compiled(k) for k in plan.kernels()]

    async def gpu_async(self, gpu, op, arrays, params):
        f = facts_of(gpu.device)
        out = gpu.result_array(arrays[0].shape)
        step = f.max_binding // 4 // 1024 * 1024
        flat_in, flat_out = [a.reshape(-1) for a in arrays], out.reshape(-1)
        for lo in range(0, max(out.size, 1), step):  # (most calls: one part)
            bound = [_bound_whole(gpu, a[lo:lo + step] if out.size > step else a) for a in flat_in]
            plan = self.plan(op, [layout for _, layout in bound], params, f)
            outs = await execute_async(gpu, plan, [binding for binding, _ in bound])
            await gpu.finish_async(outs[0], flat_out[lo:lo + step] if out.size > step else out)
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
        return plan_rowwise(ROW_OPS[op.name], layout, axis, facts, self.tree)

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
            step = f.max_binding // (4 * rows.shape[1])
            out = np.concatenate([await self.gpu_async(gpu, op, [rows[lo:lo + step]], {})
                                  for lo in range(0, rows.shape[0], step)])
            return np.moveaxis(out.reshape(moved.shape), -1, axis)
        binding, layout = _bound_whole(gpu, x)
        plan = self.plan(op, layout, params, f)
        outs = await execute_async(gpu, plan, [binding])
        result = gpu.result_array(x.shape)
        await gpu.finish_async(outs[0], result)
        return result


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
        step = f.max_binding // 4 // 1024 * 1024
        n_parts = -(-flat[0].size // step)
        partials = gpu.output(4 * n_parts) if n_parts > 1 else None
        for i in range(n_parts):
            bound = [_bound_whole(gpu, x[i * step:(i + 1) * step]) for x in flat]
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
    """On a GPU, when N and K are multiples of 4: one of GPU_TILES (C in tiles of 128 x 128, 64 x 64
    or 32 x 32 staged through workgroup memory in slices of K, vec4 loads, a block of C per thread
    in registers; written out by scripts/matmul_wgsl.py from the table), the largest whose grid
    still has FILL workgroups, so that a small product keeps the GPU's cores busy; else
    `matmul_tiled` (64 x 64 tiles, scalar loads, any shape). On a CPU adapter (SwiftShader,
    lavapipe), where barriers cost more than the reloads they save: `matmul_vec4` when N and K are
    multiples of 4 (a 32 x 32 block of C per thread), else `matmul` (4 x 4 per thread, any shape).
    `tiled` = True or False overrides the adapter's choice; `tile` = 128, 64 or 32 forces that GPU
    kernel (where N and K allow it) on any adapter."""

    kind, bindings = "matmul", ("read", "read", "write", "uniform")
    tiled: bool | None = None  # None: by the adapter (see GpuSession.cpu_adapter)
    tile: int | None = None  # None: by the shape (see kernel_for)
    TILE = wgsl_constant("TILE", "matmul")  # rows and columns of C per workgroup of `matmul`
    TILED = wgsl_constant("TILED", "matmul")  # rows and columns of C per workgroup of `matmul_tiled`
    VEC4_ROWS, VEC4_COLS4, VEC4_GROUP = 32, 8, (4, 8)  # per thread, and threads per workgroup
    VEC4_TILE = (VEC4_ROWS * VEC4_GROUP[1], 4 * VEC4_COLS4 * VEC4_GROUP[0])  # C rows, columns per group
    # GPU kernels, largest first: entry -> (C rows, C columns per workgroup, K per slice, C rows and
    # columns per thread). Chosen on an H100 through Dawn against 17 other shapes (docs/benchmarks.md).
    GPU_TILES: ClassVar[dict[str, tuple[int, int, int, int, int]]] = {
        "matmul_t128": (128, 128, 8, 8, 16),
        "matmul_t64": (64, 64, 16, 4, 4),
        "matmul_t32": (32, 32, 16, 4, 4),
    }
    FILL = 256  # workgroups a tile's grid must have to be chosen over the next smaller one

    def kernel_for(self, cpu_adapter: bool, m: int, n: int, k: int) -> tuple[str, tuple[int, int]]:
        """The kernel for an (m x k) @ (k x n) product and the (rows, columns) of C a workgroup of it
        computes.

        >>> mm = Matmul()
        >>> [mm.kernel_for(False, s, s, s)[0] for s in (4096, 1024, 256)], mm.kernel_for(False, 9, 9, 9)
        (['matmul_t128', 'matmul_t64', 'matmul_t32'], ('matmul_tiled', (64, 64)))
        >>> mm.kernel_for(True, 64, 64, 64), mm.kernel_for(True, 3, 5, 7)
        (('matmul_vec4', (256, 128)), ('matmul', (32, 32)))
        >>> mm.tile = 16; mm.kernel_for(False, 64, 64, 64)
        Traceback (most recent call last):
        ValueError: matmul: tile must be None or one of 128, 64, 32, got 16
        """
        vec4 = n % 4 == 0 and k % 4 == 0
        if self.tile is not None and f"matmul_t{self.tile}" not in self.GPU_TILES:
            sizes = ", ".join(str(rows) for rows, *_ in self.GPU_TILES.values())
            raise ValueError(f"matmul: tile must be None or one of {sizes}, got {self.tile!r}")
        if self.tile is not None and vec4:
            return f"matmul_t{self.tile}", (self.tile, self.tile)
        if not (not cpu_adapter if self.tiled is None else self.tiled):
            return ("matmul_vec4", self.VEC4_TILE) if vec4 else ("matmul", (self.TILE, self.TILE))
        if not vec4:
            return "matmul_tiled", (self.TILED, self.TILED)
        for entry, (rows, cols, *_) in self.GPU_TILES.items():
            if -(-m // rows) * -(-n // cols) >= self.FILL:
                return entry, (rows, cols)
        return entry, (rows, cols)  # the smallest tile

    def out_shape(self, shapes, params=None):
        return matmul_shape(shapes[0], shapes[1])

    def kernels(self, device, op):
        if self.tile is not None:
            entries = [self.kernel_for(device.cpu_adapter, 4, 4, 4)[0]]  # (checks the setting)
        elif not device.cpu_adapter if self.tiled is None else self.tiled:
            entries = [*self.GPU_TILES, "matmul_tiled"]
        else:
            entries = ["matmul_vec4"]
        return [(op.family, entry, self.bindings) for entry in entries]

    @staticmethod
    def _k_step(cap: int | None, tiled: bool) -> int:
        """The longest K one dispatch may loop over within `cap` iterations per invocation: about K
        for `matmul_tiled` (16 per staged slice, plus the slice loop; the GPU_TILES kernels loop
        K / 8 or K / 16 times, fewer), K / 4 (+3) for the CPU-adapter kernels.

        >>> Matmul._k_step(65_535, False), Matmul._k_step(65_535, True), Matmul._k_step(None, True) > 1e9
        (262108, 61680, True)
        """
        if cap is None:
            return 1 << 62
        return (cap * 16 // 17) // 16 * 16 if tiled else 4 * (cap - 8)

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
        k_step = self._k_step(gpu.loop_cap, entry not in ("matmul", "matmul_vec4"))
        ks = {k}
        if k > k_step:  # a capped driver would cut the k loop short: gpu_async sums slices of K
            if resident:
                return ValueError(f"matmul: k = {k:,} needs more loop iterations per GPU thread than this "
                                  f"adapter runs ({gpu.loop_cap:,}), and inputs already on the GPU cannot "
                                  "be split: pass NumPy arrays (split on the host) or use backend='numpy'")
            ks = {k_step, k % k_step or k_step}
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
        if k > self._k_step(gpu.loop_cap, entry not in ("matmul", "matmul_vec4")):
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

    async def gpu_async(self, gpu, op, arrays, params):
        a, b = arrays
        resident = isinstance(a, GpuView) or isinstance(b, GpuView) or gpu.keep_result
        problem = self.unfit(gpu, op, [a.shape, b.shape], params, resident)
        if problem is not None:
            raise problem
        if a.ndim != 2 or b.ndim != 2:
            return await self._batched_async(gpu, op, a, b)
        m, k = a.shape
        n = b.shape[1]
        entry, (tile_rows, tile_cols) = self.kernel_for(gpu.cpu_adapter, m, n, k)
        k_step = self._k_step(gpu.loop_cap, entry not in ("matmul", "matmul_vec4"))
        if k > k_step:  # a capped driver would cut the k loop short: sum products of slices of K
            out = np.zeros((m, n), np.float32)
            for k0 in range(0, k, k_step):
                parts = [np.ascontiguousarray(a[:, k0:k0 + k_step]), b[k0:k0 + k_step]]
                out += await self.gpu_async(gpu, op, parts, params)
            return out
        pipeline = await gpu.pipeline_async(op.family, entry, self.bindings)
        rows = min(gpu.max_binding // (4 * k), gpu.max_binding // (4 * n), gpu.max_groups * tile_rows)
        out = gpu.result_array((m, n))
        b_buf = gpu.upload(b)
        for lo in range(0, m, rows):
            part = a[lo:lo + rows]
            dst = gpu.output(part.shape[0] * n * 4)
            gpu.dispatch(pipeline, [gpu.upload(part), b_buf, dst, gpu.uniform(part.shape[0], n, k)],
                         (-(-n // tile_cols), -(-part.shape[0] // tile_rows), 1))
            await gpu.finish_async(dst, out[lo:lo + rows])
        return out


    async def _batched_async(self, gpu: GpuSession, op: Op, a: Any, b: Any) -> Any:
        """(..., m, k) @ (..., k, n) with the batch axes broadcast, and 1-D operands as NumPy's
        matmul treats them: one dispatch of the 2-D kernel per matrix of the batch, each binding its
        matrices where they lie in their operand's one buffer (a host operand is uploaded whole;
        a matrix at an offset the device cannot bind is copied to a buffer of its own, in the same
        submit) and writing its part of one output buffer (likewise)."""
        final = self.out_shape((a.shape, b.shape))
        a = a.reshape(1, -1) if a.ndim == 1 else a
        b = b.reshape(-1, 1) if b.ndim == 1 else b
        batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
        m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
        count = math.prod(batch)  # (unfit checked the bindings, the grid and the loop cap)
        entry, (tile_rows, tile_cols) = self.kernel_for(gpu.cpu_adapter, m, n, k)
        pipeline = await gpu.pipeline_async(op.family, entry, self.bindings)
        align = int(gpu.limits.get("minStorageBufferOffsetAlignment", 256))
        mats_a, mats_b = self._matrices(gpu, a, m * k, align), self._matrices(gpu, b, k * n, align)
        ia, ib = _batch_indices(batch, a.shape[:-2]), _batch_indices(batch, b.shape[:-2])
        out = gpu.result_array((*batch, m, n))
        c = gpu.output(4 * m * n * count)
        uniform = gpu.uniform(m, n, k)
        groups = (-(-n // tile_cols), -(-m // tile_rows), 1)
        size = 4 * m * n
        for i in range(count):
            at = size * i
            dst: tuple = (c[0], size, at) if at % align == 0 else gpu.output(size)
            gpu.dispatch(pipeline, [mats_a(ia[i]), mats_b(ib[i]), dst, uniform], groups)
            if at % align:
                gpu.copy(dst[0], c[0], size, dst_offset=at)
        await gpu.finish_async(c, out)
        return out.reshape(final)

    @staticmethod
    def _matrices(gpu: GpuSession, x: Any, elements: int, align: int) -> Any:
        """j -> the binding of matrix j of x (a host array uploaded once, whole, or a GpuView):
        a part of x's buffer where its offset can be bound, else a copy in a buffer of its own."""
        whole = gpu.upload(x)
        buf, base = whole[0], whole[2] if len(whole) > 2 else 0
        size = 4 * elements
        made: dict[int, tuple] = {}

        def matrix(j: int) -> tuple:
            found = made.get(j)
            if found is None:
                at = base + size * j
                if at % align == 0:
                    found = (buf, max(size, 4), at)
                else:
                    found = gpu.output(size)
                    gpu.copy(buf, found[0], size, src_offset=at)
                made[j] = found
            return found

        return matrix


def _batch_indices(batch: tuple[int, ...], own: tuple[int, ...]) -> list[int]:
    """For each matrix of the broadcast batch (C order), the index of the operand's own matrix.

    >>> _batch_indices((2, 3), (3,)), _batch_indices((2, 3), (2, 1))
    ([0, 1, 2, 0, 1, 2], [0, 0, 0, 1, 1, 1])
    """
    count = math.prod(own)
    own = (1,) * (len(batch) - len(own)) + tuple(own)
    return np.broadcast_to(np.arange(count).reshape(own), batch).reshape(-1).tolist()


def matmul_shape(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """The shape of a @ b as numpy.matmul gives it (1-D operands as a row or a column, dropped
    from the result; batch axes broadcast), or ValueError naming the shapes.

    >>> matmul_shape((8, 512, 64), (64, 512)), matmul_shape((3,), (2, 3, 4)), matmul_shape((5, 3), (3,))
    ((8, 512, 512), (2, 4), (5,))
    """
    a, b = tuple(a), tuple(b)
    for name, shape in (("a", a), ("b", b)):
        if len(shape) == 0:
            raise ValueError(f"matmul: {name} must have at least 1 dimension, got a 0-d array")
    ka, kb = a[-1], (b[-2] if len(b) > 1 else b[0])
    if ka != kb:
        if len(a) == 2 and len(b) == 2:
            raise ValueError(f"matmul: a is {a} and b is {b}: a's columns ({a[1]}) "
                             f"must equal b's rows ({b[0]})")
        raise ValueError(f"matmul: a {a} and b {b} do not match: a's last axis ({ka}) must equal b's "
                         f"{'second-to-last' if len(b) > 1 else 'only'} axis ({kb})")
    try:
        batch = broadcast_shapes(a[:-2], b[:-2])
    except ValueError as exc:
        raise ValueError(f"matmul: the batch axes of a {a} and b {b} do not broadcast ({exc})") from None
    return (*batch, *(a[-2:-1]), *(b[-1:] if len(b) > 1 else ()))


class Conv2d(Program):
    kind, bindings = "conv2d", ("read", "read", "write", "uniform")
    TILE = wgsl_constant("TILE", "conv2d")  # output pixels per workgroup side

    def out_shape(self, shapes, params=None):
        (h, w), (kh, kw) = shapes
        return (h, w) if (params or {}).get("mode") == "same" else (h - kh + 1, w - kw + 1)

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

    async def gpu_async(self, gpu, op, arrays, params):
        image, kernel = arrays
        problem = self.unfit(gpu, op, [image.shape, kernel.shape], params, True)
        if problem is not None:
            raise problem
        (h, w), (kh, kw) = image.shape, kernel.shape
        oh, ow = self.out_shape((image.shape, kernel.shape), params)
        groups = (-(-ow // self.TILE), -(-oh // self.TILE), 1)
        pad = (kh // 2, kw // 2) if params["mode"] == "same" else (0, 0)
        pipeline = await gpu.pipeline_async(op.family, op.entry, self.bindings)
        out = gpu.result_array((oh, ow))
        dst = gpu.output(out.nbytes)
        gpu.dispatch(pipeline, [gpu.upload(image), gpu.upload(kernel), dst,
                                gpu.uniform(h, w, kh, kw, oh, ow, *pad, math.nan)], groups)
        await gpu.finish_async(dst, out)
        return out


PROGRAMS: dict[str, Program] = {p.kind: p for p in [
    Elementwise("unary", ()),
    Elementwise("binary", ()),
    Rowwise(), Reduce(), Matmul(), Conv2d(),
]}
