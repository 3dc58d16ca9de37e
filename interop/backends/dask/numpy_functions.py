"""NumPy functions Dask lacks (or has for one chunk only), built lazily from Dask's blocks.

Dask computes the graph for a NumPy function it does not know; here those functions are
Dask graphs, so ``np.sort(t, axis=0)`` or ``np.linalg.det(t)`` on a Dask tensor stays lazy:
an axis that must be whole is rechunked into one chunk (lazily), batched linear algebra
runs through ``apply_gufunc``.  An answer that is a value (``np.array_equal``) is a value
read through the backend's gate, under the ``dask_compute`` policy.
"""

from __future__ import annotations

import functools
import inspect
import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from ..ufunc_probes import axes_of, numpy_checked, probe_array
from .ufunc_methods import as_dask, finish


# ------------------------------------------------------------------ NumPy functions Dask lacks
def _linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, retstep: bool = False,
              dtype: Any = None, axis: int = 0, *, device: Any = None) -> Any:
    """NumPy's linspace (its formula and dtype) with endpoints that are lazy arrays: Dask's
    own reads them (``float(stop)``, a compute outside the value-read gate); here they
    stay in the graph."""
    import dask.array as da
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    dt = np.result_type(*(getattr(v, "dtype", v) for v in (start, stop)))
    dt = dt if np.issubdtype(dt, np.inexact) else np.result_type(dt, float)
    start, stop = as_dask(start).astype(dt), as_dask(stop).astype(dt)
    delta, div = stop - start, num - 1 if endpoint else num
    y = da.arange(num, dtype=dt).reshape((-1,) + (1,) * delta.ndim)
    step = delta / div if div > 0 else np.nan
    y = (da.where(step == 0, y / div * delta, y * step) if div > 0 else y * delta) + start
    if endpoint and num > 1:
        y = da.concatenate([y[:-1], da.broadcast_to(stop, y[-1:].shape)])  # exactly stop
    y = da.moveaxis(y, 0, axis) if axis != 0 else y
    if dtype is not None:
        y = (da.floor(y) if np.issubdtype(dtype, np.integer) else y).astype(dtype)
    return (y, step) if retstep else y


def _along_axis(func: Callable, x: Any, *args: Any, axis: Any = -1, **kwargs: Any) -> Any:
    """``func`` applied to blocks that hold the whole ``axis`` (None: the flattened array),
    as sort, argsort, partition and unwrap need; NumPy checks the call on a probe first."""
    x = as_dask(x)
    if axis is None:
        x, axis = x.reshape(-1), 0
    axis = axes_of(axis, x.ndim)[0] if x.ndim else axis
    probe = probe_array(x, keep=(axis,))
    result_dtype = numpy_checked(func, probe, *args, axis=axis, **kwargs)
    x = x.rechunk({axis: -1})
    return x.map_blocks(func, *args, axis=axis, dtype=result_dtype, **kwargs)


def _sort(a: Any, axis: Any = -1, kind: Any = None, order: Any = None, *,
          stable: Any = None) -> Any:
    return _along_axis(np.sort, a, axis=axis, kind=kind, order=order, stable=stable)


def _argsort(a: Any, axis: Any = -1, kind: Any = None, order: Any = None, *,
             stable: Any = None) -> Any:
    return _along_axis(np.argsort, a, axis=axis, kind=kind, order=order, stable=stable)


def _partition(func: Callable, a: Any, kth: Any, axis: Any = -1, kind: str = "introselect",
               order: Any = None) -> Any:
    return _along_axis(func, a, kth, axis=axis, kind=kind, order=order)


def _unwrap(p: Any, discont: Any = None, axis: int = -1, *, period: float = 2 * np.pi) -> Any:
    return _along_axis(np.unwrap, p, discont, axis=axis, period=period)


def _split_axis(func: Callable, ary: Any, sections: Any, axis: int | None) -> list:
    """The pieces of a split, as slices of the lazy array: NumPy splits a zero-stride probe
    of the same shape (its own checks and its piece sizes), then each piece is sliced out."""
    shape = tuple(int(s) for s in ary.shape)
    probe = np.broadcast_to(np.empty((), np.int8), shape)
    pieces = func(probe, sections) if axis is None else func(probe, sections, axis=axis)
    axis = {np.hsplit: 1 if len(shape) > 1 else 0, np.vsplit: 0, np.dsplit: 2}.get(func, axis)
    axis = axes_of(axis, len(shape))[0]
    result, start = [], 0
    for piece in pieces:
        stop = start + piece.shape[axis]
        result.append(ary[(slice(None),) * axis + (slice(start, stop),)])
        start = stop
    return result


