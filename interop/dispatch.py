"""The dispatch core: one path from any surface to a backend and back.

    public callable --(fast path, or the override protocol)--> run(cls, args, kwargs)
    run: unwrap Tensors (no copy) -> common backend -> bring foreign operands in
         -> impl(be, *raw_args) -> wrap the result once, as ``cls``, finalized

The fast path applies when no mode or guard is active in this thread or task and
every argument is an exact ``Tensor``, a plain value, or a subclass that keeps the
default ``__torch_function__`` (then the result class is simply the lowest
subclass, which is what the default handler would produce).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import numpy as np

from . import dtypes, errors
from .backends import registry, views
from .backends.base import Backend
from .protocols import torch_function as tf
from .protocols.dlpack import from_torch
from .tensor import Tensor, convert, make

_new = object.__new__
_raw_backends = registry._by_type  # type -> Backend, grows as backends load
_active = tf.active  # the per-context gate: falsy when no mode or guard is active here
_NEUTRAL = frozenset({int, float, bool, complex, str, type(None), slice, type(Ellipsis),
                      np.ndarray, np.dtype, range})
_SEQ = (list, tuple)


# ------------------------------------------------------------------ wrapping
def _source(cls: type, args: tuple) -> Any:
    """The first argument (or list element) that is an instance of ``cls``."""
    for a in args:
        if isinstance(a, cls):
            return a
        if type(a) in _SEQ:
            for b in a:
                if isinstance(b, cls):
                    return b
    return None


def wrap(ret: Any, cls: type, args: tuple = (), be: Backend | None = None) -> Any:
    """Wrap raw arrays in ``ret`` (also inside tuples, lists, namedtuples) as ``cls``.

    Given the backend ``be`` the operation ran on, raw arrays of a guest library
    (``foreign_joins``: torch) made there stay raw: torch's own host-side bookkeeping, such as
    a packed sequence's ``batch_sizes``, which torch code reads back as torch tensors."""
    t = type(ret)
    if t in _raw_backends:
        if be is not None and _raw_backends[t] is not be and _raw_backends[t].foreign_joins:
            return ret
        if t in views.IMMUTABLE:  # an input written out of place (inplace=True) is its newest
            ret = views.latest(ret)
        obj = make(cls, ret, None if cls is Tensor else _source(cls, args))
        if t in views.IMMUTABLE:
            views.hold(obj)  # it may share an argument's array (t.float(), t.detach())
        return obj
    if isinstance(ret, np.generic):  # a NumPy reduction's scalar: a 0-d tensor, as torch's
        return make(cls, np.asarray(ret), None if cls is Tensor else _source(cls, args))
    if t is tuple or t is list:
        return t([wrap(x, cls, args, be) for x in ret])
    if isinstance(ret, Tensor):
        return ret if isinstance(ret, cls) else ret.as_subclass(cls)
    if isinstance(ret, tuple) and hasattr(ret, "_fields"):
        return t(*(wrap(x, cls, args, be) for x in ret))
    if registry.backend_of(ret) is not None:
        return wrap(ret, cls, args, be)
    return ret


# ------------------------------------------------------------------ unwrapping
def _foreign(x: Any) -> tuple[Backend, Any] | None:
    """A backend array for a foreign object (raw arrays, torch tensors, DLPack producers)."""
    be = registry.backend_of(x)
    if be is not None:
        return be, x
    if type(x).__module__.startswith("torch") and hasattr(x, "__dlpack__"):
        raw = from_torch(x)
        return registry.backend_of(raw), raw
    return None


class _Unwrapper:
    """Replaces Tensors and foreign arrays by raw arrays and notes their backends.

    A raw array of a backend with ``foreign_joins`` (a torch module's weights) is a guest:
    beside tensors of other backends it comes in as their data (``Backend.as_data``: by
    DLPack, as before torch was a backend); alone or beside its own backend's, it is that."""

    __slots__ = ("first", "operands", "mixed", "guests", "imported")

    def __init__(self) -> None:
        self.first: Backend | None = None
        self.operands: list[tuple[Backend, Any]] = []
        self.mixed = False
        self.guests: list[int] = []  # indices in operands
        self.imported: dict[int, Any] = {}  # id of a guest's raw array -> its data

    def note(self, be: Backend, raw: Any) -> None:
        if self.first is None:
            self.first = be
        elif be is not self.first:
            self.mixed = True
        self.operands.append((be, raw))

    def one(self, a: Any) -> Any:
        t = type(a)
        if t in _NEUTRAL and t is not np.ndarray:
            return a
        if isinstance(a, Tensor):
            raw = a._raw
            be = _raw_backends.get(type(raw)) or registry.backend_of(raw)
            if not be.mutable:
                views.hold(a)  # a write into its array (out of place) rebinds it
            self.note(be, raw)
            return raw
        if t is list or t is tuple:
            return t([self.one(x) for x in a])
        if isinstance(a, (np.generic, np.dtype, dtypes.PY_SCALARS)):
            return a
        if t is dtypes.DType:
            return a.numpy  # t.dtype given back (x.astype(t.dtype)): the implementations' dtype
        found = _foreign(a)
        if found is not None:
            if found[0].foreign_joins:
                self.guests.append(len(self.operands))
            self.note(*found)
            return found[1]
        return a

    def _import_guests(self) -> None:
        hosts = {b for i, (b, _) in enumerate(self.operands) if i not in self.guests}
        for i in self.guests:
            src, raw = self.operands[i]
            if src not in hosts:
                data = self.imported[id(raw)] = src.as_data(raw)
                self.operands[i] = (registry.backend_of(data), data)

    def backend(self) -> Backend | None:
        if not self.mixed and (self.first is None or not self.first.multi_device):
            return self.first
        if 0 < len(self.guests) < len(self.operands):
            self._import_guests()
        be = registry.common_backend(self.operands)  # checks devices (or the guard, if allowed)
        self.mixed = self.mixed or len({b.device_of(r) for b, r in self.operands}) > 1
        return be


