"""Indexing and selection: ``t[i]``, ``t[i] = v``, where, gather, index_select, nonzero.

Basic indexing returns views on NumPy and CuPy (an integer index gives a 0-d
view, not a copied scalar, so ``t[0].add_(1)`` writes through as in torch).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import dtypes
from ...backends import registry, views
from ...errors import IndexOutOfRangeError, InvalidIndexError, NumberOverflowError, ShapeError
from .._args import cast, int_arg, kept_scalars, open_grids, promote, whole_arrays
from ..annotations import Dim
from ..registry import op


def _check_index(input: Any, index: Any, name: str) -> None:
    """torch's IndexErrors for integer indices, named after ``name`` and with the valid range."""
    items = index if isinstance(index, tuple) else (index,)
    dim = 0
    for item in items:
        if isinstance(item, bool) or item is None or item is Ellipsis:
            return
        if isinstance(item, (str, bytes, float, complex)):
            raise InvalidIndexError(
                f"{name}: only integers, slices (`:`), ellipsis (`...`), None and integer or "
                f"boolean tensors are valid indices (got {type(item).__name__}); convert the "
                "index with int(...) or interop.tensor(..., dtype=interop.int64)")
        if isinstance(item, int):
            if not -2 ** 63 <= item < 2 ** 63:  # NumPy: OverflowError; torch: ValueError
                raise NumberOverflowError(f"{name}: index {item} is beyond 64 bits (torch: "
                                          "Overflow when unpacking long long); pass an index "
                                          "within the tensor's sizes")
            if dim >= input.ndim:
                raise IndexError(f"{name}: too many indices for tensor of dimension {input.ndim}; "
                                 f"pass at most {input.ndim} indices")
            size = input.shape[dim]
            if not -size <= item < size:
                raise IndexError(f"{name}: index {item} is out of bounds for dimension {dim} with "
                                 f"size {size}; valid indices are {-size} to {size - 1}")
        dim += 1


_BOUNDS = frozenset({int, type(None)})


@op("__getitem__", function=False, method="__getitem__",
    torch=("torch.Tensor.__getitem__",))
def getitem(be: Any, input: Any, index: Any) -> Any:
    """t[index]: basic (views), advanced (copies) and boolean indexing."""
    if type(index) is slice and type(index.start) in _BOUNDS and type(index.stop) in _BOUNDS \
            and type(index.step) in _BOUNDS:
        return be.view_at(input, index)  # t[1:3]: a view, nothing to check or convert
    index = _integer_items(index, "t[index]")
    _check_index(input, index, "t[index]")
    split = _advanced_split(be, index)
    if split is not None:
        basic, rest = split
        selected = input if basic is None else input[basic]  # a copy follows: no view kept
        try:
            return be.advanced_index(selected,
                                     be.checked_index(rest, selected.shape, "t[index]"))
        except IndexError as exc:
            raise _index_error("t[index]", exc) from None
    try:
        return be.select(input, index, "t[index]")
    except IndexError as exc:
        raise _index_error("t[index]", exc) from None


@op("__setitem__", function=False, method="__setitem__",
    torch=("torch.Tensor.__setitem__",), writes=True)
def setitem(be: Any, input: Any, index: Any, value: Any) -> None:
    """t[index] = value, written through to t's own buffer (values cast to t's dtype)."""
    views.check_writable(input, "t[index] = value")
    index = _integer_items(index, "t[index] = value")
    _check_index(input, index, "t[index] = value")
    if getattr(value, "dtype", None) is not None and value.dtype != input.dtype:
        value = value.astype(input.dtype)
    elif type(value) in (int, float, complex):  # checked as torch does: it must fit the dtype
        (value,) = kept_scalars("t[index] = value", input.dtype, value)
    elif isinstance(value, (list, tuple)):  # converted whole first: NumPy would write the
        value = be.np.asarray(value, dtype=input.dtype)  # leading entries, then fail on a bad one
    split = _advanced_split(be, index)
    if split is not None and (split[0] is not None or not _lone(split[1])):
        basic, rest = split
        target = input if basic is None else be.view_at(input, basic)  # writes reach input
        try:
            be.advanced_assign(target, be.checked_index(rest, target.shape, "t[index] = value"),
                               value)
        except IndexError as exc:
            raise _index_error("t[index] = value", exc) from None
        views.written(target)
        return
    if getattr(index, "dtype", None) == np.bool_ and be.assign_masked(input, index, value):
        views.written(input)  # values of unknown size, lazily
        return
    try:
        be.write_at(input, index, value, "t[index] = value")
    except IndexError as exc:
        raise _index_error("t[index] = value", exc) from None
    views.written(input)


