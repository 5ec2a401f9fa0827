"""Fusing chains of element-wise steps of a CommandBatch into one kernel (an elementwise.Expr of
the steps' `<entry>_f` functions, generated like every element-wise kernel).

A queued step is folded into the step that consumes it when no one can tell the difference:

- both are element-wise (op kind "unary" or "binary", whose WGSL is a `<entry>_f` function);
- the caller holds no handle to the folded step any more (so it can never be read), and exactly one
  step consumes it;
- the array fits one storage binding (larger ones run step by step, in chunks);
- the fused kernel still has at most maxStorageBuffersPerShaderStage - 1 distinct inputs, and at
  most MAX_STEPS steps (a longer chain runs as several fused kernels, each compiled once).

So `b.vec_add(b.scale(b.relu(x), 2.0), y)` runs as one pass that reads x and y and writes the sum:
relu's and scale's results are never written to memory. Keep a handle (`r = b.relu(x)`) and that
value is computed and stored as usual, so it can be read after execute_async.

>>> from pycore.tables.ops import OPS
>>> tree = Node(2, OPS["vec_add"], {}, [Node(1, OPS["scale"], {"s": 2.0}, [0]), 0])
>>> kernel = FusedKernel(tree)
>>> kernel.name, kernel.inputs, kernel.numbers
('vec_add(scale(x0,p),x0)', [0], [2.0])
>>> kernel.expr(8).name
'vec_add_f(scale_f(f32[1],f32),f32[1])'
"""

from __future__ import annotations

import copy
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pycore.array.layout import Layout
from pycore.kernels.elementwise import Call, Expr, Operand, plan_expr
from pycore.kernels.plan import Facts, Plan
from pycore.tables.ops import Op

F32 = np.dtype(np.float32)

FUSABLE_KINDS = ("unary", "binary")
MAX_STEPS = 32  # steps in one fused kernel
KNOWN_BATCHES = 64  # batch structures whose fused kernels are kept (see fused_kernels)


@dataclass
class Node:
    """One element-wise step of a fused tree; an argument is a Node (a step folded into this one)
    or the step index of an input the kernel reads."""

    step: int
    op: Op
    params: dict[str, Any]
    args: list[Node | int]

    def leaves(self) -> list[int]:
        """The step indices this tree reads, each once, in first-use order."""
        found: list[int] = []
        for a in self.args:
            for leaf in (a.leaves() if isinstance(a, Node) else [a]):
                if leaf not in found:
                    found.append(leaf)
        return found

    def steps(self) -> int:
        """How many steps the tree computes (itself and every folded node)."""
        return 1 + sum(a.steps() for a in self.args if isinstance(a, Node))

    def folded(self) -> list[int]:
        """The step indices of the nodes folded into this one (its whole tree but itself)."""
        return [i for a in self.args if isinstance(a, Node) for i in [a.step, *a.folded()]]


def plan(steps: list[tuple[Op | None, list[Any], dict[str, Any]]], elements: list[int],
         alive: Callable[[int], bool], max_inputs: int, max_elements: int) -> dict[int, Node]:
    """The fused trees of a batch: {root step index: tree}, for trees of two steps or more. Steps
    inside a tree (other than its root) are not run on their own.

    steps: (op or None for an upload, input step indices, params), in queue order;
    elements: each step's element count; alive(i): whether the caller still holds step i's handle.
    """
    uses = Counter(i for op, inputs, _ in steps if op is not None for i in inputs)
    nodes: dict[int, Node] = {}
    folded: set[int] = set()
    for s, (op, inputs, params) in enumerate(steps):
        if op is None or op.kind not in FUSABLE_KINDS or not 0 < elements[s] <= max_elements:
            continue
        args: list[Node | int] = [nodes[i] if i in nodes and uses[i] == 1 and not alive(i)
                                  else i for i in inputs]
        node = Node(s, op, params, args)
        if len(node.leaves()) > max_inputs or node.steps() > MAX_STEPS:
            node = Node(s, op, params, list(inputs))
        folded.update(a.step for a in node.args if isinstance(a, Node))
        nodes[s] = node
    return {s: n for s, n in nodes.items() if s not in folded and n.folded()}


Step = tuple[Op | None, list[Any], dict[str, Any]]
_known: OrderedDict[tuple, tuple[dict[int, FusedKernel], frozenset[int]]] = OrderedDict()


