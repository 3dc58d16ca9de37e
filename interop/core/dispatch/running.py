"""Running an implementation on raw arrays, and restating what a backend raises in torch's
words: the operation's name, torch's exception type, and the fix."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ... import dtypes, errors
from ...backends import registry
from ...backends.contract import Backend
from .unwrap import unwrap_call
from .wrapping import wrap


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


def run_op(impl: Callable, creation: bool, cls: type, args: tuple, kwargs: dict,
           native_names: tuple[str, ...] = ()) -> Any:
    """The general path of an out-of-place operation: unwrap, run, wrap as ``cls``."""
    be, rargs, rkwargs = unwrap_call(args, kwargs)
    ret = call_impl(impl, be if creation else be or registry.default_backend(), rargs, rkwargs,
                    native_names)
    return wrap(ret, cls, args, be)


_RESTATED = (ValueError, TypeError, IndexError, NotImplementedError, AttributeError,
             OverflowError, MemoryError)
"""The exceptions of an implementation that ``restated`` may put in torch's words."""


def call_impl(impl: Callable, be: Backend | None, rargs: list, rkwargs: dict,
              native_names: tuple[str, ...] = ()) -> Any:
    """``impl`` on raw arguments; a backend's exception is restated as torch would raise it.

    A backend whose library has the operation itself (``Backend.native``: torch's functions
    on torch tensors, JAX's convolution and pools) runs that instead, under the operation's
    torch names
    (``Route.native_names``), with that library's semantics and errors."""
    if be is not None and be.native_ops:
        native = be.native(native_names)
        spellings = getattr(impl, "spellings", None)  # NumPy's keywords: torch's names
        if native is not None and spellings and rkwargs and \
                any(spellings.get(k, k) != k for k in rkwargs):
            rargs = _promoted(be, rargs)
        if native is not None:
            if spellings and rkwargs:
                rkwargs = {spellings.get(k, k): v for k, v in rkwargs.items()}
            out = native(*rargs, **rkwargs)
            if out is not NotImplemented:  # (a primitive declining an argument it lacks)
                return out
    try:
        return impl(be, *rargs, **rkwargs)
    except _RESTATED as exc:
        raise restated(impl, be, rargs, exc, rkwargs)  # noqa: B904 (restated sets the cause)


def _promoted(be: Backend, rargs: list) -> list:
    """A call in NumPy's keywords (``tensordot(x, y, axes=1)``: opt_einsum's, for xarray's
    ``weighted``) has its array operands promoted to one dtype, as NumPy and interop's own
    implementations do, where the library's function (torch's) refuses a mix.  A call in
    torch's keywords keeps torch's refusal."""
    arrays = [a for a in rargs if be.owns(a)]
    if len({a.dtype for a in arrays}) < 2:
        return rargs
    common = be.xp.result_type(*arrays)
    return [be.xp.astype(a, common) if be.owns(a) and a.dtype != common else a for a in rargs]


def restated(impl: Callable, be: Backend | None, rargs: list, exc: Exception,
             rkwargs: dict | None = None) -> Exception:
    """What ``impl`` raising ``exc`` should raise: ``exc`` itself, or torch's statement of
    it, naming the operation (its ``__cause__`` is ``exc``)."""
    if type(exc).__module__ == errors.__name__ or hasattr(exc, "interop_graph_error"):
        return exc  # already stated by interop, or raised by a task of an earlier Dask graph
    name = getattr(impl, "__name__", "operation")
    if isinstance(exc, (OverflowError, MemoryError)):
        new = backend_error(name, exc)
    elif not isinstance(exc, AttributeError) and be is not None and \
            (explained := be.explain_error(name, rargs, exc)) is not None:
        new = explained  # (before a None among the arguments: an unknown size, on Dask)
    elif (misplaced := _misplaced_argument(impl, name, rargs, rkwargs or {}, exc)) is not None:
        new = misplaced
    elif isinstance(exc, AttributeError):
        return exc
    elif isinstance(exc, (ValueError, dtypes.OperandError)) or type(exc).__module__.startswith(
            ("numpy", "cupy", "dask")) or type(exc) is IndexError and _raised_by_backend(exc):
        new = backend_error(name, exc)
    else:
        return exc
    new.__cause__ = exc
    return new


