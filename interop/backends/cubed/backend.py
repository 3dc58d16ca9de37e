"""The Cubed backend: lazy, chunked, and planned against a declared memory bound.

Cubed implements the Array API standard (its top-level namespace is the ``xp``), plans
every computation against ``DETACHED.Spec(allowed_mem=...)`` and runs on executors from a
local thread pool to Ray, Lithops, Modal and Beam.  Its arrays have no NumPy protocols
(``numpy_protocols = False``: ``np.exp(t)`` runs the ``exp`` of ``be.np`` by name, lazily)
and no ``__setitem__``: a write lands in a fresh alias of the tensor's array, replaced in
place (``write_target``, ``replace_in_place``), which the tensor then holds; a write into
a view is replayed into its base as on Dask (``views.WITHOUT_VIEWS``, ``views.SETITEM``).

``be.np`` is ``cubed_numpy.NumpyShaped``: NumPy's names over Cubed's namespace, with NumPy
ufuncs run chunk by chunk and other NumPy functions in one task (Cubed checks at planning
time that the task fits ``allowed_mem``).  Operations also call NumPy's array methods and
indexing on raw arrays: the arrays interop holds are ``held.Held``, Cubed's array
class extended on interop's side with the NumPy methods it lacks (``sum``, ``astype``,
``reshape``, ... through ``be.np``), NumPy's ``T`` and NumPy's indexing where Cubed 0.27
refuses or errs (``getitem``); Cubed's own class is not modified.  Nothing here computes except
``compute``, ``persist`` and ``to_host``, which applies ``interop.config(dask_compute=...)``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import cubed
import numpy as np
from cubed import Array
from cubed.core.ops import general_blockwise
from cubed.primitive.blockwise import ChunkKey, FunctionArgs

from ...config import check_value_read
from ...devices import CPU, Device
from .. import registry, views
from ..chunked import ChunkedBackend
from ..contract import Backend
from . import numpy_namespace as cubed_numpy
from .held import Held, held, source
from .numpy_namespace import DETACHED

_CUBEDS_GETITEM, _CUBEDS_RECHUNK = Array.__getitem__, Array.rechunk
_CUBEDS_OWN = ("name", "_zarray", "_shape", "_dtype", "_chunks", "spec", "_plan")  # its state


def replace_in_place(raw: Array, new: Array) -> None:
    """``raw`` becomes ``new`` in place (its plan, chunks and spec); interop's own attributes
    (view links) stay.  Safe because no plan holds ``raw`` itself: Cubed's tasks read their
    inputs' names from the array objects when they run, and every Cubed function interop
    calls gets fresh objects (``held.source``, ``DETACHED``).  Cubed's state is its
    private attributes (``_CUBEDS_OWN``): a Cubed whose arrays hold others fails here by name
    (tests/test_upstream_insides.py), never with a stale plan."""
    unknown = {n for n in vars(new) if not n.startswith("_interop")} - set(_CUBEDS_OWN)
    if unknown:
        raise RuntimeError(f"interop's in-place write into a Cubed array cannot carry its state "
                           f"{sorted(unknown)} (Cubed {cubed.__version__}; interop knows "
                           f"{', '.join(_CUBEDS_OWN)}): interop-tensor[cubed] supports Cubed 0.27")
    for attribute in _CUBEDS_OWN:
        setattr(raw, attribute, getattr(new, attribute))


def _like(raw: Array, value: Any) -> Array:
    """``value`` as a Cubed array of ``raw``'s dtype and spec."""
    if not isinstance(value, Array):
        value = DETACHED.asarray(np.asarray(value, dtype=raw.dtype), spec=raw.spec)
    return value if value.dtype == raw.dtype else DETACHED.astype(value, raw.dtype)


def replace_contents(raw: Array, value: Any) -> None:
    """``raw[...] = value`` for a value broadcastable to ``raw``'s shape."""
    new = _like(raw, value)
    if new.shape != raw.shape:
        new = DETACHED.broadcast_to(new, raw.shape)
    replace_in_place(raw, new)


