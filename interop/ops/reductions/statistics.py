"""Statistics built from reductions: running extremes (cummax, cummin,
logcumsumexp), nan-ignoring sums and means, aminmax, var_mean/std_mean,
medians and quantiles, dist, cov, corrcoef, histc and trapezoid, with
torch's signatures and named-tuple results."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from ... import dtypes
from ...backends.registry import host_values, python_value
from .._args import float_input, ordered, promote
from ..annotations import Dim, DimOrDims, DType, KeepDim, VectorDim
from ..registry import AXIS, op, torch_alias
from .aggregates import values_indices

_MINMAX = namedtuple("aminmax", ["min", "max"])

# What Dask's array library cannot express (declared on the records, read by the tests and docs).
NO_DASK_ACCUMULATE = {"dask": "dask.array has no ufunc.accumulate"}
# ------------------------------------------------------------------ statistics
def _cum_extreme(name: str, better: str) -> None:
    def impl(be: Any, input: Any, dim: VectorDim) -> Any:
        ordered(name, input)
        d = dim
        x = input if input.ndim else be.np.reshape(input, (1,))
        values = be.ufunc(better).accumulate(x, axis=d)
        n = x.shape[d]
        pos = be.np.reshape(be.np.arange(n), (n,) + (1,) * (x.ndim - d - 1))
        hit = (x == values) | (be.np.isnan(x) if x.dtype.kind == "f" else False)
        indices = be.ufunc("maximum").accumulate(be.np.where(hit, pos, 0), axis=d).astype(
            dtypes.int64)
        if not input.ndim:
            values, indices = be.np.reshape(values, ()), be.np.reshape(indices, ())
        return values_indices[name](values, indices)
    impl.__name__, impl.__doc__ = name, f"Running {better} along ``dim`` and where it was seen."
    op(name, lacks=NO_DASK_ACCUMULATE)(impl)


_cum_extreme("cummax", "fmax")
_cum_extreme("cummin", "fmin")


@op(lacks=NO_DASK_ACCUMULATE)
def logcumsumexp(be: Any, input: Any, dim: Dim) -> Any:
    """log(cumsum(exp(x))) along ``dim``, computed stably."""
    x = float_input(be, input)
    if not x.ndim:
        return x.copy()
    return be.ufunc("logaddexp").accumulate(x, axis=dim)


@op(all_dims_if_empty=True, keywords=AXIS)
def nansum(be: Any, input: Any, dim: DimOrDims | None = None, keepdim: bool = False, *,
           dtype: Any = None) -> Any:
    """Sum ignoring nan (integers accumulate in int64)."""
    d = dim
    dt = dtypes.as_dtype(dtype) or (dtypes.int64 if input.dtype.kind in "biu" else input.dtype)
    return be.np.nansum(input, axis=d, keepdims=keepdim, dtype=dt)


@op(all_dims_if_empty=True, keywords=AXIS)
def nanmean(be: Any, input: Any, dim: DimOrDims | None = None, keepdim: KeepDim = False, *,
            dtype: DType = None) -> Any:
    """Mean ignoring nan (floating tensors only)."""
    x = input.astype(dtype) if dtype is not None else input
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype "
                           f"but got {x.dtype}")
    d = dim
    count = be.np.sum(~be.np.isnan(x), axis=d, keepdims=keepdim)
    # NumPy's divide, not `/`: an Array API library's operator refuses float / int
    return be.np.true_divide(be.np.nansum(x, axis=d, keepdims=keepdim), count).astype(x.dtype)


@op()
def aminmax(be: Any, input: Any, *, dim: Dim | None = None, keepdim: KeepDim = False) -> Any:
    """(min, max) together."""
    ordered("aminmax", input)
    d = dim
    return _MINMAX(be.np.min(input, axis=d, keepdims=keepdim),
                   be.np.max(input, axis=d, keepdims=keepdim))


def _moments(name: str, root: bool) -> None:
    def impl(be: Any, input: Any, dim: DimOrDims | None = None, unbiased: Any = None, keepdim: bool = False,
             *, correction: Any = None) -> Any:
        if isinstance(dim, bool):
            dim, unbiased = None, dim
        ddof = float(correction) if correction is not None else (0.0 if unbiased is False else 1.0)
        d = dim
        var = be.np.var(input, axis=d, keepdims=keepdim, ddof=ddof)
        mean = be.np.mean(input, axis=d, keepdims=keepdim)
        return (be.np.sqrt(var) if root else var, mean)
    impl.__name__, impl.__doc__ = name, f"({'std' if root else 'var'}, mean) in one call."
    op(name, method=False, all_dims_if_empty=True)(impl)


_moments("var_mean", False)
_moments("std_mean", True)


def _lower_median(be: Any, x: Any, d: int, skip_nan: bool) -> tuple[Any, Any]:
    """torch's median: the lower of the two middle values, and its index."""
    order = be.xp.argsort(x, axis=d, stable=True)  # the standard's spelling: every backend's
    ranked = be.np.take_along_axis(x, order, axis=d)
    n = x.shape[d]
    if skip_nan:
        valid = be.np.sum(~be.np.isnan(x), axis=d, keepdims=True)
        k = be.np.maximum((valid - 1) // 2, 0)
    else:
        has_nan = be.np.any(be.np.isnan(x), axis=d, keepdims=True) if x.dtype.kind == "f" else False
        k = be.np.where(has_nan, n - 1, (n - 1) // 2) if x.dtype.kind == "f" else \
            be.np.full((1,) * x.ndim, (n - 1) // 2)
        if x.dtype.kind == "f":  # the first nan, as torch reports it
            first_nan = be.np.argmax(be.np.isnan(ranked), axis=d)
            k = be.np.where(has_nan, be.np.expand_dims(first_nan, d), k)
    k = be.np.broadcast_to(k, (*x.shape[:d], 1, *x.shape[d + 1:])).astype(np.int64)
    return (be.np.take_along_axis(ranked, k, axis=d), be.np.take_along_axis(order, k, axis=d))


def _median(name: str, skip_nan: bool) -> None:
    def impl(be: Any, input: Any, dim: VectorDim | None = None, keepdim: bool = False) -> Any:
        ordered(name, input)
        if dim is None:
            flat = be.np.reshape(input, (-1,))
            if flat.size == 0:
                return be.np.asarray(np.nan, dtype=input.dtype)
            return be.np.reshape(_lower_median(be, flat, 0, skip_nan)[0], ())
        d = dim
        x = input if input.ndim else be.np.reshape(input, (1,))
        values, indices = _lower_median(be, x, d, skip_nan)
        if not keepdim or not input.ndim:
            values, indices = be.np.squeeze(values, axis=d), be.np.squeeze(indices, axis=d)
        return values_indices["median"](values, indices.astype(dtypes.int64))
    impl.__name__ = name
    impl.__doc__ = "The lower median (torch's), with indices when ``dim`` is given."
    op(name, keywords=AXIS)(impl)


_median("median", False)
_median("nanmedian", True)


def _quantile(name: str, skip_nan: bool) -> None:
    def impl(be: Any, input: Any, q: Any, dim: Any = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> Any:
        fn = be.np.nanquantile if skip_nan else be.np.quantile
        if input.ndim == 0:  # a 0-d input is a 1-element vector to torch
            out = impl(be, be.np.reshape(input, (1,)), q, None if dim is None else 0, False,
                       interpolation=interpolation)
            return out
        qq = q.astype(input.dtype) if hasattr(q, "dtype") else q
        out = fn(input, qq, axis=dim, keepdims=keepdim, method=interpolation)
        if not skip_nan and input.dtype.kind == "f" and input.size:
            has_nan = be.np.any(be.np.isnan(input), axis=dim, keepdims=keepdim)
            out = be.np.where(has_nan, input.dtype.type(np.nan), out)
        return out.astype(input.dtype)
    impl.__name__, impl.__doc__ = name, "Quantiles (q in [0, 1]) along ``dim`` or overall."
    op(name, keywords={**AXIS, "method": "interpolation"})(impl)


_quantile("quantile", False)
_quantile("nanquantile", True)


@op()
def dist(be: Any, input: Any, other: Any, p: Any = 2) -> Any:
    """The p-norm of input - other."""
    diff = be.np.abs(be.np.subtract(*promote(input, other)))
    if p == float("inf"):
        return be.np.max(diff)
    if p == float("-inf"):
        return be.np.min(diff)
    if p == 0:
        return be.np.sum(diff != 0).astype(diff.dtype)
    return be.np.sum(diff ** p) ** (1 / p)


@op(keywords={"ddof": "correction"})
def cov(be: Any, input: Any, *, correction: int = 1, fweights: Any = None,
        aweights: Any = None) -> Any:
    """Covariance of the rows (variables) over the columns (observations)."""
    if fweights is None and aweights is None:
        out = be.np.cov(input, ddof=correction)
    else:  # by torch's formula: CuPy's cov centres weighted data on the unweighted mean
        out = _weighted_cov(be, input, correction, fweights, aweights)
    return out.astype(input.dtype if input.dtype.kind in "fc" else dtypes.get_default_dtype())


def _checked_weights(be: Any, name: str, w: Any, kinds: str, kind: str, n: int) -> Any:
    """torch's checks of cov's ``fweights`` or ``aweights`` (the signs: a value read)."""
    if w.dtype.kind not in kinds:
        raise RuntimeError(f"cov(): expected {name} to have {kind} dtype but got {name} with "
                           f"{w.dtype} dtype")
    if w.ndim > 1 or (w.size if w.ndim else 1) != n:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions and the "
                           f"same numel as there are observations in the input ({n}), got "
                           f"shape {tuple(w.shape)}")
    if bool(host_values(be.np.any(w < 0), f"cov(): the signs of {name}")):
        raise RuntimeError(f"cov(): {name} cannot be negative")
    return be.np.reshape(w, (n,)).astype(np.float64)


def _weighted_cov(be: Any, input: Any, correction: int, fweights: Any, aweights: Any) -> Any:
    """torch.cov with weights: sum_k w_k (x_k - avg)(y_k - avg)^* / (sum w - correction
    * (sum w a / sum w if aweights)), avg the w-weighted mean, w = fweights * aweights."""
    x = be.np.reshape(input, (1, -1)) if input.ndim < 2 else input
    n = x.shape[1]
    f = None if fweights is None else _checked_weights(be, "fweights", fweights, "iub",
                                                       "integral", n)
    a = None if aweights is None else _checked_weights(be, "aweights", aweights, "f",
                                                       "floating point", n)
    w = f if a is None else a if f is None else f * a
    dtype = np.promote_types(x.dtype, np.float64 if x.dtype.kind not in "fc" else x.dtype)
    x = x.astype(dtype)
    total = be.np.sum(w)
    centred = x - be.np.sum(x * w, axis=1, keepdims=True) / total
    fact = total if correction == 0 else total - correction if a is None else \
        total - correction * be.np.sum(w * a) / total
    fact = be.np.maximum(fact, 0)
    return be.np.squeeze((centred * w) @ be.np.conj(centred).T / fact)  # as NumPy's cov


@op()
def corrcoef(be: Any, input: Any) -> Any:
    """Pearson correlation coefficients of the rows."""
    out = be.np.corrcoef(input)
    return out.astype(input.dtype if input.dtype.kind in "fc" else dtypes.get_default_dtype())


@op()
def histc(be: Any, input: Any, bins: int = 100, min: Any = 0, max: Any = 0) -> Any:  # noqa: A002
    """Counts in ``bins`` equal bins over [min, max] (the data's range when both are 0)."""
    lo, hi = float(python_value(min, "histc(): min")), float(python_value(max, "histc(): max"))
    if lo == hi and input.size:  # the data's range: a value read
        lo, hi = (float(v) for v in host_values(be.np.stack([be.np.min(input), be.np.max(input)]),
                                                "histc() without min and max: the data's range"))
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    counts, _ = be.np.histogram(input, bins=bins, range=(lo, hi))
    return counts.astype(input.dtype)


@op(method=False, keywords={"axis": "dim"})
def trapezoid(be: Any, y: Any, x: Any = None, *, dx: Any = None, dim: int = -1) -> Any:
    """The trapezoid rule along ``dim`` (spacing ``dx``, or sample points ``x``)."""
    y = be.np.moveaxis(float_input(be, y), dim, -1)
    if x is None:
        widths = 1 if dx is None else dx
    else:  # sample points: along dim (same shape as y) or one 1-d row for every lane
        x = be.np.moveaxis(x, dim, -1) if x.ndim == y.ndim else x
        widths = x[..., 1:] - x[..., :-1]
    out = be.np.sum((y[..., 1:] + y[..., :-1]) * widths, axis=-1) / 2
    return out.astype(dtypes.result_type(y, x) if x is not None else y.dtype)


torch_alias("torch.trapz", to="trapezoid")
