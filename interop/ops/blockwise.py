"""Blockwise lowering: an operation declares the axes along which it is independent, and a
chunked backend runs it one task per chunk with the eager implementation of the same record.

On Dask or Cubed an operation written against the array namespace becomes many graph
layers (a convolution: a slice, an einsum and a sum per kernel offset, per chunk), which
nothing fuses.  Where each block of the result depends only on the same block of the first
operand (and on the other operands whole: a layer's weights), the backend instead makes
one blockwise layer that calls the record's implementation on NumPy (or CuPy) blocks, and
neighbouring blockwise layers fuse: a network becomes one task per chunk.

    @op(..., blockwise=Blockwise(axes=(0,), min_ndim=4))   # conv2d: along the batch

A gradient with respect to weights is a sum over the batch: ``aligned`` names operands that
share the first one's blocks (the layer's input beside the output's gradient), and
``summed`` makes each block's result a partial sum, the partials then added (a small tree of
weight-sized arrays), so a minibatch's backward runs where its chunk is.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class Blockwise:
    """The axes of the first operand, and of the result at the same places, along which the
    operation is independent.

    ``axes``: a tuple, or a function of the first operand's rank (``linear``: every axis
    but the last); ``min_ndim``: a first operand of fewer dimensions has no such axes
    (an unbatched image's first axis is its channels); ``unless``: arguments that, when
    true, make blocks depend on each other (``batch_norm``'s ``training``); ``aligned``:
    operands indexed along ``axes`` as the first one is (each task gets their block at the
    same place, not the whole); ``summed``: the result has no ``axes`` (it sums over them),
    each block's result is a partial sum."""

    axes: tuple[int, ...] | Callable[[int], tuple[int, ...]] = (0,)
    min_ndim: int = 1
    unless: tuple[str, ...] = ()
    aligned: tuple[str, ...] = ()
    summed: bool = False
    flags: dict[str, int] = field(default_factory=dict, compare=False)
    """``unless``'s and ``aligned``'s arguments by position in the implementation (set by
    ``lowered``)."""

    def axes_of(self, args: tuple, kwargs: dict) -> tuple[int, ...] | None:
        """The independent axes of this call (non-negative), or None where there are none."""
        ndim = getattr(args[0], "ndim", None) if args else None
        if ndim is None or ndim < self.min_ndim:
            return None
        for name in self.unless:
            if self.argument(name, args, kwargs, False):
                return None
        axes = self.axes(ndim) if callable(self.axes) else self.axes
        return tuple(sorted({a % ndim for a in axes})) or None

    def argument(self, name: str, args: tuple, kwargs: dict, default: Any = None) -> Any:
        """The value of the implementation's parameter ``name`` in this call."""
        position = self.flags[name]
        return kwargs.get(name, args[position] if position < len(args) else default)

    def aligned_places(self, args: tuple, kwargs: dict) -> list[int | str]:
        """Where ``aligned``'s operands are in this call: positions, or keywords."""
        return [name if name in kwargs else self.flags[name] for name in self.aligned
                if name in kwargs or self.flags[name] < len(args)]


def lowered(impl: Callable, spec: Blockwise) -> Callable:
    """``impl``, run block by block where its backend can (``Backend.blockwise``; the
    contract's default declines at once, and ``impl`` runs as it is)."""
    params = list(inspect.signature(impl).parameters)[1:]  # after be
    spec = replace(spec, flags={name: params.index(name) for name in (*spec.unless, *spec.aligned)})

    @functools.wraps(impl)
    def by_blocks(be: Any, *args: Any, **kwargs: Any) -> Any:
        out = be.blockwise(impl, spec, args, kwargs)
        return impl(be, *args, **kwargs) if out is NotImplemented else out
    return by_blocks
