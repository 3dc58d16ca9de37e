"""The one wrapper generator: an ``interop.array_api`` function from the backends' own.

Every function of the namespace is made here from its name: it goes through
the dispatch core (so a subclass's ``__torch_function__`` and modes see it,
with ``func`` the ``interop.array_api`` function), unwraps tensors without
copying, picks the backend (the tensors', or the one serving ``device=``, else the
default: raw arrays passed without tensors are data, as in ``interop.tensor``),
calls the same-named function of that backend's array-api-compat namespace
(standard semantics, not torch's) and wraps the results once as tensors.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..backends import registry
from ..backends.contract import Backend
from ..core import dispatch
from ..core.dispatch import foreign_wrappers
from ..core.tensor import Tensor, to_raw
from . import _device, _extras, _signatures, _standard

MODULE = "interop.array_api"


def _function_of(be: Backend, module: str, name: str, public_name: str) -> Callable:
    ns = be.xp
    if module:
        ns = getattr(ns, module)
    fn = getattr(ns, name, None)
    if fn is None:
        raise TypeError(f"{public_name} is not implemented by the {be.name} backend (its "
                        f"namespace {ns.__name__} lacks {name}): move the data explicitly, e.g. "
                        "x.to(backend='numpy'), or use another function")
    return fn


def _holds_tensor(args: Sequence, kwargs: dict | None) -> bool:
    """Whether a Tensor is among the arguments (raw arrays alone are data, like lists)."""
    for a in (*args, *kwargs.values()) if kwargs else args:
        if isinstance(a, Tensor) or (isinstance(a, (list, tuple)) and _holds_tensor(a, None)):
            return True
    return False


def _moved(rargs: list, source: Backend | None, target: Backend) -> list:
    """Array operands moved to ``target``: what a ``device=`` asked for, or raw host arrays
    following the default backend as ``interop.tensor`` makes them do."""
    if source is None or source is target:
        return rargs
    return [_moved_one(a, source, target) for a in rargs]


def _moved_one(a: Any, source: Backend, target: Backend) -> Any:
    if type(a) in (list, tuple):  # xp.stack([ndarray, ndarray]) on a GPU default backend
        return type(a)(_moved_one(x, source, target) for x in a)
    return to_raw(a, backend=target) if source.owns(a) else a


def _function_for(be: Backend, module: str, name: str, public_name: str) -> Callable:
    """The standard's function for ``be``: its own rule, the standard's, else its namespace's."""
    qualname = f"{module}.{name}" if module else name
    fn = be.standard_fixes.get(qualname) or _standard.RULES.get(qualname) or \
        _function_of(be, module, name, public_name)
    check = _standard.CHECKED.get(qualname)
    return fn if check is None else check(fn)


def _extra_for(be: Backend, module: str, name: str, public_name: str) -> Callable:
    """NumPy's function ``name`` for ``be`` (one of the extras beside the standard)."""
    fn = _extras.function_for(be, f"{module}.{name}" if module else name)
    if fn is None:
        raise TypeError(f"{public_name} (NumPy's {name}, beside the standard) is not "
                        f"implemented by the {be.name} backend: move the data explicitly, e.g. "
                        "x.to(backend='numpy'), or use the standard's functions")
    return fn


def generate(name: str, module: str = "", extra: bool = False) -> Callable[..., Any]:
    """The public ``interop.array_api[.module].name`` (``extra``: NumPy's function of that
    name, beside the standard)."""
    qualname = f"{module}.{name}" if module else name
    public_name = f"{MODULE}.{qualname}"
    lookup = _extra_for if extra else _function_for
    resolved: dict[Backend, Callable] = {}  # the backend function, looked up once per backend
    takes_device = not extra and "device=" in _signatures.PARAMETERS.get(qualname, "")

    def run(cls: type, args: tuple, kwargs: dict) -> Any:
        wrapper = foreign_wrappers.foreign_wrapper(args, kwargs)
        if wrapper is not None:  # pint over tensors: NumPy's function sends it to the wrapper
            return foreign_wrappers.numpy_function(qualname, public_name, wrapper)(*args, **kwargs)
        if qualname in _standard.DTYPES_ONLY:  # dtypes, not data: no devices to reconcile
            args = tuple(a.dtype if isinstance(a, Tensor) else a for a in args)
        be, rargs, rkwargs = dispatch.unwrap_call(args, kwargs)
        device = rkwargs.get("device") if rkwargs else None
        tensors = be if be is not None and (_holds_tensor(args, kwargs) or not all(
            registry.on_host(a) for a in rargs if be.owns(a))) else None  # no silent transfer
        if device is not None or tensors is None:
            target = _device.backend_for(device, tensors)
            if device is not None:
                rkwargs["device"] = _device.native(target, device)
            elif takes_device and tensors is None:  # from nothing: the bound namespace's device
                home = _device.home_device(target)
                if home is not None:
                    rkwargs["device"] = home
            rargs = _moved(rargs, be, target)
            be = target
        fn = resolved.get(be)
        if fn is None:
            fn = resolved[be] = lookup(be, module, name, public_name)
        try:
            ret = fn(*rargs, **rkwargs)
        except (ValueError, TypeError, NotImplementedError) as exc:
            explained = be.explain_error(public_name, rargs, exc)  # Dask: unknown sizes
            if explained is None:
                raise
            raise explained from exc
        return dispatch.wrap(ret, cls, args)

    doc = (f"NumPy's ``{name}`` (beside the standard), computed by the backend's NumPy-shaped "
           "module; takes and returns interop tensors." if extra else
           f"``{qualname}`` of the Array API standard (2025.12), computed by the backend's "
           "array-api-compat namespace; takes and returns interop tensors.")
    public = dispatch.make_public(dispatch.Route(run), name, qualname, doc, module=MODULE)
    public.__module__ = f"{MODULE}.{module}" if module else MODULE
    return public


def generate_all(names: tuple[str, ...], module: str = "") -> dict[str, Callable[..., Any]]:
    """``{name: generate(name, module)}`` for a namespace's functions."""
    return {n: generate(n, module) for n in names}
