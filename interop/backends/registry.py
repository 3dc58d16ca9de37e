"""Finding backends: by name, by array, and the common one for mixed operands.

Backends load on first use, so ``import interop`` imports neither CuPy nor
Dask.  An array is recognised by its type's top-level module before the
library is imported by us: if a CuPy array exists, CuPy is already loaded.

Promotion policy (DESIGN.md, "Backends and promotion"):
- one backend: that one; Python scalars and 0-d host arrays join anything;
- NumPy with a lazy backend (Dask, Cubed): the lazy one (lazy wins);
- two lazy backends (Dask with Cubed): TypeError naming both and the explicit move;
- CuPy with Dask of CuPy chunks: Dask;
- JAX with NumPy (both on the CPU): JAX (the non-NumPy backend wins, as CuPy or
  array-api-strict would); JAX with Dask: Dask, its chunks NumPy (lazy wins);
- any other mix of devices: ``DeviceMismatchError`` naming both devices and
  the ``.to(...)`` that fixes it, unless ``implicit_transfer`` is on.
"""

from __future__ import annotations

import importlib
import logging
import operator
import os
import sys
import weakref
from typing import Any

import numpy as np

from ..config import setting
from ..devices import BACKEND_NAMES, CPU, DEVICE_TYPES, Device
from ..errors import DeviceMismatchError, unknown_name
from ..upstream import UpstreamChangedError, changed
from .contract import Backend

# Each backend: the top-level modules whose arrays it holds, and what to install for it.
# Adding a backend is one line here, its name in base.BACKEND_NAMES, and its module.
_LIBRARIES: dict[str, tuple[tuple[str, ...], str]] = {
    "numpy": (("numpy",), "pip install interop-tensor (numpy and array-api-compat are its dependencies)"),
    "cupy": (("cupy", "cupyx"), "pip install cupy-cuda12x (the wheel matching your CUDA)"),
    "dask": (("dask",), "pip install 'interop-tensor[dask]'"),
    "strict": (("array_api_strict",), "pip install array-api-strict"),
    "torch": (("torch",), "pip install 'interop-tensor[torch]'"),
    "jax": (("jax", "jaxlib"), "pip install 'interop-tensor[jax]'"),
    "cubed": (("cubed",), "pip install 'interop-tensor[cubed]'"),
    "gpulike": ((), "nothing: a test device of interop's own (NumPy under a GPU's rules)"),
}
_MODULE_OF_LIBRARY = {module: name for name, (modules, _) in _LIBRARIES.items()
                      for module in modules}
_loaded: dict[str, Backend] = {}
_by_type: dict[type, Backend] = {}
_default = [os.environ.get("INTEROP_BACKEND", "numpy")]


def get_backend(name: str | Backend) -> Backend:
    """The backend called ``name`` (one of ``BACKEND_NAMES``), loading it on first use."""
    if isinstance(name, Backend):
        return name
    be = _loaded.get(name)
    if be is not None:
        return be
    if name not in BACKEND_NAMES:
        raise unknown_name("backend", name, BACKEND_NAMES)
    try:
        module = importlib.import_module(f"interop.backends.{name}.backend")
    except ImportError as exc:
        top = (exc.name or "").partition(".")[0]
        if top in _LIBRARIES[name][0] and top in sys.modules:  # it loads: a name in it moved
            raise UpstreamChangedError(changed(f"{exc.name} ({exc})", top)) from exc
        extra = _LIBRARIES[name][1]
        raise ImportError(f"the {name} backend needs {exc.name}, which is not installed: {extra}") from exc
    be = _loaded[name] = module.backend
    for array_type in be.array_types or (be.array_type,):
        _by_type[array_type] = be
    for cls in list(_tensor_types):
        be.register_tensor_type(cls)
    return be


_tensor_types: weakref.WeakSet[type] = weakref.WeakSet()


def register_tensor_type(cls: type) -> None:
    """``Tensor`` and each subclass, handed down as they are defined: the backends loaded now
    or later see each one (``Backend.register_tensor_type``)."""
    _tensor_types.add(cls)
    for be in list(_loaded.values()):
        be.register_tensor_type(cls)


_by_type[np.ndarray] = get_backend("numpy")


def backend_of(raw: Any) -> Backend | None:
    """The backend owning ``raw``, or None if no backend's array type matches."""
    be = _by_type.get(type(raw))
    if be is not None:
        return be
    library = _MODULE_OF_LIBRARY.get(type(raw).__module__.partition(".")[0])
    if library is None:
        return None
    if library == "numpy" and isinstance(raw, np.generic):
        return None
    try:
        be = get_backend(library)
    except ImportError:
        return None
    if be.owns(raw):
        _by_type[type(raw)] = be
        return be
    return None


def is_library_type(t: type) -> bool:
    """Whether ``t`` comes from a library interop has a backend for (its arrays are data to
    interop, whether or not that backend is loaded yet)."""
    return t in _by_type or t.__module__.partition(".")[0] in _MODULE_OF_LIBRARY


def owner(raw: Any) -> Backend:
    """The backend of an array known to be one (a tensor's own, an unwrapped operand)."""
    be = backend_of(raw)
    if be is None:
        raise TypeError(f"a {type(raw).__name__} is not an array of any interop backend")
    return be