def _spread(v: Array, axis: int, n: int, item: Any) -> Array:
    """``v`` (the values of ``x[..., item, ...]`` along ``axis``) placed where ``item`` (a slice
    or an integer) selects them in an axis of length ``n``, zeros elsewhere: lazily, chunk
    by chunk (flip, interleave zeros for a step, concatenate zeros before and after)."""
    start, stop, step = (item.indices(n) if isinstance(item, slice)
                         else (int(item) % n, int(item) % n + 1, 1))
    picked = range(start, stop, step)
    if step < 0:
        v, step, start = DETACHED.flip(v, axis=axis), -step, picked[-1]
    if step > 1:
        zeros = DETACHED.zeros_like(v)
        v = DETACHED.stack([v] + [zeros] * (step - 1), axis=axis + 1)
        shape = v.shape[:axis] + (v.shape[axis] * step,) + v.shape[axis + 2:]
        v = DETACHED.reshape(v, shape)[(slice(None),) * axis + (slice(0, (len(picked) - 1) * step + 1),)]
    parts = [v]
    for at, size in ((0, start), (1, n - start - v.shape[axis])):
        if size:
            pad = DETACHED.zeros(v.shape[:axis] + (size,) + v.shape[axis + 1:], dtype=v.dtype,
                              spec=v.spec)
            parts.insert(len(parts) * at, pad)
    return DETACHED.concat(parts, axis=axis) if len(parts) > 1 else v


def setitem(raw: Array, index: Any, value: Any) -> None:
    """``raw[index] = value`` in place, lazily: chunk by chunk for basic indices (a mask of
    the written positions, the values spread onto them, ``where``) and for a boolean mask
    with one value; index arrays, and a mask with one value per True, in one task.  What
    ``views.put`` and the write replay send here."""
    src = source(raw)
    items = index if isinstance(index, tuple) else (index,)
    if len(items) == 1 and getattr(items[0], "dtype", None) == np.bool_ and \
            tuple(getattr(items[0], "shape", ())) == raw.shape:
        if getattr(value, "ndim", 0) != 0:  # one value per True: NumPy's, in one task
            advanced_assign(raw, items, value)
            return
        mask = items[0] if isinstance(items[0], Array) else DETACHED.asarray(items[0], spec=raw.spec)
        replace_in_place(raw, DETACHED.where(mask, _like(raw, value), src))
        return
    items = views._expanded(tuple(i for i in items if i is not None), raw.ndim)
    if not all(type(i) is slice or isinstance(i, (int, np.integer)) and not isinstance(i, bool)
               for i in items):
        advanced_assign(raw, items, value)
        return
    selected = tuple(len(range(*i.indices(n))) for i, n in zip(items, raw.shape)
                     if type(i) is slice)
    if 0 in selected:
        return  # nothing selected, nothing to write
    value = _like(raw, value)
    if value.shape != selected:
        value = DETACHED.broadcast_to(value, selected) if value.ndim <= len(selected) else \
            DETACHED.reshape(value, selected)  # dimensions of size 1 from None in the index
    value = DETACHED.reshape(value, tuple(len(range(*i.indices(n))) if type(i) is slice else 1
                                       for i, n in zip(items, raw.shape)))
    if raw.ndim == 0:
        replace_in_place(raw, DETACHED.reshape(value, ()))
        return
    mask = DETACHED.ones(value.shape, dtype=bool, spec=raw.spec)
    for axis, (item, n) in enumerate(zip(items, raw.shape)):
        value, mask = _spread(value, axis, n, item), _spread(mask, axis, n, item)
    replace_in_place(raw, DETACHED.where(mask, value, src))


def advanced_assign(raw: Array, items: tuple, value: Any) -> None:
    """``raw[items] = value`` for index arrays: NumPy's assignment in one task."""
    replace_in_place(raw, cubed_numpy.on_whole(_assigned, source(raw), items, value,
                                               result=(raw.shape, raw.dtype)))


def _assigned(x: Any, index: Any, value: Any) -> Any:
    x = x.copy()
    x[index] = value
    return x


