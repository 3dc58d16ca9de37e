"""ATen kernels that torch's composite functions reach under names or argument orders of
their own (``torch.cdist`` reaches ``_cdist_forward``, ``F.bilinear`` ``_trilinear``,
``torch.pinverse`` ``linalg_pinv`` with ``atol=0``, ``F.ctc_loss`` ``_ctc_loss``), as the
records of the functions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .records import record

_CDIST_MODES = (None, "use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                "donot_use_mm_for_euclid_dist")


def cdist_forward(x1: Any, x2: Any, p: float, compute_mode: int | None) -> Any:
    """``aten._cdist_forward``: torch.cdist (ATen numbers the compute modes from 0)."""
    mode = None if compute_mode is None else _CDIST_MODES[compute_mode + 1]
    return record("torch.cdist")(x1, x2, p, mode)


def pdist_forward(input: Any, p: float = 2.0) -> Any:
    """``aten._pdist_forward``: F.pdist."""
    return record("torch.nn.functional.pdist")(input, p)


def trilinear(i1: Any, i2: Any, i3: Any, expand1: Any, expand2: Any, expand3: Any,
              sumdim: Any, unroll_dim: int = 1) -> Any:
    """``aten._trilinear`` (F.bilinear's kernel): each operand given the dimensions its
    ``expand`` lists (in increasing order), the three multiplied, ``sumdim`` summed away."""
    def grown(t: Any, dims: Any) -> Any:
        for d in sorted(dims):
            t = record("torch.unsqueeze")(t, d)
        return t
    mul = record("torch.mul")
    product = mul(mul(grown(i1, expand1), grown(i2, expand2)), grown(i3, expand3))
    return record("torch.sum")(product, tuple(sumdim)) if len(sumdim) else product


def searchsorted(sorted_sequence: Any, values: Any, *, out_int32: bool = False,
                 right: bool = False, side: str | None = None, sorter: Any = None) -> Any:
    """``aten.searchsorted.Tensor``, whose ``self`` is the second argument."""
    return record("torch.searchsorted")(sorted_sequence, values, out_int32=out_int32,
                                        right=right, side=side, sorter=sorter)


def linalg_pinv(A: Any, *, atol: Any = None, rtol: Any = None,  # noqa: N803
                hermitian: bool = False) -> Any:
    """``aten.linalg_pinv.atol_rtol_*``: torch.pinverse passes ``atol=0`` (a 0-d tensor torch
    made on the host), which asks for no absolute tolerance, as None does."""
    if atol is not None and float(atol) == 0:
        atol = None
    return record("torch.linalg.pinv")(A, hermitian=hermitian, atol=atol, rtol=rtol)


def randint_like(input: Any, *bounds: Any, dtype: Any = None, **inert: Any) -> Any:
    """``aten.randint_like`` (high; or low, high)."""
    return record("torch.randint_like")(input, *bounds, dtype=dtype)


def resize_(input: Any, size: Any, memory_format: Any = None) -> Any:
    """``aten.resize_``: Tensor.resize_."""
    return record("torch.Tensor.resize_")(input, *size)


def resize(input: Any, size: Any, memory_format: Any = None) -> Any:
    """``aten.resize`` (functional; torch.resize_as_ reaches it): a resized copy."""
    return resize_(record("torch.clone")(input), size)


def repeat_interleave(repeats: Any, *, output_size: Any = None) -> Any:
    """``aten.repeat_interleave.Tensor``: each index ``i`` repeated ``repeats[i]`` times (the
    gather torch.repeat_interleave's composite then makes)."""
    indices = record("torch.arange")(int(repeats.shape[0]), dtype=repeats.dtype,
                                     device=repeats.device)
    return record("torch.repeat_interleave")(indices, repeats, 0, output_size=output_size)


def embedding_renorm_(weight: Any, indices: Any, max_norm: float, norm_type: float) -> Any:
    """``aten.embedding_renorm_`` (F.embedding's ``max_norm=``): the rows ``indices`` name
    whose norm exceeds ``max_norm`` scaled in place to ``max_norm`` (torch's 1e-7 guard)."""
    rows = int(weight.shape[0])
    named = record("torch.isin")(record("torch.arange")(rows, device=weight.device),
                                 record("torch.Tensor.reshape")(indices, (-1,)))
    norms = record("torch.linalg.vector_norm")(weight, norm_type, dim=1, keepdim=True)
    over = record("torch.logical_and")(record("torch.unsqueeze")(named, 1),
                                       record("torch.gt")(norms, max_norm))
    scale = record("torch.where")(over, max_norm / (norms + 1e-7), 1.0)
    return record("torch.Tensor.mul_")(weight, scale)


def ctc_loss(log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any,
             blank: int = 0, zero_infinity: bool = False) -> tuple:
    """``aten._ctc_loss``: (the loss of each sequence, log_alpha).  The record gives the loss,
    not the alpha table, so log_alpha is empty and ``_ctc_loss_backward`` (which reads it) has
    no record: gradients of F.ctc_loss are refused naming it."""
    loss = record("torch.nn.functional.ctc_loss")(log_probs, targets, input_lengths,
                                                  target_lengths, blank, "none", zero_infinity)
    return loss, record("torch.Tensor.new_empty")(log_probs, (0,))


def spherical_bessel_j0(x: Any) -> Any:
    """``prims.spherical_bessel_j0``, which torch.special's reference calls."""
    return record("torch.special.spherical_bessel_j0")(x)


ADAPTERS: dict[str, Callable[..., Any]] = {
    "aten._cdist_forward.default": cdist_forward, "aten._pdist_forward.default": pdist_forward,
    "aten._trilinear.default": trilinear, "aten.searchsorted.Tensor": searchsorted,
    "aten.linalg_pinv.atol_rtol_float": linalg_pinv,
    "aten.linalg_pinv.atol_rtol_tensor": linalg_pinv,
    "aten.randint_like.default": randint_like, "aten.randint_like.low_dtype": randint_like,
    "aten.resize_.default": resize_, "aten.resize.default": resize,
    "aten.repeat_interleave.Tensor": repeat_interleave,
    "aten.embedding_renorm_.default": embedding_renorm_,
    "aten._ctc_loss.default": ctc_loss, "aten._ctc_loss.Tensor": ctc_loss,
    "prims.spherical_bessel_j0": spherical_bessel_j0}
