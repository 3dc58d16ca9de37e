"""The ``__torch_function__`` protocol, hosted by interop (after torch/overrides.py).

Every interop function, method, operator, property and index goes through
``dispatch`` here, so one hook sees every call.  The rules, matching torch
2.13 on its Python path (shared/reference/PROTOCOLS.md, section A):

- Overriding arguments: each argument, list/tuple element and keyword value
  whose *type* defines ``__torch_function__`` (not the disabled marker); one
  per type; a subclass goes before its superclasses, otherwise left to right.
- Modes run first, innermost first, each popped while its handler runs.
- Handlers are called ``(func, types, args, kwargs)`` with ``types`` a tuple
  and ``kwargs`` a dict; the first result that is not NotImplemented wins; if
  all decline: ``TypeError("no implementation found for ...")``.
- ``DisableTorchFunctionSubclass`` turns argument overrides off (modes still
  run); ``DisableTorchFunction`` turns modes off as well.

State is context-local (threads and asyncio tasks do not see each other's
modes).  A process-wide counter of active modes and guards lets the fast
path skip the context lookup when nothing is active anywhere.
"""

from __future__ import annotations

import contextvars
import functools
import threading
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from ..dtypes import DType

_modes: contextvars.ContextVar[tuple] = contextvars.ContextVar("interop_modes", default=())
_subclass_disabled: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "interop_subclass_disabled", default=False)
_all_disabled: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "interop_all_disabled", default=False)

_active = [0]  # modes and guards entered anywhere; 0 means the fast path may skip the checks
_active_lock = threading.Lock()


def _bump(delta: int) -> None:
    with _active_lock:
        _active[0] += delta


class NoImplementationFound(TypeError):
    """Every handler (and mode) returned NotImplemented."""


def _disabled_torch_function_impl(func: Callable, types: tuple, args: tuple = (),
                                  kwargs: dict | None = None) -> Any:
    """Assign as ``__torch_function__`` to opt a class out of the protocol."""
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


def _is_torch_function_enabled() -> bool:
    return not (_subclass_disabled.get() or _all_disabled.get())


def _is_torch_function_all_disabled() -> bool:
    return _all_disabled.get()


def _is_torch_function_mode_enabled() -> bool:
    return bool(_modes.get()) and not _all_disabled.get()


def _is_default_torch_tensor(arg_type: type) -> bool:
    """A real ``torch.Tensor`` (or Parameter) is data to us, not an override."""
    impl = getattr(arg_type.__torch_function__, "__func__", arg_type.__torch_function__)
    return getattr(impl, "__module__", "") == "torch._tensor" or \
        type(impl).__name__ == "builtin_function_or_method" and impl.__module__ == "torch._C"


def is_plain_value_type(arg_type: type) -> bool:
    """torch's own tensor classes (``torch.Tensor``, ``nn.Parameter``): operands to take in,
    not overrides (a user's ``torch.Tensor`` subclass is not one of them); and interop's
    dtype, whose handler only serves torch's parser."""
    return arg_type is DType or \
        arg_type.__module__.startswith("torch") and _is_default_torch_tensor(arg_type)


def _overrides(arg_type: type) -> bool:
    impl = getattr(arg_type, "__torch_function__", None)
    return impl is not None and impl is not _disabled_torch_function_impl \
        and not is_plain_value_type(arg_type)


def _get_overloaded_args(relevant_args: Iterable[Any],
                         get_type_fn: Callable[[Any], type] = type) -> list[Any]:
    """The arguments whose ``__torch_function__`` to try, in order (A1)."""
    if not _is_torch_function_enabled():
        return []
    overloaded_types: set[type] = set()
    overloaded_args: list[Any] = []
    for arg in relevant_args:
        arg_type = get_type_fn(arg)
        if arg_type in overloaded_types or not _overrides(arg_type):
            continue
        overloaded_types.add(arg_type)
        index = len(overloaded_args)
        for i, old_arg in enumerate(overloaded_args):
            if issubclass(arg_type, get_type_fn(old_arg)):
                index = i
                break
        overloaded_args.insert(index, arg)
    return overloaded_args


def relevant_args(args: tuple, kwargs: dict | None) -> list[Any]:
    """Arguments inspected for overrides: positionals, keyword values, and list/tuple elements."""
    out: list[Any] = []
    for a in (*args, *kwargs.values()) if kwargs else args:
        if type(a) is list or type(a) is tuple:
            out.extend(a)
        out.append(a)
    return out


def _func_name(func: Callable) -> str:
    name = getattr(func, "__qualname__", None) or getattr(func, "__name__", repr(func))
    module = getattr(func, "__module__", None)
    return f"{module}.{name}" if module else name


def _call_handler(arg: Any, func: Callable, types: tuple, args: tuple, kwargs: dict) -> Any:
    method = arg.__torch_function__
    if getattr(method, "__self__", None) is arg:
        warnings.warn("Defining your `__torch_function__ as a plain method is deprecated and will "
                      "be an error in future, please define it as a classmethod.",
                      DeprecationWarning, stacklevel=4)
    return method(func, types, args, kwargs)


def handle_torch_function(public_api: Callable, relevant_args: Iterable[Any],
                          *args: Any, **kwargs: Any) -> Any:
    """Run the overrides for a call of ``public_api`` (torch.overrides.handle_torch_function)."""
    overloaded_args = _get_overloaded_args(relevant_args)
    return _dispatch_overloaded(public_api, overloaded_args, args, kwargs)


class OverrideRecursionError(RecursionError):
    """A handler or mode that calls the function it handles on the same arguments, forever."""


