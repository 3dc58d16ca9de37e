"""NumPy's ufunc methods, and NumPy functions Dask lacks, built lazily from Dask's blocks.

Dask answers a ufunc's ``__call__`` and (for the ufuncs it wraps) ``outer`` only, and
computes the graph for a NumPy function it does not know.  Here the rest is expressed as
Dask graphs, so ``np.add.reduce(t)`` or ``np.sort(t, axis=0)`` on a Dask tensor stays lazy:

- ``reduce`` and ``accumulate`` of a reorderable ufunc (add, multiply, maximum, ...) are
  tree reductions (``da.reduction``, ``da.cumreduction``); every other ufunc is applied in
  order along its axis, which is rechunked into one chunk first (NumPy's order of
  operations, exactly).
- ``reduceat`` rechunks its axis into one chunk; ``outer`` broadcasts; ``at`` is a lazy
  write: the target's graph is replaced, so the tensor object sees the write.

Whatever needs values to build the graph (the indices of ``reduceat`` and ``at``, the
answer of ``np.array_equal``) is a value read through the backend's gate, under the
``dask_compute`` policy.  NumPy checks the arguments first, on a tiny array of the same
dtype and rank, so mistakes raise NumPy's own exceptions while the graph is built.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from . import views

_NO_VALUE = np._NoValue


# ------------------------------------------------------------------ checks with NumPy
def _probe_array(x: Any, keep: tuple = ()) -> np.ndarray:
    """Ones of ``x``'s dtype and rank, each size clipped to 1 (axes in ``keep`` kept whole);
    an unknown (NaN) Dask size counts as 1."""
    shape = tuple(1 if s != s else s if i in keep else min(s, 1) for i, s in enumerate(x.shape))
    return np.ones(shape, dtype=x.dtype)


def _probe(call: Callable, *args: Any, **kwargs: Any) -> np.dtype:
    """NumPy's own validation of a call, on probe arrays: its exception, or the result dtype."""
    with np.errstate(all="ignore"):
        return np.asarray(call(*args, **kwargs)).dtype


@functools.cache
def reorderable(ufunc: np.ufunc) -> bool:
    """Can NumPy reduce this ufunc over several axes at once (associative and commutative)?"""
    loop = next((t[0] for t in ufunc.types if t[0] in "?bhilqBHILQefdgFDG"), None)
    if loop is None:
        return False
    try:
        ufunc.reduce(np.ones((1, 1), dtype=loop), axis=(0, 1))
    except (ValueError, TypeError):
        return False
    return True


