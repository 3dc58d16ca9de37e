"""The Cubed backend: lazy, chunked, planned against a declared memory bound.

Values are checked against torch (the torch surface) and NumPy (the NumPy surface);
laziness with Cubed's own guard (``cubed.raise_if_computes``: any compute inside raises).
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import interop

cubed = pytest.importorskip("cubed")
torch = pytest.importorskip("torch")

HOST = np.arange(12, dtype=np.float32).reshape(3, 4) / 4 - 1


def lazy(data: np.ndarray = HOST, **options) -> interop.Tensor:
    return interop.tensor(data, backend="cubed", **options)


def bounded(allowed_mem) -> cubed.Spec:
    """A Spec bounded at ``allowed_mem``, writing where the tests' default does (conftest)."""
    return cubed.Spec(cubed.config.get("spec.work_dir", None), allowed_mem=allowed_mem,
                      reserved_mem=0)


def values(t: interop.Tensor) -> np.ndarray:
    assert t.backend == "cubed", t.backend
    return np.asarray(t.compute().raw)


# ------------------------------------------------------------------ selection and creation
def test_selected_by_backend_and_default(monkeypatch):
    t = lazy(chunks=(2, 2))
    assert isinstance(t.raw, cubed.Array) and t.raw.chunks == ((2, 1), (2, 2))
    assert t.device == "cpu" and t.device.backend == "cubed"
    assert t.dtype == np.float32 and t.shape == (3, 4)
    assert "lazy" in repr(t) and "cubed" in repr(t)
    before = interop.get_backend("numpy")
    try:
        interop.set_default_backend("cubed")
        assert interop.tensor([1.0, 2.0]).backend == "cubed"
        assert interop.zeros(2, 3).backend == "cubed"
    finally:
        interop.set_default_backend(before.name)


def test_selected_by_environment():
    code = "import interop; print(interop.tensor([1.0]).backend, interop.ones(2).backend)"
    env = dict(os.environ, INTEROP_BACKEND="cubed")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == ["cubed", "cubed"]


@pytest.mark.parametrize("make, expected", [
    (lambda: interop.zeros(2, 3, backend="cubed"), np.zeros((2, 3), np.float32)),
    (lambda: interop.ones(4, dtype=interop.int64, backend="cubed"), np.ones(4, np.int64)),
    (lambda: interop.arange(5, backend="cubed"), np.arange(5)),
    (lambda: interop.full((2,), 7.0, backend="cubed"), np.full(2, 7, np.float32)),
    (lambda: interop.eye(3, 2, backend="cubed"), np.eye(3, 2, dtype=np.float32)),
    (lambda: interop.linspace(0, 1, 5, backend="cubed"), np.linspace(0, 1, 5, dtype=np.float32)),
    (lambda: interop.zeros_like(lazy()), np.zeros_like(HOST)),
])
def test_creation(make, expected):
    t = make()
    np.testing.assert_allclose(values(t), expected)
    assert values(t).dtype == expected.dtype


def test_spec_and_chunks_options():
    spec = bounded("100MB")
    t = lazy(chunks=2, spec=spec)
    assert t.raw.spec is spec and t.raw.chunksize == (2, 2)
    assert t.to(backend="cubed", chunks=(3, 4)).raw.chunksize == (3, 4)


# ------------------------------------------------------------------ the torch surface
CASES = {
    "add": lambda m, x: m.add(x, 1.5),
    "mul_operator": lambda m, x: x * x - 2 / (x + 3),
    "exp": lambda m, x: m.exp(x),
    "sum_dim": lambda m, x: m.sum(x, 1),
    "mean": lambda m, x: x.mean(),
    "amax": lambda m, x: m.amax(x, 0),
    "argmax": lambda m, x: m.argmax(x, 1),
    "cumsum": lambda m, x: m.cumsum(x, 0),
    "matmul": lambda m, x: x @ x.T,
    "softmax": lambda m, x: m.softmax(x, 1),
    "relu": lambda m, x: m.relu(x),
    "where": lambda m, x: m.where(x > 0, x, -x),
    "reshape": lambda m, x: x.reshape(4, 3),
    "permute": lambda m, x: x.permute(1, 0),
    "cat": lambda m, x: m.cat([x, x], 0),
    "stack": lambda m, x: m.stack([x, x], 1),
    "index": lambda m, x: x[1:, ::2],
    "index_list": lambda m, x: x[:, [2, 0, 2]],
    "flip": lambda m, x: m.flip(x, [0]),
    "clamp": lambda m, x: m.clamp(x, -0.5, 0.5),
    "std": lambda m, x: m.std(x, 0),
    "sort": lambda m, x: m.sort(x, 1, descending=True)[0],
    "topk": lambda m, x: m.topk(x, 2)[0],
    "einsum": lambda m, x: m.einsum("ij,kj->ik", x, x),
    "norm": lambda m, x: m.linalg.norm(x),
    "tril": lambda m, x: m.tril(x),
    "pad": lambda m, x: m.nn.functional.pad(x, (1, 2)),
}


