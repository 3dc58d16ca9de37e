"""NumPy's advanced indexing on Dask arrays, lazily: ``x[i, j]``, ``x[:, i2d]``, ``x[i, j] = v``.

Dask indexes with one 1-d integer array or one boolean mask.  Several index
arrays (broadcast together), or an n-d one, become one take along a flattened
axis: the advanced dimensions are moved to the front and merged, and the
arrays' points raveled into offsets into that axis, all in the graph (index
arrays that are themselves lazy stay lazy).  Writes go the same way, through
Dask's assignment with a 1-d integer index, and the target takes the result in
place.  The items come checked and with integers already applied (as torch
applies them, before the index tensors): whole-dimension slices, ``...`` and
index arrays only.
"""

from __future__ import annotations

import math
from typing import Any

import dask.array as da
import numpy as np

from ...errors import UnknownShapeError


def native(raw: da.Array, items: tuple) -> bool:
    """True when Dask indexes with ``items`` itself: no array, one 1-d integer array, or
    one mask over a single dimension or over all of them."""
    arrays = [i for i in items if _is_array(i)]
    return not arrays or len(arrays) == 1 and (
        arrays[0].ndim == 1 or arrays[0].dtype == bool and arrays[0].ndim == raw.ndim)


def take(raw: da.Array, items: tuple) -> da.Array:
    """``raw[items]`` with NumPy's rule for where the broadcast dimensions go: in place of
    the indexed ones when those are adjacent, else first (0-d arrays select, as torch's
    integers, and separate nothing)."""
    _check_masks(raw, items)
    if sum(_is_array(i) for i in items) == 1 and any(_is_mask(i) and i.size == 0 for i in items):
        # a mask with nothing to select: a size known without computing
        return da.empty(_masked_shape(raw, items, 0), dtype=raw.dtype, chunks=-1)
    if math.isnan(raw.size) and any(_is_mask(i) and i.ndim > 1 for i in items):
        raise UnknownShapeError(  # Dask would only warn, and select in another order
            "t[index] on Dask: a boolean mask of 2 or more dimensions needs the sizes of the "
            "dimensions it selects, which this lazy tensor does not know yet (NaN); call "
            "t.compute_chunk_sizes() first (it computes the chunk sizes, not the values)")
    if native(raw, items):
        return raw[items]
    if sum(_is_array(i) for i in items) == 1 and any(_is_mask(i) for i in items):
        # a mask over some of the dimensions
        return _masked(raw, items)
    plan = _Plan(raw, items)
    if 0 in plan.out_shape:
        return da.empty(plan.out_shape, dtype=raw.dtype, chunks=-1)
    points = plan.merged(raw)[plan.offsets()]
    return plan.unmerged_result(points)


def _masked(raw: da.Array, items: tuple) -> da.Array:
    """``raw[..., mask, ...]`` for a mask of k dimensions: those merged into one (C order,
    NumPy's order for the selected values), then Dask's 1-d mask along it."""
    at, mask = next((d, i) for d, i in enumerate(_spelled_out(items, raw.ndim, by_dim=True))
                    if _is_array(i))
    shape = raw.shape
    merged = _reshape(raw, (*shape[:at], math.prod(shape[at:at + mask.ndim]),
                            *shape[at + mask.ndim:]))
    return merged[(slice(None),) * at + (mask.reshape(-1),)]


def _check_masks(raw: da.Array, items: tuple) -> None:
    """NumPy's IndexError for a mask whose shape is not that of the dimensions it selects
    (known now, from the shapes: Dask would fail later, or broadcast).  As NumPy (and the
    NumPy backend), a mask with a dimension of size 0 selects nothing, whatever the sizes."""
    d = 0
    for item in _spelled_out(items, raw.ndim, by_dim=True):
        if _is_mask(item):
            sizes = raw.shape[d:d + item.ndim]
            if len(sizes) < item.ndim:
                raise IndexError(f"too many indices for array: array is {raw.ndim}-dimensional, "
                                 f"but a mask of {item.ndim} dimensions was indexed at {d}")
            for k, (size, n) in enumerate(zip(sizes, item.shape)):
                if size == size and n == n and size != n and n != 0:  # NumPy's empty masks
                    raise IndexError(f"boolean index did not match indexed array along axis "
                                     f"{d + k}; size of axis is {size} but size of corresponding "
                                     f"boolean axis is {n}")
            d += item.ndim
        elif item is not None:
            d += 1


def _masked_shape(raw: da.Array, items: tuple, count: int) -> tuple:
    """The shape of ``raw[items]`` for a mask selecting ``count`` values."""
    spelled = _spelled_out(items, raw.ndim, by_dim=True)
    at, mask = next((d, i) for d, i in enumerate(spelled) if _is_array(i))
    return (*raw.shape[:at], count, *raw.shape[at + mask.ndim:])


