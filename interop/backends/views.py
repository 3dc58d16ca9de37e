"""Writes through views, on backends whose arrays have no views (Dask).

On NumPy and CuPy, basic indexing (integers, slices of any step, ``...``,
``None``, 0-d integer tensors) and the layout operations (``reshape``,
``view``, ``flatten``, ``squeeze``, ``unsqueeze``, ``permute``, ``movedim``,
``transpose``, ``T``, ``narrow``, ``select``, ``split``, ``tensor_split``,
``unflatten``, ``diagonal``, ``real``/``imag``, ...) give views: writing into
one changes the tensor it came from, as in torch, and code such as
scikit-learn's ``_add_to_diagonal(covariances[k])`` relies on it.  A Dask
array has no shared buffer, so each such result remembers the array it came
from and how its elements map back, and a write into it is replayed, lazily,
into that array (and on up the chain).  One way only: a view taken earlier
does not see later writes into its base.  A reshape of a view that is not
contiguous (a transpose, a strided slice) is a copy, as NumPy's and torch's
are, unless it only adds or drops dimensions of size 1.

Broadcast views (``expand``, ``broadcast_to``) repeat elements: every write
into one raises torch's overlap error, on every backend, before anything is
written.  Every write goes through ``assign`` (whole arrays) or ``put``
(``t[index] = v`` on Dask).

Immutable arrays (JAX's, ``Backend.mutable = False``) are written out of place:
``forward(old, new)`` records that ``old``'s contents are now ``new`` and rebinds
the tensors registered as holding ``old`` (``hold``: the dispatcher registers the
tensors of every call on such a backend), so ``t.add_(1)``, ``t[0] = 1`` and writes
through views replay as on Dask, with every handle then holding the new array.
Their links live in a side table (JAX's tracers take no attributes).

Libraries with views of their own that cannot express every basic selection (torch has
no negative strides: ``t[::-1]`` is a copy, ``PARTIAL_VIEWS``) link such a copy to its
base as Dask's views are linked (``copied``); a write into the copy, or into a view of
it that shares its memory, is replayed into the base (``written``).
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from ..upstream import UpstreamChangedError, changed

WITHOUT_VIEWS: dict[type, Callable[[Any, Any], None]] = {}
"""Array types of such backends -> how to replace an array's whole contents in place
(each backend adds its own on load)."""
IMMUTABLE: dict[type, Callable[[Any, Any, Any], Any]] = {}
"""Array types that cannot be written (also in WITHOUT_VIEWS) -> ``at(base, index, value)``:
a new array, ``base`` with ``base[index] = value`` (JAX's ``base.at[index].set(value)``)."""
SETITEM: dict[type, Callable[[Any, Any, Any], None]] = {}
"""Array types without ``__setitem__`` (Cubed) -> how to write ``base[index] = value`` in
place, for the indices ``put`` and the write replay use."""
PARTIAL_VIEWS: dict[type, Callable[[Any], Any]] = {}
"""Array types with views of their own whose some basic selections are copies (torch's
negative steps, linked by ``copied``) -> the array whose memory a view shares (torch's
``_base``), or None (each such backend adds its own on load)."""
BASE = _BASE = "_interop_view_of"  # the attribute linking a view to its base
_SHARED = "shared"  # a link's index on PARTIAL_VIEWS: the view shares its base's memory
_BROADCAST = "_interop_broadcast"
_NOW = "now"  # [the newest array], shared by every array an immutable one was replaced by
_HOLDERS = "holders"
_CELLS: dict[int, tuple[Any, dict]] = {}  # id(immutable array) -> (weakref to it, its entries)


def _cell(raw: Any, create: bool = False) -> dict | None:
    """The side-table entries of an immutable array (None if it has none and not ``create``)."""
    key = id(raw)
    found = _CELLS.get(key)
    if found is not None and found[0]() is raw:
        return found[1]
    if not create:
        return None
    entries: dict = {}
    _CELLS[key] = (weakref.ref(raw, functools.partial(_forget, _CELLS, key)), entries)
    return entries


def _get(raw: Any, name: str) -> Any:
    if type(raw) in IMMUTABLE:
        cell = _cell(raw)
        return None if cell is None else cell.get(name)
    return getattr(raw, name, None)


def _set(raw: Any, name: str, value: Any) -> None:
    if type(raw) in IMMUTABLE:
        _cell(raw, True)[name] = value
        return
    try:
        setattr(raw, name, value)  # a tag on the instance (Dask's and Cubed's arrays take them)
    except AttributeError as exc:
        module = type(raw).__module__
        raise UpstreamChangedError(changed(f"{type(raw).__qualname__} instances taking "
                                           f"attributes ({name})", module, "interop cannot "
                                           "link this view to its base")) from exc


def latest(raw: Any) -> Any:
    """The array now holding ``raw``'s contents: ``raw`` itself, unless it is an immutable
    array written since (out of place)."""
    cell = _cell(raw) if _CELLS else None
    return raw if cell is None or _NOW not in cell else cell[_NOW][0]


def hold(handle: Any) -> None:
    """``handle`` (a tensor) holds an immutable array: it is rebound when that array is written."""
    holders = _cell(handle._raw, True).setdefault(_HOLDERS, {})
    holders[id(handle)] = weakref.ref(handle)  # by id: tensors compare elementwise


def forward(old: Any, new: Any) -> None:
    """``old``, an immutable array, now has ``new``'s contents: its holders rebind to ``new``,
    which keeps ``old``'s place as a view (a later write into it reaches the same base)."""
    old = latest(old)  # written before: its holders moved on to the newest array
    cell = _cell(old, True)
    box = cell.setdefault(_NOW, [old])  # one box per lineage: replaced arrays can be freed
    box[0] = new
    if new is old:
        return
    target = _cell(new, True)
    target[_NOW] = box
    for name in (_BASE, _BROADCAST):
        if name in cell:
            target[name] = cell[name]
    holders = cell.pop(_HOLDERS, None)
    if holders:
        kept = target.setdefault(_HOLDERS, {})
        for key, ref in holders.items():
            handle = ref()
            if handle is not None and handle._raw is old:
                handle._raw = new
                kept[key] = ref


OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a "
           "single memory location. Please clone() the tensor before performing the operation.")