def _advanced_split(be: Any, index: Any) -> tuple[tuple | None, tuple] | None:
    """torch's order for index tensors beside integers: ``(basic, rest)``, where
    ``t[index]`` is ``t[basic][rest]`` (basic None: ``index`` itself, with no integer, None
    or bool); None where ``index`` has no index array.

    torch applies integers (select), slices and None first, then the index tensors
    (lists too) with NumPy's rule on what remains: broadcast together, their
    dimensions in place when adjacent, else first.  NumPy counts integers as index
    arrays, so ``t[0, :, i]`` differs (NumPy puts ``i``'s dimension first).  Splitting
    also hands the backend only slices and arrays: Dask then indexes with several
    arrays, or an n-d one (``Backend.advanced_index``).
    """
    items = index if isinstance(index, tuple) else (index,)
    if not any(isinstance(i, list) or getattr(i, "ndim", 0) for i in items):
        return None
    items = tuple(_index_array(be, i) if isinstance(i, list) else i for i in items)
    if all(_is_index_array(i) or i is Ellipsis or _whole(i) for i in items):
        return None, items
    basic, rest = [], []
    for i in items:
        if _is_index_array(i):
            basic += [slice(None)] * (i.ndim if i.dtype == bool else 1)
            rest.append(i)
        elif i is None or i is Ellipsis or type(i) is slice or isinstance(i, bool) \
                or getattr(i, "dtype", None) == np.bool_:  # a 0-d mask, as True or False
            basic.append(i)  # None, True and False add a dimension, a slice keeps one
            rest.append(Ellipsis if i is Ellipsis else slice(None))
        else:
            basic.append(i)  # an integer: its dimension goes
    return tuple(basic), tuple(rest)


def _is_index_array(item: Any) -> bool:
    """An index array: of 1 or more dimensions, or a lazy 0-d integer one (kept lazy by
    ``_integer_items``, it selects as an integer would, ``Backend.advanced_index``)."""
    ndim = None if isinstance(item, np.generic) else getattr(item, "ndim", None)
    return bool(ndim) or ndim == 0 and item.dtype.kind in "iu"


def _whole(item: Any) -> bool:
    return type(item) is slice and item.start is None and item.stop is None \
        and item.step in (None, 1)


def _lone(items: tuple) -> bool:
    """One array among slices that the backend assigns through as it is (or, on Dask, with
    values of unknown size: ``Backend.assign_masked``)."""
    arrays = [i for i in items if _is_index_array(i)]
    return len(arrays) == 1 and (arrays[0].ndim == 1 or arrays[0].dtype == bool)


def _index_array(be: Any, items: list) -> Any:
    """A list in an index is an index tensor, as in torch (an empty one of integers)."""
    array = be.index_array(items)
    return array.astype(np.int64) if array.dtype.kind == "f" and array.size == 0 else array


def _integer_items(index: Any, name: str) -> Any:
    """0-d integer tensors in ``index`` (also as slice bounds) as Python ints, as torch takes
    them: the result is a view, not a copy.  A lazy one is a value read, through the
    ``dask_compute`` gate, except beside index arrays: the result is a copy then, and the
    0-d tensor stays an index array, selecting lazily (``_advanced_split``)."""
    items = index if isinstance(index, tuple) else (index,)
    if not any(_is_0d_integer(i) or type(i) is slice and any(
            _is_0d_integer(b) for b in (i.start, i.stop, i.step)) for i in items):
        return index
    lazy_kept = any(isinstance(i, list) or getattr(i, "ndim", 0) for i in items)
    ints = tuple(slice(*(_as_int(b, name) if _is_0d_integer(b) else b
                         for b in (i.start, i.stop, i.step))) if type(i) is slice
                 else _as_int(i, name) if _is_0d_integer(i) and not (lazy_kept and _unread(i))
                 else i for i in items)
    return ints if isinstance(index, tuple) else ints[0]


def _unread(item: Any) -> bool:
    """True for a 0-d tensor whose value reading it would compute (``Backend.peek``)."""
    be = registry.backend_of(item)
    return be is not None and be.peek(item) is None