def getitem(raw: Array, index: Any) -> Array:
    """``raw[index]`` with NumPy's meaning, lazily.  Cubed 0.27 refuses negative steps (a
    flip, then a forward slice), steps across uneven chunks, computes index arrays given as
    Cubed arrays and returns ``raw`` itself for an index array of its axis's length: index
    arrays run in one task (boolean masks, whose result's size depends on the values, are
    read through the value-read gate first), and what Cubed refuses runs in one task too."""
    items = index if isinstance(index, tuple) else (index,)
    if any(getattr(i, "ndim", 0) > 0 for i in items):
        return backend.advanced_index(raw, items)
    if any(isinstance(i, slice) and i.step is not None and i.step < 0 for i in items):
        expanded = views._expanded(items, raw.ndim)
        flips, forward, axis = [], [], 0
        for item in expanded:
            if isinstance(item, slice) and item.step is not None and item.step < 0:
                n = raw.shape[axis]
                picked = range(*item.indices(n))
                item = slice(n - 1 - picked[0], n - picked[-1], -item.step) if picked \
                    else slice(0, 0)
                flips.append(axis)
            forward.append(item)
            axis += item is not None
        raw, index = DETACHED.flip(raw, axis=tuple(flips)), tuple(forward)
    try:
        return held(_CUBEDS_GETITEM(source(raw), index))
    except (ValueError, NotImplementedError, ZeroDivisionError):
        return cubed_numpy.on_whole(_numpy_getitem, raw, index)


def _numpy_getitem(x: Any, index: Any) -> Any:
    return x[index]


