"""torch.nn.functional's activations and the softmax family on backend arrays.

Each entry answers ``torch.nn.functional.<name>`` (and ``torch.<name>`` /
``torch.Tensor.<name>`` where torch has them).  Integer inputs of floating functions
take the default float, as in torch.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

import numpy as np

from ... import dtypes
from ...backends.registry import python_value
from ...errors import UnsupportedDtypeError
from .._args import float_input, ordered, special_module
from ..annotations import Dim, DimOf, DType
from ..registry import op, torch_names
from . import torch_kernels
from .common import NN, in_place
from .kernels import provided


def erf(be: Any, x: Any) -> Any:
    """The error function from the backend's scipy.special (torch's exact GELU needs it)."""
    return special_module(be, "erf").erf(x)


# ------------------------------------------------------------------ activations
@op(method=True, inplace=True,
    torch=(*torch_names("relu", NN, function=True, method=True), "torch.Tensor.relu_"))
def relu(be: Any, input: Any, inplace: bool = False) -> Any:
    """max(x, 0), keeping the dtype (integers stay integers, as in torch).

    >>> interop.relu(interop.tensor([-1.0, 2.0]))
    tensor([0., 2.], backend='numpy')
    """
    ordered("relu", input)
    return in_place(be, input, be.np.maximum(input, input.dtype.type(0)), inplace)


def _activation(name: str, fn: Any, doc: str, *, torch_fn: bool = False,
                keep_int: bool = False) -> None:
    """Register an activation ``fn(be, x, **options)`` with torch's ``inplace=``; integer
    inputs become the default float unless ``keep_int`` (torch keeps them for clamps)."""
    def impl(be: Any, input: Any, *args: Any, inplace: bool = False, **kwargs: Any) -> Any:
        x = input if keep_int else float_input(be, input)
        return in_place(be, input, fn(be, x, *args, **kwargs), inplace)
    impl.__name__, impl.__doc__ = name, doc
    op(name, method=False, torch=torch_names(name, NN, function=torch_fn))(impl)


def _hardtanh(be: Any, x: Any, min_val: float = -1.0, max_val: float = 1.0) -> Any:
    ordered("hardtanh", x)
    return be.np.clip(x, x.dtype.type(min_val), x.dtype.type(max_val))


def _leaky(be: Any, x: Any, negative_slope: float = 0.01) -> Any:
    return be.np.where(x > 0, x, x * x.dtype.type(negative_slope))


def _elu(be: Any, x: Any, alpha: float = 1.0, scale: float = 1.0) -> Any:
    t = x.dtype.type
    return t(scale) * be.np.where(x > 0, x, t(alpha) * be.np.expm1(be.np.minimum(x, t(0))))


def _selu(be: Any, x: Any) -> Any:
    return _elu(be, x, 1.6732632423543772848170429916717, 1.0507009873554804934193349852946)


def _celu(be: Any, x: Any, alpha: float = 1.0) -> Any:
    t = x.dtype.type
    return be.np.where(x > 0, x, t(alpha) * be.np.expm1(be.np.minimum(x, t(0)) / t(alpha)))


def _softplus_raw(be: Any, x: Any, beta: float = 1.0, threshold: float = 20.0) -> Any:
    t = x.dtype.type
    bx = x * t(beta)
    soft = be.np.log1p(be.np.exp(be.np.minimum(bx, t(threshold)))) / t(beta)
    return be.np.where(bx > threshold, x, soft)


def _sigmoid(be: Any, x: Any) -> Any:
    return 1 / (1 + be.np.exp(-x))


_activation("relu6", lambda be, x: _hardtanh(be, x, 0.0, 6.0), "min(max(x, 0), 6).",
            keep_int=True)
_activation("hardtanh", _hardtanh, "x clipped to [min_val, max_val].", keep_int=True)
_activation("leaky_relu", _leaky, "x for x > 0, else negative_slope * x.")
_activation("elu", _elu, "x for x > 0, else alpha * (exp(x) - 1).")
_activation("selu", lambda be, x: _selu(be, x), "Scaled ELU.", torch_fn=True)
_activation("celu", _celu, "x for x > 0, else alpha * (exp(x / alpha) - 1).", torch_fn=True)
_activation("silu", lambda be, x: x * _sigmoid(be, x), "x * sigmoid(x).")
_activation("hardsigmoid", lambda be, x: be.np.clip(x / 6 + x.dtype.type(0.5), 0, 1),
            "Piecewise-linear sigmoid.")
_activation("hardswish", lambda be, x: x * be.np.clip(x / 6 + x.dtype.type(0.5), 0, 1),
            "x * hardsigmoid(x).")
_activation("mish", lambda be, x: x * be.np.tanh(_softplus_raw(be, x)), "x * tanh(softplus(x)).")


@op(method=False, torch=torch_names("gelu", NN))
def gelu(be: Any, input: Any, approximate: str = "none") -> Any:
    """x * Phi(x): exact (erf) or torch's tanh approximation (``approximate='tanh'``)."""
    x = float_input(be, input)
    t = x.dtype.type
    if approximate == "tanh":
        inner = t(math.sqrt(2 / math.pi)) * (x + t(0.044715) * x * x * x)
        return t(0.5) * x * (1 + be.np.tanh(inner))
    if approximate != "none":
        raise RuntimeError(f"gelu: approximate argument must be either none or tanh, "
                           f"got {approximate!r}")
    return (t(0.5) * x * (1 + erf(be, x * t(1 / math.sqrt(2))))).astype(x.dtype)


