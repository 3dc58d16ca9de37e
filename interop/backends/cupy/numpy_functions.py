"""NumPy functions CuPy lacks, or answers in another form, supplied over any NumPy-like
namespace ``xp`` (``cupy``; the tests run them on NumPy too).

- missing in CuPy: ``nanquantile``, ``nanpercentile``, ``unstack``, ``linalg.multi_dot`` and
  the Array API's ``linalg`` functions (``outer``, ``vector_norm``, ... from
  array-api-compat's CuPy namespace, passed in as ``linalg``);
- another form: ``ones`` and ``full`` with ``like=`` (NumPy passes ``device=None``, which
  CuPy's do not take), ``allclose``, ``array_equal``, ``array_equiv`` give NumPy's Python bool (a
  value read), not a 0-d array; ``lexsort`` and ``choose`` take sequences; the
  ``linalg`` and ``unique_*`` results are NumPy's named tuples; ``piecewise`` takes
  callables.

``SUPPLEMENTS`` maps NumPy's qualified name to a function ``f(xp, linalg, *args, **kwargs)``;
the backend binds ``xp`` and ``linalg`` (``CupyBackend.numpy_supplement``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

_METHODS = {"linear", "lower", "higher", "midpoint", "nearest"}


def nanquantile(xp: Any, linalg: Any, a: Any, q: Any, axis: Any = None, out: Any = None,
                overwrite_input: bool = False, method: str = "linear",
                keepdims: bool = False) -> Any:
    """NumPy's nanquantile: each slice's NaNs dropped (sorted last, then counted out)."""
    if method not in _METHODS:
        raise ValueError(f"nanquantile: method {method!r} is not one of {sorted(_METHODS)}")
    a = xp.asarray(a)
    axes = tuple(range(a.ndim)) if axis is None else \
        tuple(d % a.ndim for d in (axis if isinstance(axis, tuple) else (axis,)))
    rest = [d for d in range(a.ndim) if d not in axes]
    flat = xp.reshape(xp.transpose(a, (*rest, *axes)), tuple(a.shape[d] for d in rest) + (-1,))
    ordered = xp.sort(flat, axis=-1)  # NaNs last
    count = xp.sum(~xp.isnan(flat), axis=-1)
    q = xp.asarray(q, dtype=np.promote_types(a.dtype, np.float64) if a.dtype.kind != "f"
                   else a.dtype)
    where = q.reshape(q.shape + (1,) * count.ndim) * (count - 1)
    low, high = xp.floor(where), xp.ceil(where)
    pick = {"lower": low, "higher": high, "nearest": xp.around(where)}.get(method)

    def at(position: Any) -> Any:
        index = xp.clip(position, 0, None).astype(np.intp)[..., None]
        return xp.take_along_axis(xp.broadcast_to(ordered, index.shape[:-1] + ordered.shape[-1:]),
                                  index, axis=-1)[..., 0]
    if pick is not None:
        result = at(pick)
    elif method == "midpoint":
        result = (at(low) + at(high)) / 2
    else:
        below, above, t = at(low), at(high), where - low
        result = xp.where(t >= 0.5, above - (above - below) * (1 - t), below + (above - below) * t)
    result = xp.where(count == 0, xp.nan, result).astype(
        np.result_type(a.dtype, np.float64) if a.dtype.kind != "f" else a.dtype)
    if keepdims:
        result = xp.reshape(result, q.shape + tuple(1 if d in axes else n
                                                    for d, n in enumerate(a.shape)))
    if out is not None:
        out[...] = result
        return out
    return result


def nanpercentile(xp: Any, linalg: Any, a: Any, q: Any, *args: Any, **kwargs: Any) -> Any:
    return nanquantile(xp, linalg, a, xp.asarray(q) / 100, *args, **kwargs)


def unstack(xp: Any, linalg: Any, x: Any, /, *, axis: int = 0) -> tuple:
    return tuple(xp.moveaxis(x, axis, 0))


def multi_dot(xp: Any, linalg: Any, arrays: Any, *, out: Any = None) -> Any:
    """NumPy's multi_dot, left to right: a 1-d first array is a row, a 1-d last one a column."""
    arrays = list(arrays)
    row, column = arrays[0].ndim == 1, arrays[-1].ndim == 1
    arrays[0] = arrays[0][None] if row else arrays[0]
    arrays[-1] = arrays[-1][:, None] if column else arrays[-1]
    result = functools.reduce(xp.matmul, arrays)
    result = result[0] if row else result
    result = result[..., 0] if column else result
    if out is not None:
        out[...] = result
        return out
    return result


