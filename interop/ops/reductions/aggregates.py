"""Reductions and scans, with torch's signatures (``dim``, ``keepdim``, ``dtype``) and dtypes.

torch differs from NumPy in places that matter to a user: integer sums and
products are int64, ``mean`` refuses integers, ``std``/``var`` default to
``correction=1``, and ``max(t, dim)`` returns ``(values, indices)``.
"""

from __future__ import annotations

import functools
import math
from collections import namedtuple
from typing import Any

import numpy as np

from ... import dtypes
from .._args import cast, float_input, ordered
from ..annotations import Dim, DimOrDims, DType, KeepDim, VectorDim
from ..linalg.torch_linalg import matrix_norm
from ..registry import op

values_indices: dict[str, Any] = {name: namedtuple(name, ["values", "indices"])
                  for name in ("max", "min", "sort", "topk", "kthvalue", "median", "mode",
                               "cummax", "cummin", "aminmax")}


def _acc_dtype(input: Any, dtype: Any) -> Any:
    """torch's accumulation dtype: bool and integers sum to int64."""
    if dtype is not None:
        return dtypes.as_dtype(dtype)
    return dtypes.int64 if input.dtype.kind in "biu" else input.dtype


def _accumulated(reduce: Any, acc: np.dtype, axis: Any, keepdims: bool | None = None) -> Any:
    """``reduce(axis=..., dtype=...)`` accumulating ``acc`` results as torch does: float16 and
    bfloat16 in float32 (4096 ones sum to 4096, where half precision stops counting at 2048
    and bfloat16 at 256), then back.
    (Keywords are spelled out: a ``**`` pass-through costs more than NumPy's sum of 8 values.)"""
    wide = dtypes.float32 if acc.kind in "fV" and acc.itemsize == 2 else acc  # (b)float16
    out = reduce(axis=axis, dtype=wide) if keepdims is None else \
        reduce(axis=axis, dtype=wide, keepdims=keepdims)
    return out if wide is acc else out.astype(acc, copy=False)


@op(out=True, all_dims_if_empty=True)
def sum(be: Any, input: Any, dim: DimOrDims | None = None, keepdim: KeepDim = False, *,  # noqa: A001
        dtype: DType = None, axis: Any = None, keepdims: bool | None = None) -> Any:
    """Sum over ``dim`` (all by default); integers and bools accumulate in int64.

    >>> t = interop.tensor([[1, 2], [3, 4]])
    >>> t.sum()
    tensor(10, backend='numpy')
    >>> t.sum(dim=0)
    tensor([4, 6], backend='numpy')
    >>> interop.sum(t, dim=-1, keepdim=True)
    tensor([[3],
            [7]], backend='numpy')
    """
    if dim is None and dtype is None and not keepdim and input.dtype.kind in "fc" \
            and input.dtype.itemsize > 2:
        return input.sum()  # the commonest call, where NumPy's own accumulation is torch's
    return _accumulated(input.sum, _acc_dtype(input, dtype), axis=dim, keepdims=bool(keepdim))


@op(out=True)
def prod(be: Any, input: Any, dim: Dim | None = None, keepdim: KeepDim = False, *,
         dtype: DType = None, axis: Any = None, keepdims: bool | None = None) -> Any:
    """Product over ``dim``; integers and bools accumulate in int64."""
    return input.prod(axis=dim, keepdims=bool(keepdim), dtype=_acc_dtype(input, dtype))


def _floating(name: str, input: Any, dtype: Any) -> Any:
    if dtype is not None:
        dt = dtypes.as_dtype(dtype)
        if dt.kind not in "fc":
            raise RuntimeError(f"{name}(): could not infer output dtype. Optional dtype must be "
                               f"either a floating point or complex dtype. Got: {dt}; pass "
                               "dtype=interop.float32 (or float64)")
        return input.astype(dt)
    if input.dtype.kind in "biu":
        raise RuntimeError(f"{name}(): could not infer output dtype. Input dtype must be either "
                           f"a floating point or complex dtype. Got: {input.dtype}. Pass "
                           f"dtype=interop.float32 or convert with .float() first")
    return input


@op(out=True, all_dims_if_empty=True)
def mean(be: Any, input: Any, dim: DimOrDims | None = None, keepdim: KeepDim = False, *,
         dtype: DType = None, axis: Any = None, keepdims: bool | None = None) -> Any:
    """Mean over ``dim``; integer tensors need ``dtype=`` (as in torch).

    >>> t = interop.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> t.mean()
    tensor(2.5000, backend='numpy')
    >>> t.mean(dim=1)
    tensor([1.5000, 3.5000], backend='numpy')
    """
    input = _floating("mean", input, dtype)
    return _accumulated(input.mean, input.dtype, axis=dim, keepdims=bool(keepdim))


