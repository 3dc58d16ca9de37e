"""DLPack: zero-copy exchange with torch and any other producer or consumer.

Host data comes in as NumPy arrays, GPU data as CuPy arrays; a torch tensor
is never imported as torch (torch is only touched when the user passes one).
"""

from __future__ import annotations

from typing import Any

import numpy as np

_KDLCPU, _KDLCUDA, _KDLCUDAHOST, _KDLCUDAMANAGED = 1, 2, 3, 13


def foreign_to_raw(obj: Any) -> Any:
    """A backend array sharing memory with a DLPack producer (torch, jax, ...)."""
    if hasattr(obj, "detach") and getattr(obj, "requires_grad", False):
        obj = obj.detach()
    device_type, _ = obj.__dlpack_device__()
    if device_type in (_KDLCPU, _KDLCUDAHOST):
        try:
            return np.from_dlpack(obj)
        except BufferError:
            if hasattr(obj, "resolve_conj"):  # torch conj/neg views cannot be exported as they are
                return np.from_dlpack(obj.resolve_conj().resolve_neg())
            raise
    if device_type in (_KDLCUDA, _KDLCUDAMANAGED):
        import cupy
        return cupy.from_dlpack(obj)
    raise TypeError(f"interop: data on DLPack device type {device_type} is not supported; "
                    "move it to the cpu or a CUDA GPU first")


from_torch = foreign_to_raw
