"""Kernel providers side by side: torch's CPU kernels on NumPy blocks ('auto') against
interop's own forms ('interop'), and both against torch itself, in one run.

Run: .venv/bin/python benchmarks/bench_kernel_providers.py [--quick] [SECTION ...]

Sections (default: all four):

- ``dask``: a small CNN (Conv2d, BatchNorm2d, ReLU, MaxPool2d, Conv2d, ReLU, MaxPool2d,
  Flatten, Linear; eval, random weights) over a persisted Dask array of 2048 images
  (3, 32, 32) float32 in chunks of 128, the model called on the interop tensor and the result
  computed (threaded scheduler); against ``map_blocks`` of the torch model over the raw Dask
  array.
- ``training``: one training step (forward, cross-entropy, backward, SGD with momentum) of
  a small CNN through ``as_torch()`` on NumPy data, batch 256, the model moved with
  ``interop.to_backend(model, "numpy")``; against the same step in torch.
- ``conv2d``: ``interop.conv2d`` on NumPy tensors, (64, 16, 32, 32) by a (32, 16, 3, 3)
  kernel, against ``torch.conv2d`` on the same arrays.
- ``threads``: the ``dask`` row under each thread arrangement: torch's intra-op threads in
  Dask's worker threads at 1 (interop's default), left at torch's default (one per core in
  each worker), and Dask's synchronous scheduler with torch's default threads.

Each interop row runs under each provider (``interop.config.set_default(kernels=...)``:
Dask's worker threads read the process default).  Best of repeats, variants alternating;
ratios are to torch in the same run.  No test asserts on these numbers.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import numpy as np
from bench_scale import _best

import interop

PROVIDERS = ("auto", "interop")


def best(fns: list[Callable[[], object]], repeats: int) -> list[float]:
    """Best wall time (s) of each callable, run in turn (order alternating), after a warm-up."""
    for fn in fns:
        fn()
    return _best(fns, repeats)


def providing(name: str, fn: Callable[[], object]) -> Callable[[], object]:
    """``fn`` run with ``name`` as the process's kernel provider."""
    def run() -> object:
        interop.config.set_default(kernels=name)
        try:
            return fn()
        finally:
            interop.config.set_default(kernels="auto")
    return run


def cnn(flat: int) -> object:
    import torch
    from torch import nn
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(32 * flat * flat, 10))


def report(label: str, times: dict[str, float]) -> None:
    ref = times["torch"]
    print(f"  {label}: " + ", ".join(f"{k} {t * 1e3:.1f} ms ({t / ref:.2f}x)"
                                     for k, t in times.items()))


def dask_cnn(repeats: int, scheduler: str = "threads",
             columns: tuple[str, ...] = ("torch", *PROVIDERS),
             worker_threads: int | None = 1) -> dict[str, float]:
    """The CNN over Dask: ``columns`` of torch (``map_blocks``) and the providers, timed in
    turn; ``worker_threads``: torch's intra-op threads in Dask's worker threads, for both
    (None: torch's default, one per core in each)."""
    import dask
    import dask.array as da
    import torch

    from interop.ops.nn import kernels
    kernels.WORKER_THREADS = worker_threads
    model = cnn(8).eval()
    host = np.random.default_rng(0).standard_normal((2048, 3, 32, 32)).astype(np.float32)
    raw = da.from_array(host, chunks=(128, 3, 32, 32)).persist()
    x = interop.tensor(raw)

    def ours() -> object:
        with torch.no_grad():
            return model(x).compute(scheduler=scheduler)

    def per_block(block: np.ndarray) -> np.ndarray:
        if worker_threads:  # as interop's kernels arrange it
            torch.set_num_threads(worker_threads)
        with torch.no_grad():
            return model(torch.from_numpy(block)).numpy()

    def theirs() -> object:
        return raw.map_blocks(per_block, chunks=(raw.chunks[0], (10,)), drop_axis=(2, 3),
                              dtype=np.float32).compute(scheduler=scheduler)
    with torch.no_grad():
        expected = model(torch.from_numpy(host)).numpy()
    runs = {"torch": theirs, **{p: providing(p, ours) for p in PROVIDERS}}
    for name in columns:
        got = np.asarray(runs[name]())
        assert np.abs(got - expected).max() < 1e-4, name
    with dask.config.set(scheduler=scheduler):
        times = best([runs[c] for c in columns], repeats)
    return dict(zip(columns, times))


