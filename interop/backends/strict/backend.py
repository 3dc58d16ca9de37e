"""The array-api-strict backend: a stand-in for a GPU where there is none.

array-api-strict arrays live on ``CPU_DEVICE``, ``device1`` or ``device2`` and,
like CuPy's on two GPUs, refuse to be combined across devices.  interop names
them ``cpu``, ``strict:1`` and ``strict:2``.  Not a backend for real work (and
not in the main test matrix): it exists so that placement, ``to(...)``, mixing
errors and the transfer guard are tested on every run, where no GPU exists.
Only the operations the Array API standard defines run on it.
"""

from __future__ import annotations

from typing import Any

import array_api_strict
import numpy
import numpy as np
from array_api_strict._array_object import Array  # not exported by the package

from ...devices import CPU, Device
from ..contract import Backend

# interop's name for each array-api-strict device, and back.
_OURS = {array_api_strict.Device("CPU_DEVICE"): CPU,
         array_api_strict.Device("device1"): Device("strict", 1),
         array_api_strict.Device("device2"): Device("strict", 2)}
_THEIRS = {ours: theirs for theirs, ours in _OURS.items()}

_DTYPES = {theirs: np.dtype(name)
           for name, theirs in array_api_strict.__array_namespace_info__().dtypes().items()}
_NATIVE_DTYPES: dict[Any, Any] = {ours: theirs for theirs, ours in _DTYPES.items()}


class StrictBackend(Backend):
    name = "strict"
    array_type = Array
    device_types = ("cpu", "strict")
    multi_device = True
    numpy_protocols = False
    xp = array_api_strict
    np = array_api_strict

    def device_of(self, raw: Array) -> Device:
        return _OURS[raw.device]

    def interop_device(self, native: array_api_strict.Device) -> Device:
        """interop's name for an array-api-strict device."""
        return _OURS[native]

    def dtype_of(self, raw: Array) -> numpy.dtype:
        return _DTYPES[raw.dtype]

    def astype(self, raw: Array, dtype: numpy.dtype) -> Array:
        return array_api_strict.astype(raw, _NATIVE_DTYPES[np.dtype(dtype)])

    def copy(self, raw: Array) -> Array:
        return array_api_strict.asarray(raw, copy=True)

    def native_device(self, device: Any) -> array_api_strict.Device:
        try:
            return _THEIRS[Device(device)]
        except KeyError:
            raise ValueError(f"the strict backend has devices {', '.join(map(str, _THEIRS))}, "
                             f"not {device}") from None

    def asarray(self, data: Any, dtype: numpy.dtype | None = None, device: Device | None = None,
                copy: bool | None = None, **options: Any) -> Array:
        native = self.native_device(CPU if device is None else device)
        if isinstance(data, Array):
            return array_api_strict.asarray(data, device=native, copy=copy)
        return array_api_strict.asarray(np.asarray(data, dtype=dtype), device=native, copy=copy)

    def create(self, fn: str, *args: Any, device: Device | None = None, chunks: Any = None,
               dtype: Any = None, **kwargs: Any) -> Array:
        # Made on the host by NumPy (torch's argument forms), then placed: the device is the point.
        host = getattr(np, fn)(*args, dtype=dtype, **kwargs)
        return self.asarray(host, device=device)

    def to_device(self, raw: Array, device: Any) -> Array:
        return raw.to_device(self.native_device(device))

    def to_host(self, raw: Array, why: str = "") -> numpy.ndarray:
        return np.asarray(raw.to_device(array_api_strict.Device("CPU_DEVICE")))


backend = StrictBackend()
