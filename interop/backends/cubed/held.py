"""The Cubed arrays interop holds: ``Held``, Cubed's own array class extended on interop's
side, and ``held``/``source``, which make them from what Cubed returns."""

from __future__ import annotations

from typing import Any

from cubed import Array


class Held(Array):
    """A Cubed array as interop holds it: Cubed's own array class, with the NumPy methods,
    NumPy's indexing and ``T`` that interop's operations call on raw arrays added here
    (``backend._add_numpy_methods``), on interop's side: Cubed's class is left as Cubed made
    it, so Cubed code that never touches interop keeps Cubed's own behaviour.  Arrays Cubed
    returns to interop become ``Held`` through ``held`` (a fresh object: ``source``)."""

    __slots__ = ()


def source(a: Array) -> Held:
    """A new object for ``a``'s plan.  Cubed's tasks read their inputs' names from the array
    objects when they run, and interop replaces the plan of an array a tensor holds when a
    write through a view reaches it: every Cubed function interop calls gets such fresh
    objects (``DETACHED``), so no plan ever depends on an array that may change.  Built by
    Cubed's constructor from the array's state (``name``, ``_zarray``, ``spec``, ``_plan``:
    private to Cubed, hence Cubed's bound in pyproject.toml and tests/test_upstream_insides.py)."""
    return Held(a.name, a._zarray, a.spec, a._plan)


def held(x: Any) -> Any:
    """``x`` (a Cubed array, or a tuple or list of them, as Cubed's functions return) with each
    plain Cubed array as a ``Held`` alias of the same plan; anything else as it is."""
    if type(x) is Array:
        return source(x)
    if type(x) in (tuple, list):
        return type(x)(held(v) for v in x)
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(held(v) for v in x))
    return x
