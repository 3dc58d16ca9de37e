"""The PyTorch backend: torch tensors on the CPU or a CUDA GPU (goal 4 of torch's
``__torch_function__`` RFC: the NumPy API on torch tensors).

``interop.tensor(torch_tensor)`` keeps the torch tensor.  Every operation the table knows
by a torch name runs torch's own function on the raw tensors (``native``): torch's values,
dtypes, errors, views and in-place writes by construction.  NumPy calls (torch tensors
have no NEP 13/18) run the function of the same name in array-api-compat's torch
namespace, else torch's (``numpy_function``); the Array API surface runs that namespace.
Raw torch tensors beside other backends' tensors (a module's weights) are data for those
(``foreign_joins``), taken in by DLPack as before torch was a backend.

torch has no negative strides: ``t[::-1]`` (which torch refuses) is a copy here, linked to
``t`` as a Dask view is (``views.copied``, ``views.PARTIAL_VIEWS``), so writes into it and
into its views, by ``[]=``, in-place methods and ``out=``, are replayed into ``t``.
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

import array_api_compat.torch as compat_torch
import numpy
import numpy as np
import torch

from ... import dtypes
from ...devices import Device
from ...upstream import private
from .. import views
from ..contract import Backend
from ..dlpack import from_torch
from . import numpy_namespace as torch_numpy

_TORCH_DTYPES = {np.dtype(name): getattr(torch, name) for name in (
    "bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
    "float16", "float32", "float64", "complex64", "complex128")}
_NUMPY_DTYPES = {theirs: ours for ours, theirs in _TORCH_DTYPES.items()}
_MISSING = object()


def torch_dtype(dtype: Any) -> torch.dtype:
    """torch's dtype for a NumPy dtype, an interop dtype or a torch dtype."""
    if isinstance(dtype, torch.dtype):
        return dtype
    dt = dtypes.as_dtype(dtype)
    found = _TORCH_DTYPES.get(dt)
    return found if found is not None else getattr(torch, dt.name)  # bfloat16


def numpy_dtype(dtype: torch.dtype) -> np.dtype:
    found = _NUMPY_DTYPES.get(dtype)
    return found if found is not None else dtypes.as_dtype(dtype)  # bfloat16


class _Namespace:
    """array-api-compat's torch namespace (or a submodule) taking interop's and NumPy's dtypes
    and interop's devices, and giving interop's dtypes back (``xp.astype(x, xp.int64)`` with
    the dtypes ``interop.array_api`` hands out); ``fallback``: torch's module of the same
    place, for names the namespace lacks, and ``first``: NumPy's meaning where torch's
    differs (the NumPy-shaped ``np``, ``torch_numpy``)."""

    ix_: Any  # set on the NumPy-shaped namespace: NumPy's ix_ over torch's tensors

    def __init__(self, module: Any, fallback: Any = None, first: Any = None) -> None:
        self._module, self._fallback, self._first = module, fallback, first
        self.__name__ = module.__name__

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # __array_namespace_info__ and the like, as they are
            return getattr(self._module, name)
        found = getattr(self._first, name, None) if self._first is not None else None
        if found is None:
            found = getattr(self._module, name, None)
        if found is None and self._fallback is not None:
            found = getattr(self._fallback, name)
        elif found is None:
            raise AttributeError(f"{self.__name__} has no attribute {name!r}")
        if type(found).__name__ == "module":
            found = _Namespace(found, getattr(self._fallback, name, None))
        elif callable(found) and not isinstance(found, type):
            found = _calling(found)
        setattr(self, name, found)
        return found


def _ix(*indices: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """NumPy's ``ix_`` (torch has none): 1-d index tensors shaped to select a grid."""
    n = len(indices)
    return tuple(i.reshape((1,) * k + (-1,) + (1,) * (n - k - 1)) for k, i in enumerate(indices))


# NumPy ufunc methods as array-api-compat reductions (the ufunc's own axis default, 0).
_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
           "logical_and": "all", "logical_or": "any"}
