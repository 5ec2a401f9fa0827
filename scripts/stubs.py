#!/usr/bin/env python3
"""Writes pycore/__init__.pyi: the public API as type checkers and IDEs should see it. The `*_async`
functions are generated from the op table at import time (pycore/calls/api.py), which static tools cannot
follow; the stub spells out each one's signature, from the same table. tests/unit/test_shaders.py
checks the stub is current.

    python3 scripts/stubs.py          # rewrite pycore/__init__.pyi
    python3 scripts/stubs.py --check  # exit 1 if it is stale
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
STUB = ROOT / "pycore" / "__init__.pyi"
sys.path.insert(0, str(ROOT))

HEAD = '''"""Type stub of pycore's public API, written by scripts/stubs.py from the op table (do not edit)."""

import builtins
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from . import bench as bench
from . import fft as fft
from . import linalg as linalg
from . import nn as nn
from .array.dtypes import NarrowingWarning as NarrowingWarning
from .bench.calibrate import calibrate_async as calibrate_async
from .calls.batch import CommandBatch as CommandBatch
from .calls.datatypes import FInfo, IInfo, Info
from .calls.gpuarray import GpuArray as GpuArray
from .calls.sorting import UniqueAllResult, UniqueCountsResult, UniqueInverseResult
from .choice.selector import SELECTOR as SELECTOR
from .choice.selector import BackendSelector as BackendSelector
from .choice.selector import Calibration as Calibration
from .engine.device import CancelledWorkError as CancelledWorkError
from .tables.ops import OPS as OPS

__version__: str

def explain(op: str, *shapes: tuple[int, ...], on_gpu: tuple[bool, ...] | None = None, axis: Any = None,
            keepdims: bool = False) -> dict[str, Any]: ...
async def to_gpu_async(x: ArrayLike | GpuArray, dtype: Any = None) -> GpuArray: ...
async def init_async(transport: str | None = None) -> dict[str, Any]: ...
def info() -> dict[str, Any]: ...
def trace() -> list[dict[str, Any]]: ...
'''


def stub() -> str:
    from pycore.calls.api import PUBLIC
    from pycore.calls.nd import TABLED
    from pycore.tables.ops import OPS
    from pycore.tables.ufuncs import REDUCTIONS, UFUNCS

    lines = [HEAD]
    for u in UFUNCS.values():
        names = ["x1", "x2"] if u.nin == 2 else ["x"]
        arrays = ", ".join(f"{n}: ArrayLike | GpuArray | float" for n in names)
        for name in (u.name, *u.aliases):
            lines.append(f'async def {name}_async({arrays}, /, *, backend: str = "auto") '
                         f'-> np.ndarray | GpuArray:\n    """{u.summary}"""')
    for r in REDUCTIONS.values():
        extra = "correction: float = 0.0, " if r.two_pass else ""
        lines.append(f"async def {r.name}_async(x: ArrayLike | GpuArray, /, *, "
                     f"axis: int | tuple[int, ...] | None = None, keepdims: bool = False, "
                     f'{extra}backend: str = "auto") -> Any:\n    """{r.summary}"""')
    from pycore.calls.selection import SELPUBLIC

    for op in OPS.values():
        if op.public_name in TABLED or op.public_name in SELPUBLIC:
            continue
        sig = inspect.signature(PUBLIC[op.public_name])
        params = []
        for p in sig.parameters.values():
            if p.name == "backend":
                params.append("*")
                params.append('backend: str = "auto"')
                continue
            if p.name in op.inputs:
                kind = "ArrayLike | GpuArray"
            else:
                kind = type(p.default).__name__ if p.default is not inspect.Parameter.empty else "float"
            default = "" if p.default is inspect.Parameter.empty else f" = {p.default!r}"
            params.append(f"{p.name}: {kind}{default}")
        result = "float" if op.kind == "reduce" else "np.ndarray | GpuArray"
        lines.append(f"async def {op.public_name}({', '.join(params)}) -> {result}:\n"
                     f'    """{op.summary}"""')
    lines += namespace_stub()
    text = "\n".join(lines) + "\n"
    return re.sub(r"(: |-> |\[|\| )bool\b", r"\1builtins.bool", text)  # (pycore.bool is a dtype)


def namespace_stub() -> list[str]:
    """The Array API namespace (pycore/calls/namespace.py gathers creation.py, manipulation.py and
    datatypes.py): its functions as they are written, its dtypes; then the selection functions
    (calls/selection.py), the sorting and set functions (calls/sorting.py) and the main namespace's
    linear algebra (pycore/calls/linalg.py)."""
    from pycore.calls.linalg import LAPUBLIC
    from pycore.calls.namespace import NSPUBLIC
    from pycore.calls.selection import SELPUBLIC
    from pycore.calls.sorting import SORTPUBLIC

    return functions_stub({**NSPUBLIC, **SELPUBLIC, **SORTPUBLIC, **LAPUBLIC})


LINALG_STUB = ROOT / "pycore" / "linalg.pyi"
LINALG_HEAD = '''"""Type stub of pycore.linalg (the Array API's linalg extension, made in
pycore/calls/linalg.py), written by scripts/stubs.py (do not edit)."""

