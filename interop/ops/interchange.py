"""``__cuda_array_interface__`` for GPU tensors: CuPy's own, handed out without a copy.

A table entry (a property), so a subclass's ``__torch_function__`` sees it as
torch's subclasses do.  It exists only on GPU tensors, so
``hasattr(t, '__cuda_array_interface__')`` tells consumers (Numba, CuPy,
``interop.tensor``) the truth.  DLPack export lives in ``protocols/dlpack.py``.
"""

from __future__ import annotations

from typing import Any

from .registry import op


@op("__cuda_array_interface__", function=False, method="__cuda_array_interface__",
    property=True, family="interchange", torch=("torch.Tensor.__cuda_array_interface__.__get__",))
def cuda_array_interface(be: Any, input: Any) -> dict:
    """The CUDA Array Interface of GPU tensors (CuPy's own); absent on host and Dask tensors."""
    cai = getattr(input, "__cuda_array_interface__", None)
    if cai is None:
        raise AttributeError(f"a {be.name} tensor on {be.device_of(input)} has no "
                             "__cuda_array_interface__ (only GPU tensors have one): use t.cuda()")
    return cai