_ACCUMULATE = {"add": "cumulative_sum", "multiply": "cumulative_prod"}


def _ufunc_method(fn: Callable) -> Callable:
    def method(x: Any, axis: Any = 0, dtype: Any = None, out: Any = None,
               keepdims: bool = False) -> Any:
        if out is not None:
            raise TypeError("out= is not supported for NumPy ufunc methods on torch tensors; "
                            "assign the result instead")
        kwargs = {"keepdims": keepdims} if fn.__name__ not in _ACCUMULATE.values() else {}
        if dtype is not None:
            kwargs["dtype"] = torch_dtype(dtype)
        return fn(x, axis=axis, **kwargs)
    return method


class TorchBackend(Backend):
    name = "torch"
    array_type = torch.Tensor
    device_types = ("cpu", "cuda")
    multi_device = True  # cpu and cuda tensors are one backend's
    numpy_protocols = False  # np.mean(t) runs torch's mean, never a conversion
    native_ops = True
    foreign_joins = True
    xp = _Namespace(compat_torch)
    np = _Namespace(compat_torch, torch, torch_numpy)

    def __init__(self) -> None:
        self._natives: dict[tuple[str, ...], Any] = {}
        self.np.ix_ = _ix  # (a GPU tensor's repr previews its corners with it)

    # ------------------------------------------------------------ torch's own functions
    def native(self, names: tuple[str, ...]) -> Callable | None:
        hit = self._natives.get(names, _MISSING)
        if hit is _MISSING:
            found = [f for f in map(_torch_callable, names) if f is not None]
            method = next((f for n, f in zip(names, map(_torch_callable, names))
                           if f is not None and n.startswith("torch.Tensor.")), None)
            hit = self._natives[names] = None if not found else \
                _calling(found[0], method if method is not found[0] else None,
                         any(map(_writes, names)))
        return hit

    def numpy_function(self, func: Any, method: str = "__call__") -> Any:
        """NumPy's ``func`` on torch tensors: array-api-compat's torch function of that name
        (``np.fft.fft`` -> its ``fft.fft``), else torch's; ``np.add.reduce`` and the like as
        the matching reduction."""
        name = func.__name__
        if method == "reduce" and name in _REDUCE:
            return _ufunc_method(getattr(compat_torch, _REDUCE[name]))
        if method == "accumulate" and name in _ACCUMULATE:
            return _ufunc_method(getattr(compat_torch, _ACCUMULATE[name]))
        if method != "__call__":
            return None
        module: Any = self.np
        for part in (getattr(func, "__module__", None) or "numpy").split(".")[1:]:
            module = getattr(module, part, None)
        fn = getattr(module, name, None)
        return None if fn is None else _one_out(fn)

    # ------------------------------------------------------------ arrays, dtypes, devices
    def dtype_of(self, raw: torch.Tensor) -> numpy.dtype:
        return numpy_dtype(raw.dtype)

    def astype(self, raw: torch.Tensor, dtype: Any) -> torch.Tensor:
        return raw.to(torch_dtype(dtype), copy=True)  # a new array, as NumPy's astype

    def copy(self, raw: torch.Tensor) -> torch.Tensor:
        return raw.clone()

    def device_of(self, raw: torch.Tensor) -> Device:
        return interop_device(raw.device)

    def native_device(self, device: Any) -> torch.device:
        return torch.device(str(Device(device).memory))

    def asarray(self, data: Any, dtype: Any = None, device: Any = None,
                copy: bool | None = None, **options: Any) -> torch.Tensor:
        if isinstance(data, np.ndarray) and not data.flags.writeable:
            data, copy = np.array(data), False  # torch warns on read-only NumPy memory
        return torch.asarray(data, dtype=None if dtype is None else torch_dtype(dtype),
                             device=None if device is None else self.native_device(device),
                             copy=copy)

    def create(self, fn: str, *args: Any, device: Any = None, chunks: Any = None,
               dtype: Any = None, **kwargs: Any) -> torch.Tensor:
        """NumPy's creation functions (names and arguments) by array-api-compat's torch ones."""
        if "M" in kwargs:  # eye(n, M=m): the standard's n_cols
            args = (*args, kwargs.pop("M"))
        return getattr(compat_torch, fn)(
            *args, dtype=None if dtype is None else torch_dtype(dtype),
            device=None if device is None else self.native_device(device), **kwargs)

    def to_device(self, raw: torch.Tensor, device: Any) -> torch.Tensor:
        return raw.to(self.native_device(device))

    def random(self, seed: Any) -> Any:
        return _Random(np.random.default_rng(seed))

    def contiguous(self, raw: torch.Tensor) -> torch.Tensor:
        return raw.contiguous()

    def from_foreign(self, raw: Any, source: Backend, device: Any = None,
                     **options: Any) -> torch.Tensor:
        """Another eager backend's array by DLPack (zero copy on one device), else by the host."""
        if source.lazy:
            raw = source.to_host(raw, "bringing a lazy array onto torch")
        try:
            out = torch.from_dlpack(raw)
        except (BufferError, TypeError, RuntimeError, AttributeError):
            out = self.asarray(source.to_host(raw))
        return out if device is None else out.to(self.native_device(device))

    def as_data(self, raw: torch.Tensor) -> Any:
        """A module's weights beside NumPy or Dask tensors: a NumPy (CUDA: CuPy) array sharing
        their memory, by DLPack, refused as before torch was a backend (meta, bfloat16)."""
        return from_torch(raw)

    def to_host(self, raw: torch.Tensor, why: str = "") -> numpy.ndarray:
        """Host memory by DLPack (shared on the CPU; a module's parameters are remembered);
        bfloat16 through its bits, as NumPy has no such dtype."""
        if raw.device.type != "cpu":
            raw = raw.detach().cpu()
        if raw.dtype == torch.bfloat16:
            return np.asarray(raw.detach().resolve_conj().view(torch.int16)).view(
                dtypes.bfloat16_dtype())
        return np.asarray(from_torch(raw))

    def __getstate__(self) -> dict:
        return {}