class CubedBackend(ChunkedBackend):
    name = "cubed"
    array_type = Array
    array_types = (Array, Held)  # Cubed's arrays, and those interop holds (Held)
    numpy_protocols = False
    xp: Any = None  # set per instance: Cubed's namespace, completed (cubed_numpy.Standard)
    np: Any = None  # set per instance: NumPy names over Cubed (cubed_numpy)
    spec: Any = None  # the default Spec of new arrays: None is Cubed's own (cubed.config)

    def __init__(self) -> None:
        self.np = cubed_numpy.NumpyShaped(read=self.to_host, make=self.asarray)
        self.xp = cubed_numpy.Standard(self.np)

    def chunk_backend(self, raw: Array) -> Backend:
        """Cubed's chunks are NumPy arrays (held in Zarr between tasks)."""
        return registry.get_backend("numpy")

    def reshape(self, raw: Array, shape: tuple) -> Array:
        if raw.size == 0:  # nothing to move, and Cubed plans no task over 0 bytes
            return self.create("empty", np.empty(raw.shape, bool).reshape(shape).shape,
                               dtype=raw.dtype)
        return super().reshape(raw, shape)

    def device_of(self, raw: Array) -> Device:
        """The host, naming Cubed: creation functions given it make Cubed arrays."""
        return Device(CPU, backend=self.name)

    def dtype_of(self, raw: Array) -> np.dtype:
        return np.dtype(raw.dtype)

    def astype(self, raw: Array, dtype: np.dtype) -> Array:
        return DETACHED.astype(raw, np.dtype(dtype))

    def copy(self, raw: Array) -> Array:
        """A new array object with the same plan (plans are immutable; writes replace them)."""
        return source(raw)

    def asarray(self, data: Any, dtype: np.dtype | None = None, device: Device | None = None,
                copy: bool | None = None, chunks: Any = "auto", spec: Any = None,
                **options: Any) -> Array:
        if isinstance(data, Array):  # (a Held alias: the caller's array object is left alone)
            out = source(data) if dtype is None or data.dtype == dtype else DETACHED.astype(data, dtype)
            return out if chunks == "auto" else out.rechunk(chunks)
        if device is not None and Device(device).memory != CPU:
            raise ValueError(f"the cubed backend holds data on the host (its chunks are NumPy "
                             f"arrays), not on {device}")
        host = np.asarray(data, dtype=dtype)
        # asarray where Cubed takes it (up to 1 MB): a plan starting with from_array fails when
        # computed twice if it holds an arg-reduction (cubed 0.27: "An array exists in store")
        try:
            return DETACHED.asarray(host, chunks=chunks, spec=spec or self.spec)
        except ValueError:
            return DETACHED.from_array(host, chunks=chunks, spec=spec or self.spec)

    def create(self, fn: str, *args: Any, device: Device | None = None, chunks: Any = None,
               spec: Any = None, **kwargs: Any) -> Array:
        if fn == "eye" and "M" in kwargs:  # NumPy's M is Cubed's positional n_cols
            args = (*args, kwargs.pop("M"))
        made = getattr(cubed, fn, None)
        options = {"chunks": chunks or "auto", "spec": spec or self.spec}
        if made is None or fn == "linspace":
            return self.asarray(getattr(np, fn)(*args, **kwargs), **options)
        return held(made(*args, **options, **kwargs))

    def from_foreign(self, raw: Any, source: Backend, chunks: Any = "auto", spec: Any = None,
                     **options: Any) -> Array:
        host = source.to_host(raw, f"moving a {source.name} tensor to the cubed backend")
        return self.asarray(host, chunks=chunks, spec=spec)

    def to_device(self, raw: Array, device: Any) -> Array:
        if Device(device).memory == CPU:
            return raw
        return super().to_device(raw, device)

    def numpy_function(self, func: Any, method: str = "__call__") -> Any:
        found = super().numpy_function(func, "__call__")
        return found if method == "__call__" or found is None else getattr(found, method, None)

    def view_at(self, raw: Array, index: tuple) -> Array:
        """Cubed has no views: the slice (built on a copy: ``raw`` may be replaced) remembers
        ``raw`` so that writes into it are replayed."""
        return views.remember(getitem(source(raw), index), raw, index)

    def getitem(self, raw: Array, index: Any) -> Array:
        return getitem(raw, index)

    def advanced_index(self, raw: Array, items: tuple) -> Array:
        """Index arrays, in one task; boolean masks are read first (the result's size)."""
        items = tuple(self.to_host(i, "t[mask] on a Cubed tensor (its size depends on the "
                                      "mask's values)")
                      if isinstance(i, Array) and i.dtype == np.bool_ else i for i in items)
        return cubed_numpy.on_whole(_numpy_getitem, raw, items)

    def advanced_assign(self, raw: Array, items: tuple, value: Any) -> None:
        advanced_assign(raw, items, value)

    def per_block_layer(self, fn: Any, x: Array, axes: tuple[int, ...], wholes: list,
                        chunks: tuple, meta: Any, aligned: Sequence = ()) -> Array:
        """One ``general_blockwise`` operation: the task for an output block reads the block
        of ``x`` and of each ``aligned`` operand at the same place along ``axes`` (their other
        axes are one chunk) and the whole operands, each in one chunk; planned against
        ``allowed_mem`` as every Cubed operation is."""
        wholes = [cubed_numpy.whole(w, fn) for w in wholes]
        blocked = [source(a) for a in (x, *aligned)]

        def keys(out_key: Any) -> Any:
            return FunctionArgs(
                *(ChunkKey(a.name, tuple(out_key.coords[i] if i in axes else 0
                                         for i in range(a.ndim))) for a in blocked),
                *(ChunkKey(w.name, (0,) * w.ndim) for w in wholes), output_name=out_key.name)
        block = sum(max(np.prod([max(c) for c in a.chunks]) * a.dtype.itemsize, 0)
                    for a in blocked)
        out_block = np.prod([max(c) if c else 0 for c in chunks]) * meta.dtype.itemsize
        return held(general_blockwise(fn, keys, *blocked, *wholes,
                                      shapes=[tuple(map(sum, chunks))], dtypes=[meta.dtype],
                                      chunkss=[chunks],
                                      num_input_blocks=(1,) * (len(blocked) + len(wholes)),
                                      extra_projected_mem=int(sum(w.nbytes for w in wholes)
                                                              + 4 * (block + out_block))))

    def in_one_task(self, impl: Any, shape: tuple, dtype: Any, *args: Any) -> Array:
        return cubed_numpy.on_whole(functools.partial(impl, registry.get_backend("numpy")),
                                    *args, result=(shape, dtype))

    def write_target(self, raw: Array, name: str) -> Array:
        """A fresh alias of ``raw``, which the write replaces in place and the tensor then
        holds (other tensors holding ``raw`` keep its values, as after ``t = t + 1``).  A
        view's alias keeps its link: the write is replayed into the base, whose plan is
        replaced in place, as Dask's graph is (``views.written``)."""
        alias = source(raw)
        link = getattr(raw, views.BASE, None)
        if link is not None:
            views._set(alias, views.BASE, link)  # (by name where Cubed refuses the tag)
        return alias

    def ufunc(self, name: str) -> Any:
        return getattr(self.np, name)

    def ufunc_reduce(self, name: str, raw: Array, axis: Any, keepdims: bool = False) -> Array:
        return self.ufunc(name).reduce(raw, axis=axis, keepdims=keepdims)

    def contiguous(self, raw: Array) -> Array:
        return raw  # chunks have no memory layout until they are computed

    def unique_all(self, flat: Array) -> tuple[Any, Any, Any]:
        return self.np.unique(flat, return_inverse=True, return_counts=True)

    def per_block(self, fn: Any, raw: Array) -> Array:
        return DETACHED.map_blocks(fn, raw, dtype=raw.dtype)

    @property
    def special(self) -> Any:
        """SciPy's special functions, chunk by chunk (their ufuncs) or in one task."""
        import scipy.special  # optional: only torch.special needs it
        return _special(scipy.special)

    def random(self, seed: Any) -> Any:
        return _Random(np.random.default_rng(seed), self.asarray)

    def compute(self, *raws: Any, **kwargs: Any) -> tuple:
        kwargs.pop("progress", None)
        return tuple(np.asarray(v) for v in DETACHED.compute(*raws, **kwargs))

    def persist(self, *raws: Any, **kwargs: Any) -> tuple:
        """Computed, and held in memory as Cubed arrays of the same chunks and spec."""
        values = self.compute(*raws, **kwargs)
        return tuple(self.asarray(v, chunks=r.chunksize, spec=r.spec)
                     for v, r in zip(values, raws))

    def to_host(self, raw: Array, why: str = "") -> np.ndarray:
        """The values on the host: the only implicit compute, governed by ``dask_compute``."""
        if not isinstance(raw, Array):
            return np.asarray(raw)
        check_value_read(why, f"a lazy Cubed tensor (shape {tuple(raw.shape)}, "
                              f"{raw.npartitions} chunks)")
        return np.asarray(raw.compute())


