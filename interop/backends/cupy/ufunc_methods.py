"""NumPy's ufunc methods that CuPy's ufuncs lack, from whole-array kernels.

CuPy's ufuncs have ``reduce`` and ``accumulate`` for ``add`` and ``multiply`` only (its
``sum``, ``prod``, ``cumsum``, ``cumprod``, without ``initial=`` or ``where=``),
``reduceat`` for ``add``, and ``at`` for the ufuncs with a scatter kernel (``add``,
``subtract``, ``maximum``, ``minimum``, ``bitwise_and/or/xor``) in a few dtypes
(``NATIVE``; tests/test_cupy_api.py checks the table against CuPy).  The rest is built here,
in NumPy's order of operations, from calls any NumPy-like namespace ``xp`` has:

- ``reduce``: a reorderable ufunc (associative and commutative) pairwise, in log2(n)
  launches; any other one as a left fold along the axis, NumPy's order exactly;
- ``accumulate``: a scan (Hillis-Steele, log2(n) launches) for a reorderable ufunc, else
  the fold kept at every step;
- ``reduceat``: the segments gathered into a padded (segments, longest) block, then reduced
  as above along its last axis; the indices are a value read (they are few);
- ``at``: the updates sorted by target position, then applied in rounds, the k-th update
  of every position in round k, so repeated indices accumulate in NumPy's order.

NumPy checks every call first on a tiny probe array (``ufunc_probes``): its exceptions and
result dtype are NumPy's.  Written against ``xp`` (``cupy``), these run on NumPy too, where
tests/test_cupy_ufunc_methods.py compares them with NumPy's own methods; the gpulike test
backend runs them in every ufunc test.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..ufunc_probes import NO_VALUE, axes_of, numpy_checked, probe_array, reorderable

NATIVE: dict[str, frozenset[str]] = {
    "reduce": frozenset({"add", "multiply"}), "accumulate": frozenset({"add", "multiply"}),
    "reduceat": frozenset({"add"}),
    "at": frozenset({"add", "subtract", "maximum", "minimum", "bitwise_and", "bitwise_or",
                     "bitwise_xor"}),
}
"""The methods CuPy's ufuncs have themselves (``outer``: every binary ufunc)."""
_AT_DTYPES = {  # the dtypes of CuPy's scatter kernels (cupy/_core/_routines_indexing.pyx)
    "add": "int32 int64 float16 float32 float64 uint32 uint64",
    "subtract": "int32 uint32",
    "maximum": "int32 int64 float32 float64 uint32 uint64",
    "minimum": "int32 int64 float32 float64 uint32 uint64",
    "bitwise_and": "int32 int64 uint32 uint64", "bitwise_or": "int32 int64 uint32 uint64",
    "bitwise_xor": "int32 int64 uint32 uint64"}
_IDEMPOTENT = frozenset({"maximum", "minimum", "fmax", "fmin", "logical_and", "logical_or",
                         "bitwise_and", "bitwise_or", "gcd", "lcm"})
"""f(a, a) == a: a segment padded with copies of its own elements reduces to the same."""


def native(ufunc: np.ufunc, method: str, kwargs: dict, dtypes: tuple = ()) -> bool:
    """Whether CuPy's own ``ufunc.<method>`` answers this call as NumPy would."""
    name = ufunc.__name__
    if name not in NATIVE.get(method, ()):
        return False
    if method in ("reduce", "accumulate"):
        return kwargs.get("initial", NO_VALUE) is NO_VALUE and kwargs.get("where", True) is True
    if method == "at":  # CuPy casts the values to the target's dtype first: same dtypes only
        return len(set(dtypes)) == 1 and str(dtypes[0]) in _AT_DTYPES[name].split()
    return True


def _fn(xp: Any, ufunc: np.ufunc) -> Callable:
    return getattr(xp, ufunc.__name__, ufunc)


def _last(xp: Any, x: Any, axes: tuple) -> Any:
    """``x`` with ``axes`` moved last and merged into one."""
    rest = [a for a in range(x.ndim) if a not in axes]
    moved = xp.transpose(x, (*rest, *axes))
    return xp.reshape(moved, tuple(x.shape[a] for a in rest) + (math.prod(x.shape[a] for a in axes),))


