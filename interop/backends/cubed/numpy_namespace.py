"""A NumPy-shaped module over Cubed's Array API namespace (``be.np`` on the Cubed backend).

Cubed implements the Array API standard and nothing else, while operations are written
against NumPy's names (``concatenate``, ``power``, ``swapaxes``, ``cumsum``, ``einsum``,
``np.add.at``, ``linalg.eigh``...).  Each name is found, lazily, in this order:

1. the standard's function under NumPy's name (``ALIASES``), or Cubed's own of that name;
2. a NumPy ufunc: run chunk by chunk (``cubed.core.ops.elemwise``), chunks kept;
   its ``reduce``/``accumulate`` run with the axis in one chunk;
3. a function whose result's size depends on the values (``nonzero``, ``unique``...):
   the values are read through the value-read gate (``dask_compute`` applies), then
   the result is a Cubed array again;
4. any other NumPy function: run in one task on the whole array (each operand in one
   chunk).  Cubed checks at planning time that the task fits ``allowed_mem``, so this
   is refused, not run out of memory, for arrays too large for one task.  The result's
   shape and dtype are learnt by running the function once on a small stand-in.

No NumPy function ever sees a Cubed array (NumPy would compute it silently).
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any

import cubed
import numpy as np
from cubed import Array
from cubed.core.ops import elemwise, general_blockwise
from cubed.primitive.blockwise import ChunkKey, FunctionArgs

from .held import held, source


def detached(args: Any) -> Any:
    """``args`` (a tuple or dict, nested) with each Cubed array replaced by ``source(array)``."""
    return _replace(args, {id(a): source(a) for a in _arrays_in((args,))})


class Detached:
    """A Cubed module whose functions get fresh objects for their array arguments."""

    def __init__(self, module: Any) -> None:
        self._module = module

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._module, name)
        if isinstance(found, types.ModuleType):
            found = Detached(found)
        elif callable(found) and not isinstance(found, type):
            found = functools.update_wrapper(functools.partial(_call_detached, found), found)
        setattr(self, name, found)
        return found


def _call_detached(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    return held(fn(*detached(args), **detached(kwargs)))


DETACHED = Detached(cubed)

# NumPy's name -> the Array API standard's (the same function, spelled by the standard).
ALIASES = {
    "concatenate": "concat", "power": "pow", "absolute": "abs", "true_divide": "divide",
    "arccos": "acos", "arcsin": "asin", "arctan": "atan", "arctan2": "atan2",
    "arccosh": "acosh", "arcsinh": "asinh", "arctanh": "atanh", "invert": "bitwise_invert",
    "left_shift": "bitwise_left_shift", "right_shift": "bitwise_right_shift",
    "conjugate": "conj", "amax": "max", "amin": "min", "array": "asarray",
}
# Cubed functions not taken, though spelled as NumPy's: they differ from NumPy's.
_NOT_CUBEDS = frozenset({
    "asarray",  # no copy/order arguments NumPy's callers pass: ours below
    "take",  # cubed 0.27 returns x itself for indices of x's length along the axis ([1, 0])
    "pad",  # one axis at a time only
    "qr", "svd", "svdvals",  # tall-and-skinny matrices only (TSQR)
    "tile",  # a repetition of 0 gives a wrong shape
})
# NumPy functions whose result's shape depends on the values: read through the gate.
VALUE_SHAPED = frozenset({"nonzero", "argwhere", "flatnonzero", "unique", "extract",
                          "compress", "histogram", "histogram_bin_edges", "bincount", "trim_zeros",
                          "unique_all", "unique_counts", "unique_inverse", "unique_values"})
_SUBMODULES = ("linalg", "fft")


def _arrays_in(args: Any) -> list:
    found = []
    for a in args:
        if isinstance(a, Array):
            found.append(a)
        elif type(a) in (list, tuple):
            found.extend(_arrays_in(a))
        elif isinstance(a, dict):
            found.extend(_arrays_in(tuple(a.values())))
    return found


class _Slot:
    """Where a block goes among a task's arguments: the task carries these, not the Cubed
    arrays (an array pickles its whole plan, so each task would carry the operations before)."""


def _replace(args: Any, values: dict[int, Any]) -> Any:
    """``args`` with each Cubed array (or ``_Slot``) replaced by ``values[id(array)]``."""
    if isinstance(args, (Array, _Slot)):
        return values[id(args)]
    if type(args) in (list, tuple):
        return type(args)(_replace(a, values) for a in args)
    if isinstance(args, dict):
        return {k: _replace(v, values) for k, v in args.items()}
    return args


def _stand_in(a: Array, fill: int = 0) -> np.ndarray:
    """Host values of ``a``'s shape and dtype, to learn a function's result shape and dtype
    without computing anything: zeros for integers and booleans (valid indices), else
    values that are not degenerate (no singular matrix)."""
    if a.dtype.kind in "biu":
        return np.full(a.shape, fill, a.dtype)
    values = np.random.default_rng(0).random(a.shape) + 0.5
    if a.ndim >= 2:
        values += np.eye(a.shape[-2], a.shape[-1]) * max(a.shape[-2:])
    return values.astype(a.dtype)


def whole(a: Array, func: Callable) -> Array:
    """``a`` in one chunk; refused, naming ``func``, where one chunk exceeds ``allowed_mem``."""
    if all(len(c) <= 1 for c in a.chunks):
        return source(a)
    try:
        return source(a).rechunk(a.shape)
    except ValueError as exc:
        name = getattr(func, "__name__", None) or getattr(getattr(func, "func", None),
                                                          "__name__", "this function")
        raise ValueError(f"{name}: Cubed has no chunked form of it, and one task over the "
                         f"whole array ({a.nbytes} bytes) exceeds allowed_mem "
                         f"({a.spec.allowed_mem} bytes): raise DETACHED.Spec(allowed_mem=...) or "
                         f"work on smaller parts ({exc})") from None


def on_whole(func: Callable, *args: Any, result: tuple | None = None, **kwargs: Any) -> Any:
    """``func(*args, **kwargs)`` (a NumPy function) in one task over whole arrays, lazily;
    a tuple of arrays for a function that returns several.  ``result`` (shape, dtype) where
    the caller knows it; else it is learnt by running ``func`` on stand-ins."""
    arrays = _arrays_in((args, kwargs))
    if not arrays:
        out = func(*args, **kwargs)
        return DETACHED.asarray(out) if isinstance(out, np.ndarray) else out
    unique = list({id(a): whole(a, func) for a in arrays}.items())
    sample = np.empty(result[0], result[1]) if result is not None else \
        _learnt(func, args, kwargs, unique)
    many = isinstance(sample, tuple) or type(sample).__name__.endswith("Result")
    outs = [np.asarray(s) for s in (tuple(sample) if many else (sample,))]
    fields = type(sample) if many and hasattr(sample, "_fields") else tuple
    ids = [i for i, _ in unique]
    inputs = [a for _, a in unique]

    slots = [_Slot() for _ in ids]
    in_task = _replace((args, kwargs), dict(zip(ids, slots)))

    def run(*blocks: Any) -> Any:
        task_args, task_kwargs = _replace(in_task, {id(s): b for s, b in zip(slots, blocks)})
        result = func(*task_args, **task_kwargs)
        results = tuple(result) if many else (result,)
        out = tuple(np.asarray(r, dtype=o.dtype) for r, o in zip(results, outs))
        return out if many else out[0]

    def keys(out_key: Any) -> Any:
        return FunctionArgs(*(ChunkKey(a.name, (0,) * a.ndim) for a in inputs),
                            output_name=out_key.name)

    memory = sum(a.nbytes for a in inputs) + sum(o.nbytes for o in outs)
    results = tuple(  # one task per output (Cubed's several outputs must share their chunks)
        held(general_blockwise(functools.partial(_nth, run, k) if many else run, keys, *inputs,
                          shapes=[o.shape], dtypes=[o.dtype],
                          chunkss=[tuple((n,) for n in o.shape)],
                          num_input_blocks=(1,) * len(inputs), extra_projected_mem=memory))
        for k, o in enumerate(outs))
    if not many:
        return results[0]
    return fields(*results) if fields is not tuple else results


_CUBED_REFUSALS = (TypeError, ValueError, IndexError, NotImplementedError, AttributeError,
                   ZeroDivisionError, KeyError)


def _preferring(theirs: Callable, numpy_fn: Callable) -> Callable:
    """Cubed's function (chunked); NumPy's in one task where Cubed's does not take the call
    (NumPy's arguments the standard lacks, an axis of None, a dtype it refuses, chunks it
    cannot align) or the arrays are empty (where Cubed 0.27 divides by zero): a call NumPy
    refuses too then raises NumPy's error."""
    def call(*args: Any, **kwargs: Any) -> Any:
        arrays = _arrays_in((args, kwargs))
        if any(a.size == 0 for a in arrays):
            return on_whole(numpy_fn, *args, **kwargs)
        try:
            return theirs(*args, **kwargs)
        except _CUBED_REFUSALS:
            return on_whole(numpy_fn, *args, **kwargs)
    return functools.update_wrapper(call, numpy_fn)


