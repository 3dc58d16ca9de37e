"""The ``__torch_function__`` protocol, hosted by interop (after torch/overrides.py).

Every interop function, method, operator, property and index goes through
``run_overrides`` here, so one hook sees every call.  The rules, matching torch
2.13 on its Python path (docs/protocols.md):

- Overriding arguments: each argument, list/tuple element and keyword value
  whose *type* defines ``__torch_function__`` (not the disabled marker); one
  per type; a subclass goes before its superclasses, otherwise left to right.
- Modes run first, innermost first, each popped while its handler runs.
- Handlers are called ``(func, types, args, kwargs)`` with ``types`` a tuple
  and ``kwargs`` a dict; the first result that is not NotImplemented wins; if
  all decline: ``TypeError("no implementation found for ...")``.
- ``DisableTorchFunctionSubclass`` turns argument overrides off (modes still
  run); ``DisableTorchFunction`` turns modes off as well.

State is context-local (``contextvars``): each thread and asyncio task has
its own mode stack and guards; a task starts from a copy of its creator's, a
new thread from none.  One mode object may be active in several threads and
tasks at once; its exit removes its entry from the exiting context's stack.
The fast path's gate, ``active()``, is that context's state itself: None
(falsy) while no mode or guard is active there, so other threads' modes never
slow a thread down, and an inherited mode always fires.
"""

from __future__ import annotations

import contextvars
import functools
import sys
import threading
import warnings
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from ..dtypes import TORCH_STAND_INS


class _State(NamedTuple):
    """The modes and guards active in one context (never all empty: then it is None)."""
    modes: tuple = ()  # innermost last
    subclass_disabled: int = 0  # DisableTorchFunctionSubclass blocks open
    all_disabled: int = 0  # DisableTorchFunction blocks open


_EMPTY = _State()
_state: contextvars.ContextVar[_State | None] = contextvars.ContextVar(
    "interop_torch_function", default=None)
active = _state.get
"""The fast path's gate: ``if not active():`` nothing can override in this thread or task."""


def _current() -> _State:
    return _state.get() or _EMPTY


def _set(modes: tuple, subclass_disabled: int, all_disabled: int) -> None:
    """Replace this context's state (no tokens: exits may come in any order, from any copy)."""
    _state.set(_State(modes, subclass_disabled, all_disabled)
               if modes or subclass_disabled or all_disabled else None)


class NoImplementationFound(TypeError):
    """Every handler (and mode) returned NotImplemented."""


def disabled_torch_function_impl(func: Callable, types: tuple, args: tuple = (),
                                  kwargs: dict | None = None) -> Any:
    """Assign as ``__torch_function__`` to opt a class out of the protocol."""
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


def enabled() -> bool:
    state = _state.get()
    return state is None or not (state.subclass_disabled or state.all_disabled)


def all_disabled() -> bool:
    state = _state.get()
    return state is not None and state.all_disabled > 0


def mode_enabled() -> bool:
    state = _state.get()
    return state is not None and bool(state.modes) and not state.all_disabled


def _is_default_torch_tensor(arg_type: Any) -> bool:
    """A real ``torch.Tensor`` (or Parameter) is data to us, not an override: its handler is
    ``torch.Tensor``'s own or torch's opt-out marker (known by identity, not by the modules
    torch defines them in)."""
    if not _TORCH_HANDLERS:
        torch = sys.modules.get("torch")
        if torch is None:
            return False
        _TORCH_HANDLERS.extend((torch.Tensor.__torch_function__.__func__, _torch_disabled_impl()))
    handler = arg_type.__torch_function__
    return getattr(handler, "__func__", handler) in _TORCH_HANDLERS


_TORCH_HANDLERS: list[Any] = []  # torch.Tensor's own handler and torch's opt-out, once loaded