def _misplaced_argument(impl: Callable, name: str, rargs: list, rkwargs: dict,
                        exc: Exception) -> TypeError | None:
    """A TypeError naming the argument that made ``impl`` fail, where one surely did: a
    number's parameter given None or what is no number (a string; a float for an int),
    positionally or by name, whatever ``impl`` raised then; or, for a TypeError or
    AttributeError, None or an iterator where a tensor goes (an element of a list of
    tensors too).  What each parameter is comes from the record's annotations; a parameter
    whose default is None takes None, so it is never the one named."""
    tensor_error = isinstance(exc, (TypeError, AttributeError))
    positional, named = _parameter_kinds(impl)
    given = [(f"argument {i} ({positional[i - 1][0]})" if i <= len(positional) else
              f"argument {i}", positional[i - 1][1] if i <= len(positional) else _TENSOR, a)
             for i, a in enumerate(rargs, 1)]
    given += [(f"argument '{k}'", named[k], v) for k, v in rkwargs.items() if k in named]
    for label, kind, a in given:
        if kind is None:
            continue
        if kind != _TENSOR:
            if not _fits(kind, a):
                return TypeError(f"{name}(): {label} must be {kind}, not {type(a).__name__}")
            continue
        if not tensor_error:
            continue
        items = [(f"element {j} of {label}", x) for j, x in enumerate(a)] \
            if type(a) is list or type(a) is tuple else [(label, a)]
        for where, x in items:
            if x is None or isinstance(x, Iterator):
                fix = "pass a tensor" if x is None else "make a tensor first: interop.tensor(list(x))"
                return TypeError(f"{name}(): {where} must be a tensor, not "
                                 f"{type(x).__name__}; {fix}")
    return None


def _fits(kind: str, value: Any) -> bool:
    """Whether ``value`` can be what a number's parameter takes (arrays and tensors too: torch
    takes a 0-d tensor for a number); only what surely cannot is refused."""
    if value is None or isinstance(value, (str, bytes)):
        return False
    return not (kind == "an int" and isinstance(value, float))


_TENSOR = "a tensor"
_NUMBERS = {int: "an int", float: "a number", bool: "a bool", complex: "a number"}


@functools.cache
def _parameter_kinds(impl: Callable) -> tuple[tuple[tuple[str, str | None], ...],
                                              dict[str, str | None]]:
    """What each of ``impl``'s parameters after the backend takes, as an error says it ("a
    tensor", "an int", "a number", ...), or None where None is its default: ``(name, kind)``
    of the positional ones in order (up to ``*args``), and ``{name: kind}`` of all the named
    ones.  Unannotated parameters (``Any``) are operands: tensors."""
    try:
        params = list(inspect.signature(impl).parameters.values())[1:]
        hints = typing.get_type_hints(impl)
    except (TypeError, ValueError, NameError):
        return (), {}
    positional: list[tuple[str, str | None]] = []
    named: dict[str, str | None] = {}
    ordered = True  # positional parameters come before *args and keyword-only ones
    for p in params:
        if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL, p.KEYWORD_ONLY):
            ordered = False
            if p.kind is not p.KEYWORD_ONLY:
                continue
        members = [h for h in typing.get_args(hints.get(p.name)) or (hints.get(p.name),)
                   if h is not type(None)]
        numbers = {_NUMBERS.get(h) for h in members}
        kind = None if p.default is None else \
            (numbers.pop() if len(numbers) == 1 else "a number") if members and None not in numbers \
            else _TENSOR
        named[p.name] = kind
        if ordered:
            positional.append((p.name, kind))
    return tuple(positional), named
