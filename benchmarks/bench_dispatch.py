"""Dispatch overhead: interop against the raw backend call, measured in one process.

Run: .venv/bin/python benchmarks/bench_dispatch.py [--quick] [--markdown]

For each operation and shape, prints the best-of-N time per call of the raw
NumPy expression and of the same expression on an interop ``Tensor``, a
``SubTensor`` (default ``__torch_function__``) and a ``HookedTensor`` (its own
``__torch_function__`` calling ``super()``), with ratios to raw; where torch is
installed, also a ``torch.Tensor`` subclass with the same handler (the anchor
for ``HookedTensor``: torch's own protocol cost).  Ratios from
one run are what to compare: machines are noisy, so no test asserts on them.
"""

from __future__ import annotations

import argparse
import timeit
from collections.abc import Callable

import numpy as np

import interop


class SubTensor(interop.Tensor):
    """A subclass keeping the default handler."""


class HookedTensor(interop.Tensor):
    """A subclass with its own (pass-through) handler."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs)


def _torch_hooked() -> type | None:
    """A torch.Tensor subclass with the same pass-through handler, if torch is installed."""
    try:
        import torch
    except ImportError:
        return None

    class TorchHooked(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return super().__torch_function__(func, types, args, kwargs)
    return TorchHooked


def _calibrated(fn: Callable[[], object], budget_s: float) -> int:
    """A loop count that makes one timing take about a fiftieth of the budget: short
    timings, many of them, so the best one is likely to have run undisturbed.  ``fn``
    runs first untimed: a first call that compiles (JAX) would otherwise leave a count of
    1, and one call timed alone after other work is a cold one (JAX's ``a + b`` read
    1.6x slower so)."""
    fn()
    number = 1
    while timeit.timeit(fn, number=number) <= budget_s / 50 and number <= 10**7:
        number *= 4
    return number


def best_ns(fns: list[Callable[[], object]], budget_s: float, repeat: int = 35) -> list[float]:
    """Best per-call time in ns of each of ``fns``, timed in turn ``repeat`` times, so that
    the machine's drifts (other jobs, clock, memory) touch every variant alike; the order
    reverses every other round, so none is always timed right after another's."""
    numbers = [_calibrated(fn, budget_s) for fn in fns]
    best = [float("inf")] * len(fns)
    for k in range(repeat):
        order = range(len(fns)) if k % 2 == 0 else reversed(range(len(fns)))
        for i in order:
            best[i] = min(best[i], timeit.timeit(fns[i], number=numbers[i]) / numbers[i] * 1e9)
    return best


def cases(shape: tuple[int, ...]) -> dict[str, tuple[Callable, Callable]]:
    """name -> (raw case factory, tensor case factory); factories take arrays/tensors."""
    table = {
        "t + t": (lambda a, b: (lambda: a + b), lambda x, y: (lambda: x + y)),
        "t.sum()": (lambda a, b: (lambda: a.sum()), lambda x, y: (lambda: x.sum())),
        "t[1:3]": (lambda a, b: (lambda: a[1:3]), lambda x, y: (lambda: x[1:3])),
        "matmul": (lambda a, b: (lambda: np.matmul(a, b)),
                   lambda x, y: (lambda: interop.matmul(x, y)),
                   lambda x, y: (lambda: x.matmul(y))),  # torch's column: the method
    }
    if _torch_hooked() is not None:
        import torch  # torch's own function on interop tensors: torch's route to the handler
        table["torch.add"] = (lambda a, b: (lambda: a + b),
                              lambda x, y: (lambda: torch.add(x, y)))
    return table


def run(quick: bool) -> list[tuple]:
    rows = []
    budget = 0.05 if quick else 0.4
    torch_hooked = _torch_hooked()
    for shape in [(8,), (64, 64), (1024, 1024)]:
        rng = np.random.default_rng(0)
        a, b = rng.standard_normal(shape), rng.standard_normal(shape)
        tensors = [(interop.as_tensor(a).as_subclass(cls), interop.as_tensor(b).as_subclass(cls))
                   for cls in (interop.Tensor, SubTensor, HookedTensor)]
        for name, (raw_case, t_case, *torch_case) in cases(shape).items():
            fns = [raw_case(a, b), *(t_case(x, y) for x, y in tensors)]
            if torch_hooked is not None:
                import torch
                x, y = (torch.from_numpy(v).as_subclass(torch_hooked) for v in (a, b))
                fns.append((torch_case[0] if torch_case else t_case)(x, y))
            rows.append((name, shape, *best_ns(fns, budget)))
    return rows


def machine() -> str:
    """The machine a run measured, as the benchmarks page names it: cores, CPU, versions."""
    import os
    import platform
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    versions = [f"Python {platform.python_version()}", f"NumPy {np.__version__}"]
    try:
        import torch
        versions.append(f"torch {torch.__version__}")
    except ImportError:
        pass
    return f"{os.cpu_count()} cores, {cpu}; {', '.join(versions)}"


def markdown(rows: list[tuple], columns: list[str]) -> str:
    """The rows as a table for docs/benchmarks.md, after a line with the date, the machine
    and the command that reproduces them."""
    import datetime
    import sys
    command = " ".join(["python", *sys.argv])
    lines = [f"{datetime.date.today().isoformat()}; {machine()}; `{command}`", "",
             "| operation | shape | raw numpy | " + " | ".join(columns) + " |",
             "|---|---|---|" + "---|" * len(columns)]
    for name, shape, raw, *times in rows:
        cells = " | ".join(f"{t / 1e3:.2f} us ({t / raw:.2f}x)" for t in times)
        lines.append(f"| `{name}` | {shape} | {raw / 1e3:.2f} us | {cells} |")
    return "\n".join(lines)


def cli(run: Callable[[bool], list[tuple]], columns: list[str], doc: str, width: int = 10) -> None:
    """Parse --quick, run, and print rows (name, shape, raw ns, *ns) with ratios to raw
    (with --markdown: as a table for the benchmarks page)."""
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("--quick", action="store_true", help="short timing budget")
    parser.add_argument("--markdown", action="store_true",
                        help="print a table for docs/benchmarks.md: date, machine, command first")
    options = parser.parse_args()
    rows = run(options.quick)
    if options.markdown:
        print(markdown(rows, columns))
        return
    print(f"{'operation':<{width}} {'shape':<13} {'raw numpy':>11} "
          + " ".join(f"{c:>16}" for c in columns))
    for name, shape, raw, *times in rows:
        cells = " ".join(f"{t / 1e3:8.2f}us {t / raw:5.2f}x" for t in times)
        print(f"{name:<{width}} {str(shape):<13} {raw / 1e3:9.2f}us {cells}")


def main() -> None:
    columns = ["Tensor", "SubTensor", "HookedTensor"]
    cli(run, columns + (["torch hooked"] if _torch_hooked() is not None else []), __doc__)


if __name__ == "__main__":
    main()