def _bring_in(x: Any, be: Backend, device: Any, moved: dict[int, Any]) -> Any:
    """``x`` on backend ``be`` and ``device`` (implicit moves, already allowed and guarded)."""
    t = type(x)
    if t is list or t is tuple:
        return t([_bring_in(y, be, device, moved) for y in x])
    src = _raw_backends.get(t)
    if src is None or src is be and (not be.multi_device or be.device_of(x) == device):
        return x
    if id(x) not in moved:
        if src.name == "numpy" and x.ndim == 0 and not be.lazy:
            moved[id(x)] = x[()]  # 0-d host arrays join any backend as scalars
        elif src is be:
            moved[id(x)] = be.to_device(x, device)
        else:
            moved[id(x)] = be.from_foreign(x, src, device=device)
    return moved[id(x)]


def _unwrap_simple(args: tuple) -> tuple[Backend | None, list] | None:
    """One pass for the common call: Tensors on one backend and plain values; else None."""
    first = first_raw = None
    rargs = []
    for a in args:
        if isinstance(a, Tensor):
            raw = a._raw
            be = _raw_backends.get(type(raw))
            if be is None or (first is not None and be is not first) or not be.mutable:
                return None
            if be.multi_device:  # same backend, maybe another device: the full check decides
                if first_raw is not None and raw.device != first_raw.device:
                    return None
                first_raw = raw
            first = be
            rargs.append(raw)
        elif type(a) in _NEUTRAL and type(a) is not np.ndarray:
            rargs.append(a)
        else:
            return None
    return first, rargs


_PLAIN_OPTIONS = frozenset({bool, int, float, str, type(None)})


def unwrap_call(args: tuple, kwargs: dict) -> tuple[Backend | None, list, dict]:
    """Raw arguments on one backend, and that backend (None when there are no arrays)."""
    if not kwargs or all(type(v) in _PLAIN_OPTIONS for v in kwargs.values()):
        simple = _unwrap_simple(args)  # options such as inplace=False, dim=1 need no unwrapping
        if simple is not None:
            return simple[0], simple[1], kwargs or {}
    u = _Unwrapper()
    rargs = [u.one(a) for a in args]
    rkwargs = {k: u.one(v) for k, v in kwargs.items()} if kwargs else {}
    be = u.backend()
    if u.mixed:
        device = registry.common_device(u.operands)
        moved = {k: _bring_in(v, be, device, {}) for k, v in u.imported.items()}
        rargs = [_bring_in(a, be, device, moved) for a in rargs]
        rkwargs = {k: _bring_in(v, be, device, moved) for k, v in rkwargs.items()}
    return be, rargs, rkwargs


# ------------------------------------------------------------------ running
def backend_error(name: str, exc: Exception) -> Exception:
    """A backend's exception restated as torch would raise it, naming the operation and a fix.

    NumPy reports shape mistakes as ValueError where torch raises RuntimeError,
    and its messages name ufuncs, not the operation the user called.
    """
    msg = str(exc)
    if isinstance(exc, OverflowError):
        return errors.NumberOverflowError(f"{name}: {msg.strip()}; the value does not fit the "
                                          "tensor's dtype: use a wider dtype (t.long(), "
                                          "t.double()) or a value in range")
    if isinstance(exc, MemoryError):
        return errors.OutOfMemoryError(f"{name}: {msg.strip()}; the result needs more memory "
                                       "than there is: use smaller sizes, or backend='dask' "
                                       "to work in chunks, out of core")
    if isinstance(exc, ValueError) and "read-only" in msg:
        return errors.ReadOnlyError(f"{name}: {msg.strip()} (a NumPy array with writeable=False, "
                                    "or a broadcast view); write into a copy (t.clone()) or "
                                    "make the array writeable")
    if isinstance(exc, np.linalg.LinAlgError):
        return errors.LinAlgError(f"{name}: {msg.strip()}; the matrix must be invertible (or "
                                  "positive definite for cholesky): check its values")
    if isinstance(exc, IndexError):
        hint = ("dim must lie in [-ndim, ndim-1]" if "axis" in msg and "for axis" not in msg
                else "indices along a dimension of size n must lie in [-n, n-1]")
        return errors.IndexOutOfRangeError(f"{name}: {msg.strip()}; {hint}")
    if isinstance(exc, ValueError):
        if "broadcast" in msg:
            hint = ("the shapes must be broadcastable: trailing dimensions equal or 1 "
                    "(add dimensions with unsqueeze or reshape)")
        elif "reshape" in msg or "size of new array" in msg:
            hint = "the new shape must hold the same number of elements"
        elif "too big" in msg or "Maximum allowed size" in msg:
            hint = "the result would not fit in memory: use smaller sizes"
        else:
            hint = "check the arguments' shapes and values"
        return errors.ShapeError(f"{name}: {msg.strip()}; {hint}")
    return TypeError(f"{name}: {msg.strip()}; pass tensors or numbers of a supported dtype")


