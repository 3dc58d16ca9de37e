"""Bounds of integer index arrays, checked where the library does not check them itself
(Dask and Cubed check lazily when the graph runs; CuPy wraps an index out of range around)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import IndexOutOfRangeError


def dims_indexed(items: tuple, ndim: int) -> list:
    """The first dimension each item of an index indexes (None for ``...``, None, True)."""
    def width(i: Any) -> int:
        if i is None or i is Ellipsis or isinstance(i, bool):
            return 0
        return i.ndim if getattr(i, "dtype", None) == np.bool_ else 1
    free = ndim - sum(width(i) for i in items)
    dims, d = [], 0
    for item in items:
        dims.append(None if item is None or item is Ellipsis or isinstance(item, bool) else d)
        d += free if item is Ellipsis else width(item)
    return dims


def in_bounds(block: Any, size: int, name: str) -> Any:
    if block.size and (block.min() < -size or block.max() >= size):
        raise IndexOutOfRangeError(f"{name}: an index is out of bounds for a dimension of size "
                                   f"{size}; valid indices are {-size} to {size - 1}")
    return block


def checked_now(index: Any, shape: tuple, name: str) -> Any:
    """``index`` with each of its integer index arrays checked against ``shape`` at once (a
    value read of their extremes), for a library whose indexing wraps around instead."""
    items = index if isinstance(index, tuple) else (index,)
    for item, d in zip(items, dims_indexed(items, len(shape))):
        if d is not None and d < len(shape) and getattr(item, "dtype", None) is not None \
                and item.dtype.kind in "iu":
            in_bounds(item, shape[d], name)
    return index