@pytest.mark.parametrize("name", CASES)
def test_torch_functions_match_torch(name):
    expected = CASES[name](torch, torch.tensor(HOST)).numpy()
    with cubed.raise_if_computes():  # building the result computes nothing
        t = CASES[name](torch, lazy(chunks=2))
    np.testing.assert_allclose(values(t), expected, rtol=1e-5, atol=1e-6)
    assert values(t).dtype == expected.dtype


def test_negative_steps_as_numpy():
    """Cubed refuses negative steps: the backend flips, then slices forward."""
    t = lazy(chunks=2)
    np.testing.assert_array_equal(values(t[::-1, 1]), HOST[::-1, 1])
    np.testing.assert_array_equal(values(t[2:0:-2, ::-3]), HOST[2:0:-2, ::-3])


def test_interop_functions_and_methods():
    t = lazy(chunks=2)
    np.testing.assert_allclose(values(interop.sum(t, dim=0)), HOST.sum(0), rtol=1e-6)
    np.testing.assert_allclose(values(t.abs().max(dim=1).values), np.abs(HOST).max(1))
    np.testing.assert_allclose(values(t.sigmoid()), torch.sigmoid(torch.tensor(HOST)).numpy(),
                               rtol=1e-6)


# ------------------------------------------------------------------ the NumPy surface
NUMPY_CASES = {
    "exp": lambda x: np.exp(x),
    "add": lambda x: np.add(x, 1),
    "mean": lambda x: np.mean(x, axis=0),
    "sum": lambda x: np.sum(x),
    "add.reduce": lambda x: np.add.reduce(x, axis=1),
    "maximum.accumulate": lambda x: np.maximum.accumulate(x, axis=1),
    "concatenate": lambda x: np.concatenate([x, x]),
    "transpose": lambda x: np.transpose(x),
    "einsum": lambda x: np.einsum("ij->j", x),
    "sort": lambda x: np.sort(x, axis=0),
    "arctan2": lambda x: np.arctan2(x, 2.0),
}


@pytest.mark.parametrize("name", NUMPY_CASES)
def test_numpy_functions_and_ufuncs_stay_lazy(name):
    with cubed.raise_if_computes():
        t = NUMPY_CASES[name](lazy(chunks=2))
    assert isinstance(t, interop.Tensor)
    np.testing.assert_allclose(values(t), NUMPY_CASES[name](HOST), rtol=1e-6)


def test_without_interop_numpy_computes_silently():
    """Why the backend exists: NumPy on a bare Cubed array computes it into an ndarray."""
    assert type(np.exp(cubed.asarray(HOST))) is np.ndarray
    assert isinstance(np.exp(lazy()).raw, cubed.Array)


# ------------------------------------------------------------------ the Array API surface
def test_array_api_namespace():
    t = lazy(chunks=2)
    xp = t.__array_namespace__()
    with cubed.raise_if_computes():
        out = xp.mean(xp.sqrt(xp.abs(t)), axis=1)
        made = xp.zeros(3, device=t.device)
    np.testing.assert_allclose(values(out), np.sqrt(np.abs(HOST)).mean(1), rtol=1e-6)
    assert made.backend == "cubed"


def test_array_api_asarray_converts_the_dtype():
    """Cubed 0.27's asarray returns a Cubed array unchanged whatever dtype asks for."""
    t = interop.tensor(np.arange(4), backend="cubed")
    xp = t.__array_namespace__()
    out = xp.asarray(t, dtype=xp.float64, copy=True)
    assert out.dtype == np.float64 and out.backend == "cubed"
    np.testing.assert_array_equal(values(out), np.arange(4.0))
    assert xp.asarray(t, dtype=xp.int64).dtype == np.int64
    with pytest.raises(ValueError, match="copy"):
        xp.asarray(t, dtype=xp.float64, copy=False)


# ------------------------------------------------------------------ mixing
def test_numpy_with_cubed_is_cubed():
    for out in (lazy() + interop.tensor(HOST), interop.tensor(HOST) + lazy(), lazy() + HOST):
        assert out.backend == "cubed"
        np.testing.assert_allclose(values(out), HOST * 2)


def test_dask_with_cubed_is_an_error_naming_both():
    pytest.importorskip("dask.array")
    d = interop.tensor(HOST, backend="dask")
    with pytest.raises(TypeError, match=r"cubed and dask.*t\.to\(backend="):
        d + lazy()
    moved = d.to(backend="cubed") + lazy()  # the explicit move
    np.testing.assert_allclose(values(moved), HOST * 2)