def _raised_by_backend(exc: BaseException) -> bool:
    """True if ``exc`` comes from the array library, not from interop's own checks."""
    tb = exc.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    return not tb.tb_frame.f_globals.get("__name__", "").startswith("interop")


def run_op(impl: Callable, creation: bool, cls: type, args: tuple, kwargs: dict) -> Any:
    be, rargs, rkwargs = unwrap_call(args, kwargs)
    ret = call_impl(impl, be if creation else be or registry.default_backend(), rargs, rkwargs)
    return wrap(ret, cls, args, be)


_RESTATED = (ValueError, TypeError, IndexError, NotImplementedError, AttributeError,
             OverflowError, MemoryError)
"""The exceptions of an implementation that ``restated`` may put in torch's words."""


def call_impl(impl: Callable, be: Backend | None, rargs: list, rkwargs: dict) -> Any:
    """``impl`` on raw arguments; a backend's exception is restated as torch would raise it.

    A backend whose library has the operation itself (``Backend.native``: torch's functions
    on torch tensors) runs that instead, under the record's torch names (``impl.native_names``,
    set by ``ops.registry.op``), with that library's semantics and errors."""
    if be is not None and be.native_ops:
        native = be.native(getattr(impl, "native_names", ()))
        if native is not None:
            return native(*rargs, **rkwargs)
    try:
        return impl(be, *rargs, **rkwargs)
    except _RESTATED as exc:
        raise restated(impl, be, rargs, exc)  # noqa: B904 (restated sets the cause)


def restated(impl: Callable, be: Backend | None, rargs: list, exc: Exception) -> Exception:
    """What ``impl`` raising ``exc`` should raise: ``exc`` itself, or torch's statement of
    it, naming the operation (its ``__cause__`` is ``exc``)."""
    if type(exc).__module__ == errors.__name__ or hasattr(exc, "interop_graph_error"):
        return exc  # already stated by interop, or raised by a task of an earlier Dask graph
    name = getattr(impl, "__name__", "operation")
    misplaced = _not_an_operand(name, rargs)
    if misplaced is not None and isinstance(exc, (TypeError, AttributeError)):
        new = misplaced
    elif isinstance(exc, AttributeError):
        return exc
    elif isinstance(exc, (OverflowError, MemoryError)):
        new = backend_error(name, exc)
    elif (explained := be.explain_error(name, rargs, exc) if be is not None else None) is not None:
        new = explained
    elif isinstance(exc, (ValueError, dtypes.OperandError)) or type(exc).__module__.startswith(
            ("numpy", "cupy", "dask")) or type(exc) is IndexError and _raised_by_backend(exc):
        new = backend_error(name, exc)
    else:
        return exc
    new.__cause__ = exc
    return new


def _not_an_operand(name: str, rargs: list) -> TypeError | None:
    """A TypeError naming the argument if a positional one (or an element of a list of
    tensors) is None or an iterator where a tensor goes: what made ``impl`` fail."""
    for i, a in enumerate(rargs, 1):
        items = [(f"element {j} of argument {i}", x) for j, x in enumerate(a)] \
            if type(a) in _SEQ else [(f"argument {i}", a)]
        for where, x in items:
            if x is None or isinstance(x, Iterator):
                fix = "pass a tensor" if x is None else "make a tensor first: interop.tensor(list(x))"
                return TypeError(f"{name}(): {where} must be a tensor, not "
                                 f"{type(x).__name__}; {fix}")
    return None


def write_into(target: Tensor, result: Any, name: str) -> None:
    """In-place update of ``target``'s own buffer, validated before anything is written.

    The result may come from another backend (lazy wins for computing ``t.add_(d)``):
    it is brought onto the target's backend first, so a write never changes its target;
    a lazy result written into a host target is a value read under ``dask_compute``.
    """
    dest = target._raw
    views.check_writable(dest, name)
    rdt = getattr(result, "dtype", None)
    if rdt is not None and rdt != dest.dtype and not dtypes.can_cast(
            dtypes.as_dtype(rdt), dtypes.as_dtype(dest.dtype)):  # (torch's dtypes too)
        raise RuntimeError(f"{name}: result type {rdt} can't be cast to the desired output "
                           f"type {dest.dtype}; compute out of place (without the trailing _) "
                           "or convert with .to(dtype) first")
    shape = tuple(getattr(result, "shape", ()))
    if not _same_shape(shape, tuple(dest.shape)):
        raise RuntimeError(f"{name}: output with shape {list(dest.shape)} doesn't match the "
                           f"broadcast shape {list(shape)}")
    value = onto_target(dest, result, name)
    be = _raw_backends.get(type(dest)) or registry.backend_of(dest)
    written = dest if be is None else be.write_target(dest, name)
    try:
        views.assign(written, value)
    except ValueError as exc:  # NumPy refuses read-only targets before writing anything
        if "read-only" not in str(exc):
            raise
        raise backend_error(name, exc) from exc
    if written is not dest:
        target._raw = written  # an immutable library's new array (Backend.write_target)


