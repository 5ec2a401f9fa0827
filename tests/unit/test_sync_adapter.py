"""The synchronous Array API namespace over pycore (tests/array_api/pycore_sync.py) that the
standard's own test suite runs against (scripts/array_api_tests.sh): every call a fresh event loop,
the array object's operators, indexing and writes made of pycore calls, results as pycore's."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "array_api"))
import pycore_sync
from pycore_sync import xp


def test_calls_operators_and_conversions_go_through_pycore():
    x = xp.asarray([[1, 2], [3, 4]], dtype=xp.int32)
    assert isinstance(x, pycore_sync.Array) and x.shape == (2, 2) and x.dtype == xp.int32
    y = (x + 1) * 2
    assert y.dtype == xp.int32 and int(xp.sum(y)) == 28 and bool(xp.all(y > 2))
    assert float(xp.linalg.vector_norm(xp.asarray([3.0, 4.0]))) == 5.0
    assert (x.T @ x).shape == (2, 2) and x.mT.shape == (2, 2)
    assert xp.__array_api_version__ == "2025.12" and xp.pi == np.pi


def test_indexing_and_writes():
    x = xp.arange(6, dtype=xp.float32)
    assert float(x[2]) == 2.0 and x[1:5:2].shape == (2,) and x[None, ...].shape == (1, 6)
    x[x > 3.0] = -1.0
    assert np.array_equal(np.asarray(x._data), [0, 1, 2, 3, -1, -1])
    x[0] = 7.0
    x += 1.0
    assert float(x[0]) == 8.0 and x.dtype == xp.float32
    with pytest.raises(IndexError):
        x[10]


def test_results_of_tuples_are_arrays():
    values, counts = xp.unique_counts(xp.asarray([1, 1, 2], dtype=xp.int32))
    assert isinstance(values, pycore_sync.Array) and [int(c) for c in counts] == [2, 1]
    q, r = xp.linalg.qr(xp.eye(3))
    assert q.shape == r.shape == (3, 3)