def _basic(index: Any) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return all(i is None or i is Ellipsis or type(i) is slice
               or isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in items)


def _tracked(view: Any, base: Any) -> bool:
    return type(view) in WITHOUT_VIEWS and view is not base  # Dask returns x itself for x[:]


def _link(view: Any, base: Any, index: Any, undo: Callable[[Any], Any],
          contiguous: bool) -> Any:
    """``base[index]`` holds ``undo(view)``'s elements: a write into ``view`` goes there."""
    _set(view, _BASE, (base, index, undo, contiguous and _contiguous(base)))
    return view


def _contiguous(raw: Any) -> bool:
    """Would this be C-contiguous on NumPy (an array that is no view of another is)?"""
    link = _get(raw, _BASE)
    return link is None or link[3]


def _expanded(items: tuple, ndim: int) -> tuple:
    """``items`` with ``...`` spelled out as whole-dimension slices."""
    if Ellipsis not in items:
        return items + (slice(None),) * (ndim - sum(i is not None for i in items))
    at = items.index(Ellipsis)
    rest = sum(i is not None for i in items) - 1
    return items[:at] + (slice(None),) * (ndim - rest) + items[at + 1:]


def _contiguous_index(items: tuple, shape: tuple) -> bool:
    """Basic indices that select one C-contiguous block: integers, then one step-1 slice,
    then whole dimensions."""
    sliced = False  # after the first slice, only whole dimensions keep the block contiguous
    for item, size in zip(_expanded(items, len(shape)), shape):
        if size != size:  # NaN: an unknown Dask size; treated as not contiguous
            return False
        if isinstance(item, slice):
            start, stop, step = item.indices(size)
            if sliced and (start, stop, step) != (0, size, 1) or step != 1 and stop - start > 1:
                return False
            sliced = True
        elif sliced:
            return False
    return True


def _as_forward_slices(items: tuple, shape: tuple) -> tuple[tuple, tuple]:
    """The same elements selected by step>0 slices only, and the axes to flip back.

    Integers become length-1 slices and negative steps positive ones (Dask's
    assignment fails on an integer beside a slice, and on negative steps).
    """
    out, flips = [], []
    for axis, (item, size) in enumerate(zip(items, shape)):
        if isinstance(item, slice):
            if item.step is not None and item.step < 0 and size == size:
                picked = range(*item.indices(size))
                item = slice(picked[-1], picked[0] + 1, -item.step) if picked else slice(0, 0)
                flips.append(axis)
        elif size == size:  # an integer (NaN sizes: Dask takes -1 as it is)
            i = int(item) + size * (int(item) < 0)
            item = slice(i, i + 1)
        else:
            item = slice(int(item), int(item) + 1 or None)
        out.append(item)
    return tuple(out), tuple(flips)