class _Random:
    """A NumPy ``Generator`` whose arrays come back as torch tensors (interop's own random
    functions; torch's draw from torch's generator natively)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self._rng = rng

    def __getattr__(self, name: str) -> Callable:
        draw = getattr(self._rng, name)

        def drawn(*args: Any, **kwargs: Any) -> Any:
            out = draw(*args, **kwargs)
            if not isinstance(out, np.ndarray):
                return out
            return torch.from_numpy(np.asarray(out, order="C"))  # (0-d stays 0-d)
        return drawn


_DEVICES: dict[torch.device, Device] = {}
_RETURN_TYPES: dict[type, type] = {}


def interop_device(device: torch.device) -> Device:
    """interop's name for a torch device: ``Device('cpu', backend='torch')`` (equal to
    ``'cpu'``), so creating on ``x.device`` creates torch tensors."""
    found = _DEVICES.get(device)
    if found is None:
        found = _DEVICES[device] = Device(device.type, device.index, backend="torch")
    return found


def _calling(fn: Callable, method: Callable | None = None, writes: bool = False) -> Callable:
    """``fn`` on raw tensors: interop's dtypes and devices among the arguments become
    torch's; torch's dtypes, devices and named tuples in the result become interop's.
    Where torch's parser refuses the function's form and the operation has a method
    (``t.reshape(2, 3)``, ``t.permute(1, 0)``: sizes as separate arguments), the method
    runs.  Once a negative-step copy exists, a write (``writes``: into the first argument;
    ``out=``) is replayed into the tensor it was selected from (``views.written``)."""
    def native(*args: Any, **kwargs: Any) -> Any:
        args = tuple(map(_torch_arg, args))
        if kwargs:
            kwargs = {k: _torch_arg(v) for k, v in kwargs.items()}
        try:
            ret = fn(*args, **kwargs)
        except TypeError:
            if method is None or not args or not isinstance(args[0], torch.Tensor):
                raise
            ret = method(*args, **kwargs)
        if _linked:
            _replay(args, kwargs, writes)
        return _result(ret)
    native.__name__ = getattr(fn, "__name__", "native")
    return native


_IN_PLACE_OPERATORS = frozenset(f"__i{name}__" for name in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor",
    "lshift", "rshift"))


def _writes(name: str) -> bool:
    """Does the torch function ``name`` write into its first argument (``add_``, ``__iadd__``)?"""
    last = name.rsplit(".", 1)[-1]
    return last.endswith("_") and not last.endswith("__") or last in _IN_PLACE_OPERATORS


def _replay(args: tuple, kwargs: dict, writes: bool) -> None:
    """A write just made by a native call, replayed into the tensors its target was selected
    from by a negative step (``views.copied``)."""
    if writes and args and isinstance(args[0], torch.Tensor):
        views.written(args[0])
    out = kwargs.get("out") if kwargs else None
    for target in out if isinstance(out, (tuple, list)) else (out,):
        if isinstance(target, torch.Tensor):
            views.written(target)


# ------------------------------------------------------------------ negative steps
_linked = False  # has a negative-step copy been made (writes then check for links)?


def _negative(step: Any) -> bool:
    return step is not None and bool(step < 0)


def _negative_step(index: Any) -> bool:
    items = index if type(index) is tuple else (index,)
    return any(type(i) is slice and _negative(i.step) for i in items)


def _dims_taken(item: Any) -> int:
    """How many of the indexed tensor's dimensions ``item`` consumes (``...`` apart)."""
    if item is None or isinstance(item, bool):
        return 0
    if isinstance(item, list):
        item = np.asarray(item)
    dtype = getattr(item, "dtype", None)
    if dtype is torch.bool or dtype == np.bool_:
        return max(item.ndim, 1) if item.ndim else 0
    return 1


