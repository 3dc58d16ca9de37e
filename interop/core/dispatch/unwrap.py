"""Arguments to raw arrays: tensors unwrapped (no copy), the common backend chosen by the
promotion policy (``registry.common_backend``), foreign operands brought in.

The common call (tensors of one backend, plain values) takes one pass
(``_unwrap_simple``); anything else goes through ``Unwrapper``, which notes every
operand's backend, imports guests (a torch module's weights beside NumPy tensors) and
moves what the policy allows.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ... import dtypes
from ...backends import registry, views
from ...backends.contract import Backend
from ...backends.dlpack import from_torch
from ..tensor import Tensor
from .wrapping import raw_backends

NEUTRAL = frozenset({int, float, bool, complex, str, type(None), slice, type(Ellipsis),
                     np.ndarray, np.dtype, range})
"""Types an argument may have that need no unwrapping (a host ndarray: the NumPy backend's)."""


def _foreign(x: Any) -> tuple[Backend, Any] | None:
    """A backend array for a foreign object (raw arrays, torch tensors, DLPack producers, the
    torch face's tensors: their interop tensor's array)."""
    be = registry.backend_of(x)
    if be is not None:
        return be, x
    held = getattr(x, "as_interop", None)
    if held is not None and callable(held):
        if getattr(x, "requires_grad", False):
            raise TypeError(f"a {type(x).__name__} that requires grad cannot be an operand of "
                            "interop's own functions, which record no gradients: call torch's "
                            "functions on it (and .as_torch() on the other operands), or "
                            "detach it first")
        raw = held()._raw
        return registry.backend_of(raw), raw
    if type(x).__module__.startswith("torch") and hasattr(x, "__dlpack__"):
        raw = from_torch(x)
        return registry.backend_of(raw), raw
    return None


class Unwrapper:
    """Replaces Tensors and foreign arrays by raw arrays and notes their backends.

    A raw array of a backend with ``foreign_joins`` (a torch module's weights) is a guest:
    beside tensors of other backends it comes in as their data (``Backend.as_data``: by
    DLPack, as before torch was a backend); alone or beside its own backend's, it is that."""

    __slots__ = ("first", "operands", "mixed", "guests", "imported")

    def __init__(self) -> None:
        self.first: Backend | None = None
        self.operands: list[tuple[Backend, Any]] = []
        self.mixed = False
        self.guests: list[int] = []  # indices in operands
        self.imported: dict[int, Any] = {}  # id of a guest's raw array -> its data

    def note(self, be: Backend, raw: Any) -> None:
        if self.first is None:
            self.first = be
        elif be is not self.first:
            self.mixed = True
        self.operands.append((be, raw))

    def one(self, a: Any) -> Any:
        t = type(a)
        if t in NEUTRAL and t is not np.ndarray:
            return a
        if isinstance(a, Tensor):
            raw = a._raw
            be = raw_backends.get(type(raw)) or registry.backend_of(raw)
            if not be.mutable:
                views.hold(a)  # a write into its array (out of place) rebinds it
            self.note(be, raw)
            return raw
        if t is list or t is tuple:
            return t([self.one(x) for x in a])
        if isinstance(a, tuple):  # a named tuple of tensors (SciPy's): a sequence, as torch's
            return tuple(self.one(x) for x in a)
        if isinstance(a, (np.generic, np.dtype, dtypes.PY_SCALARS)):
            return a
        if t is dtypes.DType:
            return a.numpy  # t.dtype given back (x.astype(t.dtype)): the implementations' dtype
        found = _foreign(a)
        if found is not None:
            if found[0].foreign_joins:
                self.guests.append(len(self.operands))
            self.note(*found)
            return found[1]
        return a

    def _import_guests(self) -> None:
        hosts = {b for i, (b, _) in enumerate(self.operands) if i not in self.guests}
        for i in self.guests:
            src, raw = self.operands[i]
            if src not in hosts:
                data = self.imported[id(raw)] = src.as_data(raw)
                self.operands[i] = (registry.backend_of(data), data)

    def backend(self) -> Backend | None:
        if not self.mixed and (self.first is None or not self.first.multi_device):
            return self.first
        if 0 < len(self.guests) < len(self.operands):
            self._import_guests()
        be = registry.common_backend(self.operands)  # checks devices (or the guard, if allowed)
        self.mixed = self.mixed or len({b.device_of(r) for b, r in self.operands}) > 1
        return be


def _bring_in(x: Any, be: Backend, device: Any, moved: dict[int, Any]) -> Any:
    """``x`` on backend ``be`` and ``device`` (implicit moves, already allowed and guarded).

    An eager operand taken into a lazy graph (a torch buffer, a NumPy array beside a Dask
    tensor) stays the place its values live: an implementation that writes into the copy
    (``batch_norm``'s running statistics in training) writes into it, a value read."""
    t = type(x)
    if t is list or t is tuple:
        return t([_bring_in(y, be, device, moved) for y in x])
    src = raw_backends.get(t)
    if src is None or src is be and (not be.multi_device or be.device_of(x) == device):
        return x
    if id(x) not in moved:
        if src.name == "numpy" and x.ndim == 0 and not be.lazy:
            moved[id(x)] = x[()]  # 0-d host arrays join any backend as scalars
        elif src is be:
            moved[id(x)] = be.to_device(x, device)
        else:
            copy = be.from_foreign(x, src, device=device)
            moved[id(x)] = views.lands_in(copy, x, functools.partial(onto_target, x, name=_LANDING)) \
                if be.lazy and not src.lazy and src.mutable else copy
    return moved[id(x)]


_LANDING = "a write into one of the call's eager operands (a torch buffer, a NumPy array)"


def onto_target(dest: Any, raw: Any, name: str) -> Any:
    """``raw`` (a result, a value or an index) on the backend and device of ``dest``, which
    is about to be written: a lazy array going into an eager target is a value read, through
    the ``dask_compute`` gate; host arrays stay as they are for a lazy target (Dask takes them)."""
    src = raw_backends.get(type(raw)) or registry.backend_of(raw)
    target = raw_backends.get(type(dest)) or registry.backend_of(dest)
    if src is None or src is target and (not target.multi_device
                                         or src.device_of(raw) == target.device_of(dest)):
        return raw
    if src.lazy and not target.lazy:
        host = src.to_host(raw, f"{name}: writing a lazy Dask value into a {target.name} tensor")
        return target.asarray(host, device=target.device_of(dest))
    if target.lazy and src.name == "numpy":
        return raw
    return target.from_foreign(raw, src, device=target.device_of(dest))



def _unwrap_simple(args: tuple) -> tuple[Backend | None, list] | None:
    """One pass for the common call: Tensors on one backend and plain values; else None."""
    first = first_raw = None
    rargs = []
    for a in args:
        if isinstance(a, Tensor):
            raw = a._raw
            be = raw_backends.get(type(raw))
            if be is None or (first is not None and be is not first) or not be.mutable:
                return None
            if be.multi_device:  # same backend, maybe another device: the full check decides
                if first_raw is not None and raw.device != first_raw.device:
                    return None
                first_raw = raw
            first = be
            rargs.append(raw)
        elif type(a) in NEUTRAL and type(a) is not np.ndarray:
            rargs.append(a)
        else:
            return None
    return first, rargs


_PLAIN_OPTIONS = frozenset({bool, int, float, str, type(None)})


def unwrap_call(args: tuple, kwargs: dict) -> tuple[Backend | None, list, dict]:
    """Raw arguments on one backend, and that backend (None when there are no arrays)."""
    if not kwargs or all(type(v) in _PLAIN_OPTIONS for v in kwargs.values()):
        simple = _unwrap_simple(args)  # options such as inplace=False, dim=1 need no unwrapping
        if simple is not None:
            return simple[0], simple[1], kwargs or {}
    u = Unwrapper()
    rargs = [u.one(a) for a in args]
    rkwargs = {k: u.one(v) for k, v in kwargs.items()} if kwargs else {}
    be = u.backend()
    if u.mixed:
        device = registry.common_device(u.operands)
        moved = {k: _bring_in(v, be, device, {}) for k, v in u.imported.items()}
        rargs = [_bring_in(a, be, device, moved) for a in rargs]
        rkwargs = {k: _bring_in(v, be, device, moved) for k, v in rkwargs.items()}
    return be, rargs, rkwargs


def exact_tensors(args: tuple, cls: type[Tensor] = Tensor) -> tuple[Backend, list] | None:
    """The commonest call, checked before ``plain_call``: one or two tensors of exactly
    ``cls``, of one array type on one device, nothing else: (backend, raw arrays); else None."""
    if len(args) == 1:
        a = args[0]
        if type(a) is cls:
            raw = a._raw
            be = raw_backends.get(type(raw))
            if be is not None and be.mutable:  # an immutable one registers its tensors (JAX)
                return be, [raw]
    elif len(args) == 2:
        a, b = args
        if type(a) is cls and type(b) is cls:
            raw_a, raw_b = a._raw, b._raw
            be = raw_backends.get(type(raw_a))
            if be is not None and type(raw_b) is type(raw_a) and be.mutable \
                    and not be.multi_device:
                return be, [raw_a, raw_b]
    return None