def _forward(index: Any, shape: tuple, flip: Callable[[Any, tuple], Any] | None = None
             ) -> tuple[tuple, Callable[[Any], Any]]:
    """For a basic ``index``: the same elements as step>0 slices only (what Dask's assignment
    takes), and the map from an array shaped like ``x[index]`` to one shaped like
    ``x[forward]`` (reversing axes by ``flip(raw, axes)``, else by a negative step)."""
    items = _expanded(index if isinstance(index, tuple) else (index,), len(shape))
    kept = tuple(i for i in items if i is not None)
    forward, flips = _as_forward_slices(kept, shape)
    # from the view's axes to forward's: drop the new axes (None), restore the ints' axes
    back = tuple(0 if i is None else slice(None) if type(i) is slice else None for i in items)
    reverse = tuple(slice(None, None, -1) if a in flips else slice(None) for a in range(len(kept)))

    def undo(raw: Any) -> Any:
        raw = raw[back]
        if not flips:
            return raw
        return raw[reverse] if flip is None else flip(raw, flips)
    return forward, undo


def _forget(cells: dict, key: int, _: Any) -> None:
    """The entries of an array that is gone (a weakref's callback; ``cells`` held, since the
    module's names may be gone when the interpreter exits)."""
    cells.pop(key, None)


def remember(view: Any, base: Any, index: Any) -> Any:
    """``view`` is ``base[index]`` (basic indexing)."""
    if not _tracked(view, base) or not _basic(index):
        return view
    forward: Any
    undo: Callable[[Any], Any]
    if type(base) in SETITEM:  # the library's own write takes the index as it is
        forward, undo = index, _same
    else:
        forward, undo = _forward(index, base.shape)
    items = index if isinstance(index, tuple) else (index,)
    contiguous = _contiguous_index(tuple(i for i in items if i is not None), base.shape)
    return _link(view, base, forward, undo, contiguous)


def row_of(raw: Any) -> tuple[Any, int] | None:
    """``(base, k)`` when ``raw`` is ``base[k]``, one index along the first axis taken from an
    array without views (a dataset's sample, ``x[k]``); else None."""
    link = _get(raw, _BASE)
    if link is None:
        return None
    base, index = link[0], link[1]
    items = index if isinstance(index, tuple) else (index,)
    if not items or raw.ndim != base.ndim - 1:
        return None
    first = items[0]
    if type(first) is slice:
        if first.step not in (None, 1) or first.start is None or first.stop != first.start + 1:
            return None
        first = first.start
    if not isinstance(first, (int, np.integer)) or isinstance(first, bool) or not all(
            type(i) is slice and i.step in (None, 1) and i.start in (None, 0) and
            (i.stop is None or i.stop >= n) for i, n in zip(items[1:], base.shape[1:])):
        return None
    return base, int(first)


def copied(copy: Any, base: Any, index: Any, flip: Callable[[Any, tuple], Any]) -> Any:
    """``copy`` holds ``base[index]`` (basic indexing) on a backend whose views cannot
    select so (``PARTIAL_VIEWS``: torch's negative steps; ``flip(raw, axes)`` reverses
    axes there): writes into it reach ``base``."""
    forward, undo = _forward(index, base.shape, flip)
    return _link(copy, base, forward, undo, False)


def put(base: Any, index: Any, value: Any) -> None:
    """``base[index] = value`` on a backend without views: basic indices go in as step>0
    slices, which Dask takes (it fails on an integer beside a slice, on negative steps and
    on empty selections)."""
    if not _basic(index) or type(base) in SETITEM:
        _setitem(base, index, value)
        return
    shape = base[index].shape
    if 0 in shape:
        return  # nothing selected, nothing to write
    forward, undo = _forward(index, base.shape)
    if getattr(value, "ndim", 0) == 0:
        _setitem(base, forward, value)
        return
    if tuple(value.shape) != tuple(shape):
        value = np.broadcast_to(value, shape)  # Dask's own, through __array_function__
    _setitem(base, forward, undo(value))


def _same(raw: Any) -> Any:
    return raw


def _setitem(base: Any, index: Any, value: Any) -> None:
    setitem = SETITEM.get(type(base))
    if setitem is None:
        base[index] = value
    else:
        setitem(base, index, value)


def lands_in(copy: Any, target: Any, read: Callable[[Any], Any]) -> Any:
    """``copy`` is ``target``'s values brought into a library without views (a torch buffer or
    a NumPy array taken into a Dask graph as an operand): a write into ``copy`` lands in
    ``target`` whole, as ``read(copy)`` (a value read, through the ``dask_compute`` gate, so
    under ``"raise"`` nothing is written)."""
    if type(copy) not in WITHOUT_VIEWS:
        return copy
    return _link(copy, target, Ellipsis, read, False)


