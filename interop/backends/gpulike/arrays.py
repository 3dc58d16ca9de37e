"""NumPy arrays on a device of their own, under a GPU's rules: the arrays of the ``gpulike``
test backend.

A ``DeviceArray`` holds a NumPy array but meets host data as CuPy's arrays do:

- ``np.asarray(a)`` (``__array__``) is refused with CuPy's message: values reach the host
  only by ``a.get()`` (the backend's ``to_host``);
- NumPy's ufuncs and functions on it (NEP 13/18) run on its data and refuse host arrays
  among their operands (and lists, in a ufunc), as CuPy's kernels do; Python and NumPy
  scalars join;
- index arrays may come from the host (CuPy copies them over), written values may not;
- reductions give 0-d arrays, not NumPy scalars; ``flags`` has no ``writeable``;
- a scalar zero is written as CuPy's ``fill`` writes it, by memset: ``-0.0`` lands as +0
  (also in ``full`` and in ``asarray`` of 0-d host data, which CuPy fills).

``DeviceNamespace(numpy)`` stands for the ``cupy`` module: creation functions make device
arrays, the conversions (``asarray``, ``array``) take host data, every other function
unwraps its device arrays, runs NumPy and wraps what comes back.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

from ...devices import Device
from ..bounds import dims_indexed

DEVICE = Device("gpulike", 0)
HOST_REFUSED = ("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
                "construct a NumPy array explicitly.")  # CuPy's own words
CONVERSIONS = frozenset({"array", "asarray", "asanyarray", "ascontiguousarray",
                         "asfortranarray"})
"""The functions that take host data, as ``cupy.asarray`` does: an explicit move."""
HOST_INDICES = {"take": 1, ".take": 0}
"""Functions (``.name``: methods) whose index argument (at this position, or ``indices=``)
may be a host array: CuPy's ``take`` copies it over, as its indexing does."""
COMPARISONS = frozenset({"greater", "greater_equal", "less", "less_equal", "equal",
                         "not_equal"})
"""CuPy reads 0-d host arrays as scalars in these (``np.float32(1) < a`` hands NumPy's ufunc
a 0-d array: numpy/numpy#12142)."""
_HIDDEN = frozenset({"ctypes", "data", "device"})  # host pointers; the device is ours


def host_operand(x: Any) -> TypeError:
    return TypeError(f"Unsupported type {type(x)}: a host array beside arrays on {DEVICE} (a "
                     "GPU-like test device). Move it first (the backend's asarray, as "
                     "cupy.asarray does), or keep the test's host data on the host")


def unwrap(x: Any, host_ok: bool = False) -> Any:
    """``x`` with each device array replaced by its NumPy data (in lists, tuples and dicts);
    a host array or other array-like refused unless ``host_ok``."""
    kind = type(x)
    if kind is DeviceArray:
        return x._a
    if kind in (list, tuple):
        return kind(unwrap(v, host_ok) for v in x)
    if kind is dict:
        return {k: unwrap(v, host_ok) for k, v in x.items()}
    if not host_ok and not isinstance(x, (np.generic, type)) and \
            (isinstance(x, np.ndarray) or hasattr(type(x), "__array__")):
        raise host_operand(x)
    return x


def wrap(x: Any) -> Any:
    """NumPy's results on the device: arrays and NumPy scalars as device arrays (CuPy's
    reductions give 0-d arrays), in tuples, named tuples and lists too."""
    if isinstance(x, np.ndarray):
        if not x.flags.writeable and _view_of_writable(x):
            x.flags.writeable = True  # NumPy's diagonal is read-only, CuPy's arrays never are
        return DeviceArray(x)
    if isinstance(x, np.generic):
        return DeviceArray(np.asarray(x))
    if isinstance(x, tuple):
        items = [wrap(v) for v in x]
        return type(x)(*items) if hasattr(x, "_fields") else tuple(items)
    if type(x) is list:
        return [wrap(v) for v in x]
    return x


def _wrapped_around(index: Any, shape: tuple) -> Any:
    """Integer index arrays as CuPy reads them: out of range, they wrap around (no error)."""
    items = index if isinstance(index, tuple) else (index,)
    if not any(isinstance(i, np.ndarray) and i.dtype.kind in "iu" for i in items):
        return index
    fixed = tuple(i % shape[d] if isinstance(i, np.ndarray) and i.dtype.kind in "iu"
                  and d is not None and d < len(shape) and shape[d] else i
                  for i, d in zip(items, dims_indexed(items, len(shape))))
    return fixed if isinstance(index, tuple) else fixed[0]


