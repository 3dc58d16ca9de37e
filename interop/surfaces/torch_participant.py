"""Tensor as a participant in *torch's* protocol: torch callables -> the operation table.

When user code calls ``torch.add(t, 1)`` or ``F.relu(t)`` on an interop
tensor, torch hands the call to ``Tensor.__torch_function__`` with ``func``
set to the torch callable.  This resolver turns that callable into the
table's implementation by its torch name; torch is already imported then,
so nothing here imports it first.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
import types
from collections.abc import Callable
from typing import Any

from ..backends import registry
from ..core.dispatch import Route, unwrap_call, wrap
from ..dtypes import check_torch_reads_no_type
from ..errors import DaskComputeError
from ..ops import TORCH_NAMES
from ..ops.nn.rnn import HOST_SIZES
from ..upstream import UpstreamChangedError, private
from .after_import import when_imported

_cache: dict[int, tuple[Callable, Route]] = {}



def lookup(name: str) -> Route | None:
    """The table's route for a torch name: as given (the records list every name, aliases
    too), torch.functional.<f> as torch.<f>, or a Tensor method as its torch function."""
    route = TORCH_NAMES.get(name)
    if route is None and name.startswith("torch.functional."):
        route = TORCH_NAMES.get("torch." + name.removeprefix("torch.functional."))
    if route is None and name.startswith("torch.Tensor."):
        route = TORCH_NAMES.get("torch." + name.removeprefix("torch.Tensor."))
    if route is None and name.endswith("_copy") and name != "torch.Tensor.copy_":
        stem = name.removesuffix("_copy")  # torch.view_copy: the view (a method), copied
        base = lookup(stem) or lookup(stem.replace("torch.", "torch.Tensor.", 1))
        route = Route(_copied(base.run)) if base is not None else None
    return route


def _copied(run: Callable) -> Callable:
    """The ``*_copy`` variant of a view operation: its result(s) cloned."""
    clone = TORCH_NAMES["torch.clone"].run

    def run_copy(cls: type, args: tuple, kwargs: dict) -> object:
        out = run(cls, args, kwargs)
        if isinstance(out, (tuple, list)):
            return type(out)(clone(cls, (o,), {}) for o in out)
        return clone(cls, (out,), {})
    return run_copy


def torch_name(func: Callable) -> str | None:
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    return torch.overrides.resolve_name(func)


def _drop_none_out(route: Route) -> Route:
    """torch's Python functions (tensordot, norm, ...) forward ``out=None``: it means no out.
    The direct implementation and the shortcut stay: the default handler calls them sooner."""
    run = route.run

    def run_torch(cls: type, args: tuple, kwargs: dict) -> object:
        if kwargs and "out" in kwargs and kwargs["out"] is None:
            kwargs = {k: v for k, v in kwargs.items() if k != "out"}
        return run(cls, args, kwargs)
    return dataclasses.replace(route, run=run_torch)


def _sizes_on_host(route: Route, position: int) -> Route:
    """Sizes torch keeps on the host (a CPU integer torch tensor at ``position``: a packed
    sequence's ``batch_sizes``, embedding_bag's ``offsets``) read as ints, before the operands
    are brought onto a Dask input's backend."""
    torch = sys.modules["torch"]
    run = route.run

    def run_sizes(cls: type, args: tuple, kwargs: dict) -> object:
        sizes = args[position] if len(args) > position else None
        if isinstance(sizes, torch.Tensor) and sizes.dtype in (torch.int64, torch.int32) \
                and sizes.device.type == "cpu" and not _runs_torch(args[0]):
            args = (*args[:position], tuple(sizes.tolist()), *args[position + 1:])
        return run(cls, args, kwargs)
    return Route(run_sizes)


