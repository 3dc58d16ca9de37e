"""The Tensor facade: a handle on one backend array.

A ``Tensor`` owns nothing but a reference to its backend array (``.raw``);
wrapping and unwrapping never copy.  Its operations (functions, methods,
operators, properties, indexing) are generated from the operation table in
``interop.ops`` and installed on this class, so this module holds only what
is about the handle itself: construction, subclass hooks, the default
``__torch_function__``, conversion, pickling and copies.
"""

from __future__ import annotations

import copy as _copy
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, SupportsIndex

import numpy as np

from .. import dtypes
from ..backends import registry, views
from ..backends.contract import Backend
from ..backends.dlpack import foreign_to_raw
from ..devices import Device
from ..errors import NonNumericError, NumberOverflowError
from ..upstream import private
from . import torch_function as _tf
from .card import cost_text, html_card

if TYPE_CHECKING:  # what the operation table installs on Tensor, declared for type checkers
    from .installed_members import InstalledMembers as _Installed
else:
    _Installed = object


def to_raw(data: Any, dtype: Any = None, device: Any = None, backend: str | Backend | None = None,
           copy: bool | None = None, **options: Any) -> Any:
    """A backend array holding ``data`` (the one place data enters interop).

    Arrays keep their dtype and backend unless asked otherwise; Python floats
    take the default dtype and ints int64, as in torch.  ``copy=None`` shares
    memory when it can; moving between backends is always explicit here.
    """
    dtype = dtypes.as_dtype(dtype)
    if isinstance(data, Tensor):
        data = data._raw
    else:
        data = stacked_if_lazy(data)
    source = registry.backend_of(data)
    if source is None:
        data = _host_data(data, dtype, copy)
        source, copy = registry.owner(data), False
        target = _target_backend(backend, device, None)
    else:
        _check_numeric(source.dtype_of(data))
        _check_byte_order(source.dtype_of(data))
        target = _target_backend(backend, device, source)
    if source is not target:
        if copy and target.mutable and not target.lazy:
            data = source.copy(data)  # a move may share memory (DLPack: NumPy <-> torch)
        data, copy = move(data, source, target, device, **options), False
    elif options and target.lazy:
        data = target.asarray(data, **options)
    if device is not None and target.device_of(data) != Device(device):
        data, copy = target.to_device(data, device), False  # Dask chunks, or another GPU
    if dtype is not None and target.dtype_of(data) != dtype:
        return target.astype(data, dtype)
    return target.copy(data) if copy else data


def _holds_big_int(data: Any) -> bool:
    """True if (nested lists of) ``data`` hold a Python int beyond 64 bits."""
    if type(data) in (list, tuple):
        return any(_holds_big_int(x) for x in data)
    return type(data) is int and not -2 ** 63 <= data < 2 ** 64


def _holds_lazy(data: Any) -> Backend | None:
    """The lazy backend of the first lazy tensor or array a (nested) list holds (reading them
    would compute), else None."""
    for x in data:
        raw = x._raw if isinstance(x, Tensor) else x
        inner = _holds_lazy(raw) if type(raw) in (list, tuple) else None
        if inner is not None:
            return inner
        be = registry.backend_of(raw)
        if be is not None and be.lazy:
            return be
    return None


def stacked_if_lazy(data: Any) -> Any:
    """``tensor([a, b])`` with lazy items: stacked in the graph, as ``stack`` does (reading
    them into a host array would compute); any other ``data`` unchanged."""
    lazy = _holds_lazy(data) if type(data) in (list, tuple) else None
    if lazy is None:
        return data
    return lazy.np.stack([to_raw(x, backend=lazy) for x in data])


def _target_backend(backend: str | Backend | None, device: Any, source: Backend | None) -> Backend:
    if backend is not None:
        return registry.get_backend(backend)
    if device is not None and (source is None or not source.container):
        return source if source is not None and source.serves(Device(device)) else \
            registry.backend_for_device(device)
    return source or registry.default_backend()