def _as_cupy_writes(value: Any) -> Any:
    """A scalar zero as CuPy writes it, by memset: positive (backends/cupy/fills.py)."""
    if isinstance(value, (int, float, complex, np.generic)) and value == 0:
        return type(value)(0)
    return value


def _view_of_writable(x: np.ndarray) -> bool:
    """A view into writable memory, each element once (not a broadcast, which stays read-only
    for interop's checks)."""
    base = x.base
    return isinstance(base, np.ndarray) and base.flags.writeable and \
        all(stride != 0 for stride, n in zip(x.strides, x.shape) if n > 1)


def _on_device(x: Any) -> DeviceArray:
    return DeviceArray(np.asarray(unwrap(x, host_ok=True)))


def _native_kwargs(kwargs: dict) -> dict:
    """``device=`` is this device (dropped: NumPy knows only its CPU); ``like=`` too."""
    kwargs = dict(kwargs)
    kwargs.pop("like", None)
    device = kwargs.pop("device", None)
    if device is not None and Device(device) != DEVICE:
        raise ValueError(f"the gpulike backend holds data on {DEVICE} only, not {device}")
    return kwargs


def run(fn: Callable, args: Any, kwargs: dict, host_ok: bool = False, name: str = "") -> Any:
    """``fn`` (called ``name``) on the device arrays' data, its results back on the device."""
    index = HOST_INDICES.get(name)
    if index is not None:  # the index may come from the host: copied over, as CuPy does
        args, kwargs = list(args), dict(kwargs)
        if len(args) > index:
            args[index] = _on_device(args[index])
        elif "indices" in kwargs:
            kwargs["indices"] = _on_device(kwargs["indices"])
    return wrap(fn(*unwrap(args, host_ok), **unwrap(_native_kwargs(kwargs), host_ok)))


class Flags:
    """CuPy's ``flags``: contiguity and ownership, no ``writeable`` (device memory is)."""

    __slots__ = ("c_contiguous", "f_contiguous", "owndata")

    def __init__(self, flags: Any) -> None:
        self.c_contiguous, self.f_contiguous = flags.c_contiguous, flags.f_contiguous
        self.owndata = flags.owndata

    def __getitem__(self, name: str) -> bool:
        return getattr(self, {"C_CONTIGUOUS": "c_contiguous", "F_CONTIGUOUS": "f_contiguous",
                              "OWNDATA": "owndata"}[name])


class DeviceArray(NDArrayOperatorsMixin):
    """An array on the ``gpulike`` device (see the module's docstring for its rules)."""

    __slots__ = ("_a",)
    __hash__ = None

    def __init__(self, data: np.ndarray) -> None:
        self._a = data

    # ---------------------------------------------------------------- host data stays out
    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise TypeError(HOST_REFUSED)

    def get(self) -> np.ndarray:
        """A host copy of the values (CuPy's ``get``)."""
        return self._a.copy()

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: bool | None = None) -> Any:
        """Exported only as a copy to the host (``dl_device=(kDLCPU, 0)``, as CuPy copies out
        when asked): no other library has this device."""
        if dl_device is None or tuple(dl_device) != (1, 0) or copy is False:
            raise BufferError(f"an array on {DEVICE} (a test device) leaves by DLPack only as a "
                              "copy to the host: pass dl_device=(1, 0) (NumPy's "
                              "from_dlpack(x, device='cpu')), or move it with t.cpu()")
        return self._a.copy().__dlpack__(max_version=max_version)

    def __dlpack_device__(self) -> tuple[int, int]:
        return 12, 0  # DLPack's kDLExtDev: "reserved for testing extension devices"

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method in ("__call__", "outer"):
            for x in inputs:
                if type(x) in (list, tuple):  # CuPy's kernels take arrays and scalars only
                    raise host_operand(x)
        if ufunc.__name__ in COMPARISONS:
            inputs = tuple(x.item() if type(x) is np.ndarray and x.ndim == 0 else x
                           for x in inputs)
        out = kwargs.get("out")
        result = run(getattr(ufunc, method), inputs, kwargs)
        if out is None:
            return result
        results = result if isinstance(result, tuple) else (result,)
        given = tuple(o if o is not None else r for o, r in zip(out, results))  # out=(None, r)
        return given[0] if len(given) == 1 else given

    def __array_function__(self, func: Callable, types_: tuple, args: tuple,
                           kwargs: dict) -> Any:
        if not all(issubclass(t, (DeviceArray, np.ndarray)) for t in types_):
            return NotImplemented
        out = kwargs.get("out")
        result = run(func, args, kwargs)
        return result if out is None else out

    # ---------------------------------------------------------------- NumPy's array API
    def __array_namespace__(self, api_version: str | None = None) -> DeviceNamespace:
        return standard_namespace()

    @property
    def device(self) -> Device:
        return DEVICE

    @property
    def flags(self) -> Flags:
        return Flags(self._a.flags)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in _HIDDEN:  # __array_interface__, __dlpack__, ...
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        value = getattr(self._a, name)
        if callable(value) and not isinstance(value, np.ndarray):
            return _method(value, name)
        return wrap(value)

    def __getitem__(self, index: Any) -> Any:
        return wrap(self._a[_wrapped_around(unwrap(index, host_ok=True), self._a.shape)])

    def __setitem__(self, index: Any, value: Any) -> None:
        self._a[_wrapped_around(unwrap(index, host_ok=True), self._a.shape)] = \
            _as_cupy_writes(unwrap(value))

    def fill(self, value: Any) -> None:
        self._a.fill(_as_cupy_writes(value))

    def __len__(self) -> int:
        return len(self._a)

    def __iter__(self) -> Any:
        return (self[i] for i in range(len(self)))

    def __contains__(self, value: Any) -> bool:
        return unwrap(value) in self._a

    def __bool__(self) -> bool:
        return bool(self._a)

    def __int__(self) -> int:
        return int(self._a)

    def __float__(self) -> float:
        return float(self._a)

    def __complex__(self) -> complex:
        return complex(self._a)

    def __index__(self) -> int:
        return self._a.__index__()

    def __copy__(self) -> DeviceArray:
        return DeviceArray(self._a.copy())

    def __deepcopy__(self, memo: dict) -> DeviceArray:
        return DeviceArray(self._a.copy())

    def __reduce__(self) -> tuple:
        return DeviceArray, (self._a,)

    def __repr__(self) -> str:
        return repr(self._a).replace("array(", "device_array(", 1)

    def __str__(self) -> str:
        return str(self._a)


