"""torch's counting, binning and numerical-calculus functions: mode, unique_consecutive,
histogram/histogramdd, cdist, renorm, gradient, cumulative_trapezoid, unravel_index,
with torch's signatures, result dtypes and named tuples.
"""

from __future__ import annotations

import builtins
import math
from collections import namedtuple
from typing import Any

from ... import dtypes
from ...backends.registry import host_values
from .._args import float_input
from ..annotations import Dim
from ..registry import op
from .aggregates import values_indices

_HISTOGRAM = namedtuple("histogram", ["hist", "bin_edges"])
_HISTOGRAMDD = namedtuple("histogramdd", ["hist", "bin_edges"])


@op()
def mode(be: Any, input: Any, dim: Dim = -1, keepdim: bool = False) -> Any:
    """(values, indices): the most frequent value along ``dim`` (the smallest on ties) and
    the index of its last occurrence, as torch."""
    if input.ndim == 0:
        return values_indices["mode"](input, be.np.zeros((), dtype=dtypes.int64))
    d = dim
    x = be.np.moveaxis(input, d, -1)
    counts = be.np.sum(x[..., :, None] == x[..., None, :], axis=-1)  # (..., n): ties of each
    best = counts == be.np.max(counts, axis=-1, keepdims=True)
    value = be.np.min(be.np.where(best, x, be.np.max(x, axis=-1, keepdims=True)), axis=-1,
                      keepdims=True)
    n = x.shape[-1]
    positions = be.np.arange(n, dtype=dtypes.int64)
    index = be.np.max(be.np.where(x == value, positions, -1), axis=-1, keepdims=True)
    value, index = value.astype(input.dtype), index.astype(dtypes.int64)
    if keepdim:
        return values_indices["mode"](be.np.moveaxis(value, -1, d), be.np.moveaxis(index, -1, d))
    return values_indices["mode"](value[..., 0], index[..., 0])


@op(method=True)
def unique_consecutive(be: Any, input: Any, return_inverse: bool = False,
                       return_counts: bool = False, dim: Dim | None = None) -> Any:
    """Runs of equal consecutive elements (or slices along ``dim``) collapsed to one."""
    x = be.np.reshape(input, (-1,)) if dim is None else \
        be.np.moveaxis(input, dim, 0)
    n = int(x.shape[0])
    if n == 0:
        starts = be.np.zeros((0,), dtype=bool)
    else:
        differs = x[1:] != x[:-1]
        if x.ndim > 1:
            differs = be.np.any(be.np.reshape(differs, (n - 1, math.prod(x.shape[1:]))), axis=1)
        starts = be.np.concatenate([be.np.ones((1,), dtype=bool), differs])
    values = x[starts]
    if dim is not None:
        values = be.np.moveaxis(values, 0, dim)
    out = [values]
    inverse = be.np.cumsum(starts.astype(dtypes.int64)) - 1  # the run of each element
    if return_inverse:
        out.append(be.np.reshape(inverse, tuple(input.shape)) if dim is None else inverse)
    if return_counts:
        out.append(be.np.bincount(inverse).astype(dtypes.int64))
    return out[0] if len(out) == 1 else tuple(out)


def _edges(be: Any, input: Any, bins: Any, range: Any) -> Any:  # noqa: A002
    """Bin edges: a given tensor, or ``bins`` equal bins over ``range`` (default: the data's
    min and max, widened by 0.5 each side when they are equal), in ``input``'s dtype."""
    if getattr(bins, "ndim", None) is not None:
        return bins
    if range is None:
        lo, hi = (float(v) for v in host_values(be.np.stack([be.np.min(input), be.np.max(input)]),
                                                "histogram() without range: the data's range")) \
            if input.size else (0.0, 1.0)
    else:
        lo, hi = float(range[0]), float(range[1])
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return be.np.linspace(lo, hi, int(bins) + 1).astype(input.dtype)


def _bin_index(be: Any, x: Any, edges: Any) -> tuple[Any, Any]:
    """(bin of each value, whether it falls in [first edge, last edge]); the last bin is
    closed on the right, as torch and NumPy."""
    nbins = int(edges.shape[0]) - 1
    index = be.np.searchsorted(edges, x, side="right") - 1
    index = be.np.where(x == edges[-1], nbins - 1, index)
    inside = (x >= edges[0]) & (x <= edges[-1])
    return be.np.clip(index, 0, max(nbins - 1, 0)), inside


def _counts(be: Any, flat_index: Any, weight: Any, size: int, dtype: Any) -> Any:
    counts = be.np.bincount(flat_index, weights=weight, minlength=size)
    return counts[:size].astype(dtype)


@op(method=True, keywords={"weights": "weight"})
def histogram(be: Any, input: Any, bins: Any, *, range: Any = None, weight: Any = None,  # noqa: A002
              density: bool = False) -> Any:
    """(hist, bin_edges) of the flattened ``input``; ``density`` normalises the area to 1."""
    hist, edges = histogramdd(be, be.np.reshape(input, (-1, 1)), [bins], range=range,
                              weight=weight, density=density)
    return _HISTOGRAM(hist, edges[0])


