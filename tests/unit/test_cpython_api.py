"""pycore under CPython: the NumPy path, argument handling and the op table's consistency."""

from __future__ import annotations

import asyncio
import concurrent.futures
import re

import numpy as np
import pytest

import pycore
from pycore.arrays import as_float32
from pycore.dispatch import chunk_elements, grid
from pycore.ops import OPS
from pycore.shaders import wgsl_source


def in_thread(fn, *args):
    """Call fn in a fresh thread: Playwright's sync API keeps an event loop running in the main
    thread once the end-to-end tests have started, and asyncio.run() refuses to nest in it."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(fn, *args).result()


def run(coro):
    return in_thread(asyncio.run, coro)


def test_backend_is_numpy_outside_the_browser_and_says_why():
    info = run(pycore.init_async())
    assert info["backend"] == "numpy"
    assert "Pyodide" in info["reason"] and info["tier"].startswith("NumPy fallback")
    assert info["versions"]["pycore"] == pycore.__version__


@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (3, 4), (2, 3, 5), (0, 4)])
def test_relu_any_shape(shape):
    x = np.random.default_rng(0).normal(size=shape)
    y = run(pycore.relu_async(x))
    assert y.dtype == np.float32 and y.shape == x.shape
    np.testing.assert_array_equal(y, np.maximum(x.astype(np.float32), 0))


def test_relu_special_values_and_array_likes():
    y = run(pycore.relu_async([np.nan, np.inf, -np.inf, -0.0, 1e-40, -1e-40, 3]))
    np.testing.assert_array_equal(y, [np.nan, np.inf, 0, 0, np.float32(1e-40), 0, 3])
    assert run(pycore.relu_async(5)).shape == ()
    strided = np.arange(-10, 10, dtype=np.float64)[::3]
    np.testing.assert_array_equal(run(pycore.relu_async(strided)), np.maximum(strided, 0))
    assert run(pycore.relu_async(np.array([True, False]))).tolist() == [1.0, 0.0]


@pytest.mark.parametrize("bad, match", [
    (np.array([1 + 2j]), "complex"),
    (np.array(["a"]), "<U1"),
    (np.array([object()], dtype=object), "object"),
    ([[1, 2], [3]], "cannot make an array"),
])
def test_bad_inputs_raise_type_error_naming_the_argument(bad, match):
    with pytest.raises(TypeError, match=match) as err:
        run(pycore.relu_async(bad))
    assert str(err.value).startswith("x:")


def test_as_float32_makes_contiguous_copies_only_when_needed():
    a = np.ones(4, dtype=np.float32)
    assert as_float32(a) is a
    b = as_float32(np.ones((4, 4))[:, 1])
    assert b.flags.c_contiguous and b.dtype == np.float32


def test_dispatch_grid_stays_within_the_per_dimension_limit():
    assert grid(1, 65535) == (1, 1, 1)
    assert grid(65535, 65535) == (65535, 1, 1)
    for n in [65536, 70_000, 10**6, 65535 * 300 + 7]:
        x, y, _z = grid(n, 65535)
        assert x <= 65535 and y <= 65535 and x * y >= n and x * (y - 1) < n
    with pytest.raises(ValueError, match="exceed"):
        grid(65535 * 65535 + 1, 65535)


def test_chunks_fit_the_binding_limit():
    assert chunk_elements({"maxStorageBufferBindingSize": 1 << 30, "maxBufferSize": 1 << 30}) == 1 << 28
    assert chunk_elements({"maxStorageBufferBindingSize": 4096 + 12, "maxBufferSize": 1 << 20}) == 1024


def test_trace_records_each_call():
    run(pycore.relu_async([1.0, -1.0]))
    last = pycore.trace()[-1]
    assert last["op"] == "relu" and last["backend"] == "numpy" and last["shape"] == (2,)


@pytest.mark.parametrize("op", OPS.values(), ids=list(OPS))
def test_every_op_has_its_kernel_and_public_function(op):
    source = wgsl_source(op.family)
    assert re.search(rf"@compute\s+@workgroup_size\([^)]*\)\s*fn\s+{op.entry}\s*\(", source), op.entry
    fn = getattr(pycore, op.public_name)
    assert asyncio.iscoroutinefunction(fn) and fn.__doc__ and ">>>" in fn.__doc__


@pytest.mark.parametrize("module", ["pycore", "pycore.pool", "pycore.arrays", "pycore.shaders",
                                    "pycore.dispatch"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    mod = importlib.import_module(module)
    result = in_thread(lambda: doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE))
    assert result.failed == 0 and result.attempted > 0
