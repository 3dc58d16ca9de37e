"""A tensor's namespace: ``interop.array_api`` bound to the tensor's backend and device.

Consumers (SciPy, scikit-learn, xarray, array-api-extra) take ``xp = array_namespace(t)`` and
then make arrays of their own with it: ``xp.asarray(result)`` after computing on NumPy,
``xp.zeros(n)``, ``xp.asarray(popmean)``.  With one namespace for every backend those would
land on the default backend (a Dask tensor's result coming back NumPy-backed, a GPU tensor's
constant on the host).  So ``t.__array_namespace__()`` is a namespace whose every function runs
with ``t``'s backend and device as its *home*: where a call has no tensor operand (creation,
raw arrays), the home backend makes the result, on the home device.  Calls with tensors run
on their tensors' backend, as in ``interop.array_api``, which stays the default backend's
namespace (and is what tensors of the default backend get).

The namespace says what it is, ``interop.array_api``: it does not pose as Dask's or CuPy's
(``array_api_compat.is_dask_namespace(xp)`` is False), because consumers that see those names
call the library's own functions on our tensors (SciPy's ``cupyx.scipy`` delegation, Dask's
``compute_chunk_sizes``).  Such consumers take their path for unknown libraries
(docs/consumers.md).
"""

from __future__ import annotations

import functools
import sys
import types
from collections.abc import Callable
from typing import Any

from ..backends import registry
from ..backends.contract import Backend
from ..devices import Device
from . import _device, _extras, _info
from ._wrap import MODULE

_BOUND: dict[tuple[str, Device], types.ModuleType] = {}


def namespace_of(module: types.ModuleType, be: Backend, device: Device) -> types.ModuleType:
    """``module`` (``interop.array_api``) for a tensor on ``be`` and ``device``: the module
    itself on the default backend's only device, else its copy bound there (made once)."""
    if be is registry.default_backend() and not be.multi_device:
        return module
    key = (be.name, device)
    ns = _BOUND.get(key)
    if ns is None:  # (setdefault: threads that race here share the first one made)
        ns = _BOUND.setdefault(key, _bind(module, (be, device)))
    return ns


def _bind(module: types.ModuleType, home: tuple[Backend, Device]) -> types.ModuleType:
    ns = _bound(module, home)
    for name in ("special", *_extras.TOP_NAMES, *_extras.DTYPES):  # beside the standard's
        setattr(ns, name, _bound(getattr(module, name), home))
    info = _info.Info(*home)
    ns.__array_namespace_info__ = lambda: info
    return ns


class _Namespace(types.ModuleType):
    """A bound namespace (a module object, named as the module it binds).

    It equals, and hashes as, the module it binds and its other bindings: one library's
    namespace, whatever its home, as array-api-compat counts namespaces (by name).  So a
    consumer that collects its operands' namespaces in a set (xarray's
    ``get_array_namespace``) finds one for NumPy and Dask tensors together, and their
    calls run on the operands' common backend."""

    home: tuple[Backend, Device]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, types.ModuleType) and other.__name__ == self.__name__

    def __hash__(self) -> int:
        return hash(sys.modules[self.__name__])

    def __repr__(self) -> str:
        be, device = self.home
        return f"<namespace {self.__name__} on the {be.name} backend, device {device}>"


def _bound(value: Any, home: tuple[Backend, Device]) -> Any:
    """``value`` with its functions, and those of its sub-namespaces, bound to ``home``."""
    if isinstance(value, types.ModuleType) and hasattr(value, "__all__"):  # (fft, linalg)
        ns = _Namespace(value.__name__, value.__doc__)
        ns.home = home
        for name in value.__all__:
            setattr(ns, name, _bound(getattr(value, name), home))
        return ns
    if isinstance(value, types.SimpleNamespace):  # NumPy's lib.stride_tricks
        return types.SimpleNamespace(**{k: _bound(v, home) for k, v in vars(value).items()})
    if isinstance(value, types.FunctionType) and value.__module__.startswith(MODULE):
        return _function(value, home)
    return value


def _function(fn: Callable, home: tuple[Backend, Device]) -> Callable:
    """``fn`` run with ``home`` as the backend and device of arrays it makes from nothing."""
    @functools.wraps(fn)
    def bound(*args: Any, **kwargs: Any) -> Any:
        token = _device.HOME.set(home)
        try:
            return fn(*args, **kwargs)
        finally:
            _device.HOME.reset(token)
    return bound
