"""torch's less common reductions: ``hash_tensor`` (the xor of the elements' 64-bit
patterns) and ``segment_reduce`` (sum, mean, max, min or prod over consecutive segments
of given lengths or offsets along one axis).

``hash_tensor`` reduces chunk by chunk on Dask.  ``segment_reduce`` cuts along positions
that are values (the lengths), so on Dask it runs lazily on whole arrays in one task: its
result's shape is known from the lengths' shape, and the graph stays lazy.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import dtypes
from ...errors import ShapeError, UnsupportedDtypeError
from .._args import cast, whole_arrays
from ..annotations import Dim, DimOrDims
from ..registry import op
from .aggregates import _check_nonempty


# ------------------------------------------------------------------ hash_tensor
def _bit_patterns(be: Any, input: Any) -> Any:
    """Each element widened to 64 bits (float64, int64; bool and uint8 zero-extended) and
    read as uint64, as torch's hash_tensor does before its xor."""
    dt = input.dtype
    if dtypes.kind(dt) == "f":
        return input.astype(dtypes.float64).view(np.uint64)
    if dt.kind == "i":
        return input.astype(dtypes.int64).view(np.uint64)
    if dt.kind == "b" or dt == np.uint8:
        return input.astype(np.uint64)
    raise UnsupportedDtypeError(f'"xor_sum_cpu" not implemented for {dt}: hash_tensor takes '
                                "bool, uint8, signed integer and floating-point tensors; "
                                "convert others first (t.to(interop.int64), t.view_as_real())")


@op(all_dims_if_empty=True)
def hash_tensor(be: Any, input: Any, dim: DimOrDims = (), *, keepdim: bool = False,
                mode: int = 0) -> Any:
    """A uint64 hash over ``dim`` (all dims by default): mode 0, the xor of the elements'
    bit patterns widened to 64 bits (equal tensors hash equal; order does not count)."""
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}; mode 0 (xor) is the one there is")
    d = dim
    _check_nonempty("hash_tensor", input, d)
    if input.ndim == 0:  # its own hash (as 1 element: Dask views no 0-d array as another dtype)
        return be.np.reshape(_bit_patterns(be, be.np.reshape(input, (1,))), ())
    bits = _bit_patterns(be, input)
    return be.ufunc_reduce("bitwise_xor", bits, axis=d, keepdims=bool(keepdim))


# ------------------------------------------------------------------ segment_reduce
_SEGMENT_UFUNC = {"sum": "add", "mean": "add", "prod": "multiply", "max": "maximum",
                  "min": "minimum"}
_SEGMENT_EMPTY = {"sum": 0, "mean": 0, "prod": 1, "max": -math.inf, "min": math.inf}


def _check_segments(data: Any, sizes: Any, name: str, axis: int) -> None:
    """torch's checks of ``lengths``/``offsets`` against ``data`` (shapes and dtype only)."""
    if sizes.ndim > data.ndim or sizes.ndim == 0:
        raise RuntimeError(f"segment_reduce(): expected data.dim() >= {name}.dim() >= 1, got "
                           f"{data.ndim} and {sizes.ndim}")
    if axis != sizes.ndim - 1:
        raise RuntimeError(f"segment_reduce(): Expected axis to be the last dimension of {name} "
                           f"but got {axis}.")
    if tuple(sizes.shape[:-1]) != tuple(data.shape[:axis]):
        raise ShapeError(f"segment_reduce(): {name} of shape {list(sizes.shape)} does not match "
                         f"data's sizes before axis {axis}, {list(data.shape[:axis])}")
    if sizes.dtype.kind not in "iu":
        raise UnsupportedDtypeError(f"segment_reduce(): {name} must be an integer tensor, not "
                                    f"{sizes.dtype}; convert with .long()")


