"""torch.nn.functional on backend arrays: normalisation, linear, embedding, one_hot, pad,
attention (activations and softmax: activations.py; convolutions: conv.py; losses:
loss.py; dropout: dropout.py; batch_norm: batch_norm.py).

Each entry answers ``torch.nn.functional.<name>`` (and ``torch.<name>`` /
``torch.Tensor.<name>`` where torch has them), so ``F.relu(t)`` and an
``nn.Module`` forward on interop tensors run here, on the tensor's backend.
Integer inputs of floating functions take the default float, as in torch.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import dtypes
from ...backends import views
from ...backends.registry import python_value
from .._args import float_input, int_arg
from ..annotations import Dim
from ..blockwise import Blockwise
from ..reductions.aggregates import norm as vector_norm
from ..registry import op, torch_names
from ..shape.manipulation import _reshape as reshape_any
from ..torch_releases import loaded_torch_does
from . import torch_kernels
from .activations import softmax
from .common import NN, running_update
from .kernels import provided


# ------------------------------------------------------------------ normalisation
def _affine(x: Any, weight: Any, bias: Any) -> Any:
    if weight is not None:
        x = x * weight
    if bias is not None:
        x = x + bias
    return x


@op(method=False, torch=torch_names("layer_norm", NN, function=True))
@provided(torch_kernels.layer_norm)
def layer_norm(be: Any, input: Any, normalized_shape: Any, weight: Any = None, bias: Any = None,
               eps: float = 1e-5, cudnn_enable: bool = True) -> Any:
    """Normalise over the trailing ``normalized_shape`` dims (biased variance), then scale/shift."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape):]) != shape:
        raise RuntimeError(f"layer_norm: Given normalized_shape={list(shape)}, expected input "
                           f"with shape [*, {', '.join(map(str, shape))}], but got input of size "
                           f"{list(input.shape)}")
    axes = tuple(range(input.ndim - len(shape), input.ndim))
    mean = be.np.mean(input, axis=axes, keepdims=True)
    var = be.np.mean(be.np.square(input - mean), axis=axes, keepdims=True)
    out = (input - mean) / be.np.sqrt(var + input.dtype.type(eps))
    return _affine(out, weight, bias)


