"""Out-of-place writes torch names as functions: index_copy/index_fill/index_put/put,
masked_scatter, select/slice/diagonal_scatter, scatter_reduce and index_reduce (each with
its in-place ``*_`` method where torch has one).

Each writes into a copy of ``input`` with NumPy-style item assignment and ``ufunc.at``
(NumPy, CuPy).  Dask cannot scatter chunk by chunk: there the same code runs lazily on
whole arrays in one task (``whole_arrays``), exact but not parallel.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ... import dtypes
from .._args import cast, open_grids, whole_arrays
from ..annotations import Dim
from ..registry import op

_REDUCE = {"sum": "add", "mean": "add", "prod": "multiply", "amax": "maximum", "amin": "minimum"}


def _written(be: Any, impl: Callable[..., Any], input: Any, *args: Any,
             shape: tuple | None = None) -> Any:
    """``impl(be, input, *args)`` (writes into a copy of ``input``); on Dask, one lazy task."""
    return whole_arrays(be, impl, shape or tuple(input.shape), input.dtype, input, *args)


def _identity(dtype: Any, reduce: str) -> Any:
    """The value that leaves ``reduce`` unchanged (include_self=False starts from it)."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "b":
        return reduce == "amin"
    info = np.iinfo(dtype) if dtype.kind in "iu" else None
    if reduce == "amax":
        return info.min if info else -np.inf
    return info.max if info else np.inf


def _reduce_into(be: Any, out: Any, where: Any, values: Any, reduce: str,
                 include_self: bool) -> Any:
    """Reduce ``values`` into ``out[where]`` (duplicates combine), as torch's scatter_reduce:
    ``include_self=False`` ignores ``out``'s old values where something lands; ``mean``
    divides by the count (floor division for integers)."""
    if not include_self:
        out = be.updated(out, where, _identity(out.dtype, reduce))
    out = be.updated(out, where, values, _REDUCE[reduce])
    if reduce == "mean":
        count = be.np.full(out.shape, 1 if include_self else 0, dtype=dtypes.int64)
        count = be.np.maximum(be.updated(count, where, 1, "add"), 1)
        out = (out // count if out.dtype.kind in "iub" else out / count).astype(out.dtype)
    return out


def _along(index: Any, dim: int, ndim: int) -> tuple:
    """The index tuple selecting ``index`` along ``dim``, everything along the others."""
    return (slice(None),) * dim + (index,) + (slice(None),) * (ndim - dim - 1)


def _source_dtype(source: Any, dtype: Any) -> Any:
    return cast(source, dtype) if getattr(source, "dtype", None) is not None else source


# ------------------------------------------------------------------ along one dim
def _index_copy(be: Any, input: Any, dim: int, index: Any, source: Any) -> Any:
    out = be.np.array(input, copy=True)
    if input.ndim == 0:
        return be.updated(out, ..., be.np.reshape(source, ()))
    return be.updated(out, _along(index, dim, input.ndim), _source_dtype(source, input.dtype))


@op(inplace=True)
def index_copy(be: Any, input: Any, dim: Dim, index: Any, source: Any) -> Any:
    """``source``'s slices written at ``index`` along ``dim`` of a copy of ``input``."""
    d = dim or 0
    return _written(be, _index_copy, input, d, index, source)


def _index_fill(be: Any, input: Any, dim: int, index: Any, value: Any) -> Any:
    out = be.np.array(input, copy=True)
    target = out[None] if input.ndim == 0 else out
    target = be.updated(target, _along(index, dim, target.ndim), _source_dtype(value, input.dtype))
    return be.np.reshape(target, input.shape)


@op(inplace=True)
def index_fill(be: Any, input: Any, dim: Dim, index: Any, value: Any) -> Any:
    """``value`` (a number or 0-d tensor) at ``index`` along ``dim`` of a copy of ``input``."""
    if getattr(value, "ndim", 0) != 0:
        raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s); pass a number")
    d = dim or 0
    return _written(be, _index_fill, input, d, index, value)


def _index_reduce(be: Any, input: Any, dim: int, index: Any, source: Any, reduce: str,
                  include_self: bool) -> Any:
    out = be.np.array(input, copy=True)
    target = out[None] if input.ndim == 0 else out
    src = be.np.reshape(source, (1,)) if input.ndim == 0 else source
    moved = _reduce_into(be, be.np.moveaxis(target, dim, 0), index,
                         be.np.moveaxis(_source_dtype(src, input.dtype), dim, 0), reduce,
                         include_self)
    return be.np.reshape(be.np.moveaxis(moved, 0, dim), input.shape)


