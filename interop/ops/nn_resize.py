"""torch.nn.functional.interpolate on backend arrays: 'nearest', 'nearest-exact',
'linear'/'bilinear'/'trilinear' (separable, one spatial dim at a time, with torch's
``align_corners`` rule) and 'area' (adaptive average pooling).

Each dim gathers with host-computed integer indices (``take``), so NumPy, CuPy and
Dask (lazily) all run it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .nn_functional import names
from .registry import TABLE, op

_LINEAR = {"linear": 1, "bilinear": 2, "trilinear": 3}


def _sizes(input: Any, n: int, size: Any, scale_factor: Any,
           recompute: Any) -> tuple[list[int], list[float | None]]:
    """Output sizes and the scales torch uses for the source coordinates (None: in/out)."""
    if size is not None:
        sizes = [size] * n if isinstance(size, int) else list(size)
        return [int(s) for s in sizes], [None] * n
    factors = [scale_factor] * n if not isinstance(scale_factor, (list, tuple)) \
        else list(scale_factor)
    sizes = [int(math.floor(input.shape[2 + i] * f)) for i, f in enumerate(factors)]
    return sizes, [None if recompute else 1 / f for f in factors]


def _nearest_index(length: int, out: int, scale: float | None, exact: bool) -> np.ndarray:
    s = length / out if scale is None else scale
    pos = (np.arange(out) + 0.5) * s if exact else np.arange(out) * np.float32(s)
    return np.minimum(np.floor(pos).astype(np.int64), length - 1)


def _linear_weights(length: int, out: int, scale: float | None,
                    align_corners: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if align_corners:
        src = np.arange(out) * ((length - 1) / (out - 1) if out > 1 else 0.0)
    else:
        s = length / out if scale is None else scale
        src = np.maximum((np.arange(out) + 0.5) * s - 0.5, 0.0)
    i0 = np.minimum(np.floor(src).astype(np.int64), length - 1)
    i1 = np.minimum(i0 + 1, length - 1)
    return i0, i1, src - i0


@op(method=False, torch=names("interpolate"), family="nn")
def interpolate(be: Any, input: Any, size: Any = None, scale_factor: Any = None,
                mode: str = "nearest", align_corners: Any = None,
                recompute_scale_factor: Any = None, antialias: bool = False) -> Any:
    """Resize the spatial dims (all dims after N, C) to ``size`` or by ``scale_factor``."""
    n = input.ndim - 2
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not implemented by interop")
    if mode == "area":
        sizes, _ = _sizes(input, n, size, scale_factor, True)
        return TABLE[f"adaptive_avg_pool{n}d"].impl(be, input, sizes)
    if mode in _LINEAR and _LINEAR[mode] != n:
        raise NotImplementedError(f"interpolate: got {input.ndim}D input, but {mode} mode "
                                  f"needs {_LINEAR[mode] + 2}D input")
    if mode not in (*_LINEAR, "nearest", "nearest-exact"):
        raise NotImplementedError(f"interpolate: mode {mode!r} is not implemented by interop "
                                  "(nearest, nearest-exact, linear, bilinear, trilinear, area)")
    sizes, scales = _sizes(input, n, size, scale_factor, recompute_scale_factor)
    x = input
    for i in range(n):
        axis, length = 2 + i, input.shape[2 + i]
        if mode in _LINEAR:
            i0, i1, lam = _linear_weights(length, sizes[i], scales[i], bool(align_corners))
            shape = (sizes[i],) + (1,) * (n - 1 - i)
            w = be.np.asarray(lam.reshape(shape).astype(x.dtype))
            x = be.np.take(x, i0, axis=axis) * (1 - w) + be.np.take(x, i1, axis=axis) * w
        else:
            x = be.np.take(x, _nearest_index(length, sizes[i], scales[i],
                                             mode == "nearest-exact"), axis=axis)
    return x.astype(input.dtype)
