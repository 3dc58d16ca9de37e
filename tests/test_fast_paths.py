"""The fast paths of functions, methods and torch's calls into the default handler
(``dispatch.exact_tensors``, the operators' ``raw_shortcut`` on their functions, the
floating ``sum``/``matmul`` returns) give what the general path gives: torch's values,
dtypes, shapes and errors, at the edges (0-d, empty, unknown Dask sizes, subclasses,
modes, another thread, dask_compute="raise")."""

from __future__ import annotations

import threading
from typing import ClassVar

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import interop
from interop.overrides import TorchFunctionMode
from tests.helpers.dask_counting import ComputeCounter

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "int64", "int8", "bool", "complex64"]
SHAPES = [(), (0,), (3,), (2, 0), (2, 3)]
BINARY = ["add", "sub", "mul", "div", "eq", "lt", "bitwise_and", "remainder"]
SURFACES = {
    "function": lambda name, a, b: getattr(interop, name)(a, b),
    "torch": lambda name, a, b: getattr(torch, name)(a, b),
    "method": lambda name, a, b: getattr(a, name)(b),
}


def _host(t: interop.Tensor) -> np.ndarray:
    return np.asarray(t.compute().raw if t.backend == "dask" else t.raw)


def _outcome(call):
    try:
        return call(), None
    except Exception as exc:  # noqa: BLE001 - the error's kind is what is compared
        return None, exc


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from(DTYPES), shape=st.sampled_from(SHAPES),
       name=st.sampled_from(BINARY), surface=st.sampled_from(sorted(SURFACES)),
       backend=st.sampled_from(["numpy", "dask"]), seed=st.integers(0, 2**16))
def test_binary_functions_of_two_plain_tensors_match_torch(dtype, shape, name, surface,
                                                           backend, seed) -> None:
    rng = np.random.default_rng(seed)
    a, b = (rng.integers(1, 5, shape).astype(dtype) for _ in range(2))
    expected, torch_error = _outcome(lambda: SURFACES[surface](
        name, torch.from_numpy(a.copy()), torch.from_numpy(b.copy())))
    got, error = _outcome(lambda: SURFACES[surface](
        name, interop.tensor(a, backend=backend), interop.tensor(b, backend=backend)))
    if torch_error is not None:
        assert error is not None and isinstance(error, (RuntimeError, TypeError)), torch_error
        return
    assert error is None, error
    assert isinstance(got, interop.Tensor) and got.backend == backend
    assert str(got.dtype).removeprefix("interop.") == str(expected.dtype).removeprefix("torch.")
    np.testing.assert_allclose(_host(got), expected.numpy(), rtol=1e-6)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("shape", [(), (0,), (3, 0), (4,), (2, 3)])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex128", "int8",
                                   "bool"])
def test_sum_of_every_dimension_matches_torch(backend, shape, dtype) -> None:
    host = np.arange(int(np.prod(shape))).reshape(shape).astype(dtype)
    expected = torch.from_numpy(host.copy()).sum()
    for got in (interop.tensor(host, backend=backend).sum(),
                torch.sum(interop.tensor(host, backend=backend))):
        assert got.shape == tuple(expected.shape)
        assert str(got.dtype).removeprefix("interop.") == str(expected.dtype).removeprefix("torch.")
        np.testing.assert_allclose(_host(got), expected.numpy(), rtol=1e-3)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("shapes", [((3,), (3,)), ((0,), (0,)), ((2, 0), (0, 3)),
                                    ((2, 3), (3,)), ((2, 3), (2, 3)), ((), (3,))])
def test_matmul_of_floats_matches_torch_and_its_errors(backend, shapes) -> None:
    a, b = (np.ones(s, np.float32) for s in shapes)
    expected, torch_error = _outcome(lambda: torch.from_numpy(a) @ torch.from_numpy(b))
    got, error = _outcome(lambda: interop.matmul(interop.tensor(a, backend=backend),
                                                 interop.tensor(b, backend=backend)))
    if torch_error is not None:
        assert isinstance(error, RuntimeError), (error, torch_error)
        return
    np.testing.assert_allclose(_host(got), expected.numpy())


def test_a_subclass_comes_back_from_the_fast_paths_with_its_attributes() -> None:
    class Meters(interop.Tensor):
        unit = "m"

    class Hooked(interop.Tensor):
        seen: ClassVar[list] = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.seen.append(func)
            return super().__torch_function__(func, types, args, kwargs)

    m = Meters([1.0, 2.0])
    m.note = "kept"
    for out in (torch.add(m, m), interop.add(m, m), m.sum(), torch.matmul(m, m)):
        assert type(out) is Meters and out.note == "kept"
    h = Hooked([1.0, 2.0])
    for call in (lambda: torch.add(h, h), lambda: interop.add(h, h), lambda: h.sum()):
        Hooked.seen.clear()
        assert type(call()) is Hooked and Hooked.seen  # the handler saw it, super() ran


def test_a_mode_sees_fast_path_calls_in_its_thread_only() -> None:
    class Counting(TorchFunctionMode):
        calls = 0

        def __torch_function__(self, func, types, args=(), kwargs=None):
            type(self).calls += 1
            return func(*args, **(kwargs or {}))

    t = interop.tensor([1.0, 2.0])
    other: list = []
    with Counting():
        interop.add(t, t)
        t.sum()
        worker = threading.Thread(target=lambda: other.append(interop.add(t, t)))
        worker.start()
        worker.join()
    assert Counting.calls == 2  # this thread's calls; the other thread's took the fast path
    np.testing.assert_array_equal(other[0].raw, [2.0, 4.0])


