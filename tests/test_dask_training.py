"""Training where the data lives: an unmodified torch loop (``DataLoader`` over a
``TensorDataset`` of Dask-backed tensors, cross-entropy, ``loss.backward()``, SGD with
momentum) over a model moved by ``interop.to_backend(model, "dask")``.

Each step's graph is bounded (the optimizer's state is persisted after ``optimizer.step()``:
the graph computed at step n has step 2's task count, the weights' graphs hold only their
chunks), a collated batch is one selection of rows (not a graph per sample), gradient
accumulation over k minibatches equals torch's and runs on the workers that hold the
minibatches, on a real 2-worker ``distributed`` cluster, and under ``dask_compute="raise"``
the loop refuses at the step.  Every comparison is with plain torch on the same batches in
the same order (float32)."""

from __future__ import annotations

import numpy as np
import pytest

import interop
from interop.errors import DaskComputeError

torch = pytest.importorskip("torch")
pytest.importorskip("dask")
from dask.callbacks import Callback  # noqa: E402  (after the skip)
from dask.utils import key_split  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

N, CHUNK, BATCH = 64, 16, 8  # 4 chunks of 16 samples; batches of 8: 8 steps an epoch
TOL = {"rtol": 1e-5, "atol": 1e-6}


class GraphSizes(Callback):
    """The task count of each graph Dask's local schedulers run in the block."""

    def __init__(self) -> None:
        super().__init__()
        self.tasks: list[int] = []

    def _start(self, dsk) -> None:  # noqa: ANN001 - Dask's callback signature
        self.tasks.append(len(dsk))


def cnn() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
        torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(4 * 4 * 4, 3))


def data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.standard_normal((N, 1, 8, 8), dtype=np.float32), rng.integers(0, 3, N)


def on_dask(x: np.ndarray, y: np.ndarray) -> TensorDataset:
    return TensorDataset(interop.tensor(x, backend="dask", chunks=(CHUNK, 1, 8, 8)).as_torch(),
                         interop.tensor(y, backend="dask", chunks=CHUNK).as_torch())


def on_torch(x: np.ndarray, y: np.ndarray) -> TensorDataset:
    return TensorDataset(torch.from_numpy(x), torch.from_numpy(y))


def train(model: torch.nn.Module, dataset: TensorDataset, accumulate: int = 1,
          batch_size: int = BATCH, kept: list | None = None) -> torch.nn.Module:
    """One epoch of an unmodified loop; ``accumulate`` minibatches per optimizer step;
    ``kept`` collects each step's last loss, detached, to be read after the loop."""
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    opt.zero_grad()
    for i, (xb, yb) in enumerate(DataLoader(dataset, batch_size=batch_size)):
        loss = torch.nn.functional.cross_entropy(model(xb), yb) / accumulate
        loss.backward()
        if (i + 1) % accumulate == 0:
            opt.step()
            opt.zero_grad()
            if kept is not None:
                kept.append(loss.detach())
    return model


def assert_same_state(model: torch.nn.Module, expected: torch.nn.Module) -> None:
    want = expected.state_dict()
    for name, have in model.state_dict().items():
        assert isinstance(have, interop.TorchTensor) and have.backend == "dask", name
        np.testing.assert_allclose(np.asarray(have.as_interop().numpy()), want[name].numpy(),
                                   err_msg=name, **TOL)


def test_each_step_is_one_bounded_graph_and_the_weights_are_torchs():
    x, y = data()
    expected = train(cnn(), on_torch(x, y))
    model = interop.to_backend(cnn(), "dask")
    with GraphSizes() as graphs:
        train(model, on_dask(x, y))
    steps = N // BATCH
    assert len(graphs.tasks) == steps, "one persist per optimizer.step(), nothing else"
    assert graphs.tasks[1:] == [graphs.tasks[1]] * (steps - 1), graphs.tasks  # step n = step 2
    for name, t in model.state_dict().items():  # the state is its chunks, no history
        raw = t.as_interop().raw
        assert len(raw.__dask_graph__()) == raw.npartitions, name
    assert_same_state(model, expected)


def test_without_persisting_the_graph_grows_with_the_steps():
    x, y = data()
    model = interop.to_backend(cnn(), "dask")
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    sizes = []
    with interop.config(persist_state="never"), GraphSizes() as graphs:
        for xb, yb in DataLoader(on_dask(x, y), batch_size=BATCH):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(xb), yb).backward()
            opt.step()
            sizes.append(len(model[0].weight.as_interop().raw.__dask_graph__()))
    assert graphs.tasks == [] and sizes == sorted(sizes) and sizes[-1] > 4 * sizes[0]


