"""Minibatches from the data's own chunks: torch's ``DataLoader`` collates a batch by stacking
``dataset[i]`` for each index (``torch.stack`` of ``x[i]``, ``x[i+1]``, ...); on a backend
without views (Dask) that is one graph per sample, thousands of tasks per batch.  A stack
whose operands are all rows of one array is that array's rows, taken at once: a slice for
consecutive indices (the order a sequential sampler gives), an integer-array selection
otherwise (a shuffled one), so the batch is one task group on the chunks that hold it."""

from __future__ import annotations

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
    start = rows[0]
    if rows == list(range(start, start + len(rows))):
        return make(Tensor, base[start:start + len(rows)])  # an array without views: a copy
    return make(Tensor, base[np.asarray(rows)])
