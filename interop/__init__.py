"""interop: write array code once; run it on NumPy, CuPy or Dask, through PyTorch's,
NumPy's or the Array API's vocabulary.

    >>> import interop
    >>> t = interop.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> t.sum(dim=0)
    tensor([4., 6.], backend='numpy')

Importing interop imports neither torch, CuPy nor Dask; each loads when used.
"""

from __future__ import annotations

import builtins
import sys
from typing import Any

from . import dtypes, overrides
from .backends import BACKEND_NAMES, Device, DeviceMismatchError, get_backend, set_default_backend
from .backends import dlpack as _dlpack
from .backends import registry as _registry
from .config import UNCHECKED_PROBES as _UNCHECKED_PROBES
from .config import config, transfer_guard
from .core import dispatch as _dispatch
from .core.tensor import SizeAttribute as _SizeAttribute
from .core.tensor import Tensor, stacked_if_lazy, to_raw
from .core.torch_function import DisableTorchFunction, DisableTorchFunctionSubclass, TorchFunctionMode
from .dtypes import (
    bool,
    cdouble,
    cfloat,
    complex64,
    complex128,
    double,
    float,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    int,
    int8,
    int16,
    int32,
    int64,
    long,  # noqa: A004
    set_default_dtype,
    short,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .errors import (
    DaskComputeError,
    DaskComputeWarning,
    InteropDeprecationWarning,
    InteropWarning,
    UnknownShapeError,
)
from .ops import TABLE as _TABLE
from .ops import install as _install
from .ops.creation.factories import Generator, default_generator, manual_seed
from .ops.dask_api import compute_all as compute
from .ops.dask_api import persist_all as persist
from .surfaces import dask_collection as _dask_collection
from .surfaces import dlpack_export as _dlpack_export
from .surfaces import einops_backend as _einops_backend
from .surfaces import numpy_protocols as _numpy_protocols
from .surfaces import torch_face as _torch_face
from .surfaces import torch_participant as _torch_participant
from .surfaces.after_import import when_imported as _when_imported
from .surfaces.torch_face import to_backend

_before_the_table = set(globals())
_install(Tensor, globals())
_FROM_THE_TABLE = sorted(set(globals()) - _before_the_table - {"_before_the_table"})
Tensor.size = _SizeAttribute(Tensor.__dict__["size"])  # type: ignore[attr-defined]  # int and size()
_dispatch.RESOLVERS.append(_torch_participant.resolve_torch_callable)
_numpy_protocols.install(Tensor)
_dlpack_export.install(Tensor)
_dask_collection.install(Tensor)
_einops_backend.install(sys.modules[__name__])
_torch_participant.register_collate(Tensor)
_torch_participant.check_dtypes_once_torch_loads()
for _compat in ("array_api_compat", "scipy._lib.array_api_compat", "sklearn.externals.array_api_compat"):
    _when_imported(_compat, _UNCHECKED_PROBES.append)  # (its vendored copies too)
_torch_face.install(Tensor)
from . import array_api  # noqa: E402  (interop.array_api: the standard's namespace)
from .backends.registry import default_backend as _default  # noqa: E402

array_api.install(Tensor)

device = Device


def tensor(data: Any, dtype: Any = None, device: Any = None, backend: str | None = None,
           *, chunks: Any = None, spec: Any = None, requires_grad: builtins.bool = False) -> Tensor:
    """A new tensor holding a copy of ``data`` (torch.tensor's role).

    ``backend`` picks numpy, cupy, dask, torch, jax or cubed (default:
    ``set_default_backend`` / ``INTEROP_BACKEND`` for host data, or the backend ``data``
    already lives on: a lazy array's, or a torch tensor's copy stays torch's);
    ``chunks`` applies to the lazy backends (Dask, Cubed), ``spec`` (a ``cubed.Spec``:
    the memory bound and executor) to Cubed.
    """
    options = {k: v for k, v in (("chunks", chunks), ("spec", spec)) if v is not None}
    raw = data = data._raw if isinstance(data, Tensor) else stacked_if_lazy(data)
    source = _registry.backend_of(raw)
    if backend is None and device is None and not hasattr(raw, "__cuda_array_interface__") \
            and not (source is not None and source.lazy) \
            and not type(raw).__module__.startswith("torch") and _registry.on_host(raw):
        backend = default_backend()  # host data follows the default backend; torch's stays torch
    return _dispatch.make(Tensor, to_raw(data, dtype, device, backend, copy=True, **options))


def as_tensor(data: Any, dtype: Any = None, device: Any = None, backend: str | None = None,
              *, chunks: Any = None) -> Tensor:
    """A tensor sharing memory with ``data`` when it can (no copy), as ``torch.as_tensor``."""
    if isinstance(data, Tensor) and dtype is None and device is None and backend is None:
        return data
    options = {"chunks": chunks} if chunks is not None else {}
    return _dispatch.make(Tensor, to_raw(data, dtype, device, backend, copy=None, **options))


def asarray(obj: Any, *, dtype: Any = None, device: Any = None, copy: builtins.bool | None = None,
            backend: str | None = None) -> Tensor:
    """torch.asarray: share memory unless ``copy=True`` or a conversion needs a copy."""
    if copy:
        return tensor(obj, dtype=dtype, device=device, backend=backend)
    return as_tensor(obj, dtype=dtype, device=device, backend=backend)


def from_dlpack(x: Any) -> Tensor:
    """Zero-copy import of any DLPack producer (torch, CuPy, JAX, NumPy) as a NumPy (host)
    or CuPy (GPU) tensor; ``interop.as_tensor(torch_tensor)`` keeps a torch tensor instead."""
    return as_tensor(x if isinstance(x, Tensor) else _dlpack.foreign_to_raw(x))


def is_tensor(obj: Any) -> builtins.bool:
    """True for interop tensors (and subclasses)."""
    return isinstance(obj, Tensor)


def make_subclass(t: Tensor, cls: type) -> Tensor:
    """``t``'s data as an instance of the Tensor subclass ``cls`` (no copy)."""
    return t.as_subclass(cls)


def default_backend() -> str:
    """The name of the backend new tensors use."""
    return _default().name


def operations() -> list[str]:
    """Names of every operation in the table (the coverage is this one number)."""
    return sorted(_TABLE)


def _installed_version() -> str:
    """The version pip installed (pyproject.toml is its one source); a source tree that was
    never installed has no metadata, and says so rather than guess."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("interop-tensor")
    except PackageNotFoundError:
        return "0+unknown"


__version__ = _installed_version()

__all__ = [  # the names given here; the table's functions follow (interop.add, interop.sum, ...)
    "BACKEND_NAMES", "DaskComputeError", "DaskComputeWarning", "Device", "DeviceMismatchError",
    "DisableTorchFunction", "DisableTorchFunctionSubclass", "Generator",
    "InteropDeprecationWarning", "InteropWarning",
    "Tensor", "TorchFunctionMode", "UnknownShapeError", "array_api", "as_tensor", "asarray",
    "bool", "cdouble", "cfloat", "complex64", "complex128", "compute", "config",
    "default_backend", "default_generator", "device", "double", "dtypes", "float", "float16",
    "float32", "float64", "from_dlpack", "get_backend", "get_default_dtype", "half", "int",
    "int8", "int16", "int32", "int64", "is_tensor", "long", "make_subclass", "manual_seed",
    "operations", "overrides", "persist", "set_default_backend", "set_default_dtype", "short",
    "stacked_if_lazy", "tensor", "to_backend", "to_raw", "transfer_guard", "uint8", "uint16",
    "uint32", "uint64",
]
__all__ += [name for name in _FROM_THE_TABLE if not name.startswith("_")]


def __getattr__(name: str) -> Any:
    """``interop.bfloat16``, loaded from ml_dtypes only when asked for (an optional extra);
    without it an AttributeError (``hasattr`` is False) that says how to install it.
    ``interop.TorchTensor``, the torch face's class, made (and torch imported) when asked for."""
    if name == "TorchTensor":
        return _torch_face.torch_tensor_class()
    if name == "bfloat16":
        try:
            return dtypes.bfloat16_dtype()
        except dtypes.BFloat16UnavailableError as missing:
            raise AttributeError(str(missing)) from missing
    raise AttributeError(f"module 'interop' has no attribute {name!r}")