def _correction(unbiased: bool | None, correction: Any) -> float:
    if correction is not None:
        return float(correction)
    return 0.0 if unbiased is False else 1.0


@op(out=True, all_dims_if_empty=True, keywords={"ddof": "correction"})
def var(be: Any, input: Any, dim: DimOrDims | None = None, unbiased: bool | None = None,
        keepdim: KeepDim = False, *, correction: Any = None, axis: Any = None,
        keepdims: bool | None = None) -> Any:
    """Variance with Bessel's correction by default (``correction=1``), as torch.

    >>> interop.tensor([1.0, 2.0, 3.0, 4.0]).var()
    tensor(1.6667, backend='numpy')
    """
    if isinstance(dim, bool):  # torch.var(t, False) means unbiased=False
        dim, unbiased = None, dim
    input = _floating("var", input, None)
    return be.np.var(input, axis=dim, keepdims=bool(keepdim),
                     ddof=_correction(unbiased, correction))


@op(out=True, all_dims_if_empty=True, keywords={"ddof": "correction"})
def std(be: Any, input: Any, dim: DimOrDims | None = None, unbiased: bool | None = None,
        keepdim: KeepDim = False, *, correction: Any = None, axis: Any = None,
        keepdims: bool | None = None) -> Any:
    """Standard deviation with Bessel's correction by default, as torch.

    >>> interop.tensor([1.0, 2.0, 3.0, 4.0]).std()
    tensor(1.2910, backend='numpy')
    >>> interop.tensor([1.0, 2.0, 3.0, 4.0]).std(correction=0)
    tensor(1.1180, backend='numpy')
    """
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    input = _floating("std", input, None)
    return be.np.std(input, axis=dim, keepdims=bool(keepdim),
                     ddof=_correction(unbiased, correction))


_EXAMPLES = {  # the docstrings' examples of the records made by the factories below
    "max": """

    >>> t = interop.tensor([[1, 5], [7, 2]])
    >>> t.max()
    tensor(7, backend='numpy')
    >>> t.max(dim=1)
    max(values=tensor([5, 7], backend='numpy'), indices=tensor([1, 0], backend='numpy'))
    >>> interop.max(t, interop.full((2, 2), 3))
    tensor([[3, 5],
            [7, 3]], backend='numpy')
    """,
    "min": """

    >>> t = interop.tensor([[1, 5], [7, 2]])
    >>> t.min()
    tensor(1, backend='numpy')
    >>> t.min(dim=0).indices
    tensor([0, 1], backend='numpy')
    """,
    "argmax": """

    >>> t = interop.tensor([[1, 5], [7, 2]])
    >>> t.argmax()
    tensor(2, backend='numpy')
    >>> t.argmax(dim=1)
    tensor([1, 0], backend='numpy')
    """,
    "cumsum": """

    >>> interop.tensor([1, 2, 3]).cumsum(dim=0)
    tensor([1, 3, 6], backend='numpy')
    """,
}


def _check_nonempty(name: str, input: Any, d: Any, *, arg: bool = False) -> None:
    """torch refuses an extreme (max, argmax, ...) over no elements, with its own errors."""
    if d is None:
        if input.size == 0:
            message = (f"{name}(): Expected reduction dim to be specified for input.numel() == 0"
                       ". Specify the reduction dim with the 'dim' argument.")
            raise IndexError(message) if arg else RuntimeError(message)
        return
    for i in d if isinstance(d, tuple) else (d,):
        if input.shape[i] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {i} to have non-zero size; reduce "
                             "over a non-empty dimension (or check t.numel() first)")


def _extremes(be: Any, fn: str, input: Any, d: Any, k: bool) -> Any:
    """``max``/``min`` along ``d``: Dask gets empty inputs wrong (a size-1 dimension, or a
    raise when computed), and there is no data to reduce: the empty result, made directly."""
    if input.size == 0:  # (also what NumPy gives, or NumPy's error from the probe)
        shape = getattr(np, fn)(np.empty(input.shape, input.dtype), axis=d, keepdims=k).shape
        return be.np.empty_like(input, shape=shape)
    if input.ndim > 1 and math.isnan(input.size):
        # Dask 2026.8 fails when run on the empty chunks NaN sizes may hide (its empty partial
        # results lose their shape), or gives an empty result instead of torch's error
        raise ValueError(f"{fn}: a reduction of a {input.ndim}-d tensor of unknown (NaN) sizes")
    return getattr(be.np, fn)(input, axis=d, keepdims=k)