def _same_shape(a: tuple, b: tuple) -> bool:
    """Equal shapes; an unknown (NaN) size matches an unknown size at the same place."""
    return len(a) == len(b) and all(x == y or x != x and y != y for x, y in zip(a, b))


def onto_target(dest: Any, raw: Any, name: str) -> Any:
    """``raw`` (a result, a value or an index) on the backend and device of ``dest``, which
    is about to be written: a lazy array going into an eager target is a value read, through
    the ``dask_compute`` gate; host arrays stay as they are for a lazy target (Dask takes them)."""
    src = _raw_backends.get(type(raw)) or registry.backend_of(raw)
    target = _raw_backends.get(type(dest)) or registry.backend_of(dest)
    if src is None or src is target and (not target.multi_device
                                         or src.device_of(raw) == target.device_of(dest)):
        return raw
    if src.lazy and not target.lazy:
        host = src.to_host(raw, f"{name}: writing a lazy Dask value into a {target.name} tensor")
        return target.asarray(host, device=target.device_of(dest))
    if target.lazy and src.name == "numpy":
        return raw
    return target.from_foreign(raw, src, device=target.device_of(dest))


def _onto_all(dest: Any, x: Any, name: str) -> Any:
    t = type(x)
    if t is list or t is tuple:
        return t([_onto_all(dest, y, name) for y in x])
    return onto_target(dest, x, name)


def unwrap_for_write(target: Tensor, args: tuple, kwargs: dict,
                     name: str) -> tuple[Backend, list, dict]:
    """Raw arguments of a call that writes into ``target`` itself (``t[i] = v``): the target
    stays its own buffer; every other array is brought onto the target's backend and device
    (after the usual device checks), never the other way round."""
    u = _Unwrapper()
    rargs = [u.one(a) for a in args]
    rkwargs = {k: u.one(v) for k, v in kwargs.items()} if kwargs else {}
    u.backend()  # mismatched devices raise here, as for any call
    dest = target._raw
    if u.mixed:
        rargs = [dest, *(_onto_all(dest, u.imported.get(id(a), a), name) for a in rargs[1:])]
        rkwargs = {k: _onto_all(dest, v, name) for k, v in rkwargs.items()}
    return _raw_backends.get(type(dest)) or registry.backend_of(dest), rargs, rkwargs


def make_run(entry: Any) -> Callable[[type, tuple, dict], Any]:
    """run(cls, args, kwargs) for a table entry: out-of-place, with optional out=."""
    impl, creation, name = entry.impl, entry.creation, entry.name
    if not entry.extra.get("wrap", True):
        def run_unwrapped(cls: type, args: tuple, kwargs: dict) -> Any:
            be, rargs, rkwargs = unwrap_call(args, kwargs)  # the value itself, not a tensor
            return call_impl(impl, be or registry.default_backend(), rargs, rkwargs)
        return run_unwrapped
    if entry.extra.get("writes"):
        def run_write(cls: type, args: tuple, kwargs: dict) -> Any:
            be, rargs, rkwargs = unwrap_for_write(args[0], args, kwargs, name)
            dest = rargs[0]
            rargs[0] = be.write_target(dest, name)
            out = call_impl(impl, be, rargs, rkwargs)
            if rargs[0] is not dest:
                args[0]._raw = rargs[0]  # an immutable library's new array
            return out
        return run_write
    if entry.extra.get("rebinds"):
        def run_rebind(cls: type, args: tuple, kwargs: dict) -> Any:
            target = args[0]
            be, rargs, _ = unwrap_call(args[:1], {})  # the result stays on the target's backend
            rest = [a._raw if isinstance(a, Tensor) else a for a in args[1:]]
            rkwargs = {k: v._raw if isinstance(v, Tensor) else v
                       for k, v in (kwargs or {}).items()}
            target._raw = call_impl(impl, be, [*rargs, *rest], rkwargs)
            return convert(target, cls)
        return run_rebind
    if entry.extra.get("targets"):
        def run_to_target(cls: type, args: tuple, kwargs: dict) -> Any:
            be, rargs, _ = unwrap_call(args[:1], {})  # the operand; the rest say where to go
            rest = [a._raw if isinstance(a, Tensor) else a for a in args[1:]]
            return wrap(call_impl(impl, be, [*rargs, *rest], kwargs), cls, args)
        return run_to_target
    if not entry.out:
        def run_plain(cls: type, args: tuple, kwargs: dict) -> Any:
            return run_op(impl, creation, cls, args, kwargs)
        if not creation:
            run_plain.direct = impl
        return run_plain

    def run(cls: type, args: tuple, kwargs: dict) -> Any:
        out = kwargs.pop("out", None) if kwargs else None
        if out is None:
            return run_op(impl, creation, cls, args, kwargs)
        if not isinstance(out, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be a Tensor, not "
                            f"{type(out).__name__}; pass an interop tensor (interop.as_tensor("
                            "array) shares a NumPy array's memory)")
        be, rargs, rkwargs = unwrap_call((*args, out), kwargs)
        if be is not None and be.native_ops and rargs[-1] is out._raw:
            native = be.native(getattr(impl, "native_names", ()))
            if native is not None:  # the library writes its own out= (torch resizes it)
                native(*rargs[:-1], out=rargs[-1], **rkwargs)
                return out
        write_into(out, call_impl(impl, be, rargs[:-1], rkwargs), name)
        return out
    if not creation:
        run.direct = impl
    return run


