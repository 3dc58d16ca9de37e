"""torch.embedding_bag, the kernel behind F.embedding_bag and nn.EmbeddingBag: sums, means or
maxima of embedding rows over bags of indices, bag by bag, from take, slicing and reductions
(NumPy, CuPy and Dask, lazily).

The bags are given by ``offsets``, sizes on the host in torch (a CPU tensor; F.embedding_bag
makes them with torch.arange for a 2-D input): read as ints before the operands move onto a
Dask input's backend (``HOST_SIZES`` in interop/ops/nn/rnn.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import dtypes
from ..registry import op
from .rnn import host_sizes

MODES = ("sum", "mean", "max")


def _bounds(offsets: list[int], n: int, include_last_offset: bool) -> list[tuple[int, int]]:
    """(start, end) of each bag; ``include_last_offset``: the last offset ends the last bag
    (torch sums to it but, when it is short of the end, divides a mean by the count to the
    end: that inconsistency is not copied)."""
    ends = offsets[1:] if include_last_offset else [*offsets[1:], n]
    starts = offsets[:-1] if include_last_offset else offsets
    return [(s, min(e, n)) for s, e in zip(starts, ends)]


def _bag(be: Any, rows: Any, keep: Any, mode: str, indices: Any) -> tuple[Any, Any, Any]:
    """(value, count of kept entries, index of each maximum) for one non-empty bag."""
    count = keep.sum()
    if mode != "max":
        total = (rows * keep[:, None]).sum(axis=0)
        return (total if mode == "sum" else total / be.np.maximum(count, 1).astype(rows.dtype),
                count, None)
    masked = be.np.where(keep[:, None], rows, rows.dtype.type(-np.inf))
    arg = be.np.argmax(masked, axis=0)
    value = be.np.where(count > 0, be.np.max(masked, axis=0), rows.dtype.type(0))
    return value, count, be.np.where(count > 0, indices[arg], 0)


def _offset2bag(bounds: list[tuple[int, int]], n: int) -> np.ndarray:
    """The bag of each index position (host sizes, so a host array)."""
    bag_of = np.repeat(np.arange(len(bounds)), [e - s for s, e in bounds])
    return np.pad(bag_of, (0, n - len(bag_of)))


@op(function=False, method=False, torch=("torch.embedding_bag",))
def embedding_bag(be: Any, weight: Any, input: Any, offsets: Any, scale_grad_by_freq: bool = False,
                  mode: int = 0, sparse: bool = False, per_sample_weights: Any = None,
                  include_last_offset: bool = False, padding_idx: int | None = None) -> tuple:
    """(output, offset2bag, bag_size, max_indices) as torch's CPU kernel returns them (the last
    three are what its backward reads: in sum mode bag sizes are 0, and without padding_idx
    offset2bag is empty;
    max_indices is bag_size but in max mode)."""
    name = MODES[mode]
    if input.ndim != 1 or weight.ndim != 2:
        raise ValueError(f"embedding_bag: expected 1-D indices and a 2-D weight, got "
                         f"{input.ndim}-D and {weight.ndim}-D")
    if input.dtype.kind not in "iu":
        raise RuntimeError(f"embedding_bag: expected indices of an integer type, got {input.dtype}")
    bounds = _bounds(host_sizes(offsets, "embedding_bag offsets"), input.shape[0],
                     include_last_offset)
    rows = be.np.take(weight, input, axis=0)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights[:, None]
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]  # -1: the last row, as torch counts it
    keep = be.np.ones(input.shape, dtype=bool) if padding_idx is None else input != padding_idx
    zero_row = be.np.zeros(weight.shape[1:], dtype=weight.dtype)
    zero_index = be.np.zeros(weight.shape[1:], dtype=dtypes.int64)
    values, counts, maxima = [], [], []
    for s, e in bounds:
        if s >= e:
            values.append(zero_row)
            counts.append(be.np.zeros((), dtype=dtypes.int64))
            maxima.append(zero_index)
            continue
        value, count, arg = _bag(be, rows[s:e], keep[s:e], name, input[s:e])
        values.append(value)
        counts.append(count.astype(dtypes.int64))
        maxima.append(arg if arg is not None else zero_index)
    offset2bag = be.np.asarray(_offset2bag(bounds, input.shape[0])
                               if name != "sum" or padding_idx is not None else np.zeros(0, np.int64))
    bag_size = be.np.stack(counts) if name != "sum" else be.np.zeros(len(bounds), dtypes.int64)
    max_indices = be.np.stack(maxima).astype(dtypes.int64) if name == "max" else bag_size
    return be.np.stack(values) if values else be.np.zeros((0, weight.shape[1]), weight.dtype), \
        offset2bag, bag_size, max_indices
