"""torch.nn.functional.interpolate on backend arrays: 'nearest', 'nearest-exact',
'linear'/'bilinear'/'trilinear' (separable, one spatial dim at a time, with torch's
``align_corners`` rule), 'bicubic' (torch's cubic convolution, A = -0.75, edge taps
clamped), 'area' (adaptive average pooling), and ``antialias=True`` for bilinear and
bicubic (torch's separable filters widened by the downscale factor, as PIL's).

Each dim gathers with host-computed integer indices (``take``) or contracts with a
host-computed (out, in) weight matrix, so NumPy, CuPy and Dask (lazily) all run it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..registry import TABLE, op, torch_names
from .common import NN

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


def _cubic(x: np.ndarray, a: float) -> np.ndarray:
    """The cubic convolution kernel (Keys) with parameter ``a``, zero beyond |x| = 2."""
    x = np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x < 1, near, np.where(x < 2, far, 0.0))


def _area_scale(length: int, out: int, scale: float | None, align_corners: bool) -> float:
    """torch's area_pixel_compute_scale: input pixels per output pixel."""
    if align_corners:
        return (length - 1) / (out - 1) if out > 1 else 0.0
    return length / out if scale is None else scale


def _bicubic_matrix(length: int, out: int, scale: float | None,
                    align_corners: bool) -> np.ndarray:
    """(out, length) weights of torch's bicubic upsampling along one dim: four taps around
    the source coordinate (not clamped at 0, unlike linear), their indices clamped."""
    s = _area_scale(length, out, scale, align_corners)
    src = np.arange(out) * s if align_corners else (np.arange(out) + 0.5) * s - 0.5
    x0 = np.floor(src).astype(np.int64)
    t = src - x0
    weights = np.zeros((out, length))
    for k in range(-1, 3):
        np.add.at(weights, (np.arange(out), np.clip(x0 + k, 0, length - 1)), _cubic(t - k, -0.75))
    return weights


_AA_FILTERS = {"bilinear": (2, lambda x: np.maximum(0.0, 1.0 - np.abs(x))),
               "bicubic": (4, lambda x: _cubic(x, -0.5))}


def _antialias_matrix(length: int, out: int, scale: float | None, align_corners: bool,
                      mode: str) -> np.ndarray:
    """(out, length) weights of torch's antialiased resampling along one dim: the filter is
    stretched by the downscale factor (so every input pixel contributes) and normalised."""
    size, kernel = _AA_FILTERS[mode]
    s = _area_scale(length, out, scale, align_corners)
    support, inv = (size / 2 * s, 1 / s) if s >= 1 else (size / 2, 1.0)
    weights = np.zeros((out, length))
    for i in range(out):
        center = s * (i + 0.5)
        lo = max(math.trunc(center - support + 0.5), 0)
        hi = min(math.trunc(center + support + 0.5), length)
        w = kernel((np.arange(lo, hi) - center + 0.5) * inv)
        total = w.sum()
        weights[i, lo:hi] = w / total if total else w
    return weights


def _contracted(be: Any, x: Any, axis: int, weights: np.ndarray) -> Any:
    """``x`` with dim ``axis`` replaced by ``weights @ x`` along it (lazily on Dask)."""
    w = be.np.asarray(weights.T.astype(x.dtype))
    return be.np.moveaxis(be.np.moveaxis(x, axis, -1) @ w, -1, axis)