def make_inplace_run(entry: Any, name: str) -> Callable[[type, tuple, dict], Any]:
    """run for ``t.add_(x)`` / ``t += x``: compute fully, then write through, return ``t``.

    On a backend with the library's own in-place function (``Backend.native``), that runs
    on the target's own array when the target stays where it is."""
    impl = entry.impl
    names = tuple(n for n in entry.torch if n.rsplit(".", 1)[-1] == name) if entry.native else ()

    def run(cls: type, args: tuple, kwargs: dict) -> Any:
        be, rargs, rkwargs = unwrap_call(args, kwargs)
        if be is not None and be.native_ops and rargs[0] is getattr(args[0], "_raw", None):
            native = be.native(names)
            if native is not None:
                native(*rargs, **rkwargs)
                return convert(args[0], cls)
        write_into(args[0], call_impl(impl, be, rargs, rkwargs), name)
        return convert(args[0], cls)
    return run


# ------------------------------------------------------------------ the public callables
_PLAIN_VALUES = frozenset({int, float, bool, complex, str, type(None), slice, type(Ellipsis),
                           range, np.dtype})


def plain_call(args: tuple, kwargs: dict | None) -> tuple[type, Backend | None, list | None] | None:
    """The fast path's one check, for functions, methods, properties and NumPy's protocols.

    ``(cls, backend, raws)`` when no argument can override (Tensors keeping the
    default handler, plain values): ``cls`` is the result class (the lowest
    subclass).  ``raws`` are the raw positional arguments when the call needs
    no unwrapping besides (arrays of one backend and device; keyword options
    that are plain values); else None, and the general path unwraps.  None
    when something may override: the protocol decides, and raises torch's
    TypeError for unrelated subclasses."""
    cls, be, raws, device = Tensor, None, [], None
    n_args = len(args)
    for i, a in enumerate((*args, *kwargs.values()) if kwargs else args):
        t = type(a)
        if t is Tensor:
            raw = a._raw
        elif t in _PLAIN_VALUES:
            if raws is not None and i < n_args:
                raws.append(a)
            continue
        elif t is np.ndarray:
            raw = a  # a host array: the NumPy backend's own
        elif t is list or t is tuple:
            inner = plain_call(a, None)
            if inner is None or (cls := _lower(cls, inner[0])) is None:
                return None
            raws = None
            continue
        else:
            handler = getattr(t, "__torch_function__", None)
            if getattr(handler, "__func__", None) is not _DEFAULT_TF:
                if handler is not None and (issubclass(t, Tensor) or tf._overrides(t)):
                    return None  # (a Tensor subclass's own handler, or a duck type's)
                if raws is not None and i < n_args and isinstance(a, np.generic):
                    raws.append(a)  # NumPy scalars go in as they are
                else:
                    raws = None  # a dtype object, a torch tensor as data, ...: the general path
                continue
            if (cls := _lower(cls, t)) is None:
                return None
            raw = a._raw
        if raws is None:
            continue
        b = _raw_backends.get(type(raw))
        if i >= n_args or b is None or (be is not None and b is not be):
            raws = None
            continue
        if not b.mutable:
            views.hold(a)  # a write into its array (out of place) rebinds it, as unwrap does
        if b.multi_device:
            if device is None:
                device = raw.device
            elif raw.device != device:
                raws = None
                continue
        be = b
        raws.append(raw)
    return cls, be, raws


def exact_tensors(args: tuple, cls: type = Tensor) -> tuple[Backend, list] | None:
    """The commonest call, checked before ``plain_call``: one or two tensors of exactly
    ``cls``, of one array type on one device, nothing else: (backend, raw arrays); else None."""
    if len(args) == 1:
        a = args[0]
        if type(a) is cls:
            raw = a._raw
            be = _raw_backends.get(type(raw))
            if be is not None and be.mutable:  # an immutable one registers its tensors (JAX)
                return be, [raw]
    elif len(args) == 2:
        a, b = args
        if type(a) is cls and type(b) is cls:
            raw_a, raw_b = a._raw, b._raw
            be = _raw_backends.get(type(raw_a))
            if be is not None and type(raw_b) is type(raw_a) and be.mutable \
                    and not be.multi_device:
                return be, [raw_a, raw_b]
    return None


