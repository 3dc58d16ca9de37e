"""Python's operators, one row each: ``t + x``, ``x + t``, ``t += x``, the shortcut for plain
operands and the NumPy-operand rule are all generated from this table (see ``ops.install``).

The callable handlers receive as ``func`` follows torch 2.13 (docs/protocols.md, "Operators"):
``t + 1`` passes ``Tensor.add``, ``1 - t`` passes ``Tensor.__rsub__``, ``t < 1``
passes ``Tensor.lt``, ``t += 1`` passes ``Tensor.add_``; where a row names no
method, the dunder itself is passed.
"""

from __future__ import annotations

import functools
import operator as _op
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import numpy as np

from ..core.dispatch.wrapping import raw_backends


def _remainder(a: Any, b: Any) -> Any:
    """``a % b`` by the backend's ``remainder``: NumPy's operator is it, CuPy's departs from it
    for floats (NaN for a finite ``a`` by an infinite ``b``); its backend's is NumPy's."""
    return raw_backends[type(a) if type(a) in raw_backends else type(b)].np.remainder(a, b)


class Operator(NamedTuple):
    """One binary operator and every form Python gives it."""

    entry: str  # the table entry it runs
    passed: str | None  # the Tensor method handlers see for ``t <op> x`` (None: the dunder)
    reflected_passed: str | None  # ... for ``x <op> t``
    fast: Callable | None  # the raw function for the shortcut (see dispatch.make_operator)
    kinds: str  # dtype kinds where NumPy's result equals torch's, so the shortcut is exact
    ufunc: np.ufunc  # what ``ndarray <op> t`` calls: ``t <op> ndarray`` calls it too
    reflected: bool = True  # has ``__r<op>__``
    inplace: bool = True  # has ``__i<op>__`` (the entry's in-place method)
    reflected_torch: tuple[str, ...] = ()  # torch functions that are ``__r<op>__`` (torch.rsub)


# integer // and % skip the shortcut: the table entry raises on division by zero as torch does
BINARY_OPERATORS = {
    "add": Operator("add", "add", "add", _op.add, "biufc", np.add),
    "sub": Operator("sub", "sub", None, _op.sub, "iufc", np.subtract,
                    reflected_torch=("torch.rsub",)),
    "mul": Operator("mul", "mul", "mul", _op.mul, "biufc", np.multiply),
    "truediv": Operator("div", "div", None, _op.truediv, "fc", np.true_divide),
    "floordiv": Operator("floor_divide", None, None, _op.floordiv, "f", np.floor_divide),
    "mod": Operator("remainder", "remainder", None, _remainder, "f", np.remainder),
    "pow": Operator("pow", None, None, _op.pow, "fc", np.power),
    "matmul": Operator("matmul", "matmul", None, None, "", np.matmul, inplace=False),
    "and": Operator("bitwise_and", None, None, _op.and_, "biu", np.bitwise_and),
    "or": Operator("bitwise_or", None, None, _op.or_, "biu", np.bitwise_or),
    "xor": Operator("bitwise_xor", None, None, _op.xor, "biu", np.bitwise_xor),
    "lshift": Operator("bitwise_left_shift", None, None, None, "", np.left_shift),
    "rshift": Operator("bitwise_right_shift", None, None, None, "", np.right_shift),
    "eq": Operator("eq", None, None, _op.eq, "biufc", np.equal, reflected=False, inplace=False),
    "ne": Operator("ne", None, None, _op.ne, "biufc", np.not_equal, reflected=False,
                   inplace=False),
    "lt": Operator("lt", "lt", None, _op.lt, "biuf", np.less, reflected=False, inplace=False),
    "le": Operator("le", "le", None, _op.le, "biuf", np.less_equal, reflected=False,
                   inplace=False),
    "gt": Operator("gt", "gt", None, _op.gt, "biuf", np.greater, reflected=False, inplace=False),
    "ge": Operator("ge", "ge", None, _op.ge, "biuf", np.greater_equal, reflected=False,
                   inplace=False),
}

SHORTCUTS = {row.entry: (row.fast, row.kinds) for row in BINARY_OPERATORS.values() if row.fast}
"""entry -> (fast, kinds): the operator's shortcut, which the entry's function and torch
function take too (``interop.add(t, t)``, ``torch.add(t, t)``), for the same operands."""

UNARY_OPERATORS = {"__neg__": ("neg", "neg"), "__pos__": ("positive", None),
                   "__abs__": ("abs", "abs"), "__invert__": ("bitwise_not", None)}
"""dunder -> (table entry, the Tensor method handlers see; None: the dunder)."""


class BinaryDunder(NamedTuple):
    """One generated dunder: ``__add__`` or ``__radd__``."""

    name: str
    entry: str
    passed: str | None
    swap: bool  # operands swapped: ``x <op> t`` runs ``entry(x, t)``
    fast: Callable | None
    kinds: str
    numpy: Callable  # f(tensor, numpy operand): the ufunc ``operand <op> tensor`` would call
    torch: tuple[str, ...]  # torch's names for it: torch.Tensor.<name>, and any function


def binary_dunders() -> Iterator[BinaryDunder]:
    """``__<op>__`` and ``__r<op>__`` of every binary operator."""
    for name, row in BINARY_OPERATORS.items():
        yield BinaryDunder(f"__{name}__", row.entry, row.passed, False, row.fast, row.kinds,
                           row.ufunc, (f"torch.Tensor.__{name}__",))
        if row.reflected:
            yield BinaryDunder(f"__r{name}__", row.entry, row.reflected_passed, True, row.fast,
                               row.kinds, functools.partial(_reflected, row.ufunc),
                               (f"torch.Tensor.__r{name}__", *row.reflected_torch))


def inplace_dunders() -> Iterator[tuple[str, str]]:
    """(``__i<op>__``, the table entry whose in-place method it calls)."""
    for name, row in BINARY_OPERATORS.items():
        if row.inplace:
            yield f"__i{name}__", row.entry


def _reflected(ufunc: np.ufunc, self: Any, other: Any) -> Any:
    return ufunc(other, self)
