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
"""

from __future__ import annotations

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


def main() -> None:
    cli(run, ["interop Tensor", "torch.Tensor", "torch subclass"], __doc__)


if __name__ == "__main__":
    main()
