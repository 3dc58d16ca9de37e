"""NumPy-protocol overhead: NumPy calls on interop tensors against the same calls on raw
NumPy arrays, measured in one process.

Run: .venv/bin/python benchmarks/bench_numpy.py [--quick]

Rows: ``np.add(t, t)`` (``__array_ufunc__``), ``np.sum(t)`` (``__array_function__``) and
``a + t`` (an ndarray on the left: NumPy's binop sends it to ``np.add``), plus a minimal
NEP-13/18 mixin wrapper as the yardstick the issue names.  Columns as in
``bench_dispatch.py``: ``Tensor``, ``SubTensor`` (default handler), ``HookedTensor``
(its own handler calling ``super()``), each with its ratio to raw NumPy.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from bench_dispatch import HookedTensor, SubTensor, best_ns, cli
from numpy.lib.mixins import NDArrayOperatorsMixin

import interop


class MinimalWrapper(NDArrayOperatorsMixin):
    """The smallest useful NEP-13/18 wrapper: unwrap, call NumPy, wrap."""

    def __init__(self, raw: np.ndarray) -> None:
        self.raw = raw

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = [x.raw if isinstance(x, MinimalWrapper) else x for x in inputs]
        return MinimalWrapper(getattr(ufunc, method)(*inputs, **kwargs))

    def __array_function__(self, func, types, args, kwargs):
        args = [x.raw if isinstance(x, MinimalWrapper) else x for x in args]
        return MinimalWrapper(func(*args, **kwargs))


CASES: dict[str, Callable[[object, object, np.ndarray], Callable[[], object]]] = {
    "np.add(t, t)": lambda x, y, a: (lambda: np.add(x, y)),
    "np.sum(t)": lambda x, y, a: (lambda: np.sum(x)),
    "a + t": lambda x, y, a: (lambda: a + y),
}


def wrapped_pairs(a: np.ndarray, b: np.ndarray) -> list[tuple]:
    """(x, y) per column: the three tensor classes, then the minimal wrapper."""
    classes = (interop.Tensor, SubTensor, HookedTensor)
    return [*((interop.as_tensor(a).as_subclass(c), interop.as_tensor(b).as_subclass(c))
              for c in classes), (MinimalWrapper(a), MinimalWrapper(b))]


def run(quick: bool) -> list[tuple]:
    budget = 0.05 if quick else 0.4
    rows: list[tuple] = []
    for shape in [(8,), (64, 64), (1024, 1024)]:
        a, b = np.random.default_rng(0).standard_normal((2, *shape))
        pairs = wrapped_pairs(a, b)
        rows += [(name, shape, *best_ns([case(a, b, a), *(case(x, y, a) for x, y in pairs)],
                                        budget))
                 for name, case in CASES.items()]
    return rows


def main() -> None:
    cli(run, ["Tensor", "SubTensor", "HookedTensor", "mixin wrapper"], __doc__, width=13)


if __name__ == "__main__":
    main()
