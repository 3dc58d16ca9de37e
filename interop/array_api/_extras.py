"""Functions beside the standard that NumPy's and torch's namespaces have (and so
array-api-compat's), which consumers call where a namespace has them: SciPy ``xp.diag`` and
``xp.logspace``; xarray's ``duck_array_ops`` ``xp.pad`` (rolling windows), ``xp.quantile``,
``xp.einsum``, ``xp.gradient``, ``xp.cross``, ``xp.transpose``, ``xp.concatenate``, and, by name for its
reductions (``getattr(xp, name)``), ``xp.median``, ``xp.cumsum``, ``xp.cumprod`` and NumPy's
``nan*`` reductions.  Each is NumPy's function of that name (its signature and semantics), run
by the tensor's backend's NumPy-shaped module (``Backend.np``: NumPy's, CuPy's, Dask's,
interop's for torch and JAX).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numpy as np

from ..backends.contract import Backend

NAMES = ("cross", "diag", "einsum", "gradient", "logspace", "pad", "quantile", "transpose",
         "concatenate", "median", "cumsum", "cumprod", "nanargmax", "nanargmin", "nancumprod",
         "nancumsum", "nanmax", "nanmean", "nanmedian", "nanmin", "nanprod", "nanquantile",
         "nanstd", "nansum", "nanvar",
         "lib.stride_tricks.sliding_window_view")  # (xarray's rolling windows: pad, then this)
DTYPES = ("float16",)
TOP_NAMES = tuple(dict.fromkeys(name.partition(".")[0] for name in NAMES))
"""The namespace's attributes for ``NAMES`` (``lib`` for NumPy's ``lib.stride_tricks``)."""


def _logspace(be: Backend) -> Callable:
    """``base ** linspace(...)``, NumPy's definition, for a library without ``logspace``
    (Dask); scalar bounds."""
    def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
                 base: float = 10.0, dtype: Any = None, axis: int = 0) -> Any:
        if axis != 0 or np.ndim(start) or np.ndim(stop):
            raise TypeError(f"interop.array_api.logspace: the {be.name} backend takes scalar "
                            "start and stop only (axis=0)")
        out = base ** be.np.linspace(start, stop, num, endpoint=endpoint)
        return out if dtype is None else out.astype(dtype)
    return logspace


_FALLBACKS = {"logspace": _logspace}


def numpys(name: str, module: Any = np) -> Any:
    """``module``'s function ``name`` (a dotted path, ``lib.stride_tricks.x``), or None."""
    for part in name.split("."):
        module = getattr(module, part, None)
    return module


def function_for(be: Backend, name: str) -> Callable | None:
    """NumPy's ``name`` for ``be``'s arrays, or None where its library has none."""
    fn = numpys(name, be.np)
    if fn is None and name in _FALLBACKS:
        return _FALLBACKS[name](be)
    return fn


def namespace(functions: dict[str, Callable]) -> dict[str, Any]:
    """The namespace's attributes for ``functions`` (dotted name -> function): plain names
    as they are, dotted ones in nested namespaces (``lib.stride_tricks``), as NumPy's."""
    top: dict[str, Any] = {}
    for name, fn in functions.items():
        *path, last = name.split(".")
        holder = top
        for part in path:
            holder = vars(holder.setdefault(part, types.SimpleNamespace()))
        holder[last] = fn
    return top
