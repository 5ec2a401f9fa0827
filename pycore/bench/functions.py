"""What the benchmark times: a function of pycore's namespace, named as the user calls it, with
sample inputs of a size n.

A name is a public function's (`"add"` for `pycore.add_async`, `"sort"`, `"matmul"`, the old op
names that are still public, such as `"vec_add"` and `"relu"`), optionally with keyword arguments
in call syntax: `"sum(axis=0)"`, `"softmax(axis=0)"`, `"sort(descending=True)"`. Its sample
inputs at size n:

  element-wise     n elements: one vector per operand (float32; int32 for bitwise_*, bool for
                   logical_*; a shift's second operand in [0, 16))
  reductions, dot  a vector of n elements; with an axis, a matrix of rows of 1000 elements
                   (n / 1000 of them: KINDS["rowwise"]), reduced along that axis
  softmax, log_softmax  that matrix, along its axis (the last unless given)
  cumulative_sum/prod, sort, argsort  a vector of n elements; with an axis, the matrix
  matmul           two n x n matrices (n is the side); convolve2d: an n x n image, a 3 x 3 kernel

Functions that take `backend=` run on "gpu", "numpy" and "auto" as asked; the others (sort,
argsort, cumulative_sum, ...) compute where their input lives: "gpu" is the call on GpuArrays
(uploaded, computed, read back), "numpy" the call on NumPy arrays, and there is no "auto".

>>> b = parse("sum(axis=0)")
>>> b.function, b.kwargs, b.shapes(100_000), b.matrix
('sum', {'axis': 0}, [(100, 1000)], False)
>>> parse("vec_add").standard, parse("matmul").shapes(64)
('add', [(64, 64), (64, 64)])
"""

from __future__ import annotations

import ast
import functools
import inspect
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pycore.calls.nd import ALIASES, nd_cost
from pycore.kernels.rowwise import ROW_OPS
from pycore.tables.kinds import KINDS
from pycore.tables.ops import OPS
from pycore.tables.ufuncs import REDUCTIONS, UFUNCS

# The functions beyond the element-wise ones and the reductions that the benchmark knows how to feed.
FAMILIES = {"softmax": "rows", "log_softmax": "rows", "cumulative_sum": "scan", "cumulative_prod": "scan",
            "sort": "sort", "argsort": "sort", "matmul": "matrix", "convolve2d": "matrix", "dot": "reduction"}

# The names a full run times (run_async's default): the page's standard scope, and dot (the
# reference library's published figures include it: report.REFERENCE_MS).
DEFAULT = ("add", "multiply", "exp", "relu", "sigmoid", "gelu", "sum", "sum(axis=0)", "argmax", "softmax",
           "cumulative_sum", "sort", "dot", "matmul", "convolve2d")


def _family(function: str) -> str | None:
    if function in FAMILIES:
        return FAMILIES[function]
    if function in REDUCTIONS:
        return "reduction"
    if function in UFUNCS or function in ALIASES or (
            function in OPS and OPS[function].kind in ("unary", "binary")):
        return "elementwise"
    return None


def public(function: str) -> Callable[..., Awaitable[Any]] | None:
    """pycore.<function>_async, or None: the tables pycore/__init__.py exports, in its order (a
    later table's function takes over a name, as selection's clip does the op table's)."""
    from pycore.calls.api import PUBLIC
    from pycore.calls.linalg import LAPUBLIC
    from pycore.calls.namespace import NSPUBLIC
    from pycore.calls.nd import NDPUBLIC
    from pycore.calls.selection import SELPUBLIC
    from pycore.calls.sorting import SORTPUBLIC

    found = None
    for table in (PUBLIC, NDPUBLIC, NSPUBLIC, SELPUBLIC, SORTPUBLIC, LAPUBLIC):
        found = table.get(f"{function}_async", found)
    return found


def names() -> list[str]:
    """Every function name the benchmark takes (each public as pycore.<name>_async).

    >>> {"add", "exp", "sum", "argmax", "sort", "cumulative_sum", "matmul", "relu"} <= set(names())
    True
    """
    found = [*UFUNCS, *REDUCTIONS, *FAMILIES, *(n for n, op in OPS.items() if op.kind in ("unary", "binary"))]
    return [n for n in dict.fromkeys(found) if public(n) is not None]


