"""Array API overhead: interop.array_api on tensors against array-api-compat's NumPy namespace
on raw arrays (what a consumer such as scikit-learn calls without interop), in one process.

Run: .venv/bin/python benchmarks/bench_array_api.py [--quick]

Columns: ``Tensor`` and ``SubTensor`` (default handler), each with its ratio to raw compat.
"""

from __future__ import annotations

from collections.abc import Callable

import array_api_compat.numpy as compat
import numpy as np
from bench_dispatch import SubTensor, best_ns, cli

import interop
import interop.array_api as xp

CASES: dict[str, Callable[[object, object], Callable[[], object]]] = {
    "add": lambda ns, x: (lambda: ns.add(x, x)),
    "sum": lambda ns, x: (lambda: ns.sum(x, axis=0)),
    "matmul": lambda ns, x: (lambda: ns.matmul(x, x)),
    "linalg.vector_norm": lambda ns, x: (lambda: ns.linalg.vector_norm(x)),
    "zeros_like": lambda ns, x: (lambda: ns.zeros_like(x)),
}


def run(quick: bool) -> list[tuple]:
    budget = 0.05 if quick else 0.4
    rows: list[tuple] = []
    for shape in [(8, 8), (512, 512)]:
        a = np.random.default_rng(0).standard_normal(shape)
        tensors = [interop.as_tensor(a), interop.as_tensor(a).as_subclass(SubTensor)]
        rows += [(name, shape, *best_ns([case(compat, a), *(case(xp, t) for t in tensors)], budget))
                 for name, case in CASES.items()]
    return rows


def main() -> None:
    cli(run, ["Tensor", "SubTensor"], __doc__, width=19)


if __name__ == "__main__":
    main()
