"""``__array_namespace_info__()``: the standard's inspection API, for the default backend.

Capabilities and dtypes come from that backend's array-api-compat namespace;
devices are reported as interop ``Device`` objects (what ``x.device`` returns).
"""

from __future__ import annotations

from typing import Any

from ..backends import registry
from ..backends.contract import Backend
from ..devices import Device
from . import _device


class Info:
    """What one backend supports, in the standard's terms."""

    def __init__(self, backend: Backend, device: Device | None = None) -> None:
        self.backend, self._device = backend, device
        self._native = backend.xp.__array_namespace_info__()

    def __repr__(self) -> str:
        return f"<interop.array_api info for the {self.backend.name} backend>"

    def capabilities(self) -> dict[str, Any]:
        """'boolean indexing', 'data-dependent shapes', 'max dimensions'."""
        return dict(self._native.capabilities())

    def default_device(self) -> Device:
        """The backend's default device, or the device of the tensor whose namespace this is."""
        return self._device or self._own(self._native.default_device())

    def devices(self) -> tuple[Device, ...]:
        """The devices, once each (a tuple since the 2025.12 revision); those interop has no
        name for (torch's 'meta', which holds no data) left out."""
        return tuple(dict.fromkeys(d for d in map(self._named, self._native.devices())
                                   if d is not None))

    def _named(self, native: Any) -> Device | None:
        try:
            return self._own(native)
        except ValueError:
            return None

    def _own(self, native: Any) -> Device:
        """A device of the native namespace as this backend's tensors report it (a lazy
        backend's names it, so arrays created there are on that backend)."""
        device = _device.as_device(native)
        return Device(device, backend=self.backend.name) if self.backend.lazy else device

    def _on(self, device: Any) -> tuple[Any, Any]:
        """The native info and device object of the backend serving ``device`` (a GPU's
        dtypes are CuPy's even when the default backend is NumPy)."""
        if device is None:
            return self._native, None
        be = _device.backend_for(device, self.backend)
        return info_for(be)._native, _device.native(be, device)

    def default_dtypes(self, *, device: Any = None) -> dict[str, Any]:
        """'real floating', 'complex floating', 'integral', 'indexing' dtypes."""
        native, dev = self._on(device)
        return dict(native.default_dtypes(device=dev))

    def dtypes(self, *, device: Any = None, kind: str | tuple[str, ...] | None = None) -> dict[str, Any]:
        """The dtypes (by name) of ``kind`` that arrays on ``device`` can have."""
        native, dev = self._on(device)
        return dict(native.dtypes(device=dev, kind=kind))


_INFO: dict[str, Info] = {}


def info_for(be: Backend) -> Info:
    """The (cached) inspection namespace of one backend."""
    info = _INFO.get(be.name)
    if info is None:
        info = _INFO[be.name] = Info(be)
    return info


def __array_namespace_info__() -> Info:  # noqa: N807 (the standard's name)
    """The inspection namespace for the default backend (``interop.set_default_backend``)."""
    return info_for(registry.default_backend())
