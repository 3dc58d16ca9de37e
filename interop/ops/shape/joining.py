"""Joining and splitting: cat, stack, split, chunk, unbind, narrow.  The pieces of a split
are views of the input (on Dask, slices remembered for the write replay, ``backends.views``).
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from ...backends import views
from ...errors import ShapeError
from .._args import promote
from ..annotations import Dim, DimOf
from ..registry import op, torch_alias


def _promoted_list(tensors: Any) -> list:
    return list(promote(*tensors)) if len(tensors) > 1 else list(tensors)


@op(aliases=("concat", "concatenate"), out=True, method=False)
def cat(be: Any, tensors: Any, dim: Annotated[int, DimOf("tensors")] = 0, *, axis: Any = None) -> Any:
    """Join tensors along an existing dimension (dtypes promote as in torch).

    >>> interop.cat([interop.ones(2), interop.zeros(1)])
    tensor([1., 1., 0.], backend='numpy')
    >>> interop.cat([interop.ones(1, 2), interop.zeros(1, 2)], dim=1)
    tensor([[1., 1., 0., 0.]], backend='numpy')
    """
    tensors = list(tensors)
    if not tensors:
        raise ValueError("cat(): expected a non-empty list of tensors")
    d = dim
    if d is None:
        return be.np.concatenate([be.np.reshape(t, (-1,)) for t in _promoted_list(tensors)])
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"cat(): zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated; make it 1-d with t.unsqueeze(0), or use stack")
    promoted = _promoted_list(tensors)
    kept = [(i, t) for i, t in enumerate(promoted) if t.shape != (0,)]  # torch skips these
    if not kept:
        return be.np.concatenate(promoted)
    _check_cat_shapes(kept, d)
    return be.np.concatenate([t for _, t in kept], axis=d)


def _check_cat_shapes(kept: list, d: int) -> None:
    """torch's checks, made here: Dask drops empty operands without checking their shapes."""
    first = tuple(kept[0][1].shape)
    for i, t in kept[1:]:
        if t.ndim != len(first):
            if any(x.ndim == 1 and math.isnan(x.shape[0]) for x in (kept[0][1], t)):
                raise ValueError("cat: a 1-d tensor of unknown (NaN) size, which torch skips "
                                 "if it is empty")
            raise ShapeError(f"cat(): Tensors must have same number of dimensions: got "
                             f"{len(first)} and {t.ndim}; reshape or unsqueeze tensor {i}")
        for j, (a, b) in enumerate(zip(first, t.shape)):
            if j != d and a == a and b == b and a != b:  # (NaN: a size Dask does not know yet)
                raise ShapeError(f"cat(): Sizes of tensors must match except in dimension {d}. "
                                 f"Expected size {a} but got size {b} for tensor number {i} in "
                                 "the list; check the arguments' shapes")


@op(out=True, method=False)
def stack(be: Any, tensors: Any, dim: Annotated[int, DimOf("tensors", extra=1)] = 0, *,
          axis: Any = None) -> Any:
    """Join tensors along a new dimension.

    >>> interop.stack([interop.ones(2), interop.zeros(2)])
    tensor([[1., 1.],
            [0., 0.]], backend='numpy')
    """
    tensors = list(tensors)
    if not tensors:
        raise ValueError("stack(): expected a non-empty list of tensors")
    return be.np.stack(_promoted_list(tensors), axis=dim)


@op()
def split(be: Any, input: Any, split_size_or_sections: Any, dim: Dim = 0) -> Any:
    """Views of ``split_size`` elements each (or of the given section sizes) along ``dim``.

    >>> interop.arange(5).split(2)
    (tensor([0, 1], backend='numpy'), tensor([2, 3], backend='numpy'), tensor([4], backend='numpy'))
    >>> interop.arange(5).split([1, 4])
    (tensor([0], backend='numpy'), tensor([1, 2, 3, 4], backend='numpy'))
    """
    d = dim
    n = input.shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step < 0 or step == 0 and n:
            raise ShapeError(f"split expects split_size be non-negative (and 0 only for a "
                             f"dimension of size 0), but got split_size={step} for size {n}")
        bounds = list(range(0, n, step)) + [n] if n else [0, 0]
    else:
        bounds = [0]
        if any(s < 0 for s in split_size_or_sections):
            raise ShapeError(f"split_with_sizes expects split_sizes have only non-negative "
                             f"entries, but got split_sizes={list(split_size_or_sections)}")
        for s in split_size_or_sections:
            bounds.append(bounds[-1] + s)
        if bounds[-1] != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {d}), but got "
                               f"split_sizes={list(split_size_or_sections)}")
    index = (slice(None),) * d
    return tuple(views.remember(input[index + (slice(a, b),)], input, index + (slice(a, b),))
                 for a, b in zip(bounds[:-1], bounds[1:]))


torch_alias("torch.unsafe_split", "torch.split_with_sizes", to="split")


@op()
def chunk(be: Any, input: Any, chunks: int, dim: Dim = 0) -> Any:
    """Split into ``chunks`` nearly equal parts along ``dim``.

    >>> interop.arange(6).chunk(3)
    (tensor([0, 1], backend='numpy'), tensor([2, 3], backend='numpy'),
     tensor([4, 5], backend='numpy'))
    """
    if chunks <= 0:
        raise ShapeError(f"chunk(): chunk expects `chunks` to be greater than 0, got: {chunks}; "
                         "pass the number of parts wanted (1 or more)")
    n = input.shape[dim]
    size = -(-n // chunks) if n else 1
    return split(be, input, size, dim)


torch_alias("torch.unsafe_chunk", to="chunk")
