"""The CuPy backend: arrays on an NVIDIA GPU.

Kept thin on purpose: device logic lives in the generic layer, so it is
tested on every run even where no GPU exists.
"""

from __future__ import annotations

from typing import Any

import array_api_compat.cupy as compat_cupy
import cupy
import numpy as np

from ..contract import Backend
from ...devices import Device


class CupyBackend(Backend):
    name = "cupy"
    array_type = cupy.ndarray
    device_types = ("cuda",)
    multi_device = True
    xp = compat_cupy
    np = cupy

    def device_of(self, raw: cupy.ndarray) -> Device:
        return Device("cuda", raw.device.id)

    def native_device(self, device: Any) -> cupy.cuda.Device:
        return cupy.cuda.Device(Device(device).index)

    def asarray(self, data: Any, dtype: np.dtype | None = None, device: Device | None = None,
                copy: bool | None = None, **options: Any) -> cupy.ndarray:
        index = 0 if device is None else Device(device).index
        if index is None:
            raise ValueError("the cupy backend holds data on a GPU: pass device='cuda' or 'cuda:N'")
        with cupy.cuda.Device(index):
            return cupy.array(data, dtype=dtype, copy=True if copy is None else copy)

    def create(self, fn: str, *args: Any, device: Device | None = None, chunks: Any = None,
               **kwargs: Any) -> cupy.ndarray:
        with cupy.cuda.Device(0 if device is None else Device(device).index):
            return getattr(cupy, fn)(*args, **kwargs)

    def to_device(self, raw: cupy.ndarray, device: Any) -> cupy.ndarray:
        """``raw`` on GPU ``device`` (cupy.asarray copies to the current device, if another)."""
        index = Device(device).index
        if index is None:
            return super().to_device(raw, device)
        with cupy.cuda.Device(index):
            return cupy.asarray(raw)

    @property
    def special(self) -> Any:
        import cupyx.scipy.special
        return cupyx.scipy.special

    def random(self, seed: Any) -> Any:
        return cupy.random.default_rng(np.random.SeedSequence(seed).generate_state(1)[0])

    def to_host(self, raw: cupy.ndarray, why: str = "") -> np.ndarray:
        return cupy.asnumpy(raw)


backend = CupyBackend()