def test_moves_between_backends():
    t = lazy(chunks=2)
    assert t.to(backend="numpy").backend == "numpy"
    np.testing.assert_allclose(t.to(backend="numpy").numpy(), HOST)
    assert interop.tensor(t, backend="cubed") .backend == "cubed"


# ------------------------------------------------------------------ value reads and compute
READS = {"item()": lambda t: t.item(), "bool()": bool, "float()": float,
         "tolist()": lambda t: t.tolist(), "np.asarray": np.asarray,
         "np.from_dlpack": np.from_dlpack}


@pytest.mark.parametrize("name", READS)
def test_value_reads_follow_the_policy(name):
    t = lazy().sum()
    expected = float(HOST.sum())
    with interop.config(dask_compute="raise"), \
            pytest.raises(interop.DaskComputeError, match=r"Cubed tensor.*t\.compute\(\)"):
        READS[name](t)
    with interop.config(dask_compute="warn"), pytest.warns(interop.DaskComputeWarning):
        value = READS[name](t)
    np.testing.assert_allclose(np.asarray(value, dtype=float), expected if name != "bool()"
                               else True, rtol=1e-6)
    with interop.config(dask_compute="allow"), warnings.catch_warnings():
        warnings.simplefilter("error")
        READS[name](t)


def test_dlpack_exports_the_computed_values():
    t = lazy(chunks=2)
    assert t.__dlpack_device__() == (1, 0)  # the host, without computing
    with interop.config(dask_compute="allow"):
        np.testing.assert_array_equal(np.from_dlpack(t), HOST)
    with pytest.raises(BufferError, match="lazy graph"):
        t.__dlpack__(copy=False)


def test_compute_persist_and_visualize(tmp_path):
    t = lazy(chunks=2) * 2
    with interop.config(dask_compute="raise"):  # explicit calls are always allowed
        done = t.compute()
        kept = t.persist()
        (_, b) = interop.compute(t, t + 1)
    assert done.backend == "numpy" and kept.backend == "cubed"
    np.testing.assert_allclose(done.numpy(), HOST * 2)
    np.testing.assert_allclose(values(kept), HOST * 2)
    np.testing.assert_allclose(b.numpy(), HOST * 2 + 1)
    assert kept.raw.chunks == t.raw.chunks
    assert t.visualize == t.raw.visualize  # Cubed's own plan drawing
    assert not hasattr(t, "__dask_graph__")  # a Cubed tensor is no Dask collection
    pytest.importorskip("graphviz")
    try:
        t.visualize(filename=str(tmp_path / "plan"), format="dot")
    except Exception as exc:  # noqa: BLE001 - graphviz's binary may be absent
        pytest.skip(f"graphviz cannot render here: {exc}")
    assert (tmp_path / "plan.dot").exists()


def test_value_dependent_sizes_read_through_the_gate():
    t = lazy(chunks=2)
    with interop.config(dask_compute="raise"), pytest.raises(interop.DaskComputeError):
        interop.nonzero(t > 0)
    np.testing.assert_array_equal(values(interop.nonzero(t > 0)), np.argwhere(HOST > 0))


# ------------------------------------------------------------------ writes
WRITES = {
    "setitem row": lambda t: t.__setitem__(1, 5.0),
    "setitem slices": lambda t: t.__setitem__((slice(None, None, 2), slice(1, 3)),
                                              -torch.ones((2, 2))),
    "setitem column": lambda t: t.__setitem__((slice(None), 2), torch.arange(3.0)),
    "setitem mask": lambda t: t.__setitem__(t > 0, 0.0),
    "setitem list": lambda t: t.__setitem__(([0, 2], [1, 3]), 9.0),
    "add_": lambda t: t.add_(1),
    "mul_ operator": lambda t: t.__imul__(3),
    "out=": lambda t: torch.add(t, 1, out=t),
    "index_put_": lambda t: t.index_put_((torch.tensor([0, 2]),), torch.tensor(7.0)),
    "masked_fill_": lambda t: t.masked_fill_(t < 0, 2.0),
    "zero_": lambda t: t.zero_(),
    "clamp_": lambda t: t.clamp_(-0.5, 0.5),
}


@pytest.mark.parametrize("name", WRITES)
def test_writes_match_torch(name):
    expected = torch.tensor(HOST)
    WRITES[name](expected)
    t = lazy(chunks=2)
    before = t + 0  # built on t's array before the write: keeps the old values
    with cubed.raise_if_computes():
        WRITES[name](t)
    assert t.backend == "cubed"
    np.testing.assert_array_equal(values(t), expected.numpy())
    np.testing.assert_array_equal(values(before), HOST)


def test_setitem_negative_steps_as_numpy():
    expected, t = HOST.copy(), lazy(chunks=2)
    for index, value in [((slice(None, None, -2), slice(3, 0, -2)), -np.ones((2, 2))),
                         ((0, slice(None, None, -1)), np.arange(4.0)), ((2, 1), 8.0)]:
        expected[index] = value
        t[index] = value
    np.testing.assert_array_equal(values(t), expected)


