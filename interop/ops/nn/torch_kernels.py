"""torch's CPU kernels as forms of interop's heavy kernels on NumPy blocks (``kernels``).

Each form takes ``torch`` and the arguments of the interop form it stands for (raw NumPy
arrays, arguments already normalised by the record), shares the arrays with torch
(``kernels.tensor``), calls torch's kernel and gives NumPy arrays back (``kernels.array``).
A form returns ``NotImplemented`` for what it does not cover; torch's own refusals (its
argument checks) send the call to interop's form as well.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import REDUCTIONS
from .kernels import array, tensor


def _functional(torch: Any) -> Any:
    return torch.nn.functional


def convolution(torch: Any, input: Any, weight: Any, bias: Any, stride: Any, padding: Any,
                dilation: Any, groups: int, n: int) -> Any:
    """``conv.convolution``: torch.nn.functional.conv{n}d."""
    conv = getattr(_functional(torch), f"conv{n}d")
    return array(conv(tensor(torch, input), tensor(torch, weight), tensor(torch, bias), stride,
                      padding, dilation, groups))


def conv_transpose(torch: Any, input: Any, weight: Any, bias: Any, stride: Any, padding: Any,
                   output_padding: Any, groups: int, dilation: Any, n: int) -> Any:
    """``conv.conv_transpose``: torch.nn.functional.conv_transpose{n}d."""
    conv = getattr(_functional(torch), f"conv_transpose{n}d")
    return array(conv(tensor(torch, input), tensor(torch, weight), tensor(torch, bias), stride,
                      padding, output_padding, groups, dilation))


def input_gradient(torch: Any, grad_output: Any, weight: Any, input_sizes: tuple, stride: tuple,
                   padding: tuple, dilation: tuple, transposed: bool, groups: int) -> Any:
    """``backward._input_gradient``: a convolution's input gradient by torch's
    ``convolution_backward`` (the input stands in by its shape only, as torch.nn.grad
    passes it); a transposed convolution's is a convolution."""
    n = weight.ndim - 2
    g, w = tensor(torch, grad_output), tensor(torch, weight)
    if transposed:
        out = getattr(_functional(torch), f"conv{n}d")(g, w, None, stride, padding, dilation,
                                                       groups)
        return array(out[(slice(None), slice(None)) + tuple(slice(0, s) for s in input_sizes)])
    shape = (grad_output.shape[0], weight.shape[1] * groups, *input_sizes)
    stand_in = g.new_empty(1).expand(shape)
    return array(torch.ops.aten.convolution_backward(
        g, stand_in, w, None, list(stride), list(padding), list(dilation), False, [0] * n,
        groups, [True, False, False])[0])