def move(raw: Any, source: Backend, target: Backend, device: Any = None, **options: Any) -> Any:
    """Copy ``raw`` from one backend to another (an explicit transfer the user asked for)."""
    if target.lazy:
        return target.from_foreign(raw, source, **options)
    if source.lazy:
        (raw,) = source.compute(raw)
        source = registry.owner(raw)
        if source is target:
            return raw
    return target.asarray(source.to_host(raw) if source.name != "numpy" else raw, device=device)


def _check_numeric(dtype: np.dtype) -> None:
    if dtypes.kind(dtype) not in "biufc":
        what = "strings" if dtype.kind in "US" else f"{dtype} data"
        raise NonNumericError(f"interop.tensor: {what} cannot become a tensor (an array of "
                              f"dtype {dtype}); tensors hold bool, integer, floating or "
                              "complex numbers: convert with .astype(float) first")


def _check_byte_order(dtype: np.dtype) -> None:
    if not dtype.isnative:
        raise ValueError(f"interop.tensor: the array's byte order is not the machine's (dtype "
                         f"{dtype.str}), which tensors do not hold (torch refuses it too); "
                         "convert first: arr.astype(arr.dtype.newbyteorder('='))")


def _host_data(data: Any, dtype: np.dtype | None, copy: bool | None) -> np.ndarray:
    """Python scalars, nested lists and DLPack producers as a NumPy array, dtype as torch infers."""
    if hasattr(data, "__dlpack__") and not isinstance(data, (list, tuple)):
        return foreign_to_raw(data)
    if isinstance(data, Iterator):
        raise NonNumericError(f"interop.tensor: a {type(data).__name__} has no length or dtype "
                              "to make a tensor from; make a list first: "
                              "interop.tensor(list(values))")
    try:
        arr = np.asarray(data) if dtype is None else np.asarray(data, dtype=dtype)
    except OverflowError as exc:
        raise NumberOverflowError(f"interop.tensor: {exc}; pick a dtype that holds the values "
                                  "(or leave dtype= out)") from None
    except (ValueError, TypeError) as exc:
        if "inhomogeneous" in str(exc) or "sequence" in str(exc):
            raise ValueError(f"interop.tensor: the nested sequences are ragged ({exc}); every row "
                             "must have the same length: pad them or make one tensor per row") from None
        raise TypeError(f"interop.tensor: could not convert {type(data).__name__} to a tensor "
                        f"({exc})") from None
    if arr.dtype == object and _holds_big_int(data):
        raise NumberOverflowError("interop.tensor: Overflow when unpacking long: an int beyond "
                                  "64 bits cannot become a tensor; use floats (float(x)) or "
                                  "smaller numbers")
    _check_numeric(arr.dtype)
    if dtype is None and isinstance(data, (list, tuple)) and _holds_numpy_scalars(data):
        return arr.astype(_torch_list_dtype(data), copy=False)
    if dtype is None and isinstance(data, (list, tuple, float, complex)) \
            and not isinstance(data, np.generic):
        if arr.dtype.kind == "f":
            arr = arr.astype(dtypes.get_default_dtype())
        elif arr.dtype.kind == "c":
            arr = arr.astype(dtypes.default_complex())
    return arr


def _leaves(data: Any) -> Iterator[Any]:
    for x in data:
        if isinstance(x, (list, tuple)):
            yield from _leaves(x)
        else:
            yield x


def _holds_numpy_scalars(data: Any) -> bool:
    return any(isinstance(x, np.generic) for x in _leaves(data))


def _torch_list_dtype(data: Any) -> np.dtype | None:
    """torch's dtype for a list mixing NumPy scalars and Python numbers: each NumPy scalar
    counts with its own dtype, each Python number with torch's (int64, the default float),
    combined by torch's promotion ([np.float64(1), 2.0] is float64; [np.int32(1), 2.0]
    is the default float)."""
    result = None
    for x in _leaves(data):
        dt = x.dtype if isinstance(x, np.generic) else dtypes.scalar_dtype(x)
        result = dt if result is None else dtypes.promote_types(result, dt)
    return result


