"""The examples in the installed package's docstrings run as written (those
of README.md are collected by pytest itself: --doctest-glob)."""

import doctest
import importlib

import pytest

MODULES = ["ultimo", "ultimo.engine", "ultimo.super15", "ultimo.gym"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    if name == "ultimo.gym":
        pytest.importorskip("gymnasium")
    module = importlib.import_module(name)
    import ultimo

    result = doctest.testmod(
        module,
        extraglobs={"ultimo": ultimo},
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"
    assert result.attempted > 0 or name == "ultimo.super15"
