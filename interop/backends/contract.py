"""What every backend knows: its array type, namespaces, devices and data movement.

A backend is a small object, one per array library.  The operation table
never names a library: it asks the backend of its operands for ``xp`` (the
array-api-compat namespace, standard semantics) or ``np`` (the library's own
NumPy-compatible module, for functions the standard lacks or where it is
faster), and for device and transfer services below.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..devices import CPU, Device
from ..errors import DeviceMismatchError



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
    standard_fixes: dict[str, Any] = {}  # Array API functions its compat namespace gets wrong
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