def put(raw: da.Array, items: tuple, value: Any) -> da.Array:
    """``raw`` with ``raw[items] = value`` written (a new graph; the caller puts it in place)."""
    plan = _Plan(raw, items)
    if 0 in plan.out_shape:
        return raw
    value = value if getattr(value, "ndim", 0) else da.asarray(value, dtype=raw.dtype)
    value = da.broadcast_to(value, plan.out_shape)
    if plan.first:  # the broadcast dimensions first, as the merged array has them
        value = da.moveaxis(value, range(plan.first, plan.first + len(plan.shape)),
                            range(len(plan.shape)))
    target = plan.merged(raw).copy()
    target[plan.offsets()] = _reshape(value, (plan.points, *plan.rest))
    back = _reshape(target, (*plan.sizes, *plan.rest))
    return da.moveaxis(back, range(len(plan.at)), plan.at)


class _Plan:
    """Where the index arrays are, the shape they broadcast to, and the result's shape."""

    def __init__(self, raw: da.Array, items: tuple) -> None:
        items = _spelled_out(items, raw.ndim)
        self.at = [d for d, i in enumerate(items) if _is_array(i)]
        self.arrays = [items[d] for d in self.at]
        if any(a.dtype == bool for a in self.arrays):
            raise UnknownShapeError(
                "t[index] on Dask: a boolean mask beside other index tensors broadcasts with "
                "them by its count of True values, which a lazy tensor does not know; index "
                "with mask.nonzero() after t.compute_chunk_sizes(), or compute the mask first")
        self.sizes = [raw.shape[d] for d in self.at]
        self.rest = [s for d, s in enumerate(raw.shape) if d not in self.at]
        try:
            self.shape = tuple(np.broadcast_shapes(*(a.shape for a in self.arrays)))
        except ValueError:
            raise IndexError("shape mismatch: indexing tensors could not be broadcast together "
                             "with shapes " + ", ".join(str(list(a.shape)) for a in self.arrays)
                             ) from None
        # torch's rule: 0-d arrays select, as integers; the others' dimensions go in place
        # when no other dimension stands between them, else first
        spread = [d for d, a in zip(self.at, self.arrays) if a.ndim] or self.at[:1]
        between = range(spread[0], spread[-1] + 1)
        self.adjacent = all(d in self.at for d in between)
        self.first = sum(d not in self.at for d in range(spread[0])) if self.adjacent else 0
        self.out_shape = (*self.rest[:self.first], *self.shape, *self.rest[self.first:])
        self.points = math.prod(self.shape)
        for size in self.sizes:
            if size == 0 and self.points:
                raise IndexError("index is out of bounds for a dimension of size 0")

    def offsets(self) -> Any:
        """The points as 1-d offsets into the merged advanced dimensions (lazy where an index
        array is)."""
        flat, stride = 0, 1
        for array, size in zip(reversed(self.arrays), reversed(self.sizes)):
            array = array.astype(np.int64)
            flat = flat + (array + (array < 0) * size) * stride
            stride *= size
        if isinstance(flat, da.Array):
            return _reshape(da.broadcast_to(flat, self.shape), (self.points,))
        return np.broadcast_to(flat, self.shape).reshape(-1)

    def merged(self, raw: da.Array) -> da.Array:
        """``raw`` with the advanced dimensions first, merged into one."""
        front = da.moveaxis(raw, self.at, range(len(self.at)))
        return _reshape(front, (math.prod(self.sizes), *self.rest))

    def unmerged_result(self, points: da.Array) -> da.Array:
        out = _reshape(points, (*self.shape, *self.rest))
        if not self.first:
            return out
        return da.moveaxis(out, range(len(self.shape)),
                           range(self.first, self.first + len(self.shape)))


def _is_array(item: Any) -> bool:
    return type(item) is not slice and item is not Ellipsis and item is not None


def _is_mask(item: Any) -> bool:
    return _is_array(item) and item.dtype == bool


def _spelled_out(items: tuple, ndim: int, by_dim: bool = False) -> tuple:
    """``items`` with ``...`` as whole-dimension slices, a mask of k dimensions standing for
    k of them; ``by_dim``: followed by one None for each dimension of a mask after its first,
    so that position and dimension agree."""
    used = sum(i.ndim if _is_mask(i) else 1 for i in items if i is not Ellipsis)
    fill = (slice(None),) * (ndim - used)
    at = next((k for k, i in enumerate(items) if i is Ellipsis), None)  # not `in`: arrays
    items = (*items, *fill) if at is None else (*items[:at], *fill, *items[at + 1:])
    if not by_dim:
        return items
    return tuple(x for i in items for x in ((i,) + (None,) * (i.ndim - 1) if _is_mask(i)
                                           else (i,)))


def _reshape(raw: da.Array, shape: tuple) -> da.Array:
    try:
        return raw.reshape(shape)
    except NotImplementedError:  # Dask cannot split chunks unevenly: one chunk first
        return raw.rechunk(-1).reshape(shape)
