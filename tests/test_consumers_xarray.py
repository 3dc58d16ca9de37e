"""xarray DataArray(t, dims=...) keeps the interop tensor as .data, on its backend, through
arithmetic, named-dimension reductions, isel/sel, where, concat, groupby and repr; values equal
the same code on a NumPy-backed DataArray."""

from __future__ import annotations

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy

xr = pytest.importorskip("xarray")

A = np.arange(12.0).reshape(3, 4) - 5.0

OPERATIONS = {
    "arithmetic": lambda d: d * 2 + d - 1,
    "ufunc": lambda d: np.exp(d / 10),
    "sum over y": lambda d: d.sum("y"),
    "mean over x": lambda d: d.mean(dim="x"),
    "std over x": lambda d: d.std("x"),
    "max": lambda d: d.max(),
    "argmax over y": lambda d: d.argmax("y"),
    "cumsum over y": lambda d: d.cumsum("y"),
    "isel": lambda d: d.isel(x=1, y=slice(1, 3)),
    "sel": lambda d: d.sel(x=20),
    "where": lambda d: d.where(d > 0, 0.0),
    "transpose": lambda d: d.T,
    "concat": lambda d: xr.concat([d, d], "x"),
    "groupby mean": lambda d: d.groupby("x").mean(),
    "broadcast with coords": lambda d: d + xr.DataArray(_like(d, np.arange(4.0)), dims="y"),
}


def _like(d, values: np.ndarray):
    """``values`` where ``d``'s data is (a tensor on its device: a GPU's data meets no host
    array), as NumPy values for a NumPy-backed ``d``."""
    data = d.data
    return interop.array_api.asarray(values, device=data.device) \
        if isinstance(data, interop.Tensor) else values


def _array(data):
    return xr.DataArray(data, dims=("x", "y"), coords={"x": [10, 20, 30]})


@pytest.mark.parametrize("name", OPERATIONS)
def test_dataarray_keeps_tensor(name, backend):
    t = interop.tensor(A, backend=backend)
    got = OPERATIONS[name](_array(t))
    expected = OPERATIONS[name](_array(A))
    assert isinstance(got.data, interop.Tensor), f"{name}: .data is {type(got.data)}"
    assert got.data.backend == backend
    assert got.dims == expected.dims
    np.testing.assert_allclose(to_numpy(got.data), expected.data, rtol=1e-12)
    assert to_numpy(got.data).dtype == expected.dtype


def test_dataarray_repr_shows_tensor(backend):
    d = _array(interop.tensor(A, backend=backend))
    text = repr(d)
    assert "<xarray.DataArray (x: 3, y: 4)>" in text and f"backend='{backend}'" in text
    if backend == "dask":
        assert "lazy" in text  # the repr does not compute the graph


def test_wrapping_is_zero_copy():
    t = interop.tensor(A)
    assert _array(t).data is t
