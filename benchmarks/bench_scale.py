"""Whole programs at scale: a small CNN's inference over chunked images, on Dask, JAX and Cubed.

Run: .venv/bin/python benchmarks/bench_scale.py [--quick] [SECTION ...]

Sections (default: dask resnet jax; ``all`` runs every one):

- ``dask``: the CNN (Conv2d, BatchNorm2d, ReLU, MaxPool2d, Conv2d, ReLU, AdaptiveAvgPool2d,
  Flatten, Linear; eval, random weights) over (4096, 3, 32, 32) float32 in 16 chunks along
  the batch: graph build time, tasks (and per chunk after Dask's optimisation), compute time
  with the threaded scheduler; against the same model run by ``map_blocks`` on interop NumPy
  tensors per block and on torch tensors per block (torch's own kernels), best of repeats,
  alternating; and the largest difference from eager torch.
- ``resnet``: resnet18 (random weights) on a (16, 3, 64, 64) batch in 2 chunks on Dask,
  against the same call on the NumPy backend.
- ``jax``: the CNN under ``jax.jit`` through the JAX backend against the same network written
  with ``jax.lax`` and ``jax.numpy``, per call (64 images).
- ``out-of-core``: a ``distributed.LocalCluster`` of 2 workers with 1 GiB each, the CNN over
  lazily generated images 1.5x the cluster's memory (3 GiB of float32), with each worker's
  peak resident memory (the kernel's count), workers restarted or paused counted, and 3
  sampled chunks checked against eager torch.
- ``cubed``: the CNN on Cubed over images larger than its ``allowed_mem``, with Cubed's
  projected memory of each operation.
- ``training`` (``--kernels auto|interop`` picks the heavy kernels' provider, on the
  workers too): an unmodified torch training loop (``DataLoader``, cross-entropy,
  ``loss.backward()`` twice per step: gradient accumulation over two minibatches, SGD with
  momentum) on a ``LocalCluster`` of 2 workers x 1 GiB, one epoch over a synthetic, learnable
  dataset of 1.5x the cluster's memory (generated chunk by chunk on the workers, never whole
  anywhere), the model moved by ``interop.to_backend(model, "dask")``.  Per step: wall time,
  tasks, bytes moved between workers, CPU time of each kind of work (building the graph and
  scheduling it, making the data, the model's tasks); per worker: peak memory; restarts and
  pauses; against
  the same loop in plain torch on in-memory data of the same batches (its step time the
  ratio's reference, its final weights the check).

Ratios are against the raw alternative measured in the same run; machines are noisy, so no
test asserts on these numbers.  BLAS is held to one thread (threadpoolctl) in every section,
for every side alike, as ``distributed``'s workers hold it: under Dask's threaded scheduler
each task's matmuls otherwise start a BLAS thread per core beside Dask's own (resnet18 on
Dask took 0.65 s instead of 0.41 s), and the eager NumPy side gains nothing from them here.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import numpy as np

import interop


def cnn() -> object:
    """The small CNN (random weights, eval mode)."""
    import torch
    from torch import nn
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3, 16, 3), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Linear(32, 10)).eval()


def resnet18() -> object:
    """resnet18's layout (torchvision's), random weights, eval mode: no torchvision needed."""
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self, cin: int, cout: int, stride: int) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.down = nn.Sequential() if stride == 1 and cin == cout else nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):  # noqa: ANN001, ANN201 - a torch module
            out = torch.relu(self.bn1(self.conv1(x)))
            return torch.relu(self.bn2(self.conv2(out)) + self.down(x))

    torch.manual_seed(0)
    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
              nn.MaxPool2d(3, 2, 1)]
    for cin, cout, stride in ((64, 64, 1), (64, 128, 2), (128, 256, 2), (256, 512, 2)):
        layers += [Block(cin, cout, stride), Block(cout, cout, 1)]
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 1000)]
    return nn.Sequential(*layers).eval()


def _best(fns: list[Callable[[], object]], repeat: int) -> list[float]:
    """Best wall time (s) of each callable, run in turn ``repeat`` times (order alternating)."""
    best = [float("inf")] * len(fns)
    for k in range(repeat):
        for i in (range(len(fns)) if k % 2 == 0 else reversed(range(len(fns)))):
            t0 = time.perf_counter()
            fns[i]()
            best[i] = min(best[i], time.perf_counter() - t0)
    return best


def dask_section(quick: bool) -> None:
    import dask
    import torch
    model, n, chunks = cnn(), 1024 if quick else 4096, 16
    host = np.random.default_rng(0).standard_normal((n, 3, 32, 32)).astype(np.float32)
    x = interop.tensor(host, backend="dask", chunks=(n // chunks, 3, 32, 32))
    with torch.no_grad():
        t0 = time.perf_counter()
        y = model(x)
        build = time.perf_counter() - t0
        expected = model(torch.from_numpy(host)).numpy()
    tasks = len(y.raw.__dask_graph__())
    optimised = len(dask.optimize(y.raw)[0].__dask_graph__())

    def per_block_interop(block: interop.Tensor) -> interop.Tensor:
        with torch.no_grad():
            return model(block)

    def per_block_torch(block: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return model(torch.from_numpy(block)).numpy()
    blocks_interop = x.map_blocks(per_block_interop, chunks=(x.raw.chunks[0], (10,)),
                                  drop_axis=(2, 3), dtype=np.float32)
    blocks_torch = x.raw.map_blocks(per_block_torch, chunks=(x.raw.chunks[0], (10,)),
                                    drop_axis=(2, 3), dtype=np.float32)
    ours, by_interop, by_torch = _best([y.compute, blocks_interop.compute, blocks_torch.compute],
                                       2 if quick else 3)
    diff = float(np.abs(np.asarray(y.compute()) - expected).max())
    print(f"CNN on Dask, ({n}, 3, 32, 32) float32 in {chunks} chunks")
    print(f"  build {build:.3f} s, {tasks} tasks ({optimised} optimised, "
          f"{optimised / chunks:.1f} per chunk); max |difference| from torch {diff:.1e}")
    print(f"  compute {ours:.2f} s; map_blocks of the model on interop NumPy tensors "
          f"{by_interop:.2f} s ({ours / by_interop:.2f}x); on torch tensors {by_torch:.2f} s "
          f"({ours / by_torch:.2f}x)")


def resnet_section(quick: bool) -> None:
    import torch
    model = resnet18()
    host = np.random.default_rng(0).standard_normal((8 if quick else 16, 3, 64, 64)).astype(
        np.float32)
    lazy = interop.tensor(host, backend="dask", chunks=(len(host) // 2, 3, 64, 64))
    eager = interop.tensor(host)
    with torch.no_grad():
        on_dask, on_numpy = _best([lambda: model(lazy).compute(), lambda: model(eager)], 2)
        diff = float(np.abs(np.asarray(model(lazy).compute()) -
                            model(torch.from_numpy(host)).numpy()).max())
    print(f"resnet18 on ({len(host)}, 3, 64, 64): Dask (2 chunks) {on_dask:.2f} s, NumPy "
          f"backend {on_numpy:.2f} s ({on_dask / on_numpy:.2f}x); max |difference| from torch "
          f"{diff:.1e}")


def jax_section(quick: bool) -> None:
    import jax
    import jax.numpy as jnp
    import torch
    from jax import lax
    model = cnn()
    params = {k: jnp.asarray(v.detach().numpy()) for k, v in model.state_dict().items()}
    host = np.random.default_rng(0).standard_normal((64, 3, 32, 32)).astype(np.float32)

    def channel(v: object) -> object:
        return v[None, :, None, None]

    def conv(x: object, w: object, b: object) -> object:
        return lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=(
            "NCHW", "OIHW", "NCHW")) + channel(b)

    @jax.jit
    def by_lax(x: object) -> object:
        y = conv(x, params["0.weight"], params["0.bias"])
        y = (y - channel(params["1.running_mean"])) / jnp.sqrt(
            channel(params["1.running_var"]) + 1e-5) * channel(params["1.weight"]) \
            + channel(params["1.bias"])
        y = lax.reduce_window(jnp.maximum(y, 0), -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2),
                              "VALID")
        y = jnp.mean(jnp.maximum(conv(y, params["4.weight"], params["4.bias"]), 0), axis=(2, 3))
        return y @ params["8.weight"].T + params["8.bias"]

    @jax.jit
    def by_interop(t: interop.Tensor) -> interop.Tensor:
        with torch.no_grad():
            return model(t)
    x, raw = interop.tensor(host, backend="jax"), jnp.asarray(host)
    ours, theirs = by_interop(x).raw, by_lax(raw)
    diff = float(jnp.max(jnp.abs(ours - theirs)))
    repeat = 5 if quick else 20
    t_ours, t_lax = _best([lambda: by_interop(x).raw.block_until_ready(),
                           lambda: by_lax(raw).block_until_ready()], repeat)
    print(f"CNN under jax.jit (64 images): interop {t_ours * 1e3:.2f} ms, jax.lax "
          f"{t_lax * 1e3:.2f} ms ({t_ours / t_lax:.2f}x); max |difference| {diff:.1e}")


def _peak_rss(dask_worker: object) -> int:
    """A worker process's largest resident memory so far, in bytes (the kernel's count: no
    sampling misses a short peak).  Linux's ``VmHWM``, this program's own: ``getrusage``'s
    peak carries over ``exec``, so a worker spawned from this process after another section
    reports this process's size then (875 MiB after the ``dask`` section, for 337 MiB)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