def host_values(raw: Any, why: str) -> np.ndarray:
    """The values of ``raw`` in host memory: the one gate for value reads.

    Every place that turns array values into Python values or host memory
    (``bool``, ``int``, sizes and indices taken from tensors, data-dependent
    bounds) reads through here, so a lazy backend applies
    ``interop.config(dask_compute=...)`` to all of them alike.  ``why`` names
    the read in the messages (``"3.0 in t"``, ``"reshape(): a size"``).
    """
    be = backend_of(raw)
    return np.asarray(raw) if be is None else be.to_host(raw, why)


def python_value(x: Any, why: str) -> Any:
    """A Python number from a number, a NumPy scalar or a one-element array (a value read)."""
    if isinstance(x, (bool, int, float, complex)):
        return x
    if isinstance(x, np.generic):
        return x.item()
    return host_values(x, why).reshape(()).item()


def python_int(x: Any, why: str) -> int:
    """An ``int`` for a size, index or step: integers and integer tensors only, as torch."""
    try:
        return operator.index(python_value(x, why))
    except TypeError:
        raise TypeError(f"{why} must be an integer (or a one-element integer tensor), not "
                        f"{type(x).__name__} {x!r}: convert with int(...)") from None


def array_types() -> tuple[type, ...]:
    """The raw array types of the backends loaded so far."""
    return tuple(_by_type)


def default_backend() -> Backend:
    return get_backend(_default[0])


def set_default_backend(name: str) -> None:
    """Choose the backend for new tensors (also read from ``INTEROP_BACKEND``)."""
    get_backend(name)
    _default[0] = name


def on_host(raw: Any) -> bool:
    """False for an array on another device (a GPU, array-api-strict's): data there stays."""
    be = backend_of(raw)
    return be is None or be.device_of(raw).type == "cpu"


def backend_for_device(device: Any) -> Backend:
    """The backend that holds data on ``device``: the one it names (Dask), else NumPy for the
    host, CuPy for a GPU."""
    device = Device(device)
    return get_backend(device.backend or DEVICE_TYPES[device.type][0])


def common_backend(operands: list[tuple[Backend, Any]]) -> Backend:
    """The backend an operation on these (backend, raw array) pairs runs on."""
    first = operands[0][0]
    if all(be is first for be, _ in operands) and not first.multi_device:
        return first
    lazies = {be.name: be for be, _ in operands if be.lazy}
    if len(lazies) > 1:
        raise lazy_mismatch_error(sorted(lazies))
    lazy = next(iter(lazies.values()), None)
    # Scalars' kin: 0-d host arrays join any backend (0-d of any kind, within lazy graphs).
    devices = {be.device_of(raw) for be, raw in operands
               if raw.ndim > 0 or not (lazy or be.name == "numpy")}
    if len(devices) > 1:
        if not setting("implicit_transfer"):
            raise mismatch_error(operands)
        guard_transfer(operands)
    if lazy is not None:
        return lazy
    return next((be for be, raw in operands if be.name != "numpy"), first)


def common_device(operands: list[tuple[Backend, Any]]) -> Device:
    """Where an operation on mixed operands runs: the first operand's device off the host."""
    return next((d for d in (be.device_of(raw) for be, raw in operands) if d != CPU), CPU)


def guard_transfer(operands: list[tuple[Backend, Any]]) -> None:
    """An implicit move between devices is about to happen: ``transfer_guard`` says what to do."""
    level = setting("transfer_guard")
    if level == "allow":
        return
    devices = ", ".join(sorted({f"{be.device_of(raw)} ({be.name})" for be, raw in operands}))
    what = f"implicit transfer between {devices}"
    if level == "disallow":
        raise DeviceMismatchError(f"{what} forbidden by interop.transfer_guard('disallow'): move "
                                  "operands explicitly with t.to(...), t.cuda() or t.cpu()")
    logging.getLogger("interop.transfer").warning("%s (interop.transfer_guard('log'))", what)


def lazy_mismatch_error(names: list[str]) -> TypeError:
    """Two lazy libraries in one call: neither graph can hold the other's arrays."""
    a, b = names[:2]
    return TypeError(
        f"operands on two lazy backends, {a} and {b}: neither library's graph can take the "
        f"other's arrays. Move one explicitly, e.g. t.to(backend='{b}') (it computes a {a} "
        f"tensor's values) or t.compute() first")


def mismatch_error(operands: list[tuple[Backend, Any]]) -> DeviceMismatchError:
    seen: dict = {}
    for be, raw in operands:
        seen.setdefault(str(be.device_of(raw)), be.name)
    (dev_a, name_a), (dev_b, name_b) = list(seen.items())[:2]
    target = dev_b if dev_a == "cpu" else dev_a
    return DeviceMismatchError(
        f"Expected all tensors to be on the same device, but found at least two devices, "
        f"{dev_a} ({name_a}) and {dev_b} ({name_b}). Move one explicitly, e.g. "
        f"t.to('{target}') or t.cpu(); or allow moves with "
        "interop.config(implicit_transfer=True).")