def _module_left_as_it_was(route: Route) -> Route:
    """F.batch_norm as torch's ``_BatchNorm.forward`` calls it: that forward counts the batch
    (``num_batches_tracked += 1``) before the call, so a call the compute policy refuses
    (a lazy batch's statistics written into eager running buffers, under
    ``dask_compute="raise"``) takes the count back: a refused call leaves the module as it
    was.  The module is the forward's ``self`` whose ``running_mean`` is the one passed."""
    run = route.run

    def run_counted(cls: type, args: tuple, kwargs: dict) -> object:
        try:
            return run(cls, args, kwargs)
        except DaskComputeError as refused:
            running = args[1] if len(args) > 1 else kwargs.get("running_mean")
            try:
                module = _calling_batch_norm(running)
            except UpstreamChangedError as moved:  # said on the error the user meets
                refused.add_note(f"{moved} (the module's num_batches_tracked keeps the count "
                                 "torch made for this refused call)")
                module = None
            if module is not None and module.num_batches_tracked is not None:
                module.num_batches_tracked.sub_(1)
            raise
    return Route(run_counted)


def _calling_batch_norm(running_mean: object) -> Any:
    """The ``_BatchNorm`` module whose forward, up the stack, passed ``running_mean`` (an
    ``UpstreamChangedError`` where torch has no ``_BatchNorm.forward`` to recognise)."""
    forward = private("torch.nn.modules.batchnorm", "_BatchNorm.forward.__code__")
    frame = sys._getframe(1)
    while frame is not None:
        module = frame.f_locals.get("self") if frame.f_code is forward else None
        if module is not None and running_mean is not None \
                and module.running_mean is running_mean:
            return module
        frame = frame.f_back
    return None


_COUNTED = {"torch.nn.functional.batch_norm": _module_left_as_it_was}
"""Routes wrapped so a refused call undoes what torch's module did before calling it."""


def _runs_torch(x: object) -> bool:
    """True for a tensor on a backend that runs torch's own functions: sizes stay torch's."""
    be = registry.backend_of(getattr(x, "_raw", None))
    return be is not None and be.native_ops


_DISPATCH_CHECKS = ("has_torch_function", "has_torch_function_unary",
                    "has_torch_function_variadic")


def _none_or_dtype(input: Any) -> object:
    """torch.nn.functional's helper, without its ``isinstance(input, torch.Tensor)`` check
    (it raises for any other tensor): the dtype of a tensor of any kind, or None."""
    return None if input is None else input.dtype


_BODY_HELPERS = {"_none_or_dtype": _none_or_dtype}
"""Module-level helpers of torch's Python functions that check for torch tensors by type,
replaced in the bodies run here (F.multi_head_attention_forward's mask handling)."""


def _torch_python_body(func: Callable) -> Route | None:
    """run for a torch function written in Python over other torch calls (a composite, such as
    F.multi_head_attention_forward): its own body, with its opening ``has_torch_function``
    check answered False, so the torch calls inside it dispatch to interop one by one."""
    code = getattr(func, "__code__", None)
    if code is None or not any(n in code.co_names for n in _DISPATCH_CHECKS):
        return None
    unknown = sorted(n for n in code.co_names
                     if n.lstrip("_").startswith("has_torch_function") and n not in _DISPATCH_CHECKS)
    if unknown:  # torch spells its check another way: answering ours would recurse
        message = (f"{func.__module__}.{func.__name__} is not implemented by interop: its body "
                   f"(torch {sys.modules['torch'].__version__}) checks {', '.join(unknown)}, "
                   "which interop does not answer (it answers " + ", ".join(_DISPATCH_CHECKS)
                   + "); call it on a torch tensor (t.as_torch()) and please report it with "
                   "the version")

        def refused(cls: type, args: tuple, kwargs: dict) -> object:
            raise TypeError(message)
        return Route(refused)
    never = {name: (lambda *args: False) for name in _DISPATCH_CHECKS}
    body = types.FunctionType(code, {**func.__globals__, **never, **_BODY_HELPERS},
                              func.__name__, func.__defaults__, func.__closure__)
    body.__kwdefaults__ = func.__kwdefaults__
    name = f"{func.__module__}.{func.__name__}"

    def run_body(cls: type, args: tuple, kwargs: dict) -> object:
        key = f"{name}@{threading.get_ident()}"
        depth = _BODY_DEPTH.get(key, 0)
        if depth >= _MAX_BODY_DEPTH:  # the body dispatched back to itself without end
            raise RecursionError(
                f"{name} reached interop {depth} times inside its own body: this torch "
                f"({sys.modules['torch'].__version__}) calls back through __torch_function__ "
                "where interop expected its has_torch_function checks; call it on a torch "
                "tensor (t.as_torch()) and please report it with the version")
        _BODY_DEPTH[key] = depth + 1
        try:
            return body(*args, **kwargs)
        finally:
            if depth:
                _BODY_DEPTH[key] = depth
            else:
                del _BODY_DEPTH[key]
    return Route(run_body)


