"""xarray DataArray(t, dims=...) keeps the interop tensor as .data, on its backend, through
arithmetic, named-dimension reductions, isel/sel, where, concat, groupby and repr; values equal
the same code on a NumPy-backed DataArray."""

from __future__ import annotations

import numpy as np
import pytest

import interop
from interop import numpy_compat
from tests.conftest import TORCH_BACKEND, to_numpy
from tests.helpers.upstream_features import dask_quantile_takes_a_lazy_q

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
    "imag of real data": lambda d: d.imag,
}
CALCULUS = {  # xarray passes the coordinate, a host array (an index), beside the data
    "differentiate": lambda d: d.differentiate("x"),
    "differentiate, second order": lambda d: d.differentiate("x", edge_order=2),
    "integrate": lambda d: d.integrate("x"),
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


@pytest.mark.parametrize("name", CALCULUS)
def test_calculus_along_a_coordinate_as_on_numpy(name, backend):
    """On Dask lazily in the data and the coordinate (Dask's own gradient refuses a Dask
    coordinate); on a GPU, ``differentiate``'s host coordinate beside device data is refused
    by name (``integrate`` makes it an array on the data's device first, through the
    namespace's ``asarray``)."""
    data = interop.tensor(A, backend=backend)
    if backend == "dask":
        data = data.rechunk((2, 2))
    coords = {"x": [1.0, 2.5, 7.0]}
    run = CALCULUS[name]
    if name.startswith("differentiate") and data.device.type != "cpu":
        with pytest.raises(interop.DeviceMismatchError, match="cpu"):
            run(xr.DataArray(data, dims=("x", "y"), coords=coords))
        return
    got = run(xr.DataArray(data, dims=("x", "y"), coords=coords))
    assert isinstance(got.data, interop.Tensor) and got.data.backend == backend
    np.testing.assert_allclose(to_numpy(got.data),
                               run(xr.DataArray(A, dims=("x", "y"), coords=coords)).values)


def test_dataarray_repr_shows_tensor(backend):
    d = _array(interop.tensor(A, backend=backend))
    text = repr(d)
    assert "<xarray.DataArray " in text and "(x: 3, y: 4)>" in text  # (Dask's name, as raw Dask)
    assert f"backend='{backend}'" in text
    if backend == "dask":
        assert "lazy" in text  # the repr does not compute the graph


def test_wrapping_is_zero_copy():
    t = interop.tensor(A)
    assert _array(t).data is t


# ------------------------------------------------------------------ xarray's method surface
B = np.arange(24.0).reshape(4, 6) - 5.0
B[1, 2] = np.nan
WEIGHTS = np.array([1.0, 2.0, 0.5, 3.0])

SURFACE = {
    "arithmetic": lambda d, w: (d * 2 + d - 1) / (abs(d) + 1),
    "sum (skipna)": lambda d, w: d.sum("y"),
    "sum (skipna=False)": lambda d, w: d.sum("y", skipna=False),
    "mean (skipna)": lambda d, w: d.mean("x"),
    "max (skipna=False)": lambda d, w: d.max("x", skipna=False),
    "median": lambda d, w: d.median("y"),
    "median (skipna=False)": lambda d, w: d.median("y", skipna=False),
    "std (ddof=1)": lambda d, w: d.std("x", ddof=1),
    "var (skipna=False)": lambda d, w: d.var("y", skipna=False),
    "prod": lambda d, w: d.prod("x"),
    "where": lambda d, w: d.where(d > 0),
    "fillna": lambda d, w: d.fillna(0),
    "shift": lambda d, w: d.shift(x=1),
    "pad": lambda d, w: d.pad(y=(1, 2)),
    "rolling": lambda d, w: d.rolling(y=3).mean(),
    "rolling (center)": lambda d, w: d.rolling(x=2, center=True).sum(),
    "coarsen": lambda d, w: d.coarsen(y=2).mean(),
    "weighted": lambda d, w: d.weighted(w).mean("x"),
    "groupby": lambda d, w: d.groupby("x").mean(),
    "quantile": lambda d, w: d.quantile(0.3, dim="y"),
    "idxmax": lambda d, w: d.fillna(0).idxmax("y"),
    "cumsum": lambda d, w: d.cumsum("y"),
    "cumsum (skipna=False)": lambda d, w: d.cumsum("y", skipna=False),
    "cumprod": lambda d, w: d.cumprod("x"),
    "cov": lambda d, w: xr.cov(d, d * 2, dim="y"),
    "corr": lambda d, w: xr.corr(d, d ** 2, dim="y"),
    "cross": lambda d, w: xr.cross(d.isel(y=slice(0, 3)), (d * 2).isel(y=slice(0, 3)), dim="y"),
    "dot": lambda d, w: xr.dot(d, w),
    "interp": lambda d, w: d.interp(y=[0.5, 1.5]),
    "apply_ufunc": lambda d, w: xr.apply_ufunc(np.sin, d, dask="parallelized"),
    "apply_ufunc (dask='allowed')": lambda d, w: xr.apply_ufunc(np.sin, d, dask="allowed"),
    "map_blocks": lambda d, w: xr.map_blocks(lambda b: b * 2, d),
    "chunk": lambda d, w: d.chunk(x=2),
    "compute": lambda d, w: d.compute(),
}
CHUNKS = {"dask": (2, 3), "cubed": (2, 3)}

DTYPE_ON_C = ("NumPy's C code takes only its own dtype objects from an object's .dtype: "
              "np.result_type(DataArray) refuses a DataArray over a tensor, whose .dtype is "
              "interop's DType (docs/architecture.md, dtypes)")
SCIPY_INTERP = ("xarray interpolates with SciPy's interpolators, which are not Array API "
                "aware: np.asarray of the data, a NumPy result")
DASK_RESULT = ("xarray's own DaskManager claims Dask-backed tensors (they are Dask "
               "collections) and builds the result with dask.array (apply_gufunc; map_blocks' "
               "own graph), whose results are always dask.array.Array: values and computes as "
               "on raw Dask, a raw Dask array as .data (docs/consumers.md)")
DASK_WINDOWS = ("xarray hands a Dask collection's windows to dask.array's sliding_window_view, "
                "whose map_overlap takes dask.array.Array only and refuses the tensor")
DASK_MIXED = ("xarray chunks the coordinates with DaskManager (raw dask.array.Array) and its "
              "get_chunked_array_type refuses two array types even when DaskManager claims both")
DASK_INDEX = ("xarray chunks the coordinate with DaskManager (a raw Dask array) and indexes it "
              "with the argmax tensor; Dask's __getitem__ indexes lazily with a dask.array.Array "
              "index only and makes any other concrete (slicing.take: .tolist()), so one "
              "compute where raw Dask runs none (values equal, a Dask tensor)")
CHUNK_EAGER = ("chunk() of in-memory data uses xarray's default chunk manager (Dask): a raw "
               "Dask array, as for a NumPy array")
HOST_Q = ("xarray passes quantiles as a NumPy array (np.atleast_1d), a host array beside "
          "device data, refused as CuPy refuses it")
TRUEDIV = ("xarray divides two integer counts (valid_count / (valid_count - ddof)); a tensor's "
           "/ is torch's, giving the default float dtype, float32 (NumPy: float64)")
LAZY_Q = ("xarray hands the quantiles to Dask's quantile as a Dask array, which Dask before "
          "2026.6 cannot take (its dtype inference dispatches np.quantile on q)")
LIMITS = {
    # NumPy before 2.4 reads the DType's own .dtype (numpy_compat): np.result_type takes it
    # (there, cross runs: on Dask through xarray's DaskManager, as apply_ufunc does)
    **({(b, "cross"): DTYPE_ON_C for b in ("numpy", "dask", "torch", "gpulike", "cubed")}
       if numpy_compat.READS_NUMPY_DTYPE_PROTOCOL else {("dask", "cross"): DASK_RESULT}),
    **({} if dask_quantile_takes_a_lazy_q() else {("dask", "quantile"): LAZY_Q}),
    **{(b, "interp"): SCIPY_INTERP for b in ("numpy", "torch", "gpulike")},
    **{(b, "chunk"): CHUNK_EAGER for b in ("numpy", "torch", "gpulike")},
    **{("dask", n): DASK_RESULT for n in ("apply_ufunc", "map_blocks")},
    **{("dask", n): DASK_WINDOWS for n in ("rolling", "rolling (center)")},
    ("dask", "interp"): DASK_MIXED,
    ("dask", "idxmax"): DASK_INDEX,
    ("gpulike", "quantile"): HOST_Q,
    **{(b, "cov"): TRUEDIV for b in ("numpy", "dask", "torch", "gpulike")},
}


def _surface(data, weights):
    coords = {"x": [10, 20, 30, 40], "y": np.arange(6.0)}
    return xr.DataArray(data, dims=("x", "y"), coords=coords), xr.DataArray(weights, dims="x")


def _inputs(backend):
    chunks = {"chunks": CHUNKS[backend]} if backend in CHUNKS else {}
    return _surface(interop.tensor(B, backend=backend, **chunks),
                    interop.tensor(WEIGHTS, backend=backend))


# Limits where the call runs: the whole problem, so each stays only what its reason says
# (on Dask the values and the count of computes are checked whatever the result's type).
EXACT_PROBLEMS = {
    **{("dask", n): "gave dask.array.core.Array" for n in ("apply_ufunc", "map_blocks")},
    ("dask", "idxmax"): "1 computes where raw Dask runs 0",
}


@pytest.mark.parametrize("name", SURFACE)
@pytest.mark.parametrize("backend", ["numpy", "dask", TORCH_BACKEND, "gpulike"])
def test_method_surface(name, backend):
    """The method gives a tensor on the input's backend with xarray-on-NumPy's values (on
    Dask: computing no more than on raw Dask arrays); a listed limit must still be one."""
    problem = _problem(name, backend)
    if (backend, name) in LIMITS:
        assert problem, f"{name} now works on {backend}: take it off LIMITS"
        assert problem == EXACT_PROBLEMS.get((backend, name), problem), problem
        pytest.xfail(f"{LIMITS[backend, name]} ({problem[:120]})")
    assert not problem, problem


def _problem(name: str, backend: str) -> str:
    """'' where the method meets the contract on ``backend``, else what went wrong (each
    part of the contract that fails, joined by '; ')."""
    expected = SURFACE[name](*_surface(B, WEIGHTS))
    problems = []
    try:
        if backend == "dask":
            got, computes, raw_computes = _counted(name)
            if computes > raw_computes:
                problems.append(f"{computes} computes where raw Dask runs {raw_computes}")
        else:
            got = SURFACE[name](*_inputs(backend))
    except Exception as exc:  # noqa: BLE001 - reported as the problem
        return f"raised {type(exc).__name__}: {exc}"
    if name == "compute" and backend in CHUNKS:  # the values, on the chunks' backend
        backend = "numpy"
    if not (isinstance(got.data, interop.Tensor) and got.data.backend == backend):
        kind = type(got.data)
        problems.append(f"gave {kind.__module__}.{kind.__name__} {getattr(got.data, 'backend', '')}"
                        .rstrip())
        if backend != "dask":  # (a raw Dask result is read as well: its values are on the host)
            return problems[0]
    if got.dims != expected.dims or not np.allclose(
            to_numpy(got.data), np.asarray(expected.values, dtype=float), rtol=1e-12,
            equal_nan=True):
        problems.append("values differ from xarray on NumPy")
    return "; ".join(problems)


def _counted(name: str) -> tuple:
    import dask.array as da

    from tests.helpers.dask_counting import ComputeCounter
    with ComputeCounter() as raw_counter:
        SURFACE[name](*_surface(da.from_array(B, chunks=CHUNKS["dask"]), da.from_array(WEIGHTS)))
    with ComputeCounter() as counter:
        got = SURFACE[name](*_inputs("dask"))
    return got, counter.count, raw_counter.count


# ------------------------------------------------------------------ the chunk manager (Cubed)
CUBED_LIMITS = {
    **({"cross": DTYPE_ON_C} if numpy_compat.READS_NUMPY_DTYPE_PROTOCOL else {}), "cov": TRUEDIV,
    "rolling": "xarray's windows (pad, then sliding_window_view) on Cubed: NumPy's "
               "sliding_window_view, which Cubed lacks, runs in one task and computes",
    "rolling (center)": "as rolling",
    "coarsen": "Cubed needs regular chunks; coarsen's rechunk leaves (2, 4)",
    "quantile": "Cubed's NumPy-shaped quantile refuses xarray's quantile array",
}


@pytest.fixture
def chunk_manager(tmp_path, monkeypatch):
    """interop's entry point in ``xarray.chunkmanagers``, as ``pip install`` registers it (a
    distribution's metadata on ``sys.path`` when this checkout is not installed)."""
    from importlib.metadata import entry_points

    from xarray.namedarray.parallelcompat import list_chunkmanagers
    pytest.importorskip("cubed")
    if "interop-cubed" not in entry_points(group="xarray.chunkmanagers").names:
        info = tmp_path / "interop_chunks-0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: interop-chunks\nVersion: 0\n")
        (info / "entry_points.txt").write_text(
            "[xarray.chunkmanagers]\n"
            "interop-cubed = interop.surfaces.xarray_chunks:CubedTensors\n")
        monkeypatch.syspath_prepend(str(tmp_path))
    list_chunkmanagers.cache_clear()
    yield list_chunkmanagers()["interop-cubed"]
    list_chunkmanagers.cache_clear()


