"""Results back to tensors: raw arrays wrapped once, as the call's result class, at the end."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...backends import registry, views
from ...backends.contract import Backend
from ..tensor import Tensor, make

new_object = object.__new__
raw_backends = registry._by_type  # type -> Backend, grows as backends load


def source_of(cls: type, args: tuple) -> Any:
    """The first argument (or list element) that is an instance of ``cls``: the tensor a
    subclass result is finalized from (its attributes carried over)."""
    for a in args:
        if isinstance(a, cls):
            return a
        if type(a) is list or type(a) is tuple:
            for b in a:
                if isinstance(b, cls):
                    return b
    return None


def wrap(ret: Any, cls: type, args: tuple = (), be: Backend | None = None) -> Any:
    """Wrap raw arrays in ``ret`` (also inside tuples, lists, namedtuples) as ``cls``.

    Given the backend ``be`` the operation ran on, raw arrays of a guest library
    (``foreign_joins``: torch) made there stay raw: torch's own host-side bookkeeping, such as
    a packed sequence's ``batch_sizes``, which torch code reads back as torch tensors."""
    t = type(ret)
    if t in raw_backends:
        if be is not None and raw_backends[t] is not be and raw_backends[t].foreign_joins:
            return ret
        if t in views.IMMUTABLE:  # an input written out of place (inplace=True) is its newest
            ret = views.latest(ret)
        obj = make(cls, ret, None if cls is Tensor else source_of(cls, args))
        if t in views.IMMUTABLE:
            views.hold(obj)  # it may share an argument's array (t.float(), t.detach())
        return obj
    if isinstance(ret, np.generic):  # a NumPy reduction's scalar: a 0-d tensor, as torch's
        return make(cls, np.asarray(ret), None if cls is Tensor else source_of(cls, args))
    if t is tuple or t is list:
        return t([wrap(x, cls, args, be) for x in ret])
    if isinstance(ret, Tensor):
        return ret if isinstance(ret, cls) else ret.as_subclass(cls)
    if isinstance(ret, tuple) and hasattr(ret, "_fields"):
        return t(*(wrap(x, cls, args, be) for x in ret))
    if registry.backend_of(ret) is not None:
        return wrap(ret, cls, args, be)
    return ret


def finish(ret: Any, cls: type, args: tuple, be: Backend | None = None) -> Any:
    """An implementation's raw result as a ``cls`` tensor: one array (or NumPy scalar) made
    directly, anything else wrapped, as is an immutable backend's ``be`` result (registered
    for the write replay; the exact-tensor paths, which give no ``be``, refuse those)."""
    if type(ret) not in raw_backends:
        if not isinstance(ret, np.generic):
            return wrap(ret, cls, args, be)
        ret = np.asarray(ret)  # a NumPy reduction's scalar: a 0-d tensor, as torch's
    elif be is not None and not be.mutable:
        return wrap(ret, cls, args, be)
    if cls is not Tensor:
        return make(cls, ret, source_of(cls, args))
    obj = new_object(Tensor)
    obj._raw = ret
    return obj
