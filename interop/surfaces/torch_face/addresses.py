"""``data_ptr()`` of a TorchTensor: where its backend array's first element is, so that torch
code comparing ``a.data_ptr() == b.data_ptr()`` to detect aliasing sees what the backend holds.

A wrapper subclass has no storage of its own (torch says 0 for every one).  Arrays in memory
give their own address: NumPy's ``__array_interface__``, CuPy's ``__cuda_array_interface__``,
torch's ``data_ptr()``, JAX's buffer pointer.  A lazy array (Dask, Cubed) has no memory until
computed: its interop tensor stands for it, so faces over the same tensor (``detach()``,
``alias``) agree, distinct tensors differ, and an in-place write (which rebinds a lazy
tensor's array) keeps the address, as it keeps a buffer's.  Views of a lazy tensor are
distinct tensors: whether they start where their base does is not known, so they differ.
"""

from __future__ import annotations

from ...core.tensor import Tensor


def data_ptr(t: Tensor) -> int:
    """The address of ``t``'s first element, or a stand-in unique to ``t`` (lazy arrays)."""
    raw = t._raw
    for protocol in ("__array_interface__", "__cuda_array_interface__"):
        interface = getattr(raw, protocol, None)
        if interface is not None:
            return interface["data"][0]
    for method in ("data_ptr", "unsafe_buffer_pointer"):  # torch's tensors, JAX's arrays
        pointer = getattr(raw, method, None)
        if pointer is not None:
            try:
                return pointer()
            except Exception:  # noqa: BLE001, S112 - a traced or sharded JAX array: no one buffer
                continue
    return id(t)