def _is_0d_integer(item: Any) -> bool:
    item = getattr(item, "raw", item)  # slice bounds hold tensors as they were given
    return getattr(item, "ndim", None) == 0 and getattr(item.dtype, "kind", "") in "iu"


def _as_int(item: Any, name: str) -> int:
    item = getattr(item, "raw", item)
    be = registry.backend_of(item)
    if be is not None:  # a lazy one: a value read, through the dask_compute gate
        item = be.to_host(item, f"{name} with a lazy 0-d index tensor")
    return int(item)


def _index_error(name: str, exc: IndexError) -> IndexError:
    """The backend's IndexError for an array or boolean index, named and with the fix."""
    return IndexOutOfRangeError(f"{name}: {exc}; integer indices along a dimension of size n "
                                "must lie in [-n, n-1], a boolean mask must have the shape of "
                                "the dimensions it selects")


@op(out=True)
def index_select(be: Any, input: Any, dim: Dim, index: Any) -> Any:
    """The entries at ``index`` (a 1-d integer tensor) along ``dim``.

    >>> t = interop.tensor([[1, 2], [3, 4]])
    >>> interop.index_select(t, 0, interop.tensor([1]))
    tensor([[3, 4]], backend='numpy')
    """
    d = dim
    if getattr(index, "ndim", 1) > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if input.ndim == 0:  # torch: a 0-d input gives a 0-d result
        return be.np.reshape(be.np.take(be.np.reshape(input, (1,)), index, axis=0), ())
    return be.np.take(input, index, axis=d)


def _take_along(be: Any, input: Any, index: Any, d: int) -> Any:
    return be.np.take_along_axis(input, index, axis=d)


@op(out=True)
def gather(be: Any, input: Any, dim: Dim, index: Any, *, sparse_grad: bool = False) -> Any:
    """out[i][j] = input[i][index[i][j]] for dim=1 (and likewise for other dims).

    >>> t = interop.tensor([[1, 2], [3, 4]])
    >>> interop.gather(t, 1, interop.tensor([[0, 0], [1, 0]]))
    tensor([[1, 1],
            [4, 3]], backend='numpy')
    """
    d = dim
    if index.size == 0:  # torch accepts an empty index of any shape
        return be.np.zeros(index.shape, dtype=input.dtype)
    if input.ndim == 0 and index.ndim <= 1:  # a 0-d input is a 1-element vector to torch
        return be.np.reshape(be.np.take(be.np.reshape(input, (1,)), index, axis=0), index.shape)
    if index.ndim != input.ndim:
        raise RuntimeError("gather(): Index tensor must have the same number of dimensions as "
                           "input tensor")
    if tuple(index.shape) != tuple(input.shape):
        slices = tuple(slice(0, s) if i != d else slice(None) for i, s in enumerate(index.shape))
        input = input[slices]
    try:
        return _take_along(be, input, index, d)
    except IndexError as exc:  # torch says RuntimeError here, NumPy IndexError: both catch it
        raise IndexOutOfRangeError(f"gather(): {exc}; index values along dim {d} must lie in "
                                   f"[0, {input.shape[d] - 1}]") from None


@op(aliases=("take_along_axis",), method=True)
def take_along_dim(be: Any, input: Any, indices: Any, dim: Dim | None = None) -> Any:
    """Select along ``dim`` with ``indices`` broadcast against ``input``."""
    if dim is None:
        return be.np.take(be.np.reshape(input, (-1,)), be.np.reshape(indices, (-1,)))
    d = dim
    return _take_along(be, input, indices, d)


@op(keywords={"indices": "index"})
def take(be: Any, input: Any, index: Any) -> Any:
    """Entries of the flattened tensor at ``index``."""
    return be.np.take(be.np.reshape(input, (-1,)), index)


@op(out=True)
def where(be: Any, condition: Any, input: Any = None, other: Any = None) -> Any:
    """``input`` where ``condition`` holds, else ``other``; with one argument, nonzero(as_tuple).

    >>> t = interop.tensor([1, 2, 3])
    >>> interop.where(t > 1, t, 0)
    tensor([0, 2, 3], backend='numpy')
    """
    if input is None and other is None:
        return tuple(x.astype(dtypes.int64) for x in be.np.nonzero(condition))
    dt = dtypes.result_type(input, other)
    a, b = promote(*kept_scalars("where", dt, input, other))
    if not hasattr(a, "dtype") and not hasattr(b, "dtype"):  # two numbers: torch's dtype for
        a = be.asarray(a, dtype=dt, device=be.device_of(condition))  # them (the default float)
    a, b = (be.asarray(x, device=be.device_of(condition)) if isinstance(x, np.generic) else x
            for x in (a, b))  # NumPy scalars: arrays of the backend (the standard takes no others)
    if be.dtype_of(condition) != dtypes.bool:
        condition = be.astype(condition, dtypes.bool)
    return be.np.where(condition, a, b)