def _axes(axis: Any, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(int(a) % max(ndim, 1) for a in axes)


def _dask(x: Any) -> Any:
    import dask.array as da
    return x if isinstance(x, da.Array) else da.asarray(x)


def _write(target: Any, result: Any) -> Any:
    """``result`` into the Dask array ``target`` (its graph replaced, as Dask's ``out=`` does),
    cast as NumPy's ``out=`` casts, and replayed into the arrays ``target`` is a view of."""
    from dask.array.core import handle_out
    if result.dtype != target.dtype:
        result = result.astype(target.dtype, casting="same_kind")
    handle_out(target, result)
    views.written(target)
    return target


def _finish(result: Any, out: Any) -> Any:
    target = out[0] if isinstance(out, tuple) else out
    return result if target is None else _write(target, result)


# ------------------------------------------------------------------ the ufunc methods
def reduce(ufunc: np.ufunc, x: Any, axis: Any = 0, dtype: Any = None, out: Any = None,
           keepdims: bool = False, initial: Any = _NO_VALUE, where: Any = True) -> Any:
    x = _dask(x)
    masked = where is not True
    options = {"dtype": dtype, "initial": initial}
    probe_where = np.ones(_probe_array(x).shape, bool) if masked else True
    result_dtype = _probe(ufunc.reduce, _probe_array(x), axis=axis, keepdims=keepdims,
                          where=probe_where, **options)
    axes = _axes(axis, x.ndim)
    if axes and reorderable(ufunc):
        result = _tree_reduce(ufunc, x, axes, keepdims, result_dtype, initial, where)
    else:
        result = _ordered_reduce(ufunc, x, axes, keepdims, result_dtype, options, where)
    return _finish(result, out)


def _tree_reduce(ufunc: np.ufunc, x: Any, axes: tuple, keepdims: bool, dtype: np.dtype,
                 initial: Any, where: Any) -> Any:
    """Chunk by chunk, then the partial results: an associative, commutative ufunc.

    Elements outside ``where`` become the ufunc's identity (or ``initial``, for the
    idempotent maximum and minimum, which have none); ``initial`` joins once, at the end.
    """
    import dask.array as da
    identity = ufunc.identity
    filler = identity if identity is not None else initial
    if where is not True:
        x = da.where(where, x, np.array(filler).astype(x.dtype))
    inner = {} if identity is not None or initial is _NO_VALUE else {"initial": initial}

    def partial(chunk: Any, axis: Any, keepdims: bool) -> Any:
        with np.errstate(all="ignore"):
            return ufunc.reduce(chunk, axis=axis, keepdims=keepdims, dtype=dtype, **inner)

    ndim = x.ndim if keepdims else x.ndim - len(axes)
    meta = np.empty((0,) * ndim, dtype=dtype)
    result = da.reduction(x, partial, partial, axis=axes, keepdims=keepdims, dtype=dtype,
                          meta=meta)
    if identity is not None and initial is not _NO_VALUE:
        result = ufunc(result, np.array(initial).astype(dtype), dtype=dtype)
    return result


def _ordered_reduce(ufunc: np.ufunc, x: Any, axes: tuple, keepdims: bool, dtype: np.dtype,
                    options: dict, where: Any) -> Any:
    """NumPy's reduce on blocks that hold the whole reduced axis, in NumPy's order."""
    import dask.array as da
    x = x.rechunk({a: -1 for a in axes})
    operands = [x] if where is True else [x, da.broadcast_to(_dask(where), x.shape).rechunk(x.chunks)]
    chunks = tuple((1,) if i in axes else c for i, c in enumerate(x.chunks))
    options = {k: v for k, v in options.items() if v is not _NO_VALUE}

    def block(chunk: Any, keep: Any = True) -> Any:
        with np.errstate(all="ignore"):
            return ufunc.reduce(chunk, axis=axes, keepdims=True, where=keep, **options)

    result = da.map_blocks(block, *operands, chunks=chunks, dtype=dtype,
                           meta=np.empty((0,) * x.ndim, dtype=dtype))
    return result if keepdims or not axes else result.squeeze(axis=axes)


def accumulate(ufunc: np.ufunc, x: Any, axis: int = 0, dtype: Any = None,
               out: Any = None) -> Any:
    import dask.array as da
    x = _dask(x)
    result_dtype = _probe(ufunc.accumulate, _probe_array(x), axis=axis, dtype=dtype)
    axis = _axes(axis, x.ndim)[0]
    if reorderable(ufunc) and ufunc.identity is not None:
        from dask.array.reductions import cumreduction
        result = cumreduction(ufunc.accumulate, ufunc, ufunc.identity, x, axis=axis,
                              dtype=result_dtype)
    else:
        x = x.rechunk({axis: -1})
        result = x.map_blocks(_accumulate_block, ufunc, axis, dtype, dtype=result_dtype)
    return _finish(result, out)


def _accumulate_block(chunk: Any, ufunc: np.ufunc, axis: int, dtype: Any) -> Any:
    with np.errstate(all="ignore"):
        return ufunc.accumulate(chunk, axis=axis, dtype=dtype)


def reduceat(ufunc: np.ufunc, x: Any, indices: Any, axis: int = 0, dtype: Any = None,
             out: Any = None, *, read: Callable) -> Any:
    x = _dask(x)
    indices = np.asarray(read(indices, f"numpy.{ufunc.__name__}.reduceat's indices"))
    axis_ = _axes(axis, x.ndim)[0] if x.ndim else 0
    probe = _probe_array(x, keep=(axis_,))
    result_dtype = _probe(ufunc.reduceat, probe, indices, axis=axis, dtype=dtype)
    x = x.rechunk({axis_: -1})
    chunks = tuple((len(indices),) if i == axis_ else c for i, c in enumerate(x.chunks))

    def block(chunk: Any) -> Any:
        with np.errstate(all="ignore"):
            return ufunc.reduceat(chunk, indices, axis=axis_, dtype=dtype)

    return _finish(x.map_blocks(block, chunks=chunks, dtype=result_dtype), out)


def outer(ufunc: np.ufunc, a: Any, b: Any, **kwargs: Any) -> Any:
    """``ufunc(a[..., None, ...], b)``: Dask's broadcasting, for every binary ufunc."""
    a, b = _dask(a), _dask(b)
    return ufunc(a.reshape(a.shape + (1,) * b.ndim), b, **kwargs)


def at(ufunc: np.ufunc, target: Any, indices: Any, b: Any = None, *, read: Callable) -> None:
    """The write ``ufunc.at(target, indices, b)``, lazily: a task applies it to a copy of
    the whole target (NumPy's unbuffered semantics, repeated indices included), and the
    target's graph becomes that task's, rechunked as it was."""
    import dask
    import dask.array as da
    indices = read(indices, f"numpy.{ufunc.__name__}.at's indices")
    operands = () if b is None else (b,)
    _check_at(ufunc, target, indices, operands)
    written = dask.delayed(_at_copy)(ufunc, target, indices, *operands)
    new = da.from_delayed(written, target.shape, dtype=target.dtype, meta=target._meta)
    _write(target, new.rechunk(target.chunks))


def _check_at(ufunc: np.ufunc, target: Any, indices: Any, operands: tuple) -> None:
    """NumPy's checks of ``ufunc.at``, made now: the dtypes (on one element), the indices
    and the operand's shape (on a zero-stride view of the target's shape)."""
    probe_b = [np.ones((), getattr(b, "dtype", None) or np.result_type(b)) for b in operands]
    _probe(ufunc.at, np.ones(1, target.dtype), np.zeros(1, np.intp), *probe_b)
    selected = np.broadcast_to(np.empty((), bool), target.shape)[indices]
    for b in operands:
        np.broadcast_to(np.broadcast_to(np.empty((), bool), np.shape(b)), selected.shape)


def _at_copy(ufunc: np.ufunc, values: np.ndarray, indices: Any, *operands: Any) -> np.ndarray:
    values = values.copy()
    ufunc.at(values, indices, *operands)
    return values


METHODS: dict[str, Callable] = {"reduce": reduce, "accumulate": accumulate,
                                "reduceat": reduceat, "outer": outer, "at": at}
NEEDS_VALUES = frozenset({"reduceat", "at"})


# ------------------------------------------------------------------ NumPy functions Dask lacks
def _along_axis(func: Callable, x: Any, *args: Any, axis: Any = -1, **kwargs: Any) -> Any:
    """``func`` applied to blocks that hold the whole ``axis`` (None: the flattened array),
    as sort, argsort, partition and unwrap need; NumPy checks the call on a probe first."""
    x = _dask(x)
    if axis is None:
        x, axis = x.reshape(-1), 0
    axis = _axes(axis, x.ndim)[0] if x.ndim else axis
    probe = _probe_array(x, keep=(axis,))
    result_dtype = _probe(func, probe, *args, axis=axis, **kwargs)
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
    axis = _axes(axis, len(shape))[0]
    result, start = [], 0
    for piece in pieces:
        stop = start + piece.shape[axis]
        result.append(ary[(slice(None),) * axis + (slice(start, stop),)])
        start = stop
    return result


def _split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    return _split_axis(np.split, _dask(ary), indices_or_sections, axis)


def _array_split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    return _split_axis(np.array_split, _dask(ary), indices_or_sections, axis)


def _fixed_axis_split(func: Callable) -> Callable:
    return lambda ary, indices_or_sections: _split_axis(func, _dask(ary), indices_or_sections,
                                                        None)


def _against_whole(func: Callable, x: Any, *wholes: Any, **kwargs: Any) -> Any:
    """``func(block, *wholes)`` for each block of ``x``, each of ``wholes`` concatenated into
    every task: lazy in all of them (interp's sample points, digitize's bins)."""
    import dask.array as da
    x, wholes = _dask(x), [_dask(w) for w in wholes]
    dtype = _probe(func, _probe_array(x), *(np.ones(1, w.dtype) for w in wholes), **kwargs)
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
    arrays = [_dask(a) for a in tup]
    return da.concatenate([a.reshape(-1, 1) if a.ndim < 2 else a for a in arrays], axis=1)


def _take_along_axis(arr: Any, indices: Any, axis: Any = -1) -> Any:
    """Blocks holding the whole ``axis`` of both arrays, aligned on the other axes."""
    import dask.array as da
    arr, indices = _dask(arr), _dask(indices)
    if axis is None:
        arr, axis = arr.reshape(-1), 0
    _probe(np.take_along_axis, _probe_array(arr), np.zeros(_probe_array(indices).shape,
                                                           indices.dtype), axis=axis)
    axis = _axes(axis, arr.ndim)[0]
    shape = tuple(i if d == axis else max(a, i) for d, (a, i) in
                  enumerate(zip(arr.shape, indices.shape)))
    arr = da.broadcast_to(arr, shape[:axis] + (arr.shape[axis],) + shape[axis + 1:])
    indices = da.broadcast_to(indices, shape).rechunk({axis: -1})
    arr = arr.rechunk(tuple(-1 if d == axis else c for d, c in enumerate(indices.chunks)))
    return da.map_blocks(np.take_along_axis, arr, indices, axis=axis, dtype=arr.dtype,
                         chunks=indices.chunks)


def _multi_dot(arrays: Any, *, out: Any = None) -> Any:
    import dask.array as da
    return _finish(functools.reduce(da.dot, [_dask(a) for a in arrays]), out)


def _gufunc(func: Callable, signature: str, **sizes: Callable) -> Callable:
    """A NumPy linalg function over the last axes, batched: Dask's ``apply_gufunc`` (the core
    axes rechunked into one chunk); result dtypes from NumPy on a probe identity matrix."""
    def call(x: Any, *args: Any, **kwargs: Any) -> Any:
        import dask.array as da
        x = _dask(x)
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
        return _solve(a, _dask(b)[:, None])[..., 0]
    import dask.array as da
    a, b = _dask(a), _dask(b)
    a, b = (x.rechunk({x.ndim - 2: -1, x.ndim - 1: -1}) for x in (a, b))
    if a.shape[:-2] == b.shape[:-2]:  # one batch, chunked alike (Dask will not align them)
        b = b.rechunk(a.chunks[:-2] + b.chunks[-2:])
    dtype = np.linalg.solve(np.eye(1, dtype=a.dtype), np.eye(1, dtype=b.dtype)).dtype
    return da.apply_gufunc(np.linalg.solve, "(m,m),(m,n)->(m,n)", a, b, output_dtypes=dtype)


def _norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """Dask's norm, except the matrix norms made of singular values (its SVD wants one chunk
    along an axis): those per whole matrix."""
    import dask.array as da
    x = _dask(x)
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
    a, b = _dask(a), _dask(b)
    vector = b.ndim == 1
    a, b = a.rechunk(-1), (b[:, None] if vector else b).rechunk(-1)
    dtype = np.linalg.lstsq(np.eye(1, dtype=a.dtype), np.eye(1, dtype=b.dtype))[0].dtype

    def part(i: int, signature: str, dtype: Any) -> Any:
        return da.apply_gufunc(lambda x, y: np.asarray(np.linalg.lstsq(x, y, rcond=rcond)[i], dtype=dtype), signature,
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
    a, b = da.moveaxis(_dask(a), axisa, -1), da.moveaxis(_dask(b), axisb, -1)
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
        x = _dask(arguments.pop("a"))
        out = arguments.pop("out", None)
        axes = fft_axes(x.ndim, arguments)
        if "axes" in arguments:
            arguments["axes"] = axes  # NumPy's default with s= given (Dask takes the first axes)
        x = x.rechunk({a % x.ndim: -1 for a in axes}) if x.ndim else x
        return _finish(getattr(da.fft, func.__name__)(x, **arguments), out)
    call.__name__ = func.__name__
    return call


def _gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Any:
    """Dask's gradient, with the axes whose chunks are too short for ``edge_order`` in one chunk."""
    import dask.array as da
    f = _dask(f)
    axes = range(f.ndim) if axis is None else (axis,) if isinstance(axis, int) else axis
    short = {a % f.ndim: -1 for a in axes if min(f.chunks[a % f.ndim]) <= edge_order + 1}
    return da.gradient(f.rechunk(short) if short else f, *varargs, axis=axis, edge_order=edge_order)


def _searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None) -> Any:
    """Dask's searchsorted, which fails on a 0-d ``v``: searched as one value."""
    import dask.array as da
    v = _dask(v)
    if v.ndim:
        return da.searchsorted(_dask(a), v, side=side, sorter=sorter)
    return da.searchsorted(_dask(a), v.reshape(1), side=side, sorter=sorter).reshape(())


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
    return _dask(a).copy()


# ------------------------------------------------------------------ answers that are values
def _array_equal(a1: Any, a2: Any, equal_nan: bool = False, *, read: Callable) -> bool:
    a1, a2 = _dask(a1), _dask(a2)
    if a1.shape != a2.shape:
        return False
    same = a1 == a2
    if equal_nan and a1.dtype.kind in "fc" and a2.dtype.kind in "fc":
        import dask.array as da
        same = same | (da.isnan(a1) & da.isnan(a2))
    return bool(read(same.all(), "numpy.array_equal"))


def _array_equiv(a1: Any, a2: Any, *, read: Callable) -> bool:
    a1, a2 = _dask(a1), _dask(a2)
    try:
        np.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return False
    return bool(read((a1 == a2).all(), "numpy.array_equiv"))


def _allclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08,
              equal_nan: bool = False, *, read: Callable) -> bool:
    import dask.array as da
    close = da.isclose(_dask(a), _dask(b), rtol=rtol, atol=atol, equal_nan=equal_nan)
    return bool(read(close.all(), "numpy.allclose"))


@functools.cache
def lazy_functions() -> dict[Callable, Callable]:
    """NumPy function -> its lazy Dask implementation (or value read, taking ``read=``)."""
    la = np.linalg
    table: dict[Callable, Callable] = {
        np.sort: _sort, np.argsort: _argsort,
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
    for name in ("astype", "matrix_transpose", "unstack", "cumulative_sum", "cumulative_prod",
                 "unique_values", "unique_counts", "unique_inverse", "unique_all"):
        table[getattr(np, name)] = _compat(name)
    for name in ("matrix_transpose", "outer", "matrix_norm", "vector_norm", "diagonal",
                 "trace", "vecdot", "matmul", "tensordot"):
        table[getattr(la, name)] = _compat_linalg(name)
    return table


# Dask has these, but only for one chunk or tall-and-skinny chunks (matrices, transformed
# axes): the versions above, which rechunk lazily first, replace them.
REPLACE_DASKS = frozenset({"inv", "cholesky", "qr", "svd", "solve", "norm", "lstsq", "gradient", "searchsorted", *FFTS})

VALUE_ANSWERS = frozenset({np.array_equal, np.array_equiv, np.allclose})