def merged(view: Any, base: Any, merge: Callable[[Any, Any], Any]) -> Any:
    """``view`` is part of ``base`` that no index selects (``real``, ``diagonal``): a write
    into it replaces ``base`` by ``merge(base, view)``."""
    if not _tracked(view, base):
        return view
    return _link(view, base, Ellipsis, lambda raw: merge(latest(base), raw), False)


def broadcast(view: Any, base: Any) -> Any:
    """``view`` repeats ``base``'s elements (expand, broadcast_to): writing into it raises."""
    if _tracked(view, base):
        _set(view, _BROADCAST, True)
    return view


def check_writable(raw: Any, name: str) -> None:
    """torch's error for a write into a tensor whose elements share memory (a broadcast view),
    raised before anything is written, on every backend."""
    shared = _get(raw, _BROADCAST) if type(raw) in WITHOUT_VIEWS else any(
        stride == 0 and size > 1
        for stride, size in zip(getattr(raw, "strides", ()), getattr(raw, "shape", ()))) \
        and getattr(raw, "size", 0) > 0
    if shared:
        raise RuntimeError(f"{name}: {OVERLAP}")


def assign(dest: Any, value: Any) -> None:
    """``dest[...] = value`` (same shape, castable dtype), also into the arrays ``dest`` is a
    view of; on backends without views ``dest`` takes ``value``'s contents whole, which works
    on unknown (NaN) sizes too."""
    replace = WITHOUT_VIEWS.get(type(dest))
    if replace is None:
        dest[...] = value
    else:
        replace(dest, value)
    written(dest)


def reshaped(view: Any, base: Any) -> Any:
    """``view`` holds ``base``'s elements in another shape (reshape, view, flatten, squeeze);
    a copy if ``base`` is not contiguous, unless only dimensions of size 1 come or go."""
    if not _tracked(view, base) or not (_contiguous(base) or _unit_dims_only(view, base)):
        return view
    shape = base.shape
    return _link(view, base, Ellipsis, lambda raw: _reshape(raw, shape), True)


def _unit_dims_only(view: Any, base: Any) -> bool:
    return [s for s in view.shape if s != 1] == [s for s in base.shape if s != 1]


def permuted(view: Any, base: Any, axes: Any) -> Any:
    """``view`` is ``base`` with its dimensions in the order ``axes`` (permute, transpose, T)."""
    if not _tracked(view, base):
        return view
    axes = [a % max(base.ndim, 1) for a in axes]
    inverse = tuple(int(i) for i in np.argsort(axes))
    moved = [a for a in axes if base.shape[a] != 1]  # dimensions of size 1 move freely
    return _link(view, base, Ellipsis, lambda raw: raw.transpose(inverse), moved == sorted(moved))


def written(raw: Any) -> None:
    """``raw`` was just written in place: replay the write into the arrays it is a view of."""
    if type(raw) in WITHOUT_VIEWS:
        link = _get(raw, _BASE) if raw.size != 0 else None
    elif type(raw) in PARTIAL_VIEWS:
        link = _partial_link(raw)
    else:
        return
    while link is not None:
        base, index, undo, _ = link
        if index is not _SHARED:  # (a view sharing base's memory wrote into base already)
            value = undo(latest(raw))
            if index is Ellipsis and type(base) in WITHOUT_VIEWS:
                WITHOUT_VIEWS[type(base)](base, value)
            elif type(base) in IMMUTABLE:
                forward(base, IMMUTABLE[type(base)](latest(base), index, value))
            else:
                _setitem(base, index, value)
        link = _partial_link(base) if type(base) in PARTIAL_VIEWS else _get(base, _BASE)
        raw = base


def _partial_link(raw: Any) -> tuple | None:
    """The link of ``raw`` on a ``PARTIAL_VIEWS`` backend: its own (a copy, ``copied``), else
    a view of a linked copy shares that copy's memory (``t[::-1][1:3]``)."""
    link = getattr(raw, _BASE, None)
    if link is None:
        owner = PARTIAL_VIEWS[type(raw)](raw)
        if owner is not None and getattr(owner, _BASE, None) is not None:
            link = (owner, _SHARED, None, False)
    return link


def _reshape(raw: Any, shape: tuple) -> Any:
    try:
        return raw.reshape(shape)
    except NotImplementedError:  # Dask cannot split chunks unevenly: one chunk first
        return raw.rechunk(-1).reshape(shape)
