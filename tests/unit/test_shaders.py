"""The WGSL sources and the type stub: generated sections are current, every op's entry point exists."""

from __future__ import annotations

import re
import subprocess
import sys

from pycore.kernels.wgsl import wgsl_source
from pycore.tables.ops import OPS
from tests.harness import ROOT


def test_generated_matmul_kernel_is_current():
    done = subprocess.run([sys.executable, "scripts/matmul_wgsl.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_every_entry_point_is_defined():
    from pycore.kernels.rowwise import ROW_OPS
    from pycore.tables.ufuncs import REDUCTIONS

    for op in OPS.values():
        if op.kind == "rowwise":  # generated from its declaration (kernels/rowwise.py)
            assert op.name in ROW_OPS
            continue
        if op.kind == "reduce":  # generated from the reduction table's declaration (kernels/reduction.py)
            assert op.combine in REDUCTIONS
            continue
        source = wgsl_source(op.family)
        # element-wise ops are one function each (`<entry>_f`); their kernels are generated
        fn = f"{op.entry}_f" if op.kind in ("unary", "binary") else op.entry
        assert re.search(rf"\bfn {fn}\s*\(", source), f"{op.name}: no fn {fn} in {op.family}.wgsl"
    assert re.search(r"@compute[^\n]*\nfn matmul_vec4\(", wgsl_source("matmul"))


def test_the_type_stub_is_current():
    done = subprocess.run([sys.executable, "scripts/stubs.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
