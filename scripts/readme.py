"""Generated sections of the docs, each between `<!-- NAME:begin -->` and `<!-- NAME:end -->`
markers: README.md's op reference (from pycore.tables.ops.OPS) and error table, and the measured tables of
docs/benchmarks.md.

    python3 scripts/readme.py      rewrites the op reference (tests check it is current)
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BENCHMARKS = ROOT / "docs" / "benchmarks.md"


def replace_section(name: str, body: str, text: str | None = None, path: Path = README) -> str:
    """The file's text with the `name` section replaced by `body`; written unless `text` is given."""
    source = path.read_text() if text is None else text
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    head, rest = source.split(begin, 1)
    _, tail = rest.split(end, 1)
    updated = f"{head}{begin}\n{body}\n{end}{tail}"
    if text is None:
        path.write_text(updated)
    return updated


def _row(name: str, summary: str, example: str, shows: str) -> str:
    import pycore

    sig = inspect.signature(getattr(pycore, name))
    params = str(sig.replace(return_annotation=inspect.Signature.empty,
                             parameters=[p.replace(annotation=inspect.Parameter.empty)
                                         for p in sig.parameters.values()])).replace("'", '"')
    shows = " ".join(shows.split()).replace("|", "\\|")
    return f"| `{name}{params}` | {summary} | `await {example}` | `{shows}` |"


def op_reference() -> str:
    """One row per op: call, what it does, a one-line example and its value. The n-d ops
    (pycore.tables.ufuncs) first, then the fixed-kernel ops of pycore.tables.ops whose names they
    do not take."""
    sys.path.insert(0, str(ROOT))
    from pycore.calls.nd import TABLED
    from pycore.tables.ops import OPS
    from pycore.tables.ufuncs import REDUCTIONS, UFUNCS

    rows = ["| call | what it computes | example (in the console) | gives |", "| --- | --- | --- | --- |"]
    for u in UFUNCS.values():
        also = f" Also `{'`, `'.join(a + '_async' for a in u.aliases)}`." if u.aliases else ""
        rows.append(_row(f"{u.name}_async", u.summary + also, u.example, u.shows))
    for r in REDUCTIONS.values():
        rows.append(_row(f"{r.name}_async", r.summary, r.example, r.shows))
    from pycore.calls.selection import SELPUBLIC

    for op in OPS.values():
        if op.public_name not in TABLED and op.public_name not in SELPUBLIC:
            rows.append(_row(op.public_name, op.summary, op.example, op.shows))
    return "\n".join(rows)


API = ROOT / "docs" / "api.md"

_TAKES = {"numeric": "int32, uint32, float32 (bool raises TypeError)", "any": "any pycore dtype",
          "float": "any pycore dtype, computed as float32",
          "bool": "any pycore dtype, as bool (nonzero is True)",
          "integer": "int32, uint32, bool (float32 raises TypeError)",
          "int": "int32, uint32 (float32 and bool raise TypeError)"}


def _accuracy(u: Any) -> str:
    """The GPU's error bound of a ufunc's float results, in words."""
    if not u.ulps:
        return "exact"
    absolute = f", or {u.atol:.1e} absolutely near a zero of the result" if u.atol else ""
    return f"within {u.ulps:g} ULP of float32{absolute}"