@op(inplace=True)
def index_reduce(be: Any, input: Any, dim: Dim, index: Any, source: Any, reduce: str, *,
                 include_self: bool = True) -> Any:
    """Reduce (prod, mean, amax, amin) ``source``'s slices into ``input`` at ``index``."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    d = dim or 0
    return _written(be, lambda b, x, d, i, s: _index_reduce(b, x, d, i, s, reduce, include_self), input, d,
                    index, source)


def _scatter_reduce(be: Any, input: Any, dim: int, index: Any, src: Any, reduce: str,
                    include_self: bool) -> Any:
    out = be.np.array(input, copy=True)
    target = out[None] if input.ndim == 0 else out
    index = be.np.reshape(index, (-1,)) if input.ndim == 0 else index
    src = be.np.reshape(src, (-1,)) if input.ndim == 0 else src
    if index.size == 0:
        return out
    src = src[tuple(slice(0, s) for s in index.shape)]
    grids = open_grids(be, tuple(index.shape))
    grids[dim] = index
    target = _reduce_into(be, target, tuple(grids), _source_dtype(src, input.dtype), reduce,
                          include_self)
    return be.np.reshape(target, input.shape)


@op(inplace=True)
def scatter_reduce(be: Any, input: Any, dim: Dim, index: Any, src: Any, reduce: str, *,
                   include_self: bool = True) -> Any:
    """Reduce (sum, prod, mean, amax, amin) ``src`` into ``input`` at ``index`` along ``dim``."""
    if reduce not in _REDUCE:  # checked now: on Dask the task would fail later, the target lost
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    d = dim or 0
    return _written(be, lambda b, x, d, i, s: _scatter_reduce(b, x, d, i, s, reduce, include_self), input, d,
                    index, src)


# ------------------------------------------------------------------ flat and masked
def _put(be: Any, input: Any, index: Any, source: Any, accumulate: bool) -> Any:
    out = be.np.array(input, copy=True)
    flat = be.np.reshape(out, (-1,))  # a view of the fresh copy
    values = be.np.reshape(_source_dtype(source, input.dtype), (-1,))
    index = be.np.reshape(index, (-1,))
    return be.np.reshape(be.updated(flat, index, values, "add" if accumulate else None),
                         input.shape)


@op(inplace=True, keywords={"ind": "index", "v": "source"})
def put(be: Any, input: Any, index: Any, source: Any, accumulate: bool = False) -> Any:
    """``source`` written (or added) at flat positions ``index`` of a copy of ``input``."""
    return _written(be, lambda b, x, i, s: _put(b, x, i, s, accumulate), input, index, source)


def _index_put(be: Any, input: Any, values: Any, *indices: Any, accumulate: bool) -> Any:
    out = be.np.array(input, copy=True)
    where = tuple(slice(None) if i is None else i for i in indices)
    if accumulate:
        where = tuple(be.np.nonzero(i)[0] if getattr(i, "dtype", None) == np.bool_ else i
                      for i in where)
    return be.updated(out, where, _source_dtype(values, input.dtype), "add" if accumulate else None)


@op(inplace=True)
def index_put(be: Any, input: Any, indices: Any, values: Any, accumulate: bool = False) -> Any:
    """``input[indices] = values`` (or ``+=`` with ``accumulate``) on a copy of ``input``."""
    return _written(be, lambda b, i, v, *idx: _index_put(b, i, v, *idx, accumulate=accumulate),
                    input, values, *indices)


def _masked_scatter(be: Any, input: Any, mask: Any, source: Any) -> Any:
    out, m = be.np.broadcast_arrays(input, mask)
    out = be.np.array(out, copy=True)
    n = int(be.np.count_nonzero(m))
    if n > source.size:
        raise RuntimeError(f"masked_scatter: the mask selects {n} elements but source has only "
                           f"{source.size}; pass a source with at least as many elements")
    return be.updated(out, m, be.np.reshape(source, (-1,))[:n].astype(input.dtype))


@op(inplace=True)
def masked_scatter(be: Any, input: Any, mask: Any, source: Any) -> Any:
    """Where ``mask`` is True, ``source``'s elements in order; elsewhere ``input``."""
    if getattr(mask, "dtype", None) != dtypes.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {getattr(mask, 'dtype', type(mask).__name__)}")
    shape = tuple(np.broadcast_shapes(tuple(input.shape), tuple(mask.shape)))
    return _written(be, _masked_scatter, input, mask, source, shape=shape)