def _split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    return _split_axis(np.split, as_dask(ary), indices_or_sections, axis)


def _array_split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    return _split_axis(np.array_split, as_dask(ary), indices_or_sections, axis)


def _fixed_axis_split(func: Callable) -> Callable:
    return lambda ary, indices_or_sections: _split_axis(func, as_dask(ary), indices_or_sections,
                                                        None)


def _against_whole(func: Callable, x: Any, *wholes: Any, **kwargs: Any) -> Any:
    """``func(block, *wholes)`` for each block of ``x``, each of ``wholes`` concatenated into
    every task: lazy in all of them (interp's sample points, digitize's bins)."""
    import dask.array as da
    x, wholes = as_dask(x), tuple(as_dask(w) for w in wholes)
    dtype = numpy_checked(func, probe_array(x), *(np.ones(1, w.dtype) for w in wholes), **kwargs)
    index = "abcdefghij"[:x.ndim]
    pairs = [p for w in wholes for p in (w, "z")]
    return da.blockwise(functools.partial(func, **kwargs), index, x, index, *pairs,
                        concatenate=True, dtype=dtype, meta=np.empty((0,) * x.ndim, dtype))


def _interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None,
            period: Any = None) -> Any:
    return _against_whole(np.interp, x, xp, fp, left=left, right=right, period=period)


def _digitize(x: Any, bins: Any, right: bool = False) -> Any:
    return _against_whole(np.digitize, x, bins, right=right)


def _column_stack(tup: Any) -> Any:
    import dask.array as da
    arrays = [as_dask(a) for a in tup]
    return da.concatenate([a.reshape(-1, 1) if a.ndim < 2 else a for a in arrays], axis=1)


def _take_along_axis(arr: Any, indices: Any, axis: Any = -1) -> Any:
    """Blocks holding the whole ``axis`` of both arrays, aligned on the other axes."""
    import dask.array as da
    arr, indices = as_dask(arr), as_dask(indices)
    if axis is None:
        arr, axis = arr.reshape(-1), 0
    numpy_checked(np.take_along_axis, probe_array(arr), np.zeros(probe_array(indices).shape,
                                                           indices.dtype), axis=axis)
    axis = axes_of(axis, arr.ndim)[0]
    shape = tuple(i if d == axis else max(a, i) for d, (a, i) in
                  enumerate(zip(arr.shape, indices.shape)))
    arr = da.broadcast_to(arr, shape[:axis] + (arr.shape[axis],) + shape[axis + 1:])
    indices = da.broadcast_to(indices, shape).rechunk({axis: -1})
    arr = arr.rechunk(tuple(-1 if d == axis else c for d, c in enumerate(indices.chunks)))
    return da.map_blocks(np.take_along_axis, arr, indices, axis=axis, dtype=arr.dtype,
                         chunks=indices.chunks)


def _multi_dot(arrays: Any, *, out: Any = None) -> Any:
    import dask.array as da
    return finish(functools.reduce(da.dot, [as_dask(a) for a in arrays]), out)


def _gufunc(func: Callable, signature: str, **sizes: Callable) -> Callable:
    """A NumPy linalg function over the last axes, batched: Dask's ``apply_gufunc`` (the core
    axes rechunked into one chunk); result dtypes from NumPy on a probe identity matrix."""
    def call(x: Any, *args: Any, **kwargs: Any) -> Any:
        import dask.array as da
        x = as_dask(x)
        if x.ndim < 2:  # NumPy's own error for a vector
            func(np.ones((1,) * x.ndim, x.dtype), *args, **kwargs)
        probe = np.eye(2, dtype=x.dtype)
        with np.errstate(all="ignore"):
            ret = func(probe, *args, **kwargs)
        outs = tuple(ret) if isinstance(ret, tuple) else (ret,)
        m, n = x.shape[-2:]
        x = x.rechunk({x.ndim - 2: -1, x.ndim - 1: -1})
        return da.apply_gufunc(lambda a: func(a, *args, **kwargs), signature, x,
                               output_dtypes=[np.asarray(o).dtype for o in outs]
                               if len(outs) > 1 else np.asarray(outs[0]).dtype,
                               output_sizes={k: f(m, n) for k, f in sizes.items()})
    return call


