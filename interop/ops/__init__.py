"""The operation table and the generation of every public callable from it.

Importing the family modules fills ``registry.TABLE``; ``install`` then makes,
from each entry: the interop function (and its aliases), the Tensor method or
property, the in-place method, the Python operators, and the map from torch
names to implementations that ``__torch_function__`` uses.
"""

from __future__ import annotations

from typing import Any

from ..core.dispatch import (
    DispatchedProperty,
    Route,
    make_getitem,
    make_inplace_route,
    make_operator,
    make_public,
    make_route,
    route_for,
)
from ..core.repr import display_name
from . import attributes, dask_api, dtype_functions, interchange, operators, torch_checks  # noqa: F401

# isort: split
from . import creation, elementwise, fft, indexing, linalg, nn, reductions, shape  # noqa: F401  (domains)
from .registry import TABLE, Op, op
from .signatures import lazy_public_signature

TORCH_NAMES: dict[str, Route] = {}
"""torch name ('torch.add', 'torch.Tensor.__rsub__', ...) -> the route that runs it."""


_METHOD_NAMES = frozenset(e.method for e in TABLE.values() if e.method)
"""Tensor methods the table declares (``equal`` is torch.equal's, not the alias of ``eq``)."""


def _swapped(route: Route) -> Route:
    """The reflected operator's route: ``x - t`` runs ``sub(t, x)`` with the operands swapped."""
    run = route.run
    return Route(lambda cls, args, kwargs: run(cls, (args[1], args[0]), kwargs))


def _named(route: Route) -> Route:
    """repr/format name the tensor's own class (``Meters([1.])``), as torch's do."""
    run = route.run
    return Route(lambda cls, args, kwargs: run(cls, args, {**kwargs,
                                                           "name": display_name(type(args[0]))}))


def _install_entry(entry: Op, tensor_cls: type, namespace: dict[str, Any]) -> None:
    route = make_route(entry, operators.SHORTCUTS.get(entry.name))  # interop.add(t, t) as t + t
    if entry.name in ("__repr__", "__format__"):
        route = _named(route)
    also = tuple(entry.keywords)
    function_sig = lazy_public_signature(entry.impl, out=entry.out, also=also)
    method_sig = lazy_public_signature(entry.impl, method=True, out=entry.out, also=also)
    for name in (entry.name, *entry.aliases) if entry.function else ():
        namespace[name] = make_public(route, name, name, entry.doc, function_sig)
    if entry.method:
        if entry.property:
            setattr(tensor_cls, entry.method, DispatchedProperty(route, entry.method, entry.doc))
        else:
            aliases = [a for a in entry.aliases if a not in _METHOD_NAMES]
            for name in (entry.method, *aliases):  # an alias never hides an entry's own method
                if name not in tensor_cls.__dict__:
                    setattr(tensor_cls, name,
                            make_public(route, name, f"Tensor.{name}", entry.doc, method_sig))
    inplace_route = None
    if entry.inplace:
        inplace_route = make_inplace_route(entry)
        setattr(tensor_cls, entry.inplace,
                make_public(inplace_route, entry.inplace, f"Tensor.{entry.inplace}", entry.doc,
                            lazy_public_signature(entry.impl, method=True, also=also)))
    for torch_name in entry.torch:
        is_inplace = entry.inplace and torch_name.rsplit(".", 1)[-1] == entry.inplace  # torch.zero_ too
        TORCH_NAMES[torch_name] = inplace_route if is_inplace else route


def _install_operators(tensor_cls: Any) -> None:
    for dunder in operators.binary_dunders():
        route = make_route(TABLE[dunder.entry])
        route = _swapped(route) if dunder.swap else route
        func = getattr(tensor_cls, dunder.passed) if dunder.passed else None
        setattr(tensor_cls, dunder.name, make_operator(route, func, dunder.name, dunder.fast,
                                                       dunder.kinds, dunder.swap, dunder.numpy))
        TORCH_NAMES.update(dict.fromkeys(dunder.torch, route))
    for name, entry in operators.inplace_dunders():
        method = getattr(tensor_cls, TABLE[entry].inplace)
        route = route_for(method)
        setattr(tensor_cls, name, make_operator(route, method, name))
        TORCH_NAMES[f"torch.Tensor.{name}"] = route
    for name, (entry, passed) in operators.UNARY_OPERATORS.items():
        route = make_route(TABLE[entry])
        func = getattr(tensor_cls, passed) if passed else None
        setattr(tensor_cls, name, make_operator(route, func, name))
        TORCH_NAMES[f"torch.Tensor.{name}"] = route


def install(tensor_cls: Any, namespace: dict[str, Any]) -> None:
    """Generate functions into ``namespace`` and methods/operators onto ``tensor_cls``."""
    for entry in TABLE.values():
        _install_entry(entry, tensor_cls, namespace)
    _install_operators(tensor_cls)
    tensor_cls.__getitem__ = make_getitem(route_for(tensor_cls.__dict__["__getitem__"]))


__all__ = ["TABLE", "TORCH_NAMES", "Op", "install", "op"]