@pytest.mark.parametrize("shuffle", [False, True])
def test_a_collated_batch_is_one_selection_of_rows(shuffle):
    x, y = data()
    dataset = on_dask(x, y)
    own = len(dataset.tensors[0].as_interop().raw.__dask_graph__())
    loaders = [DataLoader(d, batch_size=16, shuffle=shuffle,
                          generator=torch.Generator().manual_seed(3))
               for d in (dataset, on_torch(x, y))]
    for (xb, yb), (xr, yr) in zip(*loaders):
        raw = xb.as_interop().raw
        # a slice (one task), or Dask's take (a few tasks per chunk touched, 10 here for 16
        # samples from 4 chunks): never a task per sample
        assert len(raw.__dask_graph__()) - own <= (1 if not shuffle else 3 * N // CHUNK)
        np.testing.assert_array_equal(np.asarray(xb.as_interop().numpy()), xr.numpy())
        np.testing.assert_array_equal(np.asarray(yb.as_interop().numpy()), yr.numpy())


def test_gradient_accumulation_equals_torchs():
    x, y = data()
    expected = train(cnn(), on_torch(x, y), accumulate=4)
    model = interop.to_backend(cnn(), "dask")
    with GraphSizes() as graphs:
        train(model, on_dask(x, y), accumulate=4)
    assert len(graphs.tasks) == N // BATCH // 4  # one persist per step, none per backward
    assert_same_state(model, expected)


def test_kept_losses_are_computed_with_their_step_and_equal_torchs():
    """A loop that keeps its losses to read after it: each is persisted with its step (the
    step's one graph), so reading them runs their chunks, not each step's forward again."""
    x, y = data()
    want: list = []
    train(cnn(), on_torch(x, y), kept=want)
    model = interop.to_backend(cnn(), "dask")
    kept: list = []
    with GraphSizes() as graphs:
        train(model, on_dask(x, y), kept=kept)
    assert len(graphs.tasks) == N // BATCH and len(kept) == N // BATCH
    for loss in kept:
        assert len(loss.as_interop().raw.__dask_graph__()) == 1
    with GraphSizes() as reads:
        have = interop.compute(*(loss.as_interop() for loss in kept))
    assert sum(reads.tasks) <= 2 * len(kept), reads.tasks  # a chunk each (and a gather)
    np.testing.assert_allclose([float(v) for v in have], [float(w) for w in want], **TOL)


def test_a_step_takes_only_its_threads_lazy_scalars():
    """Only lazy scalars the loop's thread made join its step: an eager one is already a
    value, and another thread's sum over the data is that thread's to compute."""
    import threading
    x, y = data()
    model = interop.to_backend(cnn(), "dask")
    eager = interop.tensor(1.5).as_torch() * 2
    elsewhere: list = []
    maker = threading.Thread(target=lambda: elsewhere.append(
        interop.tensor(x, backend="dask", chunks=CHUNK).as_torch().sum()))
    maker.start()
    maker.join()
    with GraphSizes() as graphs:
        train(model, on_dask(x, y))
    assert len(graphs.tasks) == N // BATCH and float(eager) == 3.0
    assert len(elsewhere[0].as_interop().raw.__dask_graph__()) > 1  # still its graph
    np.testing.assert_allclose(float(elsewhere[0]), x.sum(), rtol=1e-6)


def test_two_asyncio_tasks_training_in_one_thread_keep_their_losses():
    """Two loops interleaved in one thread (asyncio tasks) share the thread's set of lazy
    scalars, so a step may persist the other loop's loss early: each loop's weights and kept
    losses are still torch's."""
    import asyncio
    x, y = data()
    want: list = []
    expected = train(cnn(), on_torch(x, y), kept=want)

    async def loop(kept: list) -> torch.nn.Module:
        model = interop.to_backend(cnn(), "dask")
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        for xb, yb in DataLoader(on_dask(x, y), batch_size=BATCH):
            loss = torch.nn.functional.cross_entropy(model(xb), yb)
            await asyncio.sleep(0)  # the other loop's forward in between
            loss.backward()
            opt.step()
            opt.zero_grad()
            kept.append(loss.detach())
            await asyncio.sleep(0)
        return model

    async def both(kept: list[list]) -> list:
        return await asyncio.gather(*(loop(k) for k in kept))
    kept: list[list] = [[], []]
    for model, losses in zip(asyncio.run(both(kept)), kept):
        assert_same_state(model, expected)
        np.testing.assert_allclose([float(v) for v in losses], [float(w) for w in want], **TOL)


def test_under_raise_the_step_refuses_naming_where_it_would_compute():
    x, y = data()
    model = interop.to_backend(cnn(), "dask")
    kept: list = []
    with interop.config(dask_compute="raise"), GraphSizes() as graphs, \
            pytest.raises(DaskComputeError, match=r"SGD\.step\(\) on a lazy backend") as info:
        train(model, on_dask(x, y), kept=kept)
    assert "persist_state='never'" in str(info.value)
    assert "dask_compute='allow'" in str(info.value)
    assert "1 lazy scalars made since the last step (losses)" in str(info.value)
    assert graphs.tasks == []  # nothing computed, the loss neither


# ------------------------------------------------------------ on a real cluster
distributed = pytest.importorskip("distributed")


def _incoming_keys(dask_worker) -> list:  # noqa: ANN001 - distributed's worker
    return [str(k) for entry in dask_worker.transfer_incoming_log for k in entry["keys"]]


def test_accumulated_minibatches_run_where_their_chunks_are(slow_network_client):
    """Four minibatches (one chunk each, two on each worker), four backward calls, one step:
    the gradients are computed on both workers at once, no data chunk travels, and the
    weights equal torch's."""
    client = slow_network_client
    x, y = data()
    expected = train(cnn(), on_torch(x, y), accumulate=4, batch_size=CHUNK)
    dataset = on_dask(x, y)
    xs, ys = (t.as_interop().raw for t in dataset.tensors)
    import dask.array as da
    ws = sorted(client.scheduler_info()["workers"])  # chunk k lives on worker k // 2
    xb, yb = ([client.persist(a.blocks[k], workers=[ws[k // 2]]) for k in range(a.numblocks[0])]
              for a in (xs, ys))
    distributed.wait([*xb, *yb])
    xp, yp = da.concatenate(xb), da.concatenate(yb)
    who = client.who_has(xb)
    holders = {w for ws in who.values() for w in ws}
    assert len(holders) == 2, who
    dataset = TensorDataset(interop.as_tensor(xp).as_torch(), interop.as_tensor(yp).as_torch())
    model = interop.to_backend(cnn(), "dask")
    client.run(lambda dask_worker: dask_worker.transfer_incoming_log.clear())
    with distributed.get_task_stream(client) as stream:
        train(model, dataset, accumulate=4, batch_size=CHUNK)
        assert_same_state(model, expected)  # (waits for the persisted step)
    moved = client.run(_incoming_keys)
    data_keys = {str(k) for k in who}
    assert not data_keys & {k for keys in moved.values() for k in keys}, moved
    ran_on = {t["worker"] for t in stream.data if "conv" in key_split(t["key"])}
    assert len(ran_on) == 2, ran_on


def test_kept_losses_run_once_on_a_cluster(client):
    """On a cluster the scheduler releases a step's tasks once its state is held: a kept loss
    computed later would run its step's forward again, under the same keys with other
    fusions (Dask warns that this "can cause failures and deadlocks").  Persisted with its
    step, it runs once and the scheduler has nothing to warn about."""
    import logging
    x, y = data()
    want: list = []
    train(cnn(), on_torch(x, y), kept=want)
    model = interop.to_backend(cnn(), "dask")
    kept: list = []
    warned: list = []
    log = logging.getLogger("distributed.scheduler")
    catch = logging.Handler(logging.WARNING)
    catch.emit = warned.append  # type: ignore[method-assign]
    level = log.level
    log.setLevel(logging.WARNING)
    log.addHandler(catch)
    try:
        with distributed.get_task_stream(client) as stream:
            train(model, on_dask(x, y), kept=kept)
            have = interop.compute(*(loss.as_interop() for loss in kept))
    finally:
        log.removeHandler(catch)
        log.setLevel(level)
    forward = [t for t in stream.data if key_split(t["key"]).startswith("conv2d")]
    assert len(forward) == N // BATCH, sorted(key_split(t["key"]) for t in stream.data)
    assert not [r.getMessage() for r in warned if "run_spec" in r.getMessage()]
    np.testing.assert_allclose([float(v) for v in have], [float(w) for w in want], **TOL)
