"""The public `*_async` functions, one per entry of the op table, generated from it.

Each has a real signature (for help() and tab completion), a docstring with the op's summary,
arguments and a runnable example whose output doctest checks, and argument checking: array inputs
become float32, numeric parameters must be real numbers, booleans and strings are checked by the
op's program.
"""

from __future__ import annotations

import inspect
import numbers
import sys
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from pycore.calls.dispatch import is_argument_error, mark_argument_error, run_async
from pycore.tables.ops import OPS, REQUIRED, Op


def _check_param(op: Op, name: str, value: Any, default: Any) -> Any:
    if isinstance(default, bool):
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{op.name}: {name} must be True or False, got {value!r}")
        return bool(value)
    if isinstance(default, str):
        if not isinstance(value, str):
            raise TypeError(f"{op.name}: {name} must be a string, got {type(value).__name__}")
        return value
    if isinstance(default, int):  # an axis
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
            raise TypeError(f"{op.name}: {name} must be an int, got {type(value).__name__} {value!r}")
        return int(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{op.name}: {name} must be a real number, got {type(value).__name__} {value!r}")
    try:
        value = float(value)
    except OverflowError:
        raise ValueError(f"{op.name}: {name} is too large for a float (over 1.8e308)") from None
    if np.isnan(value):
        raise ValueError(f"{op.name}: {name} is NaN")
    return value


def docstring(op: Op) -> str:
    lines = [op.summary, ""]
    for name in op.inputs:
        lines.append(f"{name}: array-like, converted to float32.")
    for p in op.params:
        default = "required" if p.default is REQUIRED else f"default {p.default!r}"
        lines.append(f"{p.name}: {p.doc} ({default}).")
    kind = ("a Python float" if op.kind == "reduce"
            else "a float32 NumPy array (a GpuArray if every input is one)")
    lines += ["backend: \"auto\" (the cost model picks), \"gpu\" or \"numpy\".", "",
              f"Returns {kind}. Array inputs may be GpuArrays (see to_gpu_async).", "",
              ">>> import asyncio, pycore", f">>> asyncio.run({op.example})", op.shows]
    return "\n".join(lines)


def signature_of(op: Op, with_backend: bool = True) -> inspect.Signature:
    """The op's call signature: its arrays, its parameters, then (keyword-only) backend."""
    arrays = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation="ArrayLike")
              for n in op.inputs]
    params = [inspect.Parameter(p.name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                default=inspect.Parameter.empty if p.default is REQUIRED else p.default)
              for p in op.params]
    backend = [inspect.Parameter("backend", inspect.Parameter.KEYWORD_ONLY, default="auto")]
    return inspect.Signature(arrays + params + (backend if with_backend else []),
                             return_annotation="float" if op.kind == "reduce" else "np.ndarray")


def bind(op: Op, signature: inspect.Signature, caller: str, args: tuple, kwargs: dict) -> tuple[
        list[Any], dict[str, Any], dict[str, Any]]:
    """Check a call's arguments: (array inputs, checked parameters, remaining arguments)."""
    __tracebackhide__ = True  # (what it raises is the caller's mistake: see make_public)
    values = _fast_bind(signature, args, kwargs)
    if values is None:  # something to complain about: let inspect name it
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{caller}(): {exc}") from None
        bound.apply_defaults()
        values = bound.arguments
    checked = {p.name: _check_param(op, p.name, values[p.name], p.default) for p in op.params}
    rest = {k: v for k, v in values.items() if k not in checked and k not in op.inputs}
    return [values[n] for n in op.inputs], checked, rest


_LAYOUT: dict[int, tuple[inspect.Signature, tuple[str, ...], dict[str, Any], frozenset[str]]] = {}


def _fast_bind(signature: inspect.Signature, args: tuple, kwargs: dict) -> dict[str, Any] | None:
    """What signature.bind + apply_defaults give for a well-formed call (inspect's binding costs
    more than a small op), or None when the call is not well-formed."""
    known = _LAYOUT.get(id(signature))  # (by id: hashing a Signature costs more than a small op)
    if known is None or known[0] is not signature:
        params = signature.parameters.values()
        positional = tuple(p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD)
        defaults = {p.name: p.default for p in params if p.default is not p.empty}
        known = _LAYOUT[id(signature)] = (signature, positional, defaults, frozenset(signature.parameters))
    _, positional, defaults, names = known
    if len(args) > len(positional):
        return None
    values = dict(zip(positional, args, strict=False))
    for name, value in kwargs.items():
        if name not in names or name in values:
            return None
        values[name] = value
    for name, default in defaults.items():
        values.setdefault(name, default)
    return values if len(values) == len(names) else None


def extension_module(name: str, doc: str | None, functions: dict[str, Callable[..., Any]],
                     extras: dict[str, Any]) -> types.ModuleType:
    """An extension namespace (`pycore.<name>`: linalg, fft, nn) as a module registered in
    sys.modules: its functions, then `extras` (result types, ROUTES); __all__ lists the functions
    and the extras but ROUTES."""
    module = types.ModuleType(f"pycore.{name}", doc)
    module.__dict__.update(functions)
    module.__dict__.update(extras)
    module.__all__ = [*functions, *(k for k in extras if k != "ROUTES")]  # type: ignore[attr-defined]
    sys.modules[f"pycore.{name}"] = module
    return module


def make_public(op: Op) -> Callable[..., Any]:
    signature = signature_of(op)

    async def public(*args: Any, **kwargs: Any) -> Any:
        inputs = None
        try:
            inputs, params, rest = bind(op, signature, op.public_name, args, kwargs)
            return await run_async(op, inputs, params, rest["backend"])
        except (ValueError, TypeError) as exc:
            if inputs is None:  # bind refused the call
                mark_argument_error(exc)
            if is_argument_error(exc):  # the caller's mistake: IPython and pytest show the caller's
                __tracebackhide__ = True  # line and the check that failed, not pycore's frames between
            raise

    public.__name__ = public.__qualname__ = op.public_name
    public.__module__ = "pycore"
    public.__doc__ = docstring(op)
    public.__signature__ = signature  # type: ignore[attr-defined]
    return public


PUBLIC: dict[str, Callable[..., Any]] = {op.public_name: make_public(op) for op in OPS.values()}
