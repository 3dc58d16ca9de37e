"""aten-level torch functions that torch exposes as ``torch.*`` (or only as
``torch.ops.aten.*``) and op_db tests: native_layer_norm and native_group_norm (the output
with the saved mean and 1/std), constant_pad_nd and ``aten.slice``.  Written on the same
primitives as their torch.nn.functional and indexing forms.
"""

from __future__ import annotations

import math
from typing import Any

from ..backends import views
from . import nn_functional
from ._args import check_dim, int_arg
from .nn_functional import _affine, _channel
from .registry import op
from .shape import _reshape as reshape_any


def _stats(be: Any, x: Any, axes: tuple, eps: float) -> tuple[Any, Any]:
    """(mean, 1/sqrt(biased var + eps)) over ``axes``, kept as size-1 dims."""
    mean = be.np.mean(x, axis=axes, keepdims=True)
    var = be.np.mean(be.np.square(x - mean), axis=axes, keepdims=True)
    return mean, 1 / be.np.sqrt(var + x.dtype.type(eps))


@op(method=False, torch=("torch.native_layer_norm",), family="nn")
def native_layer_norm(be: Any, input: Any, normalized_shape: Any, weight: Any, bias: Any,
                      eps: float) -> Any:
    """(layer_norm(input), mean, rstd), the statistics shaped to broadcast against input."""
    k = 1 if isinstance(normalized_shape, int) else len(normalized_shape)
    axes = tuple(range(input.ndim - k, input.ndim))
    if input.size == 0:
        shape = (*input.shape[:input.ndim - k], *(1,) * k)
        empty = be.np.zeros(shape, dtype=input.dtype)
        return input, empty, empty
    mean, rstd = _stats(be, input, axes, eps)
    return _affine((input - mean) * rstd, weight, bias), mean, rstd


@op(method=False, torch=("torch.native_group_norm",), family="nn")
def native_group_norm(be: Any, input: Any, weight: Any, bias: Any, N: int, C: int,  # noqa: N803
                      HxW: int, group: int, eps: float) -> Any:  # noqa: N803
    """(group_norm(input), mean, rstd), the statistics of shape (N, group)."""
    g = reshape_any(be, input, (N, group, (C // group) * HxW))  # rechunks where Dask must
    if g.shape[-1] == 0:
        stats = be.np.full((N, group), math.nan, dtype=input.dtype)
        return input, stats, stats
    mean, rstd = _stats(be, g, (-1,), eps)
    out = reshape_any(be, (g - mean) * rstd, tuple(input.shape))
    out = _affine(out, _channel(weight, input.ndim), _channel(bias, input.ndim))
    return out, mean[..., 0], rstd[..., 0]


@op(method=False, torch=("torch.constant_pad_nd",), family="nn")
def constant_pad_nd(be: Any, input: Any, pad: Any, value: Any = 0) -> Any:
    """F.pad in constant mode (negative amounts crop), torch's aten spelling."""
    return nn_functional.pad(be, input, pad, "constant", value)


@op("slice", function=False, method=False, family="shape", torch=("aten.slice.Tensor",))
def slice_(be: Any, input: Any, dim: int = 0, start: Any = None, end: Any = None,
           step: Any = 1) -> Any:
    """``input[start:end:step]`` along ``dim`` (bounds clamped, as Python's), a view:
    torch.ops.aten's spelling of basic slicing."""
    if input.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = check_dim("slice", dim, input.ndim)
    start, end = (None if b is None else int_arg("slice", what, b)
                  for b, what in ((start, "start"), (end, "end")))
    step = int_arg("slice", "step", step)
    if step <= 0:
        raise RuntimeError(f"slice step must be positive, got {step}; flip the tensor "
                           "(torch.flip) for a reversed order")
    index = (slice(None),) * d + (slice(start, end, step),)
    return views.remember(input[index], input, index)
