"""NumPy's ufunc methods on Dask arrays, built lazily from Dask's blocks.

Dask answers a ufunc's ``__call__`` and (for the ufuncs it wraps) ``outer`` only.  Here
the rest is expressed as Dask graphs, so ``np.add.reduce(t)`` on a Dask tensor stays lazy
(the NumPy functions Dask lacks: ``numpy_functions.py``):

- ``reduce`` and ``accumulate`` of a reorderable ufunc (add, multiply, maximum, ...) are
  tree reductions (``da.reduction``, ``da.cumreduction``); every other ufunc is applied in
  order along its axis, which is rechunked into one chunk first (NumPy's order of
  operations, exactly).
- ``reduceat`` rechunks its axis into one chunk; ``outer`` broadcasts; ``at`` is a lazy
  write: the target's graph is replaced, so the tensor object sees the write.

Whatever needs values to build the graph (the indices of ``reduceat`` and ``at``) is a
value read through the backend's gate, under the
``dask_compute`` policy.  NumPy checks the arguments first, on a tiny array of the same
dtype and rank, so mistakes raise NumPy's own exceptions while the graph is built.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...upstream import UpstreamChangedError, changed, private
from .. import views
from ..ufunc_probes import NO_VALUE, axes_of, numpy_checked, probe_array, reorderable


def as_dask(x: Any) -> Any:
    import dask.array as da
    return x if isinstance(x, da.Array) else da.asarray(x)


def _write(target: Any, result: Any) -> Any:
    """``result`` into the Dask array ``target`` (its graph replaced, as Dask's ``out=`` does),
    cast as NumPy's ``out=`` casts, and replayed into the arrays ``target`` is a view of."""
    if result.dtype != target.dtype:
        result = result.astype(target.dtype, casting="same_kind")
    private("dask.array.core", "handle_out")(target, result)
    if target.name != result.name:  # a Dask whose handle_out no longer writes in place
        raise UpstreamChangedError(changed("dask.array.core.handle_out writing out= in place",
                                           "dask", "the out= array would keep its values"))
    views.written(target)
    return target


def finish(result: Any, out: Any) -> Any:
    target = out[0] if isinstance(out, tuple) else out
    return result if target is None else _write(target, result)


# ------------------------------------------------------------------ the ufunc methods
def reduce(ufunc: np.ufunc, x: Any, axis: Any = 0, dtype: Any = None, out: Any = None,
           keepdims: bool = False, initial: Any = NO_VALUE, where: Any = True) -> Any:
    x = as_dask(x)
    masked = where is not True
    options = {"dtype": dtype, "initial": initial}
    probe_where = np.ones(probe_array(x).shape, bool) if masked else True
    result_dtype = numpy_checked(ufunc.reduce, probe_array(x), axis=axis, keepdims=keepdims,
                          where=probe_where, **options)
    axes = axes_of(axis, x.ndim)
    if axes and reorderable(ufunc):
        result = _tree_reduce(ufunc, x, axes, keepdims, result_dtype, initial, where)
    else:
        result = _ordered_reduce(ufunc, x, axes, keepdims, result_dtype, options, where)
    return finish(result, out)


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
    inner = {} if identity is not None or initial is NO_VALUE else {"initial": initial}

    def partial(chunk: Any, axis: Any, keepdims: bool) -> Any:
        with np.errstate(all="ignore"):
            return ufunc.reduce(chunk, axis=axis, keepdims=keepdims, dtype=dtype, **inner)

    ndim = x.ndim if keepdims else x.ndim - len(axes)
    meta = np.empty((0,) * ndim, dtype=dtype)
    result = da.reduction(x, partial, partial, axis=axes, keepdims=keepdims, dtype=dtype,
                          meta=meta)
    if identity is not None and initial is not NO_VALUE:
        result = ufunc(result, np.array(initial).astype(dtype), dtype=dtype)
    return result


def _ordered_reduce(ufunc: np.ufunc, x: Any, axes: tuple, keepdims: bool, dtype: np.dtype,
                    options: dict, where: Any) -> Any:
    """NumPy's reduce on blocks that hold the whole reduced axis, in NumPy's order."""
    import dask.array as da
    x = x.rechunk({a: -1 for a in axes})
    operands = [x] if where is True else [x, da.broadcast_to(as_dask(where), x.shape).rechunk(x.chunks)]
    chunks = tuple((1,) if i in axes else c for i, c in enumerate(x.chunks))
    options = {k: v for k, v in options.items() if v is not NO_VALUE}

    def block(chunk: Any, keep: Any = True) -> Any:
        with np.errstate(all="ignore"):
            return ufunc.reduce(chunk, axis=axes, keepdims=True, where=keep, **options)

    result = da.map_blocks(block, *operands, chunks=chunks, dtype=dtype,
                           meta=np.empty((0,) * x.ndim, dtype=dtype))
    return result if keepdims or not axes else result.squeeze(axis=axes)


def accumulate(ufunc: np.ufunc, x: Any, axis: int = 0, dtype: Any = None,
               out: Any = None) -> Any:
    x = as_dask(x)
    result_dtype = numpy_checked(ufunc.accumulate, probe_array(x), axis=axis, dtype=dtype)
    axis = axes_of(axis, x.ndim)[0]
    if reorderable(ufunc) and ufunc.identity is not None:
        from dask.array.reductions import cumreduction
        result = cumreduction(ufunc.accumulate, ufunc, ufunc.identity, x, axis=axis,
                              dtype=result_dtype)
    else:
        x = x.rechunk({axis: -1})
        result = x.map_blocks(_accumulate_block, ufunc, axis, dtype, dtype=result_dtype)
    return finish(result, out)


def _accumulate_block(chunk: Any, ufunc: np.ufunc, axis: int, dtype: Any) -> Any:
    with np.errstate(all="ignore"):
        return ufunc.accumulate(chunk, axis=axis, dtype=dtype)


def reduceat(ufunc: np.ufunc, x: Any, indices: Any, axis: int = 0, dtype: Any = None,
             out: Any = None, *, read: Callable) -> Any:
    x = as_dask(x)
    indices = np.asarray(read(indices, f"numpy.{ufunc.__name__}.reduceat's indices"))
    axis_ = axes_of(axis, x.ndim)[0] if x.ndim else 0
    probe = probe_array(x, keep=(axis_,))
    result_dtype = numpy_checked(ufunc.reduceat, probe, indices, axis=axis, dtype=dtype)
    x = x.rechunk({axis_: -1})
    chunks = tuple((len(indices),) if i == axis_ else c for i, c in enumerate(x.chunks))

    def block(chunk: Any) -> Any:
        with np.errstate(all="ignore"):
            return ufunc.reduceat(chunk, indices, axis=axis_, dtype=dtype)

    return finish(x.map_blocks(block, chunks=chunks, dtype=result_dtype), out)


def outer(ufunc: np.ufunc, a: Any, b: Any, **kwargs: Any) -> Any:
    """``ufunc(a[..., None, ...], b)``: Dask's broadcasting, for every binary ufunc."""
    a, b = as_dask(a), as_dask(b)
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
    numpy_checked(ufunc.at, np.ones(1, target.dtype), np.zeros(1, np.intp), *probe_b)
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