@op(method=False, torch=torch_names("interpolate", NN))
def interpolate(be: Any, input: Any, size: Any = None, scale_factor: Any = None,
                mode: str = "nearest", align_corners: Any = None,
                recompute_scale_factor: Any = None, antialias: bool = False) -> Any:
    """Resize the spatial dims (all dims after N, C) to ``size`` or by ``scale_factor``."""
    n = input.ndim - 2
    if antialias and mode not in _AA_FILTERS:
        raise ValueError(f"interpolate: anti-alias option is restricted to bilinear and "
                         f"bicubic modes and requires a 4-D tensor as input (got {mode!r})")
    if mode == "area":
        sizes, _ = _sizes(input, n, size, scale_factor, True)
        return TABLE[f"adaptive_avg_pool{n}d"].impl(be, input, sizes)
    expected = {**_LINEAR, "bicubic": 2}.get(mode)
    if expected is not None and expected != n:
        raise NotImplementedError(f"interpolate: got {input.ndim}D input, but {mode} mode "
                                  f"needs {expected + 2}D input")
    if mode not in (*_LINEAR, "bicubic", "nearest", "nearest-exact"):
        raise NotImplementedError(f"interpolate: mode {mode!r} is not implemented by interop "
                                  "(nearest, nearest-exact, linear, bilinear, bicubic, "
                                  "trilinear, area)")
    sizes, scales = _sizes(input, n, size, scale_factor, recompute_scale_factor)
    return _resampled(be, input, sizes, scales, mode, bool(align_corners), antialias)


def _resampled(be: Any, input: Any, sizes: list[int], scales: list[float | None], mode: str,
               align_corners: bool, antialias: bool) -> Any:
    """``input``'s spatial dims resampled to ``sizes`` (``scales``: input pixels per output
    pixel where the caller fixes them, None: in/out), one dim at a time."""
    n = input.ndim - 2
    x = input
    for i in range(n):
        axis, length = 2 + i, input.shape[2 + i]
        if antialias:
            x = _contracted(be, x, axis, _antialias_matrix(length, sizes[i], scales[i],
                                                           align_corners, mode))
        elif mode == "bicubic":
            x = _contracted(be, x, axis, _bicubic_matrix(length, sizes[i], scales[i],
                                                         align_corners))
        elif mode in _LINEAR:
            i0, i1, lam = _linear_weights(length, sizes[i], scales[i], align_corners)
            shape = (sizes[i],) + (1,) * (n - 1 - i)
            w = be.np.asarray(lam.reshape(shape).astype(x.dtype))
            x = be.np.take(x, i0, axis=axis) * (1 - w) + be.np.take(x, i1, axis=axis) * w
        else:
            x = be.np.take(x, _nearest_index(length, sizes[i], scales[i],
                                             mode == "nearest-exact"), axis=axis)
    return x.astype(input.dtype)


@op(method=False, torch=("aten._upsample_bilinear2d_aa",
                                      "torch._C._nn._upsample_bilinear2d_aa",
                                      "aten._upsample_bilinear2d_aa.default",
                                      "aten._upsample_bilinear2d_aa.vec"))
def _upsample_bilinear2d_aa(be: Any, input: Any, output_size: Any = None,
                            align_corners: bool = False, scales_h: Any = None,
                            scales_w: Any = None, scale_factors: Any = None) -> Any:
    """The aten kernel of interpolate(mode='bilinear', antialias=True) on (N, C, H, W) input,
    both overloads: (output_size, align_corners, scales_h, scales_w), where the scales (if
    given) fix the source coordinates, and ``.vec`` (output_size or scale_factors)."""
    if isinstance(scales_h, (list, tuple)):  # .vec's fourth positional argument
        scale_factors, scales_h = scales_h, None
    if input.ndim != 4:
        raise RuntimeError(f"_upsample_bilinear2d_aa: expected a 4-D (N, C, H, W) input, got "
                           f"shape {list(input.shape)}")
    if (output_size is None) == (scale_factors is None):
        raise RuntimeError("_upsample_bilinear2d_aa: Must specify exactly one of output_size "
                           "and scale_factors")
    if output_size is not None:
        sizes = [int(s) for s in output_size]
        scales = [None if f is None else 1 / f for f in (scales_h, scales_w)]
    else:
        sizes, scales = _sizes(input, 2, None, list(scale_factors), False)
    return _resampled(be, input, sizes, scales, "bilinear", bool(align_corners),
                      True).astype(input.dtype)
