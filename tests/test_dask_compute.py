"""interop.config(dask_compute=...): the one option governing implicit value reads of Dask
tensors (item, bool, float, int, complex, index, format, tolist, numpy, np.asarray)."""

from __future__ import annotations

import operator
import warnings

import numpy as np
import pytest

import interop

pytest.importorskip("dask.array")

READS = {
    "item()": lambda t: t.item(),
    "bool()": bool,
    "float()": float,
    "int()": int,
    "complex()": complex,
    "__index__()": operator.index,
    "format()": lambda t: format(t, ".1f"),
    "tolist()": lambda t: t.tolist(),
    "numpy()": lambda t: t.numpy(),
    "np.asarray": np.asarray,
}
EXPECTED = {"bool()": True, "format()": "3.0", "numpy()": np.array(3), "np.asarray": np.array(3)}


@pytest.fixture
def lazy_three() -> interop.Tensor:
    """A lazy 0-d int tensor worth 3 (ints so that every read, __index__ included, applies)."""
    return interop.tensor(np.array([1, 2]), backend="dask", chunks=1).sum()


@pytest.mark.parametrize("name", READS)
def test_raise_names_the_read_and_the_fix(lazy_three, name):
    with interop.config(dask_compute="raise"), \
            pytest.raises(interop.DaskComputeError, match=r"t\.compute\(\)") as info:
        READS[name](lazy_three)
    assert name.split("(")[0] in str(info.value) and "dask_compute='allow'" in str(info.value)


@pytest.mark.parametrize("name", READS)
def test_warn_computes_and_warns(lazy_three, name):
    with interop.config(dask_compute="warn"), pytest.warns(interop.DaskComputeWarning):
        value = READS[name](lazy_three)
    assert np.array_equal(value, EXPECTED.get(name, 3))


@pytest.mark.parametrize("name", READS)
def test_allow_computes_silently(lazy_three, name):
    with interop.config(dask_compute="allow"), warnings.catch_warnings():
        warnings.simplefilter("error")
        value = READS[name](lazy_three)
    assert np.array_equal(value, EXPECTED.get(name, 3))


def test_default_is_allow():
    assert interop.config.get("dask_compute") == "allow"


def test_explicit_computes_and_printing_ignore_raise(lazy_three):
    with interop.config(dask_compute="raise"):
        assert "lazy" in repr(lazy_three) and "lazy" in str(lazy_three)  # printing never computes
        assert lazy_three.compute().raw == 3
        assert interop.compute(lazy_three)[0].raw == 3
        assert lazy_three.to(backend="numpy").raw == 3


def test_eager_tensors_are_not_governed(backend):
    t = interop.tensor([3], backend=backend)
    with interop.config(dask_compute="raise"):
        if backend == "dask":
            with pytest.raises(interop.DaskComputeError):
                t.item()
        else:
            assert t.item() == 3 and t.tolist() == [3]


def test_config_scopes_and_validates():
    with interop.config(dask_compute="warn"):
        assert interop.config.get("dask_compute") == "warn"
    assert interop.config.get("dask_compute") == "allow"
    with pytest.raises(ValueError, match="'allow', 'warn', 'raise'"):
        interop.config(dask_compute="never")
    assert interop.config.get("dask_compute") == "allow"


def test_numpy_returns_an_ndarray_on_host_backends(backend):
    t = interop.tensor([1.0, 2.0], backend=backend)
    if backend == "cupy":
        with pytest.raises(TypeError, match=r"cpu\(\)"):
            t.numpy()
        return
    out = t.numpy()
    assert type(out) is np.ndarray and out.tolist() == [1.0, 2.0]
    if backend == "numpy":
        assert np.shares_memory(out, t.raw)  # torch's numpy(): the same memory
