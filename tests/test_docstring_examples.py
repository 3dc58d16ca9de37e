"""The examples in the docstrings of the most used operations run, and show what they say:
those docstrings are what ``help(interop.sum)`` shows users."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import interop

DOCUMENTED = (
    "add sub div matmul sum mean std var max min argmax amax reshape view transpose permute "
    "cat stack squeeze unsqueeze flatten split chunk gather index_select where masked_fill sort "
    "topk cumsum clamp relu softmax log_softmax sigmoid zeros ones full arange linspace eye "
    "randn einsum linear pad allclose to expand repeat norm").split()


def _public(name: str):
    return getattr(interop, name, None) or getattr(interop.Tensor, name)


def test_fifty_operations_are_documented_with_examples():
    assert len(DOCUMENTED) == 50
    missing = [n for n in DOCUMENTED if ">>>" not in (_public(n).__doc__ or "")]
    assert not missing, f"no example in the docstring of {missing}"


@pytest.mark.parametrize("name", DOCUMENTED)
def test_docstring_examples_run(name):
    tests = doctest.DocTestFinder(recurse=False).find(_public(name), name,
                                                      globs={"interop": interop, "np": np})
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted and not result.failed, f"{name}: {result.failed} example(s) fail"
