"""Every example in pycore's docstrings runs as written, in CPython (the planners, the tables, the
NumPy backend): a docstring that no longer says what the code does fails here."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import pycore

SKIP = {"pycore.engine.browser", "pycore.bench.__main__"}  # (Pyodide's `js` only; a script)
MODULES = sorted(m.name for m in pkgutil.walk_packages(pycore.__path__, "pycore.") if m.name not in SKIP)


@pytest.mark.parametrize("name", ["pycore", *MODULES])
def test_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    report: list[str] = []
    for test in doctest.DocTestFinder().find(module, name):
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


def test_the_examples_are_found() -> None:
    # (the walk reaches the subpackages' modules, and they hold examples)
    assert "pycore.kernels.reduction" in MODULES and "pycore.choice.selector" in MODULES
    found = sum(len(doctest.DocTestFinder().find(importlib.import_module(n), n)) for n in MODULES)
    assert found > 100
