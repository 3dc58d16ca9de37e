"""The torch surface: torch callables on interop tensors against the same call on raw NumPy
arrays and on torch's own tensors (plain and a ``torch.Tensor`` subclass), in one process.

Run: .venv/bin/python benchmarks/bench_torch.py [--quick]

Rows: ``torch.add(t, t)``, ``F.relu(t)``, ``torch.softmax(t, -1)`` and an
``nn.Sequential(Linear, ReLU, Linear)`` forward under ``no_grad`` (batch = first dim).
Columns: interop ``Tensor`` (NumPy backend, through ``__torch_function__``), plain
``torch.Tensor``, a ``torch.Tensor`` subclass with the default ``__torch_function__``;
each with its ratio to raw NumPy computing the same thing (float32).  torch runs with
one intra-op thread (NumPy's elementwise calls use one), so the columns compare the same
work.  Compare ratios from one run: machines are noisy, so no test asserts on them.

A second table times one module forward, ``nn.TransformerEncoderLayer`` in eval mode under
``no_grad`` (weights from torch, batch_first), at a small and a large size: torch's own on a
``torch.Tensor`` (its fused inference path) against the same module on an interop tensor
(NumPy backend: every F.* call goes through ``__torch_function__``), with the ratio.  NumPy's
BLAS is held to one thread there too (threadpoolctl), as torch's is: with more threads than
free cores, OpenBLAS's per-call synchronisation makes batched matmuls 50x slower.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np
import torch
from bench_dispatch import best_ns, cli

import interop

F = torch.nn.functional


class TorchSub(torch.Tensor):
    """A torch subclass keeping torch's default handler (the anchor the issue names)."""


def _softmax_np(a: np.ndarray) -> np.ndarray:
    e = np.exp(a - a.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _model(width: int) -> tuple[torch.nn.Module, Callable[[np.ndarray], np.ndarray]]:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.ReLU(),
                                torch.nn.Linear(width, width)).eval()
    w1, b1, w2, b2 = (p.detach().numpy() for p in model.parameters())
    return model, lambda a: np.maximum(a @ w1.T + b1, 0) @ w2.T + b2


def run(quick: bool) -> list[tuple]:
    budget = 0.05 if quick else 0.3
    rows = []
    torch.set_grad_enabled(False)
    torch.set_num_threads(1)
    for shape in [(8,), (64, 64), (1024, 1024)]:
        a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        model, model_np = _model(shape[-1])
        cases: dict[str, tuple[Callable, Callable]] = {
            "torch.add": (lambda a=a: np.add(a, a), lambda t: torch.add(t, t)),
            "F.relu": (lambda a=a: np.maximum(a, np.float32(0)), lambda t: F.relu(t)),
            "softmax": (lambda a=a: _softmax_np(a), lambda t: torch.softmax(t, -1)),
            "mlp": (lambda a=a: model_np(a), lambda t, m=model: m(t)),
        }
        operands = [interop.as_tensor(a), torch.from_numpy(a), torch.from_numpy(a).as_subclass(TorchSub)]
        for name, (raw, call) in cases.items():
            fns = [raw, *(lambda t=t, call=call: call(t) for t in operands)]
            rows.append((name, shape, *best_ns(fns, budget)))
    return rows


MODULE_SIZES = {"small": dict(batch=2, seq=8, d_model=32, nhead=4, ff=64),
                "large": dict(batch=16, seq=128, d_model=256, nhead=8, ff=1024)}


def run_module(quick: bool) -> list[tuple]:
    """(size, input shape, torch ns, interop ns) for a TransformerEncoderLayer forward."""
    from threadpoolctl import threadpool_limits
    with threadpool_limits(1, user_api="blas"):
        return _module_rows(0.05 if quick else 0.3)


def _module_rows(budget: float) -> list[tuple]:
    rows = []
    torch.set_grad_enabled(False)
    torch.set_num_threads(1)
    for size, c in MODULE_SIZES.items():
        torch.manual_seed(0)
        layer = torch.nn.TransformerEncoderLayer(c["d_model"], c["nhead"], c["ff"],
                                                 batch_first=True).eval()
        shape = (c["batch"], c["seq"], c["d_model"])
        a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        t, x = torch.from_numpy(a), interop.as_tensor(a)
        rows.append((size, shape, *best_ns([lambda: layer(t), lambda: layer(x)], budget)))
    return rows


def print_module_rows(rows: list[tuple]) -> None:
    print(f"\n{'TransformerEncoderLayer':<24} {'input':<15} {'torch':>11} {'interop (numpy)':>18}")
    for size, shape, torch_ns, interop_ns in rows:
        print(f"{size:<24} {str(shape):<15} {torch_ns / 1e3:9.1f}us {interop_ns / 1e3:9.1f}us "
              f"{interop_ns / torch_ns:6.2f}x")


def main() -> None:
    cli(run, ["interop Tensor", "torch.Tensor", "torch subclass"], __doc__)
    print_module_rows(run_module("--quick" in sys.argv))


if __name__ == "__main__":
    main()
