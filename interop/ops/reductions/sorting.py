"""Sorting, searching and set operations.  Dask has no sort of its own; the
array-api-compat namespace (``be.xp``) supplies one, so these are written
against ``xp``.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from ... import dtypes
from .._args import int_arg, ordered
from ..annotations import Dim
from ..indexing.selection import _take_along
from ..registry import op
from .aggregates import values_indices


@op(keywords={"axis": "dim"})
def sort(be: Any, input: Any, dim: Dim = -1, descending: bool = False,
         stable: bool = False) -> Any:
    """Sorted values and their indices along ``dim`` (a (values, indices) named tuple).

    >>> interop.tensor([3, 1, 2]).sort()
    sort(values=tensor([1, 2, 3], backend='numpy'), indices=tensor([1, 2, 0], backend='numpy'))
    >>> interop.tensor([3, 1, 2]).sort(descending=True).values
    tensor([3, 2, 1], backend='numpy')
    """
    ordered("sort", input)
    d = dim
    if input.ndim == 0:
        return values_indices["sort"](input, be.np.zeros((), dtype=dtypes.int64))
    indices = argsort(be, input, d, descending, stable=True)
    return values_indices["sort"](_along(be, input, indices, d), indices)


def _along(be: Any, input: Any, indices: Any, d: int) -> Any:
    return _take_along(be, input, indices, d)


@op(keywords={"axis": "dim"})
def argsort(be: Any, input: Any, dim: Dim = -1, descending: bool = False, *,
            stable: bool = False) -> Any:
    """Indices that sort ``input`` along ``dim`` (int64)."""
    if ordered("argsort", input).ndim == 0:
        return be.np.zeros((), dtype=dtypes.int64)
    d = dim
    return be.xp.argsort(input, axis=d, descending=descending, stable=True).astype(dtypes.int64)


@op()
def topk(be: Any, input: Any, k: int, dim: Dim = -1, largest: bool = True,
         sorted: bool = True) -> Any:  # noqa: A002
    """The ``k`` largest (or smallest) values along ``dim`` and their indices.

    >>> interop.tensor([3, 1, 2]).topk(2)
    topk(values=tensor([3, 2], backend='numpy'), indices=tensor([0, 2], backend='numpy'))
    """
    ordered("topk", input)
    d = dim
    k = int_arg("topk", "k", k)
    if not 0 <= k <= (input.shape[d] if input.ndim else 1):
        raise RuntimeError(f"topk(): selected index k={k} out of range for dimension {d} of size "
                           f"{input.shape[d] if input.ndim else 1}")
    if input.ndim == 0:  # torch: the element itself, at index 0
        return values_indices["topk"](input, be.np.zeros((), dtype=dtypes.int64))
    order = argsort(be, input, d, descending=largest)
    indices = order[(slice(None),) * d + (slice(0, k),)]
    return values_indices["topk"](_along(be, input, indices, d), indices)


@op()
def kthvalue(be: Any, input: Any, k: int, dim: Dim = -1, keepdim: bool = False) -> Any:
    """The k-th smallest value along ``dim`` and its index."""
    ordered("kthvalue", input)
    d = dim
    if input.ndim == 0:  # torch: the element itself (k must be 1), at index 0
        if k != 1:
            raise IndexError(f"kthvalue(): selected number k={k} out of range for a 0-d tensor; "
                             "k must be 1")
        return values_indices["kthvalue"](input, be.np.zeros((), dtype=dtypes.int64))
    order = argsort(be, input, d)
    index = order[(slice(None),) * d + (slice(k - 1, k),)]
    values = _along(be, input, index, d)
    if not keepdim:
        values, index = be.np.squeeze(values, axis=d), be.np.squeeze(index, axis=d)
    return values_indices["kthvalue"](values, index)


@op(out=True)
def searchsorted(be: Any, sorted_sequence: Any, values: Any, *, out_int32: bool = False,
                 right: bool = False, side: str | None = None, sorter: Any = None) -> Any:
    """Indices where ``values`` would be inserted to keep ``sorted_sequence`` sorted
    (``sorter``: the indices that sort an unsorted sequence, as from argsort)."""
    side = side or ("right" if right else "left")
    if sorter is not None:
        sorted_sequence = _take_along(be, sorted_sequence, sorter, sorted_sequence.ndim - 1)
    if sorted_sequence.ndim > 1:  # one sorted row per leading index: count what lies before
        out = be.np.sum(_before(be, sorted_sequence[..., None, :], values[..., :, None], side),
                        axis=-1)
    else:
        out = be.xp.searchsorted(sorted_sequence, values, side=side)
    return out.astype(dtypes.int32 if out_int32 else dtypes.int64)


def _before(be: Any, seq: Any, value: Any, side: str) -> Any:
    """Whether ``seq`` sorts before ``value`` (``side='right'``: or equal)."""
    return seq <= value if side == "right" else seq < value


unique_all_result = namedtuple("unique_all", ["values", "indices", "inverse_indices", "counts"])


@op(keywords={"axis": "dim"})
def unique(be: Any, input: Any, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim: Dim | None = None) -> Any:
    """Sorted unique values, optionally with inverse indices and counts."""
    if dim is not None:
        return _unique_slices(be, input, dim, return_inverse,
                              return_counts)
    flat = be.np.reshape(input, (-1,))
    if not (return_inverse or return_counts):
        return be.xp.unique_values(flat)
    values, inverse, counts = be.unique_all(flat)
    out = [values]
    if return_inverse:
        out.append(be.np.reshape(inverse.astype(dtypes.int64), tuple(input.shape)))
    if return_counts:
        out.append(counts.astype(dtypes.int64))
    return tuple(out)


def _unique_slices(be: Any, input: Any, dim: int, return_inverse: bool,
                   return_counts: bool) -> Any:
    """unique(dim=d): the distinct slices along ``d``, in lexicographic order (NumPy's
    ``unique(axis=)``, sorted as torch sorts them; ``Backend.unique_slices``)."""
    if input.ndim == 0:
        input = be.np.reshape(input, (1,))
    if any(n == 0 for d, n in enumerate(input.shape) if d != dim):
        raise RuntimeError("unique: There are 0 sized dimensions, and they aren't selected, so "
                           "unique cannot be applied; pass the empty dimension as dim")
    values, inverse, counts = be.unique_slices(input, dim)
    out = [values]
    if return_inverse:
        out.append(be.np.reshape(inverse, (-1,)).astype(dtypes.int64))
    if return_counts:
        out.append(counts.astype(dtypes.int64))
    return out[0] if len(out) == 1 else tuple(out)


@op(method=True)
def bincount(be: Any, input: Any, weights: Any = None, minlength: int = 0) -> Any:
    """Count of each non-negative integer value."""
    return be.np.bincount(input, weights=weights, minlength=minlength)


@op(method=False, out=True, keywords={"element": "elements"})
def isin(be: Any, elements: Any, test_elements: Any, *, assume_unique: bool = False,
         invert: bool = False) -> Any:
    """True where an element of ``elements`` occurs in ``test_elements``."""
    return be.np.isin(elements, test_elements, assume_unique=assume_unique, invert=invert)


@op()
def msort(be: Any, input: Any) -> Any:
    """Sort along dim 0."""
    return be.np.sort(ordered("msort", input), axis=0)

@op(method=False)
def bucketize(be: Any, input: Any, boundaries: Any, *, out_int32: bool = False,
              right: bool = False) -> Any:
    """The bucket index of each element among sorted ``boundaries``."""
    out = be.np.searchsorted(boundaries, input, side="right" if right else "left")
    return out.astype(np.int32 if out_int32 else np.int64)
