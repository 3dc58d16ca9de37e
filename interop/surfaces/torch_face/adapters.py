"""The ATen overloads whose arguments say something other than their record's, adapted by
hand (the rest map by name in ``aten``), and the inert argument values any record may ignore.

Each adapter takes the overload's arguments unboxed (interop tensors) and returns interop
results, calling the table's records through their public callables.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import dtypes
from ...ops.nn.loss import REDUCTIONS
from . import batches, boxes, fourier, kernels, linear_algebra, strided, uniques
from .records import record

# ------------------------------------------------------------------ inert argument values
INERT = frozenset({"layout", "pin_memory", "memory_format", "non_blocking", "requires_grad",
                   "implicit"})
"""Arguments ATen passes that no record needs while they hold their inert values."""


ENUMERATIONS = {"reduction": REDUCTIONS}
"""Arguments ATen passes as an enumeration's int that the records take by name."""


def inert(name: str, value: Any, default: Any) -> bool:
    """True if ``value`` of argument ``name`` asks for nothing a dense backend array lacks."""
    if value is None or value is False or value == default:
        return True
    torch = boxes.TORCH
    return (name == "layout" and value == torch.strided) or (
        name == "memory_format" and value in (torch.contiguous_format, torch.preserve_format))


def same_device(device: Any, args: tuple) -> bool:
    """True if ``device`` is where the operation's TorchTensor operands already are."""
    face = boxes.first_face(args)
    return face is not None and boxes.TORCH.device(device) == face.device


# ------------------------------------------------------------------ the adapters
def stack(tensors: list, dim: int = 0) -> Any:
    """``aten.stack``: rows of one array (a ``DataLoader``'s collated batch) as one selection
    of them (``batches``), anything else through the record."""
    rows = batches.rows_taken(tensors, dim)
    return rows if rows is not None else record("torch.stack")(tensors, dim)


def convolution(input: Any, weight: Any, bias: Any, stride: Any, padding: Any, dilation: Any,
                transposed: bool, output_padding: Any, groups: int) -> Any:
    """``aten.convolution``: conv{1,2,3}d, or their transpose when ``transposed``."""
    n = weight.ndim - 2
    if transposed:
        return record(f"torch.nn.functional.conv_transpose{n}d")(
            input, weight, bias, stride, padding, output_padding, groups, dilation)
    return record(f"torch.nn.functional.conv{n}d")(input, weight, bias, stride, padding,
                                                    dilation, groups)


def to_copy(input: Any, *, dtype: Any = None, layout: Any = None, device: Any = None,
            pin_memory: Any = None, non_blocking: bool = False, memory_format: Any = None) -> Any:
    """``aten._to_copy``: a copy in another dtype (or on another device: an explicit move)."""
    here = boxes.torch_device(input.device)
    target = None if device is None or boxes.TORCH.device(device) == here else str(device)
    return record("torch.Tensor.to")(input, dtype=dtype, device=target, copy=True)


def local_scalar(input: Any) -> Any:
    """``aten._local_scalar_dense``: the one value as a Python number (Dask computes)."""
    return record("torch.Tensor.item")(input)


def same_tensor(input: Any, *args: Any, **kwargs: Any) -> Any:
    """``aten.detach``, ``aten.alias``, ``aten.lift_fresh``: a new TorchTensor over the same
    interop tensor, so that a write through either reaches both on every backend (on Dask,
    Cubed and JAX a write rebinds the interop tensor's array: sharing the array is not enough)."""
    return input


def unsafe_view(input: Any, size: Any) -> Any:
    """``aten._unsafe_view``: ``view`` (torch skips its aliasing bookkeeping)."""
    return record("torch.Tensor.reshape")(input, size)


def arange(*bounds: Any, dtype: Any = None, device: Any = None, **inert: Any) -> Any:
    """``aten.arange`` (its three overloads: end; start, end; start, end, step)."""
    return record("torch.arange")(*bounds, dtype=dtype, device=device)


def scalar_tensor(s: Any, *, dtype: Any = None, device: Any = None, **inert: Any) -> Any:
    """``aten.scalar_tensor``: a 0-d tensor of ``s`` (the default float dtype unless given)."""
    return record("torch.full")((), s, dtype=dtype or dtypes.get_default_dtype(), device=device)


def index(input: Any, indices: Any) -> Any:
    """``aten.index.Tensor``: ``input[indices]``, a None in ``indices`` a whole dimension;
    rows of an array without views by a host index, as one selection (``batches``)."""
    rows = batches.rows_indexed(input, indices)
    if rows is not None:
        return rows
    return record("torch.Tensor.__getitem__")(
        input, tuple(slice(None) if i is None else i for i in indices))


def _adaptive_max_pool(n: int) -> Callable[..., Any]:
    def adaptive_max_pool(input: Any, output_size: Any) -> Any:
        """``aten.adaptive_max_pool{n}d``: the pooled values and their indices."""
        return record(f"torch.nn.functional.adaptive_max_pool{n}d")(input, output_size,
                                                                     return_indices=True)
    return adaptive_max_pool


def conj(input: Any) -> Any:
    """``aten._conj``: the conjugate (interop keeps no lazy conjugate bit)."""
    return record("torch.conj")(input)


def conj_physical(input: Any) -> Any:
    return record("torch.conj_physical")(input)


def where(pred: Any, a: Any, b: Any) -> Any:
    """``prims.where``, which torch's reference decompositions call."""
    return record("torch.where")(pred, a, b)


def convert_element_type(a: Any, dtype: Any) -> Any:
    """``prims.convert_element_type``, likewise."""
    return record("torch.Tensor.to")(a, dtype=dtype)


def split(input: Any, split_size: Any, dim: int = 0) -> Any:
    """``aten.split`` and ``aten.split_with_sizes`` (and their ``unsafe_`` forms): views."""
    return record("torch.split")(input, split_size, dim)


def _adaptive_avg_pool(n: int) -> Callable[..., Any]:
    def adaptive_avg_pool(input: Any, output_size: Any) -> Any:
        """``aten._adaptive_avg_pool{n}d``: F.adaptive_avg_pool{n}d."""
        return record(f"torch.nn.functional.adaptive_avg_pool{n}d")(input, output_size)
    return adaptive_avg_pool


ADAPTERS: dict[str, Callable[..., Any]] = {
    **fourier.ADAPTERS,
    **linear_algebra.ADAPTERS,
    **uniques.ADAPTERS,
    **strided.ADAPTERS,
    **kernels.ADAPTERS,
    "aten.arange": arange,
    "aten.index.Tensor": index,
    "aten.scalar_tensor": scalar_tensor,
    "aten._conj": conj, "aten._conj_physical": conj_physical,
    "prims.where": where, "prims.convert_element_type": convert_element_type,
    **dict.fromkeys(("aten.split", "aten.split_with_sizes", "aten.unsafe_split",
                     "aten.unsafe_split_with_sizes"), split),
    **{f"aten.adaptive_max_pool{n}d": _adaptive_max_pool(n) for n in (1, 2, 3)},
    **{f"aten._adaptive_avg_pool{n}d": _adaptive_avg_pool(n) for n in (2, 3)},
    "aten.convolution": convolution,
    "aten.stack.default": stack,
    "aten._to_copy": to_copy,
    "aten._local_scalar_dense": local_scalar,
    "aten.detach": same_tensor,
    "aten.alias": same_tensor,
    "aten.lift_fresh": same_tensor,
    "aten._unsafe_view": unsafe_view,
}
"""ATen names (with or without the overload) -> adapters."""
