"""aten-level torch functions that torch exposes as ``torch.*`` (or only as
``torch.ops.aten.*``) and op_db tests: native_layer_norm and native_group_norm (the output
with the saved mean and 1/std), constant_pad_nd, ``aten.slice`` and the
backward kernels op_db calls directly (softmax's, dropout's, max_pool2d's).  Written on the
same primitives as their torch.nn.functional and indexing forms.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

import numpy as np

from ... import dtypes
from ...backends import views
from ...errors import ShapeError
from .._args import int_arg, promote, whole_arrays
from ..annotations import Dim, DimOf
from ..registry import op, torch_names
from ..shape.manipulation import _reshape as reshape_any
from . import functional, torch_kernels
from .conv import _ceil_pads, _tuple
from .functional import _affine, _channel
from .kernels import provided


def _stats(be: Any, x: Any, axes: tuple, eps: float) -> tuple[Any, Any]:
    """(mean, 1/sqrt(biased var + eps)) over ``axes``, kept as size-1 dims."""
    mean = be.np.mean(x, axis=axes, keepdims=True)
    var = be.np.mean(be.np.square(x - mean), axis=axes, keepdims=True)
    return mean, 1 / be.np.sqrt(var + x.dtype.type(eps))


@op(method=False, torch=("torch.native_layer_norm",))
@provided(torch_kernels.aten("native_layer_norm"))
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


@op(method=False, torch=("torch.native_group_norm",))
@provided(torch_kernels.aten("native_group_norm"))
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


@op(method=False, torch=("torch.constant_pad_nd",))
def constant_pad_nd(be: Any, input: Any, pad: Any, value: Any = 0) -> Any:
    """F.pad in constant mode (negative amounts crop), torch's aten spelling."""
    return functional.pad(be, input, pad, "constant", value)


@op("slice", function=False, method=False, torch=("aten.slice.Tensor",))
def slice_(be: Any, input: Any, dim: Dim = 0, start: Any = None, end: Any = None,
           step: Any = 1) -> Any:
    """``input[start:end:step]`` along ``dim`` (bounds clamped, as Python's), a view:
    torch.ops.aten's spelling of basic slicing."""
    if input.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = dim
    start, end = (None if b is None else int_arg("slice", what, b)
                  for b, what in ((start, "start"), (end, "end")))
    step = int_arg("slice", "step", step)
    if step <= 0:
        raise RuntimeError(f"slice step must be positive, got {step}; flip the tensor "
                           "(torch.flip) for a reversed order")
    index = (slice(None),) * d + (slice(start, end, step),)
    return views.remember(input[index], input, index)


@op("_softmax_backward_data", method=False,
    torch=torch_names("_softmax_backward_data", "aten", also=("torch._softmax_backward_data",)))
@provided(torch_kernels.softmax_backward)
def softmax_backward_data(be: Any, grad_output: Any, output: Any, dim: Annotated[int, DimOf("output")],
                          input_dtype: Any) -> Any:
    """The gradient of softmax's input from its output's: ``y * (g - sum(g * y))`` along
    ``dim`` (torch's CPU kernel keeps the gradient's dtype)."""
    if grad_output.dtype != output.dtype:
        raise RuntimeError(f"_softmax_backward_data: expected scalar type {output.dtype} but "
                           f"found {grad_output.dtype}; pass the gradient in the output's dtype")
    scaled = grad_output * output
    return scaled - output * be.np.sum(scaled, axis=dim, keepdims=True)


@op(method=False, torch=torch_names("native_dropout_backward", "aten"))
def native_dropout_backward(be: Any, grad_output: Any, mask: Any, scale: float) -> Any:
    """``grad_output * mask * scale``: dropout's gradient, with torch's dtypes (an integer
    gradient times a float scale is float)."""
    kept = be.np.multiply(*promote(grad_output, mask))
    dt = dtypes.result_type(kept, scale)
    return kept.astype(dt) * dt.type(scale)


def _add_planes(be: Any, grad: Any, indices: Any, planes: int, size: int) -> Any:
    """Zeros (planes, size) with row i's values of ``grad`` added at row i's ``indices``
    (windows overlap: one input element may be the max of several)."""
    out = be.np.zeros((planes, size), dtype=grad.dtype)
    rows = be.np.arange(planes)[:, None]
    per_plane = grad.size // planes if planes else 0  # (an empty batch: no -1 to infer)
    return be.updated(out, (rows, be.np.reshape(indices, (planes, per_plane))),
                      be.np.reshape(grad, (planes, per_plane)), "add")


@op(method=False, torch=torch_names("max_pool2d_with_indices_backward", "aten"))
@provided(torch_kernels.aten("max_pool2d_with_indices_backward"))
def max_pool2d_with_indices_backward(be: Any, grad_output: Any, input: Any, kernel_size: Any,
                                     stride: Any, padding: Any, dilation: Any, ceil_mode: bool,
                                     indices: Any) -> Any:
    """max_pool2d's gradient: each output gradient added at the input element its index
    names (the window's max), zeros elsewhere; on Dask one lazy task."""
    if input.ndim not in (3, 4):
        raise RuntimeError(f"non-empty 3D or 4D (batch mode) tensor expected for input, got "
                           f"{input.ndim}-d")
    kernel = _tuple(kernel_size, 2)
    stride_ = _tuple(stride, 2) if stride not in (None, (), []) else kernel
    padding_, dilation_ = _tuple(padding, 2), _tuple(dilation, 2)
    sizes = tuple(int(n) for n in input.shape[-2:])
    pads = _ceil_pads(sizes, kernel, stride_, padding_, dilation_, ceil_mode)
    pooled = tuple((n + left + right - d * (k - 1) - 1) // st + 1 for n, (left, right), k, st, d
                   in zip(sizes, pads, kernel, stride_, dilation_))
    expected = (*input.shape[:-2], *pooled)
    for name, t in (("grad_output", grad_output), ("indices", indices)):
        if tuple(t.shape) != expected:
            raise ShapeError(f"max_pool2d_with_indices_backward: {name} of shape "
                             f"{list(t.shape)}, but max_pool2d's output is {list(expected)} for "
                             f"input {list(input.shape)}; pass the pool's own gradient and "
                             "indices")
    return indices_backward(be, grad_output, indices, input, 2)


