"""The backend contract: what interop asks of an array library, and what it may ask.

A backend is one object per array library (``backends/<library>/backend.py``).  The
operation table never names a library: it asks the backend of its operands for ``xp``
(the array-api-compat namespace, standard semantics) or ``np`` (the library's own
NumPy-compatible module), and for the services below wherever libraries differ, so an
operation is written once.

- **Declared capabilities** are class attributes: what the library is (lazy, mutable,
  on several devices, ...), read by the core and by operations.
- **Required** methods (``abstractmethod``) have no sensible default: every backend
  implements them; ``tests/test_backend_contract.py`` checks that each does.
- **Optional** methods have a default that suits an eager host library with NumPy's API
  (NumPy itself); a backend overrides what its library does otherwise.

Each docstring names the equivalent call of the libraries that differ, as
``NumPy: ...; CuPy: ...; Dask: ...; torch: ...; JAX: ...; Cubed: ...``.  A new backend:
a package ``backends/<name>/`` whose ``backend.py`` defines ``backend`` (the instance),
its name in ``devices.BACKEND_NAMES`` and one line in ``registry._LIBRARIES``.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy
import numpy as np

from ..devices import CPU, Device
from ..errors import BackendLacksError, DeviceMismatchError


class Backend(abc.ABC):
    """One array library behind the facade (an instance per library, made on first use)."""

    # ------------------------------------------------------------ declared capabilities
    name: ClassVar[str] = ""
    """Its name in ``interop.BACKEND_NAMES`` (required: a class attribute of every backend)."""
    array_type: ClassVar[Any] = type(None)
    array_types: ClassVar[tuple[Any, ...]] = ()
    """Every array type the backend owns where there are more than ``array_type`` (Cubed: its
    arrays and the subclass interop holds them as); empty: ``(array_type,)``."""
    """The type of its arrays (required: a class attribute of every backend)."""
    lazy: ClassVar[bool] = False
    """Operations build a graph and compute nothing (Dask, Cubed): a value read computes,
    under ``interop.config(dask_compute=...)``."""
    container: ClassVar[bool] = False
    """Its arrays are graphs over another library's arrays (Dask over NumPy or CuPy chunks):
    a move to another device keeps this backend and moves the chunks."""
    device_types: ClassVar[tuple[str, ...]] = ("cpu",)
    """The device types it holds data on."""
    multi_device: ClassVar[bool] = False
    """Its arrays may sit on different devices (several GPUs): calls compare devices."""
    numpy_protocols: ClassVar[bool] = True
    """Its arrays implement NEP 13/18: NumPy calls on them run its own code."""
    native_ops: ClassVar[bool] = False
    """Its library has the table's operations itself, under torch's names (``native``)."""
    foreign_joins: ClassVar[bool] = False
    """Its raw arrays beside other backends' tensors are their data (``as_data``)."""
    mutable: ClassVar[bool] = True
    """False (JAX): arrays cannot be written; writes replay out of place (``views.forward``)
    and the dispatcher registers the tensors of each call (``views.hold``)."""
    standard_fixes: ClassVar[dict[str, Callable]] = {}
    """Array API functions its array-api-compat namespace gets wrong, by name, replaced."""

    # ------------------------------------------------------------ required
    @property
    @abc.abstractmethod
    def xp(self) -> Any:
        """The Array API namespace.  NumPy: ``array_api_compat.numpy``; CuPy:
        ``array_api_compat.cupy``; Dask: ``array_api_compat.dask.array``; torch:
        ``array_api_compat.torch``; JAX: ``jax.numpy``; Cubed: ``cubed.array_api``."""

    @property
    @abc.abstractmethod
    def np(self) -> Any:
        """The NumPy-compatible module.  NumPy: ``numpy``; CuPy: ``cupy``; Dask:
        ``dask.array``; torch, JAX, Cubed: a namespace of NumPy's names over the library."""

    @abc.abstractmethod
    def asarray(self, data: Any, dtype: numpy.dtype | None = None, device: Device | None = None,
                copy: bool | None = None, **options: Any) -> Any:
        """An array of this library holding host data (NumPy arrays, scalars, lists).
        NumPy: ``np.asarray``; CuPy: ``cupy.asarray``; Dask: ``da.from_array(chunks=)``;
        torch: ``torch.asarray``; JAX: ``jnp.asarray``; Cubed: ``cubed.from_array``."""

    # ------------------------------------------------------------ arrays and dtypes
    def owns(self, raw: Any) -> bool:
        """Whether ``raw`` is one of its arrays."""
        return isinstance(raw, self.array_type)

    def shape_of(self, raw: Any) -> tuple:
        """``raw``'s shape as users see it (``t.shape``): a tuple of ints, and None for a size
        a lazy library does not know yet (Dask's NaN; the Array API standard's None)."""
        return tuple(raw.shape)

    def dtype_of(self, raw: Any) -> numpy.dtype:
        """The NumPy dtype of ``raw`` (the one interop reasons with; torch: converted)."""
        return raw.dtype

    def astype(self, raw: Any, dtype: numpy.dtype) -> Any:
        """``raw`` in ``dtype``.  torch: ``.to(dtype)``; the others: ``.astype``."""
        return raw.astype(dtype)

    def copy(self, raw: Any) -> Any:
        """A copy that no write to ``raw`` reaches.  torch: ``.clone()``; Dask, Cubed: the
        graph itself (their arrays are never written in place)."""
        return raw.copy()

    # ------------------------------------------------------------ devices and data movement
    def device_of(self, raw: Any) -> Device:
        """Where ``raw``'s data lives.  CuPy: ``raw.device``; Dask: its chunks' device."""
        return CPU

    def serves(self, device: Device) -> bool:
        """True if this backend can hold data on ``device`` (and the device names no other)."""
        return device.type in self.device_types and device.backend in (None, self.name)

    def native_device(self, device: Device) -> Any:
        """``device`` as the library's own functions take it (CuPy: ``cupy.cuda.Device``)."""
        return "cpu"

    def to_device(self, raw: Any, device: Any) -> Any:
        """``raw`` on another device of this backend (an explicit move the user asked for).
        CuPy: ``cupy.asarray`` under ``with device``; Dask: its chunks moved."""
        raise DeviceMismatchError(f"the {self.name} backend holds data on "
                                  f"{self.device_of(raw)} only, not on {device}: use "
                                  "backend='cupy' (or device='cuda') for GPU tensors")

    def from_foreign(self, raw: Any, source: Backend, **options: Any) -> Any:
        """An array of another backend brought in (the policy already checked the move)."""
        return self.asarray(source.to_host(raw), **options)

    def to_host(self, raw: Any, why: str = "") -> numpy.ndarray:
        """A NumPy array with ``raw``'s values: the one gate of value reads.  CuPy:
        ``raw.get()``; Dask, Cubed: computed, under ``dask_compute``; JAX: refused under
        tracing.  ``why`` names the call that needs the values, for the messages."""
        return np.asarray(raw)

    def peek(self, raw: Any) -> Any:
        """The Python value of a small array where reading it costs nothing, else None.

        For checks an eager library makes before it runs (torch's argument checks: a
        negative ``std``, an integer division by zero): on a lazy backend the value is
        not known without computing, so the check is left to the library (None); likewise
        a value JAX is tracing."""
        if isinstance(raw, (bool, int, float, complex)):
            return raw
        return raw.item() if isinstance(raw, np.generic) else \
            self.to_host(raw, "a check of the arguments").reshape(()).item()

    def as_data(self, raw: Any) -> Any:
        """One of its arrays passed beside tensors of other backends, as their data (asked
        only where ``foreign_joins`` is set; torch: by DLPack)."""
        return raw

    def chunk_backend(self, raw: Any) -> Backend:
        """The backend that holds the data: itself, except for a container's chunks."""
        return self

    # ------------------------------------------------------------ creation
    def create(self, fn: str, *args: Any, device: Device | None = None, chunks: Any = None,
               **kwargs: Any) -> Any:
        """A creation function (``zeros``, ``arange``, ...) of the library on ``device``;
        ``chunks`` is for lazy libraries (eager ones ignore it)."""
        return getattr(self.np, fn)(*args, **kwargs)

    def random(self, seed: Any) -> Any:
        """A NumPy-style ``Generator`` of its arrays.  CuPy: ``cupy.random.default_rng``;
        Dask: ``da.random.default_rng``; JAX: NumPy's, moved in."""
        return np.random.default_rng(seed)

    def chunking(self, raw: Any) -> Any:
        """``raw``'s chunks (Dask's ``.chunks``), or None for an array not in chunks."""
        return None

    def chunk_options(self, chunks: Any) -> dict[str, Any]:
        """The keyword arguments its creation functions and generators take for ``chunks``
        (None: its default chunking): ``{}`` for a library without chunks."""
        return {}

    # ------------------------------------------------------------ lazy evaluation
    def compute(self, *raws: Any, **kwargs: Any) -> tuple:
        """The values of ``raws`` in memory, computed together.  Dask: ``dask.compute``;
        Cubed: ``cubed.compute``; eager libraries: the arrays themselves."""
        return raws

    def persist(self, *raws: Any, **kwargs: Any) -> tuple:
        """``raws`` with their values held in (cluster) memory.  Dask: ``dask.persist``."""
        return raws

    def settle(self, raws: Sequence[Any]) -> None:
        """Wait until ``raws``, results of ``persist``, are held in memory: a ``distributed``
        cluster's persist returns at once, the others' when done (nothing to wait for)."""
        return None  # noqa: B027 - optional: only Dask has something to wait for

    def compute_chunk_sizes(self, raw: Any) -> Any:
        """Learn unknown (NaN) chunk sizes in place (Dask's ``compute_chunk_sizes``)."""
        raise BackendLacksError(f"compute_chunk_sizes: a {self.name} tensor has no chunks; make "
                                "it a Dask tensor with t.to(backend='dask', chunks=...)")

    def in_one_task(self, impl: Callable, shape: tuple, dtype: Any, *args: Any) -> Any:
        """``impl(backend, *args)`` on whole arrays: eager backends call it; lazy ones make
        one task of it (its result of ``shape`` and ``dtype``), which runs it on the
        chunks' backend.  Dask: ``dask.delayed`` + ``da.from_delayed``."""
        return impl(self, *args)

    def blockwise(self, impl: Callable, spec: Any, args: tuple, kwargs: dict) -> Any:
        """``impl(backend, *args, **kwargs)`` run block by block, where ``spec``
        (``ops.blockwise.Blockwise``) says along which axes of ``args[0]`` it is independent:
        one task per chunk, calling ``impl`` on the chunks' backend.  NotImplemented where
        this library has no blocks (eager ones) or the call does not fit: ``impl`` then
        runs as it is.  Dask: ``da.blockwise``."""
        return NotImplemented

    def per_block(self, fn: Callable, raw: Any) -> Any:
        """``fn`` (elementwise, same shape and dtype) on ``raw``: lazy libraries per chunk,
        for functions that do not take their arrays (SciPy's ufuncs).  Dask: ``map_blocks``."""
        return fn(raw)

    def windows(self, raw: Any, window: tuple[int, ...], axes: tuple[int, ...]) -> Any:
        """Every ``window``-shaped window of ``raw`` along ``axes`` at once, as a read-only
        strided view (the windows' axes appended after ``raw``'s, as NumPy's
        ``sliding_window_view`` lays them out), or None where the library has no strided
        views: callers then take the windows one offset at a time."""
        return None

    def whole_along(self, raw: Any, *axes: int) -> Any:
        """``raw`` with each of ``axes`` in one chunk, as functions that need an axis whole
        (FFTs, scans written per block) want it.  Dask: ``rechunk({axis: -1})``."""
        return raw

    def on_matrices(self, fn: Callable, raw: Any, matrix_shape: tuple | None = None) -> Any:
        """``fn(block, np)`` on blocks holding whole matrices (the last two axes), each
        becoming ``matrix_shape`` (None: unchanged): eager libraries call it once on
        ``raw``; Dask: ``map_blocks`` over the matrices' batch chunks."""
        return fn(raw, self.np)

    def along_axis(self, fn: Callable, raw: Any, axis: int, size: int) -> Any:
        """``fn(block, np)`` on blocks holding the whole ``axis``, which becomes ``size`` long
        (the other axes keep their chunks): eager libraries call it once on ``raw``."""
        return fn(raw, self.np)

    # ------------------------------------------------------------ indexing, views and writes
    def getitem(self, raw: Any, index: Any) -> Any:
        """``raw[index]`` with NumPy's meaning.  Cubed: negative steps by reversing."""
        return raw[index]

    def view_at(self, raw: Any, index: Any) -> Any:
        """``raw[index]`` for a basic index, as a view whose writes reach ``raw`` (Dask: a
        slice remembered for the write replay, ``views.remember``)."""
        return raw[index]

    def select(self, raw: Any, index: Any, name: str) -> Any:
        """``raw[index]`` for a basic or boolean index already checked against the shape:
        a view where the library has them.  Dask: bounds checked when the graph runs,
        and remembered for the write replay."""
        items = index if isinstance(index, tuple) else (index,)
        if not any(i is Ellipsis for i in items):
            items = (*items, Ellipsis)  # 0-d results stay views, not NumPy scalars
        return self.view_at(raw, items)

    def write_at(self, raw: Any, index: Any, value: Any, name: str = "t[index] = value") -> None:
        """``raw[index] = value`` in place (basic or boolean ``index``, already checked).
        Dask: replayed into the graph, bounds checked when it runs."""
        raw[index] = value

    def updated(self, raw: Any, index: Any, value: Any, how: str | None = None) -> Any:
        """``raw`` with ``raw[index] = value`` (``how`` None), or with ``value`` combined into
        ``raw[index]`` by the ufunc ``how`` (``add``, ``multiply``, ``minimum``, ``maximum``;
        repeated indices accumulate, as ``ufunc.at``): ``raw`` itself, written in place, for
        implementations that build a result in a fresh array; a new array where arrays are
        immutable (JAX: ``.at[index].set``).  Use the returned array."""
        if how is None:
            raw[index] = value
        else:
            self.ufunc(how).at(raw, index, value)
        return raw

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

    def assign_masked(self, target: Any, mask: Any, values: Any) -> bool:
        """``target[mask] = values`` where ``values`` have an unknown (NaN) size; False where
        the library cannot (Dask can, lazily, for values selected by the same mask)."""
        return False

    def checked_index(self, index: Any, shape: tuple, name: str) -> Any:
        """``index`` checked against ``shape`` where the check needs values: eager libraries
        raise at once (their indexing does); lazy ones check when the graph runs."""
        return index

    def index_array(self, items: list) -> Any:
        """A list in an index as an index array: the library's own (Dask: a host array, which
        it indexes with also where sizes are unknown)."""
        return self.np.asarray(items)

    def reshape(self, raw: Any, shape: tuple) -> Any:
        """``raw`` reshaped, NumPy's meaning.  Dask: rechunked first where its chunks cannot
        be split evenly, and empty arrays made directly (it fails on them)."""
        return self.np.reshape(raw, shape)

    def shares_memory(self, a: Any, b: Any) -> bool | None:
        """Whether ``a`` and ``b`` share memory; None for a library without memory to share
        (lazy graphs, immutable arrays).  NumPy, CuPy: ``shares_memory``."""
        return bool(self.np.shares_memory(a, b)) if self.mutable else None

    def contiguous(self, raw: Any) -> Any:
        """A C-contiguous array with ``raw``'s values (``raw`` itself when it already is)."""
        return self.np.ascontiguousarray(raw).reshape(raw.shape)  # 0-d stays 0-d

    # ------------------------------------------------------------ where libraries differ
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
        (``torch.add``, ``torch.nn.functional.relu``): a callable on raw arrays run in place
        of interop's (torch semantics by construction); None: interop's runs.  Asked only
        where ``native_ops`` is set (the fast path stays one attribute read for the others)."""
        return None

    def numpy_supplement(self, func: Callable) -> Callable | None:
        """The NumPy function ``func`` where the library lacks it, or answers in another form,
        as interop supplies it for raw arrays; None: the library's own (NEP 18).  CuPy:
        ``nanquantile``, ``allclose`` giving a bool, ... (``cupy/numpy_functions.py``)."""
        return None

    def ufunc(self, name: str) -> Any:
        """The library's ufunc ``name``, else NumPy's, which arrays implementing NEP 13 (Dask's
        lazily, CuPy's on the GPU) run themselves."""
        fn = getattr(self.np, name, None)
        return fn if fn is not None else getattr(np, name)

    def ufunc_method(self, ufunc: numpy.ufunc, method: str) -> Callable:
        """NumPy's ``ufunc.<method>`` (``reduce``, ``accumulate``, ``reduceat``, ``at``,
        ``outer``) for its arrays: NumPy's own, which arrays implementing NEP 13 run
        themselves.  CuPy: interop's where CuPy's ufuncs have none (``cupy/ufunc_methods``)."""
        return getattr(ufunc, method)

    def ufunc_reduce(self, name: str, raw: Any, axis: Any, keepdims: bool = False) -> Any:
        """``numpy.<name>.reduce`` (``bitwise_xor``, ...) over ``axis`` (None: every axis)."""
        return self.ufunc(name).reduce(raw, axis=axis, keepdims=keepdims)

    def unique_all(self, flat: Any) -> tuple[Any, Any, Any]:
        """(values, inverse indices, counts) of a 1-d array."""
        res = self.xp.unique_all(flat)
        return res.values, res.inverse_indices, res.counts

    def unique_slices(self, raw: Any, axis: int) -> tuple[Any, Any, Any]:
        """(values, inverse, counts) of the distinct slices along ``axis``, sorted
        (``np.unique(axis=)``).  Dask, Cubed: none (a count that depends on the values)."""
        return self.np.unique(raw, axis=axis, return_inverse=True, return_counts=True)

    @property
    def special(self) -> Any:
        """The SciPy-style special-function module.  CuPy: ``cupyx.scipy.special``."""
        import scipy.special  # optional: only torch.special needs it
        return scipy.special

    def cholesky(self, a: Any) -> Any:
        """The lower Cholesky factor."""
        return self.np.linalg.cholesky(a)

    def qr(self, a: Any, mode: str) -> tuple[Any, Any]:
        """(Q, R) in ``mode`` 'reduced' or 'complete' (Dask: reduced only)."""
        return self.np.linalg.qr(a, mode=mode)

    def svd(self, a: Any, full_matrices: bool) -> tuple[Any, Any, Any]:
        """(U, S, Vh)."""
        return self.np.linalg.svd(a, full_matrices=full_matrices)

    def svdvals(self, a: Any) -> Any:
        """The singular values, descending."""
        return self.np.linalg.svd(a, compute_uv=False)

    def explain_error(self, name: str, args: list, exc: Exception) -> Exception | None:
        """A clearer error for ``exc``, raised by operation ``name`` on ``args``; None: no better one."""
        return None

    def register_tensor_type(self, cls: type) -> None:  # noqa: B027 - optional, most register none
        """``cls`` (``Tensor`` or a subclass) was defined: a backend may register it with its
        library (JAX: as a pytree).  Called for each such class, also those defined before
        the backend loaded."""

    def __repr__(self) -> str:
        return f"<interop backend {self.name!r}>"


REQUIRED = frozenset(Backend.__abstractmethods__) | {"name", "array_type"}
"""What every backend provides itself (the class attributes and the abstract methods)."""