def _transpose(a: Any, axes: Any = None) -> Any:
    return DETACHED.permute_dims(a, tuple(reversed(range(a.ndim))) if axes is None else tuple(axes))


def _swapaxes(a: Any, axis1: int, axis2: int) -> Any:
    order = list(range(a.ndim))
    order[axis1], order[axis2] = order[axis2], order[axis1]
    return DETACHED.permute_dims(a, tuple(order))


def _cumulative(name: str) -> Callable:
    theirs, numpy_fn = getattr(DETACHED, name), getattr(np, "cumsum" if "sum" in name else "cumprod")

    def accumulate(a: Any, axis: Any = None, dtype: Any = None, **kwargs: Any) -> Any:
        if not isinstance(a, Array) or kwargs or a.ndim == 0 or a.size == 0:
            return on_whole(functools.partial(numpy_fn, axis=axis, dtype=dtype, **kwargs), a)
        if axis is None:
            a, axis = DETACHED.reshape(a, (-1,)), 0
        return theirs(a, axis=axis, dtype=dtype)
    return functools.update_wrapper(accumulate, numpy_fn)


def _learnt(func: Callable, args: Any, kwargs: dict, unique: list) -> Any:
    """``func``'s result on stand-ins of the arrays (integers as zeros, then as ones: an index
    is valid, a count or a weight is not zero in one of them)."""
    for fill in (0, 1):
        values = {i: _stand_in(a, fill) for i, a in unique}
        try:
            return func(*_replace(args, values), **_replace(kwargs, values))
        except Exception:  # noqa: BLE001 - the other stand-in, or the error below
            if fill:
                raise
    raise AssertionError("unreachable")