@op(out=True)
def nonzero(be: Any, input: Any, *, as_tuple: bool = False) -> Any:
    """Indices of nonzero elements: an (n, ndim) int64 tensor, or a tuple per dimension."""
    if input.ndim == 0:  # torch: as a 1-element vector; no coordinates per hit
        hits = be.np.nonzero(be.np.reshape(input, (1,)))[0].astype(dtypes.int64)
        return (hits,) if as_tuple else hits[:, None][:, :0]
    if input.ndim > 1 and not as_tuple:  # (Dask could not stack its per-dimension indices:
        return be.np.argwhere(input).astype(dtypes.int64)  # their lengths are NaN)
    idx = [x.astype(dtypes.int64) for x in be.np.nonzero(input)]
    if as_tuple:
        return tuple(idx)
    return be.np.stack(idx, axis=1) if idx else be.np.zeros((0, 0), dtype=dtypes.int64)


def _nonzero_static(be: Any, input: Any, size: int, fill_value: int) -> Any:
    hits = be.np.argwhere(input)[:size]  # (hits, ndim), in row-major order; 0-d: (hits, 0)
    out = be.np.full((size, input.ndim), fill_value, dtype=dtypes.int64)
    return be.updated(out, slice(0, hits.shape[0]), hits)


@op(method=True)
def nonzero_static(be: Any, input: Any, *, size: int, fill_value: int = -1) -> Any:
    """The first ``size`` rows of ``nonzero(input)``, padded with ``fill_value``: a shape
    known before the values are (so Dask builds it lazily, in one task)."""
    size = int_arg("nonzero_static", "size", size)
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, got {size}")
    if type(fill_value) is not int:
        fill_value = int_arg("nonzero_static", "fill_value", fill_value)
    (fill_value,) = kept_scalars("nonzero_static", dtypes.int64, fill_value)
    shape = (size, input.ndim)  # lazy: one task
    return whole_arrays(be, _nonzero_static, shape, dtypes.int64, input, size, fill_value)


@op(inplace=True)
def masked_fill(be: Any, input: Any, mask: Any, value: Any) -> Any:
    """``value`` where ``mask`` is True, ``input`` elsewhere (dtype of ``input``).

    >>> t = interop.tensor([1.0, 2.0, 3.0])
    >>> t.masked_fill(t > 1, -1.0)
    tensor([ 1., -1., -1.], backend='numpy')
    """
    if getattr(mask, "dtype", None) != dtypes.bool:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{getattr(mask, 'dtype', type(mask).__name__)}")
    if getattr(value, "ndim", 0) != 0:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s); pass a number or a 0-d tensor")
    if getattr(value, "dtype", input.dtype).kind == "c" and input.dtype.kind != "c":
        value = registry.python_value(value, "masked_fill(): a complex value into a real tensor")
    (value,) = kept_scalars("masked_fill", input.dtype, value)
    return be.np.where(mask, cast(value, input.dtype), input).astype(input.dtype)


@op()
def masked_select(be: Any, input: Any, mask: Any) -> Any:
    """The elements where ``mask`` is True, as a 1-d tensor."""
    a, m = be.np.broadcast_arrays(input, mask)
    return be.np.reshape(a, (-1,))[be.np.reshape(m, (-1,))]  # 1-d, so 0-d operands too on Dask


@op(inplace=True, method=True)
def index_add(be: Any, input: Any, dim: Dim, index: Any, source: Any, alpha: Any = 1) -> Any:
    """Add ``alpha * source`` into ``input`` at ``index`` along ``dim`` (duplicates accumulate)."""
    d = dim
    _check_index_source(input, d, index, source)
    if input.ndim == 0:  # torch: a 0-d input is one element along dim 0
        return index_add(be, input[None], 0, be.np.reshape(index, (-1,)),
                         be.np.reshape(source, (-1,)), alpha)[0]
    return whole_arrays(be, _index_added, tuple(input.shape), input.dtype, input, d, index,
                        source, alpha)  # lazy: one task


