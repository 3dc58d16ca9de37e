"""A real dask.distributed cluster: 2 worker processes, 1 thread each (one module-scoped
fixture).  Interop graphs, subclasses with attributes and torch-style code run on the
workers, through pickling, and match NumPy."""

from __future__ import annotations

import os

import numpy as np
import pytest

import interop

distributed = pytest.importorskip("distributed")


class Tagged(interop.Tensor):
    """Module level, so workers unpickle it by reference."""


def _pid_block(block: interop.Tensor) -> interop.Tensor:
    return interop.full((1,), os.getpid(), backend=block.backend)


@pytest.fixture
def host() -> np.ndarray:
    return np.random.default_rng(5).standard_normal((400, 30))


def test_reduction_runs_on_the_workers(client, host):
    t = interop.tensor(host, backend="dask", chunks=(50, 30))
    pids = t.map_blocks(_pid_block, chunks=(1,), drop_axis=1, dtype=np.int64)
    col, std, seen = interop.compute(t.sum(dim=0), t.std(), pids)  # the client is the scheduler
    np.testing.assert_allclose(col.raw, host.sum(axis=0))
    np.testing.assert_allclose(std.raw, host.std(ddof=1))
    workers = set(client.run(os.getpid).values())
    assert set(seen.raw.tolist()) <= workers and os.getpid() not in workers


def test_torch_style_computation(client, host):
    x = interop.tensor(host, backend="dask", chunks=(100, 30))
    w = interop.tensor(np.linspace(-1, 1, 30 * 4).reshape(30, 4), backend="dask")
    logits = (x @ w + 0.5).clamp(min=0)                             # linear + relu
    probs = logits.exp() / logits.exp().sum(dim=1, keepdim=True)     # softmax
    out = probs.mean(dim=0).compute()
    ref_logits = np.maximum(host @ np.linspace(-1, 1, 120).reshape(30, 4) + 0.5, 0)
    ref = (np.exp(ref_logits) / np.exp(ref_logits).sum(axis=1, keepdims=True)).mean(axis=0)
    np.testing.assert_allclose(out.raw, ref)


def test_torch_functions_on_the_cluster(client, host):
    torch = pytest.importorskip("torch")
    x = interop.tensor(host, backend="dask", chunks=(100, 30))
    def net(v):
        h = torch.clamp(torch.matmul(torch.tanh(v), v.T[:, :5]), min=0)
        return torch.sum(torch.sigmoid(h) * torch.exp(-h), dim=0)

    y = net(x)
    assert isinstance(y, interop.Tensor) and y.backend == "dask"
    ref = net(torch.from_numpy(host))
    np.testing.assert_allclose(y.compute().raw, ref.numpy())


def test_subclass_and_attributes_travel_to_workers_and_back(client, host):
    t = interop.tensor(host[:4]).as_subclass(Tagged)
    t.unit = "m"
    future = client.submit(lambda s: (s * 2).sum(dim=1), t)
    out = future.result(timeout=60)
    assert type(out) is Tagged and out.unit == "m" and out.backend == "numpy"
    np.testing.assert_allclose(out.raw, (host[:4] * 2).sum(axis=1))


def test_persist_keeps_chunks_on_the_cluster(client, host):
    t = interop.tensor(host, backend="dask", chunks=(100, 30)) * 2
    p = t.persist()
    distributed.wait(p.raw)
    assert p.backend == "dask" and len(client.who_has(p.raw)) == p.raw.npartitions
    np.testing.assert_allclose(p.sum(dim=0).compute().raw, (host * 2).sum(axis=0))


# ------------------------------------------------------------------ the client sees tensors as collections
def _tagged_lazy(host: np.ndarray) -> Tagged:
    t = interop.tensor(host, backend="dask", chunks=(100, 30)).as_subclass(Tagged)
    t.unit = "m"
    return t


def test_client_compute_returns_the_subclass_with_attributes(client, host):
    with distributed.get_task_stream(client) as building:
        lazy = (_tagged_lazy(host) * 2).sum(dim=0)
    assert not building.data  # no task ran on the cluster before the call
    with distributed.get_task_stream(client) as running:
        out = client.compute(lazy).result(timeout=60)
    assert running.data
    assert type(out) is Tagged and out.unit == "m" and out.backend == "numpy"
    np.testing.assert_allclose(out.raw, (host * 2).sum(axis=0))


def test_client_persist_keeps_the_subclass_on_the_cluster(client, host):
    p = client.persist(_tagged_lazy(host) + 1)
    assert type(p) is Tagged and p.unit == "m" and p.backend == "dask"
    distributed.wait(p)
    assert len(client.who_has(p)) == p.raw.npartitions
    np.testing.assert_allclose(p.compute().raw, host + 1)


def test_scattered_tensor_feeds_tasks(client, host):
    t = interop.tensor(host[:5]).as_subclass(Tagged)
    t.unit = "s"
    future = client.scatter(t)
    out = client.submit(lambda s: s.mean(dim=0), future).result(timeout=60)
    assert type(out) is Tagged and out.unit == "s"
    np.testing.assert_allclose(out.raw, host[:5].mean(axis=0))


def test_delayed_on_the_cluster(client, host):
    import dask
    total = dask.delayed(lambda s: (type(s).__name__, s.backend, float(s.sum())))(_tagged_lazy(host))
    assert client.compute(total).result(timeout=60) == ("Tagged", "numpy", pytest.approx(host.sum()))