class Tensor(_Installed):
    """An array on NumPy, CuPy or Dask with PyTorch's API, NumPy's protocols and the Array API.

    ``Tensor(data)`` wraps ``data`` without copying where it can (scalars,
    lists, NumPy/CuPy/Dask arrays, DLPack producers).  Subclass it freely:
    results of every operation come back as the lowest subclass among the
    arguments, with instance attributes carried over (see
    ``__tensor_finalize__``), and one ``__torch_function__`` classmethod sees
    every call made through any API.
    """

    __slots__ = ("_raw", "__dict__", "__weakref__")
    _base_of_tensors = True  # (how modules below this one tell the base class from subclasses)
    _raw: Any  # the backend array

    def __new__(cls, data: Any = (), *args: Any, **kwargs: Any) -> Tensor:
        if (args or kwargs) and cls.__init__ is object.__init__:
            raise TypeError(f"{cls.__name__}(data) takes one argument; use interop.tensor(data, "
                            "dtype=..., device=..., backend=...) for options")
        obj = object.__new__(cls)
        obj._raw = to_raw(data)
        if isinstance(data, Tensor):
            _held(obj, data)
            if cls is not Tensor:
                obj.__tensor_finalize__(data)
        return obj

    # ------------------------------------------------------------ subclass hooks
    _interop_slots: tuple[str, ...] = ()  # a subclass's __slots__ attributes (pickle's names)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass's own ``__torch_function__`` gets the loop check (torch calls it
        directly), and its ``__slots__`` are listed for finalize, pickle and copies."""
        super().__init_subclass__(**kwargs)
        cls._interop_slots = tuple(n for n in private("copyreg", "_slotnames")(cls)
                                   if n != "_raw")  # (pickle's own list of a class's slots)
        handler = cls.__dict__.get("__torch_function__")
        if isinstance(handler, classmethod):
            cls.__torch_function__ = classmethod(  # type: ignore[method-assign,assignment]
                _tf.loop_checked(handler.__func__))  # (the subclass's own handler, wrapped)
        registry.register_tensor_type(cls)

    def __tensor_finalize__(self, source: Any) -> None:
        """Called on each new result of a subclass; ``source`` is the argument it came from.

        The default copies ``source``'s instance attributes (a shallow copy of
        its ``__dict__`` and of its subclass ``__slots__``), as NumPy subclasses
        do in ``__array_finalize__``.
        """
        if source is not None:
            attrs = getattr(source, "__dict__", None)
            if attrs:
                self.__dict__.update(attrs)
            if self._interop_slots:
                _set_slots(self, _slots_of(source, self._interop_slots))

    def as_subclass(self, cls: type) -> Tensor:
        """The same data as a ``cls`` handle (no copy), attributes carried over."""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError(f"as_subclass: expected a subclass of interop.Tensor, got {cls!r}")
        return _held(make(cls, self._raw, self), self)

    # ------------------------------------------------------------ the handle
    @property
    def raw(self) -> Any:
        """The backend array itself (the same object, not a copy)."""
        return self._raw

    @property
    def backend(self) -> str:
        """'numpy', 'cupy' or 'dask'."""
        return registry.owner(self._raw).name

    def _repr_html_(self) -> str:
        """Jupyter's card: what the tensor is and what it costs (``interop.core.card``)."""
        return html_card(self)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """IPython's plain text (a terminal, a front end without HTML): the repr, and under it,
        for a chunked tensor, what it would take and cost to compute."""
        printer.text(repr(self))
        cost = cost_text(self)
        if cost:
            printer.break_()
            printer.text(cost)

    __hash__ = object.__hash__  # identity, as torch (never dispatched)
    __array_priority__ = 1000

    def __iter__(self) -> Any:
        # Not dispatched in torch either: it goes through dim() and unbind(0), which are.
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    # ------------------------------------------------------------ the Array API object
    # (``__array_namespace__`` is installed by ``interop.array_api``, which imports this module)

    def to_device(self, device: Any, /, *, stream: Any = None) -> Tensor:
        """The Array API's move, ``t.to(device)`` (the tensor itself when already there)."""
        if stream is not None:
            raise ValueError("interop.Tensor.to_device: stream= is not supported (moves are "
                             "synchronous); call to_device(device) without it")
        return self.to(device)

    # ------------------------------------------------------------ pickling and copies
    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple:
        attrs = dict(self.__dict__) if self.__dict__ else None
        slots = _slots_of(self, self._interop_slots)
        return (_rebuild, (type(self), self._raw, attrs, slots) if slots else
                (type(self), self._raw, attrs))

    def __copy__(self) -> Tensor:
        new = _held(make(type(self), self._raw, None), self)
        new.__dict__.update(self.__dict__)
        _set_slots(new, _slots_of(self, self._interop_slots))
        return new

    def __deepcopy__(self, memo: dict) -> Tensor:
        new = make(type(self), registry.owner(self._raw).copy(self._raw), None)
        memo[id(self)] = new
        new.__dict__.update(_copy.deepcopy(self.__dict__, memo))
        _set_slots(new, _copy.deepcopy(_slots_of(self, self._interop_slots), memo))
        return new