class Ufunc:
    """A NumPy ufunc on Cubed arrays: elementwise chunk by chunk; its methods with the axis
    (or the whole array) in one chunk."""

    def __init__(self, ufunc: np.ufunc) -> None:
        self.ufunc = ufunc
        self.__name__ = ufunc.__name__
        self._theirs = getattr(DETACHED, ALIASES.get(ufunc.__name__, ufunc.__name__), None)

    def __call__(self, *args: Any, out: Any = None, dtype: Any = None, **kwargs: Any) -> Any:
        if out is not None and _arrays_in(out if isinstance(out, tuple) else (out,)):
            raise TypeError(f"numpy.{self.__name__}(..., out=): a Cubed array is immutable; "
                            "assign the result instead (t = np.add(x, y)), or write it in "
                            "with t.copy_(...)")
        if out is not None or kwargs.get("where", True) is not True:
            return on_whole(functools.partial(self.ufunc, out=out, dtype=dtype, **kwargs), *args)
        arrays = [a for a in args if isinstance(a, Array)]
        if not arrays:
            return self.ufunc(*args, dtype=dtype, **kwargs)
        if any(a.size == 0 for a in arrays):  # Cubed 0.27 fails on some empty chunkings
            return on_whole(functools.partial(self.ufunc, dtype=dtype, **kwargs), *args)
        if self._theirs is not None and dtype is None and not kwargs and \
                len(arrays) == len(args) and len({a.dtype for a in arrays}) == 1 and \
                arrays[0].dtype.kind in "fc":
            try:
                return self._theirs(*args)  # Cubed's own: the same values, dtype and plan
            except TypeError:  # a dtype the standard's refuses (conj of reals, logical_and
                pass  # of floats): NumPy's, chunk by chunk
        args = tuple(DETACHED.asarray(a, spec=arrays[0].spec)
                     if isinstance(a, np.ndarray) and a.ndim else a for a in args)
        arrays = [a for a in args if isinstance(a, Array)]
        like = [a.dtype if isinstance(a, Array) else a for a in args]
        result = self.ufunc(*(np.zeros((), d) if isinstance(d, np.dtype) else d for d in like),
                            dtype=dtype, **kwargs)
        many = isinstance(result, tuple)
        scalars = {i: a for i, a in enumerate(args) if not isinstance(a, Array)}
        fn = functools.partial(_call_with, self.ufunc, scalars, len(args),
                               dict(kwargs, dtype=dtype))
        if many:
            return tuple(held(elemwise(functools.partial(_nth, fn, k), *arrays, dtype=r.dtype))
                         for k, r in enumerate(result))
        return held(elemwise(fn, *arrays, dtype=np.asarray(result).dtype))

    def reduce(self, a: Any, axis: Any = 0, **kwargs: Any) -> Any:
        return on_whole(functools.partial(self.ufunc.reduce, axis=axis, **kwargs), a)

    def accumulate(self, a: Any, axis: int = 0, **kwargs: Any) -> Any:
        return on_whole(functools.partial(self.ufunc.accumulate, axis=axis, **kwargs), a)

    def outer(self, a: Any, b: Any, **kwargs: Any) -> Any:
        return on_whole(functools.partial(self.ufunc.outer, **kwargs), a, b)

    def reduceat(self, a: Any, indices: Any, axis: int = 0, **kwargs: Any) -> Any:
        return on_whole(functools.partial(self.ufunc.reduceat, axis=axis, **kwargs), a, indices)

    def at(self, a: Any, indices: Any, b: Any = None) -> None:
        """In place, as NumPy's: ``a`` (a fresh alias, see ``write_target``) takes the plan
        of NumPy's ``at`` run in one task on a copy of it."""
        source = type(a)(a.name, a._zarray, a.spec, a._plan)
        REPLACE[0](a, on_whole(functools.partial(_at_copy, self.ufunc), source, indices,
                               *(() if b is None else (b,))))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.ufunc, name)


