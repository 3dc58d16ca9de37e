"""What every backend knows: its array type, namespaces, devices and data movement.

A backend is a small object, one per array library.  The operation table
never names a library: it asks the backend of its operands for ``xp`` (the
array-api-compat namespace, standard semantics) or ``np`` (the library's own
NumPy-compatible module, for functions the standard lacks or where it is
faster), and for device and transfer services below.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np

from ..config import setting
from ..dtypes import TORCH_STAND_INS, call_with_torch_objects
from ..errors import unknown_name


# Device types, the backend that holds data there, and the index a bare type means.
# "strict:N" is array-api-strict's Device("deviceN"): a second device without a GPU,
# so the device logic below is exercised on every CI run (tests/test_devices_strict.py).
BACKEND_NAMES = ("numpy", "cupy", "dask", "strict", "torch", "jax", "cubed")
DEVICE_TYPES: dict[str, tuple[str, int | None]] = {
    "cpu": ("numpy", None), "cuda": ("cupy", 0), "strict": ("strict", 1)}


class Device(str):
    """Where data lives: ``Device("cpu")``, ``Device("cuda", 0)`` (or ``Device("strict", 1)``).

    A ``str`` whose value is the torch spelling (``"cpu"``, ``"cuda:0"``): torch's argument
    parser takes it where it takes a device string, so torch code such as
    ``torch.zeros(n, device=x.device)`` (in ``nn.LSTM.forward``) runs, and NumPy's
    ``device="cpu"`` takes a CPU one.  Compares equal to the strings torch uses (``"cpu"``,
    ``"cuda"``, ``"cuda:0"``), so code written for torch devices keeps working.

    ``backend`` names the backend of the arrays there when it is not the one
    the device type means: a Dask tensor's device is its chunks' device
    (``== "cpu"``) with ``backend="dask"``, so ``xp.zeros(n, device=x.device)``
    makes a Dask array, as Array API consumers expect of ``x.device``.
    """

    type: str
    index: int | None
    backend: str | None

    def __new__(cls, type: str | Device, index: int | None = None, *,  # noqa: A002
                backend: str | None = None) -> Device:
        if isinstance(type, Device):
            backend = backend or type.backend
            type, index = type.type, type.index if index is None else index
        elif not isinstance(type, str) and hasattr(type, "type") and hasattr(type, "index"):
            type, index = type.type, type.index if index is None else index  # a torch.device
        elif ":" in type:
            type, _, idx = type.partition(":")
            index = int(idx)
        if type not in DEVICE_TYPES:
            hint = (f"{type!r} is a backend: pass backend={type!r}" if type in BACKEND_NAMES
                    else "did you mean 'cuda'" if type == "gpu" else "")
            raise unknown_name("device type", type, ("cpu", "cuda", "cuda:N", "strict:N"), hint)
        default = DEVICE_TYPES[type][1]
        index = None if default is None else default if index is None else index
        self = super().__new__(cls, type if index is None else f"{type}:{index}")
        self.type, self.index, self.backend = type, index, backend
        return self

    def __reduce__(self) -> tuple:
        return _device, (self.type, self.index, self.backend)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            try:
                other = Device(other)
            except ValueError:
                return False
        if not isinstance(other, Device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __str__(self) -> str:
        return str.__str__(self)

    def __repr__(self) -> str:
        index = "" if self.index is None else f", index={self.index}"
        backend = "" if self.backend is None else f", backend='{self.backend}'"
        return f"device(type='{self.type}'{index}{backend})"

    def to_torch(self) -> Any:
        """The torch.device of the same name (torch is loaded: only torch code asks)."""
        import torch
        return torch.device(str(self.memory))

    @classmethod
    def __torch_function__(cls, func: Any, types: tuple, args: tuple = (),
                           kwargs: dict | None = None) -> Any:
        """torch's parser sent the call here for a device in a torch slot
        (``torch.ones(3, device=t.device)``): run ``func`` with torch's device in its place."""
        return call_with_torch_objects(func, args, kwargs)

    @property
    def memory(self) -> Device:
        """The device itself, without a backend: where the (chunks') memory is."""
        return self if self.backend is None else Device(self.type, self.index)