_depth = threading.local()  # nesting of _dispatch_overloaded on this thread
_RECURSING = 16  # a RecursionError that went through this many dispatches is the handlers' loop


def _dispatch_overloaded(public_api: Callable, overloaded_args: list[Any], args: tuple,
                         kwargs: dict) -> Any:
    """Run the handlers; a handler recursing into itself gets one clear error, not a deep one."""
    depth = getattr(_depth, "n", 0)
    _depth.n = depth + 1
    try:
        return _run_handlers(public_api, overloaded_args, args, kwargs)
    except RecursionError as exc:
        if isinstance(exc, OverrideRecursionError):
            raise
        exc.__dict__.setdefault("interop_loop", (public_api, overloaded_args))
        exc.interop_levels = exc.__dict__.get("interop_levels", 0) + 1
        if depth or exc.interop_levels < _RECURSING:
            raise
        func, looping = exc.interop_loop
        from ..overrides import resolve_name  # (imports this module)
        name = resolve_name(func) or _func_name(func)
        raise OverrideRecursionError(
            f"{name}: the __torch_function__ of {[type(a).__name__ for a in looping]} (or an "
            f"active mode) calls {name} on its own arguments again, and that call reaches the "
            "same handler: endless recursion. Run the default from the handler with "
            "super().__torch_function__(func, types, args, kwargs), or call func inside "
            "`with interop.overrides.DisableTorchFunctionSubclass():`") from None
    finally:
        _depth.n = depth


def _run_handlers(public_api: Callable, overloaded_args: list[Any], args: tuple,
                  kwargs: dict) -> Any:
    types = tuple(map(type, overloaded_args))
    if _is_torch_function_mode_enabled():
        with _pop_mode_temporarily() as mode:
            result = mode.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    for arg in overloaded_args:
        result = _call_handler(arg, public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    msg = (f"no implementation found for '{_func_name(public_api)}' on types that implement "
           f"__torch_function__: {[type(arg) for arg in overloaded_args]}")
    if _is_torch_function_mode_enabled():
        msg += f" nor in mode {_modes.get()[-1]}"
    raise NoImplementationFound(msg)


def has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """True if a mode is active or any argument overrides (exact interop Tensors do not)."""
    if _is_torch_function_mode_enabled():
        return True
    if not _is_torch_function_enabled():
        return False
    from ..tensor import Tensor
    return any(type(a) is not Tensor and _overrides(type(a)) for a in relevant_args)


def is_tensor_like(inp: Any) -> bool:
    """An interop Tensor, or anything with a ``__torch_function__`` (the class object too)."""
    from ..tensor import Tensor
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


def wrap_torch_function(dispatcher: Callable) -> Callable[[Callable], Callable]:
    """Decorate a function so its arguments (as ``dispatcher`` picks them) can override it."""
    def inner(func: Callable) -> Callable:
        @functools.wraps(func)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)
        return wrapped
    return inner


# ---------------------------------------------------------------- guards and modes
class _Guard:
    _var: contextvars.ContextVar

    def __enter__(self) -> _Guard:
        self._token = self._var.set(True)
        _bump(1)
        return self

    def __exit__(self, *exc: object) -> None:
        self._var.reset(self._token)
        _bump(-1)


class DisableTorchFunctionSubclass(_Guard):
    """Inside: argument overrides are ignored (modes still run)."""
    _var = _subclass_disabled


class DisableTorchFunction(_Guard):
    """Inside: argument overrides and modes are all ignored."""
    _var = _all_disabled


class TorchFunctionMode:
    """Intercept every interop call made inside ``with mode:`` (innermost first).

    Define ``__torch_function__(self, func, types, args=(), kwargs=None)`` as a
    plain method; the mode is popped while it runs, so calling ``func`` inside
    goes on to the next mode and then to the arguments' overrides.
    """

    def __torch_function__(self, func: Callable, types: tuple, args: tuple = (),
                           kwargs: dict | None = None) -> Any:
        raise NotImplementedError

    def __enter__(self) -> TorchFunctionMode:
        if isinstance(type(self).__dict__.get("__torch_function__"), classmethod):
            raise RuntimeError("Defining your mode's `__torch_function__` as a classmethod is not "
                               "supported, please make it a plain method")
        self._tokens = getattr(self, "_tokens", [])
        self._tokens.append(_modes.set((*_modes.get(), self)))
        _bump(1)
        return self

    def __exit__(self, *exc: object) -> None:
        _modes.reset(self._tokens.pop())
        _bump(-1)

    @classmethod
    def push(cls, *args: Any, **kwargs: Any) -> TorchFunctionMode:
        warnings.warn("`Mode.push()` is no longer necessary and can be replaced with just "
                      "`with Mode()`", stacklevel=2)
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    """A mode that runs every call unchanged: subclass it and override what you need."""

    def __torch_function__(self, func: Callable, types: tuple, args: tuple = (),
                           kwargs: dict | None = None) -> Any:
        return func(*args, **(kwargs or {}))


class _pop_mode_temporarily:
    def __enter__(self) -> TorchFunctionMode:
        stack = _modes.get()
        self._token = _modes.set(stack[:-1])
        return stack[-1]

    def __exit__(self, *exc: object) -> None:
        _modes.reset(self._token)


def _get_current_function_mode() -> TorchFunctionMode | None:
    stack = _modes.get()
    return stack[-1] if stack else None


def _get_current_function_mode_stack() -> list[TorchFunctionMode]:
    return list(_modes.get())
