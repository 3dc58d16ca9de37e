"""Dropout in all of torch's forms: F.dropout, the channel dropouts (dropout1d/2d/3d, which
zero whole channels), the alpha dropouts (which keep SELU's mean and variance) and the
backward of aten's native_dropout. The masks come from interop's default generator on the
input's backend (on Dask, lazily, chunked as the input).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from ..creation.factories import default_generator
from ..registry import op, torch_names
from .common import NN, in_place

ALPHA = 1.7580993408473766
"""-SELU's negative saturation (scale * alpha): where alpha dropout puts a dropped element."""


def _check_p(p: float) -> None:
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _keep(be: Any, input: Any, p: float, lead: int | None) -> Any:
    """A mask kept with probability 1 - p: per element (``lead=None``), or per index of the
    first ``lead`` dims (whole channels), size 1 along the others."""
    shape = tuple(input.shape)
    if lead is not None:
        shape = shape[:lead] + (1,) * (input.ndim - lead)
    chunks = be.chunking(input)
    if chunks is not None and lead is not None:
        chunks = tuple(chunks[:lead]) + ((1,),) * (input.ndim - lead)
    return default_generator.for_backend(be).random(shape, **be.chunk_options(chunks)) >= p


def _dropout(be: Any, input: Any, p: float, training: bool, inplace: bool, *,
             lead: int | None = None, alpha: bool = False) -> Any:
    """torch's one dropout kernel: the identity outside training (or p == 0, or no elements);
    input * 0 at p == 1; else input * mask / (1 - p), or for alpha dropout, with
    a = 1 / sqrt((ALPHA^2 p + 1)(1 - p)): a * x + ALPHA * a * p where kept, ALPHA * a * (p - 1)
    where dropped (computed as torch does, so a nan input stays nan)."""
    _check_p(p)
    if not training or p == 0 or input.size == 0:
        return input
    dt = input.dtype.type
    if p == 1:
        return in_place(be, input, input * dt(0), inplace)
    if lead is not None and input.ndim < lead:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input "
                           f"(got shape {list(input.shape)}); add the batch dim with unsqueeze(0)")
    noise = _keep(be, input, p, lead).astype(input.dtype)
    if alpha:
        a = 1 / math.sqrt((ALPHA * ALPHA * p + 1) * (1 - p))
        out = input * (noise * dt(a)) + ((noise - dt(1)) * dt(ALPHA * a) + dt(ALPHA * a * p))
    else:
        out = input * (noise / dt(1 - p))
    return in_place(be, input, out.astype(input.dtype), inplace)


@op(method=False, torch=torch_names("dropout", NN, function=True))
def dropout(be: Any, input: Any, p: float = 0.5, training: bool = True,
            inplace: bool = False) -> Any:
    """Identity in eval mode (``training=False``); in training, zeroes elements with
    probability ``p`` (interop's default generator) and scales the rest by 1/(1-p)."""
    return _dropout(be, input, p, training, inplace)


@op(method=False, torch=torch_names("dropout1d", NN))
def dropout1d(be: Any, input: Any, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Any:
    """Zeroes whole channels of (N, C, L) or (C, L) input; the rest scaled by 1/(1-p)."""
    _check_p(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D "
                           "input. Note that dropout1d exists to provide channel-wise dropout "
                           "on inputs with 1 spatial dimension, a channel dimension, and an "
                           "optional batch dimension (i.e. 2D or 3D inputs).")
    return _dropout(be, input, p, training, inplace, lead=input.ndim - 1)


def _warn_dims(name: str, ndim: int, dims: tuple[int, int], spatial: int) -> None:
    if ndim not in dims:
        warnings.warn(f"{name}: Received a {ndim}-D input to {name}, which is deprecated and "
                      "will result in an error in a future release. To retain the behavior "
                      "and silence this warning, please use dropout instead. Note that "
                      f"{name} exists to provide channel-wise dropout on inputs with {spatial} "
                      "spatial dimensions, a channel dimension, and an optional batch "
                      f"dimension (i.e. {dims[0]}D or {dims[1]}D inputs).", stacklevel=4)


@op(method=False, torch=torch_names("dropout2d", NN))
def dropout2d(be: Any, input: Any, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Any:
    """Zeroes whole channels of (N, C, H, W) input (torch reads any input as (N, C, ...),
    3-D ones too); the rest scaled by 1/(1-p)."""
    _check_p(p)
    _warn_dims("dropout2d", input.ndim, (3, 4), 2)
    return _dropout(be, input, p, training, inplace, lead=2)


@op(method=False, torch=torch_names("dropout3d", NN))
def dropout3d(be: Any, input: Any, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Any:
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) input (torch reads inputs of
    other ranks as unbatched); the rest scaled by 1/(1-p)."""
    _check_p(p)
    _warn_dims("dropout3d", input.ndim, (4, 5), 3)
    return _dropout(be, input, p, training, inplace, lead=2 if input.ndim == 5 else 1)


@op(method=False, torch=torch_names("alpha_dropout", NN, function=True))
def alpha_dropout(be: Any, input: Any, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Any:
    """Dropout for SELU networks: dropped elements take SELU's saturation, then an affine map
    keeps the mean and variance (torch's formula)."""
    return _dropout(be, input, p, training, inplace, alpha=True)


@op(method=False, torch=torch_names("feature_alpha_dropout", NN, function=True))
def feature_alpha_dropout(be: Any, input: Any, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Any:
    """alpha_dropout of whole channels of (N, C, ...) input."""
    return _dropout(be, input, p, training, inplace, lead=2, alpha=True)
