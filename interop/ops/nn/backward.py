"""The ATen backward kernels torch has no decomposition of, which autograd calls on tensors of
other backends (``interop.TorchTensor``): convolution's, the pools', the shrinks' and
interpolation's gradients.

Written on the same primitives as the forward (``conv``: padded strided windows, einsum), so
NumPy, CuPy and Dask (lazily) run them.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from ...backends import registry
from ..blockwise import Blockwise, lowered
from ..registry import op, torch_names
from . import torch_kernels
from .aten import indices_backward
from .conv import (
    _batched,
    _ceil_pads,
    _tuple,
    _windows,
    avg_divisor,
    batch_slices,
    columns,
    conv_transpose,
    convolution,
    window_view,
)
from .functional import _adaptive_bounds
from .kernels import provided
from .resize import _contracted, _resampled


@provided(torch_kernels.weight_gradient)
def _weight_gradient(be: Any, input: Any, grad_output: Any, kernel: tuple, stride: tuple,
                     padding: tuple, dilation: tuple, groups: int) -> Any:
    """d(loss)/d(weight) of ``conv(input, weight)`` given the output's gradient: for each
    kernel offset, the input's window there contracted with the gradient over batch and
    positions; (O, C/groups, *kernel)."""
    n = len(kernel)
    batch, channels = input.shape[:2]
    out_ch, sizes = grad_output.shape[1], tuple(grad_output.shape[2:])
    pads = [(p, p) for p in padding]
    view = window_view(be, input, kernel, stride, pads, dilation) if groups == 1 else None
    if view is not None:
        view = view[(slice(None), slice(None)) + tuple(slice(0, s) for s in sizes)]
        return _unfolded_weight_gradient(be, view, grad_output).reshape(
            (out_ch, channels, *kernel))
    sp = "uvw"[:n]
    g = grad_output.reshape((batch, groups, out_ch // groups, *sizes))
    terms = []
    for _, win in _windows(be, input, kernel, stride, pads, dilation, input.dtype.type(0)):
        win = win[(slice(None), slice(None)) + tuple(slice(0, s) for s in sizes)]
        win = win.reshape((batch, groups, channels // groups, *sizes))
        terms.append(be.np.einsum(f"zgc{sp},zgo{sp}->goc", win, g))
    stacked = be.np.stack(terms, axis=-1)
    return stacked.reshape((out_ch, channels // groups, *kernel))


_PER_IMAGE_POSITIONS = 32
"""Output positions per image from which the weights' gradient is a product per image: with
fewer (a patch embedding's few large windows) each product is too short to keep BLAS busy,
and one product over the whole batch, after a transposed copy of the windows, is faster
(measured on NumPy: 3x3 and strided 4x4 kernels over 64 positions 2x faster per image; 8x8
patches over 16 positions 2x slower)."""


def _unfolded_weight_gradient(be: Any, view: Any, grad_output: Any) -> Any:
    """The weights' gradient from the input's windows (a view, (N, C, *out, *kernel)) and the
    output's gradient, (O, C*k): per image (O, positions) @ (positions, C*k), or one product
    over batch and positions where images have few positions; the batch a slice at a time,
    so the windows' copy and the per-image products stay within ``COLUMNS_BYTES``."""
    n = grad_output.ndim - 2
    batch, out_ch, positions = grad_output.shape[0], grad_output.shape[1], grad_output.shape[2:]
    flat = view.shape[1] * math.prod(view.shape[2 + n:])  # C * prod(kernel)
    per_image = view.dtype.itemsize * flat * (math.prod(positions) + out_ch)
    spatial = list(range(2, 2 + n))
    total = be.np.zeros((out_ch, flat), dtype=grad_output.dtype)
    for part in batch_slices(batch, per_image):
        g = grad_output[part]
        if math.prod(positions) >= _PER_IMAGE_POSITIONS:
            cols = columns(be, view[part], n)
            g = g.reshape((g.shape[0], out_ch, cols.shape[2]))
            total = total + be.np.sum(be.np.matmul(g, be.np.swapaxes(cols, 1, 2)), axis=0)
        else:
            total = total + be.np.tensordot(g, view[part], axes=(
                [0, *spatial], [0, *spatial])).reshape((out_ch, flat))
    return total


@provided(torch_kernels.input_gradient)
def _input_gradient(be: Any, grad_output: Any, weight: Any, input_sizes: tuple, stride: tuple,
                    padding: tuple, dilation: tuple, transposed: bool, groups: int) -> Any:
    """d(loss)/d(input) of a convolution given its output's gradient: the transposed
    convolution (a convolution for a transposed one); ``input_sizes``: the input's spatial
    sizes, which output padding past the stride leaves ambiguous."""
    n = weight.ndim - 2
    if transposed:
        out = convolution(be, grad_output, weight, None, stride, padding, dilation, groups, n)
        return out[(slice(None), slice(None)) + tuple(slice(0, s) for s in input_sizes)]
    if groups == 1 and max(stride) > 1 and be.mutable and not be.lazy:
        return _folded(be, grad_output, weight, input_sizes, stride, padding, dilation)
    extra = tuple(x - ((int(y) - 1) * s - 2 * p + d * (k - 1) + 1) for x, y, s, p, d, k
                  in zip(input_sizes, grad_output.shape[2:], stride, padding, dilation,
                         weight.shape[2:]))
    return conv_transpose(be, grad_output, weight, None, stride, padding, extra, groups,
                          dilation, n)


def _folded(be: Any, grad_output: Any, weight: Any, input_sizes: tuple, stride: tuple,
            padding: tuple, dilation: tuple) -> Any:
    """A strided convolution's input gradient as unfolding's adjoint (torch's col2im): each
    output position's gradient spread over its window's columns by one product per image,
    (C*k, O) @ (O, positions), the columns then added back at their kernel offsets.  The
    transposed convolution would first spread the gradient apart by the stride, zeros between:
    stride^n times the work (a 3x3 convolution of stride 2: 555 against 215 ms)."""
    batch, out_ch, *sizes = grad_output.shape
    channels, kernel = weight.shape[1], tuple(weight.shape[2:])
    padded = be.np.zeros((batch, channels, *(s + 2 * p for s, p in zip(input_sizes, padding))),
                         dtype=grad_output.dtype)
    every = (slice(None), slice(None))
    if all(sizes) and batch:  # (an empty step slice would count from the end)
        cols = be.np.matmul(weight.reshape((out_ch, channels * math.prod(kernel))).T,
                            grad_output.reshape((batch, out_ch, math.prod(sizes))))
        cols = cols.reshape((batch, channels, *kernel, *sizes))
        for offset in itertools.product(*(range(k) for k in kernel)):
            at = tuple(slice(o * d, o * d + s * (m - 1) + 1, s)
                       for o, d, s, m in zip(offset, dilation, stride, sizes))
            padded[every + at] += cols[every + offset]
    return padded[every + tuple(slice(p, p + s) for p, s in zip(padding, input_sizes))]


_input_gradient_by_batch = lowered(_input_gradient, Blockwise(min_ndim=3))
"""Each image's input gradient on its own: on chunked backends one task per chunk."""
_weight_gradient_by_batch = lowered(
    _weight_gradient, Blockwise(min_ndim=3, aligned=("grad_output",), summed=True))
"""A partial weight gradient per chunk of the batch (input and output gradient at the same
place), the partials added: the minibatch's backward runs where its chunk is."""


@op(function=False, method=False, torch=torch_names("convolution_backward", "aten"))
def convolution_backward(be: Any, grad_output: Any, input: Any, weight: Any, bias_sizes: Any,
                         stride: Any, padding: Any, dilation: Any, transposed: bool,
                         output_padding: Any, groups: int, output_mask: Any) -> Any:
    """(grad_input, grad_weight, grad_bias) of ``aten.convolution`` (each None where
    ``output_mask`` says it is not needed): the input's by ``_input_gradient``, the weight's
    by ``_weight_gradient``, the bias's a sum over all but the channels; on chunked backends
    each a layer of tasks along the batch's chunks."""
    n = weight.ndim - 2
    stride_, padding_, dilation_ = _tuple(stride, n), _tuple(padding, n), _tuple(dilation, n)
    kernel = tuple(weight.shape[2:])
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        grad_input = _input_gradient_by_batch(
            be, grad_output, weight, tuple(int(x) for x in input.shape[2:]), stride_, padding_,
            dilation_, transposed, groups)
    if output_mask[1]:
        first, second = (grad_output, input) if transposed else (input, grad_output)
        grad_weight = _weight_gradient_by_batch(be, first, second, kernel, stride_, padding_,
                                                dilation_, groups)
    if output_mask[2]:
        grad_bias = be.np.sum(grad_output, axis=(0, *range(2, grad_output.ndim)))
    return grad_input, grad_weight, grad_bias


def _avg_pool_backward(n: int) -> None:
    def impl(be: Any, grad_output: Any, input: Any, kernel_size: Any, stride: Any, padding: Any,
             ceil_mode: bool, count_include_pad: bool, divisor_override: Any) -> Any:
        x, unbatched = _batched(input, n)
        g = grad_output[None] if unbatched else grad_output
        kernel = _tuple(kernel_size, n)
        stride_ = _tuple(stride, n) if stride not in (None, (), []) else kernel
        sizes = tuple(int(s) for s in x.shape[2:])
        pads = _ceil_pads(sizes, kernel, stride_, _tuple(padding, n), (1,) * n, ceil_mode)
        g = g / avg_divisor(be, x, kernel, stride_, pads, count_include_pad, divisor_override)
        channels = x.shape[1]
        ones = be.np.ones((channels, 1, *kernel), dtype=g.dtype)
        # each window's share spread back over it: over the padded input's coordinates
        spread = conv_transpose(be, g.astype(x.dtype), ones, None, stride_, 0, 0, channels, 1, n)
        short = [max(0, lo + size - spread.shape[2 + i]) for i, ((lo, _), size)
                 in enumerate(zip(pads, sizes))]
        if any(short):  # input past the last window: no gradient there
            spread = be.np.pad(spread, [(0, 0), (0, 0), *((0, s) for s in short)])
        out = spread[(slice(None), slice(None))
                     + tuple(slice(lo, lo + size) for (lo, _), size in zip(pads, sizes))]
        return out[0] if unbatched else out
    name = f"avg_pool{n}d_backward"
    impl.__name__ = name
    impl = provided(torch_kernels.aten(name))(impl)
    impl.__doc__ = (f"avg_pool{n}d's gradient: each output's gradient, divided as the forward "
                    "divided, spread over its window (a transposed depthwise convolution).")
    op(name, function=False, method=False, torch=torch_names(name, "aten"))(impl)


def _adaptive_avg_pool_backward(n: int) -> None:
    def impl(be: Any, grad_output: Any, input: Any) -> Any:
        g = grad_output
        for k in range(n):  # the forward is separable: one averaging matrix per dim
            axis = g.ndim - n + k
            size, out = int(input.shape[axis]), int(g.shape[axis])
            share = np.zeros((out, size), dtype=g.dtype)
            for i, (lo, hi) in enumerate(_adaptive_bounds(size, out)):
                share[i, lo:hi] = 1 / (hi - lo)
            share = be.asarray(share, device=be.device_of(g))
            g = be.np.moveaxis(be.np.matmul(be.np.moveaxis(g, axis, -1), share), -1, axis)
        return g.astype(input.dtype)
    name = f"_adaptive_avg_pool{n}d_backward"
    impl.__name__ = name
    impl = provided(torch_kernels.aten(name))(impl)
    impl.__doc__ = (f"adaptive_avg_pool{n}d's gradient: each output's gradient shared equally "
                    "over its window, one dim at a time.")
    op(name, function=False, method=False, torch=torch_names(name, "aten"))(impl)


def _picked_backward(name: str, n: int) -> None:
    def impl(be: Any, grad_output: Any, input: Any, *args: Any) -> Any:
        return indices_backward(be, grad_output, args[-1], input, n)
    impl.__name__ = name
    impl.__doc__ = "The gradient of a max pool: each output's at the index it picked."
    impl = provided(torch_kernels.aten(name))(impl)
    op(name, function=False, method=False, torch=torch_names(name, "aten"))(impl)


for _n in (2, 3):
    _avg_pool_backward(_n)
    _adaptive_avg_pool_backward(_n)
    _picked_backward(f"adaptive_max_pool{_n}d_backward", _n)
_picked_backward("max_pool3d_with_indices_backward", 3)


def _shrunk(be: Any, grad: Any, input: Any, lambd: Any) -> Any:
    return be.np.where(be.np.abs(input) > lambd, grad, be.np.zeros_like(grad))


@op(function=False, method=False, torch=torch_names("hardshrink_backward", "aten"))
def hardshrink_backward(be: Any, grad_out: Any, input: Any, lambd: Any = 0.5) -> Any:
    """hardshrink's gradient: passed where |input| > lambd, else 0."""
    return _shrunk(be, grad_out, input, lambd)


@op(function=False, method=False, torch=torch_names("softshrink_backward", "aten"))
def softshrink_backward(be: Any, grad_output: Any, input: Any, lambd: Any = 0.5) -> Any:
    """softshrink's gradient: passed where |input| > lambd, else 0."""
    return _shrunk(be, grad_output, input, lambd)


def _axis_matrix(length: int, out: int, factor: Any, mode: str, align_corners: bool,
                 antialias: bool) -> np.ndarray:
    """(length, out): how interpolate's forward along one dim mixes its ``length`` inputs into
    ``out`` outputs, transposed (the forward run on the identity, on the host)."""
    eye = np.eye(length).reshape(length, 1, length)
    scale = None if factor is None else 1 / factor
    return _resampled(registry.get_backend("numpy"), eye, [out], [scale], mode, align_corners,
                      antialias)[:, 0, :]


def _upsample_backward(name: str, mode: str, n: int, aligned: bool, antialias: bool) -> None:
    def impl(be: Any, grad_output: Any, output_size: Any, input_size: Any, *args: Any) -> Any:
        align_corners = bool(args[0]) if aligned else False
        factors = [*(args[1:] if aligned else args), *(None,) * n][:n]
        g = grad_output
        for i in range(n):  # the forward is separable: its transpose, one dim at a time
            share = _axis_matrix(int(input_size[2 + i]), int(output_size[i]), factors[i], mode,
                                 align_corners, antialias)
            g = _contracted(be, g, 2 + i, share)
        return g.astype(grad_output.dtype)
    impl.__name__ = name
    impl.__doc__ = (f"{name.removesuffix('_backward')}'s gradient: each output's gradient "
                    "shared back over the inputs it mixed, with the forward's weights.")
    op(name, function=False, method=False, torch=torch_names(name, "aten"))(impl)


for _n, _dims in ((1, "1d"), (2, "2d"), (3, "3d")):
    _upsample_backward(f"upsample_nearest{_dims}_backward", "nearest", _n, False, False)
    _upsample_backward(f"_upsample_nearest_exact{_dims}_backward", "nearest-exact", _n, False,
                       False)
for _name, _mode, _n, _aa in (("upsample_linear1d_backward", "linear", 1, False),
                              ("upsample_bilinear2d_backward", "bilinear", 2, False),
                              ("upsample_trilinear3d_backward", "trilinear", 3, False),
                              ("upsample_bicubic2d_backward", "bicubic", 2, False),
                              ("_upsample_bilinear2d_aa_backward", "bilinear", 2, True),
                              ("_upsample_bicubic2d_aa_backward", "bicubic", 2, True)):
    _upsample_backward(_name, _mode, _n, True, _aa)
