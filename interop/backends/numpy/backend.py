"""The NumPy backend: host memory, eager, the reference every other backend matches."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ...devices import CPU, Device
from ...errors import DeviceMismatchError
from ..contract import Backend


class NumpyBackend(Backend):
    name = "numpy"
    array_type = np.ndarray
    np = np

    @functools.cached_property
    def xp(self) -> Any:
        """array-api-compat's NumPy namespace, imported by the first call that needs it (it
        imports ``numpy.f2py`` and ``numpy.testing``: most of ``import interop``'s time)."""
        import array_api_compat.numpy as compat_numpy
        return compat_numpy

    def asarray(self, data: Any, dtype: np.dtype | None = None, device: Device | None = None,
                copy: bool | None = None, **options: Any) -> np.ndarray:
        if device is not None and Device(device) != CPU:
            raise DeviceMismatchError(
                f"the numpy backend holds data on the cpu, not on {device}: "
                "use backend='cupy' for GPU tensors")
        return np.array(data, dtype=dtype, copy=copy)

    def to_host(self, raw: np.ndarray, why: str = "") -> np.ndarray:
        return raw

    def windows(self, raw: np.ndarray, window: tuple[int, ...], axes: tuple[int, ...]) -> Any:
        return np.lib.stride_tricks.sliding_window_view(raw, window, axis=axes)


backend = NumpyBackend()