@op(method=False, torch=torch_names("rms_norm", NN, function=True))
def rms_norm(be: Any, input: Any, normalized_shape: Any, weight: Any = None,
             eps: float | None = None) -> Any:
    """x / sqrt(mean(x^2) + eps) over the trailing dims (eps: the dtype's epsilon by default)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    axes = tuple(range(input.ndim - len(shape), input.ndim))
    e = np.finfo(input.dtype).eps if eps is None else eps
    ms = be.np.mean(be.np.square(input), axis=axes, keepdims=True)
    return _affine(input / be.np.sqrt(ms + input.dtype.type(e)), weight, None)


def _channel(v: Any, ndim: int) -> Any:
    """A per-channel vector shaped to broadcast against (N, C, *spatial)."""
    return None if v is None else v.reshape((-1,) + (1,) * (ndim - 2))


@op(method=False, torch=torch_names("group_norm", NN, function=True),
    blockwise=Blockwise(min_ndim=2))  # each sample
@provided(torch_kernels.group_norm)
def group_norm(be: Any, input: Any, num_groups: int, weight: Any = None, bias: Any = None,
               eps: float = 1e-5) -> Any:
    """Normalise each group of channels per sample, then a per-channel affine."""
    n = input.shape[0]
    # n may be 0; Dask's own reshape refuses some chunkings the tensor reshape rechunks for
    g = reshape_any(be, input, (n, num_groups, math.prod(input.shape[1:]) // num_groups))
    mean = be.np.mean(g, axis=-1, keepdims=True)
    var = be.np.mean(be.np.square(g - mean), axis=-1, keepdims=True)
    out = reshape_any(be, (g - mean) / be.np.sqrt(var + input.dtype.type(eps)), input.shape)
    return _affine(out, _channel(weight, input.ndim), _channel(bias, input.ndim))


@op(method=False, torch=torch_names("instance_norm", NN, function=True))
def instance_norm(be: Any, input: Any, running_mean: Any = None, running_var: Any = None,
                  weight: Any = None, bias: Any = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5, cudnn_enabled: bool = False) -> Any:
    """Normalise each (sample, channel) over its spatial dims."""
    axes = tuple(range(2, input.ndim))
    if use_input_stats or running_mean is None:
        mean = be.np.mean(input, axis=axes, keepdims=True)
        var = be.np.mean(be.np.square(input - mean), axis=axes, keepdims=True)
        if running_mean is not None:  # torch: the instances' statistics, averaged over the batch
            count = math.prod(input.shape[2:])
            unbiased = var * (count / (count - 1) if count > 1 else math.inf)
            running_update(running_mean, be.np.mean(mean, axis=(0, *axes)), momentum)
            running_update(running_var, be.np.mean(unbiased, axis=(0, *axes)), momentum)
    else:
        mean, var = _channel(running_mean, input.ndim), _channel(running_var, input.ndim)
    out = (input - mean) / be.np.sqrt(var + input.dtype.type(eps))
    return _affine(out, _channel(weight, input.ndim), _channel(bias, input.ndim))


@op(method=False, torch=torch_names("normalize", NN))
def normalize(be: Any, input: Any, p: float = 2.0, dim: Dim = 1, eps: float = 1e-12,
              out: Any = None) -> Any:
    """x / max(||x||_p, eps) along ``dim``."""
    d = dim
    a = be.np.abs(input)
    if p == 0:
        norm = be.np.sum(a != 0, axis=d, keepdims=True).astype(input.dtype)
    elif p == float("inf"):
        norm = be.np.max(a, axis=d, keepdims=True)
    else:
        norm = be.np.sum(a ** p, axis=d, keepdims=True) ** (1 / p)
    return input / be.np.maximum(norm, input.dtype.type(eps))


# ------------------------------------------------------------------ layers
@op(method=False, torch=torch_names("linear", NN),
    blockwise=Blockwise(axes=lambda ndim: tuple(range(ndim - 1)), min_ndim=2))  # each row
@provided(torch_kernels.linear)
def linear(be: Any, input: Any, weight: Any, bias: Any = None) -> Any:
    """x @ weight.T + bias (weight is (out_features, in_features), as nn.Linear stores it).

    >>> x, w = interop.ones(1, 3), interop.ones(2, 3)
    >>> interop.linear(x, w, interop.tensor([0.0, 1.0]))
    tensor([[3., 4.]], backend='numpy')
    """
    if input.dtype != weight.dtype:
        raise RuntimeError(f"linear: expected m1 and m2 to have the same dtype, but got: "
                           f"{input.dtype} != {weight.dtype}; convert one with .to(other.dtype)")
    if input.shape[-1] != weight.shape[-1]:
        raise RuntimeError(f"linear: mat1 and mat2 shapes cannot be multiplied "
                           f"({'x'.join(map(str, input.shape))} and "
                           f"{'x'.join(map(str, weight.shape[::-1]))})")
    out = be.np.matmul(input, be.np.swapaxes(weight, -1, -2)) if weight.ndim > 1 else \
        be.np.sum(input * weight, axis=-1)
    return out if bias is None else out + bias


@op(method=False, torch=torch_names("bilinear", NN, function=True))
def bilinear(be: Any, input1: Any, input2: Any, weight: Any, bias: Any = None) -> Any:
    """x1^T W_k x2 + b_k for each output feature k."""
    out = be.np.einsum("...i,kij,...j->...k", input1, weight, input2)
    return out if bias is None else out + bias


def _renormed(be: Any, weight: Any, indices: Any, max_norm: float, norm_type: float) -> Any:
    """torch's embedding_renorm_: the rows ``indices`` name whose ``norm_type``-norm exceeds
    ``max_norm`` scaled by max_norm / (norm + 1e-7), written into ``weight`` (on Dask, into its
    graph); the renormalised weight is returned."""
    views.check_writable(weight, "embedding(max_norm=...)")
    named = be.np.isin(be.np.arange(weight.shape[0]), indices)
    row_norm = vector_norm(be, weight, norm_type, dim=tuple(range(1, weight.ndim)), keepdim=True)
    dt = weight.dtype.type
    over = named.reshape((-1,) + (1,) * (weight.ndim - 1)) & (row_norm > dt(max_norm))
    scale = be.np.where(over, dt(max_norm) / (row_norm + dt(1e-7)), dt(1))
    views.assign(weight, (weight * scale).astype(weight.dtype))
    return views.latest(weight)  # (JAX: the array the write made; else weight itself)


@op(method=False, torch=torch_names("embedding", NN, function=True))
def embedding(be: Any, input: Any, weight: Any, padding_idx: Any = None, max_norm: Any = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Any:
    """Rows of ``weight`` picked by the integer ``input`` (any shape)."""
    if getattr(input, "dtype", dtypes.int64).kind not in "iu":
        raise RuntimeError(f"embedding: Expected tensor for argument #1 'indices' to have one of "
                           f"the following scalar types: Long, Int; but got {input.dtype} instead")
    if max_norm is not None:
        weight = _renormed(be, weight, input.reshape(-1), max_norm, norm_type)
    flat = be.np.take(weight, input.reshape(-1), axis=0)  # 1-d indices: Dask takes those too
    return flat.reshape((*input.shape, *weight.shape[1:]))


@op(method=False, torch=torch_names("one_hot", NN))
def one_hot(be: Any, tensor: Any, num_classes: int = -1) -> Any:
    """int64 one-hot encoding along a new last dim (``num_classes=-1``: max + 1)."""
    if tensor.dtype.kind not in "iu":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    num_classes = int_arg("one_hot", "num_classes", num_classes)
    if num_classes == -1:  # the data's maximum: a value read
        num_classes = python_value(be.np.max(tensor), "one_hot() without num_classes") + 1 \
            if tensor.size else 0
    return (tensor[..., None] == be.np.arange(num_classes)).astype(dtypes.int64)


_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
              "circular": "wrap"}


def _check_non_constant_pad(mode: str, length: int, ndim: int, value: Any) -> None:
    """torch's rule for reflect/replicate/circular: 2, 4 or 6 amounts for the last 1, 2 or 3
    dims of an input with those dims and one or two more (batch, channel); no fill value."""
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if length not in (2, 4, 6) or ndim not in (length // 2 + 1, length // 2 + 2):
        raise NotImplementedError(
            f"Padding size {length} is not supported for {ndim}D input tensor.\n\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def _refuses_any_empty_replicate_pad(torch: Any) -> bool:
    """torch 2.14 refuses a replicate pad that leaves any padded dim empty; 2.13 only one that
    leaves every padded dim empty (its kernels checked ``W >= 1 || H >= 1``)."""
    try:
        torch.nn.functional.pad(torch.zeros(1, 2, 2), (0, 0, -2, 0), mode="replicate")
    except RuntimeError:
        return True
    return False


def _check_replicate(input: Any, pad: Any) -> None:
    """torch's replicate kernels' checks: every dim but the batch non-empty, and the padded
    dims' sizes at least 1 (all of them, or, under torch 2.13, one of them)."""
    k = len(pad) // 2
    kept = input.shape[1:] if input.ndim == k + 2 else input.shape
    if 0 in kept:
        raise RuntimeError(f"pad: expected a {k + 1}D or {k + 2}D (batch mode) input with "
                           f"possibly 0 batch size and other non-zero dimensions for replicate "
                           f"padding, but got: {list(input.shape)}")
    sizes = [input.shape[input.ndim - 1 - i] + int(pad[2 * i]) + int(pad[2 * i + 1])
             for i in range(k)]
    every = k == 1 or loaded_torch_does("refuses any empty replicate pad",
                                        _refuses_any_empty_replicate_pad, newest=True)
    if min(sizes) < 0 or not (all if every else any)(n >= 1 for n in sizes):
        raise RuntimeError(f"pad: input of shape {list(input.shape)} is too small to pad by "
                           f"{tuple(pad)} in replicate mode: the padded dims' sizes would be "
                           f"{sizes[::-1]}; check the pad amounts")