def _slogdet(x: Any) -> Any:
    sign, logabsdet = _gufunc(np.linalg.slogdet, "(m,m)->(),()")(x)
    return type(np.linalg.slogdet(np.eye(1)))(sign, logabsdet)


def _qr(x: Any, mode: str = "reduced") -> Any:
    if mode == "r":
        return _gufunc(np.linalg.qr, "(m,n)->(k,n)", k=min)(x, mode="r")
    signature = "(m,n)->(m,m),(m,n)" if mode == "complete" else "(m,n)->(m,k),(k,n)"
    q, r = _gufunc(np.linalg.qr, signature, k=min)(x, mode=mode)
    return type(np.linalg.qr(np.eye(1)))(q, r)


def _svd(x: Any, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False) -> Any:
    if not compute_uv:
        return _gufunc(np.linalg.svd, "(m,n)->(k)", k=min)(x, compute_uv=False, hermitian=hermitian)
    signature = "(m,n)->(m,m),(k),(n,n)" if full_matrices else "(m,n)->(m,k),(k),(k,n)"
    u, s, vh = _gufunc(np.linalg.svd, signature, k=min)(x, full_matrices=full_matrices,
                                                         hermitian=hermitian)
    return type(np.linalg.svd(np.eye(1)))(u, s, vh)


def _solve(a: Any, b: Any) -> Any:
    """Batched solve with B a (batch of) matrices; each matrix in one chunk, as LAPACK needs.
    A 1-d B is one vector (NumPy 2's rule): solved as a column."""
    if getattr(b, "ndim", 0) == 1:
        return _solve(a, as_dask(b)[:, None])[..., 0]
    import dask.array as da
    a, b = as_dask(a), as_dask(b)
    a, b = (x.rechunk({x.ndim - 2: -1, x.ndim - 1: -1}) for x in (a, b))
    if a.shape[:-2] == b.shape[:-2]:  # one batch, chunked alike (Dask will not align them)
        b = b.rechunk(a.chunks[:-2] + b.chunks[-2:])
    dtype = np.linalg.solve(np.eye(1, dtype=a.dtype), np.eye(1, dtype=b.dtype)).dtype
    return da.apply_gufunc(np.linalg.solve, "(m,m),(m,n)->(m,n)", a, b, output_dtypes=dtype)


def _norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """Dask's norm, except the matrix norms made of singular values (its SVD wants one chunk
    along an axis): those per whole matrix."""
    import dask.array as da
    x = as_dask(x)
    if ord not in ("nuc", 2, -2) or axis is None or len(axis) != 2:
        return da.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)
    rows, cols = (a % x.ndim for a in axis)
    s = _gufunc(np.linalg.svdvals, "(m,n)->(k)", k=min)(da.moveaxis(x, (rows, cols), (-2, -1)))
    out = s.sum(-1) if ord == "nuc" else s.max(-1) if ord == 2 else s.min(-1)
    return da.expand_dims(out, tuple(sorted((rows, cols)))) if keepdims else out


def _lstsq(a: Any, b: Any, rcond: Any = None) -> Any:
    """NumPy's least squares on the whole (2-d) system: Dask's wants tall-and-skinny chunks
    and takes no ``rcond``.  (solution, residuals, rank, singular values)."""
    import dask.array as da
    a, b = as_dask(a), as_dask(b)
    vector = b.ndim == 1
    a, b = a.rechunk(-1), (b[:, None] if vector else b).rechunk(-1)
    dtype = np.linalg.lstsq(np.eye(1, dtype=a.dtype), np.eye(1, dtype=b.dtype))[0].dtype

    def part(i: int, signature: str, dtype: Any) -> Any:
        return da.apply_gufunc(lambda x, y: np.asarray(np.linalg.lstsq(x, y, rcond=rcond)[i],
                                                       dtype=dtype), signature,
                               a, b, output_dtypes=dtype)
    x = part(0, "(m,n),(m,k)->(n,k)", dtype)
    rank = part(2, "(m,n),(m,k)->()", np.dtype(np.int64))
    residuals = da.zeros((0,), dtype=a.real.dtype if a.dtype.kind == "c" else dtype)
    return x[:, 0] if vector else x, residuals, rank, _gufunc(np.linalg.svdvals, "(m,n)->(k)", k=min)(a)