def fused_kernels(steps: list[Step], elements: list[int], alive: Callable[[int], bool],
                  max_inputs: int, max_elements: int) -> tuple[dict[int, FusedKernel], frozenset[int]]:
    """plan()'s trees as kernels holding this batch's parameter values: ({root step: kernel}, the
    steps folded inside them). A batch built like an earlier one (the same steps, sizes and held
    handles; parameter values may differ) reuses that batch's kernels instead of planning again.

    >>> from pycore.tables.ops import OPS
    >>> steps = [(None, [], {}), (OPS["relu"], [0], {}), (OPS["scale"], [1], {"s": 3.0})]
    >>> kernels, inside = fused_kernels(steps, [8, 8, 8], lambda i: i == 2, 7, 1 << 20)
    >>> kernels[2].name, kernels[2].numbers, sorted(inside)
    ('scale(relu(x0),p)', [3.0], [1])
    """
    held = tuple(alive(i) for i in range(len(steps)))
    key = (tuple(_structure(step) for step in steps), tuple(elements), held, max_inputs, max_elements)
    known = _known.get(key)
    if known is None:
        trees = plan(steps, elements, held.__getitem__, max_inputs, max_elements)
        known = ({s: FusedKernel(tree) for s, tree in trees.items()},
                 frozenset(i for tree in trees.values() for i in tree.folded()))
        _known[key] = known
        if len(_known) > KNOWN_BATCHES:
            _known.popitem(last=False)
    else:
        _known.move_to_end(key)
    kernels, inside = known
    return {s: k.with_numbers([steps[i][2][name] for i, name in k.slots])
            for s, k in kernels.items()}, inside


def _structure(step: Step) -> tuple:
    """What of a step shapes its fused kernel: the op, its inputs, and its parameters other than
    the float values the kernel reads from its uniform block."""
    op, inputs, params = step
    if op is None:
        return (None,)
    if op.kind not in FUSABLE_KINDS:
        return (op.name, tuple(inputs))
    return (op.name, tuple(inputs), tuple((k, v) for k, v in params.items() if not isinstance(v, float)),
            tuple(k for k, v in params.items() if isinstance(v, float)))


class FusedKernel:
    """One fused tree as an element-wise expression (elementwise.Expr: the generator of every
    element-wise kernel): `name` is its structure (parameter values left out), `inputs` the step
    indices bound as its operands, in order, `numbers` the parameter values in the order its calls
    take them (uniform words: trees that differ only in them share a pipeline)."""

    def __init__(self, tree: Node) -> None:
        self.inputs = tree.leaves()
        self.numbers: list[float] = []
        self.slots: list[tuple[int, str]] = []  # (step, parameter name) of each number
        self._calls: list[tuple[str, tuple[int, ...], int]] = []  # (function, arguments, parameters)
        self.name, _ = self._emit(tree)

    def _emit(self, node: Node) -> tuple[str, int]:
        """(structure, argument: a call's -k - 1) of a node, appending its call after its arguments'."""
        parts, args = [], []
        for a in node.args:
            if isinstance(a, Node):
                part, arg = self._emit(a)
            else:
                arg = self.inputs.index(a)
                part = f"x{arg}"
            parts.append(part)
            args.append(arg)
        n_params = 0
        for key, v in node.params.items():
            if isinstance(v, float):  # booleans pick the entry point (gelu's approximate)
                self.numbers.append(v)
                self.slots.append((node.step, key))
                parts.append("p")
                n_params += 1
        entry = node.op.entry_for(node.params)
        self._calls.append((f"{entry}_f", tuple(args), n_params))
        return f"{entry}({','.join(parts)})", -len(self._calls)

    def with_numbers(self, numbers: list[float]) -> FusedKernel:
        """The same kernel with other parameter values (as many, in the same order)."""
        if numbers == self.numbers:
            return self
        twin = copy.copy(self)
        twin.numbers = list(numbers)
        return twin

    def expr(self, elements: int) -> Expr:
        """The tree over `elements` float32s of each input, with this kernel's numbers."""
        flat = Operand(F32, Layout.contiguous((elements,)))
        numbers = iter(self.numbers)
        calls = tuple(Call(fn, args, F32, F32, params=tuple(next(numbers) for _ in range(n)))
                      for fn, args, n in self._calls)
        return Expr((flat,) * len(self.inputs), calls, (elements,))

    def plan(self, elements: int, facts: Facts) -> Plan:
        """The plan of this kernel over `elements` float32s (elementwise.plan_expr): its inputs
        (self.inputs, in order) and its output whole, its numbers as uniform words."""
        return plan_expr(self.expr(elements), facts)
