"""F.ctc_loss and torch.ctc_loss on backend arrays: the connectionist temporal classification
loss, torch's forward (alpha) recursion in log space, vectorised over the batch and the
extended label sequence (blank, l1, blank, l2, ..., blank), one step per input frame.

The lengths are sizes: torch reads them on the host (its Tensor overload copies them to the
CPU), and so does interop, through the value-read gate; everything else (log-probabilities,
targets) stays on the backend.  On Dask the recursion, sequential in time, runs as one lazy
task on whole arrays (a graph layer per frame makes graphs that take minutes to schedule).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...backends.registry import host_values
from ...errors import UnsupportedDtypeError
from .._args import whole_arrays
from ..registry import op, torch_names
from .common import NN
from .loss import REDUCTIONS, reduce_loss


def _lengths(x: Any, what: str) -> np.ndarray:
    """Lengths as host int64: a sequence of ints, or an integer tensor (a value read)."""
    if isinstance(x, (list, tuple)):
        return np.asarray([int(v) for v in x], dtype=np.int64).reshape(-1)
    if isinstance(x, (int, float)):
        raise TypeError(f"ctc_loss(): {what} must be a tensor or a sequence of ints, not "
                        f"{type(x).__name__} (wrap it: torch.tensor([{x}]))")
    if x.dtype.kind not in "iu":
        raise RuntimeError(f"{what} must be integral (got {x.dtype}; convert with .long())")
    return host_values(x, f"ctc_loss(): the {what}").astype(np.int64).reshape(-1)


def _check(log_probs: Any, targets: Any, il: np.ndarray, tl: np.ndarray, blank: int) -> None:
    """torch's checks (ctc_loss_allocate_outputs), in its order."""
    where = "(while checking arguments for ctc_loss_allocate_outputs)"
    if log_probs.dtype not in (np.float32, np.float64):
        raise UnsupportedDtypeError(f'"ctc_loss_cpu" not implemented for {log_probs.dtype}: '
                                    "pass float32 or float64 log-probabilities")
    if log_probs.ndim != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {log_probs.ndim}-"
                           f"dimensional tensor for argument #1 'log_probs' {where}")
    if not 1 <= targets.ndim <= 2:
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {targets.ndim}-dimensional "
                           f"tensor for argument #2 'targets' {where}")
    batch, labels = log_probs.shape[1], log_probs.shape[2]
    if not 0 <= blank < labels:
        raise RuntimeError("blank must be in label range")
    if len(il) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(tl) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    if (tl < 0).any():
        raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value "
                           f"{tl.min()} {where}")
    if targets.ndim == 1 and targets.shape[0] != tl.sum():
        raise RuntimeError(f"Expected tensor to have size {tl.sum()} at dimension 0, but got "
                           f"size {targets.shape[0]} for argument #2 'targets' {where}")
    if targets.ndim == 2 and targets.shape[0] != batch:
        raise RuntimeError(f"Expected tensor to have size {batch} at dimension 0, but got size "
                           f"{targets.shape[0]} for argument #2 'targets' {where}")
    if targets.ndim == 2 and batch and targets.shape[1] < tl.max():
        raise RuntimeError(f"Expected tensor to have size at least {tl.max()} at dimension 1, "
                           f"but got size {targets.shape[1]} for argument #2 'targets' {where}")
    if (il < 0).any():
        raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value "
                           f"{il.min()} {where}")
    if (il > log_probs.shape[0]).any():
        raise RuntimeError(f"Expected input_lengths to have value at most {log_probs.shape[0]},"
                           f" but got value {il.max()} {where}")


def _padded_targets(be: Any, targets: Any, tl: np.ndarray, width: int) -> Any:
    """(batch, width) int64 labels: the rows of 2-d targets, or the pieces of 1-d
    concatenated ones (past a row's length: label 0, never read)."""
    if targets.ndim == 2:
        return targets[:, :width].astype(np.int64)
    starts = np.cumsum(tl) - tl
    inside = np.arange(width)[None, :] < tl[:, None]
    index = np.where(inside, starts[:, None] + np.arange(width)[None, :], 0)
    picked = be.np.take(targets, be.np.asarray(index.reshape(-1)), axis=0)
    return be.np.reshape(picked, (len(tl), width)).astype(np.int64)


def _shifted(be: Any, x: Any, by: int, fill: Any) -> Any:
    """``x`` moved ``by`` places right along its last dim, ``fill`` coming in."""
    return be.np.pad(x[:, :x.shape[1] - by], [(0, 0), (by, 0)], constant_values=fill)


def _log_add(be: Any, *terms: Any) -> Any:
    """log(sum(exp(terms))) as torch's kernel writes it: the maximum taken out, 0 for it
    when every term is -inf (so -inf - -inf never happens)."""
    top = terms[0]
    for t in terms[1:]:
        top = be.np.maximum(top, t)
    top = be.np.where(top == -np.inf, 0, top).astype(top.dtype)
    total = be.np.exp(terms[0] - top)
    for t in terms[1:]:
        total = total + be.np.exp(t - top)
    return be.np.log(total) + top


