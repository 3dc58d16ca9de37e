"""Mixed operands on the NumPy surface: tensors with ndarrays, NumPy scalars, Python
scalars, lists, raw Dask arrays and tensors of other backends, in both orders, for
operators and functions; and one test per documented difference between the NumPy
surface and the torch surface (docs/semantics.md, "NumPy on tensors").
"""

from __future__ import annotations

import itertools
import operator

import numpy as np
import pytest

import interop
from tests.conftest import off_host, to_numpy
from tests.helpers.numpy_compare import as_tensors, assert_matches

DTYPES = ["bool", "uint8", "int8", "int32", "int64", "float32", "float64", "complex64"]
OPERATORS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
             operator.mod, operator.pow, operator.and_, operator.or_, operator.xor,
             operator.lshift, operator.rshift, operator.lt, operator.le, operator.eq,
             operator.ne, operator.gt, operator.ge, operator.matmul]


def values(dtype: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.integers(1, 4, 3) if dtype != "bool" else rng.random(3) > 0.5).astype(dtype)


def outcome(fn):
    """The result, or the exception type NumPy (or interop) raised."""
    try:
        return fn()
    except (TypeError, ValueError, ZeroDivisionError) as exc:
        return type(exc)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("op", OPERATORS, ids=lambda f: f.__name__)
def test_ndarray_op_tensor_and_tensor_op_ndarray_both_match_numpy(op, backend):
    """``a <op> t`` reaches ``Tensor.__array_ufunc__``; ``t <op> a`` calls the same ufunc:
    both are NumPy's answer (values and dtype) as a tensor, for every dtype pair; a device
    tensor refuses the host array, in both orders."""
    for dx, dy in itertools.product(DTYPES, DTYPES):
        x, y = values(dx, 1), values(dy, 2)
        if off_host(backend):
            for call in (lambda x=x, y=y: op(x, as_tensors(y, backend)),
                         lambda x=x, y=y: op(as_tensors(x, backend), y)):
                with pytest.raises(interop.DeviceMismatchError):
                    call()
            continue
        expected = outcome(lambda x=x, y=y: op(x, y))
        where = f"{op.__name__}({dx}, {dy})"
        for got in (outcome(lambda x=x, y=y: op(x, as_tensors(y, backend))),
                    outcome(lambda x=x, y=y: op(as_tensors(x, backend), y))):
            if isinstance(expected, type):
                assert got is expected or (isinstance(got, type) and issubclass(got, expected)), where
            else:
                assert_matches(got, expected, backend, where)


@pytest.mark.parametrize("scalar", [np.float64(2.5), np.float32(2.5), np.int8(3), np.int64(3),
                                    np.bool_(True), np.complex64(1 + 1j)], ids=repr)
def test_numpy_scalars_in_both_orders(scalar, backend):
    for dtype in ("int32", "float32", "float64"):
        x = values(dtype, 3)
        t = as_tensors(x, backend)
        assert_matches(scalar * t, scalar * x, backend, f"{scalar!r} * {dtype}")
        assert_matches(t * scalar, x * scalar, backend, f"{dtype} * {scalar!r}")
        assert_matches(np.subtract(scalar, t), np.subtract(scalar, x), backend)


def test_python_scalars_and_lists_in_both_orders(backend):
    """Python numbers meet a tensor's own operators in both orders (torch surface: weak
    scalars, float32 default); NumPy functions give NumPy's answer."""
    torch = pytest.importorskip("torch")
    x = values("int32", 4)
    t = as_tensors(x, backend)
    tt = torch.from_numpy(x)
    for got, ref in ((2.5 + t, 2.5 + tt), (t + 2.5, tt + 2.5), (3 - t, 3 - tt), (t * 2, tt * 2)):
        assert got.dtype == ref.numpy().dtype
        np.testing.assert_allclose(to_numpy(got), ref.numpy())
    assert_matches(np.add(t, 2.5), np.add(x, 2.5), backend)
    if off_host(backend):  # a list is host data, as an ndarray is (CuPy's ufuncs refuse it)
        for call in (lambda: np.add([1, 2, 3], t), lambda: [1, 2, 3] + t):
            with pytest.raises((interop.DeviceMismatchError, TypeError)):
                call()
        return
    assert_matches(np.add([1, 2, 3], t), np.add([1, 2, 3], x), backend)
    got = [1, 2, 3] + t
    assert isinstance(got, interop.Tensor) and got.backend == backend
    np.testing.assert_array_equal(to_numpy(got), x + [1, 2, 3])


def test_raw_dask_arrays_and_tensors_of_other_backends():
    da = pytest.importorskip("dask.array")
    x = values("float64", 5)
    t = interop.tensor(x)
    raw = da.from_array(x, chunks=2)
    for got in (np.add(raw, t), np.add(t, raw), t + raw, raw + t,
                np.add(t, interop.tensor(x, backend="dask")),
                np.concatenate([t, raw, interop.tensor(x, backend="dask")])):
        assert isinstance(got, interop.Tensor) and got.backend == "dask"
    np.testing.assert_array_equal(to_numpy(np.add(raw, t)), x + x)
    np.testing.assert_array_equal(to_numpy(raw - t), x - x)


def test_zero_dim_arrays_join_any_backend(backend):
    x = values("float32", 6)
    zero = np.array(2.0, dtype=np.float32)
    assert_matches(np.multiply(as_tensors(x, backend), zero), x * zero, backend)
    assert_matches(zero * as_tensors(x, backend), zero * x, backend)


# ------------------------------------------------------------------ documented differences
def t_(data, dtype):
    return interop.tensor(np.asarray(data, dtype=dtype))


def test_difference_int_with_float32_promotes_to_float64_on_numpy_surface():
    i, f = t_([1, 2], "int64"), t_([0.5, 1.5], "float32")
    assert np.add(i, f).dtype == np.float64
    assert interop.add(i, f).dtype == np.float32 and (i + f).dtype == np.float32


def test_difference_python_float_is_float64_on_numpy_surface():
    i = t_([1, 2], "int32")
    assert np.add(i, 2.5).dtype == np.float64
    assert (i + 2.5).dtype == np.float32


def test_difference_float_functions_of_integers():
    i = t_([1, 4], "int64")
    assert np.sqrt(i).dtype == np.float64 and np.true_divide(i, 2).dtype == np.float64
    assert i.sqrt().dtype == np.float32 and (i / 2).dtype == np.float32


def test_difference_numpy_operands_bring_numpy_rules_to_operators():
    i = t_([1, 2, 3], "int64")
    a = np.ones(3, dtype=np.float32)
    assert (i + a).dtype == (a + i).dtype == np.float64  # torch would say float32
    assert (i + interop.tensor(a)).dtype == np.float32


def test_difference_reductions_return_zero_dim_tensors():
    t = t_([1.0, 2.0], "float64")
    got = np.sum(t)
    assert isinstance(got, interop.Tensor) and got.shape == () and float(got) == 3.0
    assert isinstance(np.sum(np.array([1.0, 2.0])), np.float64)