def _unflipped(raw: torch.Tensor, items: tuple) -> tuple[tuple, list, tuple, list]:
    """``(ahead, dims, rest, out_dims)``: ``raw[items]`` is ``raw[ahead].flip(dims)[rest]``,
    where ``ahead`` has step>0 slices only (a view) and ``rest`` no negative step; for
    basic ``items`` also ``raw[ahead][rest].flip(out_dims)``."""
    taken = [0 if i is Ellipsis else _dims_taken(i) for i in items]
    spread = raw.ndim - sum(taken)  # the dimensions ``...`` stands for
    ahead, dims, rest, out_dims = [slice(None)] * raw.ndim, [], list(items), []
    d = o = 0  # the dimension of raw, and of the result, that item k indexes
    for k, item in enumerate(items):
        if item is Ellipsis:
            d, o = d + spread, o + spread
            continue
        if type(item) is slice and _negative(item.step) and d < raw.ndim:
            picked = range(*item.indices(raw.shape[d]))
            ahead[d] = slice(picked[-1], picked[0] + 1, -picked.step) if picked else slice(0, 0)
            dims.append(d)
            out_dims.append(o)
            rest[k] = slice(None)
        d += taken[k]
        o += item is None or type(item) is slice
    return tuple(ahead), dims, tuple(rest), out_dims


def _plain_items(index: Any) -> tuple:
    """The index as a tuple, 0-d integer tensors as the integers torch takes them for."""
    items = index if type(index) is tuple else (index,)
    return tuple(int(i) if isinstance(i, torch.Tensor) and i.ndim == 0 and not i.is_floating_point()
                 and i.dtype is not torch.bool and not i.is_complex() else i for i in items)


def _getitem(raw: torch.Tensor, index: Any) -> torch.Tensor:
    """torch's ``raw[index]``, also with negative steps (NumPy's and the Array API's meaning):
    a copy then, linked to ``raw`` so that writes into it reach ``raw`` (``views.copied``)."""
    global _linked
    try:
        return raw[index]
    except ValueError:
        if not _negative_step(index):
            raise
    items = _plain_items(index)
    ahead, dims, rest, out_dims = _unflipped(raw, items)
    if not views._basic(items):
        return raw[ahead].flip(dims)[rest]  # a copy, as NumPy's advanced indexing
    _linked = True  # a view on NumPy: a copy of its own here, whose writes reach raw
    return views.copied(raw[ahead][rest].flip(out_dims), raw, items, torch.flip)


