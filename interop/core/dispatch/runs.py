"""Routes for the operation table's entries: the out-of-place form (with ``out=``), the
in-place form, and the entries that write into, rebind or move their first argument.

An entry (``interop.ops.registry.Op``) is read for: ``impl`` (the normalised
implementation) with ``bare`` and ``fits``, ``name``, ``creation``, ``out``, ``extra``
(``wrap``, ``writes``, ``rebinds``, ``targets``), ``native_names`` and
``inplace_native_names``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...backends import registry
from ..tensor import Tensor, convert
from .routes import Route
from .running import call_impl, run_op
from .unwrap import unwrap_call
from .wrapping import wrap
from .writes import unwrap_for_write, write_into


def make_route(entry: Any, shortcut: tuple[Callable, str] | None = None) -> Route:
    """The route of an entry's out-of-place form (function, method, torch name)."""
    impl, name, names = entry.impl, entry.name, entry.native_names
    kind = next((k for k in ("writes", "rebinds", "targets") if entry.extra.get(k)), None)
    if not entry.extra.get("wrap", True):
        def run_unwrapped(cls: type, args: tuple, kwargs: dict) -> Any:
            be, rargs, rkwargs = unwrap_call(args, kwargs)  # the value itself, not a tensor
            return call_impl(impl, be or registry.default_backend(), rargs, rkwargs, names)
        return Route(run_unwrapped, native_names=names)
    if kind is not None:
        return Route(_SPECIAL[kind](impl, name, names), native_names=names)
    direct = {} if entry.creation else {"impl": impl, "bare": entry.bare, "fits": entry.fits}
    run = _run_with_out(impl, entry.creation, name, names) if entry.out \
        else _run_plain(impl, entry.creation, names)
    return Route(run, native_names=names, shortcut=shortcut, **direct)


def _run_plain(impl: Callable, creation: bool, names: tuple[str, ...]) -> Callable:
    def run_plain(cls: type, args: tuple, kwargs: dict) -> Any:
        return run_op(impl, creation, cls, args, kwargs, names)
    return run_plain


def _run_with_out(impl: Callable, creation: bool, name: str, names: tuple[str, ...]) -> Callable:
    def run(cls: type, args: tuple, kwargs: dict) -> Any:
        out = kwargs.pop("out", None) if kwargs else None
        if out is None:
            return run_op(impl, creation, cls, args, kwargs, names)
        if not isinstance(out, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be a Tensor, not "
                            f"{type(out).__name__}; pass an interop tensor (interop.as_tensor("
                            "array) shares a NumPy array's memory)")
        be, rargs, rkwargs = unwrap_call((*args, out), kwargs)
        if be is not None and be.native_ops and rargs[-1] is out._raw:
            native = be.native(names)
            if native is not None:  # the library writes its own out= (torch resizes it)
                native(*rargs[:-1], out=rargs[-1], **rkwargs)
                return out
        write_into(out, call_impl(impl, be, rargs[:-1], rkwargs, names), name)
        return out
    return run


def _run_write(impl: Callable, name: str, names: tuple[str, ...]) -> Callable:
    """``t[i] = v``: the first argument is written in place and keeps its backend."""
    def run_write(cls: type, args: tuple, kwargs: dict) -> Any:
        be, rargs, rkwargs = unwrap_for_write(args[0], args, kwargs, name)
        dest = rargs[0]
        rargs[0] = be.write_target(dest, name)
        out = call_impl(impl, be, rargs, rkwargs, names)
        if rargs[0] is not dest:
            args[0]._raw = rargs[0]  # an immutable library's new array
        return out
    return run_write


def _run_rebind(impl: Callable, name: str, names: tuple[str, ...]) -> Callable:
    """``t.resize_(n)``: the result replaces the first argument's array."""
    def run_rebind(cls: type, args: tuple, kwargs: dict) -> Any:
        target = args[0]
        be, rargs, _ = unwrap_call(args[:1], {})  # the result stays on the target's backend
        rest = [a._raw if isinstance(a, Tensor) else a for a in args[1:]]
        rkwargs = {k: v._raw if isinstance(v, Tensor) else v for k, v in (kwargs or {}).items()}
        target._raw = call_impl(impl, be, [*rargs, *rest], rkwargs, names)
        return convert(target, cls)
    return run_rebind


def _run_to_target(impl: Callable, name: str, names: tuple[str, ...]) -> Callable:
    """``t.to(other)``: only the first argument is an operand; the rest say where to go."""
    def run_to_target(cls: type, args: tuple, kwargs: dict) -> Any:
        be, rargs, _ = unwrap_call(args[:1], {})
        rest = [a._raw if isinstance(a, Tensor) else a for a in args[1:]]
        return wrap(call_impl(impl, be, [*rargs, *rest], kwargs, names), cls, args)
    return run_to_target


_SPECIAL = {"writes": _run_write, "rebinds": _run_rebind, "targets": _run_to_target}


def make_inplace_route(entry: Any) -> Route:
    """``t.add_(x)`` / ``t += x``: compute fully, then write through, return ``t``.

    On a backend with the library's own in-place function (``Backend.native``), that runs
    on the target's own array when the target stays where it is."""
    impl, name, names = entry.impl, entry.inplace, entry.inplace_native_names
    out_of_place_names = entry.native_names

    def run(cls: type, args: tuple, kwargs: dict) -> Any:
        be, rargs, rkwargs = unwrap_call(args, kwargs)
        if be is not None and be.native_ops and rargs[0] is getattr(args[0], "_raw", None):
            native = be.native(names)
            if native is not None:
                native(*rargs, **rkwargs)
                return convert(args[0], cls)
        write_into(args[0], call_impl(impl, be, rargs, rkwargs, out_of_place_names), name)
        return convert(args[0], cls)
    return Route(run)
