"""The NumPy backend: host memory, eager, the reference every other backend matches."""

from __future__ import annotations

from typing import Any

import array_api_compat.numpy as compat_numpy
import numpy as np

from ...devices import CPU, Device
from ..contract import Backend
from ...errors import DeviceMismatchError


class NumpyBackend(Backend):
    name = "numpy"
    array_type = np.ndarray
    xp = compat_numpy
    np = np

    def asarray(self, data: Any, dtype: np.dtype | None = None, device: Device | None = None,
                copy: bool | None = None, **options: Any) -> np.ndarray:
        if device is not None and Device(device) != CPU:
            raise DeviceMismatchError(
                f"the numpy backend holds data on the cpu, not on {device}: "
                "use backend='cupy' for GPU tensors")
        return np.array(data, dtype=dtype, copy=copy)

    def to_host(self, raw: np.ndarray, why: str = "") -> np.ndarray:
        return raw


backend = NumpyBackend()