def dask_section(repeats: int) -> None:
    print("CNN over a persisted Dask array, 2048 images (3, 32, 32) in chunks of 128; torch: "
          "map_blocks of the torch model")
    report("compute", dask_cnn(repeats))


def threads_section(repeats: int) -> None:
    """Each cell in a process of its own (torch's thread settings are per thread and per
    process, and Dask's worker threads outlive a compute), every cell run in each of two
    rounds, the best kept."""
    import json
    import subprocess
    import sys
    print(f"threads: the CNN on Dask as above ({os.cpu_count()} cores), each cell a fresh "
          "process, best of two rounds; torch's intra-op threads in Dask's worker threads")
    arrangements = {"1 per worker (interop's default)": (1, "threads"),
                    "torch's default per worker": (None, "threads"),
                    "synchronous scheduler, torch's default": (None, "synchronous")}
    cells: dict[str, dict[str, float]] = {label: {} for label in arrangements}
    for _ in range(2):
        for label, (threads, scheduler) in arrangements.items():
            for column in ("torch", "auto"):
                out = subprocess.run(
                    [sys.executable, __file__, "--cell", json.dumps([column, threads, scheduler]),
                     *(["--quick"] if repeats < 7 else [])],
                    capture_output=True, text=True, check=True).stdout
                t = json.loads(out.strip().splitlines()[-1])[column]
                cells[label][column] = min(cells[label].get(column, t), t)
    for label, times in cells.items():
        report(label, times)


def cell(spec: str, repeats: int) -> None:
    """One column of the threads section, printed as JSON (run by ``threads_section``)."""
    import json
    column, threads, scheduler = json.loads(spec)
    print(json.dumps(dask_cnn(repeats, scheduler, (column,), threads)))


def training_section(repeats: int) -> None:
    import torch
    import torch.nn.functional as F  # noqa: N812 - torch's spelling
    rng = np.random.default_rng(0)
    images = rng.standard_normal((256, 3, 32, 32)).astype(np.float32)
    labels = rng.integers(0, 10, 256)
    ours_model, theirs_model = interop.to_backend(cnn(8), "numpy"), cnn(8)
    x_ours, y_ours = interop.tensor(images).as_torch(), interop.tensor(labels).as_torch()
    x_theirs, y_theirs = torch.from_numpy(images), torch.from_numpy(labels)

    def stepper(model: object, x: object, y: object) -> Callable[[], object]:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

        def step() -> object:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            return loss
        return step
    ours, theirs = stepper(ours_model, x_ours, y_ours), stepper(theirs_model, x_theirs, y_theirs)
    times = best([theirs, *(providing(p, ours) for p in PROVIDERS)], repeats)
    print("training step of a small CNN through as_torch() on NumPy data, batch 256 "
          "(SGD with momentum)")
    report("step", dict(zip(("torch", *PROVIDERS), times)))


def conv2d_section(repeats: int) -> None:
    import torch
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 16, 32, 32)).astype(np.float32)
    w = rng.standard_normal((32, 16, 3, 3)).astype(np.float32)
    xi, wi = interop.tensor(x), interop.tensor(w)
    xt, wt = torch.from_numpy(x), torch.from_numpy(w)
    expected = torch.conv2d(xt, wt).numpy()
    for name in PROVIDERS:
        got = providing(name, lambda: interop.conv2d(xi, wi))().numpy()
        assert np.abs(got - expected).max() < 1e-3, name
    times = best([lambda: torch.conv2d(xt, wt),
                  *(providing(p, lambda: interop.conv2d(xi, wi)) for p in PROVIDERS)], repeats)
    print("interop.conv2d on NumPy, (64, 16, 32, 32) by (32, 16, 3, 3); torch: torch.conv2d")
    report("forward", dict(zip(("torch", *PROVIDERS), times)))


SECTIONS = {"dask": dask_section, "training": training_section, "conv2d": conv2d_section,
            "threads": threads_section}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("sections", nargs="*", help=f"any of {', '.join(SECTIONS)}")
    parser.add_argument("--cell", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.cell:
        return cell(args.cell, 3 if args.quick else 7)
    unknown = set(args.sections) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections {sorted(unknown)}: choose from {', '.join(SECTIONS)}")
    repeats = 3 if args.quick else 7
    import torch
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
          f"torch {torch.__version__} ({torch.get_num_threads()} intra-op threads)")
    for name in args.sections or list(SECTIONS):
        SECTIONS[name](repeats)


if __name__ == "__main__":
    main()
