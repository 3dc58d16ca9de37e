"""Writes through views, on backends whose arrays have no views (Dask).

On NumPy and CuPy, basic indexing (integers, slices, ``...``, ``None``) and
the layout operations (``reshape``, ``view``, ``flatten``, ``squeeze``,
``unsqueeze``, ``permute``, ``transpose``, ``T``, ``narrow``, ``split``, ...)
give views: writing into one changes the tensor it came from, as in torch,
and code such as scikit-learn's ``_add_to_diagonal(covariances[k])`` relies
on it.  A Dask array has no shared buffer, so each such result remembers the
array it came from and how its elements map back, and a write into it is
replayed, lazily, into that array (and on up the chain).  One way only: a
view taken earlier does not see later writes into its base.  A reshape of a
view that is not contiguous (a transpose, a strided slice) is a copy, as
NumPy's and torch's are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

WITHOUT_VIEWS: set[type] = set()  # array types of such backends (each adds its own on load)
_BASE = "_interop_view_of"


def _basic(index: Any) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return all(i is None or i is Ellipsis or type(i) is slice
               or isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in items)


def _tracked(view: Any, base: Any) -> bool:
    return type(view) in WITHOUT_VIEWS and view is not base  # Dask returns x itself for x[:]


def _link(view: Any, base: Any, index: Any, undo: Callable[[Any], Any],
          contiguous: bool) -> Any:
    """``base[index]`` holds ``undo(view)``'s elements: a write into ``view`` goes there."""
    setattr(view, _BASE, (base, index, undo, contiguous and _contiguous(base)))
    return view


def _contiguous(raw: Any) -> bool:
    """Would this be C-contiguous on NumPy (an array that is no view of another is)?"""
    link = getattr(raw, _BASE, None)
    return link is None or link[3]


def _contiguous_index(items: tuple, shape: tuple) -> bool:
    """Basic indices that select one C-contiguous block: integers, then one step-1 slice,
    then whole dimensions."""
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items = items[:at] + (slice(None),) * (len(shape) - len(items) + 1) + items[at + 1:]
    sliced = False  # after the first slice, only whole dimensions keep the block contiguous
    for item, size in zip(items, shape):
        if size != size:  # NaN: an unknown Dask size; treated as not contiguous
            return False
        if isinstance(item, slice):
            start, stop, step = item.indices(size)
            if sliced and (start, stop, step) != (0, size, 1) or step != 1 and stop - start > 1:
                return False
            sliced = True
        elif sliced:
            return False
    return True


def remember(view: Any, base: Any, index: Any) -> Any:
    """``view`` is ``base[index]`` (basic indexing)."""
    if not _tracked(view, base) or not _basic(index):
        return view
    items = index if isinstance(index, tuple) else (index,)
    if any(i is None for i in items):  # new axes of size 1: write into base[rest], reshaped
        index = tuple(i for i in items if i is not None)
        shape = base[index].shape
        return _link(view, base, index, lambda raw: _reshape(raw, shape),
                     _contiguous_index(index, base.shape))
    return _link(view, base, index, _same, _contiguous_index(items, base.shape))


def reshaped(view: Any, base: Any) -> Any:
    """``view`` holds ``base``'s elements in another shape (reshape, view, flatten, squeeze);
    a copy if ``base`` is not contiguous."""
    if not _tracked(view, base) or not _contiguous(base):
        return view
    shape = base.shape
    return _link(view, base, Ellipsis, lambda raw: _reshape(raw, shape), True)


def permuted(view: Any, base: Any, axes: Any) -> Any:
    """``view`` is ``base`` with its dimensions in the order ``axes`` (permute, transpose, T)."""
    if not _tracked(view, base):
        return view
    axes = [a % max(base.ndim, 1) for a in axes]
    inverse = tuple(int(i) for i in np.argsort(axes))
    moved = [a for a in axes if base.shape[a] != 1]  # dimensions of size 1 move freely
    return _link(view, base, Ellipsis, lambda raw: raw.transpose(inverse), moved == sorted(moved))


def written(raw: Any) -> None:
    """``raw`` was just written in place: replay the write into the arrays it is a view of."""
    link = getattr(raw, _BASE, None) if type(raw) in WITHOUT_VIEWS else None
    while link is not None:
        base, index, undo, _ = link
        base[index] = undo(raw)
        link = getattr(base, _BASE, None)
        raw = base


def _same(raw: Any) -> Any:
    return raw


def _reshape(raw: Any, shape: tuple) -> Any:
    try:
        return raw.reshape(shape)
    except NotImplementedError:  # Dask cannot split chunks unevenly: one chunk first
        return raw.rechunk(-1).reshape(shape)
