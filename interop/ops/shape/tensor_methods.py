"""torch.Tensor surface that op_db exercises and no other family holds: the ``H``/``mH``
conjugate transposes, the ``new_*`` constructors (a tensor on the same backend and
device as ``self``), ``sum_to_size``, the identity ``resolve_conj``/``resolve_neg``
(interop keeps no lazy conjugate or negative bits, so there is nothing to resolve) and
the in-place ``resize_``/``resize_as_``, which give the tensor itself a new array.
"""

from __future__ import annotations

import math
from typing import Any

from ... import dtypes
from ...backends import views
from ...errors import ShapeError
from .._args import size_arg
from ..attributes import to
from ..reductions.aggregates import _acc_dtype
from ..registry import SIZE, op
from .manipulation import _reshape as reshape_any


def _conj(be: Any, x: Any) -> Any:
    return be.np.conj(x) if x.dtype.kind == "c" else x


@op("H", function=False, property=True, torch=("torch.Tensor.H.__get__",))
def H(be: Any, input: Any) -> Any:  # noqa: N802
    """Conjugate transpose of a matrix (0-d: the conjugate)."""
    if input.ndim not in (0, 2):
        raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{input.ndim}-D tensor; use .mH for batches of matrices")
    return _conj(be, views.permuted(be.np.transpose(input), input, range(input.ndim)[::-1]))


@op("mH", function=False, property=True, torch=("torch.Tensor.mH.__get__",))
def mH(be: Any, input: Any) -> Any:  # noqa: N802
    """Conjugate transpose of the last two dimensions (batches of matrices)."""
    if input.ndim < 2:
        raise RuntimeError("tensor.mH is only supported on matrices or batches of matrices. "
                           f"Got {input.ndim}-D tensor.")
    axes = [*range(input.ndim - 2), input.ndim - 1, input.ndim - 2]
    return _conj(be, views.permuted(be.np.swapaxes(input, -1, -2), input, axes))


def _new(be: Any, input: Any, fn: str, size: Any, *fill: Any, dtype: Any, device: Any) -> Any:
    """``fn`` ('zeros', 'full', ...) of ``size`` on ``input``'s backend, in its dtype unless
    ``dtype`` says otherwise; ``device`` moves the result explicitly, as ``.to`` does."""
    shape = size_arg(size)
    if any(s < 0 for s in shape):
        raise ShapeError(f"new_{fn}(): Dimension size must be non-negative, got size "
                         f"{list(shape)}; pass sizes of 0 or more")
    dt = dtypes.as_dtype(dtype) or be.dtype_of(input)
    out = be.create(fn, shape, *fill, dtype=dt, device=be.device_of(input))
    if device is not None:
        out = to(be, out, device=device)
    return out


def _new_filled(fn: str, doc: str) -> Any:
    def impl(be: Any, input: Any, *size: Any, dtype: Any = None, device: Any = None,
             requires_grad: bool = False, layout: Any = None, pin_memory: bool = False) -> Any:
        return _new(be, input, fn, size, dtype=dtype, device=device)
    impl.__name__, impl.__doc__ = f"new_{fn}", doc
    return impl


for _fn, _doc in (("zeros", "0s of ``size``, ``self``'s dtype and backend."),
                  ("ones", "1s of ``size``, ``self``'s dtype and backend."),
                  ("empty", "Uninitialised, of ``size``, ``self``'s dtype and backend.")):
    op(f"new_{_fn}", function=False, keywords=SIZE)(_new_filled(_fn, _doc))


@op(function=False)
def new_full(be: Any, input: Any, size: Any, fill_value: Any, *, dtype: Any = None,
             device: Any = None, requires_grad: bool = False, layout: Any = None,
             pin_memory: bool = False) -> Any:
    """``fill_value`` of ``size`` in ``self``'s dtype (cast, as torch: 1.5 -> 1 for ints)."""
    return _new(be, input, "full", size, fill_value, dtype=dtype, device=device)