def _call_with(ufunc: np.ufunc, scalars: dict, n: int, kwargs: dict, *blocks: Any) -> Any:
    it = iter(blocks)
    return ufunc(*(scalars[i] if i in scalars else next(it) for i in range(n)), **kwargs)


def _nth(fn: Callable, k: int, *blocks: Any) -> Any:
    return fn(*blocks)[k]


REPLACE: list[Callable[[Any, Any], None]] = []  # the backend's replace_in_place


def _at_copy(ufunc: np.ufunc, x: Any, indices: Any, *values: Any) -> Any:
    x = x.copy()
    ufunc.at(x, indices, *values)
    return x


class NumpyShaped:
    """NumPy's names over Cubed arrays (see the module's docstring for the order)."""

    def __init__(self, numpy_module: Any = np, cubed_module: Any = DETACHED,
                 read: Callable[[Any, str], Any] | None = None,
                 make: Callable[[Any], Any] | None = None) -> None:
        self._numpy, self._cubed = numpy_module, cubed_module
        self._read, self._make = read, make
        for sub in _SUBMODULES:
            if isinstance(getattr(numpy_module, sub, None), types.ModuleType):
                setattr(self, sub, NumpyShaped(getattr(numpy_module, sub),
                                               getattr(cubed_module, sub, None), read, make))

    def __getattr__(self, name: str) -> Any:
        found = self._find(name)
        if found is None:
            raise AttributeError(f"the Cubed backend has no {name}: neither Cubed nor NumPy "
                                 "defines it")
        setattr(self, name, found)
        return found

    def _find(self, name: str) -> Any:
        ours = _OURS.get(name) if self._numpy is np else None
        if ours is not None:
            return ours
        theirs = getattr(self._cubed, ALIASES.get(name, name), None) \
            if self._cubed is not None else None
        numpy_fn = getattr(self._numpy, name, None)
        if isinstance(numpy_fn, np.ufunc) and numpy_fn.signature is None:  # chunk by chunk
            return Ufunc(numpy_fn)
        if theirs is not None and callable(theirs) and name not in _NOT_CUBEDS:
            return theirs if not callable(numpy_fn) or isinstance(numpy_fn, (np.ufunc, type)) \
                else _preferring(theirs, numpy_fn)
        if name in VALUE_SHAPED and callable(numpy_fn):
            return functools.update_wrapper(functools.partial(self._through_host, numpy_fn),
                                            numpy_fn)
        if callable(numpy_fn) and not isinstance(numpy_fn, type):
            return functools.update_wrapper(functools.partial(on_whole, numpy_fn), numpy_fn)
        return numpy_fn if numpy_fn is not None else theirs

    def repeat(self, a: Any, repeats: Any, axis: Any = None) -> Any:
        """Counts in an array: the result's size depends on their values (read through the
        gate); a number: ``_repeat``."""
        if isinstance(repeats, Array) and repeats.ndim:
            repeats = self._read(repeats, "repeat_interleave on a Cubed tensor (the result's "
                                          "size depends on the counts)")
        return _repeat(a, repeats, axis)

    def _through_host(self, func: Callable, *args: Any, **kwargs: Any) -> Any:
        """A function whose result's size depends on the values: they are read (a value read,
        under ``dask_compute``), and the result made a Cubed array again."""
        why = f"numpy.{func.__name__} on a Cubed tensor (its result's size depends on the values)"
        host = {id(a): self._read(a, why) for a in _arrays_in((args, kwargs))}
        result = func(*_replace(args, host), **_replace(kwargs, host))
        if isinstance(result, tuple):
            made = [self._make(r) for r in result]
            return type(result)(*made) if hasattr(result, "_fields") else tuple(made)
        return self._make(result)


