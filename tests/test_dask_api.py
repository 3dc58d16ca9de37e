"""Dask's API on the tensor: chunks=, t.chunks, rechunk, compute, persist, map_blocks,
interop.compute over several tensors (one graph), results keeping subclass and attributes."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy

da = pytest.importorskip("dask.array")


class Meters(interop.Tensor):
    """A subclass with an attribute that must survive compute()."""


def _meters(t: interop.Tensor) -> Meters:
    m = t.as_subclass(Meters)
    m.unit = "m"
    return m


@pytest.fixture
def host() -> np.ndarray:
    return np.arange(24.0).reshape(4, 6)


# ------------------------------------------------------------------ chunks=
def test_tensor_chunks_as_dask_would_cut(host):
    t = interop.tensor(host, backend="dask", chunks=(2, 3))
    assert t.chunks == da.from_array(host, chunks=(2, 3)).chunks == ((2, 2), (3, 3))
    np.testing.assert_array_equal(to_numpy(t), host)


@pytest.mark.parametrize("make", [
    lambda **k: interop.zeros(4, 6, **k), lambda **k: interop.ones(4, 6, **k),
    lambda **k: interop.empty(4, 6, **k), lambda **k: interop.full((4, 6), 2.0, **k),
    lambda **k: interop.rand(4, 6, **k), lambda **k: interop.randn(4, 6, **k),
    lambda **k: interop.randint(0, 5, (4, 6), **k),
], ids=["zeros", "ones", "empty", "full", "rand", "randn", "randint"])
def test_creation_functions_take_chunks(make):
    t = make(backend="dask", chunks=(2, 3))
    assert t.backend == "dask" and t.chunks == ((2, 2), (3, 3)) and t.shape == (4, 6)


@pytest.mark.parametrize("make, expected", [
    (lambda **k: interop.arange(10, **k), np.arange(10)),
    (lambda **k: interop.linspace(0, 1, 10, **k), np.linspace(0, 1, 10, dtype=np.float32)),
    (lambda **k: interop.eye(10, **k), np.eye(10, dtype=np.float32)),
], ids=["arange", "linspace", "eye"])
def test_creation_functions_chunked_values(make, expected):
    t = make(backend="dask", chunks=4)
    assert t.chunks[0] == (4, 4, 2)
    np.testing.assert_allclose(to_numpy(t), expected)


def test_only_dask_tensors_have_chunks(backend, host):
    t = interop.tensor(host, backend=backend)
    assert hasattr(t, "chunks") == (backend == "dask")


def test_to_dask_with_chunks_and_back(host):
    t = interop.tensor(host).to(backend="dask", chunks=(4, 2))
    assert t.backend == "dask" and t.chunks == ((4,), (2, 2, 2))
    back = t.to(backend="numpy")
    assert back.backend == "numpy"
    np.testing.assert_array_equal(back.numpy(), host)


# ------------------------------------------------------------------ rechunk
def test_rechunk_keeps_values_and_subclass(host):
    t = _meters(interop.tensor(host, backend="dask", chunks=(1, 6)))
    r = t.rechunk((4, 2))
    assert type(r) is Meters and r.unit == "m" and r.chunks == ((4,), (2, 2, 2))
    np.testing.assert_array_equal(to_numpy(r), host)


def test_rechunk_needs_a_dask_tensor(host):
    with pytest.raises(TypeError, match=r"rechunk.*to\(backend='dask'"):
        interop.tensor(host).rechunk(2)


# ------------------------------------------------------------------ compute / persist
def test_compute_gives_chunk_backend_tensor_with_subclass(host):
    t = _meters(interop.tensor(host, backend="dask", chunks=2))
    out = (t * 2).sum(dim=0).compute()
    assert type(out) is Meters and out.unit == "m" and out.backend == "numpy"
    np.testing.assert_array_equal(out.raw, (host * 2).sum(axis=0))


def test_compute_and_persist_are_identity_on_eager(backend, host):
    t = interop.tensor(host, backend=backend)
    for method in ("compute", "persist"):
        out = getattr(t, method)()
        assert out.backend == ("numpy" if backend == "dask" and method == "compute"
                               else backend)
        np.testing.assert_array_equal(to_numpy(out), host)


def test_persist_stays_lazy_with_chunks_in_memory(host):
    t = interop.tensor(host, backend="dask", chunks=2) + 1
    p = t.persist()
    assert p.backend == "dask" and p.chunks == t.chunks
    assert len(p.raw.dask) == p.raw.npartitions  # only the held chunks remain in the graph
    np.testing.assert_array_equal(to_numpy(p), host + 1)


def _counting_source(host: np.ndarray, calls: list) -> interop.Tensor:
    lock = threading.Lock()

    def count(block):
        with lock:
            calls.append(1)
        return block

    base = interop.tensor(host, backend="dask", chunks=(2, 6))
    return base.map_blocks(count, dtype=base.dtype, meta=np.empty((0, 0)))  # no meta inference


def test_interop_compute_is_one_graph(host):
    calls: list = []
    src = _counting_source(host, calls)
    a, b = interop.compute(src.sum(), src.mean(dim=1), scheduler="sync")
    assert len(calls) == 2  # two chunks, each computed once for both results
    np.testing.assert_allclose(a.raw, host.sum())
    np.testing.assert_allclose(b.raw, host.mean(axis=1))
    calls.clear()
    src.sum().compute(scheduler="sync"), src.mean(dim=1).compute(scheduler="sync")
    assert len(calls) == 4  # separately: twice


def test_interop_compute_keeps_each_class_and_attributes(host):
    m = _meters(interop.tensor(host, backend="dask", chunks=2))
    s = _meters(interop.tensor(host, backend="dask", chunks=2))
    s.unit = "s"
    plain = interop.tensor(host)
    a, b, c, d = interop.compute(m.sum(), s.max(), plain, 3)
    assert (type(a), a.unit, type(b), b.unit) == (Meters, "m", Meters, "s")
    assert type(c) is interop.Tensor and c.raw is plain.raw and d == 3
    (p,) = interop.persist(m)
    assert type(p) is Meters and p.unit == "m" and p.backend == "dask"


def test_subclass_hook_sees_dask_methods(host):
    seen = []

    class Logged(interop.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs)

    t = interop.tensor(host, backend="dask", chunks=2).as_subclass(Logged)
    out = t.rechunk(4).map_blocks(lambda b: b + 1).compute()
    assert type(out) is Logged
    assert seen == ["rechunk", "map_blocks", "compute"]


# ------------------------------------------------------------------ map_blocks
def test_map_blocks_gets_and_returns_tensors_on_chunk_backend(host):
    kinds = []

    def fn(block):
        kinds.append((type(block), block.backend))
        return block.abs() * block.sum(dim=1, keepdim=True)

    t = interop.tensor(host - 10, backend="dask", chunks=(2, 6))
    out = t.map_blocks(fn)
    assert out.backend == "dask"
    ref = np.concatenate([np.abs(b) * b.sum(axis=1, keepdims=True)
                          for b in np.split(host - 10, 2)])
    np.testing.assert_allclose(to_numpy(out), ref)
    assert set(kinds) == {(interop.Tensor, "numpy")}


def test_map_blocks_aligns_tensor_arguments_and_block_id(host):
    x = interop.tensor(host, backend="dask", chunks=(2, 3))
    y = interop.tensor(np.ones_like(host), backend="dask", chunks=(2, 3))

    def fn(a, b, block_id=None):
        return a + b * (10 * block_id[0] + block_id[1])

    ids = np.repeat(np.repeat([[0.0, 1.0], [10.0, 11.0]], 2, axis=0), 3, axis=1)
    np.testing.assert_allclose(to_numpy(x.map_blocks(fn, y, dtype=x.dtype)), host + ids)


def test_map_blocks_changing_shape(host):
    t = interop.tensor(host, backend="dask", chunks=(2, 6))
    out = t.map_blocks(lambda b: b.sum(dim=1), drop_axis=1, dtype=np.float64)
    np.testing.assert_allclose(to_numpy(out), host.sum(axis=1))


def test_map_blocks_on_eager_tensor_is_one_block(backend, host):
    t = interop.tensor(host, backend=backend)
    out = t.map_blocks(lambda b: b * 2)
    assert out.backend == backend
    np.testing.assert_array_equal(to_numpy(out), host * 2)
