"""The ATen backward kernels torch has no decomposition of, which autograd calls on tensors of
other backends (``interop.TorchTensor``): convolution's gradients.

Written on the same primitives as the forward (``conv``: padded strided windows, einsum), so
NumPy, CuPy and Dask (lazily) run them.
"""

from __future__ import annotations

from typing import Any

from .conv import _tuple, _windows, conv_transpose, convolution
from ..registry import op, torch_names


def _weight_gradient(be: Any, input: Any, grad_output: Any, kernel: tuple, stride: tuple,
                     padding: tuple, dilation: tuple, groups: int) -> Any:
    """d(loss)/d(weight) of ``conv(input, weight)`` given the output's gradient: for each
    kernel offset, the input's window there contracted with the gradient over batch and
    positions; (O, C/groups, *kernel)."""
    n = len(kernel)
    batch, channels = input.shape[:2]
    out_ch, sizes = grad_output.shape[1], tuple(grad_output.shape[2:])
    sp = "uvw"[:n]
    g = grad_output.reshape((batch, groups, out_ch // groups, *sizes))
    terms = []
    for _, win in _windows(be, input, kernel, stride, [(p, p) for p in padding], dilation,
                           input.dtype.type(0)):
        win = win[(slice(None), slice(None), *(slice(0, s) for s in sizes))]
        win = win.reshape((batch, groups, channels // groups, *sizes))
        terms.append(be.np.einsum(f"zgc{sp},zgo{sp}->goc", win, g))
    stacked = be.np.stack(terms, axis=-1)
    return stacked.reshape((out_ch, channels // groups, *kernel))


@op(function=False, method=False, torch=torch_names("convolution_backward", "aten"))
def convolution_backward(be: Any, grad_output: Any, input: Any, weight: Any, bias_sizes: Any,
                         stride: Any, padding: Any, dilation: Any, transposed: bool,
                         output_padding: Any, groups: int, output_mask: Any) -> Any:
    """(grad_input, grad_weight, grad_bias) of ``aten.convolution`` (each None where
    ``output_mask`` says it is not needed): the input's through the transposed convolution
    (a convolution for a transposed one), the weight's by ``_weight_gradient``, the bias's a
    sum over all but the channels."""
    n = weight.ndim - 2
    stride_, padding_, dilation_ = _tuple(stride, n), _tuple(padding, n), _tuple(dilation, n)
    kernel = tuple(weight.shape[2:])
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        if transposed:
            grad_input = convolution(be, grad_output, weight, None, stride_, padding_, dilation_,
                                     groups, n)  # output padding past the stride: cropped
            grad_input = grad_input[(slice(None), slice(None),
                                     *(slice(0, int(x)) for x in input.shape[2:]))]
        else:
            extra = tuple(int(x) - ((int(y) - 1) * s - 2 * p + d * (k - 1) + 1) for x, y, s, p, d, k
                          in zip(input.shape[2:], grad_output.shape[2:], stride_, padding_,
                                 dilation_, kernel))
            grad_input = conv_transpose(be, grad_output, weight, None, stride_, padding_, extra,
                                        groups, dilation_, n)
    if output_mask[1]:
        grad_weight = _weight_gradient(be, grad_output, input, kernel, stride_, padding_,
                                       dilation_, groups) if transposed else \
            _weight_gradient(be, input, grad_output, kernel, stride_, padding_, dilation_,
                             groups)
    if output_mask[2]:
        grad_bias = be.np.sum(grad_output, axis=(0, *range(2, grad_output.ndim)))
    return grad_input, grad_weight, grad_bias
