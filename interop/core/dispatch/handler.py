"""The default ``__torch_function__``: what runs when no override takes a call.

Installed onto ``Tensor`` here, so every surface's call ends in the same place: the
callable's route, found whichever surface the callable belongs to.
"""

from __future__ import annotations

from typing import Any

from .. import torch_function as tf
from ..tensor import Tensor, convert, make
from .routes import known, route_for
from .running import call_impl, run_op
from .shortcuts import raw_shortcut
from .unwrap import exact_tensors
from .wrapping import finish, new_object


def default_torch_function(cls: type[Tensor], func: Any, types: tuple, args: tuple = (),
                           kwargs: dict | None = None) -> Any:
    """The default handler (torch's ``Tensor.__torch_function__``): run ``func``, results as ``cls``.

    Returns NotImplemented unless ``cls`` is a subclass of every type in
    ``types`` that is not torch's own ``torch.Tensor`` (or ``nn.Parameter``):
    those are data, taken in by DLPack like an ndarray, as torch's Python
    functions (einsum, layer_norm, ...) list them in ``types`` beside ours.
    ``func`` may come from any surface: an interop function or method, a
    torch callable, a NumPy function or ufunc.
    """
    hit = known.get(id(func))  # (route_for's first look, inline: torch's every call comes here)
    if hit is not None and hit[0] is func:
        route = hit[1]
        shortcut = route.shortcut
        if shortcut is not None and not kwargs and len(args) == 2:
            a, b = args  # torch.add(t, t): the operator's shortcut, first
            if type(a) is cls and type(b) is cls:
                raw = raw_shortcut(shortcut[0], shortcut[1], a._raw, b._raw)
                if raw is not None:
                    if cls is not Tensor:
                        return make(cls, raw, a)
                    obj = new_object(Tensor)
                    obj._raw = raw
                    return obj
    else:
        route = route_for(func)
    if kwargs is None:
        kwargs = {}
    if len(types) != 1 or types[0] is not cls:  # (cls,): torch's commonest call, nothing to check
        for t in types:
            if not issubclass(cls, t) and not tf.is_plain_value_type(t):
                return NotImplemented
    if route is None:
        with tf.DisableTorchFunctionSubclass():
            return convert(func(*args, **kwargs), cls)
    impl = route.impl
    if impl is not None and (not kwargs or "out" not in kwargs):
        exact = None if kwargs else exact_tensors(args, cls)
        if exact is not None:  # t.sum(), super() in a subclass: the public callable's fast path
            if route.fits is None or route.fits(exact[1]):
                return finish(call_impl(route.bare or impl, *exact, kwargs, route.native_names),
                              cls, args)
        return run_op(impl, False, cls, args, kwargs, route.native_names)  # run, one call sooner
    return route.run(cls, args, kwargs)


Tensor.__torch_function__ = classmethod(default_torch_function)  # type: ignore[method-assign,assignment]  # installed here: one hook
DEFAULT_HANDLER = default_torch_function