def _segments(be: Any, data: Any, sizes: Any, by_lengths: bool, reduce: str, axis: int,
              unsafe: bool, initial: Any) -> Any:
    """The reduction of each segment, on whole arrays: NumPy's ``reduceat`` over (start, end)
    pairs, empty segments given the reduction's identity (or ``initial``)."""
    if by_lengths and not unsafe:
        if sizes.size and bool((sizes < 0).any()):
            raise RuntimeError("lengths contains negative value!")
        if not bool((sizes.sum(axis=-1) == data.shape[axis]).all()):
            raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to sum "
                               "to data.size(lengths.dim()-1) when !unsafe.")
    lead, n, inner = data.shape[:axis], data.shape[axis], data.shape[axis + 1:]
    outer, width = math.prod(lead), math.prod(inner)
    if by_lengths:
        sizes = be.np.reshape(sizes, (outer, -1)).astype(dtypes.int64)
        zeros = be.np.zeros((outer, 1), dtype=dtypes.int64)
        offsets = be.np.concatenate([zeros, be.np.cumsum(sizes, axis=1)], axis=1)
    else:
        offsets = be.np.reshape(sizes, (outer, -1)).astype(dtypes.int64)
    count = offsets.shape[1] - 1
    shape = (*lead, count, *inner)
    if outer * count == 0:
        return be.np.zeros(shape, dtype=data.dtype)
    offsets = be.np.clip(offsets, 0, n) + be.np.arange(outer, dtype=dtypes.int64)[:, None] * n
    starts, ends = offsets[:, :-1].reshape(-1), offsets[:, 1:].reshape(-1)
    rows = be.np.concatenate([be.np.reshape(data, (outer * n, width)),
                              be.np.zeros((1, width), dtype=data.dtype)])  # ends may be the end
    ufunc = be.ufunc(_SEGMENT_UFUNC[reduce])
    reduced = ufunc.reduceat(rows, be.np.stack([starts, ends], axis=1).reshape(-1), axis=0)[::2]
    lengths = be.np.maximum(ends - starts, 0)[:, None]
    out = be.np.where(lengths > 0, reduced, cast(_SEGMENT_EMPTY[reduce], data.dtype))
    if initial is not None:
        out = ufunc(cast(initial, data.dtype), out).astype(data.dtype)
    if reduce == "mean":
        empty = math.nan if initial is None else initial
        out = be.np.where(lengths > 0, out / be.np.maximum(lengths, 1).astype(data.dtype),
                          cast(empty, data.dtype))
    return be.np.reshape(out.astype(data.dtype), shape)


@op(method=False)
def segment_reduce(be: Any, data: Any, reduce: str, *, lengths: Any = None, indices: Any = None,
                   offsets: Any = None, axis: Dim = 0, unsafe: bool = False,
                   initial: Any = None) -> Any:
    """``reduce`` (sum, mean, max, min, prod) over consecutive segments along ``axis``, given
    by ``lengths`` or ``offsets`` (shaped like data's dims before ``axis``, then one per
    segment); ``initial`` joins every segment's reduction (a mean divides by the length
    only) and is an empty segment's value.  ``unsafe=True`` skips checking the lengths
    (on Dask they are checked when the result is computed)."""
    axis = axis
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    if reduce not in _SEGMENT_UFUNC:
        raise RuntimeError(f"segment_reduce(): reduce must be one of sum, mean, max, min or "
                           f"prod, got {reduce!r}")
    if dtypes.kind(data.dtype) != "f":
        raise UnsupportedDtypeError(f'"_segment_reduce_cpu" not implemented for {data.dtype}: '
                                    "segment_reduce takes floating-point data; convert with "
                                    ".float()")
    if data.ndim == 0:
        raise RuntimeError("segment_reduce(): data must have at least one dimension")
    by_lengths = offsets is None
    sizes = lengths if by_lengths else offsets
    name = "lengths" if by_lengths else "offsets"
    _check_segments(data, sizes, name, axis)
    count = sizes.shape[-1] - (0 if by_lengths else 1)
    args = (by_lengths, reduce, axis, bool(unsafe), initial)
    shape = (*data.shape[:axis], count, *data.shape[axis + 1:])  # lazy: one task
    return whole_arrays(be, lambda b, x, s: _segments(b, x, s, *args), shape, data.dtype,
                        data, sizes)