@pytest.mark.parametrize("name", [n for n in SURFACE if n != "chunk"])
def test_method_surface_on_cubed(name, chunk_manager):
    problem = _problem(name, "cubed")
    if name in CUBED_LIMITS:
        assert problem, f"{name} now works on Cubed: take it off CUBED_LIMITS"
        pytest.xfail(f"{CUBED_LIMITS[name]} ({problem[:120]})")
    assert not problem, problem


def test_chunk_manager_keeps_cubed_tensors(chunk_manager):
    """The chunk manager's own work: chunk (from in-memory data and rechunking), compute,
    apply_ufunc(dask="parallelized") and a blockwise reduction give Cubed tensors."""
    d, _ = _inputs("numpy")
    chunked = d.chunk(x=2, chunked_array_type="interop-cubed")
    assert chunked.data.backend == "cubed" and chunked.chunks == ((2, 2), (6,))
    with xr.set_options(chunk_manager="interop-cubed"):  # (as cubed-xarray's users do)
        again = chunked.chunk(y=3)
    assert again.data.backend == "cubed" and again.chunks == ((2, 2), (3, 3))
    parallel = xr.apply_ufunc(np.sin, again, dask="parallelized", output_dtypes=[float])
    assert parallel.data.backend == "cubed"
    computed = parallel.compute()
    assert isinstance(computed.data, interop.Tensor) and computed.data.backend == "numpy"
    np.testing.assert_allclose(to_numpy(computed.data), np.sin(B), equal_nan=True)
    assert chunk_manager.is_chunked_array(again.data)
    assert not chunk_manager.is_chunked_array(interop.tensor(B, backend="dask", chunks=2))