def _cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
           axis: Any = None) -> Any:
    """The 3-vector cross product from slices along ``axis`` (Dask has no cross)."""
    import dask.array as da
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = da.moveaxis(as_dask(a), axisa, -1), da.moveaxis(as_dask(b), axisb, -1)
    if a.shape[-1] != 3 or b.shape[-1] != 3:
        raise ValueError("cross: interop's Dask cross product takes 3-vectors only, got "
                         f"{a.shape[-1]} and {b.shape[-1]} components")
    a, b = da.broadcast_arrays(a, b)
    x, y, z = (a[..., i] for i in range(3))
    u, v, w = (b[..., i] for i in range(3))
    return da.moveaxis(da.stack([y * w - z * v, z * u - x * w, x * v - y * u], axis=-1), -1, axisc)


FFTS = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
        "fftn", "ifftn", "rfftn", "irfftn")


def fft_axes(ndim: int, arguments: dict) -> tuple[int, ...]:
    """The axes a NumPy-style FFT transforms, from its (bound) arguments."""
    if "axis" in arguments:
        axis = arguments["axis"]
        return (-1 if axis is None else axis,)
    axes, s = arguments.get("axes"), arguments.get("s")
    if axes is not None:
        return tuple(axes)
    return tuple(range(ndim - len(s) if s is not None else 0, ndim))


def _fft(func: Callable) -> Callable:
    """Dask's FFT, with the transformed axes rechunked into one chunk first (lazily): Dask
    transforms only axes held in one chunk."""
    signature = inspect.signature(func)

    def call(*args: Any, **kwargs: Any) -> Any:
        import dask.array as da
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        x = as_dask(arguments.pop("a"))
        out = arguments.pop("out", None)
        axes = fft_axes(x.ndim, arguments)
        if "axes" in arguments:
            arguments["axes"] = axes  # NumPy's default with s= given (Dask takes the first axes)
        x = x.rechunk({a % x.ndim: -1 for a in axes}) if x.ndim else x
        return finish(getattr(da.fft, func.__name__)(x, **arguments), out)
    call.__name__ = func.__name__
    return call


def _gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Any:
    """Dask's gradient, with the axes whose chunks are too short for ``edge_order`` in one
    chunk, answered in NumPy's form: one array for one axis, a tuple for several (Dask's is
    a list either way).  Coordinates given as arrays (xarray's ``differentiate`` passes its
    coordinate, a Dask array once beside Dask data) are taken lazily: Dask's own slices
    host coordinates per chunk and refuses Dask ones."""
    import dask.array as da
    f = as_dask(f)
    axes = [a % f.ndim for a in (range(f.ndim) if axis is None else
                                 (axis,) if isinstance(axis, int) else axis)]
    if any(math.isnan(c) for a in axes for c in f.chunks[a]):  # (Dask asserts)
        raise ValueError("gradient needs the chunk sizes along its axes, unknown (NaN) here")
    one_scalar = len(varargs) == 1 and not getattr(varargs[0], "ndim", 0)
    spacings = list(varargs) * len(axes) if one_scalar else list(varargs) or [1.0] * len(axes)
    if len(spacings) != len(axes):
        raise TypeError(f"numpy.gradient takes one spacing or one per axis ({len(axes)}), "
                        f"not {len(spacings)}")
    short = {a: -1 for a in axes if min(f.chunks[a]) <= edge_order + 1}
    f = f.rechunk(short) if short else f
    out = [_gradient_along(f, x, a, edge_order) if isinstance(x, da.Array) and x.ndim
           else da.gradient(f, x, axis=a, edge_order=edge_order) for a, x in zip(axes, spacings)]
    return out[0] if len(out) == 1 else tuple(out)


