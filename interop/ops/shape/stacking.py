"""Stacking, splitting, flipping and diagonal embedding: hstack and friends,
tensor_split/hsplit/vsplit/dsplit, fliplr/flipud/rot90, unflatten, select,
diag_embed/diagflat and atleast_2d/3d."""

from __future__ import annotations

import math
from typing import Any

from ...backends import views
from ...backends.registry import host_values
from .._args import promote
from ..annotations import Dim
from ..registry import op
from .manipulation import _reshape


@op()
def diag_embed(be: Any, input: Any, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Any:
    """Matrices with the last dim of ``input`` on their ``offset`` diagonal."""
    n = input.shape[-1] + abs(offset)
    rows = be.np.arange(input.shape[-1]) + max(-offset, 0)
    cols = be.np.arange(input.shape[-1]) + max(offset, 0)
    hot = (be.np.arange(n)[:, None] == rows) [:, None, :] & (be.np.arange(n)[None, :, None] == cols)
    out = be.np.sum(be.np.where(hot, input[..., None, None, :], input.dtype.type(0)), axis=-1)
    out = out.astype(input.dtype)
    d1, d2 = dim1 % (input.ndim + 1), dim2 % (input.ndim + 1)
    return be.np.moveaxis(out, (-2, -1), (d1, d2))


@op(keywords={"k": "offset"})
def diagflat(be: Any, input: Any, offset: int = 0) -> Any:
    """A matrix with the flattened input on its ``offset`` diagonal."""
    return be.np.diag(be.np.reshape(input, (-1,)), k=offset)


# ------------------------------------------------------------------ stacking and splitting
def _stacker(name: str, fn: str) -> None:
    def impl(be: Any, tensors: Any) -> Any:
        parts = list(promote(*tensors)) if len(tensors) > 1 else list(tensors)
        if fn == "column_stack":  # vectors (and 0-d) as columns, then side by side
            return be.np.hstack([be.np.reshape(t, (-1, 1)) if t.ndim < 2 else t for t in parts])
        return getattr(be.np, fn)(parts)
    impl.__name__, impl.__doc__ = name, f"{name} of a sequence of tensors (dtypes promoted)."
    op(name, method=False)(impl)


for _name in ("hstack", "vstack", "dstack", "column_stack"):
    _stacker(_name, _name)


@op()
def fliplr(be: Any, input: Any) -> Any:
    """Reverse the columns (dim 1)."""
    return be.np.flip(input, axis=1)


@op()
def flipud(be: Any, input: Any) -> Any:
    """Reverse the rows (dim 0)."""
    return be.np.flip(input, axis=0)


@op(keywords={"axes": "dims"})
def rot90(be: Any, input: Any, k: int = 1, dims: Any = (0, 1)) -> Any:
    """Rotate by 90 degrees k times in the plane of ``dims``."""
    return be.np.rot90(input, k, axes=tuple(dims))


@op()
def unflatten(be: Any, input: Any, dim: Dim, sizes: Any) -> Any:
    """Split ``dim`` into ``sizes`` (one entry may be -1)."""
    d = dim
    sizes = list(sizes)
    if -1 in sizes:
        known = math.prod(s for s in sizes if s != -1)
        sizes[sizes.index(-1)] = input.shape[d] // known if known else 0
    return views.reshaped(_reshape(be, input, (*input.shape[:d], *sizes, *input.shape[d + 1:])),
                          input)


@op()
def tensor_split(be: Any, input: Any, indices_or_sections: Any, dim: Dim = 0) -> Any:
    """Split into n near-equal parts, or at the given indices."""
    d = dim
    spec = indices_or_sections
    if hasattr(spec, "ndim"):
        spec = host_values(spec, "tensor_split(): indices_or_sections").tolist()
    size = input.shape[d]
    if isinstance(spec, int):
        q, r = divmod(size, spec)
        bounds = [i * q + min(i, r) for i in range(spec + 1)]
    else:
        bounds = [0, *[min(max(int(i), 0), size) for i in spec], size]
    pre = (slice(None),) * d
    parts = ((*pre, slice(lo, max(lo, hi))) for lo, hi in zip(bounds, bounds[1:]))
    return tuple(views.remember(input[part], input, part) for part in parts)


def _split_at(name: str, dim: int, min_ndim: int) -> None:
    def impl(be: Any, input: Any, indices_or_sections: Any) -> Any:
        if input.ndim < min_ndim:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_ndim} "
                               f"dimension, but got a tensor with {input.ndim} dimensions!")
        d = 0 if name == "hsplit" and input.ndim == 1 else dim
        if isinstance(indices_or_sections, int) and input.shape[d] % indices_or_sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the "
                               f"size of the dimension {input.shape[d]} is not divisible by "
                               f"the split_size {indices_or_sections}!")
        return tensor_split(be, input, indices_or_sections, d)
    impl.__name__, impl.__doc__ = name, f"tensor_split along dim {dim}."
    op(name)(impl)


_split_at("hsplit", 1, 1)
_split_at("vsplit", 0, 2)
_split_at("dsplit", 2, 3)


@op()
def select(be: Any, input: Any, dim: Dim, index: int) -> Any:
    """input[..., index, ...] at ``dim`` (a view)."""
    d = dim
    if not -input.shape[d] <= index < input.shape[d]:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {d}")
    at = (slice(None),) * d + (index, Ellipsis)  # (a 0-d result too is a view, not a copy)
    return views.remember(input[at], input, at)

def _atleast(n: int) -> None:
    def impl(be: Any, *tensors: Any) -> Any:
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            return tuple(impl(be, *tensors[0]))
        out = [getattr(be.np, f"atleast_{n}d")(x) for x in tensors]
        return out[0] if len(out) == 1 else tuple(out)
    impl.__name__, impl.__doc__ = f"atleast_{n}d", f"Tensors with at least {n} dimensions."
    op(f"atleast_{n}d", method=False)(impl)


_atleast(2)
_atleast(3)
