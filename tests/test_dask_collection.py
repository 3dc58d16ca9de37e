"""Dask-backed tensors are Dask collections: dask.compute/persist/optimize/delayed and
da.asarray see the wrapped graph, results keep the subclass and its attributes, nothing is
computed before the call (counted with a Dask callback).  NumPy-backed tensors are not
collections and have no ``chunks``, so Dask and xarray treat them as in-memory arrays.
(The distributed client's compute/persist/scatter: tests/test_distributed.py.)"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import interop
from tests.conftest import home_device, to_numpy

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
from dask.base import is_dask_collection, tokenize  # noqa: E402

from tests.helpers.dask_counting import ComputeCounter  # noqa: E402

HOST = np.arange(24.0).reshape(4, 6) - 7.0


class Meters(interop.Tensor):
    """A subclass with an attribute, as users write them."""


def meters(data=HOST, chunks=(2, 3)) -> Meters:
    t = interop.tensor(data, backend="dask", chunks=chunks).as_subclass(Meters)
    t.unit = "m"
    return t


def assert_meters(t, backend: str, expected) -> None:
    assert type(t) is Meters and t.unit == "m" and t.backend == backend
    np.testing.assert_allclose(to_numpy(t), expected)


# ------------------------------------------------------------------ compute, persist, optimize
def test_compute_several_in_one_graph_keeps_class_and_attributes():
    with ComputeCounter() as seen:
        t = meters()
        total, scaled = t.sum(dim=0), t * 2 + 1  # building: no compute
        assert seen.count == 0
        got_total, got_scaled, plain = dask.compute(total, scaled, 5)
    assert seen.count == 1 and plain == 5
    assert_meters(got_total, "numpy", HOST.sum(axis=0))
    assert_meters(got_scaled, "numpy", HOST * 2 + 1)
    assert isinstance(got_scaled.raw, np.ndarray)


def test_persist_stays_dask_and_holds_the_values():
    t = meters()
    with ComputeCounter() as seen:
        (p,) = dask.persist(t * 3)
        assert seen.count == 1
        assert_meters(p, "dask", HOST * 3)
    assert p.chunks == t.chunks and len(p.dask) == p.raw.npartitions  # only the stored chunks


def test_optimize_returns_tensors_of_the_class():
    with ComputeCounter() as seen:
        (o,) = dask.optimize(meters() + 1)
        assert seen.count == 0
    assert type(o) is Meters and o.backend == "dask" and o.unit == "m"
    np.testing.assert_allclose(to_numpy(o), HOST + 1)


def test_zero_dim_result_is_an_array_not_a_scalar():
    (s,) = dask.compute(meters().sum())
    assert isinstance(s.raw, np.ndarray) and s.ndim == 0 and float(s) == HOST.sum()


def test_unknown_sizes_compute():
    t = meters()
    (picked,) = dask.compute(t[t > 0])
    assert_meters(picked, "numpy", HOST[HOST > 0])


def test_explicit_compute_is_allowed_under_dask_compute_raise():
    t = meters()
    with interop.config(dask_compute="raise"):
        (s,) = dask.compute(t.mean())
        with pytest.raises(interop.DaskComputeError):
            float(t.mean())  # an implicit read still obeys the policy
    assert float(s) == pytest.approx(HOST.mean())


def test_delayed_function_receives_computed_tensor():
    seen = {}

    def inspect(x):
        seen.update(cls=type(x), backend=x.backend, unit=x.unit)
        return float(x.sum())

    with ComputeCounter() as count:
        result = dask.delayed(inspect)(meters() * 2)
        assert count.count == 0
        assert result.compute() == pytest.approx(2 * HOST.sum())
    assert seen == {"cls": Meters, "backend": "numpy", "unit": "m"}


def test_compute_from_threads():
    tensors = [meters(HOST * k) for k in range(4)]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda t: dask.compute(t.sum(dim=1))[0], tensors))
    for k, r in enumerate(results):
        assert_meters(r, "numpy", (HOST * k).sum(axis=1))


@given(rows=st.integers(0, 7), cols=st.integers(1, 5), chunk=st.integers(1, 4))
def test_compute_matches_numpy_for_any_chunking(rows, cols, chunk):
    host = np.arange(rows * cols, dtype=np.float64).reshape(rows, cols)
    t = meters(host, chunks=(chunk, chunk))
    got_t, got_sum = dask.compute(t.T, t.sum(dim=0))
    assert_meters(got_t, "numpy", host.T)
    assert_meters(got_sum, "numpy", host.sum(axis=0))


# ------------------------------------------------------------------ dask.array sees the wrapped array
def test_da_asarray_is_the_wrapped_array():
    t = meters()
    assert da.asarray(t) is t.raw
    np.testing.assert_allclose((da.asarray(t) + 1).compute(), HOST + 1)
    assert isinstance((da.asarray(t) + 1).compute(), np.ndarray)


def test_dask_attributes_of_a_dask_tensor():
    t = meters()
    assert t.dask is t.raw.dask and t.chunks == ((2, 2), (3, 3))
    assert t.__dask_keys__() == t.raw.__dask_keys__()
    assert t.__dask_layers__() == t.raw.__dask_layers__()
    assert t.blocks.shape == (2, 2)
    block = t.blocks[1, 0]
    assert_meters(block, "dask", HOST[2:4, 0:3])
    assert tokenize(t) == tokenize(t) != tokenize(meters() + 0)


def test_visualize():
    pytest.importorskip("graphviz")
    assert meters().visualize(filename=None) is not None
    assert dask.visualize(meters(), meters() + 1, filename=None) is not None


# ------------------------------------------------------------------ eager tensors are not collections
NOT_ON_EAGER = ["__dask_graph__", "__dask_keys__", "__dask_layers__", "__dask_postcompute__",
                "__dask_postpersist__", "__dask_optimize__", "__dask_scheduler__", "dask", "blocks",
                "visualize", "chunks", "to_dask_array"]


@pytest.mark.parametrize("name", NOT_ON_EAGER)
def test_eager_tensors_lack_dask_attributes(name, backend):
    t = interop.tensor(HOST, backend=backend)
    assert hasattr(t, name) == (backend == "dask")
    if backend != "dask":
        with pytest.raises(AttributeError, match=rf"'{name}'.*backend='dask'"):
            getattr(t, name)


def test_eager_tensor_is_not_a_collection(backend):
    t = interop.tensor(HOST, backend=backend)
    assert is_dask_collection(t) == (backend == "dask")
    if backend != "dask":
        assert dask.compute(t)[0] is t  # Dask passes non-collections through
        assert tokenize(t) == tokenize(interop.tensor(HOST.copy(), backend=backend))
        assert tokenize(t) != tokenize(interop.tensor(HOST + 1, backend=backend))


def test_tensor_class_itself_is_not_a_collection():
    assert not is_dask_collection(interop.Tensor) and not is_dask_collection(Meters)


def test_xarray_apply_ufunc_on_eager_tensors_needs_no_dask_option(backend):
    xr = pytest.importorskip("xarray")
    t = interop.tensor(HOST, backend=backend)
    arr = xr.DataArray(t, dims=("x", "y"))
    if backend == "dask":
        got = xr.apply_ufunc(np.exp, arr, dask="allowed")
    else:
        got = xr.apply_ufunc(np.exp, arr)  # not a chunked array: no dask="allowed" needed
    assert isinstance(got.data, interop.Tensor) and got.data.backend == backend
    np.testing.assert_allclose(to_numpy(got.data), np.exp(HOST))


# ------------------------------------------------------------------ devices that name Dask
def test_creation_on_a_dask_tensors_device_is_dask(backend):
    xp = interop.array_api
    x = interop.tensor(HOST, backend=backend)
    assert x.device == home_device(backend)  # torch's view of the device is unchanged
    for made in (xp.zeros(3, device=x.device), xp.asarray(np.ones(3), device=x.device),
                 interop.zeros(3, device=x.device), interop.tensor([1.0], device=x.device),
                 xp.full_like(xp.ones(2), 1.0, device=x.device)):
        assert made.backend == backend
    assert interop.tensor(HOST).to_device(x.device).backend == backend


def test_dask_namespace_info_reports_the_dask_device():
    xp = interop.array_api
    old = interop.default_backend()
    interop.set_default_backend("dask")
    try:
        info = xp.__array_namespace_info__()
        assert info.devices() == (info.default_device(),) and info.default_device() == "cpu"
        assert xp.zeros(2, device=info.default_device()).backend == "dask"
    finally:
        interop.set_default_backend(old)
    assert xp.zeros(2, device=info.default_device()).backend == "dask"  # the device says so


def test_device_naming_an_unknown_backend_is_refused():
    with pytest.raises(ValueError, match="unknown backend 'nope'"):
        interop.array_api.zeros(2, device=interop.device("cpu", backend="nope"))


def test_plain_cpu_device_keeps_the_default_backend():
    assert interop.array_api.zeros(2, device="cpu").backend == interop.default_backend()
    assert meters().to("cpu").backend == "dask"  # a Dask tensor is already on the cpu


# ------------------------------------------------------------------ lazy writes of unknown-size values
@pytest.mark.parametrize("shape, chunks", [((10,), 3), ((8, 3), (3, -1)), ((), ()), ((0,), 1)])
def test_masked_write_of_selected_values_is_lazy(shape, chunks):
    host = np.random.default_rng(3).normal(size=shape)
    x = interop.tensor(host, backend="dask", chunks=chunks or None)
    with ComputeCounter() as seen, interop.config(dask_compute="raise"):
        out = interop.zeros_like(x)
        mask = x > 0
        out[mask] = (x[mask] * 3).exp()  # values of unknown (NaN) size, as apply_where writes
        assert seen.count == 0
    expected = np.zeros_like(host)
    expected[host > 0] = np.exp(host[host > 0] * 3)
    np.testing.assert_allclose(to_numpy(out), expected)


def test_masked_write_with_values_of_another_mask_raises_when_computed():
    x = interop.tensor(np.arange(6.0), backend="dask", chunks=3)
    out = interop.zeros_like(x)
    out[x > 1] = x[x > 3]  # 4 places, 2 values
    with pytest.raises(ValueError, match="cannot assign"):
        out.compute()


def test_masked_write_across_chunked_columns_still_needs_sizes():
    x = interop.tensor(HOST, backend="dask", chunks=(2, 3))  # chunked along both axes
    out = interop.zeros_like(x)
    with pytest.raises(interop.UnknownShapeError, match="compute_chunk_sizes"):
        out[x > 0] = x[x > 0]