@op(method=False, keywords={"weights": "weight"})
def histogramdd(be: Any, input: Any, bins: Any, *, range: Any = None, weight: Any = None,  # noqa: A002
                density: bool = False) -> Any:
    """(hist, bin_edges) of the points in ``input``'s last dimension (one coordinate each)."""
    if input.dtype.kind != "f":
        raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the "
                           f"same floating dtype, got {input.dtype}; convert with .float()")
    points = be.np.reshape(input, (-1, input.shape[-1]))
    k = int(points.shape[1])
    bins = [bins] * k if isinstance(bins, int) else list(bins)
    ranges = [None] * k if range is None else [range[2 * i:2 * i + 2] for i in builtins.range(k)]
    edges = [_edges(be, points[:, i], bins[i], ranges[i]) for i in builtins.range(k)]
    sizes = [int(e.shape[0]) - 1 for e in edges]
    flat = be.np.zeros((points.shape[0],), dtype=dtypes.int64)
    keep = be.np.ones((points.shape[0],), dtype=bool)
    for i, e in enumerate(edges):
        index, inside = _bin_index(be, points[:, i], e)
        flat, keep = flat * sizes[i] + index, keep & inside
    w = be.np.ones((points.shape[0],), dtype=input.dtype) if weight is None else \
        be.np.reshape(weight, (-1,)).astype(input.dtype)
    total = math.prod(sizes)
    hist = _counts(be, be.np.where(keep, flat, 0), be.np.where(keep, w, 0), total, input.dtype)
    hist = be.np.reshape(hist, tuple(sizes))
    if density:
        volume = be.np.ones(tuple(sizes), dtype=input.dtype)
        for i, e in enumerate(edges):
            shape = [1] * k
            shape[i] = sizes[i]
            volume = volume * be.np.reshape(be.np.diff(e), tuple(shape))
        hist = hist / (be.np.sum(hist) * volume)
    return _HISTOGRAMDD(hist, tuple(edges))



@op(method=False)
def cdist(be: Any, x1: Any, x2: Any, p: float = 2.0, compute_mode: Any = None) -> Any:
    """p-norm distances between each row of ``x1`` and each row of ``x2`` (batched)."""
    if x1.dtype.kind != "f" or x2.dtype.kind != "f":
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: {x1.dtype}")
    diff = be.np.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == 0:
        return be.np.sum(diff != 0, axis=-1).astype(x1.dtype)
    if math.isinf(p):
        return be.np.max(diff, axis=-1) if diff.shape[-1] else be.np.sum(diff, axis=-1)
    if p == 1:
        return be.np.sum(diff, axis=-1)
    if p == 2:
        return be.np.sqrt(be.np.sum(diff * diff, axis=-1))
    return be.np.sum(diff ** p, axis=-1) ** (1.0 / p)


@op(method=True, inplace=True)
def renorm(be: Any, input: Any, p: float, dim: Dim, maxnorm: float) -> Any:
    """Each slice along ``dim`` scaled down to p-norm ``maxnorm`` where its norm exceeds it."""
    if input.dtype.kind not in "fc":
        raise RuntimeError(f"renorm: expected a floating point or complex tensor, got "
                           f"{input.dtype}")
    if input.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} "
                           "dimensions")
    if not p > 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported (p={p}); pass p > 0")
    if not maxnorm >= 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = dim
    others = tuple(i for i in builtins.range(input.ndim) if i != d)
    a = be.np.abs(input)
    if math.isinf(p):
        norm = be.np.max(a, axis=others, keepdims=True)
    else:
        norm = be.np.sum(a ** p, axis=others, keepdims=True) ** (1.0 / p)
    scale = be.np.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0).astype(input.dtype)
    return input * scale


@op(method=False, keywords={"axis": "dim"})
def gradient(be: Any, input: Any, *, spacing: Any = 1, dim: Any = None,
             edge_order: int = 1) -> Any:
    """Central differences (one-sided at the edges) along each of ``dim``: a tuple."""
    x = float_input(be, input)
    dims = tuple(builtins.range(x.ndim)) if dim is None else \
        (dim,) if isinstance(dim, int) else tuple(dim)
    dims = tuple(d % x.ndim for d in dims)
    if spacing is None:
        spacing = 1
    steps = list(spacing) if isinstance(spacing, (list, tuple)) else [spacing] * len(dims)
    if len(steps) == 1 and len(dims) > 1:
        steps = steps * len(dims)
    order = {"edge_order": edge_order} if edge_order != 1 else {}  # JAX's takes only the default
    out = be.np.gradient(x, *steps, axis=dims, **order)
    out = out if isinstance(out, (list, tuple)) else [out]
    return tuple(o.astype(x.dtype) for o in out)


@op(method=False)
def cumulative_trapezoid(be: Any, y: Any, x: Any = None, *, dx: Any = None,
                         dim: Dim = -1) -> Any:
    """Running trapezoid-rule integral of ``y`` along ``dim`` (one fewer element)."""
    y = float_input(be, y)
    d = dim
    n = int(y.shape[d])
    take = lambda a, s: a[(slice(None),) * d + (s,)]  # noqa: E731
    mids = (take(y, slice(1, n)) + take(y, slice(0, n - 1))) / 2
    if x is not None:
        step = be.np.diff(float_input(be, x), axis=d if x.ndim == y.ndim else -1)
        mids = mids * step
    elif dx is not None:
        mids = mids * dx
    return be.np.cumsum(mids, axis=d).astype(mids.dtype)


@op(method=False)
def unravel_index(be: Any, indices: Any, shape: Any) -> Any:
    """Flat indices as one coordinate tensor per dimension of ``shape`` (negative: from the
    end)."""
    if getattr(indices, "dtype", dtypes.int64).kind not in "iu":
        raise TypeError("unravel_index: expected 'indices' to be an integer tensor, but got "
                        f"{indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    total = math.prod(shape)
    flat = be.np.where(indices < 0, indices + total, indices).astype(dtypes.int64)
    out, stride = [], total
    for size in shape:
        stride //= size
        out.append((flat // stride) % size)
    return tuple(out)