def _gradient_along(f: Any, x: Any, axis: int, edge_order: int) -> Any:
    """NumPy's gradient of ``f`` along ``axis`` at coordinates ``x`` (a 1-d Dask array),
    by NumPy's second-order formulas on shifted slices: lazy in ``f`` and ``x``."""
    import dask.array as da
    if edge_order not in (1, 2):
        raise ValueError(f"numpy.gradient: 'edge_order' {edge_order} is not supported (1 or 2)")
    if x.ndim != 1 or math.isnan(x.shape[0]) or x.shape[0] != f.shape[axis]:
        raise ValueError(f"numpy.gradient: when 1d, distances must match the length of the "
                         f"corresponding dimension ({f.shape[axis]} along axis {axis}, "
                         f"coordinates of shape {x.shape})")
    if f.shape[axis] < edge_order + 1:
        raise ValueError(f"numpy.gradient: shape of array too small to calculate a numerical "
                         f"gradient along axis {axis}: at least edge_order + 1 = "
                         f"{edge_order + 1} elements are required")
    shape = [1] * f.ndim

    def along(v: Any) -> Any:  # coefficients broadcast along the axis
        shape[axis] = v.shape[0]
        return v.reshape(tuple(shape))

    def part(start: int | None, stop: int | None) -> Any:
        index = [slice(None)] * f.ndim
        index[axis] = slice(start, stop)
        return f[tuple(index)]

    dx = x[1:] - x[:-1]
    dx1, dx2 = dx[:-1], dx[1:]
    interior = along(-dx2 / (dx1 * (dx1 + dx2))) * part(None, -2) + \
        along((dx2 - dx1) / (dx1 * dx2)) * part(1, -1) + along(dx1 / (dx2 * (dx1 + dx2))) * part(2, None)
    if edge_order == 1:
        first = (part(1, 2) - part(0, 1)) / along(dx[:1])
        last = (part(-1, None) - part(-2, -1)) / along(dx[-1:])
    else:
        a1, a2, b1, b2 = dx[:1], dx[1:2], dx[-2:-1], dx[-1:]
        first = along(-(2 * a1 + a2) / (a1 * (a1 + a2))) * part(0, 1) + \
            along((a1 + a2) / (a1 * a2)) * part(1, 2) + along(-a1 / (a2 * (a1 + a2))) * part(2, 3)
        last = along(b2 / (b1 * (b1 + b2))) * part(-3, -2) + \
            along(-(b1 + b2) / (b1 * b2)) * part(-2, -1) + \
            along((2 * b2 + b1) / (b2 * (b1 + b2))) * part(-1, None)
    return da.concatenate([first, interior, last], axis=axis)


def _searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None) -> Any:
    """Dask's searchsorted, which fails on a 0-d ``v``: searched as one value."""
    import dask.array as da
    v = as_dask(v)
    if v.ndim:
        return da.searchsorted(as_dask(a), v, side=side, sorter=sorter)
    return da.searchsorted(as_dask(a), v.reshape(1), side=side, sorter=sorter).reshape(())


def _eigh(x: Any, UPLO: str = "L") -> Any:  # noqa: N803 - NumPy's argument name
    values, vectors = _gufunc(np.linalg.eigh, "(m,m)->(m),(m,m)")(x, UPLO=UPLO)
    return type(np.linalg.eigh(np.eye(1)))(values, vectors)


def _compat_linalg(name: str) -> Callable:
    """The standard's linalg function (NumPy 2 adopted its signature) in array-api-compat's
    Dask namespace."""
    def call(*args: Any, **kwargs: Any) -> Any:
        import array_api_compat.dask.array.linalg as compat
        return getattr(compat, name)(*args, **kwargs)
    return call


def _compat(name: str) -> Callable:
    def call(*args: Any, **kwargs: Any) -> Any:
        import array_api_compat.dask.array as compat
        return getattr(compat, name)(*args, **kwargs)
    return call


def _size(a: Any, axis: int | None = None) -> Any:
    return a.size if axis is None else a.shape[axis]


def _copy(a: Any, order: str = "K", subok: bool = False) -> Any:
    return as_dask(a).copy()


