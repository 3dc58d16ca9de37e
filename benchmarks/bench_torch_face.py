"""The torch face's per-operation overhead: ``interop.TorchTensor`` (NumPy backend) against a
``torch.Tensor`` wrapper subclass whose ``__torch_dispatch__`` only unwraps, calls torch and
wraps, in one process.

Run: .venv/bin/python benchmarks/bench_torch_face.py [--quick]

Both are wrapper subclasses (``_make_wrapper_subclass``, ``__torch_function__`` disabled), so
both pay torch's own way to Python (argument parsing, the dispatcher, the Python key); the
ratio is what interop adds on top: finding the operation's record, running it on NumPy, and
making the result.  Two references: ``Unwrap`` unwraps the positional arguments directly (the
least a wrapper can do), ``Unwrap (pytree)`` as torch's own examples do (``TwoTensor``:
``pytree.tree_map_only`` over the arguments and results).  Plain torch is shown for scale.
float32 at (8,); torch with one intra-op thread.  Compare ratios from one run, never across
machines; no test asserts on them.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np
import torch
import torch.utils._pytree as pytree
from bench_dispatch import best_ns

import interop


class Unwrap(torch.Tensor):
    """The least a wrapper subclass does: unwrap, call torch, wrap."""

    __torch_function__ = torch._C._disabled_torch_function_impl

    @staticmethod
    def __new__(cls, elem: torch.Tensor) -> Unwrap:
        out = torch.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype,
                                                  device=elem.device)
        out.elem = elem
        return out

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        out = func(*[a.elem if type(a) is cls else a for a in args], **(kwargs or {}))
        return cls(out) if isinstance(out, torch.Tensor) else out


class UnwrapPytree(Unwrap):
    """Unwrapping as torch's own examples write it (torch/testing/_internal/two_tensor.py)."""

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        args, kwargs = pytree.tree_map_only(cls, lambda x: x.elem, (args, kwargs or {}))
        return pytree.tree_map_only(torch.Tensor, cls, func(*args, **kwargs))


CASES: dict[str, Callable] = {
    "t + t": lambda t: t + t,
    "t * 2": lambda t: t * 2,
    "t.sum()": lambda t: t.sum(),
    "torch.relu": lambda t: torch.relu(t),
    "t.exp()": lambda t: t.exp(),
    "t.view(2, 4)": lambda t: t.view(2, 4),
    "t.add_(1)": lambda t: t.add_(1),
}
COLUMNS = ("torch", "Unwrap", "Unwrap (pytree)", "TorchTensor")


def run(quick: bool) -> list[tuple[str, list[float]]]:
    budget = 0.05 if quick else 0.3
    torch.set_num_threads(1)
    a = np.random.default_rng(0).standard_normal(8).astype(np.float32)
    plain = torch.from_numpy(a.copy())
    operands = [plain, Unwrap(plain.clone()), UnwrapPytree(plain.clone()),
                interop.tensor(a).as_torch()]
    rows = []
    for name, call in CASES.items():
        fns = [lambda t=t, call=call: call(t) for t in operands]
        rows.append((name, best_ns(fns, budget)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="short timing budget")
    rows = run(parser.parse_args().quick)
    print(f"{'operation (8,)':<14} " + " ".join(f"{c:>16}" for c in COLUMNS)
          + f" {'vs Unwrap':>10} {'vs pytree':>10}")
    for name, times in rows:
        cells = " ".join(f"{t / 1e3:14.2f}us" for t in times)
        print(f"{name:<14} {cells} {times[3] / times[1]:9.2f}x {times[3] / times[2]:9.2f}x")


if __name__ == "__main__":
    main()
