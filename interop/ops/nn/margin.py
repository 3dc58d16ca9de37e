"""Margin losses of torch.nn.functional that compare one score against others:
triplet_margin_loss, multi_margin_loss and multilabel_margin_loss (with torch's
reductions and its unbatched forms).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..indexing.selection import _take_along
from ..registry import op, torch_names
from .common import NN
from .functional import pairwise_distance
from .loss import reduce_loss, reduction_arg


@op(method=False, torch=torch_names("triplet_margin_loss", NN))  # torch.* takes an int reduction
def triplet_margin_loss(be: Any, anchor: Any, positive: Any, negative: Any, margin: float = 1.0,
                        p: float = 2.0, eps: float = 1e-6, swap: bool = False,
                        size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Any:
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d the p-norm distance;
    ``swap`` uses d(positive, negative) where it is smaller."""
    d_ap = pairwise_distance(be, anchor, positive, p, eps)
    d_an = pairwise_distance(be, anchor, negative, p, eps)
    if swap:
        d_an = be.np.minimum(d_an, pairwise_distance(be, positive, negative, p, eps))
    loss = be.np.maximum(margin + d_ap - d_an, d_ap.dtype.type(0))
    return reduce_loss(be, loss, reduction_arg(size_average, reduce, reduction))


def _rows(x: Any, target: Any) -> tuple[Any, Any, bool]:
    """(N, C) scores and targets from the unbatched (C,) form too."""
    if x.ndim <= 1:
        return x.reshape((1, -1)), target.reshape((1, -1)), True
    return x, target, False


@op(method=False, torch=torch_names("multi_margin_loss", NN))
def multi_margin_loss(be: Any, input: Any, target: Any, p: int = 1, margin: float = 1.0,
                      weight: Any = None, size_average: Any = None, reduce: Any = None,
                      reduction: str = "mean") -> Any:
    """Per sample: sum over classes j != y of max(0, margin - x[y] + x[j])^p (times
    weight[y]), divided by the number of classes."""
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    x, y, unbatched = _rows(input, target)
    y = y.reshape((-1, 1)).astype(np.int64)
    c = x.shape[1]
    scores = _take_along(be, x, y, 1)
    hinge = be.np.maximum(margin - scores + x, x.dtype.type(0)) ** p
    if weight is not None:
        hinge = hinge * be.np.take(weight, y[:, 0])[:, None]
    others = y != be.np.arange(c)[None, :]
    loss = be.np.sum(be.np.where(others, hinge, x.dtype.type(0)), axis=1) / x.dtype.type(c)
    loss = loss.reshape(()) if unbatched else loss
    return reduce_loss(be, loss.astype(x.dtype), reduction_arg(size_average, reduce, reduction))


@op(method=False, torch=torch_names("multilabel_margin_loss", NN))
def multilabel_margin_loss(be: Any, input: Any, target: Any, size_average: Any = None,
                           reduce: Any = None, reduction: str = "mean") -> Any:
    """Per sample: for each target class j (the labels before the first -1) and each
    non-target class k, max(0, 1 - (x[j] - x[k])), summed and divided by the class count."""
    x, t, unbatched = _rows(input, target)
    c = x.shape[1]
    valid = be.np.cumprod((t != -1).astype(np.int64), axis=1).astype(bool)  # before first -1
    labels = be.np.where(valid, t, 0).astype(np.int64)
    hit = (labels[:, :, None] == be.np.arange(c)[None, None, :]) & valid[:, :, None]
    is_target = be.np.any(hit, axis=1)  # (N, C)
    scores = _take_along(be, x, labels, 1)  # x[j] for each listed target j
    hinge = be.np.maximum(1 - (scores[:, :, None] - x[:, None, :]), x.dtype.type(0))
    keep = valid[:, :, None] & ~is_target[:, None, :]
    loss = be.np.sum(be.np.where(keep, hinge, x.dtype.type(0)), axis=(1, 2)) / x.dtype.type(c)
    loss = loss.reshape(()) if unbatched else loss
    return reduce_loss(be, loss.astype(x.dtype), reduction_arg(size_average, reduce, reduction))