def is_plain_value_type(arg_type: type) -> bool:
    """torch's own tensor classes (``torch.Tensor``, ``nn.Parameter``): operands to take in,
    not overrides (a user's ``torch.Tensor`` subclass is not one of them); and interop's
    dtype and device, whose handlers only serve torch's parser."""
    return arg_type in TORCH_STAND_INS or \
        arg_type.__module__.startswith("torch") and _is_default_torch_tensor(arg_type)


def overrides(arg_type: type) -> bool:
    impl = getattr(arg_type, "__torch_function__", None)
    return impl is not None and impl is not disabled_torch_function_impl \
        and impl is not _torch_disabled_impl() and not is_plain_value_type(arg_type)


def _torch_disabled_impl() -> Any:
    """torch's own opt-out marker (``torch._C._disabled_torch_function_impl``, which wrapper
    subclasses such as ``interop.TorchTensor`` assign), if torch is loaded."""
    torch = sys.modules.get("torch")
    return None if torch is None else getattr(torch._C, "_disabled_torch_function_impl", None)


def overriding_args(relevant_args: Iterable[Any],
                         get_type_fn: Callable[[Any], type] = type) -> list[Any]:
    """The arguments whose ``__torch_function__`` to try, in order: one per type, a
    subclass before its superclasses, otherwise left to right (``torch.overrides``'
    ``_get_overloaded_args``)."""
    if not enabled():
        return []
    if type(relevant_args) is list and len(relevant_args) == 1:  # one argument: no order
        return [relevant_args[0]] if overrides(get_type_fn(relevant_args[0])) else []
    overloaded_types: set[type] = set()
    overloaded_args: list[Any] = []
    for arg in relevant_args:
        arg_type = get_type_fn(arg)
        if arg_type in overloaded_types or not overrides(arg_type):
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
    owner = getattr(func, "__self__", None)
    if owner is not None and not isinstance(owner, type(sys)) and \
            getattr(func, "__module__", None) is None:  # a builtin's bound method: np.add.reduce
        return f"{_func_name(owner)}.{func.__name__}"
    name = str(getattr(func, "__qualname__", None) or getattr(func, "__name__", repr(func)))
    module = getattr(func, "__module__", None)
    return f"{module}.{name}" if module else name


def _call_handler(arg: Any, func: Callable, types: tuple, args: tuple, kwargs: dict) -> Any:
    method = arg.__torch_function__
    unchecked = unchecked_handler(getattr(method, "__func__", None))
    if unchecked is not None:  # a subclass's handler: its loop check is this dispatch's own
        return unchecked(method.__self__, func, types, args, kwargs)
    if getattr(method, "__self__", None) is arg:
        warnings.warn("Defining your `__torch_function__ as a plain method is deprecated and will "
                      "be an error in future, please define it as a classmethod.",
                      DeprecationWarning, stacklevel=4)
    return method(func, types, args, kwargs)


def handle_torch_function(public_api: Callable, relevant_args: Iterable[Any],
                          *args: Any, **kwargs: Any) -> Any:
    """Run the overrides for a call of ``public_api`` (torch.overrides.handle_torch_function)."""
    overloaded_args = overriding_args(relevant_args)
    return run_overrides(public_api, overloaded_args, args, kwargs)


class OverrideRecursionError(RecursionError):
    """A handler or mode that calls the function it handles on the same arguments, forever."""


_depth = threading.local()  # nesting of handler calls on this thread (dispatch is synchronous)
_RECURSING = 16  # a RecursionError that went through this many handler calls is their loop


def run_overrides(public_api: Callable, overloaded_args: list[Any], args: tuple,
                         kwargs: dict) -> Any:
    """Run the modes and handlers; a loop back into the same handler gets one clear error."""
    types = tuple(map(type, overloaded_args))
    depth = getattr(_depth, "n", 0)
    _depth.n = depth + 1
    try:
        return _run_handlers(public_api, overloaded_args, types, args, kwargs)
    except RecursionError as exc:
        loop = _loop_of(exc, depth, public_api, types)
        if loop is None:
            raise
    finally:
        _depth.n = depth
    raise _recursion_error(*loop)  # after the except block: not chained to the deep one


