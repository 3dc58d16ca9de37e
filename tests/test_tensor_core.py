"""The facade itself: construction, dtypes kept and inferred, default backend and dtype,
lazy imports, and the core's errors (each naming the operation and the fix)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("data", [1, 2.5, True, 1 + 2j, [1, 2], [[1.0, 2.0]], [[True]], [],
                                  np.arange(3, dtype=np.int16), np.float64(2.0)])
def test_construction_infers_dtype_as_torch(data):
    t = interop.tensor(data)
    expected = torch.tensor(data)
    assert t.dtype == expected.numpy().dtype and t.shape == tuple(expected.shape)
    np.testing.assert_array_equal(to_numpy(t), expected.numpy())
    assert interop.Tensor(data).dtype == t.dtype


def test_tensor_copies_as_tensor_shares():
    a = np.arange(4.0)
    assert not np.shares_memory(interop.tensor(a).raw, a)
    assert interop.as_tensor(a).raw is a and interop.Tensor(a).raw is a
    t = interop.as_tensor(a)
    assert interop.as_tensor(t) is t
    assert interop.as_tensor(a, dtype=interop.float32).dtype == np.float32


def test_dask_and_backend_argument():
    import dask.array as da
    d = da.ones((4, 4), chunks=2)
    t = interop.Tensor(d)
    assert t.backend == "dask" and t.raw is d
    moved = interop.tensor(np.ones(3), backend="dask", chunks=1)
    assert moved.raw.chunks == ((1, 1, 1),)
    assert interop.zeros(4, backend="dask", chunks=2).raw.chunks == ((2, 2),)
    assert interop.Tensor(moved).raw is moved.raw


def test_default_backend_setting_and_environment():
    try:
        interop.set_default_backend("dask")
        assert interop.tensor([1.0]).backend == "dask" and interop.zeros(2).backend == "dask"
        assert interop.default_backend() == "dask"
    finally:
        interop.set_default_backend("numpy")
    code = "import interop; print(interop.ones(2).backend, interop.tensor([1]).backend)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"INTEROP_BACKEND": "dask", "PATH": ""}, check=True).stdout
    assert out.split() == ["dask", "dask"]
    with pytest.raises(ValueError, match="unknown backend 'jax0'"):
        interop.set_default_backend("jax0")


def test_default_dtype_is_settable_like_torch():
    assert interop.get_default_dtype() == interop.float32
    try:
        interop.set_default_dtype(interop.float64)
        assert interop.tensor([1.5]).dtype == np.float64
        assert (interop.tensor([1, 2]) / 2).dtype == np.float64
        assert interop.ones(2).dtype == np.float64
    finally:
        interop.set_default_dtype(torch.float32)
    assert interop.tensor([1.5]).dtype == np.float32
    with pytest.raises(TypeError, match="only floating dtypes"):
        interop.set_default_dtype(interop.int64)


def test_import_loads_no_optional_backend():
    code = ("import sys, interop; t = interop.tensor([1.0, 2.0]) + 1; t.sum(); "
            "print(sorted(m for m in ('torch', 'cupy', 'dask', 'distributed') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_import_defers_what_the_first_call_needs():
    """``import interop`` loads neither array-api-compat's NumPy namespace (which imports
    numpy.f2py and numpy.testing) nor numpy.random, and reads no signature; the first call
    that needs each loads it."""
    heavy = ("array_api_compat.numpy", "numpy.f2py", "numpy.testing", "numpy.random")
    code = ("import sys, inspect, interop; import interop.array_api as xp; "
            f"print(sorted(m for m in {heavy!r} if m in sys.modules)); "
            "print(inspect.signature(interop.sum).parameters['dim'].default, "
            "list(inspect.signature(xp.sum).parameters)[0]); "
            "print(float(xp.sum(xp.asarray([1.0, 2.0]))), interop.rand(2).shape, "
            f"sorted(m for m in {heavy[:1] + heavy[3:]!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:3] == [
        "[]", "None x", "3.0 (2,) ['array_api_compat.numpy', 'numpy.random']"]


def test_dtype_objects_interchange():
    t = interop.ones(2, dtype=torch.float64)
    assert t.dtype == interop.float64 == np.float64 == interop.double
    assert interop.ones(2, dtype="long").dtype == np.int64
    assert interop.zeros(2, dtype=np.int32).dtype == interop.int
    assert interop.dtypes.result_type(np.ones(2, np.int32), 2.5) == np.float32


@pytest.mark.parametrize("make,error,words", [
    (lambda: interop.tensor([[1, 2], [3]]), ValueError, ["interop.tensor", "ragged", "pad"]),
    (lambda: interop.tensor(["a"]), TypeError, ["interop.tensor", "strings"]),
    (lambda: interop.tensor(np.array([None])), TypeError, ["interop.tensor", "object"]),
    (lambda: interop.tensor([1], backend="jaxx"), ValueError, ["unknown backend", "numpy"]),
    (lambda: interop.ones(2, 3).sum(dim=5), IndexError, ["sum()", "Dimension out of range"]),
    (lambda: interop.ones(2, 3) + interop.ones(4), RuntimeError, ["add", "broadcast"]),
    (lambda: interop.mul(interop.ones(2, 3), interop.ones(4)), RuntimeError, ["mul", "broadcast"]),
    (lambda: interop.ones(6).reshape(4, 2), RuntimeError, ["reshape", "same number"]),
    (lambda: interop.ones(2, dtype="float7"), TypeError, ["unknown dtype", "interop.float32"]),
    (lambda: interop.add(object(), 1), TypeError, ["add", "tensor or a number"]),
    (lambda: interop.ones(2, 3) @ interop.ones(2, 3), RuntimeError, ["cannot be multiplied"]),
    (lambda: interop.ones(2).mean(dtype=None) if False else interop.arange(3).mean(),
     RuntimeError, ["mean()", "dtype="]),
])
def test_core_errors(make, error, words):
    with pytest.raises(error) as info:
        make()
    for word in words:
        assert word in str(info.value)


def test_failed_inplace_leaves_operand_unchanged():
    t = interop.tensor([1, 2, 3])
    for bad in (lambda: t.add_(interop.ones(2, 3)), lambda: t.mul_(2.5),
                lambda: t.div_(2), lambda: t.add_(object())):
        with pytest.raises((RuntimeError, TypeError)):
            bad()
        np.testing.assert_array_equal(to_numpy(t), [1, 2, 3])
        assert t.dtype == np.int64


def test_repr_in_torch_style():
    assert repr(interop.tensor([1.0, 2.0])) == "tensor([1., 2.], backend='numpy')"
    assert repr(interop.tensor([1.5, 2.25])) == "tensor([1.5000, 2.2500], backend='numpy')"
    assert repr(interop.tensor([1, 2], dtype=interop.int32)) == \
        "tensor([1, 2], dtype=int32, backend='numpy')"

    class SubTensor(interop.Tensor):
        pass
    assert repr(SubTensor([1])).startswith("SubTensor([1]")  # torch names the subclass too
    lazy = interop.ones(4, backend="dask", chunks=2)
    assert "<lazy shape=(4,)" in repr(lazy) and "backend='dask'" in repr(lazy)