def _method(bound: Callable, name: str) -> Callable:
    """A method of the NumPy data, taking and giving device arrays."""
    def method(*args: Any, **kwargs: Any) -> Any:
        return run(bound, args, kwargs, name=f".{name}")
    return method


class DeviceNamespace:
    """A module (or object) of NumPy's API whose functions take and give device arrays:
    ``DeviceNamespace(numpy)`` stands for ``cupy``, ``(numpy.linalg)`` for ``cupy.linalg``.

    Ufuncs are NumPy's own (they reach the arrays' ``__array_ufunc__``); types and constants
    pass through; ``ndarray`` is ``DeviceArray``."""

    def __init__(self, target: Any) -> None:
        self._target = target

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if isinstance(value, types.ModuleType):
            value = DeviceNamespace(value)
        elif name == "ndarray":
            value = DeviceArray
        elif name == "__array_namespace_info__":
            return lambda: DeviceInfo(self._target.__array_namespace_info__())
        elif callable(value) and not isinstance(value, (type, np.ufunc)):
            value = functools.wraps(value)(functools.partial(run_named, value, name))
        if not name.startswith("_"):
            setattr(self, name, value)  # found once
        return value

    def __repr__(self) -> str:
        return f"<{getattr(self._target, '__name__', type(self._target).__name__)} on {DEVICE}>"


class DeviceInfo:
    """array-api-compat's NumPy inspection namespace, answering for the device."""

    def __init__(self, native: Any) -> None:
        self._native = native

    def capabilities(self) -> dict:
        return self._native.capabilities()

    def default_device(self) -> Device:
        return DEVICE

    def devices(self) -> list[Device]:
        return [DEVICE]

    def default_dtypes(self, *, device: Any = None) -> dict:
        return self._native.default_dtypes(**_native_kwargs({"device": device}))

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict:
        return self._native.dtypes(kind=kind, **_native_kwargs({"device": device}))


@functools.cache
def standard_namespace() -> DeviceNamespace:
    """The Array API namespace of device arrays: array-api-compat's NumPy one, on the device."""
    import array_api_compat.numpy as compat_numpy  # it imports numpy.testing: on first use
    return DeviceNamespace(compat_numpy)


def run_named(fn: Callable, name: str, *args: Any, **kwargs: Any) -> Any:
    if name in ("full", "full_like"):  # CuPy's fill them: a zero by memset
        args = (*args[:1], _as_cupy_writes(args[1]), *args[2:]) if len(args) > 1 else args
        if "fill_value" in kwargs:
            kwargs["fill_value"] = _as_cupy_writes(kwargs["fill_value"])
    out = run(fn, args, kwargs, name in CONVERSIONS, name)
    if name in CONVERSIONS and isinstance(out, DeviceArray) and not out.ndim and \
            not isinstance(args[0] if args else None, DeviceArray):
        out[...] = out._a[()]  # CuPy fills a 0-d array made of host data: a zero by memset
    return out
