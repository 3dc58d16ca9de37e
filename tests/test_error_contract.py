"""The error contract (docs/errors.md), one row per mistake, on every backend.

Each row makes one mistake through interop and, where the mistake exists
there, the same mistake through the reference library of that surface:
torch for the torch surface (interop functions, Tensor methods, operators,
indexing), NumPy for the NumPy surface.  Both run in the test, and interop's
exception must be an instance of the nearest built-in class of the
reference's exception (``AxisError`` -> ``ValueError``, torch's
``RuntimeError`` -> ``RuntimeError``), so an ``except`` clause written for
the reference library catches interop's error too.

Messages: an error interop raises names the operation, the offending
argument and the fix (each row lists words the message must contain).  On
the NumPy surface, an error NumPy itself raises is passed through untouched:
on the numpy backend its message must be NumPy's, word for word.
"""

from __future__ import annotations

import importlib.util
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy

torch = pytest.importorskip("torch")


@dataclass(frozen=True)
class Case:
    """One mistake: ``call(backend)`` through interop, ``reference()`` through torch or NumPy."""

    id: str
    call: Callable[[str], Any]
    reference: Callable[[], Any] | None
    words: tuple[str, ...] = ()   # in interop's message: the operation, the argument, the fix
    expected: type | None = None  # only where no reference library has the mistake
    backends: tuple[str, ...] = ("numpy", "dask")
    numpy_message: bool = False   # NumPy surface: the message is NumPy's own