def _held(new: Tensor, source: Tensor) -> Tensor:
    """``new`` shares ``source``'s array: on an immutable backend both are registered, so a
    write through either rebinds both (``views.hold``)."""
    if type(new._raw) in views.IMMUTABLE and new._raw is source._raw:
        views.hold(source)
        views.hold(new)
    return new


registry.register_tensor_type(Tensor)


def _slots_of(obj: Tensor, names: tuple[str, ...]) -> dict[str, Any]:
    """The values of the ``__slots__`` attributes ``names`` that ``obj`` has set: instance state
    beside ``__dict__``, which pickle and copy see only if given."""
    return {n: getattr(obj, n) for n in names if hasattr(obj, n)}


def _set_slots(obj: Tensor, values: dict[str, Any]) -> None:
    for name, value in values.items():
        setattr(obj, name, value)  # as pickle restores slots


class Size(int):
    """``t.size``: the element count (the Array API attribute), also callable as torch's method.

    The standard makes ``size`` an ``int`` attribute; torch makes it a method
    returning the shape.  This ``int`` serves both: ``t.size == 6``,
    ``t.size * 2`` and ``t.size()`` (the shape), ``t.size(1)`` (one dimension,
    dispatched as ``torch.Tensor.size``).
    """

    _call: tuple[Any, Tensor]

    def __new__(cls, n: int, method: Any, tensor: Tensor) -> Size:
        obj = super().__new__(cls, n)
        obj._call = (method, tensor)
        return obj

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        method, tensor = self._call
        return method(tensor, *args, **kwargs)

    def __reduce__(self) -> tuple:
        return (int, (int(self),))


class SizeAttribute:
    """Installs ``Tensor.size`` as a ``Size``; on the class it is the dispatched method itself.

    Unknown sizes (Dask arrays with NaN dimensions) give ``None``, as the standard says.
    """

    def __init__(self, method: Any) -> None:
        self.method = method
        self.__doc__ = Size.__doc__

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        if obj is None:
            return self.method
        n = 1
        for d in obj._raw.shape:
            n *= d
        return None if n != n else Size(n, self.method, obj)


def _rebuild(cls: type[Tensor], raw: Any, attrs: dict | None, slots: dict | None = None) -> Tensor:
    obj = object.__new__(cls)
    obj._raw = raw
    if attrs:
        obj.__dict__.update(attrs)
    if slots:
        _set_slots(obj, slots)
    return obj


def make(cls: type[Tensor], raw: Any, source: Any = None) -> Tensor:
    """A ``cls`` handle on ``raw`` (no copy), finalized from ``source`` for subclasses."""
    obj = object.__new__(cls)
    obj._raw = raw
    if cls is not Tensor:
        obj.__tensor_finalize__(source)
    return obj


def convert(ret: Any, cls: type) -> Any:
    """torch's ``_convert``: Tensors in ``ret`` become ``cls`` (tuples and lists rebuilt)."""
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        items = [convert(r, cls) for r in ret]
        return type(ret)(*items) if hasattr(ret, "_fields") else type(ret)(items)
    return ret
