"""DLPack intake: foreign arrays (torch, JAX, any producer) in, zero-copy.

Host data comes in as NumPy arrays, GPU data as CuPy arrays; a torch tensor is
never imported as torch (torch is only touched when the user passes one).  The
other direction, ``Tensor.__dlpack__``, is a surface: ``surfaces/dlpack_export.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import DeviceMismatchError, UnsupportedDtypeError
from ..numpy_compat import FROM_DLPACK_KEEPS_WRITEABLE

KDLCPU, _KDLCUDA, _KDLCUDAHOST, _KDLCUDAMANAGED = 1, 2, 3, 13  # DLPack's device types


def foreign_to_raw(obj: Any) -> Any:
    """A backend array sharing memory with a DLPack producer (torch, jax, ...)."""
    if hasattr(obj, "detach") and getattr(obj, "requires_grad", False):
        obj = obj.detach()
    obj = _resolved(_importable(obj))
    device_type, _ = obj.__dlpack_device__()
    if device_type in (KDLCPU, _KDLCUDAHOST):
        out = np.from_dlpack(obj)
        if out.flags.writeable or FROM_DLPACK_KEEPS_WRITEABLE or device_type != KDLCPU:
            return out
        # NumPy 2.2 imports every producer read-only: a writable one's own view instead
        if isinstance(obj, np.ndarray) and obj.flags.writeable:
            return obj.view()
        if type(obj).__module__.startswith("torch"):
            return obj.numpy()  # torch's view of its memory, writable
        return out
    if device_type in (_KDLCUDA, _KDLCUDAMANAGED):
        import cupy
        return cupy.from_dlpack(obj)
    raise TypeError(f"interop: data on DLPack device type {device_type} is not supported; "
                    "move it to the cpu or a CUDA GPU first")


def _importable(obj: Any) -> Any:
    """``obj``, if its dtype and device can come in; a torch tensor that cannot raises
    naming the fix (bfloat16 and float8 have no NumPy dtype; a meta tensor has no data)."""
    if not type(obj).__module__.startswith("torch"):
        return obj
    if obj.device.type == "meta":
        raise DeviceMismatchError("a torch tensor on the meta device has no data to bring in; "
                                  "make it on 'cpu' or 'cuda' (t.to_empty(device='cpu') for "
                                  "a module) first")
    if str(obj.dtype).removeprefix("torch.") not in _NUMPY_DTYPES:
        raise UnsupportedDtypeError(f"a torch tensor of dtype {obj.dtype} cannot come in: NumPy "
                                    "has no such dtype; convert first, e.g. t.float() (or "
                                    "t.to(torch.float32))")
    return obj


_NUMPY_DTYPES = frozenset({"bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32",
                           "uint64", "float16", "float32", "float64", "complex64", "complex128"})


def _resolved(obj: Any) -> Any:
    """A torch tensor with its true values in memory: a conjugate or negative view (the
    lazy bits ``t.conj()``, ``t.conj().imag`` set) exports its memory as it is, without the
    bit, so DLPack would hand over the unconjugated, unnegated numbers."""
    if getattr(obj, "is_conj", None) is not None and (obj.is_conj() or obj.is_neg()):
        return obj.resolve_conj().resolve_neg()  # a copy, since the values differ
    return obj


_PARAMETERS_KEPT = 256
_imported: dict[int, tuple[Any, tuple, Any]] = {}


def from_torch(t: Any) -> Any:
    """``foreign_to_raw`` for a torch tensor; ``nn.Parameter`` imports are remembered.

    A module's weights are the same tensors on every forward, and importing them
    by DLPack each time costs more than a small operation.  The entry is reused
    while the parameter keeps its storage, shape and strides (the array shares
    its memory, so in-place updates show through).  The imported array keeps
    its tensor alive, so only parameters (long-lived by nature) are kept, and at
    most ``_PARAMETERS_KEPT`` of them, oldest dropped first.
    """
    if type(t).__name__ != "Parameter":
        return foreign_to_raw(t)
    key = (t.data_ptr(), t.shape, t.stride())
    hit = _imported.get(id(t))
    if hit is not None and hit[0] is t and hit[1] == key:
        return hit[2]
    raw = foreign_to_raw(t)
    if len(_imported) >= _PARAMETERS_KEPT:
        del _imported[next(iter(_imported))]
    _imported[id(t)] = (t, key, raw)
    return raw