def indices_backward(be: Any, grad_output: Any, indices: Any, input: Any, n: int) -> Any:
    """The gradient of a pool that picked one element per output (max pools, their adaptive
    forms): each output's gradient added at the flat spatial index it picked over the last
    ``n`` dims of ``input``, zeros elsewhere; on Dask one lazy task."""
    planes, size = math.prod(input.shape[:-n]), math.prod(input.shape[-n:])
    flat = whole_arrays(be, _add_planes, (planes, size), grad_output.dtype, grad_output,
                        indices, planes, size)  # a scatter-add: on lazy backends, one task
    return be.np.reshape(flat, tuple(input.shape)).astype(input.dtype)


def _attention_scores(be: Any, query: Any, key: Any, is_causal: bool, attn_mask: Any,
                      scale: Any) -> tuple[Any, Any]:
    """(Q K^T * scale with the mask applied, the scale), as the CPU flash kernel forms them: the
    mask (of the query's dtype) adds, ``is_causal`` keeps the lower triangle."""
    t = query.dtype.type
    s = t(1 / math.sqrt(query.shape[-1]) if scale is None else scale)
    scores = be.np.matmul(query, be.np.swapaxes(key, -1, -2)) * s
    if is_causal:
        kept = be.np.tril(be.np.ones((query.shape[-2], key.shape[-2]), dtype=bool))
        scores = be.np.where(kept, scores, t(-math.inf))
    if attn_mask is not None:
        scores = scores + attn_mask
    return scores, s


def _attention_weights(be: Any, scores: Any, logsumexp: Any) -> Any:
    """softmax of the scores from their log-sum-exp; a row masked whole weighs nothing."""
    lse = logsumexp.astype(scores.dtype)[..., None]
    return be.np.where(be.np.isneginf(lse), scores.dtype.type(0), be.np.exp(scores - lse))


@op(function=False, method=False,
    torch=torch_names("_scaled_dot_product_flash_attention_for_cpu", "aten"))
def _scaled_dot_product_flash_attention_for_cpu(be: Any, query: Any, key: Any, value: Any,
                                                dropout_p: float = 0.0, is_causal: bool = False,
                                                *, attn_mask: Any = None, scale: Any = None) -> Any:
    """(output, logsumexp) of attention over (B, H, L, E) operands: what
    ``scaled_dot_product_attention`` reaches on the CPU from torch 2.14 (logsumexp in float32
    for float32 and lower, as torch's kernel accumulates)."""
    if dropout_p:
        raise NotImplementedError("_scaled_dot_product_flash_attention_for_cpu: dropout_p > 0 "
                                  "is not implemented by interop (pass 0.0)")
    if not query.shape[-1] == key.shape[-1] == value.shape[-1]:
        raise RuntimeError("scaled_dot_product_attention_flash_attention: Q/K/V should have the "
                           "same head size")
    if attn_mask is not None and attn_mask.dtype != query.dtype:
        raise RuntimeError("scaled_dot_product_attention_flash_attention: Attention mask is the "
                           f"same data type as query ({query.dtype}, not {attn_mask.dtype}); "
                           "a boolean mask: torch.where(mask, 0.0, -inf) in the query's dtype")
    scores, _ = _attention_scores(be, query, key, is_causal, attn_mask, scale)
    peak = be.np.max(scores, axis=-1, keepdims=True)
    finite = be.np.where(be.np.isneginf(peak), scores.dtype.type(0), peak)
    lse = be.np.log(be.np.sum(be.np.exp(scores - finite), axis=-1)) + finite[..., 0]
    out = be.np.matmul(_attention_weights(be, scores, lse), value)
    return out.astype(query.dtype), lse.astype(np.promote_types(query.dtype, np.float32))


@op(function=False, method=False,
    torch=torch_names("_scaled_dot_product_flash_attention_for_cpu_backward", "aten"))
def _scaled_dot_product_flash_attention_for_cpu_backward(
        be: Any, grad_out: Any, query: Any, key: Any, value: Any, out: Any, logsumexp: Any,
        dropout_p: float, is_causal: bool, *, attn_mask: Any = None, scale: Any = None) -> Any:
    """(grad_query, grad_key, grad_value) from the forward's output and log-sum-exp: with P the
    weights, dV = P^T dO, dS = P (dO V^T - rowsum(dO O)), dQ = dS K s, dK = dS^T Q s."""
    if dropout_p:
        raise NotImplementedError("_scaled_dot_product_flash_attention_for_cpu_backward: "
                                  "dropout_p > 0 is not implemented by interop")
    scores, s = _attention_scores(be, query, key, is_causal, attn_mask, scale)
    weights = _attention_weights(be, scores, logsumexp)
    grad_value = be.np.matmul(be.np.swapaxes(weights, -1, -2), grad_out)
    grad_weights = be.np.matmul(grad_out, be.np.swapaxes(value, -1, -2))
    grad_scores = weights * (grad_weights - be.np.sum(grad_out * out, axis=-1, keepdims=True))
    grad_query = be.np.matmul(grad_scores, key) * s
    grad_key = be.np.matmul(be.np.swapaxes(grad_scores, -1, -2), query) * s
    return grad_query, grad_key, grad_value
