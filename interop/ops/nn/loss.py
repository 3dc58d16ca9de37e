"""Loss functions of torch.nn.functional on backend arrays, with torch's reductions
(``reduction='mean'|'sum'|'none'`` and the legacy ``size_average``/``reduce`` flags),
class weights, ``ignore_index`` and label smoothing.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from ... import dtypes
from .._args import float_input
from ..annotations import DimOf
from ..registry import op, torch_names
from . import torch_kernels
from .activations import log_softmax_raw
from .common import NN, REDUCTIONS
from .functional import linear
from .kernels import provided


def reduction_arg(size_average: Any, reduce: Any, reduction: str) -> str:
    """torch's legacy flags, when given, decide the reduction."""
    if size_average is None and reduce is None:
        return reduction
    if reduce is False:
        return "none"
    return "sum" if size_average is False else "mean"


def reduce_loss(be: Any, loss: Any, reduction: str) -> Any:
    if reduction == "none":
        return loss
    if reduction == "sum":
        return be.np.sum(loss)
    if reduction == "mean":
        return be.np.mean(loss)
    raise ValueError(f"{reduction} is not a valid value for reduction: use 'mean', 'sum' "
                     "or 'none'")


def _pointwise(name: str, fn: Any, doc: str) -> None:
    def impl(be: Any, input: Any, target: Any, *args: Any, size_average: Any = None,
             reduce: Any = None, reduction: str = "mean", weight: Any = None, **kw: Any) -> Any:
        a, b = be.np.broadcast_arrays(input, target)
        loss = fn(be, a, b, *args, **kw)
        if weight is not None:
            loss = loss * weight
        return reduce_loss(be, loss, reduction_arg(size_average, reduce, reduction))
    impl.__name__, impl.__doc__ = name, doc
    op(name, method=False, torch=torch_names(name, NN))(impl)


def _smooth_l1(be: Any, a: Any, b: Any, beta: float = 1.0) -> Any:
    d = be.np.abs(a - b)
    if beta == 0:
        return d
    return be.np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta).astype(d.dtype)


def _huber(be: Any, a: Any, b: Any, delta: float = 1.0) -> Any:
    d = be.np.abs(a - b)
    return be.np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)).astype(d.dtype)


def _bce(be: Any, x: Any, y: Any) -> Any:
    clamp = x.dtype.type(-100)  # torch clamps log at -100 so 0 * log(0) stays finite
    return -(y * be.np.maximum(be.np.log(x), clamp) + (1 - y) * be.np.maximum(be.np.log1p(-x), clamp))


def _kl(be: Any, x: Any, y: Any, log_target: bool = False) -> Any:
    if log_target:
        return be.np.exp(y) * (y - x)
    safe = be.np.where(y > 0, y, 1)
    return be.np.where(y > 0, y * (be.np.log(safe) - x), 0).astype(x.dtype)


_pointwise("mse_loss", lambda be, a, b: be.np.square(a - b), "Mean squared error.")
_pointwise("l1_loss", lambda be, a, b: be.np.abs(a - b), "Mean absolute error.")
_pointwise("smooth_l1_loss", _smooth_l1, "Squared below beta, absolute above.")
_pointwise("huber_loss", _huber, "Squared below delta, delta-scaled absolute above.")
_pointwise("soft_margin_loss", lambda be, a, b: be.np.log1p(be.np.exp(-b * a)),
           "log(1 + exp(-y x)).")