from typing import Any

from .calls.linalg import ROUTES as ROUTES
from .calls.linalg import EighResult as EighResult
from .calls.linalg import EigResult as EigResult
from .calls.linalg import QRResult as QRResult
from .calls.linalg import SlogdetResult as SlogdetResult
from .calls.linalg import SVDResult as SVDResult
'''


def linalg_stub() -> str:
    """pycore/linalg.pyi: the linalg extension's functions as they are written."""
    from pycore.calls.linalg import LINALG

    return LINALG_HEAD + "\n" + "\n".join(functions_stub(LINALG)) + "\n"


FFT_STUB = ROOT / "pycore" / "fft.pyi"
FFT_HEAD = '''"""Type stub of pycore.fft (the Array API's fft extension, made in pycore/calls/fft.py), written
by scripts/stubs.py (do not edit)."""

from typing import Any

from .calls.fft import ROUTES as ROUTES
'''


def fft_stub() -> str:
    """pycore/fft.pyi: the fft extension's functions as they are written."""
    from pycore.calls.fft import FFT

    return FFT_HEAD + "\n" + "\n".join(functions_stub(FFT)) + "\n"


NN_STUB = ROOT / "pycore" / "nn.pyi"
NN_HEAD = '''"""Type stub of pycore.nn (neural-network building blocks, made in pycore/calls/nn.py),
written by scripts/stubs.py (do not edit)."""

from typing import Any

from .calls.nn import ROUTES as ROUTES
'''


def nn_stub() -> str:
    """pycore/nn.pyi: the nn module's functions as they are written."""
    from pycore.calls.nn import NN

    return NN_HEAD + "\n" + "\n".join(functions_stub(NN)) + "\n"


def functions_stub(functions: dict[str, Any]) -> list[str]:
    """Each function's stub line (its signature as written, its summary), each dtype's annotation."""
    import numpy as np

    lines = []
    for name, fn in functions.items():
        if isinstance(fn, np.dtype):
            lines.append(f"{name}: np.dtype[Any]")
            continue
        if fn is None or isinstance(fn, (float, str)):  # the constants (newaxis is None)
            lines.append(f"{name}: {'None' if fn is None else type(fn).__name__}")
            continue
        sig = inspect.signature(fn)
        params, star = [], False
        for p in sig.parameters.values():
            kind = "Any" if p.annotation in (inspect.Parameter.empty, "Array") else p.annotation
            if p.kind is p.KEYWORD_ONLY and not star:
                params.append("*")
                star = True
            if p.kind is p.VAR_POSITIONAL:
                params.append(f"*{p.name}: {kind}")
                star = True
                continue
            default = "" if p.default is inspect.Parameter.empty else f" = {p.default!r}"
            params.append(f"{p.name}: {kind}{default}")
            if p.kind is p.POSITIONAL_ONLY and (
                    list(sig.parameters.values()).index(p) + 1 == len(sig.parameters)
                    or list(sig.parameters.values())[list(sig.parameters.values()).index(p) + 1].kind
                    is not p.POSITIONAL_ONLY):
                params.append("/")
        result = re.sub(r"\bArray\b", "Any", str(sig.return_annotation))
        if sig.return_annotation is inspect.Signature.empty:
            result = "Any"
        summary = " ".join((fn.__doc__ or "").split("\n\n")[0].split())
        opener = "async def" if inspect.iscoroutinefunction(fn) else "def"
        lines.append(f"{opener} {name}({', '.join(params)}) -> {result}:\n    \"\"\"{summary}\"\"\"")
    return lines


def main(argv: list[str]) -> int:
    for path, text in ((STUB, stub()), (LINALG_STUB, linalg_stub()), (FFT_STUB, fft_stub()),
                       (NN_STUB, nn_stub())):
        if "--check" not in argv:
            path.write_text(text)
        elif not path.exists() or path.read_text() != text:
            print(f"{path} is stale: run python3 scripts/stubs.py", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
