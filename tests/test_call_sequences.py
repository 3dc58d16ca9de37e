"""Sequences of calls from every surface: no result may depend on what was called before.

The dispatch core remembers things between calls (routes of other libraries' callables, fast
paths, the torch face's per-overload handlers).  A test of one call at a time cannot see a
memo made for one callable and then handed to another: once ``np.add`` had run on a hooked
subclass, ``np.add.outer`` ran as ``np.add`` and gave the elementwise sum.  Here hypothesis
draws sequences of calls (interop functions, Tensor methods, operators and properties, torch
functions, every NumPy ufunc method, NumPy functions, the Array API namespace and the torch
face) on plain tensors, plain subclasses, hooked subclasses and under a mode, and checks each
result against NumPy or torch computing the same call on plain arrays, where nothing is
remembered.  The hooked subclass also checks that its hook was handed the very callable the
user called.

``HYPOTHESIS_PROFILE=long`` runs many more and longer sequences than CI's bounded profile.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule

import interop
from interop.core.dispatch import routes
from interop.surfaces import torch_participant
from tests.conftest import to_numpy

torch = pytest.importorskip("torch")

X = np.array([0.5, -1.5, 2.0])
Y = np.array([1.0, 0.25, -3.0])
M = np.arange(6.0).reshape(2, 3) - 2.5


@dataclass(frozen=True, repr=False)
class Call:
    """One call as a user writes it, and the same call on plain NumPy arrays or torch tensors."""

    name: str
    run: Callable[[Any, Any, Any], Any]
    """``run(x, y, m)`` on interop tensors."""
    reference: Callable[[Any, Any, Any], Any]
    """The same on NumPy arrays or torch tensors (whose results are read with ``.numpy()``)."""
    called: Callable[[], Any] | None = None
    """The callable a hook must receive first (None: not checked)."""
    face: bool = False
    """Runs through ``as_torch()`` (torch has no tensors on the gpulike test device)."""

    def __repr__(self) -> str:
        return self.name  # what hypothesis prints of a failing sequence


def _ufunc_calls(ufunc: np.ufunc) -> list[Call]:
    """Every method of a binary ufunc: ``__call__``, ``reduce``, ``accumulate``, ``outer``,
    ``reduceat`` and ``at`` (into a copy, whose values are the result)."""
    n = ufunc.__name__

    def at(x, y, m):
        target = x.clone() if isinstance(x, interop.Tensor) else x.copy()
        ufunc.at(target, [0, 0, 2], 2.0)
        return target
    return [
        Call(f"np.{n}", lambda x, y, m: ufunc(x, y), lambda x, y, m: ufunc(x, y), lambda: ufunc),
        Call(f"np.{n}.reduce", lambda x, y, m: ufunc.reduce(m, axis=1),
             lambda x, y, m: ufunc.reduce(m, axis=1), lambda: ufunc.reduce),
        Call(f"np.{n}.accumulate", lambda x, y, m: ufunc.accumulate(x),
             lambda x, y, m: ufunc.accumulate(x), lambda: ufunc.accumulate),
        Call(f"np.{n}.outer", lambda x, y, m: ufunc.outer(x, y),
             lambda x, y, m: ufunc.outer(x, y), lambda: ufunc.outer),
        Call(f"np.{n}.reduceat", lambda x, y, m: ufunc.reduceat(x, [0, 2]),
             lambda x, y, m: ufunc.reduceat(x, [0, 2]), lambda: ufunc.reduceat),
        Call(f"np.{n}.at", at, at),
    ]


def _torch(fn: Callable) -> Callable:
    """``fn`` on torch tensors made from the NumPy inputs (the torch surface's reference)."""
    return lambda x, y, m: fn(*(torch.from_numpy(a.copy()) for a in (x, y, m)))


def _face(fn: Callable) -> Callable:
    """``fn`` on ``as_torch()`` faces of the inputs; the result's interop tensor."""
    def run(x, y, m):
        out = fn(x.as_torch(), y.as_torch(), m.as_torch())
        return out.as_interop() if isinstance(out, torch.Tensor) else out
    return run


def _namespace(name: str, *pick: str) -> Call:
    """``xp.<name>`` of the tensor's own namespace on the named inputs, against NumPy's."""
    def run(x, y, m):
        args = [{"x": x, "y": y, "m": m}[p] for p in pick]
        return getattr(x.__array_namespace__(), name)(*args)

    def reference(x, y, m):
        args = [{"x": x, "y": y, "m": m}[p] for p in pick]
        return getattr(np, name)(*args)
    return Call(f"xp.{name}", run, reference)


UFUNC_CALLS: list[Call] = [*_ufunc_calls(np.add), *_ufunc_calls(np.multiply),
                            *_ufunc_calls(np.maximum), *_ufunc_calls(np.subtract)]

CALLS: list[Call] = [
    Call("np.negative", lambda x, y, m: np.negative(x), lambda x, y, m: np.negative(x),
         lambda: np.negative),
    Call("np.exp", lambda x, y, m: np.exp(m), lambda x, y, m: np.exp(m), lambda: np.exp),
    Call("np.mean", lambda x, y, m: np.mean(m, axis=0), lambda x, y, m: np.mean(m, axis=0),
         lambda: np.mean),
    Call("np.sum", lambda x, y, m: np.sum(x), lambda x, y, m: np.sum(x), lambda: np.sum),
    Call("np.cumsum", lambda x, y, m: np.cumsum(m, axis=1),
         lambda x, y, m: np.cumsum(m, axis=1), lambda: np.cumsum),
    Call("np.outer", lambda x, y, m: np.outer(x, y), lambda x, y, m: np.outer(x, y),
         lambda: np.outer),
    Call("np.concatenate", lambda x, y, m: np.concatenate([x, y]),
         lambda x, y, m: np.concatenate([x, y]), lambda: np.concatenate),
    Call("np.where", lambda x, y, m: np.where(x > 0, x, y),
         lambda x, y, m: np.where(x > 0, x, y)),
    _namespace("add", "x", "y"), _namespace("multiply", "x", "y"),
    _namespace("maximum", "x", "y"), _namespace("sum", "m"), _namespace("exp", "x"),
    _namespace("matmul", "m", "x"), _namespace("negative", "y"),
    Call("interop.add", lambda x, y, m: interop.add(x, y), _torch(lambda x, y, m: torch.add(x, y)),
         lambda: interop.add),
    Call("interop.mul", lambda x, y, m: interop.mul(x, y), _torch(lambda x, y, m: torch.mul(x, y)),
         lambda: interop.mul),
    Call("interop.maximum", lambda x, y, m: interop.maximum(x, y),
         _torch(lambda x, y, m: torch.maximum(x, y)),
         lambda: interop.maximum),
    Call("interop.outer", lambda x, y, m: interop.outer(x, y), _torch(lambda x, y, m: torch.outer(x, y)),
         lambda: interop.outer),
    Call("interop.sum", lambda x, y, m: interop.sum(m, dim=1),
         _torch(lambda x, y, m: torch.sum(m, dim=1)), lambda: interop.sum),
    Call("interop.cumsum", lambda x, y, m: interop.cumsum(x, dim=0),
         _torch(lambda x, y, m: torch.cumsum(x, dim=0)), lambda: interop.cumsum),
    Call("interop.where", lambda x, y, m: interop.where(x > 0, x, 2.0),
         _torch(lambda x, y, m: torch.where(x > 0, x, 2.0))),
    Call("t + t", lambda x, y, m: x + y, _torch(lambda x, y, m: x + y)),
    Call("t * 2", lambda x, y, m: x * 2, _torch(lambda x, y, m: x * 2)),
    Call("t @ t", lambda x, y, m: m @ x, _torch(lambda x, y, m: m @ x)),
    Call("-t", lambda x, y, m: -x, _torch(lambda x, y, m: -x)),
    Call("t.add", lambda x, y, m: x.add(y), _torch(lambda x, y, m: x.add(y))),
    Call("t.sum", lambda x, y, m: m.sum(), _torch(lambda x, y, m: m.sum())),
    Call("t.mean", lambda x, y, m: m.mean(dim=0), _torch(lambda x, y, m: m.mean(dim=0))),
    Call("t.exp", lambda x, y, m: x.exp(), _torch(lambda x, y, m: x.exp())),
    Call("t[0]", lambda x, y, m: m[0], _torch(lambda x, y, m: m[0])),
    Call("t[1:]", lambda x, y, m: x[1:], _torch(lambda x, y, m: x[1:])),
    Call("t.T", lambda x, y, m: m.T, _torch(lambda x, y, m: m.T)),
    Call("t.mT", lambda x, y, m: m.mT, _torch(lambda x, y, m: m.mT)),
    Call("t.real", lambda x, y, m: x.real, _torch(lambda x, y, m: x.real)),
    Call("torch.add", lambda x, y, m: torch.add(x, y), _torch(lambda x, y, m: torch.add(x, y)),
         lambda: torch.add),
    Call("torch.outer", lambda x, y, m: torch.outer(x, y), _torch(lambda x, y, m: torch.outer(x, y)),
         lambda: torch.outer),
    Call("torch.sum", lambda x, y, m: torch.sum(m, 1), _torch(lambda x, y, m: torch.sum(m, 1)),
         lambda: torch.sum),
    Call("torch.cumsum", lambda x, y, m: torch.cumsum(x, 0),
         _torch(lambda x, y, m: torch.cumsum(x, 0)), lambda: torch.cumsum),
    Call("F.relu", lambda x, y, m: torch.nn.functional.relu(x),
         _torch(lambda x, y, m: torch.nn.functional.relu(x))),
    Call("torch.maximum", lambda x, y, m: torch.maximum(x, y), _torch(lambda x, y, m: torch.maximum(x, y)),
         lambda: torch.maximum),
    *(Call(f"as_torch: {name}", _face(fn), _torch(fn), face=True) for name, fn in [
        ("torch.add", lambda x, y, m: torch.add(x, y)),
        ("torch.outer", lambda x, y, m: torch.outer(x, y)),
        ("sum", lambda x, y, m: m.sum(dim=1)),
        ("t * t", lambda x, y, m: x * y),
        ("torch.cumsum", lambda x, y, m: torch.cumsum(x, 0)),
        ("t[0]", lambda x, y, m: m[0]),
        ("t.T", lambda x, y, m: m.T),
        ("F.relu", lambda x, y, m: torch.nn.functional.relu(m)),
    ]),
]


class Sub(interop.Tensor):
    """A subclass without a hook of its own: results come back as Sub, attributes kept."""

    unit = "m"


class Hooked(interop.Tensor):
    """A subclass whose hook records the callable of each call, then runs the default."""

    seen: ClassVar[list] = []  # one log for the class, cleared before each call

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.seen.append(func)
        return super().__torch_function__(func, types, args, kwargs)


class PassThrough(interop.TorchFunctionMode):
    """A mode that sees every call and runs it unchanged."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


_KNOWN_AT_START = dict(routes.known)
VARIANTS = ["plain", "subclass", "hooked", "mode"]
_CLASSES = {"plain": interop.Tensor, "subclass": Sub, "hooked": Hooked, "mode": interop.Tensor}
_STEPS = {"ci": 20, "dev": 20, "long": 60}
_EXAMPLES = {"ci": 60, "dev": 20, "long": 600}
_PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")


def _expected(call: Call) -> np.ndarray:
    out = call.reference(X, Y, M)
    return np.asarray(out.numpy() if isinstance(out, torch.Tensor) else out)


class CallSequences(RuleBasedStateMachine):
    """One backend per sequence; each step one call from any surface, on any kind of tensor."""

    @initialize(backend=st.sampled_from(["numpy", "dask", "gpulike"]))
    def start(self, backend: str) -> None:
        """Each sequence starts from the memos as they were when this module loaded, so a
        failing sequence fails again when hypothesis replays and shortens it."""
        routes.known.clear()
        routes.known.update(_KNOWN_AT_START)
        torch_participant._cache.clear()  # noqa: SLF001 - a memo of torch callables' routes
        self.backend = backend
        self.calls: list[str] = []

    def inputs(self, variant: str) -> tuple:
        cls = _CLASSES[variant]
        return tuple(interop.tensor(a, backend=self.backend).as_subclass(cls) for a in (X, Y, M))

    @rule(call=st.sampled_from(UFUNC_CALLS), variant=st.sampled_from(VARIANTS))
    def ufunc_method(self, call: Call, variant: str) -> None:
        """A NumPy ufunc method (drawn as often as all the other calls together: their
        callables share owners, the memo's likeliest confusion)."""
        self.call(call, variant)

    @rule(call=st.sampled_from(CALLS), variant=st.sampled_from(VARIANTS))
    def call(self, call: Call, variant: str) -> None:
        if call.face and self.backend == "gpulike":
            return  # torch has no device for it (the face refuses it, tested on its own)
        self.calls.append(f"{call.name} on {variant}")
        where = " -> ".join(self.calls) + f" ({self.backend})"
        x, y, m = self.inputs(variant)
        Hooked.seen.clear()
        if variant == "mode":
            with PassThrough():
                got = call.run(x, y, m)
        else:
            got = call.run(x, y, m)
        expected = _expected(call)
        assert isinstance(got, interop.Tensor), f"{where}: got a {type(got).__name__}"
        if not call.face:
            assert type(got) is _CLASSES[variant], f"{where}: got a {type(got).__name__}"
            assert got.backend == self.backend, f"{where}: result on {got.backend}"
        if variant == "subclass" and not call.face:
            assert got.unit == "m"
        if variant == "hooked" and call.called is not None:
            assert Hooked.seen and Hooked.seen[0] == call.called(), (
                f"{where}: the hook was handed {Hooked.seen[:1]}, not {call.called()}")
        values = to_numpy(got)
        assert values.shape == expected.shape, f"{where}: shape {values.shape} != {expected.shape}"
        np.testing.assert_allclose(values, expected, rtol=1e-12, err_msg=where)


CallSequences.TestCase.settings = settings(max_examples=_EXAMPLES.get(_PROFILE, 10),
                                           stateful_step_count=_STEPS.get(_PROFILE, 12),
                                           deadline=None)
TestCallSequences = CallSequences.TestCase


@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.maximum])
@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_ufunc_method_after_every_other(ufunc, backend, variant):
    """The regression the machine above was written for, in every order, deterministically:
    each method of a ufunc right after each other method of the same ufunc."""
    calls = [c for c in _ufunc_calls(ufunc)]
    for first in calls:
        for second in calls:
            machine = CallSequences()
            machine.start(backend)
            machine.call(first, variant)
            machine.call(second, variant)
