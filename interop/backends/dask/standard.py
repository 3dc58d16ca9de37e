"""Where array-api-compat's Dask namespace departs from the standard: the standard's rule.

Found by the conformance tests against array-api-strict.  Dask is imported
only when one of these runs (``import interop`` never imports it).
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from ...dtypes import complex_result
from . import numpy_functions as numpy_dask


def _cholesky(x: Any, /, *, upper: bool = False) -> Any:
    """array-api-compat 1.16 returns Dask's default, the upper factor, for upper=False."""
    import dask.array as da
    return da.linalg.cholesky(x, lower=not upper)


def _eye(n_rows: int, n_cols: int | None = None, /, *, k: int = 0, dtype: Any = None,
         device: Any = None) -> Any:
    """dask.array.eye(N, M) with M > N builds a graph that fails to compute: cut a square one."""
    import dask.array as da
    n = max(n_rows, n_rows if n_cols is None else n_cols)
    return da.eye(n, M=n, k=k, dtype=dtype or np.float64)[:n_rows, :n_cols]


SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])


def _svd(x: Any, /, *, full_matrices: bool = True) -> SVDResult:
    """Dask has only the reduced SVD (the same as the full one for square matrices), of a
    2-D array whole along one dimension (rechunked here, lazily)."""
    import dask.array as da
    m, n = x.shape[-2:]
    if x.ndim != 2 or (full_matrices and m != n):
        raise ValueError(f"interop.array_api.linalg.svd on Dask: only one 2-D matrix, and for a "
                         f"non-square one ({m}x{n}) only full_matrices=False; pass that, or move "
                         "the data with x.to(backend='numpy')")
    return SVDResult(*da.linalg.svd(x.rechunk({1 if m >= n else 0: -1})))


def _svdvals(x: Any, /) -> Any:
    return _svd(x, full_matrices=False).S


def _matrix_rank(x: Any, /, *, rtol: Any = None) -> Any:
    """The standard's rank: singular values above rtol times the largest (array-api-compat
    asks Dask's svd for compute_uv=False, which it lacks)."""
    s = _svdvals(x)
    if rtol is None:
        rtol = max(x.shape[-2:]) * np.finfo(x.dtype).eps
    return (s > s.max(axis=-1, keepdims=True) * rtol).sum(axis=-1)