# NumPy's array methods that Cubed's arrays lack, as the functions of the same name in
# ``be.np`` (operations call ``x.sum(axis=...)``, ``x.astype(...)`` on raw arrays).
_METHODS = ("all", "any", "argmax", "argmin", "argsort", "clip", "conj", "conjugate",
            "cumprod", "cumsum", "diagonal", "dot", "max", "mean", "min", "nonzero", "prod",
            "repeat", "round", "searchsorted", "sort", "squeeze", "std", "sum", "swapaxes",
            "take", "trace", "var", "compress", "choose", "partition", "argpartition")


def _method(name: str) -> Any:
    def method(self: Array, *args: Any, **kwargs: Any) -> Any:
        return getattr(backend.np, name)(self, *args, **kwargs)
    method.__name__ = name
    return method


def _map_blocks(self: Array, func: Any, *args: Any, dtype: Any = None, chunks: Any = None,
                **kwargs: Any) -> Array:
    """Dask's ``x.map_blocks(func, *constants, dtype=, chunks=)``, on Cubed's blocks."""
    if self.size == 0:
        return cubed_numpy.on_whole(functools.partial(_with_trailing, func, args, **kwargs),
                                    self)
    return DETACHED.map_blocks(functools.partial(_with_trailing, func, args), self,
                            dtype=self.dtype if dtype is None else dtype, chunks=chunks,
                            **kwargs)


def _with_trailing(func: Any, args: tuple, block: Any, **kwargs: Any) -> Any:
    return func(block, *args, **kwargs)


def _viewed(dtype: np.dtype, x: Any) -> Any:
    return x.view(dtype)


_OPERATORS = tuple(f"__{r}{op}__" for op in ("add", "sub", "mul", "truediv", "floordiv", "mod",
                                              "pow", "and", "or", "xor", "lshift", "rshift",
                                              "matmul")
                   for r in ("", "r")) + ("__lt__", "__le__", "__gt__", "__ge__", "__eq__",
                                          "__ne__")
_UNARY = ("__abs__", "__neg__", "__pos__", "__invert__")


