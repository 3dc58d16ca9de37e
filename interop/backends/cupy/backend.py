"""The CuPy backend: arrays on an NVIDIA GPU.

Device logic lives in the generic layer, so it is tested on every run even where no GPU
exists (and the gpulike test backend runs the backend-parametrised tests under a GPU's
rules).  What CuPy's API lacks of NumPy's is supplied here, written against any NumPy-like
namespace so that it runs, and is tested, on NumPy too: ufunc methods
(``ufunc_methods.py``), orthogonal polynomials (``special.py``), NumPy functions
(``numpy_functions.py``), the Array API's special cases (``standard.py``) and negative zeros
that CuPy's fill would write as positive ones (``fills.py``).
tests/test_cupy_api.py checks every CuPy call made here and in the operations against
CuPy's API, without a GPU.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any, ClassVar

import array_api_compat.cupy as compat_cupy
import cupy
import numpy
import numpy as np

from ...devices import Device
from ..bounds import checked_now
from ..contract import Backend
from . import numpy_functions, standard, ufunc_methods
from .fills import KeptSigns, zero_d_copied
from .special import Supplemented

_IN_NP = ("nanquantile", "nanpercentile", "unstack")
"""NumPy functions CuPy lacks that interop's operations call through ``be.np`` (and its
``remainder``, which departs from NumPy's for floats, is ``standard.remainder``)."""


def _numpy_shaped() -> types.ModuleType:
    """``cupy`` itself, with ``_IN_NP`` added and ``remainder`` fixed (a copy of its
    namespace: lookups stay a dict's)."""
    module = types.ModuleType("cupy", cupy.__doc__)
    module.__dict__.update(vars(cupy))
    table = numpy_functions.supplements()
    for name in _IN_NP:
        setattr(module, name, functools.partial(table[f"numpy.{name}"], cupy, compat_cupy.linalg))
    module.__dict__.update(remainder=standard.remainder, mod=standard.remainder)  # NumPy's, floats
    return module


class CupyBackend(KeptSigns, Backend):
    name = "cupy"
    array_type = cupy.ndarray
    device_types = ("cuda",)
    multi_device = True
    xp = compat_cupy
    np = _numpy_shaped()
    standard_fixes: ClassVar[dict[str, Callable]] = {**standard.FIXES,
                                                     **standard.creation_fixes(compat_cupy)}

    def device_of(self, raw: cupy.ndarray) -> Device:
        return Device("cuda", raw.device.id)

    def native_device(self, device: Any) -> cupy.cuda.Device:
        return cupy.cuda.Device(Device(device).index)

    def asarray(self, data: Any, dtype: numpy.dtype | None = None, device: Device | None = None,
                copy: bool | None = None, **options: Any) -> cupy.ndarray:
        index = 0 if device is None else Device(device).index
        if index is None:
            raise ValueError("the cupy backend holds data on a GPU: pass device='cuda' or 'cuda:N'")
        with cupy.cuda.Device(index):
            return zero_d_copied(cupy.array, data, dtype=dtype, copy=True if copy is None else copy)

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

    @functools.cached_property
    def special(self) -> Any:
        """cupyx.scipy.special, with the orthogonal polynomials it lacks (``special.py``)."""
        import cupyx.scipy.special
        return Supplemented(cupyx.scipy.special, cupy)

    def random(self, seed: Any) -> Any:
        return cupy.random.default_rng(np.random.SeedSequence(seed).generate_state(1)[0])

    def to_host(self, raw: cupy.ndarray, why: str = "") -> numpy.ndarray:
        return cupy.asnumpy(raw)

    def shares_memory(self, a: cupy.ndarray, b: cupy.ndarray) -> bool:
        """By the memory bounds (``cupy.may_share_memory``): CuPy's exact ``shares_memory``
        runs a kernel and a sort and reads the answer back, and answered False for a 1-element
        view (op_db's ``view``); a reshape that copies lands in fresh memory, outside them."""
        return bool(cupy.may_share_memory(a, b))

    def checked_index(self, index: Any, shape: tuple, name: str) -> Any:
        """CuPy's integer indexing wraps an index out of range around: checked first (a
        value read of each index array's extremes), so it raises as NumPy and torch do."""
        return checked_now(index, shape, name)

    def ufunc(self, name: str) -> Any:
        fn = getattr(cupy, name)
        return ufunc_methods.WithMethods(fn, getattr(np, name), self.ufunc_method)

    def ufunc_method(self, ufunc: numpy.ufunc, method: str) -> Callable:
        if method not in ufunc_methods.METHODS:
            return getattr(ufunc, method)
        return ufunc_methods.method_for(cupy, ufunc, method, self.to_host, checked_now)

    def numpy_supplement(self, func: Callable) -> Callable | None:
        fn = numpy_functions.supplements().get(f"{func.__module__}.{func.__name__}")
        return None if fn is None else functools.partial(fn, cupy, compat_cupy.linalg)


backend = CupyBackend()