VIEW_WRITES = {
    "row add_": lambda t: t[0].add_(1),
    "transpose zero_": lambda t: t.T[1].zero_(),
    "slice fill_": lambda t: t[:, 1:3].fill_(2.0),
    "setitem into a view": lambda t: t[1:].__setitem__((0, 2), 7.0),
    "augmented subscript": lambda t: t.__setitem__(slice(0, 2), t[0:2].__iadd__(10)),
    "diagonal mul_": lambda t: t.diagonal().mul_(-1),
}


@pytest.mark.parametrize("name", VIEW_WRITES)
def test_writes_through_views_reach_the_tensor(name):
    """Replayed into the base, whose plan is replaced in place; what was built on the base
    before keeps the values it had."""
    expected = torch.tensor(HOST)
    VIEW_WRITES[name](expected)
    t = lazy(chunks=2)
    before = (t + 0, t.sum(0), t[1:], torch.cat([t, t]), t.reshape(4, 3))
    with cubed.raise_if_computes():
        VIEW_WRITES[name](t)
    np.testing.assert_array_equal(values(t), expected.numpy())
    np.testing.assert_array_equal(values(before[0]), HOST)
    np.testing.assert_allclose(values(before[1]), HOST.sum(0), rtol=1e-6)
    np.testing.assert_array_equal(values(before[2]), HOST[1:])
    np.testing.assert_array_equal(values(before[3]), np.concatenate([HOST, HOST]))
    np.testing.assert_array_equal(values(before[4]), HOST.reshape(4, 3))


def test_numpy_out_and_at_on_cubed():
    t = lazy(chunks=2)
    with pytest.raises(TypeError, match="immutable"):
        np.add(t, 1, out=t)
    np.add.at(t, [0, 0, 2], 1.0)
    expected = HOST.copy()
    np.add.at(expected, [0, 0, 2], 1.0)
    np.testing.assert_array_equal(values(t), expected)


# ------------------------------------------------------------------ edge shapes
def test_zero_dim_and_empty():
    s = interop.tensor(np.float32(2.5), backend="cubed")
    assert s.shape == () and values(s * 2) == 5.0
    assert values(s.sum()) == 2.5 and s.item() == 2.5
    e = interop.tensor(np.zeros((0, 4), np.float32), backend="cubed")
    assert values(e.sum(0)).tolist() == [0.0] * 4
    assert values(e + 1).shape == (0, 4)
    assert values(interop.cat([e, lazy()[:1]])).shape == (1, 4)


# ------------------------------------------------------------------ the memory bound
def test_reduction_larger_than_allowed_mem_stays_within_it():
    """The issue's test: a 16 MB array summed under allowed_mem=4 MB; Cubed's plan projects
    each task's memory, and every one stays within the bound."""
    allowed = 4_000_000
    spec = bounded(allowed)
    n = 2_000_000  # float64: 16 MB, four times allowed_mem
    host = np.arange(n, dtype=np.float64) % 7
    t = interop.tensor(host, backend="cubed", chunks=100_000, spec=spec)
    assert t.raw.nbytes > 3 * allowed
    with cubed.raise_if_computes():
        total = (t * 2).sum()
        mean = torch.mean(t)
    plan = total.raw.plan()
    assert 0 < plan.max_projected_mem <= allowed
    assert mean.raw.plan().max_projected_mem <= allowed
    assert values(total) == host.sum() * 2
    np.testing.assert_allclose(values(mean), host.mean())


def test_whole_array_fallback_is_refused_when_it_cannot_fit():
    """A NumPy function Cubed lacks runs in one task: Cubed refuses the plan at planning time
    when that task would exceed allowed_mem, instead of running out of memory."""
    spec = bounded(2_000_000)
    t = interop.tensor(np.zeros(1_000_000), backend="cubed", chunks=50_000, spec=spec)
    with pytest.raises(ValueError, match="allowed_mem"):
        np.sort(t).compute()


# ------------------------------------------------------------------ consumers
def test_xarray_keeps_cubed_tensors_lazily():
    """tests/test_consumers_xarray.py's operations on a Cubed-backed DataArray: the results
    are Cubed tensors equal to NumPy's (``python -m tests.helpers.array_api_consumers xarray
    cubed``), and building them computes nothing."""
    pytest.importorskip("xarray")
    from tests import test_consumers_xarray as xarray_cases
    t = interop.tensor(xarray_cases.A, backend="cubed")
    for name, operation in xarray_cases.OPERATIONS.items():
        with interop.config(dask_compute="raise"):
            operation(xarray_cases._array(t))
        xarray_cases.test_dataarray_keeps_tensor(name, "cubed")
