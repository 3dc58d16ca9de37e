"""A tensor's namespace is its backend's, and has the names consumers call on a namespace.

``t.__array_namespace__()`` is ``interop.array_api`` bound to ``t``'s backend and device: what
its functions make from nothing (``xp.asarray(numpy_result)``, ``xp.zeros(n)``) lands there.
``NAMES`` lists the calls xarray's ``duck_array_ops`` (and its reductions by name) and SciPy's
``_lib`` make on a namespace that array-api-compat's NumPy namespace answers; each must give
NumPy's result on every backend (its dtype too, but for torch's default float32 where a
Python float makes an array: ``full``, as on array-api-compat's torch namespace).
"""

from __future__ import annotations

import array_api_compat
import numpy as np
import pytest

import interop
from tests.conftest import TORCH_BACKEND, installed, to_numpy
from tests.helpers.upstream_features import dask_quantile_takes_a_lazy_q

A = np.array([[3.0, np.nan, 1.0, 4.0], [1.0, 5.0, 9.0, 2.0], [6.0, 5.0, 3.0, 5.0]])

NAMES = {  # name -> a call on (xp, x); xarray's duck_array_ops unless marked
    "transpose": lambda xp, x: xp.transpose(x, (1, 0)),
    "concatenate": lambda xp, x: xp.concatenate([x, x], axis=1),
    "concat": lambda xp, x: xp.concat([x, x], axis=0),
    "stack": lambda xp, x: xp.stack([x, x]),
    "moveaxis": lambda xp, x: xp.moveaxis(x, 0, -1),
    "reshape": lambda xp, x: xp.reshape(x, (-1,)),
    "broadcast_to": lambda xp, x: xp.broadcast_to(x[:1], (3, 4)),
    "where": lambda xp, x: xp.where(xp.isnan(x), xp.zeros_like(x), x),
    "isnan": lambda xp, x: xp.isnan(x),
    "logical_not": lambda xp, x: xp.logical_not(xp.isnan(x)),
    "round": lambda xp, x: xp.round(x / 3),
    "clip": lambda xp, x: xp.clip(x, 2.0, 5.0),
    "astype": lambda xp, x: xp.astype(x, xp.float32),
    "full_like": lambda xp, x: xp.full_like(x, 7.0),
    "empty_like": lambda xp, x: xp.empty_like(x).shape,
    "isin": lambda xp, x: xp.isin(x, xp.asarray([5.0, 9.0])),
    "any": lambda xp, x: xp.any(x > 8, axis=1),
    "all": lambda xp, x: xp.all(x > 0, axis=0),
    "sum": lambda xp, x: xp.sum(x, axis=0),
    "prod": lambda xp, x: xp.prod(x, axis=1),
    "max": lambda xp, x: xp.max(x, axis=1),
    "min": lambda xp, x: xp.min(x, axis=1),
    "mean": lambda xp, x: xp.mean(x, axis=0),
    "std with ddof": lambda xp, x: xp.std(x, axis=0, ddof=1),
    "var with ddof": lambda xp, x: xp.var(x, axis=1, ddof=1),
    "median": lambda xp, x: xp.median(x[1:], axis=1),
    "cumsum": lambda xp, x: xp.cumsum(x, axis=1),
    "cumprod": lambda xp, x: xp.cumprod(x, axis=0),
    "argmax": lambda xp, x: xp.argmax(x[1:], axis=1),
    "argmin": lambda xp, x: xp.argmin(x[1:], axis=0),
    "nansum": lambda xp, x: xp.nansum(x, axis=1),
    "nanmean": lambda xp, x: xp.nanmean(x, axis=1),
    "nanmax": lambda xp, x: xp.nanmax(x, axis=1),
    "nanmin": lambda xp, x: xp.nanmin(x, axis=0),
    "nanprod": lambda xp, x: xp.nanprod(x, axis=1),
    "nanstd": lambda xp, x: xp.nanstd(x, axis=1, ddof=1),
    "nanvar": lambda xp, x: xp.nanvar(x, axis=0),
    "nanmedian": lambda xp, x: xp.nanmedian(x, axis=1),
    "nanargmax": lambda xp, x: xp.nanargmax(x, axis=1),
    "nanargmin": lambda xp, x: xp.nanargmin(x, axis=1),
    "nancumsum": lambda xp, x: xp.nancumsum(x, axis=1),
    "nancumprod": lambda xp, x: xp.nancumprod(x, axis=1),
    "quantile": lambda xp, x: xp.quantile(x[1:], xp.asarray([0.25, 0.5]), axis=1),
    "nanquantile": lambda xp, x: xp.nanquantile(x, 0.5, axis=0),
    "pad": lambda xp, x: xp.pad(x, ((1, 0), (0, 2)), constant_values=np.nan),
    "sliding_window_view": lambda xp, x: xp.lib.stride_tricks.sliding_window_view(x, 2, axis=1),
    "einsum": lambda xp, x: xp.einsum("ij,ij->i", x[1:], x[1:]),
    "tensordot": lambda xp, x: xp.tensordot(x[1:], x[1:], axes=([1], [1])),
    "gradient": lambda xp, x: xp.gradient(x[1:], axis=1),
    "cross": lambda xp, x: xp.cross(x[1:, :3], x[1:, 1:]),
    "result_type": lambda xp, x: str(xp.result_type(x, xp.float32)),
    "isdtype": lambda xp, x: xp.isdtype(x.dtype, "real floating"),
    # SciPy's _lib (_array_api.py, _util.py)
    "asarray": lambda xp, x: xp.asarray(np.asarray([1.0, 2.0])),
    "full": lambda xp, x: xp.full((2,), 3.0),
    "permute_dims": lambda xp, x: xp.permute_dims(x, (1, 0)),
    "isfinite": lambda xp, x: xp.isfinite(x),
    "real": lambda xp, x: xp.real(x),
    "imag": lambda xp, x: xp.imag(x + 0j),
    "conj": lambda xp, x: xp.conj(x + 1j),
    "vecdot": lambda xp, x: xp.vecdot(x[1:], x[1:]),
    "finfo": lambda xp, x: xp.finfo(x.dtype).eps,
    "linalg.vector_norm": lambda xp, x: xp.linalg.vector_norm(x[1:], axis=1),
}
BACKENDS = ["numpy", "dask", "gpulike", TORCH_BACKEND, pytest.param("cupy", marks=pytest.mark.gpu)]


