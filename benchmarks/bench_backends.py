"""Backends: interop against raw Dask, raw Cubed and, where a CUDA GPU and CuPy exist, raw CuPy,
measured in one run, in one process.

Run: .venv/bin/python benchmarks/bench_backends.py [--quick]

Rows, each with the raw library's time, interop's, and the ratio interop / raw:

- Dask graph building (per call, nothing computed): ``x + y``, ``x.sum(dim=0)``,
  ``x @ y``, ``interop.exp(x)`` on a chunked (4096, 4096) float32 array.
- Dask end to end (build and compute with the threaded scheduler): elementwise
  ``x * y + x`` on (4096, 4096) float32 and ``x @ y`` on (2048, 2048) float32
  (1024-square chunks).
- Dask distributed: the same pipeline (standardise the columns, take the
  Gram matrix of the result, sum it) on a 2-worker ``dask.distributed``
  ``LocalCluster`` (processes), computed through the cluster's client.
- JAX (``jax_rows``): ``a + b`` and ``exp`` on (8,) float32 per call, eager ``a * b + a``,
  ``a @ b``, ``sum`` and ``exp`` on (2048, 2048) float32, a jit-compiled gradient step
  written with torch calls on interop tensors against the same step in ``jax.numpy``,
  and ``t[1] = 0`` (replayed out of place) against ``a.at[1].set(0)``.
- Cubed graph building (per call) and end to end (Cubed's local thread executor):
  ``x + y``, ``x.sum(dim=0)``, ``x @ y``, ``exp(x)`` and ``np.exp(x)`` (through NumPy's
  protocol, which interop gives Cubed arrays) on (2048, 2048) float32 in 512-square chunks.
- CuPy: ``a + b`` on (8,) float32 per call (the small-op overhead), and
  (4096, 4096) float32 elementwise and matmul, synchronised after each call.

Raw and interop runs alternate (in both orders) and the best of each is kept, so machine noise
hits both alike.  "same graph" says whether interop built exactly Dask's graph
(identical deterministic task names): then computing it costs the same, and
only the build time per call can differ.  No test asserts on these numbers.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from bench_dispatch import best_ns

import interop


def best_pair_s(raw: Callable[[], object], ours: Callable[[], object], repeat: int) -> tuple:
    """Best wall time (s) of each of two callables, run alternately ``repeat`` times."""
    raw(), ours()  # warm up (imports, caches, CUDA kernels compiled)
    best = [float("inf"), float("inf")]
    for k in range(repeat):
        for i in ((0, 1) if k % 2 == 0 else (1, 0)):  # who goes first alternates too
            fn = (raw, ours)[i]
            t0 = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - t0)
    return tuple(best)


def _times(fn: Callable[[], object], number: int) -> Callable[[], None]:
    def run() -> None:
        for _ in range(number):
            fn()
    return run


def dask_rows(quick: bool) -> list[tuple]:
    import dask.array as da

    n, m, chunk = (1024, 512, 256) if quick else (4096, 2048, 1024)
    rng = np.random.default_rng(0)
    host = rng.standard_normal((n, n), dtype=np.float32)
    a = da.from_array(host, chunks=chunk)
    b = da.from_array(host.T.copy(), chunks=chunk)
    x, y = interop.as_tensor(a), interop.as_tensor(b)
    number, repeat = (5, 5) if quick else (20, 9)
    rows = []
    for name, raw, ours in [
        ("x + y", lambda: a + b, lambda: x + y),
        ("x.sum(dim=0)", lambda: a.sum(axis=0), lambda: x.sum(dim=0)),
        ("x @ y", lambda: a @ b, lambda: x @ y),
        ("exp(x)", lambda: da.exp(a), lambda: interop.exp(x)),
    ]:
        best = best_pair_s(_times(raw, number), _times(ours, number), repeat)
        rows.append(("dask build", name, (n, n), *(t / number for t in best),
                     _same_graph(raw(), ours())))
    am, bm = a[:m, :m], b[:m, :m]
    xm, ym = x[:m, :m], y[:m, :m]
    repeat = 3 if quick else 7
    for name, shape, raw, ours in [
        ("x * y + x", (n, n), lambda: (a * b + a).compute(), lambda: (x * y + x).compute()),
        ("x @ y", (m, m), lambda: (am @ bm).compute(), lambda: (xm @ ym).compute()),
    ]:
        rows.append(("dask compute", name, shape, *best_pair_s(raw, ours, repeat), ""))
    return rows


def distributed_rows(quick: bool) -> list[tuple]:
    """One pipeline computed on a 2-process LocalCluster, raw Dask against interop."""
    import dask.array as da
    from distributed import Client, LocalCluster

    n, chunk = (1024, 256) if quick else (4096, 1024)
    host = np.random.default_rng(0).standard_normal((n, 256), dtype=np.float32)
    a = da.from_array(host, chunks=(chunk, 256))
    x = interop.as_tensor(a)

    def raw() -> object:
        z = (a - a.mean(axis=0)) / a.std(axis=0)
        return (z.T @ z).sum().compute()

    def ours() -> object:
        z = (x - x.mean(dim=0)) / x.std(dim=0, correction=0)
        return (z.T @ z).sum().compute()

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster):
        best = best_pair_s(raw, ours, 3 if quick else 7)
    return [("distributed", "pipeline", (n, 256), *best, "")]


def cubed_rows(quick: bool) -> list[tuple]:
    """Raw Cubed against interop on Cubed: graph building per call (nothing computed) and
    build-and-compute on Cubed's local thread executor, under one ``cubed.Spec``."""
    import cubed

    n, chunk = (512, 256) if quick else (2048, 512)
    spec = cubed.Spec(allowed_mem="500MB", reserved_mem=0)
    host = np.random.default_rng(0).standard_normal((n, n), dtype=np.float32)
    a = cubed.from_array(host, chunks=chunk, spec=spec)
    b = cubed.from_array(host.T.copy(), chunks=chunk, spec=spec)
    x, y = interop.as_tensor(a), interop.as_tensor(b)
    number, repeat = (5, 5) if quick else (20, 7)
    rows = []
    cases = [
        ("x + y", lambda: a + b, lambda: x + y),
        ("x.sum(dim=0)", lambda: cubed.sum(a, axis=0), lambda: x.sum(dim=0)),
        ("x @ y", lambda: cubed.matmul(a, b), lambda: x @ y),
        ("exp(x)", lambda: cubed.exp(a), lambda: interop.exp(x)),
        ("np.exp(x)", lambda: cubed.exp(a), lambda: np.exp(x)),
    ]
    for name, raw, ours in cases:
        best = best_pair_s(_times(raw, number), _times(ours, number), repeat)
        rows.append(("cubed build", name, (n, n), *(t / number for t in best), ""))
    repeat = 2 if quick else 3
    for name, raw, ours in [
        ("x * y + x", lambda: (a * b + a).compute(), lambda: (x * y + x).compute()),
        ("x.sum(dim=0)", lambda: cubed.sum(a, axis=0).compute(),
         lambda: x.sum(dim=0).compute()),
        ("x @ y", lambda: cubed.matmul(a, b).compute(), lambda: (x @ y).compute()),
    ]:
        rows.append(("cubed compute", name, (n, n), *best_pair_s(raw, ours, repeat), ""))
    return rows