def _lower(cls: type, t: type) -> type | None:
    """The lower of two classes in one line of descent; None for unrelated subclasses."""
    if issubclass(t, cls):
        return t
    return cls if issubclass(cls, t) else None


def finish(ret: Any, cls: type, args: tuple, be: Backend | None = None) -> Any:
    """An implementation's raw result as a ``cls`` tensor: one array (or NumPy scalar) made
    directly, anything else wrapped, as is an immutable backend's ``be`` result (registered
    for the write replay; the exact-tensor paths, which give no ``be``, refuse those)."""
    if type(ret) not in _raw_backends:
        if not isinstance(ret, np.generic):
            return wrap(ret, cls, args, be)
        ret = np.asarray(ret)  # a NumPy reduction's scalar: a 0-d tensor, as torch's
    elif be is not None and not be.mutable:
        return wrap(ret, cls, args, be)
    if cls is not Tensor:
        return make(cls, ret, _source(cls, args))
    obj = _new(Tensor)
    obj._raw = ret
    return obj


def dispatch(public: Callable, run: Callable, args: tuple, kwargs: dict) -> Any:
    """The slow path: modes and argument overrides, as torch's Python path does it."""
    if not _active():
        first = _one_override(args, kwargs)
        if first is not None:  # a subclass's own handler, the only one: no search to make
            return tf.call_own_handler(public, first, args, {})
    overloaded = tf._get_overloaded_args(tf.relevant_args(args, kwargs))
    if not overloaded and not tf._is_torch_function_mode_enabled():
        return run(Tensor, args, kwargs)
    return tf._dispatch_overloaded(public, overloaded, args, kwargs or {})


def _one_override(args: tuple, kwargs: dict | None) -> Any:
    """The call's one overriding argument where finding it is that simple: the first, a
    Tensor subclass with its own loop-checked classmethod handler (``Tensor.__init_subclass__``
    wraps it), beside nothing but plain values and tensors of its class (torch tries each
    type once); else None: the general search."""
    if kwargs or not args:
        return None
    first = args[0]
    cls = type(first)
    if cls is Tensor or not isinstance(first, Tensor) or getattr(
            getattr(cls.__torch_function__, "__func__", None), "unchecked", None) is None:
        return None
    for a in args:
        if type(a) is not cls and type(a) not in _PLAIN_VALUES:
            return None
    return first


def call(public: Callable, run: Callable, args: tuple, kwargs: dict) -> Any:
    """Run ``public``'s operation: directly if nothing can override, else via the protocol."""
    if not _active():
        plain = plain_call(args, kwargs)
        if plain is not None:
            return run(plain[0], args, kwargs)
    return dispatch(public, run, args, kwargs)


def make_public(run: Callable, name: str, qualname: str, doc: str = "",
                signature: inspect.Signature | None = None) -> Callable:
    """A function or method: the fast path, else the override protocol.

    ``run.direct`` (an implementation taking the backend and raw arguments,
    set for the entries whose run does nothing more than unwrap, call it and
    wrap) is called straight from here when the plain-call check has already
    unwrapped the arguments."""
    direct = getattr(run, "direct", None)
    bare = getattr(direct, "bare", direct)  # the implementation without its dims normaliser
    fits = getattr(direct, "fits", None)
    shortcut = getattr(run, "shortcut", None)  # an operator's: (fast, kinds)

    def public(*args: Any, **kwargs: Any) -> Any:
        if not _active():
            if bare is not None and not kwargs:
                exact = exact_tensors(args)
                if exact is not None:
                    if shortcut is not None and len(args) == 2:
                        raw = raw_shortcut(*shortcut, *exact[1])
                        if raw is not None:
                            return finish(raw, Tensor, args)
                    if fits is None or fits(exact[1]):
                        return finish(call_impl(bare, exact[0], exact[1], kwargs), Tensor, args)
            plain = plain_call(args, kwargs)
            if plain is not None:
                cls, be, raws = plain
                if direct is not None and raws is not None and be is not None:
                    if not kwargs and (fits is None or fits(raws)):
                        return finish(call_impl(bare, be, raws, kwargs), cls, args, be)
                    if "out" not in kwargs:
                        return finish(call_impl(direct, be, raws, kwargs), cls, args, be)
                return run(cls, args, kwargs)
        return dispatch(public, run, args, kwargs)
    public.__name__, public.__qualname__, public.__module__ = name, qualname, "interop"
    public.__doc__ = doc or None
    if signature is not None:
        public.__signature__ = signature
    public._interop_run = run
    return public


def _default_handler(cls: type) -> bool:
    """True if ``cls`` keeps the default ``__torch_function__`` (results simply become cls)."""
    return cls is Tensor or getattr(cls.__torch_function__, "__func__", None) is _DEFAULT_TF


