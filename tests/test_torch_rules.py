"""torch's rules for numbers, checked against torch on the numpy and dask backends.

Integer and complex rules where NumPy answers differently (negative integer powers,
``alpha``, wrapping Python ints, complex ordering), exact integer division, half
precision accumulation, empty reductions, and torch tensors whose conjugate or negative
bit is set.  Each case runs the same call through torch and through interop: where torch
raises, interop raises an instance of the same built-in class; otherwise values, dtype
and shape agree.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import interop
from tests.conftest import to_numpy, torch_device

torch = pytest.importorskip("torch")
F = torch.nn.functional


def builtin_base(exc_type: type) -> type:
    return next(c for c in exc_type.__mro__ if c.__module__ == "builtins")


def lib_tensor(lib, values, dtype: str, backend: str):
    """``values`` as a torch tensor (lib is torch) or an interop tensor on ``backend``."""
    arr = np.asarray(values, dtype=dtype)
    if lib is torch:
        return torch.from_numpy(arr.copy())
    chunks = {"chunks": max(1, arr.shape[0] // 2)} if backend == "dask" and arr.ndim else {}
    return interop.tensor(arr, backend=backend, **chunks)


def same_as_torch(call, backend: str) -> None:
    """``call(lib, make)`` through torch and through interop agree (or both raise alike)."""
    def outcome(lib):
        try:
            return call(lib, lambda v, dt: lib_tensor(lib, v, dt, backend))
        except Exception as exc:  # noqa: BLE001 - raising is an outcome to compare
            return exc
    expected, got = outcome(torch), outcome(interop)
    if isinstance(expected, Exception):
        if isinstance(got, interop.Tensor):
            got = _forced(got)
        assert isinstance(got, builtin_base(type(expected))), (
            f"torch raised {expected!r}; interop gave {got!r}")
        return
    assert not isinstance(got, Exception), f"interop raised {got!r}; torch gave {expected!r}"
    compare(got, expected)


def _written(t, index, value):
    t[index] = value
    return t


def _forced(t):
    try:
        return to_numpy(t)
    except Exception as exc:  # noqa: BLE001 - a Dask graph error surfaces when computed
        return exc


def compare(got, expected) -> None:
    if isinstance(expected, (tuple, list)):
        for g, e in zip(got, expected):
            compare(g, e)
        return
    if not isinstance(expected, torch.Tensor):
        assert type(got) is type(expected) and got == expected, (got, expected)
        return
    exp = expected.resolve_conj().resolve_neg().numpy()
    res = to_numpy(got)
    assert (res.dtype, res.shape) == (exp.dtype, exp.shape), (res.dtype, exp.dtype, res.shape)
    np.testing.assert_array_equal(res, exp)


# ------------------------------------------------------------------ cases: (name, call)
INTS = [5, -3, 2, 1, -1, 0]
COMPLEX = [1 + 2j, 3 - 1j, -2 + 0.5j]


def _ipow(lib, t):
    x = t(INTS, "int64")
    x **= -1
    return x


CASES = {
    # integer powers
    "int ** -1": lambda lib, t: t(INTS, "int64") ** -1,
    "int **= -1": _ipow,
    "int ** -2 function": lambda lib, t: lib.pow(t(INTS, "int32"), -2),
    "int ** tensor of negatives": lambda lib, t: t(INTS, "int64") ** t([-1, -2, 0, 3, -3, 2], "int64"),
    "int ** 2": lambda lib, t: t(INTS, "int64") ** 2,
    "float ** -1": lambda lib, t: t([2.0, 4.0], "float32") ** -1,
    # alpha
    "add alpha=0.5 int": lambda lib, t: lib.add(t(INTS, "int64"), t(INTS, "int64"), alpha=0.5),
    "sub alpha=0.5 int": lambda lib, t: lib.sub(t(INTS, "int64"), 1, alpha=0.5),
    "add alpha=2 int": lambda lib, t: lib.add(t(INTS, "int64"), t(INTS, "int64"), alpha=2),
    "add alpha=0.5 float": lambda lib, t: lib.add(t([1.0, 2.0], "float32"), 3, alpha=0.5),
    "add alpha=1j float": lambda lib, t: lib.add(t([1.0, 2.0], "float32"), 3, alpha=1j),
    "add alpha=2 bool": lambda lib, t: lib.add(t([True, False], "bool"), t([True, True], "bool"),
                                                alpha=2),
    # values an integer dtype cannot hold
    "full nan int64": lambda lib, t: lib.full((2,), float("nan"), dtype=lib.int64),
    "full inf int32": lambda lib, t: lib.full((2,), float("inf"), dtype=lib.int32),
    "full 300 uint8": lambda lib, t: lib.full((2,), 300, dtype=lib.uint8),
    "full 2.5 int64": lambda lib, t: lib.full((2,), 2.5, dtype=lib.int64),
    "full -1 int8": lambda lib, t: lib.full((2,), -1, dtype=lib.int8),
    # dtype= that cannot hold a mean
    "mean dtype int64": lambda lib, t: t([2.0, 3.0], "float32").mean(dtype=lib.int64),
    "mean dtype float64": lambda lib, t: t([2, 3], "int64").mean(dtype=lib.float64),
    # sizes
    "reshape(-2, 3)": lambda lib, t: t(np.arange(6.0), "float32").reshape(-2, 3),
    "reshape(-1, -1)": lambda lib, t: t(np.arange(6.0), "float32").reshape(-1, -1),
    "view(-3)": lambda lib, t: t(np.arange(6.0), "float32").view(-3),
    "split(-1)": lambda lib, t: t(np.arange(6.0), "float32").split(-1),
    "split(0)": lambda lib, t: t(np.arange(6.0), "float32").split(0),
    "split([-1, 7])": lambda lib, t: t(np.arange(6.0), "float32").split([-1, 7]),
    "split(4)": lambda lib, t: t(np.arange(6.0), "float32").split(4),
    # complex numbers have no order
    "complex <": lambda lib, t: t(COMPLEX, "complex64") < t(COMPLEX, "complex64"),
    "complex ge": lambda lib, t: lib.ge(t(COMPLEX, "complex64"), 0),
    "float < 2j": lambda lib, t: t([1.0, 2.0], "float32") < 2j,
    "complex max": lambda lib, t: t(COMPLEX, "complex64").max(),
    "complex max dim": lambda lib, t: t(COMPLEX, "complex64").max(0),
    "complex amin": lambda lib, t: lib.amin(t(COMPLEX, "complex64")),
    "complex maximum": lambda lib, t: lib.maximum(t(COMPLEX, "complex64"), t(COMPLEX, "complex64")),
    "complex argmax": lambda lib, t: t(COMPLEX, "complex64").argmax(),
    "complex clamp": lambda lib, t: t(COMPLEX, "complex64").clamp(0, 1),
    "complex sort": lambda lib, t: t(COMPLEX, "complex64").sort(),
    "complex argsort": lambda lib, t: lib.argsort(t(COMPLEX, "complex64")),
    "complex topk": lambda lib, t: lib.topk(t(COMPLEX, "complex64"), 1),
    "complex sign": lambda lib, t: t(COMPLEX, "complex64").sign(),
    "complex floor": lambda lib, t: lib.floor(t(COMPLEX, "complex64")),
    "complex relu": lambda lib, t: F.relu(t(COMPLEX, "complex64")),
    "complex hardtanh": lambda lib, t: F.hardtanh(t(COMPLEX, "complex64")),
    "complex sgn": lambda lib, t: lib.sgn(t(COMPLEX, "complex64")),
    "complex ==": lambda lib, t: t(COMPLEX, "complex64") == t(COMPLEX, "complex64"),
    # Python ints wrap into the tensor's integer dtype
    "int8 + 1000": lambda lib, t: t([100, -100, 5], "int8") + 1000,
    "1000 + int8": lambda lib, t: 1000 + t([100, -100, 5], "int8"),
    "int8 - 1000": lambda lib, t: lib.sub(t([100, -100, 5], "int8"), 1000),
    "int8 * 1000": lambda lib, t: t([100, -100, 5], "int8") * 1000,
    "int32 + 2**40": lambda lib, t: t([1, 2], "int32") + 2 ** 40,
    "uint8 + 300": lambda lib, t: lib.add(t([1, 2], "uint8"), 300),
    "int8 add alpha=1000": lambda lib, t: lib.add(t([1, 2], "int8"), t([1, 1], "int8"), alpha=1000),
    "int8 + 1000.0": lambda lib, t: t([100, -100], "int8") + 1000.0,
    "int8 == 1000": lambda lib, t: t([-24, 1], "int8") == 1000,
    "int8 < 1000": lambda lib, t: t([-24, 1], "int8") < 1000,
    "int64 + 2**40": lambda lib, t: t([1, 2], "int64") + 2 ** 40,
    # exact integer division
    "div trunc 2**62+1": lambda lib, t: lib.div(t([2 ** 62 + 1, -(2 ** 62) - 1], "int64"), 1,
                                                rounding_mode="trunc"),
    "div trunc signs": lambda lib, t: lib.div(t([7, -7, 7, -7, 6], "int64"),
                                              t([2, 2, -2, -2, 3], "int64"), rounding_mode="trunc"),
    "div trunc big by 3": lambda lib, t: lib.div(t([2 ** 62 + 1], "int64"), 3, rounding_mode="trunc"),
    "div floor 2**62+1": lambda lib, t: lib.div(t([2 ** 62 + 1], "int64"), 1, rounding_mode="floor"),
    # half precision accumulates in float
    "float16 cumsum": lambda lib, t: t(np.ones(4096), "float16").cumsum(0)[-1],
    "float16 sum": lambda lib, t: t(np.ones(4096), "float16").sum(),
    "float16 mean": lambda lib, t: t(np.full(5000, 0.5), "float16").mean(),
    # empty reductions
    "logsumexp empty dim": lambda lib, t: t(np.zeros((2, 0)), "float32").logsumexp(1),
    "logsumexp empty keepdim": lambda lib, t: lib.logsumexp(t(np.zeros((0, 3)), "float32"), 0,
                                                            keepdim=True),
    # values put into a tensor by t[i] = v, and indices, beyond what their dtype holds
    "setitem 2**70 into int64": lambda lib, t: _written(t([0, 0], "int64"), 0, 2 ** 70),
    "setitem 2**70 into float32": lambda lib, t: _written(t([0, 0], "float32"), 0, 2 ** 70),
    "setitem 1000 into int8": lambda lib, t: _written(t([0, 0], "int8"), 0, 1000),
    "setitem nan into int64": lambda lib, t: _written(t([0, 0], "int64"), 1, float("nan")),
    "setitem -1 into uint8": lambda lib, t: _written(t([0, 0], "uint8"), 0, -1),
    "setitem 2.5 into int64": lambda lib, t: _written(t([0, 0], "int64"), 0, 2.5),
    "setitem 1e300 into float32": lambda lib, t: _written(t([0, 0], "float32"), 0, 1e300),
    "setitem 1j into float32": lambda lib, t: _written(t([0, 0], "float32"), 0, 1j),
    "getitem index 2**63": lambda lib, t: t([1, 2, 3], "int64")[2 ** 63],
    "setitem index -2**63 - 1": lambda lib, t: _written(t([1, 2], "int64"), -2 ** 63 - 1, 0),
    # where of Python numbers: torch's dtype for them (the default float, int64, bool)
    "where two floats": lambda lib, t: lib.where(t([True, False], "bool"), 1.0, 2.0),
    "where two ints": lambda lib, t: lib.where(t([True, False], "bool"), 1, -2),
    "where int tensor and float": lambda lib, t: lib.where(t([True, False], "bool"),
                                                           t([1, 2], "int32"), 2.5),
    # Python values
    "equal is a bool": lambda lib, t: t([1, 2], "int64").equal(t([1, 2], "int64")),
    "equal shapes differ": lambda lib, t: t([1, 2], "int64").equal(t([1], "int64")),
    "equal function": lambda lib, t: lib.equal(t([1, 2], "int64"), t([1, 3], "int64")),
    "allclose is a bool": lambda lib, t: t([1.0], "float32").allclose(t([1.0], "float32")),
}


@pytest.mark.parametrize("name", CASES)
def test_number_rules_match_torch(name, backend):
    same_as_torch(CASES[name], backend)


@given(values=st.lists(st.integers(-128, 127), min_size=1, max_size=6),
       scalar=st.integers(-(2 ** 63), 2 ** 63 - 1),
       dtype=st.sampled_from(["int8", "int16", "int32", "uint8", "int64"]),
       op=st.sampled_from(["add", "sub", "mul"]))
def test_python_ints_wrap_like_torch(values, scalar, dtype, op, backend):
    """Any int64 Python scalar combines with any integer dtype as torch does (wraps)."""
    if dtype == "uint8":
        values = [v % 256 for v in values]
    same_as_torch(lambda lib, t: getattr(lib, op)(t(values, dtype), scalar), backend)


@given(a=st.lists(st.integers(-(2 ** 63), 2 ** 63 - 1), min_size=1, max_size=5),
       b=st.integers(-(2 ** 63), 2 ** 63 - 1).filter(bool),
       mode=st.sampled_from(["trunc", "floor"]))
def test_integer_division_is_exact(a, b, mode, backend):
    if b == -1 and -(2 ** 63) in a:
        return  # overflow: undefined in C, torch gives what the hardware does
    same_as_torch(lambda lib, t: lib.div(t(a, "int64"), b, rounding_mode=mode), backend)


# ------------------------------------------------------------------ conjugate and negative bits
def _flagged():
    """torch tensors whose values are not what their memory holds."""
    c = torch.tensor([1 + 2j, 3 - 1j, -2 + 0.5j])
    return {"conj": c.conj(), "neg": torch._neg_view(torch.tensor([1.0, -2.0, 3.0])),
            "conj().imag": c.conj().imag, "conj of a slice": torch.cat([c, c])[1:4].conj()}


@pytest.mark.parametrize("name", list(_flagged()))
def test_conj_and_neg_views_come_in_with_their_values(name, backend):
    flagged = _flagged()[name]
    assert flagged.is_conj() or flagged.is_neg()
    truth = flagged.resolve_conj().resolve_neg().numpy()
    np.testing.assert_array_equal(to_numpy(interop.tensor(flagged, backend=backend)), truth)
    np.testing.assert_array_equal(to_numpy(interop.as_tensor(flagged)), truth)
    t = interop.tensor(np.ones(3, dtype=truth.dtype), backend=backend)
    operand = flagged.to(torch_device(backend))  # a torch operand where t is
    np.testing.assert_array_equal(to_numpy(torch.add(t, operand)), 1 + truth)
    np.testing.assert_array_equal(to_numpy(interop.add(t, operand)), (torch.ones(3) + flagged).numpy())


PROMOTED = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
            "float16", "float32", "float64", "complex64"]


@pytest.mark.parametrize("b", PROMOTED)
@pytest.mark.parametrize("a", PROMOTED)
def test_promotion_of_uint16_to_64_refuses_as_torch_where_the_standard_has_no_answer(
        a, b, backend):
    """torch promotes uint16, uint32 and uint64 with real floating dtypes only. Where the
    standard has no answer either (uint64 with a signed integer: NumPy's float64; bool or
    complex with them), interop refuses as torch: promote_types, result_type of a tensor with
    a tensor or a 0-d tensor, and the operator. Where the standard has one (int8 with
    uint16), the tensor, also the standard's array, gives array-api-strict's; elsewhere
    torch's dtype."""
    strict = pytest.importorskip("array_api_strict")

    def outcome(lib, call):
        try:
            return call(lib)
        except Exception as exc:  # noqa: BLE001 - raising is an outcome to compare
            return type(exc)
    standard = outcome(strict, lambda lib: lib.result_type(getattr(lib, a), getattr(lib, b))) \
        if "float16" not in a + b else TypeError
    for call in (lambda lib: lib.promote_types(getattr(lib, a), getattr(lib, b)),
                 lambda lib: lib.result_type(lib_tensor(lib, [1, 0], a, backend),
                                             lib_tensor(lib, [1, 1], b, backend)),
                 lambda lib: lib.result_type(lib_tensor(lib, [1, 0], a, backend),
                                             lib_tensor(lib, 1, b, backend))):
        expected, got = outcome(torch, call), outcome(interop, call)
        if expected == torch.complex32:
            continue  # (float16 with a 0-d complex: torch's complex32, which NumPy lacks)
        if isinstance(expected, type) and isinstance(standard, type):
            assert isinstance(got, type) and issubclass(got, builtin_base(expected)), (a, b)
        elif isinstance(expected, type):
            assert str(got) == str(standard).rsplit(".", 1)[-1], (a, b)
        else:
            assert got == getattr(interop, str(expected).removeprefix("torch.")), (a, b)
    refused = isinstance(outcome(torch, lambda lib: lib.promote_types(getattr(lib, a),
                                                                       getattr(lib, b))), type)
    if refused and isinstance(standard, type):
        with pytest.raises(RuntimeError, match="Promotion for uint16, uint32, uint64"):
            lib_tensor(interop, [1, 0], a, backend) + lib_tensor(interop, [1, 1], b, backend)