def _same_graph(raw: object, ours: interop.Tensor) -> str:
    """'yes' when interop built exactly Dask's graph (same deterministic task names)."""
    return "yes" if ours.raw.name == raw.name else "no"


def cupy_rows(quick: bool) -> list[tuple]:
    import cupy

    sync = cupy.cuda.Device().synchronize
    small_a, small_b = cupy.arange(8, dtype=cupy.float32), cupy.ones(8, dtype=cupy.float32)
    sx, sy = interop.as_tensor(small_a), interop.as_tensor(small_b)
    budget = 0.05 if quick else 0.3
    raw_ns, interop_ns = best_ns([lambda: small_a + small_b, lambda: sx + sy], budget)
    rows = [("cupy per call", "a + b", (8,), raw_ns / 1e9, interop_ns / 1e9, "")]
    n = 1024 if quick else 4096
    a = cupy.random.default_rng(0).standard_normal((n, n), dtype=cupy.float32)
    b = cupy.random.default_rng(1).standard_normal((n, n), dtype=cupy.float32)
    x, y = interop.as_tensor(a), interop.as_tensor(b)

    def synced(fn: Callable[[], object]) -> Callable[[], object]:
        def run() -> object:
            out = fn()
            sync()
            return out
        return run

    repeat = 10 if quick else 30
    for name, raw, ours in [("a * b + a", lambda: a * b + a, lambda: x * y + x),
                            ("a @ b", lambda: a @ b, lambda: x @ y)]:
        rows.append(("cupy", name, (n, n), *best_pair_s(synced(raw), synced(ours), repeat), ""))
    return rows