def _created(name: str) -> Callable:
    """NumPy's ``ones``/``full`` called with ``like=`` pass ``device=None`` on, which CuPy's do
    not take: the array is made on the like array's device, CuPy's current one."""
    def call(xp: Any, linalg: Any, *args: Any, device: Any = None, like: Any = None,
             **kwargs: Any) -> Any:
        return getattr(xp, name)(*args, **kwargs)
    return call


def _answer(name: str) -> Callable:
    """A NumPy function whose answer is a Python bool (CuPy's: a 0-d array)."""
    def call(xp: Any, linalg: Any, *args: Any, **kwargs: Any) -> bool:
        return bool(getattr(xp, name)(*args, **kwargs))
    return call


def lexsort(xp: Any, linalg: Any, keys: Any, axis: int = -1) -> Any:
    keys = xp.stack(list(keys)) if isinstance(keys, (list, tuple)) else keys
    return xp.lexsort(keys) if axis == -1 else xp.moveaxis(
        xp.lexsort(xp.moveaxis(keys, axis if axis < 0 else axis + 1, -1)), -1, axis)


def choose(xp: Any, linalg: Any, a: Any, choices: Any, out: Any = None,
           mode: str = "raise") -> Any:
    if isinstance(choices, (list, tuple)):
        choices = xp.stack(xp.broadcast_arrays(*choices))
    return xp.choose(a, choices, out=out, mode=mode)


def piecewise(xp: Any, linalg: Any, x: Any, condlist: Any, funclist: Any, *args: Any,
              **kw: Any) -> Any:
    """NumPy's algorithm: each function on the elements its condition selects (the last, if
    there is one more function than conditions, where none holds)."""
    x = xp.asarray(x)
    if not isinstance(condlist, (list, tuple)) or (condlist and not hasattr(condlist[0], "shape")
                                                    and not isinstance(condlist[0], (list, bool))):
        condlist = [condlist]
    conds = [xp.broadcast_to(xp.asarray(c, dtype=bool), x.shape) for c in condlist]
    if len(funclist) == len(conds) + 1:
        conds.append(~functools.reduce(xp.logical_or, conds, xp.zeros(x.shape, dtype=bool)))
    out = xp.zeros_like(x)
    for cond, fn in zip(conds, funclist):
        if callable(fn):
            out[cond] = fn(x[cond], *args, **kw)
        else:
            out[cond] = fn
    return out


def _named(name: str, result_type: type, module: str = "") -> Callable:
    """CuPy's function, its result tuple made NumPy's named tuple (``SVDResult``, ...)."""
    def call(xp: Any, linalg: Any, *args: Any, **kwargs: Any) -> Any:
        fn = getattr(xp.linalg if module == "linalg" else xp, name)
        result = fn(*args, **kwargs)
        return result_type(*result) if isinstance(result, tuple) else result
    return call


def _compat_linalg(name: str) -> Callable:
    def call(xp: Any, linalg: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(linalg, name)(*args, **kwargs)
    return call


def _numpy_result_types() -> dict[str, type]:
    square = np.eye(2)
    return {"linalg.slogdet": type(np.linalg.slogdet(square)),
            "linalg.eig": type(np.linalg.eig(square)), "linalg.eigh": type(np.linalg.eigh(square)),
            "linalg.svd": type(np.linalg.svd(square)), "linalg.qr": type(np.linalg.qr(square)),
            **{f"unique_{k}": type(getattr(np, f"unique_{k}")(np.zeros(1)))
               for k in ("all", "counts", "inverse")}}


@functools.cache
def supplements() -> dict[str, Callable]:
    """NumPy's qualified name (``numpy.linalg.svd``) -> ``f(xp, linalg, *args, **kwargs)``."""
    table: dict[str, Callable] = {
        "nanquantile": nanquantile, "nanpercentile": nanpercentile, "unstack": unstack,
        "linalg.multi_dot": multi_dot, "lexsort": lexsort, "choose": choose,
        "piecewise": piecewise, "ones": _created("ones"), "full": _created("full"),
        **{name: _answer(name) for name in ("allclose", "array_equal", "array_equiv")},
        **{name: _compat_linalg(name.split(".")[1]) for name in (
            "linalg.outer", "linalg.matrix_norm", "linalg.vector_norm", "linalg.diagonal",
            "linalg.trace", "linalg.vecdot", "linalg.svdvals", "linalg.tensordot")},
    }
    for name, kind in _numpy_result_types().items():
        module, _, short = name.rpartition(".")
        table[name] = _named(short, kind, module)
    return {f"numpy.{name}": fn for name, fn in table.items()}
