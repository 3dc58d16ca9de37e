"""Recursion and re-entrancy of the ``__torch_function__`` machinery, and copies.

- A handler (or mode) that calls the function it handles on its own arguments
  gets one ``OverrideRecursionError`` (a ``RecursionError``, as torch raises)
  naming the function and the fix, with a short traceback, on every surface:
  interop's own and torch callables (``torch.add``, ``torch.sum``, ``F.relu``,
  ``F.linear``), which torch sends to the handler directly.
- Modes and ``Disable*`` guards are restored however their block is left.
- A ``TypeError`` raised by a handler inside ``==`` propagates; torch turns it
  into a silent ``False`` (a known pitfall, docs/errors.md).
- A subclass's ``__slots__`` attributes survive pickle, ``copy.copy`` and
  ``copy.deepcopy`` (as torch's do through pickle and copy) and are carried to
  results like ``__dict__`` attributes.
"""

from __future__ import annotations

import copy
import operator
import pickle
import traceback
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import interop
from interop.core import torch_function as tf
from interop.overrides import (
    BaseTorchFunctionMode,
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    TorchFunctionMode,
    _is_torch_function_all_disabled,
    _is_torch_function_enabled,
)
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
    "numpy-ufunc-method": (lambda t: np.add.reduce(t), None, "numpy.add.reduce"),
    "numpy-ufunc-outer": (lambda t: np.multiply.outer(t, t), None, "numpy.multiply.outer"),
}


