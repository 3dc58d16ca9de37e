"""Devices on the Array API surface: which backend creates on a ``device=``, and its native form.

Users pass interop ``Device`` objects (what ``x.device`` returns), strings
(``"cpu"``, ``"cuda:1"``) or a library's own device objects (a CuPy
``Device``, array-api-compat's Dask device, a ``torch.device``); backends' array-api-compat
namespaces want their own.  CPU devices are served by the NumPy or Dask
backend, CUDA devices by CuPy; a device naming a backend (a Dask tensor's
``x.device``) is served by that backend.
"""

from __future__ import annotations

import sys
from contextvars import ContextVar
from typing import Any

from ..backends import registry
from ..backends.contract import Backend
from ..devices import CPU, Device

HOME: ContextVar[tuple[Backend, Device] | None] = ContextVar("interop_array_api_home",
                                                             default=None)
"""The backend and device of the namespace being called (a tensor's, ``_bound``): where arrays
made from nothing go.  None: ``interop.array_api`` itself, the default backend."""


def as_device(device: Any) -> Device:
    """An interop ``Device`` for any device object a user or a backend may hand us."""
    if isinstance(device, (Device, str)):
        return Device(device)
    index = getattr(device, "id", None)  # cupy.cuda.Device
    if isinstance(index, int):
        return Device("cuda", index)
    if type(device).__module__.startswith("array_api_compat"):  # the Dask device: host chunks
        return Device(CPU, backend="dask")
    if type(device).__module__.startswith("array_api_strict"):
        return registry.get_backend("strict").interop_device(device)  # type: ignore[attr-defined]
    if type(device) is getattr(sys.modules.get("torch"), "device", None):  # a torch.device
        return Device(device)
    raise ValueError(f"interop.array_api: unknown device {device!r}: pass x.device, "
                     "'cpu', 'cuda' or 'cuda:N'")


def backend_for(device: Any, operands: Backend | None) -> Backend:
    """The backend that makes arrays on ``device``: the operands', else the default, else the one
    whose memory that is (NumPy for the host, CuPy for a GPU)."""
    home = HOME.get()
    default = home[0] if home is not None else registry.default_backend()
    if device is None:
        return operands or default
    dev = as_device(device)
    for be in (operands, default):
        if be is not None and be.serves(dev):
            return be
    return registry.backend_for_device(dev)


def home_device(be: Backend) -> Any:
    """The device of the namespace being called, as ``be`` takes it, if ``be`` is its backend
    (None otherwise: the backend's default device)."""
    home = HOME.get()
    return native(be, home[1]) if home is not None and home[0] is be else None


def native(be: Backend, device: Any) -> Any:
    """``device`` as ``be``'s array-api-compat namespace expects it."""
    return be.native_device(as_device(device))