def _taking_numpy_scalars(operator: Any) -> Any:
    """Cubed's operator, taking a NumPy scalar as the Python number it holds (Cubed declines
    NumPy scalars, and NumPy then computes the array into its own): a weak scalar keeps the
    array's dtype, as the scalars operations make (``x.dtype.type(eps)``) intend.  Its result
    is held (``Held``)."""
    @functools.wraps(operator)
    def taking(self: Array, other: Any) -> Any:
        return held(operator(self, other.item() if isinstance(other, np.generic) else other))
    return taking


def _holding(method: Any) -> Any:
    """Cubed's method, its result held (``Held``)."""
    @functools.wraps(method)
    def holding(self: Array, *args: Any, **kwargs: Any) -> Any:
        return held(method(self, *args, **kwargs))
    return holding


def _shape_args(shape: tuple) -> tuple:
    return tuple(shape[0]) if len(shape) == 1 and not isinstance(shape[0], int) else shape


def _add_numpy_methods(cls: type[Held]) -> None:
    """Give interop's subclass of Cubed's array class (``Held``) the NumPy methods Cubed's
    lacks (names it has are left alone), and NumPy's indexing where Cubed's refuses or errs
    (``getitem``): operations index and call methods on raw arrays as on NumPy's.  Cubed's
    own methods that make arrays hand back ``Held`` arrays too."""
    added: dict[str, Any] = {name: _method(name) for name in _METHODS}
    added.update(
        astype=lambda self, dtype, copy=True, **kw: DETACHED.astype(self, np.dtype(dtype)),
        copy=lambda self, order="C": backend.copy(self),
        reshape=lambda self, *shape, **kw: backend.np.reshape(self, _shape_args(shape)),
        transpose=lambda self, *axes: backend.np.transpose(self, _shape_args(axes) or None),
        flatten=lambda self, order="C": DETACHED.reshape(self, (-1,)),
        ravel=lambda self, order="C": DETACHED.reshape(self, (-1,)),
        item=lambda self, *index: backend.to_host(self, "item()").item(*index),
        map_blocks=_map_blocks,
        view=lambda self, dtype=None: self if dtype is None else cubed_numpy.on_whole(
            functools.partial(_viewed, np.dtype(dtype)), self),
        tolist=lambda self: backend.to_host(self, "tolist()").tolist(),
        real=property(lambda self: backend.np.real(self)),
        imag=property(lambda self: backend.np.imag(self)))
    for name, value in added.items():
        if not hasattr(cls, name):
            setattr(cls, name, value)
    for name in _OPERATORS:  # NumPy scalars (x.dtype.type(0)) as the Python numbers they hold
        setattr(cls, name, _taking_numpy_scalars(getattr(Array, name)))
    for name in _UNARY:
        setattr(cls, name, _holding(getattr(Array, name)))
    cls.__getitem__ = getitem  # NumPy's indexing where Cubed 0.27 refuses or errs (getitem)
    cls.T = property(lambda self: backend.np.transpose(self))  # NumPy's: any number of dims
    cls.mT = property(lambda self: held(Array.mT.fget(self)))
    cls.rechunk = lambda self, *args, **kwargs: held(_CUBEDS_RECHUNK(source(self), *args, **kwargs))


class _Random:
    """A NumPy ``Generator`` whose arrays become Cubed arrays (drawn on the host)."""

    def __init__(self, generator: np.random.Generator, make: Any) -> None:
        self._generator, self._make = generator, make

    def __getattr__(self, name: str) -> Any:
        draw = getattr(self._generator, name)

        def made(*args: Any, chunks: Any = "auto", **kwargs: Any) -> Any:
            out = draw(*args, **kwargs)
            return self._make(out, chunks=chunks) if isinstance(out, np.ndarray) else out
        return made


@functools.cache
def _special(module: Any) -> Any:
    return cubed_numpy.NumpyShaped(module, None)


backend = CubedBackend()
_add_numpy_methods(Held)
for _type in CubedBackend.array_types:
    views.WITHOUT_VIEWS[_type] = replace_contents
    views.SETITEM[_type] = setitem
cubed_numpy.REPLACE.append(replace_in_place)
