"""The generated callables: interop's functions, methods, properties and ``t[i]``.

Each is a closure over its ``Route``.  A call first asks whether anything could override
it (``plain_call``: one context-variable lookup, then one look at the arguments); if
nothing can, it runs the route directly (the fast path), else the override protocol
decides (``dispatch``), as torch's Python path does.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from ...backends import views
from ...backends.contract import Backend
from .. import torch_function as tf
from ..tensor import Tensor, make
from .handler import DEFAULT_HANDLER
from .routes import Route, register
from .running import call_impl
from .shortcuts import raw_shortcut
from .unwrap import exact_tensors
from .wrapping import finish, new_object, raw_backends

active = tf.active  # the per-context gate: falsy when no mode or guard is active here


_PLAIN_VALUES = frozenset({int, float, bool, complex, str, type(None), slice, type(Ellipsis),
                           range, np.dtype})


def plain_call(args: tuple, kwargs: dict | None) -> tuple[type, Backend | None, list | None] | None:
    """The fast path's one check, for functions, methods, properties and NumPy's protocols.

    ``(cls, backend, raws)`` when no argument can override (Tensors keeping the
    default handler, plain values): ``cls`` is the result class (the lowest
    subclass).  ``raws`` are the raw positional arguments when the call needs
    no unwrapping besides (arrays of one backend and device; keyword options
    that are plain values); else None, and the general path unwraps.  None
    when something may override: the protocol decides, and raises torch's
    TypeError for unrelated subclasses."""
    cls: type = Tensor
    be, device = None, None
    raws: list | None = []
    n_args = len(args)
    for i, a in enumerate((*args, *kwargs.values()) if kwargs else args):
        t = type(a)
        if t is Tensor:
            raw = a._raw
        elif t in _PLAIN_VALUES:
            if raws is not None and i < n_args:
                raws.append(a)
            continue
        elif t is np.ndarray:
            raw = a  # a host array: the NumPy backend's own
        elif t is list or t is tuple:
            inner = plain_call(a, None)
            if inner is None or (cls := _lower(cls, inner[0])) is None:
                return None
            raws = None
            continue
        else:
            handler = getattr(t, "__torch_function__", None)
            if getattr(handler, "__func__", None) is not DEFAULT_HANDLER:
                if handler is not None and (issubclass(t, Tensor) or tf.overrides(t)):
                    return None  # (a Tensor subclass's own handler, or a duck type's)
                if raws is not None and i < n_args and isinstance(a, np.generic):
                    raws.append(a)  # NumPy scalars go in as they are
                else:
                    raws = None  # a dtype object, a torch tensor as data, ...: the general path
                continue
            if (cls := _lower(cls, t)) is None:
                return None
            raw = a._raw
        if raws is None:
            continue
        b = raw_backends.get(type(raw))
        if i >= n_args or b is None or (be is not None and b is not be):
            raws = None
            continue
        if not b.mutable:
            views.hold(a)  # a write into its array (out of place) rebinds it, as unwrap does
        if b.multi_device:
            if device is None:
                device = raw.device
            elif raw.device != device:
                raws = None
                continue
        be = b
        raws.append(raw)
    return cls, be, raws


def _lower(cls: type, t: type) -> type | None:
    """The lower of two classes in one line of descent; None for unrelated subclasses."""
    if issubclass(t, cls):
        return t
    return cls if issubclass(cls, t) else None


def dispatch(public: Callable, run: Callable, args: tuple, kwargs: dict) -> Any:
    """The slow path: modes and argument overrides, as torch's Python path does it."""
    if not active():
        first = _one_override(args, kwargs)
        if first is not None:  # a subclass's own handler, the only one: no search to make
            return tf.call_own_handler(public, first, args, {})
    overloaded = tf.overriding_args(tf.relevant_args(args, kwargs))
    if not overloaded and not tf.mode_enabled():
        return run(Tensor, args, kwargs)
    return tf.run_overrides(public, overloaded, args, kwargs or {})


def _one_override(args: tuple, kwargs: dict | None) -> Any:
    """The call's one overriding argument where finding it is that simple: the first, a
    Tensor subclass with its own loop-checked classmethod handler (``Tensor.__init_subclass__``
    wraps it), beside nothing but plain values and tensors of its class (torch tries each
    type once); else None: the general search."""
    if kwargs or not args:
        return None
    first = args[0]
    cls = type(first)
    if cls is Tensor or not isinstance(first, Tensor) or \
            tf.unchecked_handler(getattr(cls.__torch_function__, "__func__", None)) is None:
        return None
    for a in args:
        if type(a) is not cls and type(a) not in _PLAIN_VALUES:
            return None
    return first