def negative_log_likelihood(be: Any, log_probs: Any, labels: Any, il: np.ndarray,
                            tl: np.ndarray, blank: int) -> Any:
    """-log p(target | input) per batch entry, from padded labels (N, max target length):
    torch's ctc_loss_cpu forward, one vectorised step per input frame."""
    steps, batch, _ = log_probs.shape
    dtype = log_probs.dtype
    ninf = dtype.type(-np.inf)
    states = np.arange(2 * labels.shape[1] + 1)
    if labels.shape[1]:
        picked = be.np.take(labels, be.np.asarray(np.maximum((states - 1) // 2, 0)), axis=1)
        extended = be.np.where(be.np.asarray(states % 2 == 1)[None, :], picked, blank)
    else:
        extended = be.np.zeros((batch, 1), dtype=np.int64) + blank
    # a state may be entered from two back when its label differs from that one's (not blank)
    skip = be.np.pad(extended[:, 2:] != extended[:, :-2], [(0, 0), (2, 0)])
    emit = be.np.take_along_axis(log_probs, extended[None].astype(np.int64), axis=2)
    first = (states[None, :] == 0) | ((states[None, :] == 1) & (tl[:, None] > 0))
    alpha = be.np.where(be.np.asarray(first), emit[0], ninf).astype(dtype)
    for t in range(1, int(il.max()) if batch else 0):
        stay = alpha
        step = _shifted(be, alpha, 1, ninf)
        jump = be.np.where(skip, _shifted(be, alpha, 2, ninf), ninf).astype(dtype)
        moved = _log_add(be, stay, step, jump) + emit[t]
        alpha = be.np.where(be.np.asarray((t < il)[:, None]), moved, alpha).astype(dtype)
    last = be.np.take_along_axis(alpha, be.np.asarray((2 * tl)[:, None]), axis=1)[:, 0]
    before = be.np.take_along_axis(alpha, be.np.asarray(np.maximum(2 * tl - 1, 0)[:, None]),
                                   axis=1)[:, 0]
    before = be.np.where(be.np.asarray(tl > 0), before, ninf).astype(dtype)
    likelihood = _log_add(be, last, before)
    empty = np.where(tl == 0, 0.0, -np.inf).astype(dtype)  # no input frames
    likelihood = be.np.where(be.np.asarray(il == 0), be.np.asarray(empty), likelihood)
    return -likelihood.astype(dtype)


def ctc(be: Any, log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any,
        blank: int, reduction: str, zero_infinity: bool) -> Any:
    """The CTC loss with torch's reductions ('mean': each loss over its target length)."""
    il, tl = _lengths(input_lengths, "input_lengths"), _lengths(target_lengths, "target_lengths")
    if log_probs.size == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    batched = log_probs.ndim == 3
    x = log_probs if batched else log_probs[:, None]
    _check(x, targets, il, tl, blank)
    labels = _padded_targets(be, targets, tl, int(tl.max()) if len(tl) else 0)
    # a recursion over time: on lazy backends one task on whole arrays, not a layer a step
    loss = whole_arrays(be, negative_log_likelihood, (len(tl),), x.dtype, x, labels, il, tl,
                        blank)
    if zero_infinity:
        loss = be.np.where(loss == np.inf, 0, loss).astype(loss.dtype)
    if reduction == "mean":
        return reduce_loss(be, loss / be.np.asarray(np.maximum(tl, 1).astype(loss.dtype)),
                           "mean")
    if reduction == "none" and not batched:
        return loss[0]
    return reduce_loss(be, loss, reduction)


@op(method=False, torch=torch_names("ctc_loss", NN))
def ctc_loss(be: Any, log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any,
             blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> Any:
    """The CTC loss of log-probabilities (T, N, C) (or (T, C)) against targets: (N, S) padded,
    or 1-d concatenated, with ``target_lengths``; reductions 'none', 'mean' (over target
    lengths, then the batch) and 'sum'; ``zero_infinity`` zeroes impossible alignments."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction: use 'mean', 'sum' "
                         "or 'none'")
    return ctc(be, log_probs, targets, input_lengths, target_lengths, blank, reduction,
               zero_infinity)


@op("ctc_loss_reduction_code", function=False, method=False, torch=("torch.ctc_loss",))
def ctc_loss_reduction_code(be: Any, log_probs: Any, targets: Any, input_lengths: Any,
                            target_lengths: Any, blank: int = 0, reduction: int = 0,
                            zero_infinity: bool = False) -> Any:
    """torch.ctc_loss: F.ctc_loss with torch's integer reduction code (0 none, 1 mean, 2 sum;
    torch 2.13's default, as measured, is none)."""
    if reduction not in range(len(REDUCTIONS)):
        raise ValueError(f"ctc_loss: reduction must be 0 (none), 1 (mean) or 2 (sum), got "
                         f"{reduction}")
    return ctc(be, log_probs, targets, input_lengths, target_lengths, blank,
               REDUCTIONS[reduction], zero_infinity)
