"""Counting Dask graph computations: the local schedulers call ``_start`` once per graph
(each compute, persist or implicit read), so ``count`` says how many ran in the block."""

from __future__ import annotations

from dask.callbacks import Callback


class ComputeCounter(Callback):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def _start(self, dsk) -> None:  # noqa: ANN001 - Dask's callback signature
        self.count += 1


class lazily:
    """Asserts that the block computes no Dask graph."""

    def __enter__(self) -> None:
        self.counter = ComputeCounter()
        self.counter.__enter__()

    def __exit__(self, *exc) -> None:  # noqa: ANN002
        self.counter.__exit__(*exc)
        assert self.counter.count == 0, f"{self.counter.count} computations"