def _check_positions_known(be: Any, name: str, input: Any, d: int | None) -> None:
    """Positions along a NaN (not yet known) Dask size: its graph would fail when run."""
    if math.isnan(input.size if d is None else input.shape[d]):
        raise ValueError(f"{name}: positions along unknown (NaN) sizes")


def _extreme(name: str, fn: str, arg_fn: str) -> Any:
    def impl(be: Any, input: Any, dim: VectorDim | None = None, keepdim: KeepDim = False, *,
             axis: Any = None, keepdims: bool | None = None) -> Any:
        if dim is not None and getattr(dim, "shape", None) is not None:  # max(x, other)
            return getattr(be.np, "maximum" if name == "max" else "minimum")(
                *_promote2(ordered(name, input), ordered(name, dim)))
        ordered(name, input)
        if input.ndim == 0 and dim is not None:  # still (values, indices)
            return values_indices[name](input.copy(), be.np.zeros((), dtype=dtypes.int64))
        d, k = dim, bool(keepdim)
        _check_nonempty(name, input, d)
        if d is None or isinstance(d, tuple):
            return _extremes(be, fn, input, d, k)
        _check_positions_known(be, name, input, d)
        values = _extremes(be, fn, input, d, k)
        indices = getattr(be.np, arg_fn)(input, axis=d, keepdims=k).astype(dtypes.int64)
        return values_indices[name](values, indices)
    impl.__name__ = name
    impl.__doc__ = (f"{name}(t) is the {name}imum element; {name}(t, dim) returns (values, "
                    f"indices); {name}(t, other) is elementwise." + _EXAMPLES[name])
    return impl


def _promote2(a: Any, b: Any) -> tuple[Any, Any]:
    dt = dtypes.result_type(a, b)
    return cast(a, dt), cast(b, dt)


op("max", tensor_dim_is_other=True)(_extreme("max", "max", "argmax"))
op("min", tensor_dim_is_other=True)(_extreme("min", "min", "argmin"))


@op(out=True, all_dims_if_empty=True)
def amax(be: Any, input: Any, dim: DimOrDims = (), keepdim: KeepDim = False, *,
         axis: Any = None, keepdims: bool | None = None) -> Any:
    """Maximum over ``dim`` (all dims when empty).

    >>> interop.tensor([[1, 5], [7, 2]]).amax(dim=0)
    tensor([7, 5], backend='numpy')
    """
    ordered("amax", input)
    _check_nonempty("amax", input, dim)
    return _extremes(be, "max", input, dim, bool(keepdim))


@op(out=True, all_dims_if_empty=True)
def amin(be: Any, input: Any, dim: DimOrDims = (), keepdim: KeepDim = False, *,
         axis: Any = None, keepdims: bool | None = None) -> Any:
    """Minimum over ``dim`` (all dims when empty)."""
    ordered("amin", input)
    _check_nonempty("amin", input, dim)
    return _extremes(be, "min", input, dim, bool(keepdim))


def _arg_extreme(name: str, fn: str) -> Any:
    def impl(be: Any, input: Any, dim: Dim | None = None, keepdim: KeepDim = False, *,
             axis: Any = None, keepdims: bool | None = None) -> Any:
        if input.dtype.kind == "b":
            raise RuntimeError(f"{name}(): does not support bool input; convert with .int() first")
        ordered(name, input)
        d, k = dim, bool(keepdim)
        _check_nonempty(name, input, d, arg=True)
        _check_positions_known(be, name, input, d)
        if d is None:
            out = getattr(be.np, fn)(be.np.reshape(input, (-1,)))
            return be.np.reshape(out, (1,) * input.ndim if k else ()).astype(dtypes.int64)
        return getattr(be.np, fn)(input, axis=d, keepdims=k).astype(dtypes.int64)
    impl.__name__ = name
    impl.__doc__ = (f"Index of the {name[3:]}imum (over the flattened tensor when dim is None)."
                    + _EXAMPLES.get(name, ""))
    return impl


op("argmax", out=True)(_arg_extreme("argmax", "argmax"))
op("argmin", out=True)(_arg_extreme("argmin", "argmin"))


def _logical(name: str) -> Any:
    def impl(be: Any, input: Any, dim: DimOrDims | None = None, keepdim: KeepDim = False, *,
             axis: Any = None, keepdims: bool | None = None) -> Any:
        return getattr(be.np, name)(input, axis=dim, keepdims=bool(keepdim))
    impl.__name__ = name
    impl.__doc__ = f"True where {name} element along ``dim`` is nonzero."
    return impl