def test_fast_paths_on_dask_build_lazily_also_with_unknown_sizes() -> None:
    x = interop.tensor(np.arange(6.0), backend="dask", chunks=3)
    masked = x[x > 1]  # unknown (NaN) sizes
    with interop.config(dask_compute="raise"), ComputeCounter() as counter:
        results = [interop.add(x, x), torch.add(x, x), x.sum(), interop.matmul(x, x),
                   interop.add(masked, masked), masked.sum(), interop.mul(masked, masked)]
    assert counter.count == 0
    assert all(r.backend == "dask" for r in results)
    np.testing.assert_array_equal(_host(results[4]), np.arange(2.0, 6.0) * 2)
    assert float(_host(results[5])) == 14.0


@pytest.mark.parametrize("other", [None, "x", [1.0, 2.0], np.float64(2.0)])
def test_non_tensor_operands_leave_the_fast_path_for_torchs_answer(other) -> None:
    t = interop.tensor([1.0, 2.0])
    expected, torch_error = _outcome(lambda: torch.add(torch.tensor([1.0, 2.0]), other))
    got, error = _outcome(lambda: interop.add(t, other))
    if torch_error is not None:
        assert isinstance(error, type(torch_error)) or isinstance(error, TypeError), error
        return
    np.testing.assert_allclose(got.raw, expected.numpy())


def _logging_subclasses():
    """An interop and a torch subclass with the same handler, each logging what it sees."""
    seen: dict[str, list] = {"interop": [], "torch": []}

    def handler(key):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen[key].append((func.__name__, types == (cls,), len(args), dict(kwargs or {})))
            return super(cls, cls).__torch_function__(func, types, args, kwargs)
        return __torch_function__

    hooked = type("Hooked", (interop.Tensor,), {"__torch_function__": handler("interop")})
    torch_hooked = type("TorchHooked", (torch.Tensor,), {"__torch_function__": handler("torch")})
    return hooked, torch_hooked, seen


CALLS = {
    "method": lambda x: x.sum(), "operator": lambda x: x + x, "slice": lambda x: x[1:3],
    "scalar": lambda x: x * 2, "torch.add": lambda x: torch.add(x, x),
    "torch.matmul": lambda x: torch.matmul(x, x), "keyword": lambda x: x.sum(dim=0),
    "property": lambda x: x.real, "0-d": lambda x: x[0] + x[0], "empty": lambda x: x[:0].sum(),
}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_subclass_handler_alone_sees_what_torchs_handler_sees(call) -> None:
    hooked, torch_hooked, seen = _logging_subclasses()
    data = [1.0, 2.0, 3.0, 4.0]
    got = CALLS[call](hooked(data))
    expected = CALLS[call](torch.tensor(data).as_subclass(torch_hooked))
    assert type(got) is hooked and type(expected) is torch_hooked
    np.testing.assert_allclose(got.raw, expected.as_subclass(torch.Tensor).numpy())
    assert seen["interop"] == seen["torch"]


@pytest.mark.parametrize("call", ["method", "slice", "operator", "torch.add", "torch.matmul"])
def test_a_subclass_handler_declining_raises_torchs_type_error(call) -> None:
    def declining(cls, func, types, args=(), kwargs=None):
        return NotImplemented

    hooked = type("Declining", (interop.Tensor,), {"__torch_function__": classmethod(declining)})
    torch_hooked = type("Declining", (torch.Tensor,),
                        {"__torch_function__": classmethod(declining)})
    with pytest.raises(TypeError) as expected:
        CALLS[call](torch.tensor([1.0, 2.0]).as_subclass(torch_hooked))
    with pytest.raises(TypeError) as got:
        CALLS[call](hooked([1.0, 2.0]))
    if call.startswith("torch.") or call == "operator":  # torch's own dispatch, Python's error
        assert str(got.value).split(":")[0] == str(expected.value).split(":")[0]
    else:  # torch's Python-path wording, naming the function and the declining class
        assert "no implementation found for 'interop.Tensor." in str(got.value)
        assert "Declining" in str(got.value)


def test_a_handler_set_after_the_class_and_a_mixed_call_take_the_general_path() -> None:
    seen = []

    class Late(interop.Tensor):
        pass

    def late(cls, func, types, args=(), kwargs=None):
        seen.append(types)
        return super(Late, cls).__torch_function__(func, types, args, kwargs)

    Late.__torch_function__ = classmethod(late)  # not wrapped by __init_subclass__
    hooked, _, log = _logging_subclasses()
    x = Late([1.0, 2.0])
    assert type(x.sum()) is Late and seen == [(Late,)]
    with pytest.raises(TypeError, match="unrelated|no implementation"):
        interop.add(hooked([1.0, 2.0]), x)  # two unrelated subclasses: torch's refusal
    assert sorted(map(str, seen[1])) == sorted(map(str, (hooked, Late)))


def test_a_mode_comes_before_a_lone_subclass_handler_in_its_thread_only() -> None:
    order: list[str] = []

    class Hooked(interop.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            order.append(f"handler:{threading.current_thread().name}")
            return super().__torch_function__(func, types, args, kwargs)

    class Logging(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            order.append("mode")
            return func(*args, **(kwargs or {}))

    h = Hooked([1.0, 2.0, 3.0])
    with Logging():
        assert float(h.sum().raw) == 6.0  # as torch: the mode first, then the handler
        worker = threading.Thread(target=h.sum, name="other")
        worker.start()
        worker.join()
    assert order == ["mode", "handler:MainThread", "handler:other"]