def _eig_block(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    w, v = np.linalg.eig(a)
    return complex_result(w), complex_result(v)


def _eig(x: Any, /) -> Any:
    """Dask has no eig: NumPy's on each matrix, the batch split in chunks as it is."""
    import dask.array as da
    want = np.result_type(x.dtype, np.complex64)
    x = x.rechunk({x.ndim - 2: -1, x.ndim - 1: -1})
    w, v = da.apply_gufunc(_eig_block, "(m,m)->(m),(m,m)", x, output_dtypes=[want, want])
    return type(np.linalg.eig(np.eye(1)))(w, v)


def _eigvals(x: Any, /) -> Any:
    return _eig(x)[0]


def _searchsorted(x1: Any, x2: Any, /, *, side: str = "left", sorter: Any = None) -> Any:
    """A Python scalar ``x2`` (2025.12) becomes an array of ``x1``'s dtype, and a 0-d one a
    1-element one: Dask's searchsorted takes arrays of at least one dimension."""
    import array_api_compat.dask.array as compat
    import dask.array as da
    if not hasattr(x2, "dtype"):
        x2 = da.asarray(np.asarray(x2, dtype=x1.dtype))
    if x2.ndim == 0:
        return compat.searchsorted(x1, x2.reshape(1), side=side, sorter=sorter)[0]
    return compat.searchsorted(x1, x2, side=side, sorter=sorter)


def _take(x: Any, indices: Any, /, *, axis: int | None = None) -> Any:
    """Dask's take refuses ``axis=None``, the standard's default (passed on by keyword by
    consumers): the only axis of a 1-d array, the flattened array otherwise, as NumPy's."""
    import array_api_compat.dask.array as compat
    if axis is None:
        x, axis = (x if x.ndim == 1 else x.reshape(-1)), 0
    return compat.take(x, indices, axis=axis)


def _result_dtype(qualname: str) -> Any:
    """Dask computes int8-int32 products and float32 inverses in 64 bits: cast back to the
    standard's result dtype (integer wrap-around is the same either way)."""
    def run(*args: Any, **kwargs: Any) -> Any:
        import array_api_compat.dask.array as compat
        fn = compat
        for part in qualname.split("."):
            fn = getattr(fn, part)
        out = fn(*args, **kwargs)
        want = np.result_type(*(a.dtype for a in args if hasattr(a, "dtype")))
        return out if out.dtype == want else out.astype(want)
    run.__name__ = qualname
    return run


_ONE_AXIS = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
_N_AXES = ("fftn", "ifftn", "rfftn", "irfftn")


def _fft(name: str) -> Any:
    """Dask transforms only axes held in one chunk: rechunk them first (lazily, as the
    standard's fft accepts any array)."""
    def run(x: Any, /, **kwargs: Any) -> Any:
        import array_api_compat.dask.array as compat
        axes = numpy_dask.fft_axes(x.ndim, {"axis": -1, **kwargs} if name in _ONE_AXIS else kwargs)
        if name in _N_AXES:
            kwargs["axes"] = axes  # the standard's default with s= given (Dask takes the first axes)
        x = x.rechunk({a % x.ndim: -1 for a in axes})
        return getattr(compat.fft, name)(x, **kwargs)
    run.__name__ = name
    return run


def _linspace(start: Any, stop: Any, /, num: int, **kwargs: Any) -> Any:
    """Dask computes the last point as start + (num - 1) * step, which can miss ``stop`` by
    an ulp; the standard (and NumPy) end exactly on it."""
    import array_api_compat.dask.array as compat
    import dask.array as da
    out = compat.linspace(start, stop, num, **kwargs)
    if not kwargs.get("endpoint", True) or num < 2:
        return out
    last = da.full((1,), stop, dtype=out.dtype, chunks=1)
    return da.concatenate([out[:-1], last.astype(out.dtype)]).rechunk(out.chunks)


def _repeat(x: Any, repeats: Any, /, *, axis: int | None = None) -> Any:
    """Dask repeats by a Python int along one axis of a non-empty array only; otherwise
    NumPy's repeat runs on blocks whole along the axis, with the counts in every task (the
    result's size along it is unknown, NaN, until computed, as the standard allows, except
    for an axis of size 0, which stays 0)."""
    import dask.array as da
    if axis is None:  # flattened; Dask's reshape fails on empty arrays of several chunks
        x, axis = (x.rechunk(-1) if x.size == 0 else x).reshape(-1), 0
    axis %= max(x.ndim, 1)
    if isinstance(repeats, int) and x.size:
        return da.repeat(x, repeats, axis=axis)
    counts = da.asarray(repeats)
    counts = counts.astype(np.int64) if counts.dtype == np.uint64 else counts
    x = x.rechunk({axis: -1})
    index = "abcdefghij"[:x.ndim]
    # a size known from the shapes: an int's multiple, or none of a chunk of no values
    size = (lambda c: c * repeats) if isinstance(repeats, int) else (lambda c: c and np.nan)
    return da.blockwise(lambda block, n: np.repeat(block, n, axis=axis), index, x, index,
                        counts, "z"[:counts.ndim], concatenate=True, dtype=x.dtype,
                        adjust_chunks={index[axis]: size}, meta=x._meta)


def _from_numpy_dask(qualname: str) -> Any:
    """What interop builds for NumPy's function of that name on Dask (batched linalg through
    apply_gufunc, take_along_axis on blocks whole along the axis): the standard's semantics
    here are NumPy 2's."""
    def run(*args: Any, **kwargs: Any) -> Any:
        fn: Any = np
        for part in qualname.split("."):
            fn = getattr(fn, part)
        return numpy_dask.lazy_functions()[fn](*args, **kwargs)
    run.__name__ = qualname
    return run


def _pinv(x: Any, /, *, rtol: Any = None) -> Any:
    """The standard's default cut-off, max(M, N) * eps of the dtype (NumPy's pinv, which
    Dask's runs per matrix, keeps singular values down to 1e-15 of the largest)."""
    import dask.array as da
    if x.size == 0:  # an empty batch: NumPy's pinv cannot broadcast an rtol per matrix there
        return x.swapaxes(-1, -2)
    if rtol is None:
        rtol = max(x.shape[-2:]) * np.finfo(x.dtype).eps
    if not isinstance(rtol, da.Array) and np.ndim(rtol) == 0:
        return _from_numpy_dask("linalg.pinv")(x, rtol=rtol)
    # an rtol per matrix: an operand of the batched call, chunked as the batch is
    whole = x.rechunk({x.ndim - 2: -1, x.ndim - 1: -1})
    per_matrix = da.broadcast_to(da.asarray(rtol), x.shape[:-2]).rechunk(whole.chunks[:-2])
    return da.apply_gufunc(_pinv_blocks, "(m,n),()->(n,m)", whole, per_matrix,
                           output_dtypes=x.dtype)


def _pinv_blocks(a: np.ndarray, rtol: np.ndarray) -> np.ndarray:
    return np.linalg.pinv(a, rtol=rtol)


def _expand_dims(x: Any, /, axis: Any = 0) -> Any:
    """Dask's expand_dims raises StopIteration for a repeated axis; the standard, NumPy's
    ValueError (and an axis out of range, IndexError)."""
    import dask.array as da
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    ndim = x.ndim + len(axes)
    placed = [a + ndim if a < 0 else a for a in axes]
    if any(not 0 <= a < ndim for a in placed):
        raise IndexError(f"expand_dims: axis {axis} is out of bounds for a result of {ndim} "
                         "dimensions")
    if len(set(placed)) != len(placed):
        raise ValueError(f"expand_dims: repeated axis in {axis}")
    return da.expand_dims(x, axis)


def _from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> Any:
    """A Dask array of ``x``: a Dask tensor's own graph (copied if asked), or a producer's
    memory (already brought in through DLPack) as one chunk."""
    import dask.array as da
    if isinstance(x, da.Array):
        return x.copy() if copy else x
    return da.from_array(np.array(x, copy=bool(copy)) if copy else np.asarray(x), chunks=-1)


RULES = {
    "from_dlpack": _from_dlpack,
    **{n: _from_numpy_dask(n) for n in (
        "take_along_axis", "linalg.det", "linalg.slogdet", "linalg.eigh", "linalg.eigvalsh",
        "linalg.matrix_power")},
    "linalg.pinv": _pinv,
    "expand_dims": _expand_dims,
    "linalg.cross": _from_numpy_dask("cross"),  # array-api-compat's Dask linalg lacks it
    "linalg.cholesky": _cholesky,
    "linspace": _linspace,
    "repeat": _repeat,
    "eye": _eye,
    **{n: _result_dtype(n) for n in (
        "matmul", "tensordot", "linalg.matmul", "linalg.tensordot", "linalg.inv")},
    "linalg.svd": _svd,
    "linalg.eig": _eig,
    "linalg.eigvals": _eigvals,
    "searchsorted": _searchsorted,
    "take": _take,
    "linalg.svdvals": _svdvals,
    "linalg.matrix_rank": _matrix_rank,
    **{f"fft.{name}": _fft(name) for name in _ONE_AXIS + _N_AXES},
}
