"""interop as HOST of __torch_function__: the rules of docs/protocols.md, each checked as
torch itself behaves, pointed at interop's callables.

Where torch has two paths (C++ and Python), interop's functions follow torch's
Python path (``handle_torch_function``): kwargs is always a dict, and an
exact ``Tensor`` argument is collected, so its default handler is tried first.
"""

from __future__ import annotations

import warnings

import pytest

import interop
from interop import Tensor
from interop.overrides import (
    BaseTorchFunctionMode,
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    TorchFunctionMode,
    _disabled_torch_function_impl,
    _get_overloaded_args,
    _is_torch_function_all_disabled,
    get_overridable_functions,
    handle_torch_function,
    has_torch_function,
    is_tensor_like,
    resolve_name,
    wrap_torch_function,
)


def _rec(log, ret="R"):
    class Rec:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            log.append((cls, func, types, args, kwargs))
            return ret
    return Rec


class NI:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented


def _recording_subclass(seen):
    class LT(Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return super().__torch_function__(func, types, args, kwargs)
    return LT


def pyfunc(a, b=None):
    if has_torch_function((a, b)):
        return handle_torch_function(pyfunc, (a, b), a, b)
    return "impl"


def test_A1_duck_participates_and_kwargs_is_a_dict():
    log = []
    Rec = _rec(log)
    r = Rec()
    assert interop.add(r, 1) == "R"
    cls, func, types, args, kwargs = log[-1]
    assert func is interop.add and types == (Rec,) and args == (r, 1) and kwargs == {}
    interop.add(r, 1, alpha=2)
    assert log[-1][4] == {"alpha": 2}
    interop.add(input=r, other=1)
    assert log[-1][3] == () and log[-1][4] == {"input": r, "other": 1}
    assert pyfunc(r) == "R" and log[-1][4] == {}


def test_A2_order_subclass_first_then_left_to_right_dedup():
    class D:
        __torch_function__ = classmethod(lambda *a: NotImplemented)

    class SubD(D):
        pass

    class Other:
        __torch_function__ = classmethod(lambda *a: NotImplemented)
    d, sd, o = D(), SubD(), Other()
    assert [type(x) for x in _get_overloaded_args([d, o, sd, d])] == [SubD, D, Other]


def test_A3_exact_tensor_is_collected_on_the_python_path():
    class T2:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return types
    assert interop.add(interop.ones(1), T2()) == (Tensor, T2)
    assert pyfunc(interop.ones(1), T2()) == (Tensor, T2)


def test_A4_all_notimplemented_message():
    with pytest.raises(TypeError) as e:
        interop.mul(NI(), NI())
    assert str(e.value) == ("no implementation found for 'interop.mul' on types that "
                            f"implement __torch_function__: [{NI!r}]")
    with pytest.raises(TypeError) as e:
        pyfunc(NI())
    assert str(e.value) == (f"no implementation found for '{__name__}.pyfunc' on types that "
                            f"implement __torch_function__: [{NI!r}]")


def test_A5_default_handler_and_lowest_subclass():
    class A(Tensor):
        pass

    class A2(A):
        pass

    class B(Tensor):
        pass
    a, a2, b = (interop.ones(2).as_subclass(c) for c in (A, A2, B))
    p = interop.ones(2)
    assert type(a + p) is A and type(p + a) is A and type(interop.add(p, a)) is A
    assert type(a + a2) is A2 and type(a2 + a) is A2
    with pytest.raises(TypeError, match="no implementation found for 'interop.add'"):
        interop.add(a, b)
    with pytest.raises(TypeError, match="unsupported operand"):
        a + b
    assert [type(x) for x in a.max(0)] == [A, A]
    assert type(a.max(0)).__name__ == "max" and type(a.max(0).values) is A
    assert type(a.split(1)) is tuple and type(a.split(1)[0]) is A
    assert type(a.shape) is tuple and type(a.T) is A
    assert Tensor.__torch_function__(interop.add, (NI,), (p, 1)) is NotImplemented


@pytest.mark.parametrize("case", ["t+1", "1+t", "1-t", "t-1", "t*2", "2*t", "t/2", "2/t",
                                  "t==t", "t<1", "1<t", "t@t", "-t", "abs", "t**2", "t//2",
                                  "t%2", "t.T", "t.shape", "t[0]", "len", "t+=1", "t[0]=1"])
def test_A6_func_each_operator_passes(case):
    seen = []
    t = interop.ones(2, 2).as_subclass(_recording_subclass(seen))

    def iadd():
        x = t
        x += 1

    def setitem():
        t[0] = 1
    T = Tensor
    cases = {
        "t+1": (lambda: t + 1, T.add), "1+t": (lambda: 1 + t, T.add),
        "1-t": (lambda: 1 - t, T.__rsub__), "t-1": (lambda: t - 1, T.sub),
        "t*2": (lambda: t * 2, T.mul), "2*t": (lambda: 2 * t, T.mul),
        "t/2": (lambda: t / 2, T.div), "2/t": (lambda: 2 / t, T.__rtruediv__),
        "t==t": (lambda: t == t, T.__eq__), "t<1": (lambda: t < 1, T.lt),
        "1<t": (lambda: 1 < t, T.gt), "t@t": (lambda: t @ t, T.matmul),
        "-t": (lambda: -t, T.neg), "abs": (lambda: abs(t), T.abs),
        "t**2": (lambda: t ** 2, T.__pow__), "t//2": (lambda: t // 2, T.__floordiv__),
        "t%2": (lambda: t % 2, T.remainder), "t.T": (lambda: t.T, T.T.__get__),
        "t.shape": (lambda: t.shape, T.shape.__get__), "t[0]": (lambda: t[0], T.__getitem__),
        "len": (lambda: len(t), T.__len__), "t+=1": (iadd, T.add_),
        "t[0]=1": (setitem, T.__setitem__),
    }
    fn, expected = cases[case]
    fn()
    assert seen and seen[-1] == expected


def test_A6_hash_never_dispatches():
    seen = []
    t = interop.ones(2).as_subclass(_recording_subclass(seen))
    hash(t)
    assert seen == []


def test_A7_reflected_ops_with_duck_and_indexing():
    log = []
    r = _rec(log)()
    p = interop.ones(2)
    r + p
    assert log[-1][1] is Tensor.add and log[-1][3][0] is p
    r - p
    assert log[-1][1] is Tensor.__rsub__ and log[-1][2] == (Tensor, type(r))
    p[r]
    assert log[-1][1] is Tensor.__getitem__
    q = interop.ones(3)
    q[0] = r
    assert log[-1][1] is Tensor.__setitem__ and log[-1][3] == (q, 0, r)
    p[0, r]
    assert log[-1][1] is Tensor.__getitem__ and log[-1][3] == (p, (0, r))


def test_A8_handler_typeerror_propagates_from_operators():
    """Deliberate difference from torch: the handler's own error is kept, and == raises."""
    class Bad(Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            raise TypeError("my bug")
    b = interop.ones(1).as_subclass(Bad)
    for call in (lambda: interop.add(b, 1), lambda: b + 1, lambda: b == 1):
        with pytest.raises(TypeError, match="my bug"):
            call()


def test_A9_disable_guards_and_modes():
    class A(Tensor):
        pass
    a = interop.ones(2).as_subclass(A)
    log = []
    r = _rec(log)()
    with DisableTorchFunctionSubclass():
        assert type(a + a) is Tensor
        assert not has_torch_function((r,))
        with pytest.raises(TypeError):
            interop.add(r, 1)  # the duck is not tried: the call fails on its argument
    assert log == []
    order = []

    class M(TorchFunctionMode):
        def __init__(self, n):
            self.n = n

        def __torch_function__(self, func, types, args=(), kwargs=None):
            order.append(self.n)
            return func(*args, **(kwargs or {}))

    class LT(Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            order.append("LT")
            return super().__torch_function__(func, types, args, kwargs)
    lt = interop.ones(1).as_subclass(LT)
    with M("outer"), M("inner"):
        assert type(interop.add(lt, 1)) is LT
    assert order == ["inner", "outer", "LT"]
    order.clear()
    with M("m"):
        with DisableTorchFunctionSubclass():
            interop.add(lt, 1)
        assert order == ["m"]
        with DisableTorchFunction():
            assert _is_torch_function_all_disabled()
            interop.add(lt, 1)
        assert order == ["m"]  # modes off too
    assert not _is_torch_function_all_disabled()


def test_A9_mode_sees_factories_and_notimplemented_falls_through():
    calls = []

    class M(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            calls.append((func, types))
            return NotImplemented if func is interop.add else func(*args, **(kwargs or {}))
    with M():
        interop.zeros(2)
        assert has_torch_function((1,))
        with pytest.raises(TypeError, match="nor in mode"):
            interop.add(NI(), 1)
    assert calls[0] == (interop.zeros, ())


def test_A9_classmethod_mode_is_refused():
    class Bad(TorchFunctionMode):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))
    with pytest.raises(RuntimeError, match="classmethod is not supported"):
        with Bad():
            pass


def test_A10_helpers():
    Rec = _rec([])
    assert is_tensor_like(Rec()) and is_tensor_like(interop.ones(1)) and not is_tensor_like(1)
    assert is_tensor_like(Rec)
    assert not has_torch_function((interop.ones(1),))
    assert has_torch_function((Rec(),))

    class Off(Tensor):
        __torch_function__ = _disabled_torch_function_impl
    assert _get_overloaded_args([interop.ones(1).as_subclass(Off)]) == []
    assert type(interop.ones(1).as_subclass(Off) + 1) is Tensor  # opted out, as Parameter

    @wrap_torch_function(lambda a: (a,))
    def f(a):
        return "impl"
    assert f(1) == "impl" and f(Rec()) == "R"

    class Plain:
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return "P"
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert interop.add(Plain(), 1) == "P"
    assert any("plain method is deprecated" in str(x.message) for x in w)
    assert resolve_name(Tensor.T.__get__) == "interop.Tensor.T.__get__"
    assert resolve_name(interop.add) == "interop.add"
    assert resolve_name(Tensor.add) == "interop.Tensor.add"
    overridable = get_overridable_functions()
    assert interop.add in overridable[interop] and Tensor.add in overridable[Tensor]


def test_A19_base_mode_and_thread_isolation():
    import threading
    seen = []

    class Count(BaseTorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(threading.get_ident())
            return super().__torch_function__(func, types, args, kwargs)
    other = []
    with Count():
        worker = threading.Thread(target=lambda: other.append(interop.ones(2) + 1))
        worker.start()
        worker.join()
        interop.ones(2) + 1
    assert set(seen) == {threading.get_ident()}  # the other thread never saw the mode
    assert type(other[0]) is Tensor


def test_A21_super_in_subclass_and_modes_restored_after_exceptions():
    class Boom(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            raise ValueError("boom")
    with pytest.raises(ValueError):
        with Boom():
            interop.ones(1) + 1
    assert type(interop.ones(1) + 1) is Tensor
    from interop.overrides import _get_current_function_mode_stack
    assert _get_current_function_mode_stack() == []
