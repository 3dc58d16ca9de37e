"""ATen's unique kernels, which ``torch.unique`` and ``torch.unique_consecutive`` reach, as the
records of those functions: ATen returns every result (values, inverse, counts) in each call,
the ones not asked for empty, where the records return only those asked for."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .records import record


def _all_three(out: Any, return_inverse: bool, return_counts: bool) -> tuple:
    """The record's result(s) as ATen's (values, inverse, counts), empty where not asked."""
    found = list(out) if isinstance(out, tuple) else [out]
    values = found.pop(0)
    empty = record("torch.Tensor.new_empty")(values, (0,), dtype=np.int64)
    return (values, found.pop(0) if return_inverse else empty,
            found.pop(0) if return_counts else empty)


def unique2(input: Any, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
            return_counts: bool = False) -> tuple:
    """``aten._unique2``: torch.unique without ``dim``."""
    return _all_three(record("torch.unique")(input, sorted, return_inverse, return_counts),
                      return_inverse, return_counts)


def unique(input: Any, sorted: bool = True, return_inverse: bool = False) -> tuple:  # noqa: A002
    """``aten._unique``: (values, inverse)."""
    return unique2(input, sorted, return_inverse)[:2]


def unique_dim(input: Any, dim: int, sorted: bool = True,  # noqa: A002
               return_inverse: bool = False, return_counts: bool = False) -> tuple:
    """``aten.unique_dim``: the distinct slices along ``dim`` (ATen gives inverse and counts
    always)."""
    return record("torch.unique")(input, sorted, True, True, dim)


def unique_consecutive(input: Any, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None) -> tuple:
    """``aten.unique_consecutive``."""
    return _all_three(record("torch.unique_consecutive")(input, return_inverse, return_counts,
                                                         dim), return_inverse, return_counts)


ADAPTERS: dict[str, Callable[..., Any]] = {
    "aten._unique2.default": unique2, "aten._unique.default": unique,
    "aten.unique_dim.default": unique_dim,
    "aten.unique_consecutive.default": unique_consecutive}
