"""JAX's own primitives for operations XLA optimises as one op: convolutions through
``lax.conv_general_dilated`` (cuDNN on a GPU), pools through ``lax.reduce_window``.

interop's generic convolution is a sum of one product per kernel offset: correct on every
backend, but under ``jax.jit`` nine ``dot_general``s and nine adds where XLA has one
convolution.  ``JaxBackend.native`` offers these in its place, by torch name.  Each takes
torch's arguments and answers torch's values; for an argument it does not cover (``ceil_mode``,
pool indices, mismatched dtypes, whose torch errors the generic form raises) it returns
NotImplemented, and interop's implementation runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

_SPATIAL = {1: "H", 2: "HW", 3: "DHW"}


def _tuple(v: Any, n: int) -> tuple[int, ...]:
    if isinstance(v, (tuple, list)):
        return tuple(int(x) for x in v) * (n if len(v) == 1 else 1)
    return (int(v),) * n


def _batched(x: Any, n: int) -> tuple[Any, bool]:
    return (x[None], True) if x.ndim == n + 1 else (x, False)


def conv(n: int) -> Callable:
    """torch.nn.functional.conv{n}d as one ``lax.conv_general_dilated``."""
    layout = "NC" + _SPATIAL[n]

    def convolution(input: Any, weight: Any, bias: Any = None, stride: Any = 1,
                    padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Any:
        if input.dtype != weight.dtype or input.ndim not in (n + 1, n + 2) \
                or weight.ndim != n + 2 or input.shape[-n - 1] != weight.shape[1] * groups:
            return NotImplemented  # torch's error, from the generic form
        x, unbatched = _batched(input, n)
        dilation_ = _tuple(dilation, n)
        if padding == "valid":
            pads = [(0, 0)] * n
        elif padding == "same":
            total = [d * (k - 1) for k, d in zip(weight.shape[2:], dilation_)]
            pads = [(t // 2, t - t // 2) for t in total]
        else:
            pads = [(p, p) for p in _tuple(padding, n)]
        out = lax.conv_general_dilated(x, weight, _tuple(stride, n), pads,
                                       rhs_dilation=dilation_,
                                       dimension_numbers=(layout, "OI" + _SPATIAL[n], layout),
                                       feature_group_count=groups)
        if bias is not None:
            out = out + bias.reshape((-1,) + (1,) * n)
        return out[0] if unbatched else out
    return convolution


def _windowed(x: Any, n: int, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
              init: Any, reduce: Callable) -> Any:
    kernel = _tuple(kernel_size, n)
    stride_ = _tuple(stride, n) if stride not in (None, (), []) else kernel
    pads = [(0, 0), (0, 0), *((p, p) for p in _tuple(padding, n))]
    return lax.reduce_window(x, init, reduce, (1, 1, *kernel), (1, 1, *stride_), pads,
                             window_dilation=(1, 1, *_tuple(dilation, n)))


def max_pool(n: int) -> Callable:
    """torch.nn.functional.max_pool{n}d as one ``lax.reduce_window``."""
    def pool(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
             dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
        if ceil_mode or return_indices or input.ndim not in (n + 1, n + 2) \
                or any(2 * p > k for p, k in zip(_tuple(padding, n), _tuple(kernel_size, n))):
            return NotImplemented
        x, unbatched = _batched(input, n)
        kind = np.dtype(x.dtype)
        init = -jnp.inf if kind.kind == "f" else np.iinfo(kind).min
        out = _windowed(x, n, kernel_size, stride, padding, dilation,
                        jnp.asarray(init, x.dtype), lax.max)
        return out[0] if unbatched else out
    return pool


def avg_pool(n: int) -> Callable:
    """torch.nn.functional.avg_pool{n}d as one ``lax.reduce_window`` (padding counted, as
    torch counts it by default)."""
    def pool(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
             ceil_mode: bool = False, count_include_pad: bool = True,
             divisor_override: Any = None) -> Any:
        if ceil_mode or divisor_override or input.ndim not in (n + 1, n + 2) \
                or not count_include_pad and any(_tuple(padding, n)) \
                or np.dtype(input.dtype).kind != "f":
            return NotImplemented
        x, unbatched = _batched(input, n)
        total = _windowed(x, n, kernel_size, stride, padding, 1, jnp.asarray(0, x.dtype), lax.add)
        out = total / math.prod(_tuple(kernel_size, n))
        return (out[0] if unbatched else out).astype(x.dtype)
    return pool


def adaptive_avg_pool(n: int) -> Callable:
    """torch.nn.functional.adaptive_avg_pool{n}d where each output cell averages an equal
    block of the input (the common case, e.g. global pooling): a reshape and a mean."""
    def pool(input: Any, output_size: Any) -> Any:
        sizes = input.shape[-n:]
        outs = (output_size,) * n if isinstance(output_size, int) else tuple(output_size)
        outs = tuple(s if o is None else o for s, o in zip(sizes, outs))
        if any(o == 0 or s % o for s, o in zip(sizes, outs)):
            return NotImplemented  # uneven windows: the generic form's
        lead = input.shape[:-n]
        split = [d for s, o in zip(sizes, outs) for d in (o, s // o)]
        blocks = input.reshape((*lead, *split))
        axes = tuple(len(lead) + 2 * i + 1 for i in range(n))
        return jnp.mean(blocks, axis=axes).astype(input.dtype)
    return pool


PRIMITIVES: dict[str, Callable] = {}
"""torch name -> JAX's primitive form, for ``JaxBackend.native``."""
for _n in (1, 2, 3):
    for _name, _make in ((f"conv{_n}d", conv), (f"max_pool{_n}d", max_pool),
                         (f"avg_pool{_n}d", avg_pool),
                         (f"adaptive_avg_pool{_n}d", adaptive_avg_pool)):
        _fn = _make(_n)
        PRIMITIVES[f"torch.nn.functional.{_name}"] = PRIMITIVES[f"torch.{_name}"] = _fn