@pytest.mark.parametrize("bad,says", [
    ({"coords": np.arange(4.0)}, "distances must match"),
    ({"edge_order": 3}, "edge_order"),
    ({"coords": np.arange(2.0), "size": 2, "edge_order": 2}, "too small"),
])
def test_gradient_on_dask_refuses_as_numpy(bad, says):
    """np.gradient with a Dask coordinate: NumPy's refusals, by name, before any compute."""
    size = bad.get("size", 3)
    f = interop.tensor(A[:size], backend="dask").rechunk((1, 2))
    coords = interop.tensor(bad.get("coords", np.arange(float(size))), backend="dask")
    with pytest.raises(ValueError, match=says), np.errstate(all="ignore"):
        np.gradient(A[:size], bad.get("coords", np.arange(float(size))), axis=0,
                    edge_order=bad.get("edge_order", 1))
    with interop.config(dask_compute="raise"), pytest.raises(ValueError, match=says):
        np.gradient(f, coords, axis=0, edge_order=bad.get("edge_order", 1))


def test_gradient_with_a_dask_coordinate_is_lazy_and_refuses_unknown_sizes():
    f = interop.tensor(A, backend="dask").rechunk((1, 2))
    x = interop.tensor([1.0, 2.5, 7.0], backend="dask")
    with interop.config(dask_compute="raise"):
        got = np.gradient(f, x, axis=0, edge_order=2)  # built, not computed
    np.testing.assert_allclose(to_numpy(got), np.gradient(A, [1.0, 2.5, 7.0], axis=0, edge_order=2))
    unknown = f[f[:, 0] > -100]
    with pytest.raises(ValueError, match="chunk sizes"):
        np.gradient(unknown, x, axis=0)
