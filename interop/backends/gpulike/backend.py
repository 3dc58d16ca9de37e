"""The gpulike backend: a test device, not a device for work.

NumPy computes, but the arrays sit on ``gpulike:0``, a device of their own with CuPy's rules
(``arrays.py``): no implicit conversion to NumPy, host arrays refused beside device arrays,
and interop's device checks apply (mixing with host tensors raises ``DeviceMismatchError``,
``t.numpy()`` asks for ``t.cpu()`` first).  Every test parametrised over backends runs on it
in CI, so a test that mixes host and device data fails there, not first on a GPU.  It does
reproduce CuPy's API (tests/test_cupy_api.py checks the CuPy backend's calls against
CuPy's) nor its numerics, and torch has no tensors on it (no DLPack with torch).

Where interop's CuPy backend supplies what CuPy lacks (ufunc methods, NumPy functions,
orthogonal polynomials), gpulike runs the same supplements on its arrays, so that every
ufunc, NumPy-function and torch.special test checks them in CI.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy
import numpy as np

from ...devices import Device
from ...errors import DeviceMismatchError
from ..bounds import checked_now
from ..contract import Backend
from ..cupy import numpy_functions, standard, ufunc_methods
from ..cupy.fills import KeptSigns, zero_d_copied
from ..cupy.special import Supplemented
from .arrays import DEVICE, DeviceArray, DeviceNamespace, standard_namespace, unwrap, wrap


class GpulikeBackend(KeptSigns, Backend):
    name = "gpulike"
    array_type = DeviceArray
    device_types = ("gpulike",)
    multi_device = True  # as CuPy: calls compare the operands' devices
    np = DeviceNamespace(np)

    @property
    def xp(self) -> Any:
        return standard_namespace()

    @functools.cached_property
    def standard_fixes(self) -> dict:  # type: ignore[override]  # CuPy's, checked here too
        return {**standard.FIXES, **standard.creation_fixes(self.xp)}

    def device_of(self, raw: DeviceArray) -> Device:
        return DEVICE

    def native_device(self, device: Any) -> Device:
        return self._checked(device)

    def _checked(self, device: Any) -> Device:
        if Device(device) != DEVICE:
            raise DeviceMismatchError(f"the gpulike backend holds data on {DEVICE} only (a test "
                                      f"device), not on {device}")
        return DEVICE

    def asarray(self, data: Any, dtype: numpy.dtype | None = None, device: Device | None = None,
                copy: bool | None = None, **options: Any) -> DeviceArray:
        if device is not None:
            self._checked(device)
        if isinstance(data, DeviceArray) and not copy and (dtype is None or data.dtype == dtype):
            return data
        return zero_d_copied(self.np.array, unwrap(data, host_ok=True), dtype=dtype)

    def create(self, fn: str, *args: Any, device: Device | None = None, chunks: Any = None,
               **kwargs: Any) -> DeviceArray:
        if device is not None:
            self._checked(device)
        return wrap(getattr(np, fn)(*args, **kwargs))

    def to_device(self, raw: DeviceArray, device: Any) -> DeviceArray:
        self._checked(device)
        return raw

    def to_host(self, raw: DeviceArray, why: str = "") -> numpy.ndarray:
        return raw.get()

    def random(self, seed: Any) -> Any:
        return DeviceNamespace(np.random.default_rng(seed))

    @functools.cached_property
    def special(self) -> Any:
        import scipy.special
        return Supplemented(DeviceNamespace(scipy.special), self.np)

    # What CuPy lacks, as the CuPy backend supplies it (see the module's docstring).
    def ufunc(self, name: str) -> Any:
        fn = getattr(np, name)
        return ufunc_methods.WithMethods(fn, fn, self.ufunc_method)

    def ufunc_method(self, ufunc: numpy.ufunc, method: str) -> Callable:
        if method not in ufunc_methods.METHODS:
            return getattr(ufunc, method)
        return ufunc_methods.method_for(self.np, ufunc, method, self.to_host, checked_now)

    def checked_index(self, index: Any, shape: tuple, name: str) -> Any:
        return checked_now(index, shape, name)  # its indexing wraps around, as CuPy's

    def numpy_supplement(self, func: Callable) -> Callable | None:
        fn = numpy_functions.supplements().get(f"{func.__module__}.{func.__name__}")
        return None if fn is None else functools.partial(fn, self.np, self.xp.linalg)


backend = GpulikeBackend()