def jax_rows(quick: bool) -> list[tuple]:
    """interop on the JAX backend against raw ``jax.numpy``, synchronised after each call:
    the per-call overhead on a small array, eager operations on a large one, one jit-compiled
    gradient step written with torch calls on interop tensors against the same step written
    with jax.numpy, and an in-place write (replayed out of place) against ``.at[].set``."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        print("(JAX is not installed: the JAX rows are skipped)")
        return []
    import torch

    n, repeat = (512, 5) if quick else (2048, 10)
    rng = np.random.default_rng(0)
    a = jnp.asarray(rng.standard_normal((n, n)).astype(np.float32))
    b = jnp.asarray(rng.standard_normal((n, n)).astype(np.float32))
    x, y = interop.as_tensor(a), interop.as_tensor(b)

    def ready(fn: Callable[[], object]) -> Callable[[], None]:
        def run() -> None:
            out = fn()
            (out.raw if isinstance(out, interop.Tensor) else out).block_until_ready()
        return run

    small_a, small_b = jnp.ones(8, jnp.float32), jnp.ones(8, jnp.float32)
    sx, sy = interop.as_tensor(small_a), interop.as_tensor(small_b)
    budget = 0.5 if quick else 2.0
    rows = []
    for name, raw, ours in [("a + b", lambda: small_a + small_b, lambda: sx + sy),
                            ("exp(a)", lambda: jnp.exp(small_a), lambda: interop.exp(sx))]:
        raw_ns, interop_ns = best_ns([ready(raw), ready(ours)], budget)
        rows.append(("jax per call", name, (8,), raw_ns / 1e9, interop_ns / 1e9, ""))
    for name, raw, ours in [("a * b + a", lambda: a * b + a, lambda: x * y + x),
                            ("a @ b", lambda: a @ b, lambda: x @ y),
                            ("sum(dim=0)", lambda: a.sum(axis=0), lambda: x.sum(dim=0)),
                            ("exp(a)", lambda: jnp.exp(a), lambda: interop.exp(x))]:
        rows.append(("jax eager", name, (n, n), *best_pair_s(ready(raw), ready(ours), repeat), ""))

    def step_raw(w: object, v: object) -> object:
        return jnp.mean((jnp.maximum(v @ w, 0) @ w.T - v) ** 2)

    def step_ours(w: interop.Tensor, v: interop.Tensor) -> object:
        return torch.nn.functional.mse_loss(torch.relu(v @ w) @ w.T, v).raw

    grad_raw, grad_ours = jax.jit(jax.grad(step_raw)), jax.jit(jax.grad(step_ours))
    rows.append(("jax jit+grad", "mlp step", (n, n),
                 *best_pair_s(ready(lambda: grad_raw(a, b)), ready(lambda: grad_ours(x, y)),
                              repeat), ""))

    def write_raw() -> object:
        return a.at[1].set(0.0)

    def write_ours() -> object:
        t = interop.as_tensor(a)
        t[1] = 0.0
        return t
    rows.append(("jax write", "t[1] = 0", (n, n),
                 *best_pair_s(ready(write_raw), ready(write_ours), repeat), ""))
    return rows


def has_gpu() -> bool:
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - any failure means no usable GPU
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, short budget")
    quick = parser.parse_args().quick
    rows = dask_rows(quick) + distributed_rows(quick) + jax_rows(quick)
    try:
        rows += cubed_rows(quick)
    except ImportError:
        print("(Cubed is not installed: the Cubed rows are skipped)")
    if has_gpu():
        rows += cupy_rows(quick)
    else:
        print("(no CUDA GPU with CuPy here: the CuPy rows are skipped)")
    print(f"{'section':<14} {'operation':<13} {'shape':<13} {'raw':>11} {'interop':>11} "
          f"{'ratio':>6}  same graph")
    for section, name, shape, raw, ours, same in rows:
        unit, scale = ("us", 1e6) if raw < 1e-2 else ("ms", 1e3)
        print(f"{section:<14} {name:<13} {str(shape):<13} {raw * scale:9.2f}{unit} "
              f"{ours * scale:9.2f}{unit} {ours / raw:5.2f}x  {same}")


if __name__ == "__main__":
    main()
