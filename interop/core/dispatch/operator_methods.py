"""Python's operators on tensors: ``t + x``, ``x + t``, ``t += x``, ``-t``.

One factory makes each dunder from its route and the operator table's row
(``interop.ops.operators``): plain operands take the raw shortcut, NumPy operands follow
NumPy's rule (``t + ndarray`` calls the ufunc ``ndarray + t`` calls), everything else
the table entry through the protocol.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...backends import registry
from .. import torch_function as tf
from ..tensor import Tensor, make
from .callables import active, call, default_handler, dispatch, publish
from .routes import Route
from .shortcuts import fits_int, raw_shortcut
from .wrapping import new_object, raw_backends


def make_operator(route: Route, passed: Callable | None, dunder: str,
                  fast: Callable | None = None, kinds: str = "", swap: bool = False,
                  numpy: Callable | None = None) -> Callable:
    """``t + x`` and friends; ``passed`` is the callable handlers see (torch's choice:
    ``Tensor.add`` for ``t + 1``, ``Tensor.__rsub__`` for ``1 - t``; docs/protocols.md).

    ``numpy(t, operand)``: with a NumPy array or scalar operand, the ufunc that
    ``operand <op> t`` would call (NumPy's binop rule sends ``ndarray + t`` to
    ``np.add(a, t)``), so both orders give NumPy's values and dtype.

    ``fast(a, b)`` computes on raw arrays directly when both operands are plain
    tensors (or a Python number) of one backend and one dtype of a kind in
    ``kinds``: there NumPy's and torch's result dtypes agree, so the shortcut
    gives the same answer as the table entry.  Unknown operand types and
    unrelated-subclass clashes give NotImplemented, so Python tries the other
    operand and then raises its usual ``unsupported operand`` error.  A
    TypeError raised *by a handler* propagates unchanged (torch would swallow
    it, and ``==`` would silently be False: a known pitfall).
    """
    run = route.run

    def slow(self: Any, other: Any, hooked: bool = False) -> Any:
        if numpy is not None and (type(other) is np.ndarray or isinstance(other, np.generic)):
            return numpy(self, other)  # as `ndarray <op> t` would: NumPy's
        if isinstance(other, _NUMBERS) and type(other) not in _SCALARS:
            other = plain_number(other)  # an int subclass (``t.size``, an IntEnum): its value
        if not operand_ok(other):
            if type(other) is not list:
                return NotImplemented
            other = Tensor(other)
        try:  # a subclass with its own handler goes to the protocol at once
            return (dispatch if hooked else call)(passed or public, run, (self, other), {})
        except tf.NoImplementationFound:
            return NotImplemented

    def operator(self: Any, other: Any) -> Any:
        if active():
            return slow(self, other)
        cls = type(self)
        to = type(other)
        if to is cls or to is Tensor:
            if cls is not Tensor and not default_handler(cls):
                return slow(self, other, True)
            a, b = self._raw, other._raw
            raw = raw_shortcut(fast, kinds, b, a) if swap else raw_shortcut(fast, kinds, a, b)
            if raw is None:
                return slow(self, other)
        elif to is float or to is int:
            if cls is not Tensor and not default_handler(cls):
                return slow(self, other, True)
            a = self._raw
            kind = getattr(a.dtype, "kind", "?")
            if not a.ndim or kind not in kinds or not (kind in "fc" or to is int and kind != "b") \
                    or kind in "iu" and not -128 <= other < 128 and not fits_int(other, a.dtype):
                return slow(self, other)  # an int beyond the dtype: torch wraps it (promote)
            raw = fast(other, a) if swap else fast(a, other)
        else:
            return slow(self, other)
        if cls is Tensor:
            obj = new_object(Tensor)
            obj._raw = raw
            return obj
        return make(cls, raw, self)

    def unary(self: Any) -> Any:
        return call(passed or public, run, (self,), {})

    public = operator if fast is not None else (unary if dunder in _UNARY_DUNDERS else slow)
    public.__name__ = dunder
    public.__qualname__ = f"Tensor.{dunder}"
    public.__module__ = "interop"
    publish(public, route, f"interop.Tensor.{dunder}")
    return public


def operand_ok(x: Any) -> bool:
    """Types an operator accepts; anything else gets NotImplemented (Python then tries x)."""
    t = type(x)
    return (t is Tensor or t in _SCALARS or isinstance(x, (Tensor, np.generic))
            or t in raw_backends or hasattr(t, "__torch_function__")
            or registry.backend_of(x) is not None)


_SCALARS = frozenset({int, float, bool, complex})
_NUMBERS: tuple[type, ...] = (int, float, complex)


def plain_number(x: Any) -> Any:
    """The Python number an instance of a subclass of ``int``, ``float`` or ``complex`` is (the
    standard's ``t.size`` is an ``int`` that is also callable): operands take its value."""
    return next(base(x) for base in _NUMBERS if isinstance(x, base))
_UNARY_DUNDERS = frozenset({"__neg__", "__pos__", "__abs__", "__invert__"})