def make_operator(run: Callable, passed: Callable | None, dunder: str,
                  fast: Callable | None = None, kinds: str = "", swap: bool = False,
                  numpy: Callable | None = None) -> Callable:
    """``t + x`` and friends; ``passed`` is the callable handlers see (torch's choice, A13).

    ``numpy(t, operand)``: with a NumPy array or scalar operand, the ufunc that
    ``operand <op> t`` would call (NumPy's binop rule sends ``ndarray + t`` to
    ``np.add(a, t)``), so both orders give NumPy's values and dtype.

    ``fast(a, b)`` computes on raw arrays directly when both operands are plain
    tensors (or a Python number) of one backend and one dtype of a kind in
    ``kinds``: there NumPy's and torch's result dtypes agree, so the shortcut
    gives the same answer as the table entry.  Unknown operand types and
    unrelated-subclass clashes give NotImplemented, so Python tries the other
    operand and then raises its usual ``unsupported operand`` error.  A
    TypeError raised *by a handler* propagates unchanged (torch would swallow
    it, and ``==`` would silently be False: a known pitfall).
    """
    def slow(self: Any, other: Any, hooked: bool = False) -> Any:
        if numpy is not None and (type(other) is np.ndarray or isinstance(other, np.generic)):
            return numpy(self, other)  # as `ndarray <op> t` would: NumPy's
        if not operand_ok(other):
            if type(other) is not list:
                return NotImplemented
            other = Tensor(other)
        try:  # a subclass with its own handler goes to the protocol at once
            return (dispatch if hooked else call)(passed or public, run, (self, other), {})
        except tf.NoImplementationFound:
            return NotImplemented

    def operator(self: Any, other: Any) -> Any:
        if _active():
            return slow(self, other)
        cls = type(self)
        to = type(other)
        if to is cls or to is Tensor:
            if cls is not Tensor and not _default_handler(cls):
                return slow(self, other, True)
            a, b = self._raw, other._raw
            raw = raw_shortcut(fast, kinds, b, a) if swap else raw_shortcut(fast, kinds, a, b)
            if raw is None:
                return slow(self, other)
        elif to is float or to is int:
            if cls is not Tensor and not _default_handler(cls):
                return slow(self, other, True)
            a = self._raw
            kind = getattr(a.dtype, "kind", "?")
            if not a.ndim or kind not in kinds or not (kind in "fc" or to is int and kind != "b") \
                    or kind in "iu" and not -128 <= other < 128 and not _fits_int(other, a.dtype):
                return slow(self, other)  # an int beyond the dtype: torch wraps it (promote)
            raw = fast(other, a) if swap else fast(a, other)
        else:
            return slow(self, other)
        if cls is Tensor:
            obj = _new(Tensor)
            obj._raw = raw
            return obj
        return make(cls, raw, self)

    def unary(self: Any) -> Any:
        return call(passed or public, run, (self,), {})

    public = operator if fast is not None else (unary if dunder in _UNARY_DUNDERS else slow)
    public.__name__ = dunder
    public.__qualname__ = f"Tensor.{dunder}"
    public.__module__ = "interop"
    public._interop_run = run
    return public


def raw_shortcut(fast: Callable, kinds: str, a: Any, b: Any) -> Any:
    """An operator's shortcut, ``fast(a, b)`` on raw arrays, where it gives the table entry's
    answer: one array type, dtype and device, of a dtype kind in ``kinds`` (where NumPy's
    result dtype is torch's), neither 0-d; None where the entry must decide.  Non-NumPy
    dtypes (array-api-strict's, torch's) and two devices of one backend take the full path:
    it knows their rules and names the devices in its error."""
    dt = a.dtype
    if type(a) is not type(b) or dt is not b.dtype and dt != b.dtype \
            or getattr(dt, "kind", "?") not in kinds or not (a.ndim and b.ndim) or \
            _raw_backends[type(a)].multi_device and a.device != b.device:
        return None
    try:
        return fast(a, b)
    except ValueError:
        return None  # the entry says it in torch's words (Dask: NaN sizes explained)


def _fits_int(x: int, dtype: np.dtype) -> bool:
    """True if ``dtype`` (an integer dtype) holds ``x``; else the operator wraps x, as torch."""
    bounds = _int_bounds.get(dtype)
    if bounds is None:
        info = np.iinfo(dtype)
        bounds = _int_bounds[dtype] = (int(info.min), int(info.max))
    return bounds[0] <= x <= bounds[1]


_int_bounds: dict[np.dtype, tuple[int, int]] = {}


_UNARY_DUNDERS = frozenset({"__neg__", "__pos__", "__abs__", "__invert__"})


def make_getitem(run: Callable) -> Callable:
    """``t[i]``: a slice or an int on a plain tensor is a view made directly; all else dispatches."""
    def __getitem__(self: Any, index: Any) -> Any:  # noqa: N807
        cls = type(self)
        if not _active() and (cls is Tensor or _default_handler(cls)):
            ti = type(index)
            try:
                if ti is slice:
                    out = self._raw[index]
                elif ti is int and self._raw.ndim:
                    out = self._raw[index, ...]
                else:
                    out = None
            except (IndexError, ValueError):
                out = None  # the table entry below says it in torch's words (Dask: unknown sizes)
            if out is not None:
                if type(out) in views.WITHOUT_VIEWS:  # Dask: writes into out must reach self
                    views.remember(out, self._raw, index)
                    if type(out) in views.IMMUTABLE:  # JAX: a write replays into self's array
                        views.hold(self)
                return make(cls, out, self)
            return call(__getitem__, run, (self, index), {})
        return dispatch(__getitem__, run, (self, index), {})  # a mode, or cls's own handler
    __getitem__._interop_run = run
    __getitem__.__qualname__ = "Tensor.__getitem__"
    __getitem__.__module__ = "interop"
    return __getitem__