def _fold(xp: Any, f: Callable, y: Any, start: Any = None, mask: Any = None) -> Any:
    """``y`` reduced along its last axis: pairwise where ``start`` and ``mask`` are None (the
    caller checked the ufunc is reorderable), else left to right from ``start``."""
    if start is None and mask is None:
        while y.shape[-1] > 1:
            half = y.shape[-1] // 2
            paired = f(y[..., :half], y[..., half:2 * half])
            y = xp.concatenate([paired, y[..., 2 * half:]], axis=-1)
        return y[..., 0]
    acc = start
    for k in range(y.shape[-1]):
        step = f(acc, y[..., k]) if acc is not None else y[..., k]
        acc = step if mask is None or acc is None else xp.where(mask[..., k], step, acc)
    return acc


def _written(xp: Any, result: Any, out: Any) -> Any:
    target = out[0] if isinstance(out, tuple) else out
    if target is None:
        return result
    target[...] = result
    return target


def reduce(xp: Any, ufunc: np.ufunc, x: Any, axis: Any = 0, dtype: Any = None, out: Any = None,
           keepdims: bool = False, initial: Any = NO_VALUE, where: Any = True) -> Any:
    masked = where is not True
    probe_where = np.ones(probe_array(x).shape, bool) if masked else True
    result_dtype = numpy_checked(ufunc.reduce, probe_array(x), axis=axis, dtype=dtype,
                                 keepdims=keepdims, initial=initial, where=probe_where)
    axes = axes_of(axis, x.ndim)
    f = _fn(xp, ufunc)
    y = xp.asarray(x).astype(result_dtype)
    shape = tuple(1 if a in axes else n for a, n in enumerate(x.shape)) if keepdims else \
        tuple(n for a, n in enumerate(x.shape) if a not in axes)
    if not axes:
        result = y if initial is NO_VALUE else f(xp.asarray(initial, dtype=result_dtype), y)
        return _written(xp, xp.where(where, result, y) if masked else result, out)
    y = _last(xp, y, axes)
    mask = _last(xp, xp.broadcast_to(xp.asarray(where), x.shape), axes) if masked else None
    filler = ufunc.identity if initial is NO_VALUE else initial
    start = None if filler is None else xp.full(y.shape[:-1], filler, dtype=result_dtype)
    if reorderable(ufunc) and y.shape[-1]:
        if mask is not None:  # masked out: the identity changes nothing (maximum & co.
            fill = initial if ufunc.identity is None else ufunc.identity  # have initial)
            y = xp.where(mask, y, xp.asarray(fill, dtype=result_dtype))
        result = _fold(xp, f, y)
        if initial is not NO_VALUE:
            result = f(start, result)
    elif y.shape[-1] == 0 or mask is not None or initial is not NO_VALUE:
        result = _fold(xp, f, y, start, mask) if y.shape[-1] else start
    else:
        result = _fold(xp, f, y[..., 1:], y[..., 0])  # NumPy's order: from the first element
    return _written(xp, xp.reshape(result.astype(result_dtype), shape), out)


def accumulate(xp: Any, ufunc: np.ufunc, x: Any, axis: int = 0, dtype: Any = None,
               out: Any = None) -> Any:
    result_dtype = numpy_checked(ufunc.accumulate, probe_array(x), axis=axis, dtype=dtype)
    axis = axes_of(axis, x.ndim)[0]
    f = _fn(xp, ufunc)
    y = xp.moveaxis(xp.asarray(x).astype(result_dtype), axis, -1)
    n = y.shape[-1]
    if reorderable(ufunc):
        step = 1
        while step < n:  # each element combined with the one ``step`` before it
            y = xp.concatenate([y[..., :step], f(y[..., :-step], y[..., step:])], axis=-1)
            step *= 2
    elif n:
        acc, steps = y[..., 0], [y[..., 0]]
        for k in range(1, n):
            acc = f(acc, y[..., k])
            steps.append(acc)
        y = xp.stack(steps, axis=-1)
    return _written(xp, xp.moveaxis(y.astype(result_dtype), -1, axis), out)