def _host(x):
    if isinstance(x, interop.Tensor):
        return to_numpy(x)
    return x if isinstance(x, (str, bool, float, tuple)) else np.asarray(x)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("backend", BACKENDS)
def test_name_consumers_call(name, backend):
    """The name exists on the tensor's namespace and gives NumPy's (array-api-compat's) answer
    as a tensor on the tensor's backend."""
    t = interop.tensor(A, backend=backend)
    xp = array_api_compat.array_namespace(t)
    if (backend, name) == ("dask", "quantile") and not dask_quantile_takes_a_lazy_q():
        with pytest.raises(ValueError, match="dtype` inference failed"):  # Dask's, before 2026.6
            NAMES[name](xp, t)
        return
    with np.errstate(all="ignore"):
        want = NAMES[name](np, A)
        got = NAMES[name](xp, t)
    if isinstance(want, np.ndarray):
        assert isinstance(got, interop.Tensor) and got.backend == backend
        assert to_numpy(got).dtype == want.dtype or (backend, name) == ("torch", "full")
    if isinstance(want, str):
        assert got == want
    else:
        np.testing.assert_allclose(_host(got), want, rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("backend", BACKENDS)
def test_namespace_makes_arrays_on_the_tensors_backend(backend):
    t = interop.tensor(A, backend=backend)
    xp = t.__array_namespace__()
    assert array_api_compat.array_namespace(t, t) is xp is t.__array_namespace__()
    assert (xp is interop.array_api) == (backend == "numpy")  # the default backend's own
    made = [xp.asarray(np.ones(3)), xp.zeros(3), xp.arange(3), xp.linspace(0, 1, 3),
            xp.eye(2), xp.full((2,), 1.0), xp.fft.fftfreq(4), xp.stack([np.ones(2)] * 2)]
    for m in made:
        assert m.backend == backend and m.device == t.device
    assert xp.__array_namespace_info__().default_device() == t.device
    assert interop.array_api.zeros(3).backend == "numpy"  # the module stays the default's
    assert xp.__name__ == "interop.array_api"
    assert not array_api_compat.is_dask_namespace(xp) and not array_api_compat.is_cupy_namespace(xp)


def test_explicit_device():
    """``device=`` names where to make the array: the host on a Dask-bound namespace is Dask's
    (as on array-api-compat's Dask namespace); off the device's backend, the one serving it."""
    assert interop.tensor(A, backend="dask").__array_namespace__().zeros(
        3, device="cpu").backend == "dask"
    assert interop.tensor(A, backend="gpulike").__array_namespace__().zeros(
        3, device="cpu").backend == "numpy"


def test_namespaces_of_one_library_are_one():
    """Bound namespaces equal (and hash as) the module and each other, as array-api-compat
    counts namespaces by name: consumers that collect their operands' namespaces in a set
    (xarray) take NumPy and Dask tensors together, running on their common backend."""
    xr = pytest.importorskip("xarray")
    on_numpy, on_dask = interop.tensor(A), interop.tensor(A, backend="dask", chunks=2)
    namespaces = {on_numpy.__array_namespace__(), on_dask.__array_namespace__()}
    if installed("torch"):
        namespaces.add(interop.tensor(A, backend="torch").__array_namespace__())
    assert len(namespaces) == 1 and on_dask.__array_namespace__() == interop.array_api
    where = xr.where(xr.DataArray(on_numpy > 2, dims=("x", "y")),
                     xr.DataArray(on_dask, dims=("x", "y")), 0.0)
    assert where.data.backend == "dask"
    np.testing.assert_array_equal(to_numpy(where.data), np.where(A > 2, A, 0.0))