# ------------------------------------------------------------------ views written back
def _slice_scatter(be: Any, input: Any, src: Any, where: tuple) -> Any:
    return be.updated(be.np.array(input, copy=True), where, _source_dtype(src, input.dtype))


@op()
def select_scatter(be: Any, input: Any, src: Any, dim: Dim, index: int) -> Any:
    """A copy of ``input`` with ``src`` written at ``input.select(dim, index)``."""
    d = dim
    return _written(be, _slice_scatter, input, src, _along(index, d, input.ndim))


@op()
def slice_scatter(be: Any, input: Any, src: Any, dim: Dim = 0, start: int | None = None,
                  end: int | None = None, step: int = 1) -> Any:
    """A copy of ``input`` with ``src`` written at ``input[start:end:step]`` along ``dim``."""
    d = dim
    return _written(be, _slice_scatter, input, src,
                    _along(slice(start, end, step), d, input.ndim))


def _diagonal_scatter(be: Any, input: Any, src: Any, offset: int, d1: int, d2: int) -> Any:
    out = be.np.array(input, copy=True)
    view = be.np.moveaxis(out, (d1, d2), (-2, -1))
    n = src.shape[-1] if src.ndim else 0
    steps = be.np.arange(n)
    rows, cols = (steps, steps + offset) if offset >= 0 else (steps - offset, steps)
    view = be.updated(view, (..., rows, cols), _source_dtype(src, input.dtype))
    return be.np.moveaxis(view, (-2, -1), (d1, d2))


@op()
def diagonal_scatter(be: Any, input: Any, src: Any, offset: int = 0, dim1: Dim = 0,
                     dim2: Dim = 1) -> Any:
    """A copy of ``input`` with ``src`` written on the diagonal (``offset``, ``dim1``,
    ``dim2``), the inverse of ``torch.diagonal``."""
    d1 = dim1
    d2 = dim2
    return _written(be, lambda b, i, s: _diagonal_scatter(b, i, s, offset, d1, d2), input, src)


# ------------------------------------------------------------------ torch's masked indexing
def _clamped(be: Any, input: Any, indices: Any) -> tuple:
    """Indices clamped into range (the masked-off ones may point anywhere)."""
    return tuple(slice(None) if i is None else
                 be.np.clip(i, -input.shape[d], input.shape[d] - 1)
                 for d, i in enumerate(indices))


@op("_unsafe_masked_index", method=False,
    torch=("torch._unsafe_masked_index",))
def unsafe_masked_index(be: Any, input: Any, mask: Any, indices: Any, fill: Any) -> Any:
    """``input[indices]`` where ``mask`` holds, ``fill`` elsewhere (torch's decomposition
    helper for padding and interpolation)."""
    probe = np.broadcast_to(np.empty((), input.dtype), tuple(input.shape))[tuple(
        slice(None) if i is None else np.zeros(tuple(i.shape), np.int64) for i in indices)]
    shape = tuple(np.broadcast_shapes(probe.shape, tuple(mask.shape)))  # Dask needs it ahead
    return _written(be, _masked_index, input, mask, fill, *indices, shape=shape)


def _masked_index(be: Any, input: Any, mask: Any, fill: Any, *indices: Any) -> Any:
    picked = input[_clamped(be, input, indices)]
    return be.np.where(mask, picked, cast(fill, input.dtype)).astype(input.dtype)


@op("_unsafe_masked_index_put_accumulate", method=False,
    torch=("torch._unsafe_masked_index_put_accumulate",))
def unsafe_masked_index_put_accumulate(be: Any, input: Any, mask: Any, indices: Any,
                                       values: Any) -> Any:
    """``input[indices] += values`` where ``mask`` holds (the others add nothing)."""
    kept = be.np.where(mask, values, be.np.zeros((), dtype=values.dtype))
    return index_put(be, input, _clamped(be, input, indices), kept, accumulate=True)
