"""Batch normalisation: F.batch_norm and torch's aten forms of it (native_batch_norm,
_native_batch_norm_legit, _batch_norm_with_update), which also return the batch's mean and
1/std (and an empty reserve). One computation serves all: in training the batch's own
statistics, with the running buffers updated in place (on Dask, lazily, through the view
write machinery); otherwise the running statistics.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..blockwise import Blockwise
from ..registry import op, torch_names
from . import torch_kernels
from .common import NN, running_update
from .functional import _affine, _channel
from .kernels import provided


def _check(name: str, input: Any, running_mean: Any, running_var: Any, weight: Any,
           bias: Any, training: bool) -> None:
    """torch's checks: (N, C, ...) input, per-channel vectors of C elements, running
    statistics in evaluation mode."""
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(f"{name}: running_mean must be defined in evaluation mode; pass "
                           "training=True to normalise with the batch's statistics")
    if input.ndim < 2:
        raise RuntimeError(f"{name}: expected an input of shape (N, C, ...) with at least 2 "
                           f"dimensions, got shape {list(input.shape)}; add the batch dim "
                           "with unsqueeze(0)")
    c = input.shape[1]
    for what, v in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if v is not None and v.size != c:
            raise RuntimeError(f"{name}: {what} should contain {c} elements not {v.size}")


@provided(torch_kernels.normalise)
def _normalise(be: Any, input: Any, running_mean: Any, running_var: Any, weight: Any,
               bias: Any, training: bool, momentum: float, eps: float) -> tuple[Any, Any, Any]:
    """(output, mean, 1/sqrt(var + eps)) of the statistics used; in training the biased
    batch variance normalises and the unbiased one enters ``running_var``."""
    ndim = input.ndim
    if training:
        axes = (0, *range(2, ndim))
        mean = be.np.mean(input, axis=axes)
        var = be.np.mean(be.np.square(input - _channel(mean, ndim)), axis=axes)
        if running_mean is not None:
            count = input.size // input.shape[1]
            running_update(running_mean, mean, momentum)
            # one value per channel: 0 / 0, nan as in torch
            running_update(running_var, var * (count / (count - 1) if count > 1 else math.inf),
                           momentum)
    else:
        mean, var = running_mean, running_var
    invstd = 1 / be.np.sqrt(var + input.dtype.type(eps))
    out = (input - _channel(mean, ndim)) * _channel(invstd, ndim)
    return _affine(out, _channel(weight, ndim), _channel(bias, ndim)), mean, invstd


@op(method=False, torch=torch_names("batch_norm", NN, function=True),
    blockwise=Blockwise(min_ndim=2, unless=("training",)))  # inference: each sample
def batch_norm(be: Any, input: Any, running_mean: Any, running_var: Any, weight: Any = None,
               bias: Any = None, training: bool = False, momentum: float = 0.1,
               eps: float = 1e-5, cudnn_enabled: bool = True) -> Any:
    """Inference: normalise with the running statistics; training: with the batch's own
    (the running buffers are then updated in place, as torch does)."""
    if input.size == 0:  # torch: a copy, the running statistics untouched
        return input.copy()
    _check("batch_norm", input, running_mean, running_var, weight, bias, training)
    if training and input.size // input.shape[1] == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {list(input.shape)}")
    return _normalise(be, input, running_mean, running_var, weight, bias, training, momentum,
                      eps)[0]


def _aten(name: str, input: Any, running_mean: Any, running_var: Any, weight: Any, bias: Any,
          training: bool, momentum: float, eps: float, be: Any) -> tuple[Any, Any, Any]:
    """(output, save_mean, save_invstd): the statistics empty outside training, as torch's."""
    if input.size == 0:
        raise RuntimeError(f"{name}: input tensor must have at least one element, but got "
                           f"input_sizes = {list(input.shape)}")
    _check(name, input, running_mean, running_var, weight, bias, training)
    out, mean, invstd = _normalise(be, input, running_mean, running_var, weight, bias,
                                   training, momentum, eps)
    if not training:
        mean = invstd = be.np.zeros((0,), dtype=input.dtype)
    return out, mean, invstd