def _loop_of(exc: RecursionError, depth: int, func: Callable,
             types: tuple) -> tuple[Callable, tuple] | None:
    """``exc`` went through a handler call for ``func`` at nesting ``depth``: counted, it stays
    as it is (None), unless this is the outermost call and ``_RECURSING`` calls saw it: then
    a handler calls a function on its own arguments: (that function, the types), for the
    short error that replaces it.

    The caller raises that error after its ``except`` block, holding it in no variable: so it
    keeps neither the deep RecursionError as its context (a thousand frames) nor a cycle
    through a frame of its own traceback, and reference counting frees it (no garbage for
    the cycle collector, as torch keeps its error paths)."""
    if isinstance(exc, OverrideRecursionError):
        return None
    marks = exc.__dict__  # (the error carries the loop's first call and its depth so far)
    marks.setdefault("interop_loop", (func, types))
    marks["interop_levels"] = marks.get("interop_levels", 0) + 1
    if depth or marks["interop_levels"] < _RECURSING:
        return None
    return marks["interop_loop"]


_public: dict[int, tuple[Any, str]] = {}
"""id of each of interop's dispatching callables (a property: the property object) -> (it,
its name); held, so ids are never reused."""


def register_public(obj: Any, name: str) -> None:
    """Name one of interop's dispatching callables (``interop.add``, ``interop.Tensor.add``;
    for a property, the property object: ``interop.Tensor.shape``)."""
    _public[id(obj)] = (obj, name)


def resolve_name(func: Callable) -> str | None:
    """'interop.add', 'interop.Tensor.add', 'interop.Tensor.shape.__get__'; None if unknown."""
    hit = _public.get(id(func))
    if hit is not None and hit[0] is func:
        return hit[1]
    owner = getattr(func, "__self__", None)  # a property's bound __get__
    hit = _public.get(id(owner))
    if hit is not None and hit[0] is owner:
        return f"{hit[1]}.__get__"
    return None


def _recursion_error(func: Callable, types: tuple) -> OverrideRecursionError:
    name = resolve_name(func) or _torch_name(func) or _func_name(func)
    return OverrideRecursionError(
        f"{name}: the __torch_function__ of {[t.__name__ for t in types]} (or an "
        f"active mode) calls {name} on its own arguments again, and that call reaches the "
        "same handler: endless recursion. Run the default from the handler with "
        "super().__torch_function__(func, types, args, kwargs), or call func inside "
        "`with interop.overrides.DisableTorchFunctionSubclass():`")


def _torch_name(func: Callable) -> str | None:
    torch = sys.modules.get("torch")
    return torch.overrides.resolve_name(func) if torch is not None else None


def loop_checked(handler: Callable) -> Callable:
    """A subclass's ``__torch_function__`` (the function under its classmethod), checked for
    loops as ``run_overrides`` checks handlers: torch calls it directly for
    ``torch.add(t, 1)`` or ``F.relu(t)``, and a loop through those never meets interop's
    dispatch."""
    @functools.wraps(handler)
    def __torch_function__(cls: type, func: Callable, types: tuple, args: tuple = (),
                           kwargs: dict | None = None) -> Any:
        depth = getattr(_depth, "n", 0)
        _depth.n = depth + 1
        try:
            return handler(cls, func, types, args, kwargs)
        except RecursionError as exc:
            loop = _loop_of(exc, depth, func, (cls,))
            if loop is None:
                raise
        finally:
            _depth.n = depth
        raise _recursion_error(*loop)
    _loop_checked[id(__torch_function__)] = (__torch_function__, handler)
    return __torch_function__


_loop_checked: dict[int, tuple[Callable, Callable]] = {}
"""id of a ``loop_checked`` wrapper -> (the wrapper, the handler it wraps): the wrapper is held,
so its id is never reused."""