def api_reference() -> str:
    """docs/api.md: every public function, from the op tables (signature, what it computes, which
    dtypes it takes and gives, where it runs, an example and its value)."""
    sys.path.insert(0, str(ROOT))
    import pycore
    from pycore.calls.nd import TABLED
    from pycore.tables.ops import OPS
    from pycore.tables.ufuncs import REDUCTIONS, UFUNCS

    def head(name: str) -> str:
        sig = inspect.signature(getattr(pycore, name))
        params = str(sig.replace(return_annotation=inspect.Signature.empty,
                                 parameters=[p.replace(annotation=inspect.Parameter.empty)
                                             for p in sig.parameters.values()])).replace("'", '"')
        return f"### `{name}{params}`"

    def example(expr: str, shows: str) -> list[str]:
        return ["```python", f">>> await {expr}", shows, "```", ""]

    lines = ["# pycore API reference", "",
             "Written by `python3 scripts/readme.py` from pycore's op tables (`pycore/tables/ufuncs.py`, "
             "`pycore/tables/ops.py`); a test checks it is current. Every op is async and takes "
             '`backend="auto" | "gpu" | "numpy"`: where to compute, never where the result lives (a '
             "GpuArray input gives a GpuArray result). Every op runs on the GPU where there is one, and "
             "on NumPy otherwise, with the same result and dtype.", "",
             "## Element-wise ops (n-d, broadcasting)", "",
             "Float results on the GPU are within these bounds of the exact value, in float32 units in the "
             "last place (measured on SwiftShader and lavapipe); the others are exact, and the NumPy backend "
             "gives NumPy's float32 results.", "",
             "| function | GPU accuracy |", "| --- | --- |",
             *[f"| `{u.name}` | {_accuracy(u)} |" for u in UFUNCS.values() if u.ulps], ""]
    for u in UFUNCS.values():
        gives = "bool" if u.gives == "bool" else "the promoted dtype" if u.takes != "float" else "float32"
        aliases = f" Also `{'`, `'.join(a + '_async' for a in u.aliases)}`." if u.aliases else ""
        lines += [head(f"{u.name}_async"), "", u.summary + aliases, "",
                  f"Takes: {_TAKES[u.takes]}. Gives: {gives}. On the GPU: {_accuracy(u)}.", "",
                  *example(u.example, u.shows)]
    lines += ["## Reductions (any axes, keepdims)", ""]
    for r in REDUCTIONS.values():
        gives = {"same": "the input's dtype", "sum": "the input's dtype (bool counts as int32)",
                 "float32": "float32", "int32": "int32", "bool": "bool"}[r.gives]
        lines += [head(f"{r.name}_async"), "", r.summary, "",
                  f"Takes: {_TAKES[r.takes]}. Gives: {gives}; reduced over every axis without keepdims, "
                  "a 0-D GpuArray for a GpuArray input (it stays on the GPU), a NumPy scalar for host "
                  "values.", "", *example(r.example, r.shows)]
    lines += ["## Fixed-kernel ops", "", "These compute in float32: integer and bool inputs are converted, "
              "and so are GpuArrays of those dtypes (on the GPU).", ""]
    from pycore.calls.selection import SELPUBLIC

    for op in OPS.values():
        if op.public_name in TABLED or op.public_name in SELPUBLIC:
            continue
        lines += [head(op.public_name), "", op.summary, "", *example(op.example, op.shows)]
    lines += namespace_reference()
    lines += linalg_reference()
    lines += fft_reference()
    lines += nn_reference()
    return "\n".join(lines).rstrip() + "\n"


def on_gpu_routes() -> dict[str, str]:
    """How each function of the namespace, the selection and the sorting modules runs on the GPU
    (their ON_GPU tables)."""
    from pycore.calls import creation, manipulation, selection, sorting

    return {**creation.ON_GPU, **manipulation.ON_GPU, **selection.ON_GPU, **sorting.ON_GPU}


def namespace_reference() -> list[str]:
    """docs/api.md's section of the Array API namespace (pycore/calls/namespace.py gathers creation.py,
    manipulation.py and datatypes.py), then selection.py's and sorting.py's functions: each function's
    signature, what its docstring says, and its example."""
    import numpy as np

    import pycore
    from pycore.calls.namespace import NSPUBLIC
    from pycore.calls.selection import SELPUBLIC
    from pycore.calls.sorting import SORTPUBLIC

    lines = ["## Array API namespace", "",
             "The Python Array API standard's creation, manipulation and data-type functions, with its "
             "names, parameters and defaults, each as `<name>_async` (the view functions also plain, "
             "the data-type functions plain only). A function of a GpuArray gives a GpuArray (views where "
             "it only rearranges elements), of host arrays a NumPy array; a creation function's "
             '`device="gpu"` fills a GpuArray on the GPU. The dtypes are `pycore.float32`, `pycore.int32`, '
             "`pycore.uint32` and `pycore.bool`. The selection, indexing and cumulative functions "
             "(where, clip, take, take_along_axis, cumulative_sum, cumulative_prod, diff, count_nonzero) "
             "follow, then the sorting and set functions (sort, argsort, searchsorted, unique_*), which "
             "sort on the GPU for a GpuArray; their indices are int32.", "",
             "How each runs on the GPU (on GpuArrays; for a creation function, with `device=\"gpu\"`); "
             "on host arrays every one is NumPy's:", "", "| function | on the GPU |", "| --- | --- |",
             *[f"| `{name}` | {how} |" for name, how in on_gpu_routes().items()], ""]
    for name, fn in {**NSPUBLIC, **SELPUBLIC, **SORTPUBLIC}.items():
        if isinstance(fn, np.dtype) or not callable(fn):  # (the dtypes, the constants)
            continue
        sig = inspect.signature(getattr(pycore, name))
        params = str(sig.replace(return_annotation=inspect.Signature.empty,
                                 parameters=[p.replace(annotation=inspect.Parameter.empty)
                                             for p in sig.parameters.values()])).replace("'", '"')
        doc = inspect.cleandoc(fn.__doc__ or "")
        text, _, example = doc.partition(">>>")
        lines += [f"### `{name}{params}`", "", " ".join(text.split()), "",
                  "```python", ">>>" + example, "```", ""]
    return lines