def _setitem(raw: torch.Tensor, index: Any, value: Any) -> None:
    """torch's ``raw[index] = value``, also with negative steps (torch refuses them before
    writing anything): written into the flipped block, which is then put back."""
    try:
        raw[index] = value
    except ValueError:
        if not _negative_step(index):
            raise
        ahead, dims, rest, _ = _unflipped(raw, _plain_items(index))
        block = raw[ahead]
        flipped = block.flip(dims)
        flipped[rest] = value
        block.copy_(flipped.flip(dims))
    if _linked:
        views.written(raw)


def _imag(input: torch.Tensor) -> torch.Tensor:
    """``imag`` as on every backend: zeros for a real tensor (torch raises; see the op)."""
    return torch.imag(input) if input.is_complex() else torch.zeros_like(input)


_OWN: dict[str, Callable] = {"torch.Tensor.__getitem__": _getitem, "torch.Tensor.__setitem__": _setitem,
        "torch.imag": _imag, "torch.Tensor.imag.__get__": _imag}
"""torch names run by interop's functions on torch tensors (negative steps, ``imag``)."""


def _one_out(fn: Callable) -> Callable:
    """``fn`` for a NumPy call: a ufunc's ``out=`` comes as a tuple of one."""
    def numpy_call(*args: Any, out: Any = None, **kwargs: Any) -> Any:
        if type(out) is tuple and len(out) == 1:
            out = out[0]
        return fn(*args, **kwargs) if out is None else fn(*args, out=out, **kwargs)
    numpy_call.__name__ = fn.__name__
    return numpy_call


def _result(ret: Any) -> Any:
    t = type(ret)
    if t is torch.dtype:
        return dtypes.public_dtype(numpy_dtype(ret))
    if t is torch.device:
        return interop_device(ret)
    if getattr(torch.return_types, t.__name__, None) is t:  # (torch's named tuples)
        named = _RETURN_TYPES.get(t)
        if named is None:
            named = _RETURN_TYPES[t] = collections.namedtuple(t.__name__, t.__match_args__)
        return named(*ret)
    return ret


def _torch_callable(name: str) -> Callable | None:
    """The torch callable a record's torch name names (``torch.Tensor.shape.__get__``,
    ``aten.foo.default``), or None where this torch has none."""
    own = _OWN.get(name)
    if own is not None:
        return own
    parts = name.split(".")
    if parts[0] == "aten":
        obj: Any = torch.ops.aten
    elif parts[0] == "torch":
        obj = torch
    else:
        return None
    try:
        for part in parts[1:]:
            obj = getattr(obj, part)
    except (AttributeError, RuntimeError):
        return None
    return obj if callable(obj) else None


def _torch_arg(a: Any) -> Any:
    """An argument for torch: interop's and NumPy's dtypes and interop's devices as torch's,
    NumPy scalars as Python numbers (``np.bool_`` too, which torch's parser refuses)."""
    t = type(a)
    if isinstance(a, np.dtype) or t is dtypes.DType:
        return torch_dtype(a)
    if t is Device:
        return torch.device(str(a.memory))
    if t is list or t is tuple:
        return t(map(_torch_arg, a))
    if t is type and issubclass(a, np.generic):
        return torch_dtype(np.dtype(a))
    if isinstance(a, np.generic):  # a Python number, as torch reads NumPy's float64 and int64
        return a.item()
    return a


backend = TorchBackend()
def views_base() -> Callable[[Any], Any]:
    """How to find the tensor whose memory a torch view shares: ``torch.Tensor._base``, looked
    up once at load (without it, writes into the copies linked to their base,
    ``views.copied``, could not reach it)."""
    private("torch", "Tensor._base")
    return lambda raw: raw._base


views.PARTIAL_VIEWS[torch.Tensor] = views_base()