def _device(type: str, index: int | None, backend: str | None) -> Device:  # noqa: A002
    """Device from its parts (unpickling)."""
    return Device(type, index, backend=backend)


TORCH_STAND_INS.add(Device)
CPU = Device("cpu")


class DeviceMismatchError(RuntimeError, ValueError):
    """Operands live on different devices and moving them was not allowed."""


class UnknownShapeError(RuntimeError, ValueError):
    """An operation needs sizes that a lazy array does not know yet (Dask's NaN chunks)."""


class InteropWarning(UserWarning):
    """Warnings issued by interop (tests turn them into errors)."""


class DaskComputeWarning(InteropWarning):
    """A Dask graph was computed for an implicit value read (``dask_compute='warn'``)."""


class DaskComputeError(RuntimeError):
    """A Dask graph would be computed for an implicit value read (``dask_compute='raise'``)."""


# Libraries whose frames stand between the user's line and a value read: interop itself,
# and torch, NumPy and Dask when the user's call came in through their functions.
_LIBRARY_FRAMES = frozenset({"interop", "torch", "numpy", "dask"})


def user_stacklevel() -> int:
    """``warnings.warn``'s stacklevel, from the caller of this, that names the user's line.

    Walks out of the frames of interop (and of the libraries that called into
    it), so a warning points at the code that asked for the value.
    """
    frame, level = sys._getframe(2), 2
    while frame is not None and \
            frame.f_globals.get("__name__", "").partition(".")[0] in _LIBRARY_FRAMES:
        frame, level = frame.f_back, level + 1
    return level


def check_value_read(why: str, what: str) -> None:
    """An implicit value read is about to compute ``what`` (a lazy array, described for the
    message): ``interop.config(dask_compute=...)`` says whether it may, for every lazy backend."""
    policy = setting("dask_compute")
    if policy == "allow":
        return
    msg = (f"{why or 'reading the values'} computes {what}; call t.compute() to compute "
           f"explicitly, or set interop.config(dask_compute='allow') (now {policy!r})")
    if policy == "raise":
        raise DaskComputeError(msg)
    warnings.warn(msg, DaskComputeWarning, stacklevel=user_stacklevel())