def call(public: Callable, run: Callable, args: tuple, kwargs: dict) -> Any:
    """Run ``public``'s operation: directly if nothing can override, else via the protocol."""
    if not active():
        plain = plain_call(args, kwargs)
        if plain is not None:
            return run(plain[0], args, kwargs)
    return dispatch(public, run, args, kwargs)


def make_public(route: Route, name: str, qualname: str, doc: str = "",
                signature: inspect.Signature | None = None, module: str = "interop") -> Callable:
    """A function or method: the fast path, else the override protocol.

    Where the route has an implementation to call directly (``Route.impl``), it is called
    straight from here once the plain-call check has unwrapped the arguments; an
    operator's shortcut (``Route.shortcut``) comes first for two plain tensors."""
    run, direct, fits, shortcut, names = (route.run, route.impl, route.fits, route.shortcut,
                                          route.native_names)
    bare = route.bare or direct  # the implementation without its dims normaliser

    def public(*args: Any, **kwargs: Any) -> Any:
        if not active():
            if bare is not None and not kwargs:
                exact = exact_tensors(args)
                if exact is not None:
                    if shortcut is not None and len(args) == 2:
                        raw = raw_shortcut(*shortcut, *exact[1])
                        if raw is not None:
                            return finish(raw, Tensor, args)
                    if fits is None or fits(exact[1]):
                        return finish(call_impl(bare, exact[0], exact[1], kwargs, names),
                                      Tensor, args)
            plain = plain_call(args, kwargs)
            if plain is not None:
                cls, be, raws = plain
                if direct is not None and raws is not None and be is not None:
                    if not kwargs and (fits is None or fits(raws)):
                        return finish(call_impl(bare, be, raws, kwargs, names), cls, args, be)
                    if "out" not in kwargs:
                        return finish(call_impl(direct, be, raws, kwargs, names), cls, args, be)
                return run(cls, args, kwargs)
        return dispatch(public, run, args, kwargs)
    public.__name__, public.__qualname__, public.__module__ = name, qualname, module
    public.__doc__ = doc or None
    if signature is not None:
        public.__signature__ = signature  # type: ignore[attr-defined]  # (inspect reads it)
    publish(public, route, f"{module}.{qualname}")
    return public


def publish(obj: Any, route: Route, name: str) -> None:
    """Make ``obj`` known: handlers that receive it run ``route``, and it is named ``name``
    in the protocol's messages (``interop.overrides.resolve_name``)."""
    register(obj, route)
    tf.register_public(obj, name)


def default_handler(cls: type) -> bool:
    """True if ``cls`` keeps the default ``__torch_function__`` (results simply become cls)."""
    handler = getattr(cls, "__torch_function__", None)
    return cls is Tensor or getattr(handler, "__func__", None) is DEFAULT_HANDLER


def make_getitem(route: Route) -> Callable:
    """``t[i]``: a slice or an int on a plain tensor is a view made directly; all else dispatches."""
    run = route.run
    without_views, immutable = views.WITHOUT_VIEWS, views.IMMUTABLE  # (sets, filled as backends load)

    def __getitem__(self: Any, index: Any) -> Any:  # noqa: N807
        cls = type(self)
        if (cls is Tensor or default_handler(cls)) and not active():
            ti = type(index)
            try:
                if ti is slice:
                    out = self._raw[index]
                elif ti is int and self._raw.ndim:
                    out = self._raw[index, ...]
                else:
                    out = None
            except (IndexError, ValueError, OverflowError):
                out = None  # the table entry below says it in torch's words (Dask: unknown sizes)
            if out is not None:
                if type(out) in without_views:  # Dask: writes into out must reach self
                    views.remember(out, self._raw, index)
                    if type(out) in immutable:  # JAX: a write replays into self's array
                        views.hold(self)
                elif cls is Tensor:
                    obj = new_object(Tensor)
                    obj._raw = out
                    return obj
                return make(cls, out, self)
            return call(__getitem__, run, (self, index), {})
        return dispatch(__getitem__, run, (self, index), {})  # a mode, or cls's own handler
    __getitem__.__qualname__ = "Tensor.__getitem__"
    __getitem__.__module__ = "interop"
    publish(__getitem__, route, "interop.Tensor.__getitem__")
    return __getitem__


class DispatchedProperty:
    """A property that goes through the protocol: handlers see ``Tensor.<name>.__get__``."""

    def __init__(self, route: Route, name: str, doc: str = "") -> None:
        self._run = route.run
        self.__name__ = name
        self.__doc__ = doc or None
        publish(self, route, f"interop.Tensor.{name}")

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        if not active():
            plain = plain_call((obj,), None)
            if plain is not None:
                return self._run(plain[0], (obj,), {})
        return dispatch(self.__get__, self._run, (obj,), {})

    def __set__(self, obj: Any, value: Any) -> None:
        raise AttributeError(f"can't set attribute '{self.__name__}' of an interop tensor")