# Images per chunk out of core: a task's working set is about 25x its input (the
# convolutions' patches and activations): 76 MiB at 256 images, 310 MiB at 1024, which
# beside a worker's 340 MiB of torch and Dask crossed the 80% pause line of a 1 GiB worker.
CHUNK = 256


def out_of_core_section(quick: bool) -> None:
    import dask.array as da
    import torch
    from distributed import Client, LocalCluster
    limit = 2 ** 30
    model = cnn()
    with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit=limit,
                      processes=True, dashboard_address=":0") as cluster, Client(cluster) as client:
        total = 2 * limit
        n = int(1.5 * total) // (3 * 32 * 32 * 4)
        n -= n % CHUNK
        if quick:
            n //= 8
        images = da.random.default_rng(0).standard_normal(
            (n, 3, 32, 32), chunks=(CHUNK, 3, 32, 32), dtype=np.float32)
        x = interop.as_tensor(images)
        with torch.no_grad():
            y = model(x)
        before = set(client.scheduler_info()["workers"])
        t0 = time.perf_counter()
        (out,) = interop.compute(y)
        seconds = time.perf_counter() - t0
        peaks = client.run(_peak_rss)
        after = set(client.scheduler_info()["workers"])
        paused = sum(1 for e in client.get_events("worker-status") if "paused" in str(e))
        picks = (0, images.numblocks[0] // 2, images.numblocks[0] - 1)
        worst = 0.0
        for k in picks:
            block = images.blocks[k].compute()
            with torch.no_grad():
                expected = model(torch.from_numpy(block)).numpy()
            got = np.asarray(out)[k * CHUNK:(k + 1) * CHUNK]
            worst = max(worst, float(np.abs(got - expected).max()))
        data = n * 3 * 32 * 32 * 4
        print(f"out of core: {n} images, {data / 2 ** 30:.2f} GiB of float32 on 2 workers x "
              f"{limit / 2 ** 30:.0f} GiB ({data / total:.2f}x the cluster's memory) in "
              f"{seconds:.1f} s ({n / seconds:,.0f} images/s)")
        print(f"  peak worker memory {', '.join(f'{p / 2 ** 20:.0f} MiB' for p in peaks.values())}"
              f" (limit {limit / 2 ** 20:.0f} MiB); workers restarted "
              f"{len(before - after)}, pause events {paused}; max |difference| from torch on 3 "
              f"sampled chunks {worst:.1e}")


def cubed_section(quick: bool) -> None:
    import cubed
    import torch
    from cubed.runtime.types import Callback

    class Memory(Callback):
        """Cubed's plan: each operation's projected memory (the tasks' own measurements read
        the process's peak, ru_maxrss, which the threads of one process share)."""

        def on_compute_start(self, event: object) -> None:
            from cubed.runtime.pipeline import visit_nodes
            self.projected = [node["primitive_op"].projected_mem
                              for _, node in visit_nodes(event.dag) if "primitive_op" in node]

    model = cnn()
    n, per_chunk = (1024, 16) if quick else (4096, 16)  # 48 MiB of images: 1.5x allowed_mem
    allowed = 32 * 2 ** 20
    host = np.random.default_rng(0).standard_normal((n, 3, 32, 32)).astype(np.float32)
    # one Spec for every array of the computation, the weights brought in included
    with cubed.config.set({"spec.allowed_mem": allowed, "spec.reserved_mem": 0}):
        x = interop.tensor(host, backend="cubed", chunks=(per_chunk, 3, 32, 32))
        with torch.no_grad():
            y = model(x)
            expected = model(torch.from_numpy(host)).numpy()
        t0 = time.perf_counter()
        with Memory() as memory:  # (a registered callback: Cubed calls it for every compute)
            (out,) = interop.compute(y)
        seconds = time.perf_counter() - t0
    diff = float(np.abs(np.asarray(out) - expected).max())
    print(f"CNN on Cubed: {host.nbytes / 2 ** 20:.0f} MiB of images ({host.nbytes / allowed:.1f}x "
          f"allowed_mem, {allowed / 2 ** 20:.0f} MiB) in {seconds:.1f} s, {len(memory.projected)} "
          f"operations; largest projected memory of a task {max(memory.projected) / 2 ** 20:.0f} "
          f"MiB; max |difference| from torch {diff:.1e}")


def training_cnn() -> object:
    """A light CNN for training out of core (a strided first convolution): in train mode."""
    import torch
    from torch import nn
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3, 8, 4, stride=4), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                         nn.Flatten(), nn.Linear(16, 10))


