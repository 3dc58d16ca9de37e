"""The Python Array API standard (2025.12) for interop tensors: ``t.__array_namespace__()``.

    >>> import interop.array_api as xp
    >>> x = xp.asarray([1.0, 2.0, 3.0])          # float64: the standard's default
    >>> xp.mean(x)
    tensor(2., dtype=float64, backend='numpy')

Functions take and return interop tensors with the standard's semantics (its
argument names, promotion and result dtypes; Python floats are float64 here,
where the torch surface makes them float32).  Each is generated from its name
(``_names``) by one wrapper (``_wrap``) that calls the same function of the
tensor's backend's array-api-compat namespace, so NumPy, CuPy and Dask
tensors stay on their backend.  Calls without a tensor operand (creation
functions, raw arrays) use ``device=`` and the default backend.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from .. import dtypes as _dtypes
from ..backends import registry as _registry
from . import _bound, _extras, fft, linalg
from . import special as special  # (SciPy's special functions reach it as xp.special)
from ._info import __array_namespace_info__
from ._names import API_VERSION, API_VERSIONS, ARRAY, CONSTANTS, CREATION, DTYPES
from ._signatures import attach, attach_numpys
from ._wrap import generate, generate_all

__array_api_version__ = API_VERSION

e, inf, nan, pi, newaxis = math.e, math.inf, math.nan, math.pi, None
globals().update({name: getattr(_dtypes, name) for name in DTYPES + _extras.DTYPES})
globals().update(attach(generate_all(CREATION + ARRAY)))
globals().update(_extras.namespace(attach_numpys({
    qualname: generate(qualname.rpartition(".")[2], qualname.rpartition(".")[0], extra=True)
    for qualname in _extras.NAMES})))

__all__ = ["__array_api_version__", "__array_namespace_info__", "fft", "linalg",
           *CONSTANTS, *DTYPES, *CREATION, *ARRAY]
"""The standard's names; beside them, as array-api-compat's namespaces have them, NumPy's
``float16`` and functions consumers call where a namespace has them (``_extras``)."""


def namespace(api_version: str | None = None) -> object:
    """This module, after checking ``api_version`` (None means the latest, 2025.12).

    An earlier version gets the same namespace: each revision adds to the one before
    (2025.12: ``isin``, ``broadcast_shapes``, ``linalg.eig``/``eigvals``, a tuple of axes
    in ``expand_dims``, Python scalars in ``isin`` and ``searchsorted``), so code written
    for it runs unchanged."""
    if api_version is not None and api_version not in API_VERSIONS:
        raise ValueError(f"interop.array_api: version {api_version!r} of the Array API standard "
                         f"is not supported; supported: {', '.join(API_VERSIONS)} (or None for "
                         f"{API_VERSION})")
    return sys.modules[__name__]


def __array_namespace__(self: Any, /, *, api_version: str | None = None) -> object:
    """``interop.array_api`` bound to this tensor's backend and device (``_bound``): arrays its
    functions make from nothing land where the tensor lives (versions 2021.12-2025.12)."""
    namespace(api_version)
    be = _registry.backend_of(self._raw)
    return bound_to(be, be.device_of(self._raw))


def bound_to(backend: Any, device: Any) -> object:
    """This namespace bound to ``backend`` and ``device``: what a tensor there gets from
    ``__array_namespace__`` (the module itself for the default backend's only device)."""
    return _bound.namespace_of(sys.modules[__name__], backend, device)


def install(tensor_cls: Any) -> None:
    """Make ``tensor_cls`` an Array API array: give it ``__array_namespace__``."""
    tensor_cls.__array_namespace__ = __array_namespace__
