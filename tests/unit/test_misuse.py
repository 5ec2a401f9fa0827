"""Misuse that once answered with another array's data, or with an internal error, now raises a clear
error naming what is wrong (on the NumPy transport, as every unit test: see tests/conftest.py)."""

from __future__ import annotations

import copy

import pytest

import pycore
from tests.unit.test_cpython_api import run


def test_copy_copy_is_a_view_that_ends_with_the_original():
    x = run(pycore.to_gpu_async([1.0, 2.0]))
    c = copy.copy(x)
    assert run(c.to_numpy_async()).tolist() == [1.0, 2.0] and "view" in repr(c)
    x.release()  # (on a GPU its buffer goes back to the pool: a copy reading it would read another array)
    with pytest.raises(RuntimeError, match=r"the array this view was taken of .* was released"):
        run(c.to_numpy_async())
    with pytest.raises(RuntimeError, match="was released"):
        run(pycore.relu_async(c))


def test_copy_deepcopy_says_to_copy_on_the_device():
    x = run(pycore.to_gpu_async([1.0, 2.0]))
    with pytest.raises(TypeError, match=r"await x\.copy_async\(\)"):
        copy.deepcopy(x)
    with pytest.raises(TypeError, match=r"copy_async"):
        copy.deepcopy({"x": x})
