"""``__array_namespace_info__()``: the standard's inspection API, for the default backend.

Capabilities and dtypes come from that backend's array-api-compat namespace;
devices are reported as interop ``Device`` objects (what ``x.device`` returns).
"""

from __future__ import annotations

from typing import Any

from ..backends import registry
from ..backends.base import Backend, Device
from . import _device


class Info:
    """What one backend supports, in the standard's terms."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self._native = backend.xp.__array_namespace_info__()

    def __repr__(self) -> str:
        return f"<interop.array_api info for the {self.backend.name} backend>"

    def capabilities(self) -> dict[str, Any]:
        """'boolean indexing', 'data-dependent shapes', 'max dimensions'."""
        return dict(self._native.capabilities())

    def default_device(self) -> Device:
        return _device.as_device(self._native.default_device())

    def devices(self) -> list[Device]:
        return list(dict.fromkeys(_device.as_device(d) for d in self._native.devices()))

    def _native_device(self, device: Any) -> Any:
        return None if device is None else _device.native(self.backend, device)

    def default_dtypes(self, *, device: Any = None) -> dict[str, Any]:
        """'real floating', 'complex floating', 'integral', 'indexing' dtypes."""
        return dict(self._native.default_dtypes(device=self._native_device(device)))

    def dtypes(self, *, device: Any = None, kind: str | tuple[str, ...] | None = None) -> dict[str, Any]:
        """The dtypes (by name) of ``kind`` that arrays on ``device`` can have."""
        return dict(self._native.dtypes(device=self._native_device(device), kind=kind))


_INFO: dict[str, Info] = {}


def __array_namespace_info__() -> Info:  # noqa: N807 (the standard's name)
    """The inspection namespace for the default backend (``interop.set_default_backend``)."""
    be = registry.default_backend()
    info = _INFO.get(be.name)
    if info is None:
        info = _INFO[be.name] = Info(be)
    return info