@op(method=False, torch=("torch.native_batch_norm",))
def native_batch_norm(be: Any, input: Any, weight: Any, bias: Any, running_mean: Any,
                      running_var: Any, training: bool, momentum: float, eps: float) -> Any:
    """(batch_norm(input), save_mean, save_invstd), torch's aten form."""
    return _aten("native_batch_norm", input, running_mean, running_var, weight, bias,
                 training, momentum, eps, be)


@op(method=False, torch=("torch._native_batch_norm_legit",))
def _native_batch_norm_legit(be: Any, input: Any, weight: Any, bias: Any, *args: Any) -> Any:
    """native_batch_norm; its ``no_stats`` overload (input, weight, bias, training, momentum,
    eps) normalises with the batch's statistics and keeps no running ones."""
    if len(args) == 3:
        args = (None, None, *args)
    running_mean, running_var, training, momentum, eps = args
    return _aten("_native_batch_norm_legit", input, running_mean, running_var, weight, bias,
                 training, momentum, eps, be)


@op(method=False, torch=("aten._batch_norm_with_update",))
def _batch_norm_with_update(be: Any, input: Any, weight: Any, bias: Any, running_mean: Any,
                            running_var: Any, momentum: float, eps: float) -> Any:
    """Training-mode native_batch_norm, updating the running statistics, with torch's empty
    uint8 ``reserve`` (cuDNN's workspace) as a fourth result."""
    out = _aten("_batch_norm_with_update", input, running_mean, running_var, weight, bias,
                True, momentum, eps, be)
    return (*out, be.np.zeros((0,), dtype=np.uint8))


@op(function=False, method=False, torch=torch_names("native_batch_norm_backward", "aten"))
@provided(torch_kernels.normalise_backward)
def native_batch_norm_backward(be: Any, grad_out: Any, input: Any, weight: Any = None,
                               running_mean: Any = None, running_var: Any = None,
                               save_mean: Any = None, save_invstd: Any = None,
                               train: bool = True, eps: float = 1e-5,
                               output_mask: Any = (True, True, True)) -> tuple[Any, Any, Any]:
    """(grad_input, grad_weight, grad_bias) of batch norm (each None where ``output_mask``
    says it is not needed): in training through the batch's statistics (the saved mean and
    1/std), otherwise through the running ones; two sums per channel, the rest elementwise."""
    ndim = input.ndim
    axes = (0, *range(2, ndim))
    statistics = (save_mean, save_invstd) if train else (running_mean, running_var)
    if any(v is None for v in statistics):
        raise RuntimeError(
            "native_batch_norm_backward: " + ("training needs save_mean and save_invstd (the "
                                              "forward's saved batch statistics)" if train else
                                              "evaluation needs running_mean and running_var")
            + "; pass them, or train=" + str(not train) + " for the other statistics")
    if train:
        mean, invstd = save_mean, save_invstd
    else:
        mean, invstd = running_mean, 1 / be.np.sqrt(running_var + input.dtype.type(eps))
    centred = input - _channel(mean, ndim)
    grad_sum = be.np.sum(grad_out, axis=axes)
    dot = be.np.sum(grad_out * centred, axis=axes)
    scale = invstd if weight is None else invstd * weight
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        if train:
            count = input.dtype.type(input.size // input.shape[1]) if input.size == input.size \
                else be.np.sum(be.np.ones_like(input), axis=axes)  # NaN: rows not known yet
            projected = centred * _channel(dot / count * invstd * invstd, ndim)
            grad_input = (grad_out - projected - _channel(grad_sum / count, ndim)) \
                * _channel(scale, ndim)
        else:
            grad_input = grad_out * _channel(scale, ndim)
    if output_mask[1]:
        grad_weight = dot * invstd
    if output_mask[2]:
        grad_bias = grad_sum
    return grad_input, grad_weight, grad_bias