def _pattern_images(k: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Chunk ``k`` of the learnable dataset (``n`` images): each class has a fixed pattern,
    an image is its class's pattern plus noise, drawn from seed ``k`` (any process makes the
    same chunk, so the data is generated where it is used and never sent).  Uniform noise:
    a chunk stands for one read from a store, and normal draws cost 4x as much to make (227
    against 54 ms for 8192 images), the largest item of a training step's CPU before."""
    patterns = np.random.default_rng(2026).standard_normal((10, 3, 32, 32), dtype=np.float32)
    rng = np.random.default_rng(k)
    labels = rng.integers(0, 10, n)
    images = rng.random((n, 3, 32, 32), dtype=np.float32)
    images += 0.3 * patterns[labels]
    return images, labels


def images_block(block_id: tuple = (0,), n: int = 0) -> np.ndarray:
    return _pattern_images(block_id[0], n)[0]


def labels_block(images: np.ndarray, block_id: tuple = (0,)) -> np.ndarray:
    """The labels of an images chunk: a task on that chunk, so they are made where it is (as
    a sample's image and label are read together from a store), never sent to it."""
    return np.random.default_rng(block_id[0]).integers(0, 10, len(images))


# Training out of core: images per minibatch (one chunk each) and minibatches per step.
TRAIN_CHUNK, ACCUMULATE = 2048, 2
TRAINING_BANDWIDTH = "100kB"
KERNELS = "auto"
"""The kernel provider (``--kernels``): torch's kernels on NumPy blocks, or interop's own."""
"""The scheduler's estimate of moving data between workers, per second, for training: moving
a minibatch's smallest activation (its logits, 80 KB) must cost more than waiting for the
worker that holds it to finish a minibatch (about a second); the weights (7 KB) still move."""