def unchecked_handler(func: Any) -> Callable | None:
    """The handler a ``loop_checked`` wrapper wraps (None for any other function): the
    dispatch that already checks for loops calls it directly."""
    hit = _loop_checked.get(id(func))
    return hit[1] if hit is not None and hit[0] is func else None


def _run_handlers(public_api: Callable, overloaded_args: list[Any], types: tuple, args: tuple,
                  kwargs: dict) -> Any:
    if mode_enabled():
        with _pop_mode_temporarily() as mode:
            result = mode.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    for arg in overloaded_args:
        result = _call_handler(arg, public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    raise _no_implementation(public_api, overloaded_args)


def call_own_handler(public_api: Callable, arg: Any, args: tuple, kwargs: dict) -> Any:
    """What ``run_overrides`` does when ``arg`` is the only override and no mode is
    active, without the search: ``arg``'s handler, one wrapped by ``loop_checked`` (its own
    loop check is the one the dispatch would make)."""
    result = arg.__torch_function__(public_api, (type(arg),), args, kwargs)
    if result is NotImplemented:
        raise _no_implementation(public_api, [arg])
    return result


def _no_implementation(public_api: Callable, overloaded_args: list[Any]) -> TypeError:
    msg = (f"no implementation found for '{_func_name(public_api)}' on types that implement "
           f"__torch_function__: {[type(arg) for arg in overloaded_args]}")
    if mode_enabled():
        msg += f" nor in mode {_current().modes[-1]}"
    return NoImplementationFound(msg)


def has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """True if a mode is active or any argument overrides (exact interop Tensors do not)."""
    if mode_enabled():
        return True
    if not enabled():
        return False
    return any(not _is_base_tensor(type(a)) and overrides(type(a)) for a in relevant_args)


def is_tensor_like(inp: Any) -> bool:
    """An interop Tensor, or anything with a ``__torch_function__`` (the class object too)."""
    return _is_base_tensor(type(inp)) or hasattr(inp, "__torch_function__")


def _is_base_tensor(cls: type) -> bool:
    """``cls is interop.Tensor``, told by its mark (``tensor`` imports this module)."""
    return "_base_of_tensors" in vars(cls)


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
    """A ``with`` block that turns some overrides off in this thread or task (counted: nests)."""
    _field: int  # the index of its counter in _State

    def __enter__(self) -> _Guard:
        state: list[Any] = list(_current())
        state[self._field] += 1
        _set(*state)
        return self

    def __exit__(self, *exc: object) -> None:
        state: list[Any] = list(_current())
        if not state[self._field]:
            raise RuntimeError(f"{type(self).__name__}: exited in a thread or task where it is "
                               "not active; enter and exit it in the same one")
        state[self._field] -= 1
        _set(*state)


class DisableTorchFunctionSubclass(_Guard):
    """Inside: argument overrides are ignored (modes still run)."""
    _field = _State._fields.index("subclass_disabled")


class DisableTorchFunction(_Guard):
    """Inside: argument overrides and modes are all ignored."""
    _field = _State._fields.index("all_disabled")


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
        modes, *guards = _current()
        _set((*modes, self), *guards)
        return self

    def __exit__(self, *exc: object) -> None:
        modes, *guards = _current()
        for i in range(len(modes) - 1, -1, -1):
            if modes[i] is self:
                _set(modes[:i] + modes[i + 1:], *guards)
                return
        raise RuntimeError(f"{type(self).__name__}: exited in a thread or task where this mode is "
                           "not active; enter and exit it in the same one")

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
    """The innermost mode, off the stack while its handler runs, then back on top."""

    def __enter__(self) -> TorchFunctionMode:
        modes, *guards = _current()
        self._mode = modes[-1]
        _set(modes[:-1], *guards)
        return self._mode

    def __exit__(self, *exc: object) -> None:
        modes, *guards = _current()
        _set((*modes, self._mode), *guards)


def current_mode() -> TorchFunctionMode | None:
    modes = _current().modes
    return modes[-1] if modes else None


def mode_stack() -> list[TorchFunctionMode]:
    return list(_current().modes)