def _replicate_cropping(be: Any, input: Any, pad: Any) -> Any:
    """Replicate padding with negative amounts, as torch's kernel: along each padded dim,
    output j is input clamp(j - lo, 0, n - 1) for j < n + lo + hi (a crop past the far edge
    repeats the edge element)."""
    x = input
    for i in range(len(pad) // 2):
        lo, hi = int(pad[2 * i]), int(pad[2 * i + 1])
        d = input.ndim - 1 - i
        size = input.shape[d] + lo + hi
        x = be.np.take(x, np.clip(np.arange(size) - lo, 0, max(input.shape[d] - 1, 0)), axis=d)
    return x


@op(method=False, torch=torch_names("pad", NN))
def pad(be: Any, input: Any, pad: Any, mode: str = "constant", value: Any = None) -> Any:
    """Pad (or, with negative amounts, crop) the last len(pad)//2 dims; pairs run last dim first.

    >>> interop.pad(interop.ones(2), (1, 2))
    tensor([0., 1., 1., 0., 0.], backend='numpy')
    >>> interop.pad(interop.ones(1, 2), (1, 1), value=9.0)
    tensor([[9., 1., 1., 9.]], backend='numpy')
    """
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise RuntimeError(f"pad: Padding length must be divisible by 2 and at most twice the "
                           f"number of dimensions of the input, got {len(pad)}")
    if mode not in _PAD_MODES:
        raise NotImplementedError(f"pad: mode {mode!r} is not one of {sorted(_PAD_MODES)}")
    if mode != "constant":
        _check_non_constant_pad(mode, len(pad), input.ndim, value)
    if mode == "replicate":
        _check_replicate(input, pad)
        if any(int(a) < 0 for a in pad):
            return _replicate_cropping(be, input, pad)
    widths = [(0, 0)] * input.ndim
    crop = [slice(None)] * input.ndim
    for i in range(len(pad) // 2):
        lo, hi = int(pad[2 * i]), int(pad[2 * i + 1])
        d = input.ndim - 1 - i
        widths[d] = (max(lo, 0), max(hi, 0))
        crop[d] = slice(-min(lo, 0) or None, min(hi, 0) or None)
    x = input[tuple(crop)]
    if mode == "constant":
        fill = input.dtype.type(0 if value is None else value)
        if x.size == 0:  # only fill: made directly (Dask's pad divides by an empty chunk's size)
            shape = tuple(n + lo + hi for n, (lo, hi) in zip(x.shape, widths))
            return be.np.full(shape, fill, dtype=input.dtype)
        return be.np.pad(x, widths, mode="constant", constant_values=fill)
    return be.np.pad(x, widths, mode=_PAD_MODES[mode])


@op(method=False, torch=torch_names("pixel_shuffle", NN, function=True))
def pixel_shuffle(be: Any, input: Any, upscale_factor: int) -> Any:
    """(*, C r^2, H, W) -> (*, C, H r, W r)."""
    r = upscale_factor
    *lead, c, h, w = input.shape
    x = input.reshape((*lead, c // (r * r), r, r, h, w))
    n = len(lead)
    x = be.np.transpose(x, (*range(n), n, n + 3, n + 1, n + 4, n + 2))
    return x.reshape((*lead, c // (r * r), h * r, w * r))


@op(method=False, torch=torch_names("pixel_unshuffle", NN, function=True))
def pixel_unshuffle(be: Any, input: Any, downscale_factor: int) -> Any:
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""
    r = downscale_factor
    *lead, c, h, w = input.shape
    x = input.reshape((*lead, c, h // r, r, w // r, r))
    n = len(lead)
    x = be.np.transpose(x, (*range(n), n, n + 2, n + 4, n + 1, n + 3))
    return x.reshape((*lead, c * r * r, h // r, w // r))


@op(method=False, torch=torch_names("channel_shuffle", NN, function=True))
def channel_shuffle(be: Any, input: Any, groups: int) -> Any:
    """Interleave the channel groups: (N, g * k, ...) -> channels k-major."""
    n, c = input.shape[:2]
    x = input.reshape((n, groups, c // groups, *input.shape[2:]))
    return be.np.swapaxes(x, 1, 2).reshape(input.shape)


@op(method=False, torch=torch_names("pairwise_distance", NN, function=True))
def pairwise_distance(be: Any, x1: Any, x2: Any, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Any:
    """||x1 - x2 + eps||_p along the last dim."""
    x1, x2 = float_input(be, x1), float_input(be, x2)
    d = be.np.abs(x1 - x2 + x1.dtype.type(eps))
    if p == float("inf"):
        return be.np.max(d, axis=-1, keepdims=keepdim)
    if p == 0:
        return be.np.sum(d != 0, axis=-1, keepdims=keepdim).astype(d.dtype)
    return (be.np.sum(d ** p, axis=-1, keepdims=keepdim) ** (1 / p)).astype(d.dtype)


@op(method=False, torch=torch_names("pdist", NN, function=True))
def pdist(be: Any, input: Any, p: float = 2.0) -> Any:
    """Distances between all row pairs i < j of an (N, M) input, in row-major pair order."""
    n = input.shape[0]
    i, j = np.triu_indices(n, 1)
    d = be.np.abs(input[i] - input[j])
    if p == float("inf"):
        return be.np.max(d, axis=-1) if d.size else be.np.sum(d, axis=-1)
    if p == 0:
        return be.np.sum(d != 0, axis=-1).astype(d.dtype)
    return (be.np.sum(d ** p, axis=-1) ** (1 / p)).astype(d.dtype)


def _adaptive_bounds(size: int, out: int) -> list[tuple[int, int]]:
    return [(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]


@provided(torch_kernels.adaptive_avg_pool)
def adaptive_avg_pool(be: Any, input: Any, output_size: Any, n: int) -> Any:
    """Average over adaptive windows (torch's floor/ceil bounds), one spatial dim at a time."""
    outs = (output_size,) * n if isinstance(output_size, int) else tuple(output_size)
    outs = tuple(input.shape[-n + i] if o is None else o for i, o in enumerate(outs))
    x = input
    for k, o in enumerate(outs):  # one spatial dim at a time: mean over each window
        axis = x.ndim - n + k
        pre = (slice(None),) * axis
        parts = [be.np.mean(x[pre + (slice(lo, hi),)], axis=axis, keepdims=True)
                 for lo, hi in _adaptive_bounds(x.shape[axis], o)]
        x = be.np.concatenate(parts, axis=axis)
    return x.astype(input.dtype)


def _adaptive(n: int) -> None:
    def impl(be: Any, input: Any, output_size: Any) -> Any:
        return adaptive_avg_pool(be, input, output_size, n)

    name = f"adaptive_avg_pool{n}d"
    impl.__name__, impl.__doc__ = name, f"Average over {n}-d windows giving ``output_size``."
    op(name, method=False, torch=torch_names(name, NN, function=n == 1),
       blockwise=Blockwise(axes=(0, 1), min_ndim=n + 2))(impl)  # each image and channel


for _n in (1, 2, 3):
    _adaptive(_n)


@op(method=False, torch=torch_names("scaled_dot_product_attention", NN))
@provided(torch_kernels.attention)
def scaled_dot_product_attention(be: Any, query: Any, key: Any, value: Any, attn_mask: Any = None,
                                 dropout_p: float = 0.0, is_causal: bool = False,
                                 scale: Any = None, enable_gqa: bool = False) -> Any:
    """softmax(Q K^T * scale + mask) V; boolean masks keep True, ``is_causal`` the lower triangle."""
    if dropout_p:
        raise NotImplementedError("scaled_dot_product_attention: dropout_p > 0 is not "
                                  "implemented by interop (pass 0.0 at inference)")
    if enable_gqa and key.shape[-3] != query.shape[-3]:
        rep = query.shape[-3] // key.shape[-3]
        key, value = be.np.repeat(key, rep, axis=-3), be.np.repeat(value, rep, axis=-3)
    t = query.dtype.type
    s = t(1 / math.sqrt(query.shape[-1]) if scale is None else scale)
    scores = be.np.matmul(query, be.np.swapaxes(key, -1, -2)) * s
    if is_causal:
        lq, lk = query.shape[-2], key.shape[-2]
        attn_mask = be.np.tril(be.np.ones((lq, lk), dtype=bool))
    if attn_mask is not None:
        if attn_mask.dtype == bool:
            scores = be.np.where(attn_mask, scores, t(-np.inf))
        else:
            scores = scores + attn_mask
    weights = softmax(be, scores, -1)
    masked_out = be.np.all(scores == t(-np.inf), axis=-1, keepdims=True)  # torch: rows of 0
    return be.np.matmul(be.np.where(masked_out, t(0), weights), value)


@op(function=False, method=False, wrap=False,
    torch=("torch._nested_tensor_from_mask_left_aligned",))
def _nested_tensor_from_mask_left_aligned(be: Any, input: Any, mask: Any) -> bool:
    """Whether each row of ``mask`` keeps a prefix (True... then False...): nn.TransformerEncoder
    asks before its nested-tensor fast path, which interop tensors never take.  A lazy mask
    answers False unread: the general path that answer selects gives the same result, and
    reading the mask would compute it."""
    if mask.ndim != 2:
        raise RuntimeError(f"_nested_tensor_from_mask_left_aligned: expected a 2-D mask, got "
                           f"{mask.ndim}-D")
    return bool(be.peek((mask[:, :-1] | ~mask[:, 1:]).all()))  # lazy: None, unread