def _train(model: object, dataset: object, on_step: Callable[[int, object], None],
           post_hook: Callable | None = None) -> object:
    """The unmodified loop: minibatches of ``TRAIN_CHUNK`` (a ``BatchSampler`` as the
    sampler: the dataset is indexed once per minibatch), ``ACCUMULATE`` backward calls per
    ``optimizer.step()``; ``on_step(step, loss)`` after each step (``post_hook``: the
    optimizer's own step post-hook, which torch runs before the global ones)."""
    import torch
    from torch.utils.data import BatchSampler, DataLoader, SequentialSampler
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    if post_hook is not None:
        opt.register_step_post_hook(post_hook)
    sampler = BatchSampler(SequentialSampler(range(len(dataset))), TRAIN_CHUNK, drop_last=False)
    for i, (xb, yb) in enumerate(DataLoader(dataset, batch_size=None, sampler=sampler)):
        loss = torch.nn.functional.cross_entropy(model(xb), yb) / ACCUMULATE
        loss.backward()
        if (i + 1) % ACCUMULATE == 0:
            opt.step()
            opt.zero_grad()
            on_step(i // ACCUMULATE, loss.detach())
    return model


def _worker_counters(dask_worker: object) -> tuple[int, float]:
    """(bytes this worker has sent to others, CPU seconds its process has used)."""
    return dask_worker.transfer_outgoing_bytes_total, time.process_time()


def _task_seconds(stream: list[dict], data_prefixes: tuple[str, ...]) -> tuple[float, float]:
    """(seconds the workers computed making the dataset's chunks, seconds for the rest) in a
    ``get_task_stream`` record."""
    from dask.utils import key_split
    making = other = 0.0
    for task in stream:
        spent = sum(s["stop"] - s["start"] for s in task["startstops"]
                    if s["action"] == "compute")
        if key_split(task["key"]) in data_prefixes:
            making += spent
        else:
            other += spent
    return making, other


def training_section(quick: bool) -> None:
    import dask
    import dask.array as da
    import torch
    from distributed import Client, LocalCluster, get_task_stream
    from torch.utils.data import TensorDataset

    from interop.surfaces.torch_face import training
    limit = 2 ** 30
    total = 2 * limit
    chunks = int(1.5 * total) // (TRAIN_CHUNK * 3 * 32 * 32 * 4)
    chunks -= chunks % ACCUMULATE
    if quick:
        chunks = 16
    n = chunks * TRAIN_CHUNK
    steps = chunks // ACCUMULATE
    # The scheduler weighs moving a task's inputs (at its bandwidth estimate, 100 MB/s by
    # default) against a busier worker's queue: at the default, a minibatch's small
    # activations (its logits, 80 KB) look cheaper to move than a millisecond's wait, and
    # each move drags the minibatch's next tasks after it.  The estimate a cluster starts
    # with (TRAINING_BANDWIDTH) keeps a minibatch's tasks with its chunk; and a task it has
    # not seen yet is guessed at 1 ms, not half a second, so the first step's queues (all of
    # unseen tasks) do not look long enough to move activations for.
    with dask.config.set({"distributed.scheduler.bandwidth": TRAINING_BANDWIDTH,
                          "distributed.scheduler.unknown-task-duration": "1ms"}), \
            LocalCluster(n_workers=2, threads_per_worker=1, memory_limit=limit, processes=True,
                         dashboard_address=":0") as cluster, Client(cluster) as client:
        client.run(interop.config.set_default, kernels=KERNELS)  # the workers' provider
        images = da.map_blocks(images_block, n=TRAIN_CHUNK, dtype=np.float32,
                               chunks=((TRAIN_CHUNK,) * chunks, (3,), (32,), (32,)),
                               meta=np.empty((0, 0, 0, 0), np.float32))
        labels = images.map_blocks(labels_block, drop_axis=[1, 2, 3], dtype=np.int64,
                                   meta=np.empty((0,), np.int64))
        dataset = TensorDataset(interop.as_tensor(images).as_torch(),
                                interop.as_tensor(labels).as_torch())
        model = interop.to_backend(training_cnn(), "dask")
        state_bytes = 2 * sum(p.numel() * 4 for p in model.parameters())  # weights + grads
        before = set(client.scheduler_info()["workers"])
        figures: list[dict] = []
        losses: list = []
        counters = [[sum(c) for c in zip(*client.run(_worker_counters).values())]
                    + [time.process_time()]]
        t_last = [time.perf_counter()]

        def on_step(step: int, loss: object) -> None:
            now = time.perf_counter()
            counters.append([sum(c) for c in zip(*client.run(_worker_counters).values())]
                            + [time.process_time()])
            (sent, workers_cpu, here_cpu), before = counters[-1], counters[-2]
            figures.append({"wall": now - t_last[0], "moved": sent - before[0],
                            "workers cpu": workers_cpu - before[1],
                            "here cpu": here_cpu - before[2]})
            t_last[0] = time.perf_counter()
            if step % 8 == 0 or step == steps - 1:
                losses.append((step, loss))

        def count_tasks(opt: object, args: object, kwargs: object) -> None:
            raws = [t.raw for t in training.state_of(opt)]  # before the persist: its graph
            tasks.append(len(set().union(*(r.__dask_graph__().keys() for r in raws))))
        tasks: list[int] = []
        t0 = time.perf_counter()
        with get_task_stream(client) as stream:
            _train(model, dataset, on_step, count_tasks)
        final = {k: v.as_interop() for k, v in model.state_dict().items()}
        values = interop.compute(*final.values(), *(v.as_interop() for _, v in losses))
        seconds = time.perf_counter() - t0
        peaks = client.run(_peak_rss)
        after = set(client.scheduler_info()["workers"])
        paused = sum(1 for e in client.get_events("worker-status") if "paused" in str(e))
        state = dict(zip(final, values[:len(final)]))
        loss_values = [float(v) for v in values[len(final):]]

    making, kernels = _task_seconds(stream.data, (images_block.__name__, labels_block.__name__))
    reference, torch_steps, torch_cpu = _torch_reference(chunks)
    worst = max(float(np.abs(np.asarray(state[k]) - v.detach().numpy()).max())
                for k, v in reference.state_dict().items())
    walls = [f["wall"] for f in figures[1:]]  # the first step includes the workers' warm-up
    per_step, torch_step = float(np.median(walls)), float(np.median(torch_steps))
    data = n * 3 * 32 * 32 * 4
    bytes_moved = [f["moved"] for f in figures]
    print(f"training out of core: {steps} steps of {ACCUMULATE} x {TRAIN_CHUNK} images, "
          f"{data / 2 ** 30:.2f} GiB of float32 ({data / total:.2f}x the cluster's memory, 2 "
          f"workers x {limit / 2 ** 30:.0f} GiB) in {seconds:.1f} s")
    print(f"  per step: wall median {per_step * 1e3:.0f} ms (min {min(walls) * 1e3:.0f}, max "
          f"{max(walls) * 1e3:.0f}); first step {figures[0]['wall'] * 1e3:.0f} ms")
    print(f"  tasks per step: {sorted(set(tasks))} (step 2: {tasks[1]}, last: {tasks[-1]})")
    # what moved between step k-1's end and step k's: step k-1's compute (a persist returns at
    # once); the first step's also sends the weights the client made
    first, later = bytes_moved[1], bytes_moved[2:]
    print(f"  bytes moved between workers per step: median {np.median(later) / 1e3:.1f} KB, "
          f"max {max(later) / 1e3:.1f} KB, mean {np.mean(later) / 1e3:.1f} KB; first step "
          f"{first / 1e3:.1f} KB; weights + gradients {state_bytes / 1e3:.1f} KB "
          f"(mean {np.mean(later) / state_bytes:.2f}x, all steps "
          f"{np.mean(bytes_moved) / state_bytes:.2f}x)")
    print(f"  peak worker memory {', '.join(f'{p / 2 ** 20:.0f} MiB' for p in peaks.values())} "
          f"(limit {limit / 2 ** 20:.0f} MiB: {max(peaks.values()) / limit:.0%}); workers "
          f"restarted {len(before - after)}, pause events {paused}")
    print(f"  plain torch ({torch.get_num_threads()} threads), the same loop on in-memory "
          f"batches: {torch_step * 1e3:.0f} ms per step (median); ratio "
          f"{per_step / torch_step:.2f}x")
    # where a step's CPU goes (this process: the loop building each step's graph, and the
    # LocalCluster's scheduler; the workers: their tasks, split by the task stream, and the
    # rest of their processes), against plain torch's CPU for a step of its threads
    here = float(np.median([f["here cpu"] for f in figures[1:]]))
    workers = float(np.median([f["workers cpu"] for f in figures[1:]]))
    per = 1e3 / steps
    print(f"  CPU per step (median, ms): this process (the loop building the graph, and the "
          f"scheduler) {here * 1e3:.0f}; the workers {workers * 1e3:.0f}, of which tasks making "
          f"the synthetic data {making * per:.0f}, the model's tasks {kernels * per:.0f} "
          f"(means over the epoch); plain torch {float(np.median(torch_cpu)) * 1e3:.0f}; all "
          f"processes over the machine's {os.cpu_count()} cores: at least "
          f"{(here + workers) / (os.cpu_count() or 1) * 1e3:.0f} ms of wall time a step")
    print(f"  loss {' -> '.join(f'{v:.3f}' for v in loss_values)} (steps "
          f"{', '.join(str(s) for s, _ in losses)}); final weights against plain torch over the "
          f"same batches: max |difference| {worst:.1e}")


class _Chunks:
    """The dataset in plain torch, made chunk by chunk as the batches ask (``dataset[indices]``
    with a ``BatchSampler``): the same batches, without holding 3 GiB."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, indices: list[int]) -> tuple:
        import torch
        images, labels = _pattern_images(indices[0] // TRAIN_CHUNK, TRAIN_CHUNK)
        return torch.from_numpy(images), torch.from_numpy(labels)


def _torch_reference(chunks: int) -> tuple[object, list[float], list[float]]:
    """Plain torch: the same loop over the same batches (its final model: the weights' check),
    and its step times and CPU seconds a step (all its threads) on in-memory data (the first
    ``8 * ACCUMULATE`` chunks, made first)."""
    import torch
    from torch.utils.data import TensorDataset
    times: list[float] = []
    cpu: list[float] = []
    t_last = [0.0, 0.0]

    def on_step(step: int, loss: object) -> None:
        times.append(time.perf_counter() - t_last[0])
        cpu.append(time.process_time() - t_last[1])
        t_last[:] = time.perf_counter(), time.process_time()
    parts = [_pattern_images(k, TRAIN_CHUNK) for k in range(min(chunks, 8 * ACCUMULATE))]
    x = torch.from_numpy(np.concatenate([p[0] for p in parts]))
    y = torch.from_numpy(np.concatenate([p[1] for p in parts]))
    t_last[:] = time.perf_counter(), time.process_time()
    _train(training_cnn(), TensorDataset(x, y), on_step)
    model = _train(training_cnn(), _Chunks(chunks * TRAIN_CHUNK), lambda step, loss: None)
    return model, times[1:], cpu[1:]


SECTIONS = {"dask": dask_section, "resnet": resnet_section, "jax": jax_section,
            "out-of-core": out_of_core_section, "cubed": cubed_section,
            "training": training_section}


def main() -> None:
    global TRAIN_CHUNK, TRAINING_BANDWIDTH, KERNELS
    from threadpoolctl import threadpool_limits
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    parser.add_argument("--minibatch", type=int, default=TRAIN_CHUNK,
                        help=f"training: images per minibatch, one chunk each ({TRAIN_CHUNK})")
    parser.add_argument("--bandwidth", default=TRAINING_BANDWIDTH,
                        help="training: the scheduler's bandwidth estimate the cluster starts "
                             f"with ({TRAINING_BANDWIDTH}; Dask's default: 100MB)")
    parser.add_argument("--kernels", default=KERNELS, choices=("auto", "torch", "interop"),
                        help="who computes the heavy kernels on NumPy blocks, here and on the "
                             "training cluster's workers (interop.config(kernels=...))")
    parser.add_argument("sections", nargs="*", default=["dask", "resnet", "jax"],
                        help=f"any of {', '.join(SECTIONS)}, or all")
    args = parser.parse_args()
    TRAIN_CHUNK, TRAINING_BANDWIDTH, KERNELS = args.minibatch, args.bandwidth, args.kernels
    interop.config.set_default(kernels=KERNELS)
    with threadpool_limits(1, user_api="blas"):  # (NumPy is loaded: an env variable is late)
        for name in SECTIONS if args.sections == ["all"] else args.sections:
            SECTIONS[name](args.quick)


if __name__ == "__main__":
    main()
