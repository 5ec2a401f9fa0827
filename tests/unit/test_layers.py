"""pycore's subpackages form layers (README, Architecture): a module imports only from its own
layer and the ones below it, so each layer can be read, tested and replaced without the ones above."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ["array", "tables", "kernels", "engine", "choice", "calls", "bench"]  # lowest first


def _layer(module: str) -> int:
    """The layer of a pycore module (pycore/__init__.py is above them all)."""
    parts = module.split(".")
    if len(parts) == 1:
        return len(LAYERS)
    if parts[1] == "_version":
        return 0
    return LAYERS.index(parts[1])


def _imports(path: Path, module: str) -> list[str]:
    """Every pycore module `path` imports (at any depth: lazy imports count too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] == "pycore"]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # (relative: resolved against the module's package)
                package = module.split(".")[:-node.level] if path.name != "__init__.py" else \
                    module.split(".")[:len(module.split(".")) - node.level + 1]
                base = ".".join([*package, *([base] if base else [])])
            if base.split(".")[0] != "pycore":
                continue
            if base == "pycore":
                found += [f"pycore.{a.name}" for a in node.names]
            else:
                found.append(base)
    return found


def test_no_module_imports_from_a_layer_above_its_own():
    climbs = []
    for path in sorted((ROOT / "pycore").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        for target in _imports(path, module):
            if target.split(".")[1:2] and target.split(".")[1] not in (*LAYERS, "_version"):
                climbs.append(f"{module} imports {target}, which is in no layer")
            elif _layer(target) > _layer(module):
                climbs.append(f"{module} ({LAYERS[_layer(module)]}) imports {target}")
    assert climbs == []


def test_every_module_lives_in_a_layer():
    flat = [p.name for p in (ROOT / "pycore").glob("*.py") if p.name not in ("__init__.py", "_version.py")]
    assert flat == []
    for layer in LAYERS:
        init = ROOT / "pycore" / layer / "__init__.py"
        assert init.is_file() and ast.get_docstring(ast.parse(init.read_text())), layer


def test_every_kernel_kind_is_declared_once_with_all_it_needs():
    # a kind: its declaration (tables/kinds.py), the class that runs it (calls/programs.py), and a
    # default rate per backend in every adapter class's defaults (choice/selector.py)
    from pycore.calls.programs import PROGRAMS
    from pycore.choice.selector import ADAPTER_DEFAULTS, NUMPY_DEFAULTS
    from pycore.tables.kinds import KINDS
    from pycore.tables.ops import OPS

    assert set(PROGRAMS) == set(KINDS)
    assert {op.kind for op in OPS.values()} <= set(KINDS)
    tables = {f"{adapter} gpu_gflops": d["gpu_gflops"] for adapter, d in ADAPTER_DEFAULTS.items()}
    for name, rates in {**tables, "numpy": NUMPY_DEFAULTS}.items():
        missing = set(KINDS) - set(rates)
        assert not missing, f"{name} has no default rate for {sorted(missing)}"
