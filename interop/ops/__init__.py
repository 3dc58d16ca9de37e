"""The operation table and the generation of every public callable from it.

Importing the family modules fills ``registry.TABLE``; ``install`` then makes,
from each entry: the interop function (and its aliases), the Tensor method or
property, the in-place method, the Python operators, and the map from torch
names to implementations that ``__torch_function__`` uses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..dispatch import (DispatchedProperty, make_getitem, make_inplace_run, make_operator,
                        make_public, make_run)
from ..repr import display_name
from . import attributes, dask_api, dtype_functions, interchange, operators, torch_checks  # noqa: F401
from . import creation, elementwise, fft, indexing, linalg, nn, reductions, shape  # noqa: F401  (domains)
from .registry import TABLE, Op, op
from .signatures import public_signature

TORCH_NAMES: dict[str, Callable] = {}
"""torch name ('torch.add', 'torch.Tensor.__rsub__', ...) -> run(cls, args, kwargs)."""


_METHOD_NAMES = frozenset(e.method for e in TABLE.values() if e.method)
"""Tensor methods the table declares (``equal`` is torch.equal's, not the alias of ``eq``)."""


def _swapped(run: Callable) -> Callable:
    return lambda cls, args, kwargs: run(cls, (args[1], args[0]), kwargs)


def _named(run: Callable) -> Callable:
    """repr/format name the tensor's own class (``Meters([1.])``), as torch's do."""
    return lambda cls, args, kwargs: run(cls, args, {**kwargs, "name": display_name(type(args[0]))})


def _native_names(entry: Op) -> None:
    """Mark the implementation with the torch names a backend may run its library's own
    function under, in its place (``dispatch.call_impl``, ``Backend.native``): those of the
    out-of-place forms, aliases included; none for creation functions (``backend=`` picks
    theirs) and records marked ``native=False``."""
    own = tuple(n for n in entry.torch if n.rsplit(".", 1)[-1] != entry.inplace) \
        if entry.native else ()
    for fn in {entry.impl, getattr(entry.impl, "bare", entry.impl)}:
        fn.native_names = own


def _install_entry(entry: Op, tensor_cls: type, namespace: dict[str, Any]) -> None:
    _native_names(entry)
    run = make_run(entry)
    if entry.name in operators.SHORTCUTS:  # interop.add(t, t), torch.add(t, t) as t + t
        run.shortcut = operators.SHORTCUTS[entry.name]
    if entry.name in ("__repr__", "__format__"):
        run = _named(run)
    function_sig = public_signature(entry.impl, out=entry.out)
    method_sig = public_signature(entry.impl, method=True, out=entry.out)
    for name in (entry.name, *entry.aliases) if entry.function else ():
        namespace[name] = make_public(run, name, name, entry.doc, function_sig)
    if entry.method:
        if entry.property:
            setattr(tensor_cls, entry.method, DispatchedProperty(run, entry.method, entry.doc))
        else:
            aliases = [a for a in entry.aliases if a not in _METHOD_NAMES]
            for name in (entry.method, *aliases):  # an alias never hides an entry's own method
                if name not in tensor_cls.__dict__:
                    setattr(tensor_cls, name,
                            make_public(run, name, f"Tensor.{name}", entry.doc, method_sig))
    inplace_run = None
    if entry.inplace:
        inplace_run = make_inplace_run(entry, entry.inplace)
        setattr(tensor_cls, entry.inplace,
                make_public(inplace_run, entry.inplace, f"Tensor.{entry.inplace}", entry.doc,
                            public_signature(entry.impl, method=True)))
    for torch_name in entry.torch:
        is_inplace = entry.inplace and torch_name.rsplit(".", 1)[-1] == entry.inplace  # torch.zero_ too
        TORCH_NAMES[torch_name] = inplace_run if is_inplace else run


def _install_operators(tensor_cls: type) -> None:
    for dunder in operators.binary_dunders():
        run = make_run(TABLE[dunder.entry])
        run = _swapped(run) if dunder.swap else run
        func = getattr(tensor_cls, dunder.passed) if dunder.passed else None
        setattr(tensor_cls, dunder.name, make_operator(run, func, dunder.name, dunder.fast,
                                                       dunder.kinds, dunder.swap, dunder.numpy))
        TORCH_NAMES.update(dict.fromkeys(dunder.torch, run))
    for name, entry in operators.inplace_dunders():
        method = getattr(tensor_cls, TABLE[entry].inplace)
        setattr(tensor_cls, name, make_operator(method._interop_run, method, name))
        TORCH_NAMES[f"torch.Tensor.{name}"] = method._interop_run
    for name, (entry, passed) in operators.UNARY_OPERATORS.items():
        run = make_run(TABLE[entry])
        func = getattr(tensor_cls, passed) if passed else None
        setattr(tensor_cls, name, make_operator(run, func, name))
        TORCH_NAMES[f"torch.Tensor.{name}"] = run


def install(tensor_cls: type, namespace: dict[str, Any]) -> None:
    """Generate functions into ``namespace`` and methods/operators onto ``tensor_cls``."""
    for entry in TABLE.values():
        _install_entry(entry, tensor_cls, namespace)
    _install_operators(tensor_cls)
    getitem = tensor_cls.__dict__["__getitem__"]
    tensor_cls.__getitem__ = make_getitem(getitem._interop_run)


__all__ = ["TABLE", "TORCH_NAMES", "Op", "install", "op"]
