"""NumPy functions that torch lacks, or gives another meaning, on torch tensors.

The torch backend's NumPy-shaped module (``TorchBackend.np``, which NumPy calls on
torch-backed tensors run) looks here first, then in array-api-compat's torch namespace,
then in torch.  NumPy's NaN-ignoring reductions (xarray's default ``skipna`` for floats
calls them: ``DataArray.max()`` is ``np.nanmax``) are built from array-api-compat's
reductions with NumPy's results: an all-NaN slice gives NaN (``nanargmax`` raises, as
NumPy's).  ``imag`` of a real tensor is zeros, as NumPy's (torch's raises); ``median``
and ``nanmedian`` average the two middle values, as NumPy's (torch's take the lower);
``quantile`` and ``nanquantile`` take NumPy's arguments (xarray's ``quantile`` calls them), as
do ``transpose``, ``cross``, ``gradient``, ``pad`` (one constant) and
``lib.stride_tricks.sliding_window_view`` (xarray's rolling windows).
"""

from __future__ import annotations

import types
from typing import Any

import array_api_compat.torch as xp
import numpy as np
import torch

_NO_OUT = ("out= is not supported for NumPy's NaN functions on torch tensors; assign the "
           "result instead")


def _nan(a: torch.Tensor) -> torch.Tensor:
    return torch.isnan(a)


def _filled(a: torch.Tensor, value: float) -> torch.Tensor:
    """``a`` with NaN replaced by ``value`` (integer and bool tensors have none)."""
    if not (a.is_floating_point() or a.is_complex()):
        return a
    return torch.where(_nan(a), torch.as_tensor(value, dtype=a.dtype, device=a.device), a)


def _check(out: Any) -> None:
    if out is not None:
        raise TypeError(_NO_OUT)


def _extreme(reduce: Any, fill: float) -> Any:
    def nan_reduce(a: torch.Tensor, axis: Any = None, out: Any = None, keepdims: bool = False,
                   **_: Any) -> torch.Tensor:
        _check(out)
        result = reduce(_filled(a, fill), axis=axis, keepdims=keepdims)
        if not a.is_floating_point():
            return result
        empty = xp.all(_nan(a), axis=axis, keepdims=keepdims)  # all-NaN slices stay NaN
        return torch.where(empty, torch.nan, result)
    return nan_reduce


nanmax = _extreme(xp.max, -torch.inf)
nanmin = _extreme(xp.min, torch.inf)


def _arg(reduce: Any, fill: float) -> Any:
    def nan_arg(a: torch.Tensor, axis: int | None = None, out: Any = None,
                keepdims: bool = False) -> torch.Tensor:
        _check(out)
        if a.is_floating_point() and bool(xp.any(xp.all(_nan(a), axis=axis))):
            raise ValueError("All-NaN slice encountered")
        return reduce(_filled(a, fill), axis=axis, keepdims=keepdims)
    return nan_arg


nanargmax = _arg(xp.argmax, -torch.inf)
nanargmin = _arg(xp.argmin, torch.inf)


def nansum(a: torch.Tensor, axis: Any = None, dtype: Any = None, out: Any = None,
           keepdims: bool = False, **_: Any) -> torch.Tensor:
    _check(out)
    return xp.sum(_filled(a, 0), axis=axis, dtype=dtype, keepdims=keepdims)


def nanprod(a: torch.Tensor, axis: Any = None, dtype: Any = None, out: Any = None,
            keepdims: bool = False, **_: Any) -> torch.Tensor:
    _check(out)
    return xp.prod(_filled(a, 1), axis=axis, dtype=dtype, keepdims=keepdims)


def _count(a: torch.Tensor, axis: Any, keepdims: bool) -> torch.Tensor:
    return xp.sum(~_nan(a), axis=axis, keepdims=keepdims)


def nanmean(a: torch.Tensor, axis: Any = None, dtype: Any = None, out: Any = None,
            keepdims: bool = False, **_: Any) -> torch.Tensor:
    _check(out)
    if not a.is_floating_point():
        return xp.mean(a if dtype is None else a.to(dtype), axis=axis, keepdims=keepdims)
    total = nansum(a, axis=axis, dtype=dtype, keepdims=keepdims)
    return total / _count(a, axis, keepdims)  # 0/0: NaN for all-NaN slices, as NumPy's


def nanvar(a: torch.Tensor, axis: Any = None, dtype: Any = None, out: Any = None,
           ddof: float = 0, keepdims: bool = False, **_: Any) -> torch.Tensor:
    _check(out)
    if not a.is_floating_point():
        return xp.var(a.to(dtype or torch.float64), axis=axis, correction=ddof,
                      keepdims=keepdims)
    deviation = a - nanmean(a, axis=axis, dtype=dtype, keepdims=True)
    squares = xp.sum(_filled(deviation * deviation.conj(), 0).real, axis=axis, keepdims=keepdims)
    return squares / torch.clamp(_count(a, axis, keepdims) - ddof, min=0)


def nanstd(a: torch.Tensor, axis: Any = None, dtype: Any = None, out: Any = None,
           ddof: float = 0, keepdims: bool = False, **_: Any) -> torch.Tensor:
    return torch.sqrt(nanvar(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims))