def _index_added(be: Any, input: Any, d: int, index: Any, source: Any, alpha: Any) -> Any:
    moved = be.np.moveaxis(input.copy(), d, 0)
    src = be.np.moveaxis(source if alpha == 1 else source * alpha, d, 0).astype(input.dtype)
    return be.np.moveaxis(be.updated(moved, index, src, "add"), 0, d)


def _check_index_source(input: Any, d: int, index: Any, source: Any) -> None:
    """torch's checks of ``index_add``'s source shape, made before anything is written
    (sizes a lazy array does not know yet, NaN, are left to the graph)."""
    if source.ndim != input.ndim or any(s != n and s == s and n == n for i, (s, n) in
                                        enumerate(zip(source.shape, input.shape)) if i != d):
        raise ShapeError(f"source tensor shape must match self tensor shape, excluding the "
                         f"specified dimension. Got self.shape = {list(input.shape)} "
                         f"source.shape = {list(source.shape)}")
    count = math.prod(index.shape)
    if input.ndim and count == count and source.shape[d] == source.shape[d] \
            and source.shape[d] != count:
        raise ShapeError(f"index_add_(): Number of indices ({count}) should be equal to "
                         f"source.size(dim): ({source.shape[d]}), for dim: {d}")


@op(inplace=True, method=True)
def scatter(be: Any, input: Any, dim: Dim, index: Any, src: Any = None, value: Any = None, *,
            reduce: str | None = None) -> Any:
    """Write ``src`` (or ``value``) into a copy of ``input`` at ``index`` along ``dim``."""
    d = dim
    if getattr(src, "dtype", input.dtype) != input.dtype:
        raise RuntimeError(f"scatter(): Expected self.dtype to be equal to src.dtype, got "
                           f"{input.dtype} and {src.dtype}; convert src with .to(self.dtype)")
    if input.ndim == 0:  # torch: a 0-d input is one element along dim 0
        src = be.np.reshape(src, (-1,)) if getattr(src, "ndim", None) is not None else src
        return scatter(be, input[None], 0, be.np.reshape(index, (-1,)), src, value,
                       reduce=reduce)[0]
    return whole_arrays(be, _scattered, tuple(input.shape), input.dtype, input, d, index, src,
                        value, reduce)  # lazy: one task


def _scattered(be: Any, input: Any, d: int, index: Any, src: Any, value: Any,
               reduce: str | None) -> Any:
    out = input.copy()
    values = src if src is not None else value
    if getattr(values, "shape", None) is not None and tuple(values.shape) != tuple(index.shape):
        values = values[tuple(slice(0, s) for s in index.shape)]
    values = cast(values, input.dtype) if hasattr(values, "dtype") else \
        be.np.asarray(values, dtype=input.dtype)  # torch casts a value first: 2.5 -> 2 for ints
    values = be.np.broadcast_to(values, tuple(index.shape))
    grids = open_grids(be, tuple(index.shape))
    grids[d] = index
    if reduce in (None, "add", "multiply"):
        try:  # (bounds checked first where the library's indexing wraps around: CuPy)
            be.checked_index((slice(None),) * d + (index,), tuple(out.shape), "scatter()")
            out = be.updated(out, tuple(grids), values, reduce)
        except IndexError as exc:  # (a copy: nothing written) NumPy's words, torch's class too
            raise IndexOutOfRangeError(f"scatter(): {exc}; indices along dim {d} must be in "
                                       f"[0, {input.shape[d]})") from None
    else:
        raise RuntimeError(f"scatter: reduce argument must be either 'add' or 'multiply', got "
                           f"{reduce!r}")
    return out


@op(inplace=True, method=True)
def scatter_add(be: Any, input: Any, dim: Dim, index: Any, src: Any) -> Any:
    """Add ``src`` into a copy of ``input`` at ``index`` along ``dim``."""
    return scatter(be, input, dim, index, src, reduce="add")


@op()
def argwhere(be: Any, input: Any) -> Any:
    """(n, ndim) int64 indices of the nonzero elements."""
    if input.size == 0:  # no elements, no indices: a known size (Dask's argwhere fails there)
        return be.np.zeros((0, input.ndim), dtype=dtypes.int64)
    if input.ndim == 0:  # (n, 0): found as one element's, without its column
        return be.np.argwhere(be.np.reshape(input, (1,)))[:, :0].astype(dtypes.int64)
    return be.np.argwhere(input).astype(dtypes.int64)
