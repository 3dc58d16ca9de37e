"""Recursion and re-entrancy of the ``__torch_function__`` machinery.

- A handler (or mode) that calls the function it handles on its own arguments
  gets one ``OverrideRecursionError`` (a ``RecursionError``, as torch raises)
  naming the function and the fix, with a short traceback, on every surface.
- Modes and ``Disable*`` guards are restored however their block is left.
- A ``TypeError`` raised by a handler inside ``==`` propagates; torch turns it
  into a silent ``False`` (a known pitfall, docs/errors.md).
"""

from __future__ import annotations

import operator
import traceback
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import interop
from interop.overrides import (BaseTorchFunctionMode, DisableTorchFunction,
                               DisableTorchFunctionSubclass, TorchFunctionMode,
                               _is_torch_function_all_disabled, _is_torch_function_enabled)
from interop.protocols import torch_function as tf
from tests.conftest import to_numpy

torch = pytest.importorskip("torch")


def ten(backend: str) -> interop.Tensor:
    return interop.tensor(np.arange(4.0), backend=backend)


class Loop(interop.Tensor):
    """Calls ``func`` on its own arguments: the call comes straight back here."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


class TorchLoop(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


SURFACES: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any], str]] = {
    "function": (lambda t: interop.add(t, 1), lambda t: torch.add(t, 1), "interop.add"),
    "method": (lambda t: t.sum(), lambda t: t.sum(), "interop.Tensor.sum"),
    "operator": (lambda t: t * 2, lambda t: t * 2, "interop.Tensor.mul"),
    "index": (lambda t: t[1], lambda t: t[1], "interop.Tensor.__getitem__"),
    "property": (lambda t: t.shape, lambda t: t.shape, "interop.Tensor.shape.__get__"),
    "numpy-ufunc": (lambda t: np.add(t, 1), None, "numpy.add"),
    "numpy-function": (lambda t: np.mean(t), None, "numpy.mean"),
}


def _state() -> tuple:
    return (tuple(tf._get_current_function_mode_stack()), _is_torch_function_enabled(), _is_torch_function_all_disabled(),
            tf.active(), getattr(tf._depth, "n", 0))


CLEAN = ((), True, False, None, 0)


@pytest.mark.parametrize("surface", list(SURFACES))
def test_handler_calling_itself_gets_a_clear_error(surface: str, backend: str) -> None:
    call, torch_call, name = SURFACES[surface]
    if torch_call is not None:  # torch raises a bare RecursionError deep in the stack
        with pytest.raises(RecursionError):
            torch_call(torch.arange(4.0).as_subclass(TorchLoop))
    with pytest.raises(tf.OverrideRecursionError) as info:
        call(ten(backend).as_subclass(Loop))
    assert isinstance(info.value, RecursionError)
    message = str(info.value)
    assert message.startswith(f"{name}:") and "'Loop'" in message, message
    assert "super().__torch_function__(func, types, args, kwargs)" in message
    assert len(traceback.extract_tb(info.value.__traceback__)) < 20, "a deep traceback"
    assert _state() == CLEAN
    np.testing.assert_array_equal(to_numpy(ten(backend) + 1), np.arange(4.0) + 1)


def test_mode_reentering_itself_gets_a_clear_error() -> None:
    class Reenter(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            with self:  # pushes itself back: func reaches this handler again
                return func(*args, **(kwargs or {}))
    with pytest.raises(tf.OverrideRecursionError, match=r"^interop\.add: .*an active mode"):
        with Reenter():
            interop.add(ten("numpy"), 1)
    assert _state() == CLEAN


def test_deep_recursion_of_the_users_own_is_left_alone() -> None:
    """A RecursionError that did not loop through dispatch is the user's: unchanged."""
    def deep(n: int) -> int:
        return deep(n + 1)

    class Deep(interop.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return deep(0)
    with pytest.raises(RecursionError) as info:
        interop.add(ten("numpy").as_subclass(Deep), 1)
    assert type(info.value) is RecursionError
    assert _state() == CLEAN


def test_bounded_nested_dispatch_deeper_than_the_threshold_works() -> None:
    """Handlers may legitimately nest dispatches (here 40 deep): only endless loops raise."""
    class Countdown(interop.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            t, n = args
            if n == 0:
                return super().__torch_function__(func, types, (t, 0), kwargs)
            return func(t, n - 1).as_subclass(interop.Tensor) + 1  # `+` on plain tensors
    out = interop.add(ten("numpy").as_subclass(Countdown), 40)
    np.testing.assert_array_equal(to_numpy(out), np.arange(4.0) + 40)
    assert _state() == CLEAN


class _Boom(Exception):
    pass


class Passing(BaseTorchFunctionMode):
    pass


class Raising(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise _Boom(func.__name__)


CONTEXTS: dict[str, Callable[[], list]] = {
    "mode": lambda: [Passing()],
    "two-modes": lambda: [Passing(), Passing()],
    "disable": lambda: [DisableTorchFunction()],
    "disable-subclass": lambda: [DisableTorchFunctionSubclass()],
    "mode-then-disable": lambda: [Passing(), DisableTorchFunction()],
    "disable-then-mode": lambda: [DisableTorchFunctionSubclass(), Passing()],
    "raising-mode": lambda: [Raising()],
}


@pytest.mark.parametrize("context", list(CONTEXTS))
@pytest.mark.parametrize("where", ["block", "operation"])
def test_modes_and_guards_are_restored_after_exceptions(context: str, where: str) -> None:
    managers = CONTEXTS[context]()
    with pytest.raises((_Boom, IndexError)):
        entered = []
        try:
            for m in managers:
                m.__enter__()
                entered.append(m)
            if where == "block":
                raise _Boom("in the block")
            interop.sum(ten("numpy"), dim=5)  # raises inside the dispatch (or in the mode)
        finally:
            for m in reversed(entered):
                m.__exit__(None, None, None)
    assert _state() == CLEAN


def test_mode_stack_is_whole_again_after_a_handler_raises() -> None:
    outer, inner = Passing(), Raising()
    with outer, inner:
        with pytest.raises(_Boom):
            interop.add(ten("numpy"), 1)
        assert tuple(tf._get_current_function_mode_stack()) == (outer, inner)  # the popped mode is back
    assert _state() == CLEAN


def test_reentering_the_same_mode_object_nests() -> None:
    mode = Passing()
    with mode:
        with mode:
            assert tuple(tf._get_current_function_mode_stack()) == (mode, mode)
        assert tuple(tf._get_current_function_mode_stack()) == (mode,)
    assert _state() == CLEAN


class RaisesTypeError(interop.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        raise TypeError("my bug")


class TorchRaisesTypeError(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        raise TypeError("my bug")


@pytest.mark.parametrize("op", ["eq", "ne", "add", "lt"])
def test_handler_typeerror_in_operator_propagates(op: str) -> None:
    """torch hides the handler's TypeError (``==`` is silently False); interop does not."""
    apply = getattr(operator, op)
    t = torch.arange(3.0).as_subclass(TorchRaisesTypeError)
    if op in ("eq", "ne"):
        assert apply(t, 1) is (op == "ne")  # torch: a silent answer
    else:
        with pytest.raises(TypeError, match="not supported|unsupported operand"):
            apply(t, 1)
    with pytest.raises(TypeError, match="my bug"):
        apply(interop.tensor(np.arange(3.0)).as_subclass(RaisesTypeError), 1)
    assert _state() == CLEAN
