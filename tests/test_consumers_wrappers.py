"""Stacks of duck arrays over interop tensors, each against the same stack over the raw
library (NumPy, Dask): pint's Quantity over a tensor, xarray over that Quantity (units and
backend kept through reductions, arithmetic and ``where``), and MArray's masked namespace
over ``interop.array_api``.

xarray over pint finds ``interop.array_api`` through the tensors inside the Quantity and
calls it with Quantities; the namespace hands such a call to NumPy's function of the same
name, whose NEP 18 dispatch reaches pint first, as with NumPy magnitudes.
"""

from __future__ import annotations

import numpy as np
import pytest

import interop
import interop.array_api as ixp

pint = pytest.importorskip("pint")
xr = pytest.importorskip("xarray")
marray = pytest.importorskip("marray")

UNITS = pint.UnitRegistry()
VALUES = np.array([[3.0, 1.0, 4.0], [1.0, 5.0, 9.0]])
BACKENDS = ["numpy", "dask"]


def raw(backend: str, values: np.ndarray):
    if backend == "dask":
        import dask.array as da
        return da.from_array(values, chunks=(1, 3))
    return values


def tensor(backend: str, values: np.ndarray):
    options = {"chunks": (1, 3)} if backend == "dask" else {}
    return interop.tensor(values, backend=backend, **options)


def host(x) -> np.ndarray:
    """Values of a raw array or a tensor (a value read: Dask computes)."""
    if isinstance(x, interop.Tensor):
        return np.asarray(x.numpy(force=True))
    return np.asarray(x.compute() if hasattr(x, "compute") else x)


def check_quantity(got, want, backend: str) -> None:
    """``got`` (over tensors) is what ``want`` (over the raw library) is: a Quantity of the same
    units and values, its magnitude a tensor on the backend."""
    assert isinstance(got, pint.Quantity), type(got)
    assert got.units == want.units
    assert isinstance(got.magnitude, interop.Tensor) and got.magnitude.backend == backend, \
        type(got.magnitude)
    np.testing.assert_allclose(host(got.magnitude), host(want.magnitude), equal_nan=True)


XARRAY_CASES = {
    "sum": lambda d: d.sum(),
    "sum over x": lambda d: d.sum("x"),
    "mean": lambda d: d.mean(),
    "max": lambda d: d.max("y"),
    "std": lambda d: d.std(),
    "cumsum": lambda d: d.cumsum("y"),
    "add": lambda d: d + d,
    "scale": lambda d: d * 2,
    "where": lambda d: d.where(d > 2 * UNITS.m),
    "where other": lambda d: d.where(d > 2 * UNITS.m, 0 * UNITS.m),
    "isel": lambda d: d.isel(y=slice(0, 2)),
    "transpose": lambda d: d.T,
    "to km": lambda d: xr.DataArray(d.data.to("km"), dims=d.dims),
}