@dataclass(frozen=True, eq=False)
class Bench:
    """One benchmarked function with its keyword arguments (see the module doc)."""

    name: str  # as asked: "sum(axis=0)", "vec_add"
    function: str  # pycore.<function>_async
    kwargs: dict[str, Any]  # the call's keyword arguments (the name's, and an old op's sample values)
    family: str  # "elementwise", "reduction", "rows", "scan", "sort" or "matrix"
    fn: Callable[..., Awaitable[Any]]  # the public function

    @property
    def standard(self) -> str:
        """The namespace's name of the function (vec_add: add)."""
        return ALIASES.get(self.function, self.function)

    @property
    def matrix(self) -> bool:
        """Whether a size n is the side of n x n matrices (else a count of elements)."""
        return self.family == "matrix"

    @property
    def takes_backend(self) -> bool:
        """Whether the function takes backend= (else it computes where its input lives)."""
        return "backend" in inspect.signature(self.fn).parameters

    def shapes(self, n: int) -> list[tuple[int, ...]]:
        """The sample inputs' shapes at size n."""
        rows = KINDS["rowwise"].shapes(n)[0]
        if self.family == "matrix":
            return [(n, n), (n, n) if self.function == "matmul" else (3, 3)]
        if self.family == "elementwise":
            nin = UFUNCS[self.standard].nin if self.standard in UFUNCS else len(OPS[self.function].inputs)
            return [(n,)] * nin
        if self.function == "dot":
            return [(n,), (n,)]
        along = self.family == "rows" or self.kwargs.get("axis") is not None
        return [rows if along else (n,)]

    def inputs(self, n: int, rng: np.random.Generator) -> list[np.ndarray]:
        """Sample inputs at size n: float32 normal values; int32 for bitwise functions (a shift's
        second operand in [0, 16)), bool for logical ones."""
        out: list[np.ndarray] = []
        for i, shape in enumerate(self.shapes(n)):
            if self.function.startswith("bitwise_"):
                low, high = (0, 16) if i == 1 and "shift" in self.function else (-1000, 1000)
                out.append(rng.integers(low, high, shape, dtype=np.int32))
            elif self.function.startswith("logical_"):
                out.append(rng.random(shape) < 0.5)
            else:
                out.append(rng.standard_normal(shape, dtype=np.float32))
        return out

    def cost(self, shapes: list[tuple[int, ...]]) -> Any:
        """What a backend="auto" call on host arrays of these shapes asks the selector (an Op, or
        an n-d call's cost), or None where auto asks it nothing (the input's place decides)."""
        from pycore.calls.api import PUBLIC

        if not self.takes_backend:
            return None
        if self.standard in UFUNCS or self.function in REDUCTIONS or self.function in ROW_OPS:
            return nd_cost(self.function, shapes, self.kwargs.get("axis"))
        mine = PUBLIC.get(f"{self.function}_async") is self.fn or self.function == "matmul"
        if self.function in OPS and mine:  # (an op of the op table: relu, dot, ...; matmul of floats)
            return OPS[self.function]
        return None

    def call(self, inputs: list[np.ndarray], backend: str) -> Callable[[], Awaitable[Any]]:
        """One call on `backend` ("gpu", "numpy" or "auto"), NumPy arrays in and out: a function
        that takes no backend= runs on GpuArrays for "gpu" (uploaded, and its result read back)."""
        if self.takes_backend:
            return functools.partial(self.fn, *inputs, **self.kwargs, backend=backend)
        if backend != "gpu":
            return functools.partial(self.fn, *inputs, **self.kwargs)

        async def on_gpu() -> Any:
            from pycore.calls.gpuarray import GpuArray, to_gpu_async

            held = [await to_gpu_async(x) for x in inputs]
            out = await self.fn(*held, **self.kwargs)
            host = await out.to_numpy_async() if isinstance(out, GpuArray) else out
            for x in (*held, out):
                if isinstance(x, GpuArray):
                    x.release()
            return host

        return on_gpu


_NAME = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?:\((.*)\))?\s*$", re.DOTALL)


@functools.cache
def _parsed(name: str) -> Bench:
    found = _NAME.match(name)
    if not found:
        raise ValueError(f"bench: {name!r} is not a function name with optional keyword arguments, "
                         "such as 'sum' or 'sum(axis=0)'")
    function, args = found.groups()
    family, fn = _family(function), public(function)
    if family is None or fn is None:
        raise ValueError(f"bench: unknown function {function!r}; the benchmark times "
                         f"{', '.join(names())} (each optionally with keyword arguments, as 'sum(axis=0)')")
    kwargs: dict[str, Any] = {}
    if args and args.strip():
        try:
            call = ast.parse(f"f({args})", mode="eval").body
            assert isinstance(call, ast.Call) and not call.args and all(k.arg for k in call.keywords)
            kwargs = {str(k.arg): ast.literal_eval(k.value) for k in call.keywords}
        except (SyntaxError, ValueError, AssertionError):
            raise ValueError(f"bench: {name!r}: the arguments must be keywords with literal values, "
                             "as in 'sum(axis=0)'") from None
    accepted = inspect.signature(fn).parameters
    named = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    bad = [k for k in kwargs if k not in accepted or k == "backend" or accepted[k].kind not in named]
    if bad:
        raise ValueError(f"bench: {name!r}: pycore.{function}_async takes no keyword argument "
                         f"{', '.join(map(repr, bad))}")
    if function in OPS:  # an old op's sample parameters (scale's s, clip's bounds), where the call takes them
        typical = {k: v for k, v in OPS[function].typical_params().items() if k in accepted}
        kwargs = {**typical, **kwargs}
    return Bench(name, function, kwargs, family, fn)


def parse(name: str) -> Bench:
    """The benchmark of `name` (see the module doc); ValueError naming it if the benchmark cannot
    time it: not a public function it knows, or keyword arguments the function does not take."""
    if not isinstance(name, str):
        raise ValueError(f"bench: a function name must be a str, got {type(name).__name__} {name!r}")
    return _parsed(name)


def is_matrix(name: str) -> bool:
    """Whether a row named `name` measured n x n matrices (False for a name the benchmark does not
    know: a result written by another version)."""
    try:
        return parse(name).matrix
    except ValueError:
        return False