op("all", out=True)(_logical("all"))
op("any", out=True)(_logical("any"))


@op(all_dims_if_empty=True)
def count_nonzero(be: Any, input: Any, dim: DimOrDims | None = None, *, axis: Any = None) -> Any:
    """Number of nonzero elements along ``dim`` (int64)."""
    count = be.np.count_nonzero(input, axis=dim)
    if type(count) is int:  # NumPy 2.2 for axis=None: a Python int (later: a NumPy scalar)
        count = dtypes.int64.type(count)
    return count.astype(dtypes.int64)


@op(out=True)
def logsumexp(be: Any, input: Any, dim: DimOrDims, keepdim: KeepDim = False) -> Any:
    """log(sum(exp(x))) along ``dim``, computed stably."""
    x = float_input(be, input)
    d = dim
    if x.size == 0:  # the sum of no exponentials is 0: log gives -inf, as torch
        out = be.np.log(be.np.sum(be.np.exp(x), axis=d, keepdims=True))
        return out if keepdim else be.np.squeeze(out, axis=d)
    m = be.np.max(x, axis=d, keepdims=True)
    m = be.np.where(be.np.isfinite(m), m, 0)
    out = be.np.log(be.np.sum(be.np.exp(x - m), axis=d, keepdims=True)) + m
    return out if keepdim else be.np.squeeze(out, axis=d)


def _scan(name: str, fn: str) -> Any:
    def impl(be: Any, input: Any, dim: VectorDim | None = None, *, dtype: DType = None,
             axis: Any = None) -> Any:
        if dim is None:
            raise TypeError(f"{name}() missing required argument 'dim': pass dim=0 (or the axis "
                            "to accumulate along)")
        x, d = (input, dim) if input.ndim else (be.np.reshape(input, (1,)), 0)
        # Dask's default scan fails on NaN sizes (empty chunks, or any NaN dimension when
        # run); blelloch does not
        how = {"method": "blelloch"} if math.isnan(x.size) else {}
        acc = _acc_dtype(input, dtype)
        out = _accumulated(functools.partial(getattr(be.np, fn), x, **how), acc, axis=d)
        return out if input.ndim else be.np.reshape(out, ())
    impl.__name__ = name
    impl.__doc__ = (f"Running {name[3:]} along ``dim`` (integers accumulate in int64)."
                    + _EXAMPLES.get(name, ""))
    return impl


op("cumsum", inplace=True, out=True,
   aliases=("cumulative_sum",))(_scan("cumsum", "cumsum"))
op("cumprod", inplace=True, out=True,
   aliases=("cumulative_prod",))(_scan("cumprod", "cumprod"))


@op(keywords={"axis": "dim"})
def diff(be: Any, input: Any, n: int = 1, dim: Dim = -1, prepend: Any = None,
         append: Any = None) -> Any:
    """n-th forward difference along ``dim``."""
    kwargs = {k: v for k, v in (("prepend", prepend), ("append", append)) if v is not None}
    return be.np.diff(input, n=n, axis=dim, **kwargs)


@op(out=True, all_dims_if_empty=True)
def norm(be: Any, input: Any, p: Any = "fro", dim: DimOrDims | None = None,
         keepdim: KeepDim = False, dtype: DType = None) -> Any:
    """Vector p-norm (2 by default) over ``dim`` or all elements (floating tensors only).

    >>> interop.tensor([3.0, 4.0]).norm()
    tensor(5., backend='numpy')
    >>> interop.tensor([[3.0, 4.0], [6.0, 8.0]]).norm(dim=1)
    tensor([ 5., 10.], backend='numpy')
    """
    x = input if dtype is None else input.astype(dtype)
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {x.dtype}; convert with .float() first")
    d = dim
    if p == "nuc":  # the sum of singular values of the matrices over ``dim`` (the last two)
        return matrix_norm(be, x, "nuc", dim=(-2, -1) if d is None else d, keepdim=keepdim)
    a = be.np.abs(x)
    if p in ("fro", 2, 2.0, None):
        return be.np.sqrt(be.np.sum(a * a, axis=d, keepdims=keepdim))
    if p in (float("inf"), "inf"):
        return be.np.max(a, axis=d, keepdims=keepdim)
    if p in (-float("inf"), "-inf"):
        return be.np.min(a, axis=d, keepdims=keepdim)
    if p == 0:
        return be.np.sum(a != 0, axis=d, keepdims=keepdim).astype(x.dtype)
    return be.np.sum(a ** p, axis=d, keepdims=keepdim) ** (1.0 / p)