def reduceat(xp: Any, ufunc: np.ufunc, x: Any, indices: Any, axis: int = 0, dtype: Any = None,
             out: Any = None, *, read: Callable) -> Any:
    on_host = isinstance(indices, (list, tuple, int, np.integer, np.ndarray))
    starts = np.asarray(indices if on_host else read(indices), dtype=np.intp).reshape(-1)
    axis_ = axes_of(axis, x.ndim)[0] if x.ndim else 0
    result_dtype = numpy_checked(ufunc.reduceat, probe_array(x, keep=(axis_,)), starts,
                                 axis=axis, dtype=dtype)
    n = x.shape[axis_]
    ends = np.append(starts[1:], n)
    lengths = np.where(ends > starts, ends - starts, 1)  # an empty segment: x[start] alone
    longest = int(lengths.max()) if lengths.size else 1
    offsets = np.arange(longest)
    gather = starts[:, None] + np.minimum(offsets, lengths[:, None] - 1)  # padding: repeats
    keep = offsets < lengths[:, None]
    y = xp.moveaxis(xp.asarray(x).astype(result_dtype), axis_, -1)
    block = xp.take(y, gather.reshape(-1), axis=-1).reshape(y.shape[:-1] + gather.shape)
    f = _fn(xp, ufunc)
    if reorderable(ufunc) and (ufunc.identity is not None or ufunc.__name__ in _IDEMPOTENT):
        if ufunc.identity is not None:
            block = xp.where(xp.asarray(keep), block, xp.asarray(ufunc.identity, result_dtype))
        result = _fold(xp, f, block)
    else:
        result = _fold(xp, f, block[..., 1:], block[..., 0], xp.asarray(keep[:, 1:]))
    return _written(xp, xp.moveaxis(result.astype(result_dtype), -1, axis_), out)


def at(xp: Any, ufunc: np.ufunc, a: Any, indices: Any, b: Any = None) -> None:
    """``ufunc.at(a, indices, b)`` in place: each position's updates applied in their order
    (index arrays bounds-checked by the caller: CuPy's indexing wraps around)."""
    operands = () if b is None else (b,)
    probe_b = [np.ones((), getattr(v, "dtype", None) or np.result_type(v)) for v in operands]
    numpy_checked(ufunc.at, np.ones(1, a.dtype), np.zeros(1, np.intp), *probe_b)
    items = indices if isinstance(indices, tuple) else (indices,)
    items = tuple(np.asarray(i) if isinstance(i, list) else i for i in items)
    selected = xp.arange(a.size).reshape(a.shape)[items if isinstance(indices, tuple) else items[0]]
    positions = xp.reshape(selected, (-1,))
    count = positions.shape[0]
    values = None if b is None else xp.reshape(xp.broadcast_to(xp.asarray(b), selected.shape),
                                               (-1,))
    if not count:
        return
    order = xp.argsort(positions * count + xp.arange(count))  # by position, then by order
    positions = positions[order]
    values = None if values is None else values[order]
    first = xp.concatenate([xp.ones(1, dtype=bool), positions[1:] != positions[:-1]])
    rank = xp.arange(count) - xp.nonzero(first)[0][xp.cumsum(first) - 1]  # k-th at its position
    f = _fn(xp, ufunc)
    for k in range(int(rank.max()) + 1):
        chosen = rank == k
        where = xp.unravel_index(positions[chosen], a.shape)
        a[where] = f(a[where], *(() if values is None else (values[chosen],)))


METHODS: dict[str, Callable] = {"reduce": reduce, "accumulate": accumulate,
                                "reduceat": reduceat, "at": at}


def method_for(xp: Any, ufunc: np.ufunc, method: str, read: Callable,
               check: Callable) -> Callable:
    """``ufunc.<method>`` for ``xp``'s arrays: the library's own where ``NATIVE`` says CuPy has
    it for the call, else the one built here; ``read`` brings a small array to the host,
    ``check`` bounds-checks index arrays (CuPy's indexing wraps around)."""
    def call(*args: Any, **kwargs: Any) -> Any:
        dtypes = tuple(getattr(a, "dtype", None) for a in args[:1] + args[2:3])
        if method == "at":
            items = args[1] if isinstance(args[1], tuple) else (args[1],)
            check(tuple(np.asarray(i) if isinstance(i, list) else i for i in items),
                  args[0].shape, f"numpy.{ufunc.__name__}.at")
        if native(ufunc, method, kwargs, dtypes):
            return getattr(ufunc, method)(*args, **kwargs)
        extra = {"read": read} if method == "reduceat" else {}
        return METHODS[method](xp, ufunc, *args, **kwargs, **extra)
    return call


class WithMethods:
    """A library's ufunc (``cupy.maximum``) whose methods CuPy lacks come from this module:
    ``be.ufunc("maximum").accumulate(x)`` runs on any backend that hands these out."""

    def __init__(self, fn: Any, ufunc: np.ufunc, methods: Callable[[np.ufunc, str], Callable]):
        self._fn, self._ufunc, self._methods = fn, ufunc, methods

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._fn(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if name in METHODS:
            return self._methods(self._ufunc, name)
        return getattr(self._fn, name)
