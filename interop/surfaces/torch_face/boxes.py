"""Between the two faces: interop tensors boxed as ``TorchTensor``s (torch's metadata read from
the array) and ATen arguments unboxed to interop tensors.

A plain torch tensor among the arguments (a constant torch code made, a gradient seed) comes in
as data, without a copy where DLPack allows (CPU tensors as NumPy arrays, CUDA ones as CuPy), and
the operation table's promotion policy joins it to the other operands, as it would on the plain
facade.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from ... import dtypes
from ...backends import registry
from ...backends.dlpack import foreign_to_raw
from ...config import check_value_read
from ...core.tensor import Tensor, make
from ...errors import BackendLacksError, DaskComputeError, UnknownShapeError

TORCH: Any = None
"""The torch module, once the face is made (``bind``): nothing here imports torch."""
TorchTensor: Any = None
"""``interop.TorchTensor``, once made."""

_torch_dtypes: dict[Any, Any] = {}  # a backend's dtype -> torch's dtype of the same name
_torch_devices: dict[str, Any] = {}  # interop's device ("cpu", "cuda:0") -> torch.device
_placements: dict[tuple, tuple] = {}  # (array type, dtype) -> (torch dtype, torch device)
_strides: dict[tuple, tuple | None] = {}  # (strides in bytes, itemsize) -> in elements
_UNSEEN = object()
_SEQUENCES = (list, tuple)
PLAIN = frozenset({int, float, bool, type(None)})
"""Argument types that need no unboxing."""
_this_thread = threading.local()


def lazy_scalars() -> weakref.WeakSet:
    """The lazy 0-d faces this thread made since a training step last took them (a loss, a
    metric): ``training.py`` persists those still alive with the step's state.  Per thread, as
    a loop is: a step never takes another thread's losses (nor iterates a set it fills)."""
    found = getattr(_this_thread, "scalars", None)
    if found is None:
        found = _this_thread.scalars = weakref.WeakSet()
    return found


def bind(cls: type, torch: Any) -> None:
    """Called once, when ``TorchTensor`` is made."""
    global TORCH, TorchTensor
    TORCH, TorchTensor = torch, cls


def torch_dtype(dtype: Any) -> Any:
    """torch's dtype of the same name as a backend's (NumPy's, ml_dtypes' bfloat16)."""
    found = _torch_dtypes.get(dtype)
    if found is None:
        found = _torch_dtypes[dtype] = getattr(TORCH, dtype.name)
    return found


def torch_device(device: Any) -> Any:
    """The ``torch.device`` of an interop device (a Dask tensor's is its chunks'); a device
    torch lacks (interop's test devices) is refused naming it."""
    found = _torch_devices.get(device)
    if found is None:
        found = _torch_devices[device] = device.to_torch()
    return found


def element_strides(raw: Any) -> tuple | None:
    """The array's strides in elements, as torch counts them, where its library has strides
    torch can state (NumPy's, CuPy's: not negative ones); None: contiguous (Dask's chunks
    have none until computed; an empty array's say nothing).  torch reads them to choose
    between a view and a copy (``reshape``), so they must be the array's own."""
    strides = getattr(raw, "strides", None)
    if strides is None or 0 in raw.shape:
        return None
    key = (strides, raw.itemsize)
    found: Any = _strides.get(key, _UNSEEN)
    if found is _UNSEEN:
        size = raw.itemsize
        found = None if any(s < 0 or s % size for s in strides) else \
            tuple(s // size for s in strides)
        if len(_strides) > 4096:
            _strides.clear()
        _strides[key] = found
    return found


def placement(raw: Any) -> tuple[Any, Any]:
    """(torch dtype, torch device) of a backend array; remembered per array type and dtype
    for the backends whose arrays all sit on one device (NumPy's)."""
    key = (type(raw), raw.dtype)
    found = _placements.get(key)
    if found is None:
        be = registry.backend_of(raw)
        found = (torch_dtype(be.dtype_of(raw)), torch_device(be.device_of(raw)))
        if not be.multi_device and not be.lazy:
            _placements[key] = found
    return found


def box(t: Tensor, requires_grad: bool = False) -> Any:
    """A ``TorchTensor`` over interop tensor ``t`` (no copy)."""
    raw = t._raw
    dtype, device = placement(raw)
    try:
        obj = TorchTensor._make_wrapper_subclass(
            TorchTensor, raw.shape, strides=element_strides(raw), dtype=dtype, device=device,
            requires_grad=requires_grad)
    except TypeError:
        if not any(n != n for n in raw.shape):
            raise
        learn_sizes(t)
        return box(t, requires_grad)
    obj._t = t
    if not raw.ndim and registry.owner(raw).lazy:
        lazy_scalars().add(obj)
    return obj


def learn_sizes(t: Tensor) -> None:
    """Sizes a lazy tensor does not know yet (from boolean masking, ``unique``, ``nonzero``)
    learned in place, as Dask's ``compute_chunk_sizes`` does: torch's sizes must be known.
    It is a compute, so ``interop.config(dask_compute=...)`` decides; where it forbids one, or
    the backend cannot learn them, the error says how to."""
    raw = t._raw
    shape = tuple(raw.shape)
    unknown = (f"interop.TorchTensor: a lazy tensor of unknown size {shape} (from boolean "
               "masking, unique or nonzero) cannot be a torch tensor, whose sizes are known")
    try:
        check_value_read("making a torch tensor of it",
                         f"the chunk sizes of a lazy tensor of shape {shape}")
        registry.backend_of(raw).compute_chunk_sizes(raw)
    except DaskComputeError as exc:
        raise UnknownShapeError(f"{unknown}; call t.compute_chunk_sizes() first ({exc})") \
            from None
    except BackendLacksError:
        raise UnknownShapeError(f"{unknown}; compute it first (t.compute())") from None


def restate(face: Any) -> None:
    """``face``'s sizes and strides made its array's again, after an operation that changed
    its array's shape in place (``squeeze_``, ``resize_``, an ``out=`` resized)."""
    TORCH._C.TensorBase.data.__set__(face, box(face._t))


def boxed(out: Any) -> Any:
    """An operation's results as torch expects them: interop tensors boxed, tuples (named
    ones too) as plain tuples, anything else (numbers, None) as it is."""
    if isinstance(out, Tensor):
        return box(out)
    if isinstance(out, _SEQUENCES):
        return type(out)(boxed(x) for x in out) if type(out) in _SEQUENCES else \
            tuple(boxed(x) for x in out)
    return out


def first_face(args: Any) -> Any:
    """The first TorchTensor among ``args`` (lists searched too), or None."""
    for a in args:
        if type(a) is TorchTensor:
            return a
        if type(a) is list or type(a) is tuple:
            found = first_face(a)
            if found is not None:
                return found
    return None


def unboxed(x: Any) -> Any:
    """An ATen argument for the operation table: a ``TorchTensor`` as its interop tensor, a
    plain torch tensor as an interop tensor over its data, lists of them likewise, a torch
    dtype as NumPy's."""
    t = type(x)
    if t is TorchTensor:
        return x._t
    if t is list or t is tuple:
        for v in x:
            if type(v) not in PLAIN:
                return t([unboxed(v) for v in x])
        return x  # sizes, dims: as they are
    if isinstance(x, TORCH.Tensor):
        return plain_tensor(x)
    if t is TORCH.dtype:
        return dtypes.as_dtype(x)  # the records' dtypes are NumPy's
    return x


def plain_tensor(x: Any) -> Tensor:
    """A plain torch tensor's data as an interop tensor: no copy where DLPack allows."""
    return make(Tensor, foreign_to_raw(x))
