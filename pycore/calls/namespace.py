"""The Python Array API standard's creation, manipulation and data-type functions gathered into
NSPUBLIC, the names pycore/__init__.py exports: those of calls/creation.py and the kernel-running
ones of calls/manipulation.py as `<name>_async`, the view functions (plain and `<name>_async`),
calls/datatypes.py's plain functions, the dtypes and the constants (e, pi, inf, nan, newaxis).
The arguments they share are checked by calls/arguments.py; calls/placing.py says where each runs
and runs its placing plans.

>>> from pycore.calls.namespace import NSPUBLIC
>>> [name for name in ("zeros_async", "flip", "flip_async", "finfo", "float32") if name in NSPUBLIC]
['zeros_async', 'flip', 'flip_async', 'finfo', 'float32']
>>> NSPUBLIC["__array_api_version__"], NSPUBLIC["pi"]
('2025.12', 3.141592653589793)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from pycore.array.dtypes import DTYPES
from pycore.calls.creation import CREATION
from pycore.calls.datatypes import DATATYPES
from pycore.calls.manipulation import MANIPULATION, VIEWS, VIEWS_ASYNC

# The standard's functions that run kernels (or may), as `<name>_async`, then the view functions
# (sync, and `<name>_async`), the data-type functions, the dtypes and the inspection namespace.
KERNELED: dict[str, Callable[..., Any]] = {**CREATION, **MANIPULATION}
for _f in (*KERNELED.values(), *VIEWS.values(), *DATATYPES.values()):
    _f.__module__ = "pycore"

# The standard's constants, and the revision of it that pycore implements
CONSTANTS: dict[str, Any] = {"e": math.e, "pi": math.pi, "inf": math.inf, "nan": math.nan, "newaxis": None,
                             "__array_api_version__": "2025.12"}

NSPUBLIC: dict[str, Any] = {
    **KERNELED,
    **VIEWS_ASYNC,
    **VIEWS,
    **DATATYPES,
    **{d.name: d for d in DTYPES},
    **CONSTANTS,
}