@pytest.mark.parametrize("case", XARRAY_CASES)
@pytest.mark.parametrize("backend", BACKENDS)
def test_xarray_over_pint_over_tensors_as_over_the_raw_library(backend, case):
    run = XARRAY_CASES[case]
    want = run(xr.DataArray(UNITS.Quantity(raw(backend, VALUES), "m"), dims=("x", "y")))
    got = run(xr.DataArray(UNITS.Quantity(tensor(backend, VALUES), "m"), dims=("x", "y")))
    check_quantity(got.data, want.data, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_pint_over_tensors_as_over_the_raw_library(backend):
    calls = [lambda q: np.sum(q), lambda q: np.mean(q, axis=0), lambda q: q.to("km"),
             lambda q: np.sqrt(q * q), lambda q: np.where(q > 2 * UNITS.m, q, 0 * UNITS.m),
             lambda q: np.concatenate([q, q])]
    for call in calls:
        check_quantity(call(UNITS.Quantity(tensor(backend, VALUES), "m")),
                       call(UNITS.Quantity(raw(backend, VALUES), "m")), backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_namespace_hands_a_wrapped_call_to_the_wrapper(backend):
    """``interop.array_api.where(cond, q, q)``, as xarray calls it: pint answers, units kept."""
    q = UNITS.Quantity(tensor(backend, VALUES), "m")
    got = ixp.where(tensor(backend, VALUES > 2), q, UNITS.Quantity(tensor(backend, -VALUES), "m"))
    check_quantity(got, UNITS.Quantity(np.where(VALUES > 2, VALUES, -VALUES), "m"), backend)
    check_quantity(ixp.sum(q, axis=1), UNITS.Quantity(VALUES.sum(axis=1), "m"), backend)
    with pytest.raises(pint.DimensionalityError):  # the wrapper's own rules hold
        ixp.add(q, UNITS.Quantity(tensor(backend, VALUES), "s"))


def test_numpy_defers_to_a_wrapper_of_tensors_in_both_orders():
    t = tensor("numpy", VALUES)
    q = UNITS.Quantity(tensor("numpy", VALUES), "m")
    for got in (np.add(q, q), np.multiply(t, q), np.multiply(q, t), np.stack([t, t]) * q):
        assert isinstance(got, pint.Quantity) and isinstance(got.magnitude, interop.Tensor)


MASKED = {
    "mean": lambda mxp, x: mxp.mean(x),
    "std": lambda mxp, x: mxp.std(x, axis=1),
    "sort": lambda mxp, x: mxp.sort(x, axis=1),
    "max": lambda mxp, x: mxp.max(x, axis=0),
    "add": lambda mxp, x: x + x,
}


@pytest.mark.parametrize("case", MASKED)
@pytest.mark.parametrize("backend", BACKENDS)
def test_marray_over_the_namespace_as_over_numpy(backend, case):
    mask = np.array([[False, True, False], [False, False, True]])
    mxp, mnp = marray.masked_namespace(ixp), marray.masked_namespace(np)
    got = MASKED[case](mxp, mxp.asarray(tensor(backend, VALUES), mask=tensor(backend, mask)))
    want = MASKED[case](mnp, mnp.asarray(VALUES, mask=mask))
    assert isinstance(got.data, interop.Tensor) and got.data.backend == backend
    np.testing.assert_array_equal(host(got.mask), want.mask)
    keep = ~np.asarray(want.mask)
    np.testing.assert_allclose(host(got.data)[keep], np.asarray(want.data)[keep])


@pytest.mark.parametrize("backend", BACKENDS)
def test_imag_of_real_data_is_zeros_as_numpy(backend):
    """``DataArray.imag`` of real data, ``t.imag`` and the namespace's ``imag``: NumPy's zeros."""
    t = tensor(backend, VALUES)
    for got in (t.imag, ixp.imag(t), xr.DataArray(t, dims=("x", "y")).imag.data):
        assert isinstance(got, interop.Tensor) and got.backend == backend
        np.testing.assert_array_equal(host(got), np.zeros_like(VALUES))
    np.testing.assert_array_equal(host(ixp.real(t)), VALUES)
    np.testing.assert_array_equal(host(ixp.conj(t)), VALUES)


# ------------------------------------------------------------------ edges
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("values", [np.zeros((0, 3)), np.array(2.5)], ids=["empty", "0-d"])
def test_edges_of_the_stacks_empty_and_0d(backend, values):
    """Empty and 0-d magnitudes: the same results as pint over the raw library."""
    for call in (lambda q: np.sum(q), lambda q: q * 2, lambda q: np.sqrt(q * q),
                 lambda q: ixp.where(ixp.asarray(True), q, q) if isinstance(q.magnitude, interop.Tensor)
                 else np.where(True, q, q)):
        check_quantity(call(UNITS.Quantity(tensor(backend, values), "m")),
                       call(UNITS.Quantity(raw(backend, values), "m")), backend)
    t = tensor(backend, values)
    for got in (t.imag, ixp.imag(t)):
        assert got.shape == values.shape and got.dtype == values.dtype
        np.testing.assert_array_equal(host(got), np.imag(values))


def test_imag_of_unknown_dask_sizes_stays_lazy():
    """A Dask tensor of unknown (NaN) size: imag of real data is lazy zeros, nothing computed
    under dask_compute='raise'."""
    t = tensor("dask", VALUES)
    masked = t[t > 2]
    with interop.config(dask_compute="raise"):
        got = masked.imag, ixp.imag(masked)
    for g in got:
        np.testing.assert_array_equal(host(g), np.zeros((VALUES > 2).sum()))


def test_a_hooked_subclass_inside_a_wrapper_sees_the_calls():
    """pint unwraps to the tensor subclass, whose __torch_function__ then sees NumPy's call;
    the fast path for plain tensors is unchanged after (no cached route crosses over)."""
    seen = []

    class Logged(interop.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(getattr(func, "__name__", str(func)))
            return super().__torch_function__(func, types, args, kwargs)

    q = UNITS.Quantity(tensor("numpy", VALUES).as_subclass(Logged), "m")
    got = ixp.sum(q * 2)
    assert isinstance(got.magnitude, Logged) and got.units == UNITS.m
    assert "sum" in seen
    plain = tensor("numpy", VALUES)
    assert type(ixp.sum(plain)) is interop.Tensor and type(np.sum(plain)) is interop.Tensor


def test_stacks_in_other_threads_and_tasks():
    """Per-thread and per-task settings do not leak into a wrapper's calls."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    def run(backend):
        d = xr.DataArray(UNITS.Quantity(tensor(backend, VALUES), "m"), dims=("x", "y"))
        return d.mean().data

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(run, ["numpy", "dask", "numpy", "dask"]))

    async def task():
        with interop.config(dask_compute="raise"):
            return run("dask")  # lazy: nothing computed
    results.append(asyncio.run(task()))
    for got, backend in zip(results, ["numpy", "dask", "numpy", "dask", "dask"]):
        check_quantity(got, UNITS.Quantity(np.float64(VALUES.mean()), "m"), backend)


def test_a_wrapper_of_another_backend_beside_a_tensor_refuses_by_name():
    """A Quantity of a GPU-rule tensor beside a host tensor: the device rule holds inside."""
    q = UNITS.Quantity(interop.tensor(VALUES, backend="gpulike"), "m")
    with pytest.raises(interop.DeviceMismatchError, match="gpulike"):
        ixp.where(tensor("numpy", VALUES > 2), q, q)
