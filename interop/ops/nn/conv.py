"""Convolution and pooling (torch.nn.functional.conv1d/2d/3d, max/avg pools) from the
backend's own primitives: pad, strided slices and matrix products.

Where the backend has strided views (NumPy's, and so each chunk of a Dask array), a
convolution copies its windows once as columns and multiplies them by the weights, one
matrix product per image.  Elsewhere (and for grouped convolutions and the pools), one
kernel offset at a time: the input, padded, is sliced at that offset with the stride, and
contracted with the kernel's weights at that offset (conv), or folded by maximum / sum
(pools).  Only slicing, ``pad``, ``matmul`` and elementwise calls are used, so NumPy, CuPy
and Dask (lazily) all run it.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from ..blockwise import Blockwise
from ..registry import op, torch_names
from . import torch_kernels
from .common import NN
from .kernels import provided


def _tuple(v: Any, n: int) -> tuple[int, ...]:
    if isinstance(v, (tuple, list)):  # one entry stands for every dim, as torch reads it
        return tuple(int(x) for x in v) * (n if len(v) == 1 else 1)
    return (int(v),) * n


def _padding(padding: Any, n: int, kernel: tuple, dilation: tuple) -> list[tuple[int, int]]:
    if padding == "valid":
        return [(0, 0)] * n
    if padding == "same":
        total = [d * (k - 1) for k, d in zip(kernel, dilation)]
        return [(t // 2, t - t // 2) for t in total]
    return [(p, p) for p in _tuple(padding, n)]


def _output_sizes(padded: tuple, kernel: tuple, stride: tuple, dilation: tuple) -> list[int]:
    """How many windows fit along each spatial dim of the padded input (refused when none)."""
    out = [(size - d * (k - 1) - 1) // s + 1
           for size, k, s, d in zip(padded, kernel, stride, dilation)]
    if any(o <= 0 for o in out):
        raise RuntimeError(f"convolution/pooling: kernel size {list(kernel)} (dilated) is larger "
                           f"than the padded input {list(padded)}; pad the input or use a "
                           "smaller kernel")
    return out


def _padded(be: Any, x: Any, pads: list, fill: Any) -> Any:
    if any(lo or hi for lo, hi in pads):
        return be.np.pad(x, [(0, 0), (0, 0), *pads], mode="constant", constant_values=fill)
    return x


def _windows(be: Any, x: Any, kernel: tuple, stride: tuple, pads: list, dilation: tuple,
             fill: Any):
    """(offset, slice of padded x) for every kernel offset; x is (N, C, *spatial)."""
    # chunks along the batch only: each window one slice of each chunk, not a patchwork of
    # the padding's chunks
    x = be.whole_along(_padded(be, x, pads, fill), *range(1, x.ndim))
    out = _output_sizes(tuple(x.shape[2:]), kernel, stride, dilation)
    for offset in itertools.product(*(range(k) for k in kernel)):
        index = tuple(slice(o * d, o * d + s * (m - 1) + 1, s)
                      for o, d, s, m in zip(offset, dilation, stride, out))
        yield offset, x[(slice(None), slice(None)) + index]


def window_view(be: Any, x: Any, kernel: tuple, stride: tuple, pads: list,
                dilation: tuple) -> Any:
    """Every window of the zero-padded x at once, (N, C, *out, *kernel), a strided view
    (``Backend.windows``), or None where the backend has no strided views.  Contracted with
    the weights in one ``tensordot`` (one matrix product over the unfolded windows), it
    replaces a small product per kernel offset."""
    n = len(kernel)
    x = _padded(be, x, pads, x.dtype.type(0))
    _output_sizes(tuple(x.shape[2:]), kernel, stride, dilation)
    spans = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    view = be.windows(x, spans, tuple(range(2, 2 + n)))
    if view is None:
        return None
    return view[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride)
                + tuple(slice(None, None, d) for d in dilation)]


COLUMNS_BYTES = 2 ** 25
"""The most memory a convolution's unfolded windows (and per-image products) take at once:
unfolded, the windows are up to prod(kernel) times the input, so a large batch is unfolded
a slice at a time (torch's CPU kernel unfolds one image at a time)."""


def batch_slices(batch: int, per_image_bytes: int) -> list[slice]:
    """Slices of the batch whose unfolded windows stay within ``COLUMNS_BYTES`` (one image at
    least, and one empty slice for an empty batch)."""
    step = max(1, COLUMNS_BYTES // max(per_image_bytes, 1))
    return [slice(i, i + step) for i in range(0, batch, step)] or [slice(0, 0)]


def columns(be: Any, view: Any, n: int) -> Any:
    """A window view (N, C, *out, *kernel) copied once as columns, (N, C * prod(kernel),
    prod(out)), in torch's ``unfold`` order (channel, then kernel offset).  A convolution is
    then one matrix product per image, (O, C*k) @ (C*k, positions), whose output is already
    (N, O, positions): one copy of the windows, against one strided copy per kernel offset
    and a small product per image and offset."""
    batch, channels = view.shape[:2]
    order = (0, 1, *range(2 + n, 2 + 2 * n), *range(2, 2 + n))
    return be.np.transpose(view, order).reshape(
        (batch, channels * math.prod(view.shape[2 + n:]), math.prod(view.shape[2:2 + n])))


def _batched(x: Any, n: int) -> tuple[Any, bool]:
    """(N, C, *spatial) from an unbatched (C, *spatial) input too."""
    return (x[None], True) if x.ndim == n + 1 else (x, False)


@provided(torch_kernels.convolution)
def convolution(be: Any, input: Any, weight: Any, bias: Any, stride: Any, padding: Any,
                dilation: Any, groups: int, n: int) -> Any:
    """N-d cross-correlation as torch computes it (weight (O, C/groups, *kernel))."""
    if input.dtype != weight.dtype:
        raise RuntimeError(f"conv{n}d: Input type ({input.dtype}) and weight type "
                           f"({weight.dtype}) should be the same; convert with .to(dtype)")
    x, unbatched = _batched(input, n)
    if x.ndim != n + 2:
        raise RuntimeError(f"conv{n}d: Expected {n + 1}D (unbatched) or {n + 2}D (batched) input "
                           f"to conv{n}d, but got input of size: {list(input.shape)}")
    kernel = tuple(weight.shape[2:])
    stride_, dilation_ = _tuple(stride, n), _tuple(dilation, n)
    pads = _padding(padding, n, kernel, dilation_)
    batch, channels = x.shape[:2]
    out_ch = weight.shape[0]
    if channels != weight.shape[1] * groups:
        raise RuntimeError(f"conv{n}d: Given groups={groups}, weight of size "
                           f"{list(weight.shape)}, expected input{list(input.shape)} to have "
                           f"{weight.shape[1] * groups} channels, but got {channels} channels")
    view = window_view(be, x, kernel, stride_, pads, dilation_) if groups == 1 else None
    if view is not None:
        positions = view.shape[2:2 + n]
        w = weight.reshape((out_ch, channels * math.prod(kernel)))
        per_image = w.shape[1] * math.prod(positions) * x.dtype.itemsize
        parts = [be.np.matmul(w, columns(be, view[part], n))
                 for part in batch_slices(batch, per_image)]
        out = parts[0] if len(parts) == 1 else be.np.concatenate(parts, axis=0)
        out = out.reshape((batch, out_ch, *positions))
    else:
        out = _by_offset(be, x, weight, kernel, stride_, pads, dilation_, groups)
    if bias is not None:
        out = out + bias.reshape((-1,) + (1,) * n)
    return out[0] if unbatched else out


def _by_offset(be: Any, x: Any, weight: Any, kernel: tuple, stride: tuple, pads: list,
               dilation: tuple, groups: int) -> Any:
    """The convolution one kernel offset at a time (grouped, or without strided views)."""
    batch, channels = x.shape[:2]
    out_ch = weight.shape[0]
    w = weight.reshape((groups, out_ch // groups, *weight.shape[1:]))
    total = sizes = None
    for offset, win in _windows(be, x, kernel, stride, pads, dilation, x.dtype.type(0)):
        sizes = tuple(win.shape[2:])
        win = win.reshape((batch, groups, channels // groups, math.prod(sizes)))
        # (groups, out, in) @ (batch, groups, in, positions): a matmul, which Dask keeps in
        # the batch's chunks (its einsum would split them to bound the output's chunks)
        term = be.np.matmul(w[(Ellipsis,) + tuple(offset)], win)
        total = term if total is None else total + term
    return total.reshape((batch, out_ch, *sizes))


def _conv(n: int) -> None:
    def impl(be: Any, input: Any, weight: Any, bias: Any = None, stride: Any = 1,
             padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Any:
        return convolution(be, input, weight, bias, stride, padding, dilation, groups, n)
    impl.__name__ = f"conv{n}d"
    impl.__doc__ = f"{n}-d convolution (cross-correlation), as torch.nn.functional.conv{n}d."
    op(f"conv{n}d", method=False, torch=torch_names(f"conv{n}d", NN, function=True),
       blockwise=Blockwise(min_ndim=n + 2))(impl)  # each image on its own


for _n in (1, 2, 3):
    _conv(_n)


def _ceil_pads(sizes: tuple, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple,
               ceil_mode: bool) -> list[tuple[int, int]]:
    """(left, right) padding per spatial dim; ``ceil_mode`` pads the right further so a last,
    partial window fits (torch's rule: it must start inside the input or left padding)."""
    pads = []
    for size, k, s, p, d in zip(sizes, kernel, stride, padding, dilation):
        span = size + 2 * p - d * (k - 1) - 1
        out = (span + (s - 1 if ceil_mode else 0)) // s + 1
        if ceil_mode and (out - 1) * s >= size + p:
            out -= 1
        pads.append((p, p + max(0, (out - 1) * s + d * (k - 1) + 1 - (size + 2 * p))))
    return pads


def _window_counts(be: Any, x: Any, kernel: tuple, stride: tuple, pads: list,
                   include_pad: bool, dtype: Any) -> Any:
    """How many elements each window averages: those in the input, plus the padding when
    ``include_pad`` (never the ceil_mode overhang), as torch's avg pools divide."""
    n = len(kernel)
    mask = be.np.ones((1, 1, *x.shape[2:]), dtype=dtype)
    sym = [(lo, lo) for lo, _ in pads]
    mask = be.np.pad(mask, [(0, 0), (0, 0), *sym], constant_values=dtype.type(include_pad))
    mask = be.np.pad(mask, [(0, 0), (0, 0), *[(0, hi - lo) for lo, hi in pads]])
    count = None
    for _, win in _windows(be, mask, kernel, stride, [(0, 0)] * n, (1,) * n, dtype.type(0)):
        count = win if count is None else count + win
    return count


def avg_divisor(be: Any, x: Any, kernel: tuple, stride: tuple, pads: list,
                count_include_pad: bool, divisor_override: Any) -> Any:
    """What each window's sum is divided by: ``divisor_override``, the kernel's size, or (with
    padding left out, or ceil_mode's overhang) each window's own count, shaped (1, 1, *out)."""
    overhang = any(hi != lo for lo, hi in pads)
    if divisor_override:
        return x.dtype.type(divisor_override)
    if not overhang and (count_include_pad or not any(lo for lo, _ in pads)):
        return x.dtype.type(math.prod(kernel))
    return _window_counts(be, x, kernel, stride, pads, count_include_pad, x.dtype)


def _argmax_windows(be: Any, x: Any, kernel: tuple, stride: tuple, pads: list,
                    dilation: tuple, fill: Any) -> tuple[Any, Any]:
    """(max, flat spatial index of the max) of each window: the first maximum, or a NaN."""
    n, sizes = len(kernel), tuple(x.shape[2:])
    strides = [1] * n
    for i in range(n - 2, -1, -1):
        strides[i] = strides[i + 1] * sizes[i + 1]
    best = index = None
    for offset, win in _windows(be, x, kernel, stride, pads, dilation, fill):
        where = 0
        for i in range(n):
            pos = be.np.arange(win.shape[2 + i], dtype=np.int64) * stride[i] \
                + offset[i] * dilation[i] - pads[i][0]
            where = where + be.np.reshape(pos * strides[i], (-1,) + (1,) * (n - 1 - i))
        if best is None:
            best, index = win, be.np.broadcast_to(where, win.shape)
            continue
        take = (win > best) | (be.np.isnan(win) if win.dtype.kind == "f" else False)
        best, index = be.np.where(take, win, best), be.np.where(take, where, index)
    return best, index.astype(np.int64)


@provided(torch_kernels.pool)
def pool(be: Any, input: Any, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
         ceil_mode: bool, n: int, kind: str, count_include_pad: bool = True,
         divisor_override: Any = None, return_indices: bool = False) -> Any:
    """Max or average over each window, as torch's pools (ceil_mode, max's indices too)."""
    x, unbatched = _batched(input, n)
    kernel = _tuple(kernel_size, n)
    stride_ = _tuple(stride, n) if stride not in (None, (), []) else kernel
    dilation_ = _tuple(dilation, n) if kind == "max" else (1,) * n
    pads = _ceil_pads(tuple(x.shape[2:]), kernel, stride_, _tuple(padding, n), dilation_,
                      ceil_mode)
    indices = None
    if kind == "max":
        fill = -be.np.inf if x.dtype.kind == "f" else be.np.iinfo(x.dtype).min
        if return_indices:
            out, indices = _argmax_windows(be, x, kernel, stride_, pads, dilation_, fill)
        else:
            out = None
            for _, win in _windows(be, x, kernel, stride_, pads, dilation_, fill):
                out = win if out is None else be.np.maximum(out, win)
    else:
        out = None
        for _, win in _windows(be, x, kernel, stride_, pads, (1,) * n, x.dtype.type(0)):
            out = win if out is None else out + win
        out = (out / avg_divisor(be, x, kernel, stride_, pads, count_include_pad,
                                 divisor_override)).astype(x.dtype)
    if unbatched:
        out, indices = out[0], None if indices is None else indices[0]
    return out if indices is None else (out, indices)


def _pools(n: int) -> None:
    def max_impl(be: Any, input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
        return pool(be, input, kernel_size, stride, padding, dilation, ceil_mode, n, "max",
                    return_indices=return_indices)

    def max_indices_impl(be: Any, input: Any, kernel_size: Any, stride: Any = None,
                         padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
                         return_indices: bool = True) -> Any:
        return pool(be, input, kernel_size, stride, padding, dilation, ceil_mode, n, "max",
                    return_indices=True)

    def avg_impl(be: Any, input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: Any = None) -> Any:
        return pool(be, input, kernel_size, stride, padding, 1, ceil_mode, n, "avg",
                    count_include_pad, divisor_override)

    for kind, impl in (("max", max_impl), ("avg", avg_impl)):
        name = f"{kind}_pool{n}d"
        impl.__name__, impl.__doc__ = name, f"{kind} pooling over {n}-d windows."
        op(name, method=False, torch=torch_names(name, NN, function=kind == "max" or n == 1),
           blockwise=Blockwise(axes=(0, 1), min_ndim=n + 2))(impl)  # each image and channel
    name = f"max_pool{n}d_with_indices"
    max_indices_impl.__name__ = name
    max_indices_impl.__doc__ = f"(max pooling over {n}-d windows, flat spatial argmax indices)."
    op(name, method=False, torch=torch_names(name, NN, function=n == 1))(max_indices_impl)


for _n in (1, 2, 3):
    _pools(_n)


def _zero_stuffed(be: Any, x: Any, axis: int, stride: int) -> Any:
    """``stride - 1`` zeros between neighbours along ``axis`` (reshape, no item assignment).

    On lazy backends, one task per chunk with ``axis`` whole (``Backend.along_axis``):
    reshaping the Dask array itself would split it into one chunk per element (70,000
    tasks for a 4x4x4 transposed conv)."""
    if stride == 1:
        return x
    n = x.shape[axis]

    def stuffed(block: Any, xnp: Any) -> Any:
        parts = xnp.stack([block] + [xnp.zeros_like(block)] * (stride - 1), axis=axis + 1)
        full = parts.reshape((*block.shape[:axis], n * stride, *block.shape[axis + 1:]))
        return full[(slice(None),) * axis + (slice(0, (n - 1) * stride + 1),)]
    return be.along_axis(stuffed, x, axis, (n - 1) * stride + 1 if n else 0)


@provided(torch_kernels.conv_transpose)
def conv_transpose(be: Any, input: Any, weight: Any, bias: Any, stride: Any, padding: Any,
                   output_padding: Any, groups: int, dilation: Any, n: int) -> Any:
    """The transpose (gradient) of conv: zero-stuff by ``stride``, pad, convolve with the
    flipped kernel whose in/out channels are swapped (weight (C_in, C_out/groups, *k))."""
    x, unbatched = _batched(input, n)
    stride_, pad_, out_pad = _tuple(stride, n), _tuple(padding, n), _tuple(output_padding, n)
    dil = _tuple(dilation, n)
    kernel = tuple(weight.shape[2:])
    for i in range(n):
        x = _zero_stuffed(be, x, 2 + i, stride_[i])
    widths = [(d * (k - 1) - p, d * (k - 1) - p + op_) for k, d, p, op_ in
              zip(kernel, dil, pad_, out_pad)]
    crop = tuple(slice(-min(lo, 0) or None, (x.shape[2 + i] + min(hi, 0)) if hi < 0 else None)
                 for i, (lo, hi) in enumerate(widths))
    x = be.np.pad(x[(slice(None), slice(None)) + crop],
                  [(0, 0), (0, 0), *[(max(lo, 0), max(hi, 0)) for lo, hi in widths]])
    c_in, c_out_g = weight.shape[:2]
    w = weight.reshape((groups, c_in // groups, c_out_g, *kernel))
    w = be.np.swapaxes(w, 1, 2).reshape((groups * c_out_g, c_in // groups, *kernel))
    w = be.np.flip(w, axis=tuple(range(2, 2 + n)))
    out = convolution(be, x, w, bias, 1, 0, dil, groups, n)
    return out[0] if unbatched else out


def _conv_transpose(n: int) -> None:
    def impl(be: Any, input: Any, weight: Any, bias: Any = None, stride: Any = 1,
             padding: Any = 0, output_padding: Any = 0, groups: int = 1,
             dilation: Any = 1) -> Any:
        return conv_transpose(be, input, weight, bias, stride, padding, output_padding, groups,
                              dilation, n)
    name = f"conv_transpose{n}d"
    impl.__name__, impl.__doc__ = name, f"{n}-d transposed convolution, as torch's {name}."
    op(name, method=False, torch=torch_names(name, NN, function=True),
       blockwise=Blockwise(min_ndim=n + 2))(impl)  # each image on its own


for _n in (1, 2, 3):
    _conv_transpose(_n)


@op(method=False, torch=torch_names("unfold", NN))
def unfold(be: Any, input: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
           stride: Any = 1) -> Any:
    """im2col: (N, C, H, W) -> (N, C * kh * kw, L), channel-major as torch orders it."""
    x, unbatched = _batched(input, 2)
    kernel, stride_, dilation_ = _tuple(kernel_size, 2), _tuple(stride, 2), _tuple(dilation, 2)
    pads = [(p, p) for p in _tuple(padding, 2)]
    view = window_view(be, x, kernel, stride_, pads, dilation_)
    if view is not None:
        out = columns(be, view, 2)
    else:
        wins = [w for _, w in _windows(be, x, kernel, stride_, pads, dilation_,
                                       x.dtype.type(0))]
        cols = be.np.stack(wins, axis=2)  # (N, C, kh*kw, oh, ow)
        n, c, k = cols.shape[:3]
        out = cols.reshape((n, c * k, cols.shape[3] * cols.shape[4]))
    return out[0] if unbatched else out