@op(method=False, torch=torch_names("softplus", NN))
def softplus(be: Any, input: Any, beta: float = 1.0, threshold: float = 20.0) -> Any:
    """log(1 + exp(beta x)) / beta, linear above ``threshold``."""
    return _softplus_raw(be, float_input(be, input), beta, threshold)


@op(method=False, torch=torch_names("logsigmoid", NN))
def logsigmoid(be: Any, input: Any) -> Any:
    """log(sigmoid(x)), computed stably."""
    x = float_input(be, input)
    return be.np.minimum(x, 0) - be.np.log1p(be.np.exp(-be.np.abs(x)))


@op(method=False, torch=torch_names("softsign", NN))
def softsign(be: Any, input: Any) -> Any:
    """x / (1 + |x|)."""
    x = float_input(be, input)
    return x / (1 + be.np.abs(x))


@op(method=False, torch=torch_names("tanhshrink", NN))
def tanhshrink(be: Any, input: Any) -> Any:
    """x - tanh(x)."""
    x = float_input(be, input)
    return x - be.np.tanh(x)


@op(method=False, torch=torch_names("threshold", NN, function=True))
def threshold(be: Any, input: Any, threshold: float, value: float, inplace: bool = False) -> Any:
    """x where x > threshold, else value (the dtype kept)."""
    value = python_value(value, "threshold(): value")  # a number, as torch's Scalar
    out = be.np.where(input > threshold, input, input.dtype.type(value))
    return in_place(be, input, out, inplace)


@op(method=True, torch=torch_names("hardshrink", NN, function=True, method=True))
def hardshrink(be: Any, input: Any, lambd: float = 0.5) -> Any:
    """x where |x| > lambd, else 0."""
    return be.np.where(be.np.abs(input) > lambd, input, input.dtype.type(0))


@op(method=False, torch=torch_names("softshrink", NN))
def softshrink(be: Any, input: Any, lambd: float = 0.5) -> Any:
    """x -+ lambd outside [-lambd, lambd], else 0."""
    t = input.dtype.type
    return be.np.where(input > lambd, input - t(lambd),
                       be.np.where(input < -lambd, input + t(lambd), t(0)))


@op(method=False, torch=torch_names("glu", NN))
def glu(be: Any, input: Any, dim: Dim = -1) -> Any:
    """a * sigmoid(b), the halves of ``dim``."""
    d = dim
    if input.shape[d] % 2:
        raise RuntimeError(f"glu: Halving dimension must be even, but dimension {d} is size "
                           f"{input.shape[d]}")
    half = input.shape[d] // 2
    first = (slice(None),) * d
    return input[first + (slice(None, half),)] * _sigmoid(be, input[first + (slice(half, None),)])


@op(method=False, torch=torch_names("prelu", NN, function=True))
def prelu(be: Any, input: Any, weight: Any) -> Any:
    """x for x > 0, else weight * x (one weight, or one per channel of dim 1)."""
    w = weight.reshape((-1,) + (1,) * (input.ndim - 2)) if weight.size > 1 and input.ndim > 1 \
        else be.np.reshape(weight, ())
    return be.np.where(input > 0, input, w * input).astype(input.dtype)


@op(method=False, torch=torch_names("rrelu", NN, function=True))
def rrelu(be: Any, input: Any, lower: float = 1 / 8, upper: float = 1 / 3,
          training: bool = False, inplace: bool = False) -> Any:
    """Eval mode: leaky ReLU with slope (lower + upper) / 2 (training draws random slopes)."""
    if training:
        raise NotImplementedError("rrelu(training=True) draws random slopes; interop implements "
                                  "the eval form only (training=False)")
    return in_place(be, input, _leaky(be, float_input(be, input), (lower + upper) / 2), inplace)


# ------------------------------------------------------------------ softmax family
def _softmax_dim(dim: int | None, ndim: int) -> int | None:
    """``dim`` (already normalised), or torch's legacy implicit choice where it is None."""
    if ndim == 0:
        return None
    return (0 if ndim in (1, 3) else 1) if dim is None else dim


