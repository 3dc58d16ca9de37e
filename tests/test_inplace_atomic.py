"""Nothing half-written: every in-place form that fails leaves its target unchanged.

Index tensors are made on the target's backend (so on a device the mistake is the case's,
not a host index beside device data).

Each row is one in-place form (``add_``, ``t += x``, ``out=``, ``t[idx] = v``,
``np.add.at``, ...) with a mistake that is only found once the arguments look
valid (a result dtype that cannot be cast, a shape that only fails to
broadcast against the target, one bad entry among good ones in an index).
The test checks that it raises, and that afterwards the target holds the
same values, dtype and shape; on NumPy the target keeps its very buffer.

Dask defers what depends on data values to compute time.  There, a failure
that only the values reveal (an index inside a lazy index tensor) must
never turn into wrong numbers: computing the target raises instead.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy


def ten(data: Any, backend: str, dtype: Any = None) -> interop.Tensor:
    arr = np.asarray(data, dtype=dtype)
    chunks = {"chunks": tuple(max(1, s // 2) for s in arr.shape)} if backend == "dask" else {}
    return interop.tensor(arr, backend=backend, **chunks)


def _set(t: Any, index: Any, value: Any) -> None:
    t[index] = value


def _iadd(t: Any, x: Any) -> None:
    t += x


def _imul(t: Any, x: Any) -> None:
    t *= x


def _ifloordiv(t: Any, x: Any) -> None:
    t //= x


# id -> (target dtype, the in-place call on target t and backend b)
CASES: dict[str, tuple[str, Callable[[Any, str], Any]]] = {
    # result dtype that cannot be cast into the target
    "add_-float-into-int": ("int64", lambda t, b: t.add_(1.5)),
    "iadd-float-tensor-into-int": ("int64", lambda t, b: _iadd(t, ten(np.ones((2, 3)), b))),
    "div_-int": ("int64", lambda t, b: t.div_(2)),
    "sqrt_-int": ("int64", lambda t, b: t.sqrt_()),
    "mul_-complex-into-float": ("float64", lambda t, b: t.mul_(1j)),
    "add_-out-float-into-bool": ("bool", lambda t, b: interop.add(ten([[1.0] * 3] * 2, b), 1.0, out=t)),
    "out=-float-into-int": ("int64", lambda t, b: interop.mul(ten(np.ones((2, 3)), b), 0.5, out=t)),
    "np-out=-float-into-int": ("int64", lambda t, b: np.add(t, 1.5, out=t)),
    "np-out=-tuple-second-bad": ("int64", lambda t, b: np.divmod(ten(np.ones((2, 3)), b), 2.0,
                                                               out=(ten(np.ones((2, 3)), b), t))),
    # shapes: valid operands that do not fit the target
    "add_-grows-target": ("float64", lambda t, b: t.add_(ten(np.ones((2, 2, 3)), b))),
    "imul-not-broadcastable": ("float64", lambda t, b: _imul(t, ten(np.ones(4), b))),
    "out=-wrong-shape": ("float64", lambda t, b: interop.add(ten(np.ones(3), b), 1.0, out=t)),
    "np-out=-wrong-shape": ("float64", lambda t, b: np.add(ten(np.ones((3, 3)), b), 1.0, out=t)),
    "copy_-not-broadcastable": ("float64", lambda t, b: t.copy_(ten(np.ones(4), b))),
    "masked_fill_-mask-shape": ("float64", lambda t, b: t.masked_fill_(ten([True, False], b), 1.0)),
    "setitem-value-shape": ("float64", lambda t, b: _set(t, slice(None), ten(np.ones(4), b))),
    "np-add.reduce-out-shape": ("float64", lambda t, b: np.add.reduce(ten(np.ones((2, 3)), b),
                                                                      axis=0, out=t)),
    # values and indices: one bad entry among good ones
    "setitem-list-one-bad": ("float64", lambda t, b: _set(t, ([0, 1], [0, 7]), 9.0)),
    "setitem-array-one-bad": ("float64", lambda t, b: _set(t, np.array([0, 5]), 9.0)),
    "setitem-string-value": ("float64", lambda t, b: _set(t, 0, "abc")),
    "setitem-mixed-values": ("float64", lambda t, b: _set(t, 0, [1.0, 2.0, "x"])),
    "fill_-string": ("float64", lambda t, b: t.fill_("a")),
    "fill_-overflow-int8": ("int8", lambda t, b: t.fill_(1000)),
    "fill_-overflow-float16": ("float16", lambda t, b: t.fill_(1e10)),
    "scatter_reduce_-median": ("float64", lambda t, b: t.scatter_reduce_(
        1, ten(np.array([[0, 1, 0]]), b), ten(np.ones((1, 3)), b), reduce="median")),
    "add_-into-broadcast-view": ("float64", lambda t, b: t[:1].expand(2, 3).add_(1.0)),
    "setitem-into-broadcast-view": ("float64", lambda t, b: _set(t[:1].expand(2, 3), 0, 1.0)),
    "relu-inplace-into-broadcast-view": ("float64", lambda t, b: interop.relu(
        t[:1].expand(2, 3), inplace=True)),
    "clamp_-string": ("float64", lambda t, b: t.clamp_(min="a")),
    "bitwise_and_-float": ("float64", lambda t, b: t.bitwise_and_(1)),
    "floordiv-int-by-zero": ("int64", lambda t, b: _ifloordiv(t, 0)),
    "cumsum_-dim": ("float64", lambda t, b: t.cumsum_(5)),
    "index_add_-index-one-bad": ("float64", lambda t, b: t.index_add_(0, ten(np.array([0, 5]), b),
                                                                      ten(np.ones((2, 3)), b))),
    "scatter_-index-one-bad": ("float64", lambda t, b: t.scatter_(1, ten(np.array([[0, 9, 1]]), b), 7.0)),
    "np-add.at-index-one-bad": ("float64", lambda t, b: np.add.at(t, [0, 1, 5], 1.0)),
    "np-add.at-values-shape": ("float64", lambda t, b: np.add.at(t, ([0, 1],), np.ones(4))),
    "renorm_-negative-p": ("float64", lambda t, b: t.renorm_(p=-1, dim=0, maxnorm=1)),
    "renorm_-negative-maxnorm": ("float64", lambda t, b: t.renorm_(2, 0, -1.0)),
    "masked_fill_-vector-value": ("float64", lambda t, b: t.masked_fill_(
        ten(np.ones((2, 3), bool), b), ten([1.0], b))),
    "masked_fill_-complex-into-float": ("float64", lambda t, b: t.masked_fill_(
        ten(np.ones((2, 3), bool), b), 1j)),
    "fill_-complex-into-float": ("float64", lambda t, b: t.fill_(2 + 1j)),
    "index_add_-source-shape": ("float64", lambda t, b: t.index_add_(0, ten(np.array([0, 1]), b),
                                                                      ten(np.ones(2), b))),
    "scatter_-src-dtype": ("float64", lambda t, b: t.scatter_(1, ten(np.array([[0, 1, 2]]), b),
                                                              ten(np.ones((1, 3)), b, "float32"))),
    "np.put-index-one-bad": ("float64", lambda t, b: np.put(t, [0, 99], [1.0, 2.0])),
    "np.put_along_axis-index-one-bad": ("float64", lambda t, b: np.put_along_axis(
        t, ten(np.array([[0, 9, 1]]), b), 7.0, axis=1)),
    "np.place-too-few-values": ("float64", lambda t, b: np.place(t, np.ones((2, 3), bool), [])),
    "np-out=-lazy-inputs-refused": ("float64", lambda t, b: _refusing_computes(lambda: np.add(
        ten(np.ones((2, 3)), "dask"), 1.0, out=t))),
}

def _refusing_computes(call: Callable[[], Any]) -> Any:
    """``call()`` under ``dask_compute="raise"``: writing a lazy result into an eager out=
    tensor is a value read, refused before anything is written."""
    with interop.config(dask_compute="raise"):
        return call()


# Dask checks index values only when the graph runs (the index becomes a Dask array).
DASK_AT_COMPUTE = {"setitem-array-one-bad", "index_add_-index-one-bad", "scatter_-index-one-bad"}
DASK_SKIPS = {
    "floordiv-int-by-zero": "Dask gives NumPy's 0 here (checking would compute; docs/errors.md)",
    "np-out=-lazy-inputs-refused": "Dask inputs into a Dask out=: nothing to refuse",
}


@pytest.mark.parametrize("case", list(CASES))
def test_failed_inplace_leaves_target_unchanged(case: str, backend: str) -> None:
    dtype, mutate = CASES[case]
    if backend == "dask" and case in DASK_SKIPS:
        pytest.skip(DASK_SKIPS[case])
    t = ten(np.arange(6).reshape(2, 3), backend, dtype)
    before, raw = to_numpy(t).copy(), t.raw
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception):  # noqa: B017,PT011 - which error: tests/test_error_contract.py
            mutate(t, backend)
            if backend == "dask" and case in DASK_AT_COMPUTE:
                to_numpy(t)  # raises: never the wrong numbers Dask alone would give
    if backend == "dask" and case in DASK_AT_COMPUTE:
        return
    after = to_numpy(t)
    assert after.dtype == before.dtype and after.shape == before.shape, case
    np.testing.assert_array_equal(after, before, err_msg=case)
    if backend != "dask":
        assert t.raw is raw, f"{case}: the target lost its buffer"


TORCH_WORDS = {  # case -> (torch's call, words its message and interop's share)
    "renorm_-negative-p": (lambda r, torch: r.renorm_(p=-1, dim=0, maxnorm=1),
                           ("renorm: non-positive-norm not supported",)),
    "renorm_-negative-maxnorm": (lambda r, torch: r.renorm_(2, 0, -1.0),
                                 ("renorm: expected maxnorm to be >= 0 but got -1",)),
    "index_add_-source-shape": (
        lambda r, torch: r.index_add_(0, torch.tensor([0, 1]), torch.ones(2, dtype=r.dtype)),
        ("source tensor shape must match self tensor shape",)),
    "scatter_-src-dtype": (lambda r, torch: r.scatter_(1, torch.tensor([[0, 1, 2]]),
                                                       torch.ones(1, 3)),
                           ("Expected self.dtype to be equal to src.dtype",)),
    "masked_fill_-complex-into-float": (
        lambda r, torch: r.masked_fill_(torch.ones(2, 3, dtype=torch.bool), 1j),
        ("value cannot be converted to type", "without overflow")),
    "fill_-overflow-int8": (lambda r, torch: r.fill_(1000),
                            ("cannot be converted to type int8", "without overflow")),
    "scatter_reduce_-median": (
        lambda r, torch: r.scatter_reduce_(1, torch.tensor([[0, 1, 0]]),
                                           torch.ones(1, 3, dtype=r.dtype), reduce="median"),
        ("reduce argument must be either sum, prod, mean, amax or amin, got median",)),
}


@pytest.mark.parametrize("case", list(TORCH_WORDS))
def test_the_error_is_torchs(case: str, backend: str) -> None:
    """The same RuntimeError as torch, raised at the call (on Dask too, not at compute)."""
    torch = pytest.importorskip("torch")
    call, words = TORCH_WORDS[case]
    reference = torch.from_numpy(np.arange(6).reshape(2, 3).astype(CASES[case][0]))
    with pytest.raises(RuntimeError) as expected:
        call(reference, torch)
    t = ten(np.arange(6).reshape(2, 3), backend, CASES[case][0])
    with pytest.raises(RuntimeError) as got:
        CASES[case][1](t, backend)
    for w in words:
        assert w in str(got.value) and w in str(expected.value).replace("int8_t", "int8")


# Failures that only the values of a lazy (Dask) index reveal: raised when computed.
LAZY_INDEX_CASES: dict[str, Callable[[Any, Any], Any]] = {
    "setitem": lambda t, idx: _set(t, idx, 9.0),
    "getitem": lambda t, idx: t[idx],
    "index_add_": lambda t, idx: t.index_add_(0, idx, ten(np.ones((2, 3)), "dask")),
    "index_select": lambda t, idx: interop.index_select(t, 0, idx),
}


@pytest.mark.parametrize("case", list(LAZY_INDEX_CASES))
def test_lazy_index_out_of_range_never_gives_wrong_numbers(case: str) -> None:
    t = ten(np.arange(6.0).reshape(2, 3), "dask")
    idx = ten(np.array([0, 5]), "dask")
    with pytest.raises(IndexError):
        result = LAZY_INDEX_CASES[case](t, idx)
        to_numpy(result if isinstance(result, interop.Tensor) else t)


@pytest.mark.parametrize("case", ["add_", "iadd", "out=", "setitem", "np-add.at", "np.put",
                                  "np.put_along_axis"])
def test_successful_inplace_writes_through(case: str, backend: str) -> None:
    """The same forms succeed when the input is right (so the failures above are the mistake's)."""
    if backend == "dask" and case.startswith("np"):
        pytest.skip("Dask has no ufunc.at, np.put (tests/test_error_contract.py)")
    t = ten(np.zeros((2, 3)), backend)
    raw = t.raw
    {"add_": lambda: t.add_(1.0), "iadd": lambda: _iadd(t, 1.0),
     "out=": lambda: interop.add(ten(np.zeros((2, 3)), backend), 1.0, out=t),
     "setitem": lambda: _set(t, slice(None), 1.0),
     "np-add.at": lambda: np.add.at(t, (slice(None),), 1.0),
     "np.put": lambda: np.put(t, range(6), 1.0),
     "np.put_along_axis": lambda: np.put_along_axis(
         t, ten(np.zeros((2, 3), int) + [0, 1, 2], backend), 1.0, axis=1)}[case]()
    np.testing.assert_array_equal(to_numpy(t), np.ones((2, 3)))
    if backend != "dask":
        assert t.raw is raw


def _opdb_inplace_refusals():
    """torch's own refusals of its in-place variants (op_db's error inputs, float samples):
    (label, in-place method name, sample, torch's exception type)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("expecttest")
    from torch.testing._internal.common_methods_invocations import op_db
    found = []
    for info in op_db:
        method = getattr(info.inplace_variant, "__name__", "")
        if info.error_inputs_func is None or not hasattr(interop.Tensor, method):
            continue
        for k, error in enumerate(info.error_inputs(torch.device("cpu"))):
            sample = error.sample_input
            if isinstance(sample.input, torch.Tensor) and sample.input.dtype in (
                    torch.float32, torch.float64, torch.int64):
                found.append((f"{info.name}-{k}", method, sample, error.error_type))
    return found


def _to_interop(x: Any) -> Any:
    import torch
    if isinstance(x, torch.Tensor):
        return interop.tensor(x.numpy().copy())
    return type(x)(_to_interop(y) for y in x) if isinstance(x, (list, tuple)) else x


def test_torchs_refusals_of_inplace_variants_leave_the_target_unchanged() -> None:
    """Every in-place variant of torch's op_db, given each error input torch itself refuses:
    interop refuses it too, with torch's class, before writing anything."""
    missed = []
    for label, method, sample, error_type in _opdb_inplace_refusals():
        reference = sample.input.clone()
        try:
            getattr(reference, method)(*sample.args, **sample.kwargs)
            continue  # torch refuses this input out of place only
        except Exception:  # noqa: BLE001 - torch's refusal, of whatever class it has
            pass
        t = _to_interop(sample.input)
        before = to_numpy(t).copy()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                getattr(t, method)(*_to_interop(sample.args),
                                   **{k: _to_interop(v) for k, v in sample.kwargs.items()})
            except error_type:
                np.testing.assert_array_equal(to_numpy(t), before, err_msg=label)
                continue
            except Exception as exc:  # noqa: BLE001
                missed.append(f"{label}: {type(exc).__name__}, torch {error_type.__name__}")
                continue
        missed.append(f"{label}: wrote, where torch raises {error_type.__name__}")
    assert not missed, missed
