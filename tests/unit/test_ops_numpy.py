"""Every op's NumPy path (what runs without WebGPU) against the float64 references."""

from __future__ import annotations

import asyncio

import pytest

from pycore.tables.ops import OPS
from tests.reference import REFERENCES, case_ids, cases, run_case_async
from tests.unit.test_cpython_api import run


def test_every_op_has_a_reference_and_cases():
    assert set(REFERENCES) == set(OPS)
    assert {c.op for c in cases()} == set(OPS)


@pytest.mark.parametrize("case_id", case_ids(include_big=False))
def test_numpy_path_matches_float64(case_id):
    result = run(run_case_async(case_id))
    assert result["backend"] in ("numpy", None)
    assert result["ok"], result["problems"]


def test_reference_catches_wrong_answers():
    # The checker itself must fail on a wrong result, a missing NaN and a wrong infinity.
    import numpy as np

    from tests.reference import compare

    x = np.array([1.0, -1.0, np.nan, np.inf], np.float32)
    assert compare("relu", np.array([1.0, 0.0, np.nan, np.inf], np.float32), [x], {}).ok
    assert not compare("relu", np.array([1.0, 1e-7, np.nan, np.inf], np.float32), [x], {}).ok
    assert not compare("relu", np.array([1.0, 0.0, 0.0, np.inf], np.float32), [x], {}).ok
    assert not compare("relu", np.array([1.0, 0.0, np.nan, -np.inf], np.float32), [x], {}).ok
    assert not compare("sigmoid", np.array([0.7321, 0.2689, np.nan, 1.0], np.float32), [x], {}).ok
    assert not compare("sum", np.float32(3.0), [np.ones(2, np.float32)], {}).ok
    assert asyncio.iscoroutinefunction(run_case_async)