class Standard:
    """Cubed's Array API namespace, completed: what Cubed lacks (sorting, ``take_along_axis``,
    ``vector_norm``, ...) or gets wrong (QR and SVD of wide matrices: Cubed's are for tall
    and skinny ones) is array-api-compat's NumPy function of that name, in one task; the
    value-sized ones (``nonzero``, ``unique_*``) read through the value-read gate."""

    def __init__(self, numpy: NumpyShaped, module: Any = DETACHED, compat: Any = None) -> None:
        import array_api_compat.numpy as compat_numpy  # a dependency of interop
        self._numpy, self._module = numpy, module
        self._compat = compat_numpy if compat is None else compat

    def __getattr__(self, name: str) -> Any:
        theirs = getattr(self._module, name, None)
        found: Any
        if name == "clip":
            found = functools.partial(_clip, self._numpy)
        elif name == "asarray":
            found = _standard_asarray
        elif name == "linalg":
            found = Standard(self._numpy, theirs, self._compat.linalg)
        elif theirs is not None and name not in _NOT_STANDARD:
            found = theirs
        else:
            compat = getattr(self._compat, name)
            found = functools.update_wrapper(
                functools.partial(self._numpy._through_host if name in VALUE_SHAPED
                                  else on_whole, compat), compat)
        setattr(self, name, found)
        return found


_NOT_STANDARD = frozenset({"qr", "svd", "svdvals"})


def _clip(numpy: NumpyShaped, x: Any, /, min: Any = None, max: Any = None) -> Any:  # noqa: A002
    """The standard's clip: Cubed 0.27's fails when run with one bound given."""
    if min is not None and max is not None:
        return DETACHED.clip(x, min, max)
    out = x if min is None else numpy.maximum(x, min)
    return out if max is None else numpy.minimum(out, max)


