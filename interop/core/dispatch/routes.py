"""How each callable runs: its ``Route``, decided once when the callable is made.

A route is what the fast paths and the default handler need to run an operation: the
general ``run(cls, args, kwargs)``, and, where the run does nothing but unwrap, call the
implementation and wrap, that implementation (``impl``), to call directly once the
arguments are known to be plain.  Callables of every surface map to routes: interop's own
(registered as they are made) and other libraries' (torch's, NumPy's), found by the
surfaces' resolvers on first use and remembered.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

Run = Callable[[type, tuple, dict], Any]
"""``run(cls, args, kwargs)``: the general path, results wrapped as ``cls``."""


@dataclass(slots=True, eq=False)
class Route:
    """One operation, as a generated callable runs it."""

    run: Run
    impl: Callable[..., Any] | None = None
    """``impl(be, *raw_args, **kwargs)`` where ``run`` only unwraps, calls it and wraps
    (out-of-place entries that are not creation functions); None elsewhere."""
    bare: Callable[..., Any] | None = None
    """``impl`` without its dimension normaliser (called when ``fits`` says it may be)."""
    fits: Callable[[list], bool] | None = None
    """True for raw positional arguments that need no normalising (None: any do)."""
    native_names: tuple[str, ...] = ()
    """The torch names a backend whose library is torch runs its own function under."""
    shortcut: tuple[Callable[[Any, Any], Any], str] | None = None
    """An operator's raw function and dtype kinds, for ``interop.add(t, t)`` as ``t + t``."""


known: dict[int, tuple[Any, Route]] = {}
"""id of a callable (or property) -> (it, its route); held, so ids are never reused."""

RESOLVERS: list[Callable[[Callable], Route | None]] = []
"""Lookups for callables of other surfaces (torch callables by name, NumPy functions)."""


def register(obj: Any, route: Route) -> None:
    """``obj`` (an interop callable, or a property object) runs ``route``."""
    known[id(obj)] = (obj, route)


def route_for(func: Callable) -> Route | None:
    """The route of a callable handlers received, from any surface; None for a callable of
    no surface (a user's function)."""
    hit = known.get(id(func))
    if hit is not None and hit[0] is func:
        return hit[1]
    owner = getattr(func, "__self__", None)
    if getattr(func, "__name__", None) == "__get__":  # a property's bound __get__ (only: the
        hit = known.get(id(owner))                    # owner of np.add.reduce is np.add, whose
        if hit is not None and hit[0] is owner:       # route is its __call__'s)
            return hit[1]
    for resolver in RESOLVERS:
        route = resolver(func)
        if route is not None:
            break
    else:
        return None
    if owner is None or isinstance(owner, (ModuleType, type)):  # not np.add.reduce: a new
        known[id(func)] = (func, route)  # object per access
    return route
