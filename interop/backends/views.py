"""Writes through views, on backends whose arrays have no views (Dask).

On NumPy and CuPy, basic indexing (integers, slices, ``...``, ``None``) gives
a view: writing into ``t[0]`` changes ``t``, as in torch, and code such as
scikit-learn's ``_add_to_diagonal(covariances[k])`` relies on it.  A Dask
array has no shared buffer, so each array made by basic indexing remembers
the array and index it came from, and a write into it is replayed, lazily,
into that array (and on up the chain).  One way only: a view taken earlier
does not see later writes into its base.
"""

from __future__ import annotations

from typing import Any

import numpy as np

WITHOUT_VIEWS: set[type] = set()  # array types of such backends (each adds its own on load)
_BASE = "_interop_view_of"


def _basic(index: Any) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return all(i is None or i is Ellipsis or type(i) is slice
               or isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in items)


def remember(view: Any, base: Any, index: Any) -> None:
    """Note that ``view`` is ``base[index]``, when writes into it must reach ``base``."""
    if type(view) in WITHOUT_VIEWS and view is not base and _basic(index):  # Dask: x[:] is x
        setattr(view, _BASE, (base, index))


def written(raw: Any) -> None:
    """``raw`` was just written in place: replay the write into the arrays it is a view of."""
    link = getattr(raw, _BASE, None) if type(raw) in WITHOUT_VIEWS else None
    while link is not None:
        base, index = link
        items = index if isinstance(index, tuple) else (index,)
        if any(i is None for i in items):  # new axes of size 1: write into base[rest], reshaped
            index = tuple(i for i in items if i is not None)
            raw = raw.reshape(base[index].shape)
        base[index] = raw
        link = getattr(base, _BASE, None)
        raw = base
