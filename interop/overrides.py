"""Public helpers of the ``__torch_function__`` protocol, named as in ``torch.overrides``."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from .core.dispatch import DispatchedProperty
from .core.torch_function import (
    BaseTorchFunctionMode,
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    NoImplementationFound,
    TorchFunctionMode,
    all_disabled,
    current_mode,
    disabled_torch_function_impl,
    enabled,
    handle_torch_function,
    has_torch_function,
    is_tensor_like,
    mode_enabled,
    mode_stack,
    overriding_args,
    resolve_name,
    wrap_torch_function,
)
from .ops import TABLE
from .ops.operators import UNARY_OPERATORS, binary_dunders, inplace_dunders

# torch.overrides' names, for code written against it
_disabled_torch_function_impl = disabled_torch_function_impl
_get_current_function_mode = current_mode
_get_current_function_mode_stack = mode_stack
_get_overloaded_args = overriding_args
_is_torch_function_all_disabled = all_disabled
_is_torch_function_enabled = enabled
_is_torch_function_mode_enabled = mode_enabled


def get_overridable_functions() -> dict[Any, list[Callable]]:
    """Every interop callable that dispatches, keyed by namespace (interop, interop.Tensor)."""
    interop = sys.modules[__package__]  # the package root, which imports this module
    functions: list = []
    methods: list = []
    for entry in TABLE.values():
        if entry.function:
            functions.extend(getattr(interop, n) for n in (entry.name, *entry.aliases))
        if entry.method:
            attr = interop.Tensor.__dict__[entry.method]
            methods.append(attr.__get__ if isinstance(attr, DispatchedProperty) else attr)
        if entry.inplace:
            methods.append(getattr(interop.Tensor, entry.inplace))
    dunders = [*(d.name for d in binary_dunders()), *(n for n, _ in inplace_dunders()),
               *UNARY_OPERATORS]
    methods.extend(getattr(interop.Tensor, d) for d in dunders)
    return {interop: functions, interop.Tensor: methods}


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