class Backend:
    """Base class: one instance per array library, created on first use."""

    name: str = ""
    lazy: bool = False
    array_type: type = type(None)
    device_types: tuple[str, ...] = ("cpu",)  # the device types this backend holds data on
    multi_device: bool = False  # its arrays may sit on different devices (several GPUs)
    numpy_protocols: bool = True  # its arrays implement NEP 13/18: NumPy calls run its own code
    native_ops: bool = False  # its library has the table's operations itself (see ``native``)
    foreign_joins: bool = False  # its raw arrays beside tensors take their backend, as data
    mutable: bool = True  # False (JAX): arrays cannot be written; writes replay out of place
    # (views.forward), and the dispatcher registers the tensors of each call (views.hold)

    @property
    def xp(self) -> Any:
        """The array-api-compat namespace (Array API standard semantics)."""
        raise NotImplementedError

    @property
    def np(self) -> Any:
        """The library's NumPy-compatible module (numpy, cupy, dask.array)."""
        raise NotImplementedError

    def numpy_function(self, func: Any, method: str = "__call__") -> Any:
        """For a library whose arrays lack NumPy's protocols (``numpy_protocols`` False): the
        function NumPy's ``func`` names, found by name in ``self.np`` (``np.fft.fft`` ->
        ``self.np.fft.fft``); None where it has none, ufunc methods included."""
        if method != "__call__":
            return None
        module: Any = self.np
        for part in (getattr(func, "__module__", None) or "numpy").split(".")[1:]:
            module = getattr(module, part, None)
        return getattr(module, func.__name__, None)

    def native(self, names: tuple[str, ...]) -> Any:
        """The library's own implementation of an operation known by these torch names
        (``torch.add``, ``torch.Tensor.add``, ``torch.nn.functional.relu``): a callable on raw
        arrays run in place of interop's (torch semantics by construction); None: interop's
        implementation runs.  Asked only where ``native_ops`` is set (the fast path stays one
        attribute read for the others)."""
        return None

    def as_data(self, raw: Any) -> Any:
        """A raw array of this library passed beside tensors of other backends, as their data
        (only asked where ``foreign_joins`` is set): an array of theirs sharing its memory."""
        return raw

    def owns(self, raw: Any) -> bool:
        return isinstance(raw, self.array_type)

    def device_of(self, raw: Any) -> Device:
        return CPU

    def dtype_of(self, raw: Any) -> np.dtype:
        """The NumPy dtype of ``raw`` (the one interop reasons with)."""
        return raw.dtype

    def astype(self, raw: Any, dtype: np.dtype) -> Any:
        return raw.astype(dtype)

    def copy(self, raw: Any) -> Any:
        return raw.copy()

    def serves(self, device: Device) -> bool:
        """True if this backend can hold data on ``device`` (and the device names no other backend)."""
        return device.type in self.device_types and device.backend in (None, self.name)

    def native_device(self, device: Device) -> Any:
        """``device`` as this backend's array-api-compat namespace expects it."""
        return "cpu"

    def asarray(self, data: Any, dtype: np.dtype | None = None, device: Device | None = None,
                copy: bool | None = None, **options: Any) -> Any:
        """Make a backend array from host data (NumPy arrays, scalars, lists)."""
        raise NotImplementedError

    def create(self, fn: str, *args: Any, device: Device | None = None, chunks: Any = None,
               **kwargs: Any) -> Any:
        """Call a creation function (zeros, arange, ...) of this library on ``device``."""
        return getattr(self.np, fn)(*args, **kwargs)

    def to_device(self, raw: Any, device: Any) -> Any:
        """``raw`` on another device of this backend (an explicit move the user asked for)."""
        raise DeviceMismatchError(f"the {self.name} backend holds data on "
                                  f"{self.device_of(raw)} only, not on {device}: use "
                                  "backend='cupy' (or device='cuda') for GPU tensors")

    def random(self, seed: Any) -> Any:
        """A NumPy-style ``Generator`` producing arrays of this backend from ``seed``."""
        return np.random.default_rng(seed)

    # What the libraries spell differently: operations call these, never branch on a name.
    def getitem(self, raw: Any, index: Any) -> Any:
        """``raw[index]`` with NumPy's meaning (Cubed refuses negative steps)."""
        return raw[index]

    def view_at(self, raw: Any, index: tuple) -> Any:
        """``raw[index]`` as a view whose writes reach ``raw``."""
        return raw[index]

    def write_at(self, raw: Any, index: Any, value: Any) -> None:
        """``raw[index] = value`` in place (basic or boolean ``index``, already checked)."""
        raw[index] = value

    def updated(self, raw: Any, index: Any, value: Any, how: str | None = None) -> Any:
        """``raw`` with ``raw[index] = value`` (``how`` None), or with ``value`` combined into
        ``raw[index]`` by the ufunc ``how`` (``add``, ``multiply``, ``minimum``, ``maximum``;
        repeated indices accumulate, as ``ufunc.at``): ``raw`` itself, written in place, for
        implementations that build a result in a fresh array; a new array where arrays are
        immutable (JAX).  Use the returned array."""
        if how is None:
            raw[index] = value
        else:
            self.ufunc(how).at(raw, index, value)
        return raw

    def register_tensor_type(self, cls: type) -> None:
        """``cls`` (``Tensor`` or a subclass) was defined: a backend may register it with its
        library (JAX: as a pytree).  Called for each such class, also those defined before
        the backend loaded."""

    def in_one_task(self, impl: Any, shape: tuple, dtype: Any, *args: Any) -> Any:
        """``impl(backend, *args)`` on whole arrays: eager backends call it; lazy ones make one
        task of it (its result of ``shape`` and ``dtype``), which runs it on the chunks'
        backend."""
        return impl(self, *args)

    def write_target(self, raw: Any, name: str) -> Any:
        """The array a write into a tensor holding ``raw`` lands in: ``raw`` itself, its own
        buffer.  A library whose arrays cannot change (Cubed) gives a fresh alias, replaced
        in place by the write, that the tensor then holds (``dispatch.write_into``)."""
        return raw

    def advanced_index(self, raw: Any, items: tuple) -> Any:
        """``raw[items]``, NumPy's advanced indexing for items that are whole-dimension slices,
        ``...`` and index arrays (integers were applied before, as torch applies them; a
        lazy backend may get 0-d integer arrays too, which select as those integers)."""
        return raw[items]

    def advanced_assign(self, raw: Any, items: tuple, value: Any) -> None:
        """``raw[items] = value`` in place, for the same items."""
        raw[items] = value

    def ufunc(self, name: str) -> Any:
        """The library's ufunc ``name``, else NumPy's, which arrays implementing NEP 13 (Dask's
        lazily, CuPy's on the GPU) run themselves."""
        fn = getattr(self.np, name, None)
        return fn if fn is not None else getattr(np, name)

    def ufunc_reduce(self, name: str, raw: Any, axis: Any, keepdims: bool = False) -> Any:
        """``numpy.<name>.reduce`` (``bitwise_xor``, ...) over ``axis`` (None: every axis)."""
        return self.ufunc(name).reduce(raw, axis=axis, keepdims=keepdims)

    def contiguous(self, raw: Any) -> Any:
        """A C-contiguous array with ``raw``'s values (``raw`` itself when it already is)."""
        return self.np.ascontiguousarray(raw).reshape(raw.shape)  # 0-d stays 0-d

    def unique_all(self, flat: Any) -> tuple[Any, Any, Any]:
        """(values, inverse indices, counts) of a 1-d array."""
        res = self.xp.unique_all(flat)
        return res.values, res.inverse_indices, res.counts

    @property
    def special(self) -> Any:
        """The SciPy-style special-function module for this library's arrays."""
        import scipy.special  # optional: only torch.special needs it
        return scipy.special

    def per_block(self, fn: Any, raw: Any) -> Any:
        """``fn`` (elementwise, same shape and dtype) on ``raw``: on lazy backends per chunk,
        for functions that do not take lazy arrays (SciPy's multi-output ufuncs)."""
        return fn(raw)

    def cholesky(self, a: Any) -> Any:
        """The lower Cholesky factor."""
        return self.np.linalg.cholesky(a)

    def qr(self, a: Any, mode: str) -> tuple[Any, Any]:
        """(Q, R) in ``mode`` 'reduced' or 'complete'."""
        return self.np.linalg.qr(a, mode=mode)

    def svd(self, a: Any, full_matrices: bool) -> tuple[Any, Any, Any]:
        """(U, S, Vh)."""
        return self.np.linalg.svd(a, full_matrices=full_matrices)

    def svdvals(self, a: Any) -> Any:
        """The singular values, descending."""
        return self.np.linalg.svd(a, compute_uv=False)

    def from_foreign(self, raw: Any, source: Backend, **options: Any) -> Any:
        """Bring an array of another backend in (policy already checked by the caller)."""
        return self.asarray(source.to_host(raw), **options)

    def to_host(self, raw: Any, why: str = "") -> np.ndarray:
        """A NumPy array with the same values (may compute or copy; callers decide when).

        ``why`` names the call that needs the values (``item()``, ``np.asarray``),
        for the messages of lazy backends.
        """
        return np.asarray(raw)

    def compute(self, *raws: Any, **kwargs: Any) -> tuple:
        """The values of ``raws`` in memory, computed together (eager backends: the arrays)."""
        return raws

    def persist(self, *raws: Any, **kwargs: Any) -> tuple:
        """``raws`` with their values held in (cluster) memory (eager backends: the arrays)."""
        return raws

    def explain_error(self, name: str, args: list, exc: Exception) -> Exception | None:
        """A clearer error for ``exc``, raised by operation ``name`` on ``args``; None: no better one."""
        return None

    def chunk_backend(self, raw: Any) -> Backend:
        """The backend that holds the data: itself, except for Dask's chunks."""
        return self

    def __repr__(self) -> str:
        return f"<interop backend {self.name!r}>"