def operand_ok(x: Any) -> bool:
    """Types an operator accepts; anything else gets NotImplemented (Python then tries x)."""
    t = type(x)
    return (t is Tensor or t in _SCALARS or isinstance(x, (Tensor, np.generic))
            or t in _raw_backends or hasattr(t, "__torch_function__")
            or registry.backend_of(x) is not None)


_SCALARS = frozenset({int, float, bool, complex})


def implementation_for(func: Callable) -> Callable | None:
    """run(cls, args, kwargs) for a callable handlers received, from any surface."""
    hit = _implementations.get(id(func))
    if hit is not None and hit[0] is func:
        return hit[1]
    run = getattr(func, "_interop_run", None)
    if run is None:
        run = getattr(getattr(func, "__self__", None), "_interop_run", None)
    if run is None:
        for resolver in RESOLVERS:
            run = resolver(func)
            if run is not None:
                break
        else:
            return None  # a callable of no surface (a user's function): not remembered
    owner = getattr(func, "__self__", None)
    if owner is None or isinstance(owner, (ModuleType, type)):  # not np.add.reduce: a new
        _implementations[id(func)] = (func, run)  # object per access; func held: id not reused
        shortcut = getattr(run, "shortcut", None)
        if shortcut is not None:
            _shortcuts[id(func)] = (func, *shortcut)
    return run


_implementations: dict[int, tuple[Callable, Callable]] = {}
_shortcuts: dict[int, tuple[Callable, Callable, str]] = {}
"""id -> (func, fast, kinds) for the callables whose entry has an operator's shortcut, so
the default handler tries ``torch.add(t, t)`` as ``t + t`` before anything else."""


RESOLVERS: list[Callable[[Callable], Callable | None]] = []
"""Lookups for callables of other surfaces (torch callables by name, NumPy functions)."""


class DispatchedProperty:
    """A property that goes through the protocol: handlers see ``Tensor.<name>.__get__``."""

    def __init__(self, run: Callable, name: str, doc: str = "") -> None:
        self._interop_run = run
        self.__name__ = name
        self.__doc__ = doc or None

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        if not _active():
            plain = plain_call((obj,), None)
            if plain is not None:
                return self._interop_run(plain[0], (obj,), {})
        return dispatch(self.__get__, self._interop_run, (obj,), {})

    def __set__(self, obj: Any, value: Any) -> None:
        raise AttributeError(f"can't set attribute '{self.__name__}' of an interop tensor")


# ------------------------------------------------------------------ the default handler
def default_torch_function(cls: type, func: Any, types: tuple, args: tuple = (),
                           kwargs: dict | None = None) -> Any:
    """The default handler (RFC 0001): run ``func`` and return results as ``cls``.

    Returns NotImplemented unless ``cls`` is a subclass of every type in
    ``types`` that is not torch's own ``torch.Tensor`` (or ``nn.Parameter``):
    those are data, taken in by DLPack like an ndarray, as torch's Python
    functions (einsum, layer_norm, ...) list them in ``types`` beside ours.
    ``func`` may come from any surface: an interop function or method, a
    torch callable, a NumPy function or ufunc.
    """
    if not kwargs and len(args) == 2:  # torch.add(t, t): the operator's shortcut, first
        hit = _shortcuts.get(id(func))
        if hit is not None and hit[0] is func:
            a, b = args
            if type(a) is cls and type(b) is cls:
                raw = raw_shortcut(hit[1], hit[2], a._raw, b._raw)
                if raw is not None:
                    if cls is not Tensor:
                        return make(cls, raw, a)
                    obj = _new(Tensor)
                    obj._raw = raw
                    return obj
    if kwargs is None:
        kwargs = {}
    if len(types) != 1 or types[0] is not cls:  # (cls,): torch's commonest call, nothing to check
        for t in types:
            if not issubclass(cls, t) and not tf.is_plain_value_type(t):
                return NotImplemented
    run = implementation_for(func)
    if run is None:
        with tf.DisableTorchFunctionSubclass():
            return convert(func(*args, **kwargs), cls)
    direct = getattr(run, "direct", None)
    if direct is not None and (not kwargs or "out" not in kwargs):
        exact = None if kwargs else exact_tensors(args, cls)
        if exact is not None:  # t.sum(), super() in a subclass: public's fast path
            fits = getattr(direct, "fits", None)
            if fits is None or fits(exact[1]):
                return finish(call_impl(getattr(direct, "bare", direct), *exact, kwargs),
                              cls, args)
        return run_op(direct, False, cls, args, kwargs)  # what run does, one call sooner
    return run(cls, args, kwargs)


Tensor.__torch_function__ = classmethod(default_torch_function)  # the core installs it: one hook
_DEFAULT_TF = default_torch_function