def linalg_reference() -> list[str]:
    """docs/api.md's section of the linear algebra (pycore/calls/linalg.py): tensordot and vecdot,
    then the linalg extension, each function's signature, docstring and example, and where it runs."""
    import pycore
    from pycore.calls.linalg import LAPUBLIC, LINALG, ROUTES

    lines = ["## Linear algebra", "",
             "`pycore.tensordot_async`, `pycore.vecdot_async` and the standard's linalg extension, "
             "`pycore.linalg.<name>_async` (`diagonal` and `matrix_transpose` also plain: views). "
             "Results live where the inputs do, 0-D ones too (a NumPy scalar for host values), as the "
             "reductions'. The functions the standard restricts to floating-point dtypes take float32 "
             "and complex64 (TypeError otherwise), the ones on NumPy "
             "computing in float64 or complex128; singular or indefinite matrices raise "
             "`numpy.linalg.LinAlgError` (a ValueError), as NumPy does. Where each runs "
             "(`pycore.explain(\"linalg.<name>\", shapes)` says so too):", "",
             "| function | runs | how |", "| --- | --- | --- |",
             *[f"| `{name}` | {r.runs} | {r.how} |" for name, r in ROUTES.items()], ""]
    for where, table in (("pycore", LAPUBLIC), ("pycore.linalg", LINALG)):
        for name, fn in table.items():
            if where == "pycore.linalg" and name in LAPUBLIC:
                continue
            sig = inspect.signature(getattr(pycore, name) if where == "pycore" else fn)
            params = str(sig.replace(return_annotation=inspect.Signature.empty,
                                     parameters=[p.replace(annotation=inspect.Parameter.empty)
                                                 for p in sig.parameters.values()])).replace("'", '"')
            doc = inspect.cleandoc(fn.__doc__ or "")
            text, _, example = doc.partition(">>>")
            lines += [f"### `{where}.{name}{params}`", "", " ".join(text.split()), "",
                      "```python", ">>>" + example, "```", ""]
    return lines


def fft_reference() -> list[str]:
    """docs/api.md's section of the fft extension (pycore/calls/fft.py): each function's signature,
    docstring and example, and where it runs."""
    from pycore.calls.fft import FFT, ROUTES

    lines = ["## Fourier transforms", "",
             "The standard's fft extension, `pycore.fft.<name>_async`. The transforms run on the GPU's "
             "kernels (Stockham passes of radix 16, 4 and 2, whole transforms of up to 2048 points in "
             "workgroup memory, Bluestein's chirp-z for other lengths; float32, twiddles from exactly "
             "reduced angles) where `backend=\"auto\"` predicts it pays, else NumPy's (float64, rounded "
             "to complex64). pycore has no complex dtype yet: inputs are NumPy arrays (float32, float64, "
             "complex64, complex128) or float32 GpuArrays, complex results are NumPy complex64 arrays, and "
             "the real results of GpuArray inputs are GpuArrays. Where each runs "
             "(`pycore.explain(\"fft.<name>\", shape)` says so too):", "",
             "| function | runs | how |", "| --- | --- | --- |",
             *[f"| `{name}` | {r.runs} | {r.how} |" for name, r in ROUTES.items()], ""]
    return lines + _entries("pycore.fft", FFT)


def _entries(module: str, table: dict[str, Any]) -> list[str]:
    """Each function of an extension module's table: its signature, docstring and example."""
    lines: list[str] = []
    for name, fn in table.items():
        sig = inspect.signature(fn)
        params = str(sig.replace(return_annotation=inspect.Signature.empty,
                                 parameters=[p.replace(annotation=inspect.Parameter.empty)
                                             for p in sig.parameters.values()])).replace("'", '"')
        text, _, example = inspect.cleandoc(fn.__doc__ or "").partition(">>>")
        lines += [f"### `{module}.{name}{params}`", "", " ".join(text.split()), "",
                  "```python", ">>>" + example, "```", ""]
    return lines


def nn_reference() -> list[str]:
    """docs/api.md's section of pycore.nn (pycore/calls/nn.py): how each function is composed, then
    each one's signature, docstring and example."""
    from pycore.calls.nn import NN, ROUTES

    lines = ["## Neural-network building blocks", "",
             "`pycore.nn.<name>_async`, each composed of pycore's n-d calls (so on the GPU for GpuArray "
             "inputs, with GpuArray results, and on NumPy for host arrays). How each is composed, and the "
             "calls (kernel launches on the GPU) one call makes:", "",
             "| function | composed of |", "| --- | --- |",
             *[f"| `{name}` | {how} |" for name, how in ROUTES.items()], ""]
    return lines + _entries("pycore.nn", NN)


if __name__ == "__main__":
    replace_section("ops", op_reference())
    API.write_text(api_reference())