@op(function=False)
def new_empty_strided(be: Any, input: Any, size: Any, stride: Any, *, dtype: Any = None,
                      device: Any = None, requires_grad: bool = False, layout: Any = None,
                      pin_memory: bool = False) -> Any:
    """Uninitialised, of ``size``; ``stride`` is not kept (backends choose their layout)."""
    return _new(be, input, "empty", size, dtype=dtype, device=device)


@op(function=False, keywords=SIZE)
def sum_to_size(be: Any, input: Any, *size: Any) -> Any:
    """Sum ``input`` down to ``size``, a shape it broadcasts from (gradient reduction)."""
    shape = size_arg(size)
    lead = input.ndim - len(shape)
    if lead < 0 or any(s not in (1, n) for s, n in zip(shape, input.shape[lead:])):
        raise RuntimeError(f"sum_to_size: size {list(shape)} is not expandable to size "
                           f"{list(input.shape)}; pass a shape that broadcasts to the tensor's")
    if not shape:  # torch sums everything for size (), 0-d inputs included
        return input.sum(dtype=_acc_dtype(input, None))
    kept = tuple(lead + i for i, (s, n) in enumerate(zip(shape, input.shape[lead:]))
                 if s == 1 and n != 1)
    if not kept and not lead:
        return input
    out = input.sum(axis=kept, keepdims=True, dtype=_acc_dtype(input, None)) if kept else input
    return out.sum(axis=tuple(range(lead)), dtype=_acc_dtype(input, None)) if lead else out


def _identity(name: str) -> Any:
    def impl(be: Any, input: Any) -> Any:
        return input
    impl.__name__ = name
    impl.__doc__ = "The tensor itself: interop keeps no lazy conjugate or negative bit."
    return impl


for _name in ("resolve_conj", "resolve_neg"):
    op(_name)(_identity(_name))


def _resized(be: Any, input: Any, shape: tuple, name: str) -> Any:
    """``input``'s elements in row-major order, as many as ``shape`` holds, then zeros.

    torch keeps the storage: shrinking keeps its leading elements (a view here too, where
    the backend has views and ``input`` is contiguous), growing leaves the new ones
    uninitialised (zeros here).  torch reads a non-contiguous tensor's storage in memory
    order; interop has no storage to read, so it takes the elements in row-major order
    (the same for contiguous tensors, the usual targets of ``resize_``)."""
    if any(s < 0 for s in shape):
        raise RuntimeError(f"{name}: Trying to create tensor with negative dimension "
                           f"{min(shape)}: {list(shape)}; pass sizes of 0 or more")
    if tuple(shape) == tuple(input.shape):
        return input  # torch keeps the tensor (and its strides) as they are
    n, size = math.prod(shape), math.prod(input.shape)
    flat = reshape_any(be, input, (-1,))
    if n <= size:
        flat = flat[:n]
    else:
        zeros = be.create("zeros", (n - size,), dtype=input.dtype, device=be.device_of(input))
        flat = be.np.concatenate([flat, zeros])
    return reshape_any(be, flat, tuple(shape))


@op("resize_", function=False, rebinds=True, torch=("torch.Tensor.resize_",), keywords=SIZE)
def resize_(be: Any, input: Any, *size: Any, memory_format: Any = None) -> Any:
    """Give the tensor itself the shape ``size``: shrinking keeps its leading elements in
    row-major order, growing adds elements whose values are unspecified (zeros)."""
    return _resized(be, input, size_arg(size), "resize_")


@op("resize_as_", rebinds=True,
    torch=("torch.resize_as_", "torch.Tensor.resize_as_"))
def resize_as_(be: Any, input: Any, the_template: Any, *, memory_format: Any = None) -> Any:
    """``input.resize_(the_template.shape)``: only the template's shape is read, so it may
    sit on any backend or device."""
    return _resized(be, input, tuple(the_template.shape), "resize_as_")