_BODY_DEPTH: dict[str, int] = {}  # torch Python bodies running now, by name and thread
_MAX_BODY_DEPTH = 32  # a body nested deeper is calling itself back: a loud error, not a hang


def resolve_torch_callable(func: Callable) -> Route | None:
    """The route of a torch callable, or None if it is not torch's."""
    hit = _cache.get(id(func))
    if hit is not None and hit[0] is func:
        return hit[1]
    module = getattr(func, "__module__", None) or type(func).__module__ or ""
    owner = getattr(func, "__self__", None) or getattr(func, "__objclass__", None)
    if not (module.startswith("torch") or type(owner).__module__.startswith("torch")
            or getattr(owner, "__module__", "").startswith("torch")):
        return None
    # torch callables torch.overrides cannot name (torch._chunk_cat, ...) fall back to their
    # qualified name: never to calling them, which would come back here without end
    name = torch_name(func) or f"{module}.{getattr(func, '__name__', func)}"
    route = lookup(name)
    if route is not None:
        route = _drop_none_out(route)
        if name in HOST_SIZES:
            route = _sizes_on_host(route, HOST_SIZES[name])
        if name in _COUNTED:
            route = _COUNTED[name](route)
    if route is None:
        route = _torch_python_body(func)
    if route is None:
        def missing(cls, args, kwargs, _name=name):
            be, rargs, rkwargs = unwrap_call(args, kwargs)
            native = be.native((_name,)) if be is not None and be.native_ops else None
            if native is not None:  # a backend whose library is torch: torch's own function
                return wrap(native(*rargs, **rkwargs), cls, args, be)
            raise TypeError(f"{_name} is not implemented by interop for the "
                            f"{be.name if be else 'numpy'} backend; call it on a torch tensor "
                            "(torch.from_dlpack(t)), or use an interop function")
        route = Route(missing)
    _cache[id(func)] = (func, route)
    return route


COLLATE_MODULE = "torch.utils.data._utils.collate"


def _collate_tensors(batch: list, *, collate_fn_map: dict | None = None) -> object:
    """A DataLoader batch of interop tensors: stacked along a new first dimension (torch's
    default collation of tensors), on their backend (Dask: lazily)."""
    return TORCH_NAMES["torch.stack"].run(type(batch[0]), (batch, 0), {})


def register_collate(tensor_cls: Any) -> None:
    """torch's ``default_collate`` batches ``tensor_cls`` (and subclasses), once torch's
    collation module loads: ``import interop`` imports no torch."""
    def register(collate: Any) -> None:
        collate.default_collate_fn_map.setdefault(tensor_cls, _collate_tensors)
    when_imported(COLLATE_MODULE, register)


def check_dtypes_once_torch_loads() -> None:
    """Once torch is imported: interop's dtypes must be no type to ``torch.finfo``/``iinfo``
    (``dtypes.check_torch_reads_no_type`` warns where this torch reads them as one)."""
    when_imported("torch", check_torch_reads_no_type)