# ------------------------------------------------------------------ answers that are values
def _array_equal(a1: Any, a2: Any, equal_nan: bool = False, *, read: Callable) -> bool:
    a1, a2 = as_dask(a1), as_dask(a2)
    if a1.shape != a2.shape:
        return False
    same = a1 == a2
    if equal_nan and a1.dtype.kind in "fc" and a2.dtype.kind in "fc":
        import dask.array as da
        same = same | (da.isnan(a1) & da.isnan(a2))
    return bool(read(same.all(), "numpy.array_equal"))


def _array_equiv(a1: Any, a2: Any, *, read: Callable) -> bool:
    a1, a2 = as_dask(a1), as_dask(a2)
    try:
        np.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return False
    return bool(read((a1 == a2).all(), "numpy.array_equiv"))


def _allclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08,
              equal_nan: bool = False, *, read: Callable) -> bool:
    import dask.array as da
    close = da.isclose(as_dask(a), as_dask(b), rtol=rtol, atol=atol, equal_nan=equal_nan)
    return bool(read(close.all(), "numpy.allclose"))


@functools.cache
def lazy_functions() -> dict[Callable, Callable]:
    """NumPy function -> its lazy Dask implementation (or value read, taking ``read=``)."""
    la = np.linalg
    table: dict[Callable, Callable] = {
        np.sort: _sort, np.argsort: _argsort, np.linspace: _linspace,
        np.partition: functools.partial(_partition, np.partition),
        np.argpartition: functools.partial(_partition, np.argpartition),
        np.unwrap: _unwrap, np.interp: _interp, np.digitize: _digitize, np.take_along_axis: _take_along_axis,
        np.split: _split, np.array_split: _array_split, np.column_stack: _column_stack,
        **{f: _fixed_axis_split(f) for f in (np.hsplit, np.vsplit, np.dsplit)},
        np.size: _size, np.copy: _copy,
        la.det: _gufunc(la.det, "(m,m)->()"), la.slogdet: _slogdet, la.eigh: _eigh,
        la.eigvalsh: _gufunc(la.eigvalsh, "(m,m)->(m)"),
        la.pinv: _gufunc(la.pinv, "(m,n)->(n,m)"),
        la.matrix_power: _gufunc(la.matrix_power, "(m,m)->(m,m)"),
        la.cond: _gufunc(la.cond, "(m,n)->()"),
        la.svdvals: _gufunc(la.svdvals, "(m,n)->(k)", k=min),
        la.matrix_rank: _gufunc(la.matrix_rank, "(m,n)->()"),
        la.multi_dot: _multi_dot, np.gradient: _gradient, np.searchsorted: _searchsorted,
        **{getattr(np.fft, name): _fft(getattr(np.fft, name)) for name in FFTS},
        la.inv: _gufunc(la.inv, "(m,m)->(m,m)"), la.cholesky: _gufunc(la.cholesky, "(m,m)->(m,m)"),
        la.qr: _qr, la.svd: _svd, la.lstsq: _lstsq, np.cross: _cross, la.solve: _solve, la.norm: _norm,
        np.array_equal: _array_equal, np.array_equiv: _array_equiv, np.allclose: _allclose,
    }
    # NumPy's Array API names (2.0; unstack, cumulative_sum and cumulative_prod 2.1): asked
    # for by name, so a NumPy without one has no entry instead of no table.
    for name in ("astype", "matrix_transpose", "unstack", "cumulative_sum", "cumulative_prod",
                 "unique_values", "unique_counts", "unique_inverse", "unique_all"):
        if hasattr(np, name):
            table[getattr(np, name)] = _compat(name)
    for name in ("matrix_transpose", "outer", "matrix_norm", "vector_norm", "diagonal",
                 "trace", "vecdot", "matmul", "tensordot"):
        if hasattr(la, name):
            table[getattr(la, name)] = _compat_linalg(name)
    return table


# Dask has these, but only for one chunk or tall-and-skinny chunks (matrices, transformed
# axes): the versions above, which rechunk lazily first, replace them.
REPLACE_DASKS = frozenset({"inv", "cholesky", "qr", "svd", "solve", "norm", "lstsq", "gradient",
                           "searchsorted", *FFTS})

VALUE_ANSWERS = frozenset({np.array_equal, np.array_equiv, np.allclose})