@op(method=False, torch=torch_names("binary_cross_entropy", NN))
def binary_cross_entropy(be: Any, input: Any, target: Any, weight: Any = None,
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Any:
    """-(y log x + (1 - y) log(1 - x)), logs clamped at -100 as torch does."""
    loss = _bce(be, input, target)
    if weight is not None:
        loss = loss * weight
    return reduce_loss(be, loss, reduction_arg(size_average, reduce, reduction))


@op(method=False, torch=torch_names("binary_cross_entropy_with_logits", NN, function=True))
def binary_cross_entropy_with_logits(be: Any, input: Any, target: Any, weight: Any = None,
                                     size_average: Any = None, reduce: Any = None,
                                     reduction: str = "mean", pos_weight: Any = None) -> Any:
    """BCE on sigmoid(x), computed stably from the logits."""
    log_sig = be.np.minimum(input, 0) - be.np.log1p(be.np.exp(-be.np.abs(input)))
    log_one_minus = log_sig - input
    pos = target * log_sig if pos_weight is None else pos_weight * target * log_sig
    loss = -(pos + (1 - target) * log_one_minus)
    if weight is not None:
        loss = loss * weight
    return reduce_loss(be, loss, reduction_arg(size_average, reduce, reduction))


@op(method=False, torch=torch_names("kl_div", NN, function=True))
def kl_div(be: Any, input: Any, target: Any, size_average: Any = None, reduce: Any = None,
           reduction: str = "mean", log_target: bool = False) -> Any:
    """KL(target || exp(input)); ``reduction='batchmean'`` divides the sum by the batch size."""
    loss = _kl(be, input, target, log_target)
    red = reduction_arg(size_average, reduce, reduction)
    if red == "batchmean":
        return be.np.sum(loss) / (input.shape[0] if input.ndim else 1)
    return reduce_loss(be, loss, red)


def _class_last(x: Any, be: Any) -> Any:
    """(N, C, d1, ...) -> (N, d1, ..., C); (C,) stays."""
    return be.np.moveaxis(x, 1, -1) if x.ndim > 1 else x


def _picked(be: Any, x: Any, target: Any, n_classes: int) -> tuple[Any, Any]:
    """(x[..., target] per element, one-hot mask) for class-last ``x``; a one-hot product,
    so every backend (Dask too) computes it without fancy indexing."""
    hot = target[..., None] == be.np.arange(n_classes)
    return be.np.sum(be.np.where(hot, x, x.dtype.type(0)), axis=-1), hot


def _target_weights(be: Any, hot: Any, target: Any, weight: Any, ignore_index: int,
                    dtype: Any) -> Any:
    """Each target's class weight (1 without weights), 0 where the target is ignored."""
    w = be.np.sum(be.np.where(hot, weight, 0), axis=-1).astype(dtype) if weight is not None \
        else be.np.ones_like(target, dtype=dtype)
    return be.np.where(target != ignore_index, w, dtype.type(0))


@op(method=False, torch=torch_names("nll_loss", NN))
def nll_loss(be: Any, input: Any, target: Any, weight: Any = None, size_average: Any = None,
             ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> Any:
    """-w[t] * input[t] per element; ``mean`` divides by the summed weights of the kept targets."""
    red = reduction_arg(size_average, reduce, reduction)
    n_classes = input.shape[1] if input.ndim > 1 else input.shape[0]
    x = _class_last(input, be)
    picked, hot = _picked(be, x, target, n_classes)
    w = _target_weights(be, hot, target, weight, ignore_index, x.dtype)
    loss = -picked * w
    if red == "mean":
        return be.np.sum(loss) / be.np.sum(w)
    return reduce_loss(be, loss, red)




def _reduction_named(name: str, reduction: int | str) -> str:
    """ATen's reduction by name (torch's face passes the name; ATen numbers them)."""
    if isinstance(reduction, str) and reduction in REDUCTIONS:
        return reduction
    if isinstance(reduction, int) and 0 <= reduction < len(REDUCTIONS):
        return REDUCTIONS[reduction]
    raise ValueError(f"{name}: reduction {reduction!r} is not one of 'none', 'mean', 'sum' "
                     "(ATen's 0, 1, 2)")


def _class_targets(name: str, target: Any) -> None:
    if dtypes.kind(target.dtype) not in "iu":
        raise RuntimeError(f"{name}: expected target dtype to be Long or Byte, but got "
                           f"{target.dtype}; class indices are integers: convert with .long()")


@op(function=False, method=False, torch=torch_names("nll_loss_forward", "aten"))
@provided(torch_kernels.nll_loss_forward)
def nll_loss_forward(be: Any, input: Any, target: Any, weight: Any = None,
                     reduction: int | str = "mean", ignore_index: int = -100) -> tuple[Any, Any]:
    """ATen's nll_loss of (N, C) or (C,) log-probabilities: (the loss, the summed weight of the
    kept targets, which the backward divides by; 0 without a reduction, as torch's)."""
    named = _reduction_named("nll_loss_forward", reduction)
    _class_targets("nll_loss_forward", target)
    picked, hot = _picked(be, input, target, input.shape[-1])
    w = _target_weights(be, hot, target, weight, ignore_index, input.dtype)
    loss = -picked * w
    if named == "none":
        return loss, be.np.zeros((), dtype=input.dtype)
    total = be.np.sum(w)
    return be.np.sum(loss) / total if named == "mean" else be.np.sum(loss), total


@op(function=False, method=False, torch=torch_names("nll_loss_backward", "aten"))
@provided(torch_kernels.nll_loss_backward)
def nll_loss_backward(be: Any, grad_output: Any, input: Any, target: Any, weight: Any = None,
                      reduction: int | str = "mean", ignore_index: int = -100,
                      total_weight: Any = None) -> Any:
    """The gradient of nll_loss_forward's input: -w[t] times the loss's gradient at each
    target's class (divided by ``total_weight`` for a mean: the forward's, or the summed
    weight of the kept targets), 0 elsewhere."""
    named = _reduction_named("nll_loss_backward", reduction)
    _class_targets("nll_loss_backward", target)
    hot = target[..., None] == be.np.arange(input.shape[-1])
    w = _target_weights(be, hot, target, weight, ignore_index, input.dtype)
    if named == "mean":
        g = grad_output / (be.np.sum(w) if total_weight is None else total_weight)
    else:
        g = grad_output
    return be.np.where(hot, -(w * g)[..., None], input.dtype.type(0)).astype(input.dtype)


@op(method=False, torch=torch_names("cross_entropy", NN))
def cross_entropy(be: Any, input: Any, target: Any, weight: Any = None, size_average: Any = None,
                  ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Any:
    """nll_loss(log_softmax(input, 1)), class indices or class probabilities as targets."""
    return _cross_entropy(be, input, target, weight, ignore_index,
                          reduction_arg(size_average, reduce, reduction), label_smoothing)


@provided(torch_kernels.cross_entropy)
def _cross_entropy(be: Any, input: Any, target: Any, weight: Any, ignore_index: int, red: str,
                   label_smoothing: float) -> Any:
    class_dim = 1 if input.ndim > 1 else 0
    n_classes = input.shape[class_dim]
    logp = log_softmax_raw(be, input, class_dim)
    w_b = None if weight is None else weight.reshape((-1,) + (1,) * (input.ndim - class_dim - 1))
    if target.dtype.kind == "f":  # class probabilities
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / n_classes
        prod = logp * target if w_b is None else logp * target * w_b
        loss = -be.np.sum(prod, axis=class_dim)
        if red == "mean":
            return be.np.sum(loss) / input.dtype.type(max(input.size // max(n_classes, 1), 1)) \
                if input.ndim > 1 else loss
        return reduce_loss(be, loss, red)
    nll = nll_loss(be, logp, target, weight, None, ignore_index, None, red)
    if label_smoothing <= 0:
        return nll
    keep = target != ignore_index
    smooth = -be.np.sum(logp if w_b is None else logp * w_b, axis=class_dim)
    smooth = be.np.where(keep, smooth, input.dtype.type(0))
    if red == "mean":
        if weight is None:
            smooth = be.np.sum(smooth) / be.np.sum(keep)
        else:
            _, hot = _picked(be, _class_last(logp, be), target, n_classes)
            smooth = be.np.sum(smooth) / be.np.sum(be.np.where(hot & keep[..., None], weight, 0))
    elif red == "sum":
        smooth = be.np.sum(smooth)
    return ((1 - label_smoothing) * nll + smooth * (label_smoothing / n_classes)).astype(input.dtype)


@op(method=False, torch=torch_names("cosine_similarity", NN, function=True))
def cosine_similarity(be: Any, x1: Any, x2: Any,
                      dim: Annotated[int, DimOf(("x1", "x2"), vector_if_scalar=True)] = 1,
                      eps: float = 1e-8) -> Any:
    """sum((x1 / max(||x1||, eps)) * (x2 / max(||x2||, eps))) along ``dim`` (torch's order)."""
    x1, x2 = be.np.broadcast_arrays(x1, x2)
    if x1.ndim == 0:  # torch: 0-d operands are one element along dim 0 (or -1)
        return cosine_similarity(be, x1[None], x2[None], 0, eps)  # a 0-d result
    e = x1.dtype.type(eps)
    n1 = be.np.maximum(be.np.sqrt(be.np.sum(x1 * x1, axis=dim, keepdims=True)), e)
    n2 = be.np.maximum(be.np.sqrt(be.np.sum(x2 * x2, axis=dim, keepdims=True)), e)
    return be.np.sum((x1 / n1) * (x2 / n2), axis=dim)


@op(method=False, torch=torch_names("margin_ranking_loss", NN, function=True))
def margin_ranking_loss(be: Any, input1: Any, input2: Any, target: Any, margin: float = 0.0,
                        size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Any:
    """max(0, -y (x1 - x2) + margin)."""
    input1, input2 = float_input(be, input1), float_input(be, input2)
    loss = be.np.maximum(-target * (input1 - input2) + margin, 0)
    return reduce_loss(be, loss.astype(input1.dtype), reduction_arg(size_average, reduce, reduction))


@op(method=False, torch=torch_names("hinge_embedding_loss", NN, function=True))
def hinge_embedding_loss(be: Any, input: Any, target: Any, margin: float = 1.0,
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Any:
    """x where y != -1, plus max(0, margin - x) where y != 1 (torch's rule, other y too)."""
    zero = input.dtype.type(0)
    pos = be.np.where(target != -1, input, zero)
    neg = be.np.where(target != 1, be.np.maximum(margin - input, zero), zero)
    return reduce_loss(be, (pos + neg).astype(input.dtype),
                       reduction_arg(size_average, reduce, reduction))


@op(method=False, torch=torch_names("poisson_nll_loss", NN, function=True))
def poisson_nll_loss(be: Any, input: Any, target: Any, log_input: bool = True, full: bool = False,
                     size_average: Any = None, eps: float = 1e-8, reduce: Any = None,
                     reduction: str = "mean") -> Any:
    """exp(x) - y x (log_input) or x - y log(x + eps); ``full`` adds Stirling's term."""
    input = float_input(be, input)
    loss = be.np.exp(input) - target * input if log_input else \
        input - target * be.np.log(input + input.dtype.type(eps))
    if full:
        safe = be.np.where(target > 1, target, 1)
        stirling = safe * be.np.log(safe) - safe + 0.5 * be.np.log(2 * math.pi * safe)
        loss = loss + be.np.where(target > 1, stirling, 0)
    return reduce_loss(be, loss.astype(input.dtype), reduction_arg(size_average, reduce, reduction))


@op(method=False, torch=torch_names("gaussian_nll_loss", NN))
def gaussian_nll_loss(be: Any, input: Any, target: Any, var: Any, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> Any:
    """0.5 (log(max(var, eps)) + (x - y)^2 / max(var, eps)) (+ 0.5 log(2 pi) if ``full``)."""
    if getattr(var, "ndim", 0) == input.ndim - 1 or (getattr(var, "ndim", 0) and
                                                   var.shape[-1] != input.shape[-1]):
        var = var[..., None] if getattr(var, "ndim", 0) == input.ndim - 1 else var
    v = be.np.maximum(var, input.dtype.type(eps))
    loss = 0.5 * (be.np.log(v) + be.np.square(input - target) / v)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return reduce_loss(be, loss.astype(input.dtype), reduction)


@op(method=False, torch=torch_names("cosine_embedding_loss", NN, function=True))
def cosine_embedding_loss(be: Any, input1: Any, input2: Any, target: Any, margin: float = 0.0,
                          size_average: Any = None, reduce: Any = None,
                          reduction: str = "mean") -> Any:
    """1 - cos where y == 1, max(0, cos - margin) where y == -1 (cos along the last dim)."""
    input1, input2 = float_input(be, input1), float_input(be, input2)
    eps = input1.dtype.type(1e-12)
    dot = be.np.sum(input1 * input2, axis=-1)
    mag = be.np.sqrt((be.np.sum(input1 * input1, axis=-1) + eps) *
                     (be.np.sum(input2 * input2, axis=-1) + eps))
    cos = dot / mag
    zero = cos.dtype.type(0)
    loss = be.np.where(target == 1, 1 - cos, zero) + \
        be.np.where(target == -1, be.np.maximum(cos - margin, zero), zero)
    return reduce_loss(be, loss.astype(input1.dtype), reduction_arg(size_average, reduce, reduction))


@op(method=False, torch=torch_names("multilabel_soft_margin_loss", NN))
def multilabel_soft_margin_loss(be: Any, input: Any, target: Any, weight: Any = None,
                                size_average: Any = None, reduce: Any = None,
                                reduction: str = "mean") -> Any:
    """Mean over classes of the binary logistic loss."""
    log_sig = be.np.minimum(input, 0) - be.np.log1p(be.np.exp(-be.np.abs(input)))
    loss = -(target * log_sig + (1 - target) * (log_sig - input))
    if weight is not None:
        loss = loss * weight
    loss = be.np.mean(loss, axis=-1).astype(input.dtype)
    return reduce_loss(be, loss, reduction_arg(size_average, reduce, reduction))


@op(method=False, torch=torch_names("linear_cross_entropy", NN))
def linear_cross_entropy(be: Any, input: Any, linear_weight: Any, target: Any, *,
                         linear_bias: Any = None, weight: Any = None, reduction: str = "mean",
                         ignore_index: int | None = None, label_smoothing: float = 0.0,
                         options: Any = None) -> Any:
    """cross_entropy(linear(input, linear_weight, linear_bias), target), torch's checks
    included. torch's chunked path (``options``) computes the same loss in batch chunks to
    save memory; here the options are validated as torch does and the loss computed whole
    (the chunking is a memory plan; a lazy backend plans its own)."""
    if input.ndim not in (1, 2):
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.ndim}")
    if linear_weight.ndim < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.ndim}")
    batches, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(f"expected equal input and linear_weight last dimensions "
                           f"(in_features), got {in_features} and {linear_weight.shape[-1]}, "
                           "respectively")
    num_classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, "
                           f"(N, {in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    logits_shape = (*batches, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    if options is not None and not out_features and reduction in ("mean", "sum", "none") \
            and label_smoothing == 0.0 and target.dtype == dtypes.int64:
        # torch's own validation of the options (a chunk size that contradicts the method)
        options._adjust(num_batches=batches[0] if batches else 1, in_features=in_features,
                        num_classes=num_classes, dtype=None)
    w = linear_weight
    if out_features:
        w = w.reshape((math.prod(out_features) * num_classes, in_features))
    b = None if linear_bias is None else linear_bias.reshape(-1)
    logits = linear(be, input, w, b).reshape(logits_shape)
    return cross_entropy(be, logits, target, weight,
                         ignore_index=-100 if ignore_index is None else ignore_index,
                         reduction=reduction, label_smoothing=label_smoothing)
