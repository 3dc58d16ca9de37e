"""DLPack out: ``Tensor.__dlpack__`` hands over the backend array's own capsule, so
``torch.from_dlpack(t)`` and ``np.from_dlpack(t)`` share memory with a NumPy or CuPy
tensor; a lazy tensor has no memory yet: its values are a value read (the ``dask_compute``
gate), never a silent compute.
"""

from __future__ import annotations

from typing import Any

from ..backends import registry
from ..backends.dlpack import KDLCPU


def _lazy(raw: Any) -> Any:
    """The backend of ``raw`` when it is lazy (Dask, Cubed: no memory yet), else None."""
    be = registry.backend_of(raw)
    return be if be is not None and be.lazy else None


def _exportable(t: Any, copy: bool | None) -> Any:
    """The array whose memory a capsule shares: the tensor's own, or, for a lazy tensor, its
    values computed through the value-read gate (``interop.config(dask_compute=...)``
    governs it, as for ``np.asarray(t)``): a copy, so ``copy=False`` is refused."""
    raw = t._raw
    lazy = _lazy(raw)
    if lazy is not None:
        if copy is False:
            raise BufferError(f"__dlpack__(copy=False): a {lazy.name} tensor is a lazy graph "
                              "with no memory to share; compute it first (t.compute()) or "
                              "allow a copy")
        return registry.host_values(raw, f"__dlpack__: exporting a lazy {lazy.name} tensor")
    return raw


def __dlpack__(self: Any, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
               copy: bool | None = None) -> Any:
    """The backend array's DLPack capsule (zero-copy; NumPy and CuPy tensors)."""
    raw = _exportable(self, copy)
    kwargs = {k: v for k, v in (("stream", stream), ("max_version", max_version),
                                ("dl_device", dl_device), ("copy", copy)) if v is not None}
    return raw.__dlpack__(**kwargs)


def __dlpack_device__(self: Any) -> tuple[int, int]:
    """(device type, index) of the data: (1, 0) for the host, (2, n) for CUDA GPU n; a lazy
    tensor's where its chunks will be (Dask's meta array, else the host)."""
    raw = self._raw
    if _lazy(raw) is not None:
        meta = getattr(raw, "_meta", None)
        return meta.__dlpack_device__() if meta is not None else (KDLCPU, 0)
    return raw.__dlpack_device__()


def install(tensor_cls: Any) -> None:
    """Give the Tensor class the DLPack producer protocol."""
    tensor_cls.__dlpack__ = __dlpack__
    tensor_cls.__dlpack_device__ = __dlpack_device__