def _cumulative(accumulate: Any, fill: float) -> Any:
    def nan_accumulate(a: torch.Tensor, axis: int | None = None, dtype: Any = None,
                       out: Any = None) -> torch.Tensor:
        _check(out)
        a = _filled(a, fill)
        if axis is None:  # NumPy's: over the flattened tensor
            a, axis = a.reshape(-1), 0
        return accumulate(a, axis=axis, dtype=dtype)
    return nan_accumulate


nancumsum = _cumulative(xp.cumulative_sum, 0)
nancumprod = _cumulative(xp.cumulative_prod, 1)


def imag(val: torch.Tensor) -> torch.Tensor:
    """NumPy's: zeros for a real tensor (torch raises)."""
    return torch.imag(val) if val.is_complex() else torch.zeros_like(val)


_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")  # NumPy's that torch has


def _quantile(quantile: Any) -> Any:
    """NumPy's quantile: any axes (torch's take one), ``q`` as host numbers, NumPy's methods
    that torch has; integers give float64, as NumPy's."""
    def numpy_quantile(a: torch.Tensor, q: Any, axis: Any = None, out: Any = None,
                       overwrite_input: bool = False, method: str = "linear",
                       keepdims: bool = False) -> torch.Tensor:
        _check(out)
        if method not in _METHODS:
            raise ValueError(f"quantile method {method!r} on torch tensors: one of {_METHODS}")
        if not a.is_floating_point():
            a = a.to(torch.float64)
        q = torch.as_tensor(q, dtype=a.dtype, device=a.device)
        axes = tuple(range(a.ndim)) if axis is None else tuple(
            d % a.ndim for d in (axis if isinstance(axis, (tuple, list)) else (axis,)))
        kept = [d for d in range(a.ndim) if d not in axes]
        flat = a.permute(*kept, *axes).reshape(*(a.shape[d] for d in kept), -1)
        result = quantile(flat, q, dim=-1, interpolation=method)
        if keepdims:
            result = result.reshape(*q.shape, *(1 if d in axes else a.shape[d]
                                                for d in range(a.ndim)))
        return result
    return numpy_quantile


quantile = _quantile(torch.quantile)
nanquantile = _quantile(torch.nanquantile)


def _median(quantile: Any) -> Any:
    """NumPy's median: the mean of the two middle values (torch's is the lower one)."""
    def median(a: torch.Tensor, axis: Any = None, out: Any = None, overwrite_input: bool = False,
               keepdims: bool = False) -> torch.Tensor:
        return quantile(a, 0.5, axis=axis, out=out, keepdims=keepdims)
    return median


median = _median(quantile)
nanmedian = _median(nanquantile)


def transpose(a: torch.Tensor, axes: Any = None) -> torch.Tensor:
    """NumPy's: a permutation of all axes (torch's swaps two)."""
    return a.permute(*(range(a.ndim - 1, -1, -1) if axes is None else axes))


def cross(a: torch.Tensor, b: torch.Tensor, axis: int = -1) -> torch.Tensor:
    """NumPy's ``cross`` of 3-vectors along ``axis`` (xarray's ``cross`` calls it)."""
    return torch.linalg.cross(a, b, dim=axis)


def pad(array: torch.Tensor, pad_width: Any, mode: str = "constant",
        constant_values: Any = 0) -> torch.Tensor:
    """NumPy's ``pad`` with one constant (xarray's rolling windows and ``pad`` use it)."""
    if mode != "constant" or np.ndim(constant_values):
        raise NotImplementedError(
            f"NumPy's pad on torch tensors takes mode='constant' with one constant value, not "
            f"mode={mode!r}: move the data first, e.g. t.to(backend='numpy')")
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (array.ndim, 2))
    return torch.nn.functional.pad(array, [int(w) for pair in widths[::-1] for w in pair],
                                   value=float(constant_values))


def _sliding_window_view(x: torch.Tensor, window_shape: Any, axis: Any = None,
                         **_: Any) -> torch.Tensor:
    """NumPy's ``sliding_window_view``: torch's ``unfold`` per axis, the window axes last."""
    sizes = (window_shape,) if isinstance(window_shape, int) else tuple(window_shape)
    axes = range(x.ndim) if axis is None else (axis,) if isinstance(axis, int) else axis
    for size, ax in zip(sizes, axes, strict=True):
        x = x.unfold(ax, size, 1)
    return x


lib = types.SimpleNamespace(stride_tricks=types.SimpleNamespace(
    sliding_window_view=_sliding_window_view))


def gradient(f: torch.Tensor, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Any:
    """NumPy's ``gradient`` (one array for one axis, a tuple for several; integers give
    float64) from torch's (a tuple always)."""
    if not (f.is_floating_point() or f.is_complex()):
        f = f.to(torch.float64)
    axes = tuple(range(f.ndim)) if axis is None else (axis,) if isinstance(axis, int) else axis
    spacing: Any = [torch.as_tensor(v, dtype=f.dtype, device=f.device) if np.ndim(v) else v
                    for v in varargs] or 1
    out = torch.gradient(f, spacing=spacing if len(varargs) != 1 or not np.ndim(varargs[0])
                         else spacing[0], dim=tuple(axes), edge_order=edge_order)
    return out[0] if len(out) == 1 else tuple(out)