def _standard_asarray(obj: Any, /, *, dtype: Any = None, device: Any = None, copy: Any = None,
                      **kwargs: Any) -> Any:
    """The standard's asarray: Cubed 0.27's returns a Cubed array as it is, whatever ``dtype``
    asks for (scikit-learn's ``check_array(y, dtype=X.dtype)`` kept integer labels)."""
    if not isinstance(obj, Array):
        return DETACHED.asarray(obj, dtype=dtype, device=device, copy=copy, **kwargs)
    if dtype is None or np.dtype(dtype) == obj.dtype:
        return source(obj) if copy else obj  # a copy: a new object (plans are immutable)
    if copy is False:
        raise ValueError(f"asarray(copy=False): converting {obj.dtype} to {np.dtype(dtype)} "
                         "needs a copy; pass copy=None or copy=True")
    return DETACHED.astype(obj, dtype)


def _asarray(a: Any, dtype: Any = None, copy: Any = None, **kwargs: Any) -> Any:
    if isinstance(a, Array):
        return a if dtype is None or a.dtype == dtype else DETACHED.astype(a, dtype)
    if type(a) in (list, tuple) and _arrays_in(a):
        return on_whole(lambda *x: np.asarray(x[0] if len(x) == 1 else x, dtype=dtype),
                        list(a) if len(a) != 1 else a[0])
    return DETACHED.asarray(np.asarray(a, dtype=dtype))


def _take(a: Any, indices: Any, axis: Any = None, **kwargs: Any) -> Any:
    if not isinstance(a, Array):
        return np.take(a, indices, axis=axis, **kwargs)
    return on_whole(functools.partial(np.take, axis=axis, **kwargs), a, indices)


def _reduction(name: str) -> Callable:
    numpy_fn = getattr(np, name)

    def reduce(a: Any, axis: Any = None, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(a, Array):
            return numpy_fn(a, axis, *args, **kwargs)
        theirs = getattr(DETACHED, ALIASES.get(name, name), None)
        if kwargs.get("dtype") is not None and np.dtype(kwargs["dtype"]) == a.dtype:
            kwargs = {k: v for k, v in kwargs.items() if k != "dtype"}
        simple = not args and set(kwargs) <= {"keepdims", "dtype"} and theirs is not None \
            and (kwargs.get("dtype") is None or name in ("sum", "prod")) \
            and a.dtype.kind in "fc" + ("iub" if name not in ("mean", "std", "var") else "")
        if simple:
            keep = bool(kwargs.get("keepdims", False))
            axis = tuple(axis) if isinstance(axis, list) else axis
            extra = {"dtype": kwargs["dtype"]} if kwargs.get("dtype") is not None else {}
            if a.ndim == 0 or a.size == 0:
                return on_whole(functools.partial(numpy_fn, axis=axis, **kwargs), a)
            return theirs(a, axis=axis, keepdims=keep, **extra)
        return on_whole(functools.partial(numpy_fn, axis=axis, **kwargs), a, *args)
    reduce.__name__ = name
    return reduce


def _repeat(a: Any, repeats: Any, axis: Any = None) -> Any:
    """Cubed's (chunked) for a positive integer count, NumPy's in one task otherwise."""
    if isinstance(a, Array) and isinstance(repeats, int) and repeats > 0 and a.size:
        return DETACHED.repeat(a, repeats, axis=axis)
    return on_whole(functools.partial(np.repeat, axis=axis), a, repeats)


_OURS: dict[str, Any] = {"asarray": _asarray, "array": _asarray, "take": _take,
                         "transpose": _transpose, "swapaxes": _swapaxes,
                         "cumsum": _cumulative("cumulative_sum"),
                         "cumprod": _cumulative("cumulative_prod")}
_OURS.update({n: _reduction(n) for n in ("sum", "prod", "mean", "max", "min", "amax", "amin",
                                         "all", "any")})
