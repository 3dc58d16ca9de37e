"""Minibatches from the data's own chunks: torch's ``DataLoader`` collates a batch by stacking
``dataset[i]`` for each index (``torch.stack`` of ``x[i]``, ``x[i+1]``, ...); on a backend
without views (Dask) that is one graph per sample, thousands of tasks per batch.  A stack
whose operands are all rows of one array is that array's rows, taken at once: a slice for
consecutive indices (the order a sequential sampler gives), an integer-array selection
otherwise (a shuffled one), so the batch is one task group on the chunks that hold it."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...backends import views
from ...core.tensor import Tensor, make


def rows_taken(tensors: list[Tensor], dim: int) -> Tensor | None:
    """``stack(tensors, dim)`` as one selection of rows of a single array, where each of
    ``tensors`` is a row of it (``base[k]``) and ``dim`` is 0; else None."""
    if dim != 0 or len(tensors) < 2 or not all(isinstance(t, Tensor) for t in tensors):
        return None
    first = views.row_of(tensors[0]._raw)
    if first is None:
        return None
    base, rows = first[0], [first[1]]
    for t in tensors[1:]:
        found = views.row_of(t._raw)
        if found is None or found[0] is not base:
            return None
        rows.append(found[1])
    return _rows(base, rows)


def rows_indexed(input: Tensor, indices: Any) -> Tensor | None:
    """``input[rows]`` for one 1-d integer index on the host (a ``BatchSampler``'s list of
    indices, ``x[[4, 5, 6]]``) into an array without views: the rows taken as ``rows_taken``
    takes them.  (The general path makes the index a Dask array too, whose selection gathers
    every chunk of ``input`` into one place.)  Else None."""
    if len(indices) != 1 or not isinstance(indices[0], Tensor) or \
            type(input._raw) not in views.WITHOUT_VIEWS:
        return None
    index = indices[0]._raw
    if type(index) is not np.ndarray or index.ndim != 1 or index.dtype.kind not in "iu" or \
            not index.size or index.min() < -input._raw.shape[0] or \
            index.max() >= input._raw.shape[0]:
        return None  # (out of range: the general path raises torch's error)
    return _rows(input._raw, (index % input._raw.shape[0]).tolist())


def _rows(base: Any, rows: list[int]) -> Tensor:
    """``base``'s rows (an array without views: the result shares nothing it could write)."""
    start = rows[0]
    if rows == list(range(start, start + len(rows))):
        return make(Tensor, base[start:start + len(rows)])
    return make(Tensor, base[np.asarray(rows)])
