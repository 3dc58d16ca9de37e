"""Duck arrays that wrap interop tensors (pint's Quantity, a masked array, any NEP 18
wrapper): interop defers to them as NumPy does.

A wrapper above interop knows what interop cannot (units, masks): NumPy hands a call that
holds one to the wrapper's ``__array_function__``/``__array_ufunc__``, which unwraps and
calls NumPy again on the tensors inside.  interop keeps that order on its two surfaces that
such wrappers reach: NumPy's protocols answer NotImplemented when a foreign wrapper takes
part (NEP 13/18), and the Array API namespace, which a wrapper's consumers find through the
tensors inside (xarray over pint over interop calls ``interop.array_api.where(cond, q, q)``),
sends such a call to NumPy's function of the same name, whose dispatch reaches the wrapper.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...backends import registry
from ..tensor import Tensor

_NOT_WRAPPERS = (Tensor, np.ndarray, np.generic)
_SCALARS = frozenset({bool, int, float, complex, str, type(None), slice, type(Ellipsis)})


def is_foreign_wrapper_type(t: type) -> bool:
    """Whether ``t`` implements NumPy's protocols and is neither a tensor nor an array of a
    library interop has a backend for (NumPy, Dask, CuPy, ...: those are data to interop)."""
    if issubclass(t, _NOT_WRAPPERS) or registry.is_library_type(t):
        return False
    return hasattr(t, "__array_function__") or hasattr(t, "__array_ufunc__")


def defers_to(types: Any) -> bool:
    """NEP 13/18: a protocol call whose ``types`` hold a foreign wrapper is the wrapper's."""
    return any(t is not Tensor and is_foreign_wrapper_type(t) for t in types)


def foreign_wrapper(args: tuple, kwargs: dict | None) -> Any:
    """The first foreign wrapper among a call's arguments (lists and tuples searched), or
    None.  A few type checks on the common call, with only tensors and numbers."""
    for a in (*args, *kwargs.values()) if kwargs else args:
        t = type(a)
        if t is Tensor or t in _SCALARS:
            continue
        if t is list or t is tuple:
            inner = foreign_wrapper(a, None)
            if inner is not None:
                return inner
        elif is_foreign_wrapper_type(t):
            return a
    return None


def numpy_function(qualname: str, public_name: str, wrapper: Any) -> Callable:
    """NumPy's function for an Array API name (``linalg.matrix_norm``: ``np.linalg...``)."""
    owner: Any = np
    *modules, name = qualname.split(".")
    for module in modules:
        owner = getattr(owner, module, None)
    fn = getattr(owner, name, None)
    if fn is None:
        raise TypeError(f"{public_name} was given a {type(wrapper).__name__}, a duck array that "
                        f"wraps its data; interop hands such calls to NumPy's function of the "
                        f"same name so the wrapper's __array_function__ answers, and NumPy "
                        f"{np.__version__} has no numpy.{qualname}: call it on the wrapped "
                        f"tensors, or use a NumPy that has it")
    return fn