def weight_gradient(torch: Any, input: Any, grad_output: Any, kernel: tuple, stride: tuple,
                    padding: tuple, dilation: tuple, groups: int) -> Any:
    """``backward._weight_gradient``: torch's ``convolution_backward`` for the weights (the
    weights stand in by their shape only)."""
    n = len(kernel)
    x, g = tensor(torch, input), tensor(torch, grad_output)
    stand_in = g.new_empty(1).expand((grad_output.shape[1], input.shape[1] // groups, *kernel))
    return array(torch.ops.aten.convolution_backward(
        g, x, stand_in, None, list(stride), list(padding), list(dilation), False, [0] * n,
        groups, [False, True, False])[1])


def pool(torch: Any, input: Any, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
         ceil_mode: bool, n: int, kind: str, count_include_pad: bool = True,
         divisor_override: Any = None, return_indices: bool = False) -> Any:
    """``conv.pool``: torch.nn.functional's max and average pools."""
    stride = None if stride in (None, (), []) else stride
    x, f = tensor(torch, input), _functional(torch)
    if kind == "max":
        return array(getattr(f, f"max_pool{n}d")(x, kernel_size, stride, padding, dilation,
                                                 ceil_mode, return_indices))
    if n == 1:
        if divisor_override:
            return NotImplemented  # (avg_pool1d has no divisor)
        return array(f.avg_pool1d(x, kernel_size, stride, padding, ceil_mode,
                                  count_include_pad))
    return array(getattr(f, f"avg_pool{n}d")(x, kernel_size, stride, padding, ceil_mode,
                                             count_include_pad, divisor_override))


def adaptive_avg_pool(torch: Any, input: Any, output_size: Any, n: int) -> Any:
    """``functional.adaptive_avg_pool``: torch.nn.functional.adaptive_avg_pool{n}d."""
    pooled = getattr(_functional(torch), f"adaptive_avg_pool{n}d")
    return pooled(tensor(torch, input), output_size).numpy()


def adaptive_max(torch: Any, input: Any, output_size: Any, n: int) -> Any:
    """``adaptive_max.adaptive_max``: torch.nn.functional.adaptive_max_pool{n}d."""
    pooled = getattr(_functional(torch), f"adaptive_max_pool{n}d")
    return array(pooled(tensor(torch, input), output_size, True))


def aten(name: str) -> Any:
    """The form of a record whose arguments are ATen's overload ``name``'s: its arrays shared
    with torch, ``torch.ops.aten.<name>`` called, its results given back."""
    def form(torch: Any, *args: Any, **kwargs: Any) -> Any:
        shared = [tensor(torch, a) if isinstance(a, np.ndarray) else a for a in args]
        named = {k: tensor(torch, v) if isinstance(v, np.ndarray) else v
                 for k, v in kwargs.items()}
        return array(getattr(torch.ops.aten, name)(*shared, **named))
    form.__name__ = name
    return form


def normalise(torch: Any, input: Any, running_mean: Any, running_var: Any, weight: Any,
              bias: Any, training: bool, momentum: float, eps: float) -> Any:
    """``batch_norm._normalise``: torch's ``native_batch_norm`` (output, mean, 1/std); the
    running statistics written in place, so they must be NumPy's own writable arrays."""
    if training and any(v is not None and not (type(v) is np.ndarray and v.flags.writeable)
                        for v in (running_mean, running_var)):
        return NotImplemented
    out, mean, invstd = torch.ops.aten.native_batch_norm(
        tensor(torch, input), tensor(torch, weight), tensor(torch, bias),
        tensor(torch, running_mean), tensor(torch, running_var), training, momentum, eps)
    if not training:  # torch saves no statistics: the running ones were used
        return out.numpy(), running_mean, 1 / np.sqrt(running_var + input.dtype.type(eps))
    return out.numpy(), mean.numpy(), invstd.numpy()


def normalise_backward(torch: Any, grad_out: Any, input: Any, weight: Any = None,
                       running_mean: Any = None, running_var: Any = None, save_mean: Any = None,
                       save_invstd: Any = None, train: bool = True, eps: float = 1e-5,
                       output_mask: Any = (True, True, True)) -> Any:
    """``batch_norm.native_batch_norm_backward``: ATen's (the statistics it reads present:
    torch's kernel does not check them)."""
    needed = (save_mean, save_invstd) if train else (running_mean, running_var)
    if any(v is None for v in needed) or input.ndim < 2:
        return NotImplemented
    return array(torch.ops.aten.native_batch_norm_backward(
        *(tensor(torch, a) for a in (grad_out, input, weight, running_mean, running_var,
                                     save_mean, save_invstd)), train, eps, list(output_mask)))


def softmax(torch: Any, x: Any, dim: int) -> Any:
    """``activations.softmax_raw``: torch.softmax along ``dim``."""
    return torch.softmax(tensor(torch, x), dim).numpy()


def log_softmax(torch: Any, x: Any, dim: int) -> Any:
    """``activations.log_softmax_raw``: torch.log_softmax along ``dim``."""
    return torch.log_softmax(tensor(torch, x), dim).numpy()


def log_softmax_backward(torch: Any, grad_output: Any, output: Any, dim: int,
                         input_dtype: Any) -> Any:
    """``activations._log_softmax_backward_data`` (the gradient's dtype kept)."""
    g = tensor(torch, grad_output)
    return torch.ops.aten._log_softmax_backward_data(g, tensor(torch, output), dim,
                                                     g.dtype).numpy()


def softmax_backward(torch: Any, grad_output: Any, output: Any, dim: int,
                     input_dtype: Any) -> Any:
    """``aten._softmax_backward_data`` (the gradient's dtype kept)."""
    g = tensor(torch, grad_output)
    return torch.ops.aten._softmax_backward_data(g, tensor(torch, output), dim,
                                                 g.dtype).numpy()


def _reduction(reduction: Any) -> Any:
    if isinstance(reduction, str):
        return REDUCTIONS.index(reduction) if reduction in REDUCTIONS else None
    return reduction if reduction in (0, 1, 2) else None


def _targets(torch: Any, target: Any) -> Any:
    """Class indices as torch's losses take them (int64)."""
    if target.dtype.kind not in "iu":
        return None
    return tensor(torch, target if target.dtype == np.int64 else target.astype(np.int64))


def nll_loss_forward(torch: Any, input: Any, target: Any, weight: Any = None,
                     reduction: Any = "mean", ignore_index: int = -100) -> Any:
    """``loss.nll_loss_forward``: ATen's (the loss, the kept targets' summed weight)."""
    red, t = _reduction(reduction), _targets(torch, target)
    if red is None or t is None:
        return NotImplemented
    return array(torch.ops.aten.nll_loss_forward(tensor(torch, input), t, tensor(torch, weight),
                                                 red, ignore_index))


def nll_loss_backward(torch: Any, grad_output: Any, input: Any, target: Any, weight: Any = None,
                      reduction: Any = "mean", ignore_index: int = -100,
                      total_weight: Any = None) -> Any:
    """``loss.nll_loss_backward``: ATen's (``total_weight`` the forward's)."""
    red, t = _reduction(reduction), _targets(torch, target)
    if red is None or t is None or total_weight is None:
        return NotImplemented
    g = tensor(torch, np.asarray(grad_output, dtype=input.dtype))
    w = tensor(torch, np.asarray(total_weight, dtype=input.dtype))
    return torch.ops.aten.nll_loss_backward(g, tensor(torch, input), t, tensor(torch, weight),
                                            red, ignore_index, w).numpy()


def cross_entropy(torch: Any, input: Any, target: Any, weight: Any, ignore_index: int,
                  reduction: str, label_smoothing: float) -> Any:
    """``loss.cross_entropy``'s computation (the legacy flags resolved): torch's."""
    t = tensor(torch, target) if target.dtype.kind == "f" else _targets(torch, target)
    if t is None:
        return NotImplemented
    return _functional(torch).cross_entropy(tensor(torch, input), t, tensor(torch, weight),
                                            None, ignore_index, None, reduction,
                                            label_smoothing).numpy()


def linear(torch: Any, input: Any, weight: Any, bias: Any = None) -> Any:
    """``functional.linear``: torch.nn.functional.linear (one threaded product and the bias)."""
    return _functional(torch).linear(tensor(torch, input), tensor(torch, weight),
                                     tensor(torch, bias)).numpy()


def layer_norm(torch: Any, input: Any, normalized_shape: Any, weight: Any = None,
               bias: Any = None, eps: float = 1e-5, cudnn_enable: bool = True) -> Any:
    """``functional.layer_norm``: torch's."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    return _functional(torch).layer_norm(tensor(torch, input), shape, tensor(torch, weight),
                                         tensor(torch, bias), eps).numpy()


def group_norm(torch: Any, input: Any, num_groups: int, weight: Any = None, bias: Any = None,
               eps: float = 1e-5) -> Any:
    """``functional.group_norm``: torch's."""
    return _functional(torch).group_norm(tensor(torch, input), num_groups, tensor(torch, weight),
                                         tensor(torch, bias), eps).numpy()


def attention(torch: Any, query: Any, key: Any, value: Any, attn_mask: Any = None,
              dropout_p: float = 0.0, is_causal: bool = False, scale: Any = None,
              enable_gqa: bool = False) -> Any:
    """``functional.scaled_dot_product_attention`` (no dropout: interop refuses it)."""
    if dropout_p or (attn_mask is not None and attn_mask.dtype == bool):
        return NotImplemented  # (rows masked whole: interop's zeros, torch's kernels differ)
    out = _functional(torch).scaled_dot_product_attention(
        tensor(torch, query), tensor(torch, key), tensor(torch, value),
        tensor(torch, attn_mask), dropout_p=0.0, is_causal=is_causal, scale=scale,
        enable_gqa=enable_gqa)
    return out.numpy()