def _softmax_input(be: Any, input: Any, dtype: Any) -> Any:
    if dtype is not None:
        return input.astype(dtype)
    if dtypes.kind(input.dtype) in "biu":  # torch's kernels have no integer form
        raise UnsupportedDtypeError(f'softmax: "softmax_lastdim_kernel_impl" not implemented '
                                    f"for {input.dtype}; pass dtype=torch.float32 or convert "
                                    "with .float()")
    return float_input(be, input)


@provided(torch_kernels.log_softmax)
def log_softmax_raw(be: Any, x: Any, d: Any) -> Any:
    if x.size == 0:
        return x.copy()
    shifted = x - be.np.max(x, axis=d, keepdims=True)  # an infinite max gives nan, as torch
    return shifted - be.np.log(be.np.sum(be.np.exp(shifted), axis=d, keepdims=True))


@op(method=True, torch=torch_names("softmax", NN, function=True, method=True))
def softmax(be: Any, input: Any, dim: Dim | None = None, _stacklevel: int = 3,
            dtype: DType = None) -> Any:
    """exp(x) / sum(exp(x)) along ``dim``, computed stably.

    >>> interop.softmax(interop.tensor([[0.0, 0.0], [0.0, 1.0]]), dim=1)
    tensor([[0.5000, 0.5000],
            [0.2689, 0.7311]], backend='numpy')
    """
    x = _softmax_input(be, input, dtype)
    return softmax_raw(be, x, _softmax_dim(dim, x.ndim))


@provided(torch_kernels.softmax)
def softmax_raw(be: Any, x: Any, d: Any) -> Any:
    if x.size == 0:
        return x.copy()
    e = be.np.exp(x - be.np.max(x, axis=d, keepdims=True))  # an infinite max gives nan, as torch
    return e / be.np.sum(e, axis=d, keepdims=True)


@op(method=True, torch=torch_names("log_softmax", NN, function=True, method=True))
def log_softmax(be: Any, input: Any, dim: Dim | None = None, _stacklevel: int = 3,
                dtype: DType = None) -> Any:
    """x - logsumexp(x) along ``dim``.

    >>> interop.log_softmax(interop.tensor([0.0, 0.0]), dim=0)
    tensor([-0.6931, -0.6931], backend='numpy')
    """
    x = _softmax_input(be, input, dtype)
    return log_softmax_raw(be, x, _softmax_dim(dim, x.ndim))


@op(function=False, method=False, torch=torch_names("_log_softmax", "aten"))
def _log_softmax(be: Any, input: Any, dim: Dim, half_to_float: bool) -> Any:
    """ATen's log_softmax (``half_to_float``: a float16 input gives float32)."""
    x = input.astype(np.float32) if half_to_float else input
    return x - x if x.ndim == 0 else log_softmax_raw(be, x, dim)


@op(function=False, method=False, torch=torch_names("_log_softmax_backward_data", "aten"))
@provided(torch_kernels.log_softmax_backward)
def _log_softmax_backward_data(be: Any, grad_output: Any, output: Any,
                               dim: Annotated[int, DimOf("output")], input_dtype: Any) -> Any:
    """The gradient of log_softmax's input from its output's: ``g - exp(y) * sum(g)`` along
    ``dim`` (torch's CPU kernel keeps the gradient's dtype)."""
    if output.ndim == 0:
        return grad_output - grad_output
    total = be.np.sum(grad_output, axis=dim, keepdims=True)
    return grad_output - be.np.exp(output) * total


@op(function=False, method=False, torch=torch_names("threshold_backward", "aten"))
@provided(torch_kernels.aten("threshold_backward"))
def threshold_backward(be: Any, grad_output: Any, input: Any, threshold: float) -> Any:
    """The gradient of threshold (ReLU's: 0): passed where the input is above it, else 0."""
    return be.np.where(input <= threshold, grad_output.dtype.type(0), grad_output)


@op(method=False, torch=torch_names("softmin", NN))
def softmin(be: Any, input: Any, dim: Dim | None = None, _stacklevel: int = 3,
            dtype: DType = None) -> Any:
    """softmax(-x)."""
    return softmax(be, -_softmax_input(be, input, dtype), dim)


@op(method=False,
    torch=("torch._safe_softmax", "aten._safe_softmax.default", "aten._safe_softmax"))
def _safe_softmax(be: Any, input: Any, dim: Dim, dtype: DType = None) -> Any:
    """softmax, with 0 (not nan) along ``dim`` where every input is -inf (attention rows
    whose every position is masked); those rows are never exponentiated."""
    if input.ndim == 0 or input.size == 0:
        return softmax(be, input, dim, dtype=dtype)
    masked = be.np.all(input == -np.inf, axis=dim, keepdims=True)
    out = softmax(be, be.np.where(masked, input.dtype.type(0), input), dim, dtype=dtype)
    return be.np.where(masked, out.dtype.type(0), out)
