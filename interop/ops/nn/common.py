"""What the torch.nn.functional modules share: the namespace name, ATen's reductions, and
``inplace=True``."""

from __future__ import annotations

from typing import Any

from ...backends import views

NN = "torch.nn.functional"

REDUCTIONS = ("none", "mean", "sum")
"""The reductions by name, in the order ATen numbers them (torch's ``Reduction`` enum)."""


def in_place(be: Any, input: Any, result: Any, inplace: bool) -> Any:
    """``inplace=True``: write into ``input``'s buffer (on Dask, its graph) and return it."""
    if not inplace:
        return result
    views.check_writable(input, "inplace=True")
    views.assign(input, result)
    return input


def running_update(running: Any, stat: Any, momentum: float) -> None:
    """A running statistic's update, written into its buffer as torch writes it:
    ``(1 - momentum) * running + momentum * stat`` (a module's ``momentum=None``, the
    cumulative average, reaches the functional form as a number)."""
    views.assign(running, ((1 - momentum) * running + momentum * stat).astype(running.dtype))