def _state() -> tuple:
    return (tuple(tf.mode_stack()), _is_torch_function_enabled(), _is_torch_function_all_disabled(),
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


class Countdown(interop.Tensor):
    """``func(t, n)`` nests n calls of ``func`` through its own handler: deep, but not a loop."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        t, n = args
        if n == 0:
            return super().__torch_function__(func, types, (t, 0), kwargs)
        return func(t, n - 1).as_subclass(interop.Tensor) + 1  # `+` on plain tensors


@pytest.mark.parametrize("add", [interop.add, torch.add], ids=["interop.add", "torch.add"])
def test_bounded_nested_dispatch_deeper_than_the_threshold_works(add: Callable,
                                                                 backend: str) -> None:
    """Handlers may legitimately nest dispatches (here 40 deep): only endless loops raise."""
    out = add(ten(backend).as_subclass(Countdown), 40)
    expected = torch.add(torch.arange(4.0, dtype=torch.float64), 40)
    np.testing.assert_array_equal(to_numpy(out), expected.numpy())
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
        assert tuple(tf.mode_stack()) == (outer, inner)  # the popped mode is back
    assert _state() == CLEAN


def test_reentering_the_same_mode_object_nests() -> None:
    mode = Passing()
    with mode:
        with mode:
            assert tuple(tf.mode_stack()) == (mode, mode)
        assert tuple(tf.mode_stack()) == (mode,)
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


# ------------------------------------------------------------------ loops through torch callables
TORCH_CALLS: dict[str, tuple[Callable[[Any], Any], str]] = {
    "torch.add": (lambda t: torch.add(t, 1), "torch.add"),
    "torch.sum": (lambda t: torch.sum(t), "torch.sum"),
    "F.relu": (lambda t: torch.nn.functional.relu(t), "torch.nn.functional.relu"),
    "F.linear": (lambda t: torch.nn.functional.linear(t, t), "torch.nn.functional.linear"),
}


@pytest.mark.parametrize("call", list(TORCH_CALLS))
def test_handler_looping_through_a_torch_callable_gets_the_clear_error(call: str,
                                                                      backend: str) -> None:
    """torch calls the handler itself (interop's dispatch is not on the way): same error."""
    fn, name = TORCH_CALLS[call]
    with pytest.raises(RecursionError) as reference:  # torch, on its own subclass
        fn(torch.arange(4.0).as_subclass(TorchLoop))
    assert type(reference.value) is RecursionError
    with pytest.raises(tf.OverrideRecursionError) as info:
        fn(ten(backend).as_subclass(Loop))
    message = str(info.value)
    assert message.startswith(f"{name}:") and "'Loop'" in message, message
    assert "super().__torch_function__(func, types, args, kwargs)" in message
    assert len(traceback.extract_tb(info.value.__traceback__)) < 20, "a deep traceback"
    assert _state() == CLEAN


def test_a_checked_handler_keeps_the_users_name_doc_and_result() -> None:
    class Documented(interop.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            """Mine."""
            return super().__torch_function__(func, types, args, kwargs)
    handler = Documented.__torch_function__
    assert (handler.__name__, handler.__doc__, handler.__self__) == \
        ("__torch_function__", "Mine.", Documented)
    assert handler.__wrapped__.__qualname__.endswith("Documented.__torch_function__")
    out = torch.add(ten("numpy").as_subclass(Documented), 1)
    assert type(out) is Documented
    np.testing.assert_array_equal(to_numpy(out), torch.arange(4.0).add(1).numpy())


# ------------------------------------------------------------------ __slots__ through copies
class SlottedBase(interop.Tensor):
    __slots__ = ("origin",)


class Slotted(SlottedBase):
    __slots__ = ("unit", "__scale", "unset")

    def scale(self) -> Any:
        return self.__scale

    def set_scale(self, value: Any) -> None:
        self.__scale = value


class TorchSlotted(torch.Tensor):
    __slots__ = ("unit", "__scale", "unset")


def slotted(backend: str) -> Slotted:
    t = ten(backend).as_subclass(Slotted)
    t.unit, t.origin, t.note = "m", ["sensor", 1], "in __dict__"
    t.set_scale([2.0])
    return t


def attributes(t: Any) -> dict:
    return {name: getattr(t, name, "<unset>") for name in ("unit", "origin", "note", "unset")} | \
        {"scale": t.scale()}


ROUND_TRIPS: dict[str, Callable[[Any], Any]] = {
    **{f"pickle-{p}": (lambda t, p=p: pickle.loads(pickle.dumps(t, protocol=p)))
       for p in range(2, pickle.HIGHEST_PROTOCOL + 1)},
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
}


@pytest.mark.parametrize("trip", list(ROUND_TRIPS))
def test_slots_survive_pickle_and_copies(trip: str, backend: str) -> None:
    t = slotted(backend)
    out = ROUND_TRIPS[trip](t)
    assert type(out) is Slotted
    assert attributes(out) == attributes(t) == {"unit": "m", "origin": ["sensor", 1],
                                                "note": "in __dict__", "unset": "<unset>",
                                                "scale": [2.0]}
    np.testing.assert_array_equal(to_numpy(out), np.arange(4.0))
    if trip == "deepcopy":  # values and attributes are copies: nothing shared
        assert out.origin is not t.origin and out.scale() is not t.scale()
        out[0] = 99.0
        assert to_numpy(t)[0] == 0.0
    elif trip == "copy":
        assert out.origin is t.origin and out.raw is t.raw
    if not trip.startswith("pickle") or trip == "pickle-2":  # torch keeps them the same way
        ref = torch.arange(4.0).as_subclass(TorchSlotted)
        ref.unit, ref._TorchSlotted__scale = "m", [2.0]
        got = pickle.loads(pickle.dumps(ref)) if trip == "pickle-2" else copy.copy(ref)
        assert (got.unit, got._TorchSlotted__scale, hasattr(got, "unset")) == ("m", [2.0], False)


def test_slots_are_carried_to_results(backend: str) -> None:
    t = slotted(backend)
    for out in (t + 1, t[1:], interop.sum(t), np.add(t, 1), t.as_subclass(Slotted)):
        assert type(out) is Slotted
        assert attributes(out) == attributes(t)
    up = t.as_subclass(SlottedBase)  # a base class: only the slots it has
    assert (type(up), up.origin, hasattr(up, "note")) == (SlottedBase, ["sensor", 1], True)
    down = ten(backend).as_subclass(Slotted)  # from a plain tensor: none set
    assert not any(hasattr(down, n) for n in ("unit", "origin", "unset"))


def test_old_pickles_without_slots_still_load() -> None:
    from interop.core.tensor import _rebuild
    t = _rebuild(Slotted, np.arange(2.0), {"note": "x"})  # what earlier versions wrote
    assert t.note == "x" and not hasattr(t, "unit")
    np.testing.assert_array_equal(to_numpy(t), [0.0, 1.0])