def ten(data: Any, backend: str, dtype: Any = None) -> interop.Tensor:
    arr = np.asarray(data, dtype=dtype)
    chunks = {"chunks": tuple(max(1, s // 2) for s in arr.shape)} if backend == "dask" else {}
    return interop.tensor(arr, backend=backend, **chunks)


def m23(b: str) -> interop.Tensor:
    """The 2x3 float64 tensor most rows use."""
    return ten(np.arange(6.0).reshape(2, 3), b)


def T23() -> Any:
    return torch.arange(6.0, dtype=torch.float64).reshape(2, 3)


def A23() -> np.ndarray:
    return np.arange(6.0).reshape(2, 3)


def i3(b: str) -> interop.Tensor:
    return ten(np.arange(3), b)


def _setitem(t: Any, index: Any, value: Any) -> None:
    t[index] = value


def _ni_class(base: type) -> type:
    class Declines(base):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented
    return Declines


class _NoArrayFunction:
    """A NumPy participant that implements nothing: NumPy's 'nobody implements it' error."""

    def __array_function__(self, func, types, args, kwargs):
        return NotImplemented


DIM = ("dimension out of range", "range of [")          # torch's words, with the valid range
BCAST = ("broadcast", "unsqueeze or reshape")
OOB = ("out of bounds", "must lie in")

CASES = [
    # --- ragged or non-numeric data
    Case("ragged", lambda b: interop.tensor([[1, 2], [3]], backend=b),
         lambda: torch.tensor([[1, 2], [3]]), ("interop.tensor", "ragged", "pad")),
    Case("strings", lambda b: interop.tensor(["a", "b"], backend=b),
         lambda: torch.tensor(["a", "b"]), ("interop.tensor", "strings", "convert")),
    Case("objects", lambda b: interop.tensor([object()], backend=b),
         lambda: torch.tensor([object()]), ("interop.tensor", "object", "convert")),
    Case("none", lambda b: interop.tensor(None, backend=b),
         lambda: torch.tensor(None), ("interop.tensor", "object", "convert")),
    Case("dict", lambda b: interop.tensor({}, backend=b),
         lambda: torch.tensor({}), ("interop.tensor", "object", "convert")),
    Case("string-ndarray", lambda b: interop.tensor(np.array(["x"]), backend=b),
         lambda: torch.tensor(["x"]), ("interop.tensor", "strings", "convert")),
    # --- unsupported dtype
    Case("dtype-unknown-name", lambda b: interop.tensor([1.0], dtype="float99", backend=b),
         lambda: torch.tensor([1.0], dtype="float99"), ("dtype", "float99", "interop.float32")),
    Case("zeros-dtype-unknown", lambda b: interop.zeros(2, dtype="foo", backend=b),
         lambda: torch.zeros(2, dtype="foo"), ("dtype", "foo", "interop.float32")),
    Case("bitwise-and-float", lambda b: interop.bitwise_and(m23(b), m23(b)),
         lambda: torch.bitwise_and(T23(), T23()), ("bitwise_and", "float64", "convert")),
    Case("invert-float", lambda b: ~m23(b), lambda: ~T23(), ("bitwise_not", "float64", "convert")),
    Case("and-operator-float", lambda b: m23(b) & m23(b), lambda: T23() & T23(),
         ("bitwise_and", "float64", "convert")),
    Case("shift-float", lambda b: interop.bitwise_left_shift(m23(b), 1),
         lambda: torch.bitwise_left_shift(T23(), 1), ("bitwise_left_shift", "float", "convert")),
    Case("mean-int", lambda b: i3(b).mean(), lambda: torch.arange(3).mean(),
         ("mean", "int64", "dtype=")),
    Case("std-int", lambda b: i3(b).std(), lambda: torch.arange(3).std(), ("std", "int64", "dtype")),
    Case("add_-cast", lambda b: i3(b).add_(1.5), lambda: torch.arange(3).add_(1.5),
         ("add_", "int64", "out of place")),
    Case("int-floordiv-zero", lambda b: i3(b) // 0, lambda: torch.arange(3) // 0,
         ("floor_divide", "division by zero", "floating"), backends=("numpy",)),
    Case("int-remainder-zero", lambda b: interop.remainder(i3(b), 0),
         lambda: torch.remainder(torch.arange(3), 0),
         ("remainder", "division by zero", "floating"), backends=("numpy",)),
    # --- out-of-range dim
    Case("sum-dim", lambda b: interop.sum(m23(b), dim=5), lambda: torch.sum(T23(), dim=5),
         ("sum", *DIM)),
    Case("mean-dim-neg", lambda b: m23(b).mean(dim=-3), lambda: T23().mean(dim=-3), ("mean", *DIM)),
    Case("prod-dim", lambda b: m23(b).prod(2), lambda: T23().prod(2), ("prod", *DIM)),
    Case("amax-dim", lambda b: interop.amax(m23(b), dim=(0, 4)), lambda: torch.amax(T23(), dim=(0, 4)),
         ("amax", *DIM)),
    Case("var-dim", lambda b: m23(b).var(dim=3), lambda: T23().var(dim=3), ("var", *DIM)),
    Case("argmax-dim", lambda b: m23(b).argmax(4), lambda: T23().argmax(4), ("argmax", *DIM)),
    Case("cumsum-dim", lambda b: m23(b).cumsum(4), lambda: T23().cumsum(4), ("cumsum", *DIM)),
    Case("cat-dim", lambda b: interop.cat([m23(b), m23(b)], dim=2),
         lambda: torch.cat([T23(), T23()], dim=2), ("cat", *DIM)),
    Case("transpose-dim", lambda b: m23(b).transpose(0, 3), lambda: T23().transpose(0, 3),
         ("transpose", *DIM)),
    Case("unsqueeze-dim", lambda b: m23(b).unsqueeze(4), lambda: T23().unsqueeze(4),
         ("unsqueeze", *DIM)),
    Case("squeeze-dim", lambda b: m23(b).squeeze(4), lambda: T23().squeeze(4), ("squeeze", *DIM)),
    Case("flip-dim", lambda b: m23(b).flip(4), lambda: T23().flip(4), ("flip", *DIM)),
    Case("sort-dim", lambda b: m23(b).sort(4), lambda: T23().sort(4), ("sort", *DIM),
         backends=("numpy",)),
    Case("split-dim", lambda b: m23(b).split(1, 5), lambda: T23().split(1, 5), ("split", *DIM)),
    Case("movedim-dim", lambda b: m23(b).movedim(0, 5), lambda: T23().movedim(0, 5),
         ("movedim", *DIM)),
    Case("unbind-dim", lambda b: m23(b).unbind(2), lambda: T23().unbind(2), ("unbind", *DIM)),
    Case("dim-not-int", lambda b: interop.sum(m23(b), dim="a"), lambda: torch.sum(T23(), dim="a"),
         ("sum", "dim", "int")),
    # --- non-broadcastable shapes and sizes that do not fit
    Case("add-broadcast", lambda b: interop.add(m23(b), ten(np.ones(4), b)),
         lambda: torch.add(T23(), torch.ones(4, dtype=torch.float64)), ("add", *BCAST)),
    Case("operator-broadcast", lambda b: m23(b) + ten(np.ones(4), b),
         lambda: T23() + torch.ones(4, dtype=torch.float64), ("add", *BCAST)),
    Case("mul-broadcast", lambda b: m23(b) * ten(np.ones((3, 2)), b),
         lambda: T23() * torch.ones(3, 2, dtype=torch.float64), ("mul", *BCAST)),
    Case("sub-broadcast-int", lambda b: ten(np.ones((2, 3), int), b) - ten(np.ones(2, int), b),
         lambda: torch.ones(2, 3, dtype=torch.int64) - torch.ones(2, dtype=torch.int64),
         ("sub", *BCAST)),
    Case("where-broadcast", lambda b: interop.where(m23(b) > 1, m23(b), ten(np.ones(4), b)),
         lambda: torch.where(T23() > 1, T23(), torch.ones(4, dtype=torch.float64)),
         ("where", *BCAST)),
    Case("maximum-broadcast", lambda b: interop.maximum(m23(b), ten(np.ones(4), b)),
         lambda: torch.maximum(T23(), torch.ones(4, dtype=torch.float64)), ("maximum", *BCAST)),
    Case("eq-broadcast", lambda b: m23(b) == ten(np.ones(4), b),
         lambda: T23() == torch.ones(4, dtype=torch.float64), ("eq", *BCAST)),
    Case("matmul-shapes", lambda b: m23(b) @ m23(b), lambda: T23() @ T23(),
         ("mat1", "2x3", "multiplied")),
    Case("mm-shapes", lambda b: interop.mm(m23(b), m23(b)), lambda: torch.mm(T23(), T23()),
         ("mat1", "2x3", "multiplied")),
    Case("cat-shapes", lambda b: interop.cat([m23(b), m23(b).T]), lambda: torch.cat([T23(), T23().T]),
         ("cat", "shapes", "check the arguments")),
    Case("stack-shapes", lambda b: interop.stack([m23(b), m23(b).T]),
         lambda: torch.stack([T23(), T23().T]), ("stack", "shape", "check the arguments")),
    Case("reshape-size", lambda b: m23(b).reshape(4), lambda: T23().reshape(4),
         ("reshape", "size", "same number of elements")),
    Case("view-size", lambda b: m23(b).view(5), lambda: T23().view(5),
         ("view", "size", "same number of elements")),
    Case("expand-shape", lambda b: m23(b).expand(3, 3), lambda: T23().expand(3, 3),
         ("expand", *BCAST)),
    Case("broadcast_to-shape", lambda b: interop.broadcast_to(m23(b), (3, 3)),
         lambda: torch.broadcast_to(T23(), (3, 3)), ("broadcast_to", *BCAST)),
    Case("setitem-shape", lambda b: _setitem(m23(b), 0, ten(np.ones(4), b)),
         lambda: _setitem(T23(), 0, torch.ones(4, dtype=torch.float64)), ("setitem", *BCAST),
         backends=("numpy",)),
    Case("narrow-length", lambda b: m23(b).narrow(0, 1, 5), lambda: T23().narrow(0, 1, 5),
         ("narrow", "length", "at most 1")),
    Case("narrow-start", lambda b: m23(b).narrow(0, 5, 1), lambda: T23().narrow(0, 5, 1),
         ("narrow", "start", "count start")),
    Case("chunk-zero", lambda b: m23(b).chunk(0), lambda: T23().chunk(0),
         ("chunk", "chunks", "1 or more")),
    Case("topk-k", lambda b: m23(b).topk(5), lambda: T23().topk(5), ("topk", "k=5", "size 3"),
         backends=("numpy",)),
    Case("permute-repeated", lambda b: m23(b).permute(0, 0), lambda: T23().permute(0, 0),
         ("permute", "repeated dim", "(0, 0)")),
    Case("item-many", lambda b: m23(b).item(), lambda: T23().item(),
         ("item", "6 elements", "t.sum().item()")),
    Case("float-many", lambda b: float(m23(b)), lambda: float(T23()),
         ("float", "6 elements", "t.sum().item()")),
    Case("int-many", lambda b: int(m23(b)), lambda: int(T23()),
         ("int", "6 elements", "t.sum().item()")),
    Case("bool-many", lambda b: bool(m23(b)), lambda: bool(T23()), ("boolean value", ".any()")),
    Case("zeros-negative", lambda b: interop.zeros(-1, backend=b), lambda: torch.zeros(-1),
         ("zeros", "size [-1]", "0 or more")),
    Case("arange-step-zero", lambda b: interop.arange(0, 5, 0, backend=b),
         lambda: torch.arange(0, 5, 0), ("arange", "step", "nonzero")),
    # --- bad index
    Case("index-int", lambda b: m23(b)[5], lambda: T23()[5],
         ("t[index]", "index 5", "valid indices are -2 to 1")),
    Case("index-negative", lambda b: m23(b)[-5], lambda: T23()[-5],
         ("t[index]", "index -5", "valid indices are -2 to 1")),
    Case("index-second-dim", lambda b: m23(b)[0, 7], lambda: T23()[0, 7],
         ("t[index]", "index 7", "valid indices are -3 to 2")),
    Case("index-too-many", lambda b: m23(b)[0, 0, 0], lambda: T23()[0, 0, 0],
         ("t[index]", "too many indices", "at most 2")),
    Case("index-float", lambda b: m23(b)[1.5], lambda: T23()[1.5],
         ("t[index]", "float", "int(")),
    Case("index-str", lambda b: m23(b)["a"], lambda: T23()["a"], ("t[index]", "str", "int(")),
    Case("index-list", lambda b: m23(b)[[0, 5]], lambda: T23()[[0, 5]],
         ("t[index]", "index 5", *OOB[1:]), backends=("numpy",)),
    Case("setitem-index", lambda b: _setitem(m23(b), 5, 1.0), lambda: _setitem(T23(), 5, 1.0),
         ("t[index] = value", "index 5", "valid indices"), backends=("numpy",)),
    Case("index_select-index", lambda b: interop.index_select(m23(b), 0, ten([5], b)),
         lambda: torch.index_select(T23(), 0, torch.tensor([5])), ("index_select", "index 5", *OOB[1:]),
         backends=("numpy",)),
    Case("gather-index", lambda b: interop.gather(m23(b), 1, ten([[5]], b)),
         lambda: torch.gather(T23(), 1, torch.tensor([[5]])), ("gather", "index 5", "[0, 2]"),
         backends=("numpy",)),
    Case("take-index", lambda b: interop.take(m23(b), ten([50], b)),
         lambda: torch.take(T23(), torch.tensor([50])), ("take", "index 50", *OOB[1:]),
         backends=("numpy",)),
    Case("index-0d", lambda b: ten(1.0, b)[0], lambda: torch.tensor(1.0)[0],
         ("t[index]", "too many indices", "at most 0")),
    # --- unknown backend, devices, missing backends
    Case("unknown-backend", lambda b: interop.tensor([1.0], backend="jaxx"), None,
         ("unknown backend", "jaxx", "'numpy', 'cupy', 'dask'"), expected=ValueError, backends=("numpy",)),
    Case("unknown-default-backend", lambda b: interop.set_default_backend("jaxx"), None,
         ("unknown backend", "jaxx", "'numpy', 'cupy', 'dask'"), expected=ValueError, backends=("numpy",)),
    Case("unknown-device", lambda b: interop.tensor([1.0], device="tpu"),
         lambda: np.asarray([1.0], device="tpu"), ("device", "tpu", "'cpu', 'cuda'"),
         backends=("numpy",)),
    # --- the NumPy surface: NumPy's own errors pass through; interop's follow the contract
    Case("np-add-broadcast", lambda b: np.add(m23(b), np.ones(4)), lambda: np.add(A23(), np.ones(4)),
         numpy_message=True),
    Case("np-sum-axis", lambda b: np.sum(m23(b), axis=5), lambda: np.sum(A23(), axis=5),
         numpy_message=True),
    Case("np-argmax-axis", lambda b: np.argmax(m23(b), axis=2), lambda: np.argmax(A23(), axis=2),
         numpy_message=True),
    Case("np-expand_dims-axis", lambda b: np.expand_dims(m23(b), 4),
         lambda: np.expand_dims(A23(), 4), numpy_message=True),
    Case("np-concatenate-shapes", lambda b: np.concatenate([m23(b), m23(b).T]),
         lambda: np.concatenate([A23(), A23().T]), numpy_message=True),
    Case("np-stack-shapes", lambda b: np.stack([m23(b), m23(b)[0]]),
         lambda: np.stack([A23(), A23()[0]]), numpy_message=True),
    Case("np-matmul-shapes", lambda b: np.matmul(m23(b), m23(b)), lambda: np.matmul(A23(), A23()),
         numpy_message=True),
    Case("np-reshape-size", lambda b: np.reshape(m23(b), 4), lambda: np.reshape(A23(), 4),
         numpy_message=True, backends=("numpy",)),
    Case("np-take-index", lambda b: np.take(m23(b), [50]), lambda: np.take(A23(), [50]),
         numpy_message=True),
    Case("np-add-string", lambda b: np.add(m23(b), "a"), lambda: np.add(A23(), "a"),
         numpy_message=True),
    Case("np-mean-repeated-axis", lambda b: np.mean(m23(b), axis=(0, 0)),
         lambda: np.mean(A23(), axis=(0, 0)), numpy_message=True),
    Case("np-add-out-cast", lambda b: np.add(m23(b), 1.5, out=ten(np.zeros((2, 3), int), b)),
         lambda: np.add(A23(), 1.5, out=np.zeros((2, 3), int)), numpy_message=True),
    Case("np-add-at-index", lambda b: np.add.at(m23(b), [5], 1.0),
         lambda: np.add.at(A23(), [5], 1.0), numpy_message=True, backends=("numpy",)),
    Case("np-asarray-copy-false", lambda b: np.asarray(m23(b), dtype=np.int32, copy=False),
         lambda: np.asarray(A23(), dtype=np.int32, copy=False)),
    # --- a function the backend lacks, and overrides that all decline
    Case("np-function-dask-lacks", lambda b: np.kron(m23(b), m23(b)),
         lambda: np.kron(_NoArrayFunction(), _NoArrayFunction()),
         ("numpy.kron", "dask backend", "t.numpy()"), backends=("dask",)),
    Case("np-out-other-backend", lambda b: np.add(m23(b), 1.0, out=np.zeros((2, 3))),
         None, ("numpy.add", "out=", "interop.as_tensor(out)"), expected=TypeError,
         backends=("dask",)),
    Case("overrides-all-decline", lambda b: interop.add(m23(b).as_subclass(_ni_class(interop.Tensor)), 1),
         lambda: torch.add(T23().as_subclass(_ni_class(torch.Tensor)), 1),
         ("interop.add", "declines", "no implementation found")),
    Case("overrides-all-decline-operator",
         lambda b: m23(b).as_subclass(_ni_class(interop.Tensor)) + 1,
         lambda: T23().as_subclass(_ni_class(torch.Tensor)) + 1,
         ("unsupported operand", "declines", "'int'")),
    Case("overrides-all-decline-method",
         lambda b: m23(b).as_subclass(_ni_class(interop.Tensor)).sum(),
         lambda: T23().as_subclass(_ni_class(torch.Tensor)).sum(),
         ("interop.tensor.sum", "declines", "no implementation found")),
    Case("overrides-decline-numpy", lambda b: np.mean(m23(b).as_subclass(_ni_class(interop.Tensor))),
         lambda: np.sort(_NoArrayFunction()), ("numpy.mean", "declines", "no implementation found")),
    Case("unrelated-subclasses", lambda b: interop.add(m23(b).as_subclass(type("A", (interop.Tensor,), {})),
                                                       m23(b).as_subclass(type("B", (interop.Tensor,), {}))),
         lambda: torch.add(T23().as_subclass(type("A", (torch.Tensor,), {})),
                           T23().as_subclass(type("B", (torch.Tensor,), {}))),
         ("interop.add", ".a'>", "__torch_function__")),
    # --- Python protocol mistakes
    Case("len-0d", lambda b: len(ten(1.0, b)), lambda: len(torch.tensor(1.0)), ("len()", "0-d")),
    Case("iter-0d", lambda b: iter(ten(1.0, b)), lambda: iter(torch.tensor(1.0)),
         ("iteration", "0-d")),
    Case("add-string", lambda b: m23(b) + "a", lambda: T23() + "a", ("+", "'tensor'", "'str'")),
    Case("add-none", lambda b: m23(b) + None, lambda: T23() + None, ("+", "'tensor'", "nonetype")),
    Case("unknown-keyword", lambda b: interop.sum(m23(b), dimm=0), lambda: torch.sum(T23(), dimm=0),
         ("sum", "dimm", "keyword")),
    Case("missing-argument", lambda b: interop.add(m23(b)), lambda: torch.add(T23()),
         ("add", "other", "missing")),
    Case("full-fill-string", lambda b: interop.full((2,), "x", backend=b),
         lambda: torch.full((2,), "x"), ("full", "fill_value", "pass a bool, int, float")),
    # --- arguments that are not tensors where tensors go
    Case("sum-none", lambda b: interop.sum(None), lambda: torch.sum(None),
         ("sum", "argument 1", "nonetype", "pass a tensor")),
    Case("cat-none", lambda b: interop.cat([m23(b), None]), lambda: torch.cat([T23(), None]),
         ("cat", "element 1", "nonetype")),
    Case("out-list", lambda b: interop.add(m23(b), 1, out=[m23(b)]),
         lambda: torch.add(T23(), 1, out=[T23()]), ("add", "'out'", "list", "interop tensor")),
    Case("out-ndarray", lambda b: interop.add(m23(b), 1, out=A23()),
         lambda: torch.add(T23(), 1, out=A23()), ("add", "'out'", "ndarray", "as_tensor")),
    Case("tensor-generator", lambda b: interop.tensor((x for x in range(3)), backend=b),
         lambda: torch.tensor(x for x in range(3)), ("interop.tensor", "generator", "list(")),
    Case("add-generator", lambda b: interop.add(m23(b), (x for x in range(3))),
         lambda: torch.add(T23(), (x for x in range(3))), ("add", "generator", "list(")),
    # --- numbers a dtype cannot hold (torch's words: "without overflow")
    Case("tensor-int-beyond-64-bits", lambda b: interop.tensor([2 ** 70], backend=b),
         lambda: torch.tensor([2 ** 70]), ("interop.tensor", "64 bits", "float")),
    Case("add-int-beyond-64-bits", lambda b: i3(b) + 2 ** 70, lambda: torch.arange(3) + 2 ** 70,
         ("64 bits", "float")),
    Case("tensor-int8-300", lambda b: interop.tensor([300], dtype=interop.int8, backend=b),
         lambda: torch.tensor([300], dtype=torch.int8), ("interop.tensor", "int8", "dtype")),
    Case("full-int8-300", lambda b: interop.full((2,), 300, dtype=interop.int8, backend=b),
         lambda: torch.full((2,), 300, dtype=torch.int8), ("full", "int8", "wider dtype")),
    Case("full-nan-int64", lambda b: interop.full((2,), float("nan"), dtype=interop.int64, backend=b),
         lambda: torch.full((2,), float("nan"), dtype=torch.int64), ("full", "nan", "wider dtype")),
    Case("masked-fill-int8-1000", lambda b: ten([1, 2], b, "int8").masked_fill(ten([True, False], b), 1000),
         lambda: torch.tensor([1, 2], dtype=torch.int8).masked_fill(torch.tensor([True, False]), 1000),
         ("masked_fill", "int8", "overflow")),
    Case("fill-int8-1000",
         lambda b: torch.fill(ten([1, 2], b, "int8"), 1000),
         lambda: torch.fill(torch.tensor([1, 2], dtype=torch.int8), 1000),
         ("fill", "int8", "wider dtype")),
    Case("new-full-int8-1000 (NumPy's OverflowError restated)",
         lambda b: ten([1, 2], b, "int8").new_full((2,), 1000),
         lambda: torch.tensor([1, 2], dtype=torch.int8).new_full((2,), 1000),
         ("new_full", "int8", "wider dtype"), backends=("numpy",)),
    Case("empty-beyond-memory (NumPy's MemoryError restated)",
         lambda b: interop.empty(2 ** 45, backend=b), None, ("empty", "memory", "dask"),
         expected=MemoryError, backends=("numpy",)),
    Case("setitem-read-only (NumPy's ValueError restated)",
         lambda b: _setitem(interop.as_tensor(_read_only()), 0, 5.0), None,
         ("read-only", "clone()"), expected=ValueError, backends=("numpy",)),
    # --- torch's rules for numbers
    Case("int-pow-negative", lambda b: i3(b) ** -1, lambda: torch.arange(3) ** -1,
         ("negative integer powers", "float")),
    Case("add-alpha-float-int", lambda b: interop.add(i3(b), i3(b), alpha=0.5),
         lambda: torch.add(torch.arange(3), torch.arange(3), alpha=0.5), ("add", "alpha", "float")),
    Case("mean-dtype-int", lambda b: m23(b).mean(dtype=interop.int64),
         lambda: T23().mean(dtype=torch.int64), ("mean", "int64", "float32")),
    Case("reshape-minus-two", lambda b: m23(b).reshape(-2, 3), lambda: T23().reshape(-2, 3),
         ("invalid shape dimension -2", "-1")),
    Case("split-negative", lambda b: m23(b).split(-1), lambda: T23().split(-1),
         ("split", "non-negative", "-1")),
    Case("complex-lt", lambda b: ten([1j, 2], b) < ten([1j, 2], b),
         lambda: torch.tensor([1j, 2]) < torch.tensor([1j, 2]), ("lt", "complex", "abs()")),
    Case("complex-sort", lambda b: ten([1j, 2], b).sort(), lambda: torch.tensor([1j, 2]).sort(),
         ("sort", "complex", "no order")),
    Case("complex-argmax", lambda b: ten([1j, 2], b).argmax(), lambda: torch.tensor([1j, 2]).argmax(),
         ("argmax", "complex", "no order")),
    # --- data that cannot come in
    Case("big-endian", lambda b: interop.tensor(np.arange(3, dtype=">f8"), backend=b),
         lambda: torch.from_numpy(np.arange(3, dtype=">f8")), ("byte order", "newbyteorder")),
    Case("bfloat16-operand", lambda b: interop.add(m23(b), torch.ones(2, 3, dtype=torch.bfloat16)),
         None, ("bfloat16", "t.float()"), expected=TypeError),
    Case("meta-operand", lambda b: interop.add(m23(b), torch.ones(2, 3, device="meta")),
         lambda: torch.add(T23(), torch.ones(2, 3, device="meta")), ("meta", "'cpu'")),
]


def _read_only() -> np.ndarray:
    arr = np.arange(3.0)
    arr.flags.writeable = False
    return arr

def strict(device: str) -> interop.Tensor:
    """A tensor on one of array-api-strict's devices: two devices on any machine."""
    return interop.tensor(np.ones(3), backend="strict", device=device)


def _torch_two_devices() -> Any:
    return torch.ones(3) + torch.ones(3, device="meta")


DEVICE = ("same device", "strict:", ".to(")
DEVICE_CASES = [
    Case("devices-operator", lambda b: strict("strict:1") + strict("strict:2"), _torch_two_devices,
         DEVICE, backends=("numpy",)),
    Case("devices-function", lambda b: interop.add(strict("strict:1"), ten(np.ones(3), b)),
         _torch_two_devices, DEVICE),
    Case("devices-numpy-ufunc", lambda b: np.add(ten(np.ones(3), b), strict("strict:2")),
         _torch_two_devices, DEVICE),
    Case("devices-inplace", lambda b: strict("strict:1").add_(strict("strict:2")),
         _torch_two_devices, DEVICE, backends=("numpy",)),
    Case("devices-cat", lambda b: interop.cat([strict("strict:1"), strict("strict:2")]),
         lambda: torch.cat([torch.ones(3), torch.ones(3, device="meta")]), DEVICE,
         backends=("numpy",)),
]

GPU_CASES = [
    Case("mixed-devices", lambda b: interop.tensor([1.0]) + interop.tensor([1.0], device="cuda"),
         lambda: torch.ones(1) + torch.ones(1, device="meta"), ("same device", "cuda:0", ".to(")),
]


def builtin_base(exc_type: type) -> type:
    """The nearest built-in class of a library's exception (what an ``except`` names)."""
    return next(c for c in exc_type.__mro__ if c.__module__ == "builtins")


def _raise(fn: Callable[[], Any]) -> BaseException | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = fn()
            if isinstance(result, interop.Tensor):
                to_numpy(result)  # lazy Dask errors surface here
            elif isinstance(result, tuple):
                [to_numpy(r) for r in result if isinstance(r, interop.Tensor)]
        except Exception as exc:  # noqa: BLE001 - the exception is the result under test
            return exc
    return None


def _params(cases: list[Case], marks: tuple = ()) -> list:
    return [pytest.param(case, backend, id=f"{case.id}-{backend}", marks=marks)
            for case in cases for backend in case.backends]


@pytest.fixture(autouse=True)
def _restore_default_backend():
    yield
    interop.set_default_backend("numpy")


_NO_STRICT = pytest.mark.skipif(importlib.util.find_spec("array_api_strict") is None,
                                reason="needs array-api-strict (its devices)")


@pytest.mark.parametrize(("case", "backend"), [
    *_params(CASES), *_params(DEVICE_CASES, (_NO_STRICT,)),
    *_params(GPU_CASES, (pytest.mark.gpu,))])
def test_error_contract(case: Case, backend: str) -> None:
    ref = _raise(case.reference) if case.reference is not None else None
    expected = case.expected or (builtin_base(type(ref)) if ref is not None else None)
    assert expected is not None, f"{case.id}: the reference library accepts this mistake"
    got = _raise(lambda: case.call(backend))
    assert got is not None, f"{case.id} on {backend}: interop raised nothing, reference {ref!r}"
    assert isinstance(got, expected), (
        f"{case.id} on {backend}: {type(got).__name__} is not a {expected.__name__} "
        f"(reference: {ref!r}); interop's error: {got}")
    message = str(got).lower()
    missing = [w for w in case.words if w.lower() not in message]
    assert not missing, f"{case.id} on {backend}: message lacks {missing}: {got}"
    if case.numpy_message and backend == "numpy":
        assert type(got) is type(ref) and str(got) == str(ref), f"{case.id}: {got!r} != {ref!r}"


def test_table_size() -> None:
    """The issue asks for at least 60 mistakes; every class of mistake has rows."""
    assert len(CASES) >= 60
    assert len(_params(CASES)) >= 100


NOT_POSITIVE_DEFINITE = [[1.0, 2.0], [2.0, 1.0]]


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_singular_matrix_is_caught_as_numpys_and_torchs_error(backend: str) -> None:
    """torch raises torch.linalg.LinAlgError (a RuntimeError); NumPy, SciPy and scikit-learn
    catch numpy.linalg.LinAlgError: interop's error is both, on Dask too, where it comes from
    the graph when the values are read, and says so."""
    ref = _raise(lambda: torch.linalg.cholesky(torch.tensor(NOT_POSITIVE_DEFINITE)))
    assert isinstance(ref, torch.linalg.LinAlgError) and isinstance(ref, RuntimeError)
    t = ten(NOT_POSITIVE_DEFINITE, backend)
    got = _raise(lambda: interop.linalg_cholesky(t).sum().item())
    assert isinstance(got, np.linalg.LinAlgError) and isinstance(got, RuntimeError), repr(got)
    assert "positive definite" in str(got)
    if backend == "dask":
        assert "computing the Dask graph for item()" in str(got)


def test_errors_of_an_earlier_graph_task_keep_their_type() -> None:
    """A Dask task's error surfaces where the values are read; it is not restated as a
    mistake of the reading call (bool() has no shape to check)."""
    t = ten(NOT_POSITIVE_DEFINITE, "dask")
    lazy = interop.array_api.linalg.cholesky(t).sum() > 0   # builds; nothing runs
    got = _raise(lambda: bool(lazy))
    assert isinstance(got, np.linalg.LinAlgError), repr(got)
    assert "bool()" in str(got)


# ------------------------------------------------------------------ a wrong argument, named
WRONG_ARGUMENTS = {
    # (call, torch's own call, what the message says)
    "a number given None": (lambda m, t: m.threshold(t, None, 1.0),
                            "argument 2 (threshold) must be a number, not NoneType"),
    "an int given None": (lambda m, t: m.polygamma(None, t), "argument 1 (n) must be an int"),
    "a tensor given None": (lambda m, t: m.add(t, None), "argument 2 (other) must be a tensor"),
    "a list element given None": (lambda m, t: m.cat([t, None]),
                                  "element 1 of argument 1 (tensors) must be a tensor"),
    "an int given a float": (lambda m, t: m.polygamma(1.5, t), "argument 1 (n) must be an int, not float"),
    "a number given a string": (lambda m, t: m.threshold(t, "a", 1.0),
                                "argument 2 (threshold) must be a number, not str"),
    "a number given None by name": (lambda m, t: m.threshold(t, threshold=None, value=1.0),
                                    "argument 'threshold' must be a number, not NoneType"),
}


@pytest.mark.parametrize("case", WRONG_ARGUMENTS)
def test_a_wrong_argument_is_named_by_what_the_parameter_takes(case):
    """The message names the argument and what its parameter takes (from the record's
    annotations); torch refuses the same call with a TypeError too."""
    torch = pytest.importorskip("torch")
    call, says = WRONG_ARGUMENTS[case]
    t = interop.tensor(np.arange(6.0))
    with pytest.raises(TypeError, match=re.escape(says)):
        call(interop, t)
    with pytest.raises(TypeError):
        call(torch, torch.arange(6.0))


def test_none_where_the_parameter_takes_none_is_not_blamed():
    """clamp's min and nan_to_num's nan take None (torch's schema): a failure elsewhere is
    not restated as theirs, and None itself works as in torch."""
    torch = pytest.importorskip("torch")
    t = interop.tensor([np.nan, 1.0, np.inf])
    np.testing.assert_array_equal(interop.nan_to_num(t, None).numpy(),
                                  torch.nan_to_num(torch.tensor([np.nan, 1.0, np.inf]), None).numpy())
    with pytest.raises(RuntimeError, match="(?i)at least one of 'min' or 'max'"):
        interop.clamp(t, None, None)
