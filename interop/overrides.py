"""Public helpers of the ``__torch_function__`` protocol, named as in ``torch.overrides``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .protocols.torch_function import (BaseTorchFunctionMode, DisableTorchFunction,
                                       DisableTorchFunctionSubclass, NoImplementationFound,
                                       TorchFunctionMode, _disabled_torch_function_impl,
                                       _get_current_function_mode,
                                       _get_current_function_mode_stack, _get_overloaded_args,
                                       _is_torch_function_all_disabled,
                                       _is_torch_function_enabled,
                                       _is_torch_function_mode_enabled, handle_torch_function,
                                       has_torch_function, is_tensor_like, wrap_torch_function)


def get_overridable_functions() -> dict[Any, list[Callable]]:
    """Every interop callable that dispatches, keyed by namespace (interop, interop.Tensor)."""
    import interop
    from .ops import TABLE
    functions, methods = [], []
    for entry in TABLE.values():
        if entry.function:
            functions.extend(getattr(interop, n) for n in (entry.name, *entry.aliases))
        if entry.method:
            attr = interop.Tensor.__dict__[entry.method]
            methods.append(attr.__get__ if hasattr(attr, "_interop_run") and
                           not callable(attr) else attr)
        if entry.inplace:
            methods.append(getattr(interop.Tensor, entry.inplace))
    from .ops.operators import BINARY, INPLACE, UNARY
    methods.extend(getattr(interop.Tensor, d) for d in (*BINARY, *INPLACE, *UNARY))
    return {interop: functions, interop.Tensor: methods}


def resolve_name(func: Callable) -> str | None:
    """'interop.add', 'interop.Tensor.add', 'interop.Tensor.shape.__get__'; None if unknown."""
    if not hasattr(func, "_interop_run") and not hasattr(getattr(func, "__self__", None),
                                                          "_interop_run"):
        return None
    owner = getattr(func, "__self__", None)
    if owner is not None and hasattr(owner, "_interop_run"):
        return f"interop.Tensor.{owner.__name__}.__get__"
    return f"{func.__module__}.{func.__qualname__}"


def is_tensor_method_or_property(func: Callable) -> bool:
    name = resolve_name(func)
    return bool(name and name.startswith("interop.Tensor."))


__all__ = ["BaseTorchFunctionMode", "DisableTorchFunction", "DisableTorchFunctionSubclass",
           "NoImplementationFound", "TorchFunctionMode", "_disabled_torch_function_impl",
           "_get_current_function_mode", "_get_current_function_mode_stack",
           "_get_overloaded_args", "_is_torch_function_all_disabled",
           "_is_torch_function_enabled", "_is_torch_function_mode_enabled",
           "get_overridable_functions", "handle_torch_function", "has_torch_function",
           "is_tensor_like", "is_tensor_method_or_property", "resolve_name",
           "wrap_torch_function"]
