"""Tensor as a participant in NumPy's protocols: ``__array_ufunc__`` (NEP 13),
``__array_function__`` (NEP 18, with NEP 35's ``like=``) and ``__array__``.

A NumPy call on tensors joins the one dispatch path: handlers and modes see
``func`` = the NumPy function, the ufunc, or the bound ufunc method
(``np.add.reduce``), and the default handler runs it by unwrapping the
tensors, bringing the operands onto one backend and calling the *same* NumPy
callable again on the raw arrays.  NumPy, CuPy and Dask then each run their
own implementation (NEP 13/18): NumPy's semantics, the data's device, Dask
stays lazy.  Results come back as the lowest Tensor subclass; ``out=``
tensors are written through and returned themselves.

A library whose arrays lack both protocols (array-api-strict, JAX, Cubed) gets
the function of the same name from its own namespace (``np.mean`` -> its
``mean``), so NumPy never converts its arrays behind the user's back.

What the backend lacks raises a TypeError naming the function and the
backend: never a silent copy to the host, never a silent Dask compute.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..backends import registry, views
from ..backends.contract import Backend
from ..backends.dask import numpy_functions as numpy_dask
from ..backends.dask import ufunc_methods
from ..core import dispatch
from ..core.dispatch import foreign_wrappers
from ..core.tensor import Tensor
from ..upstream import warn_changed

_active = dispatch.active
_SCALARS = frozenset({int, float, bool, complex})
_DASK_COMPUTES = ".*is not implemented by Dask array"  # Dask warns, then computes: we refuse


# ------------------------------------------------------------------ running on the backend
def _label(func: Any, method: str = "__call__") -> str:
    if isinstance(func, np.ufunc):
        return f"numpy.{func.__name__}" + ("" if method == "__call__" else f".{method}")
    return f"{func.__module__}.{func.__name__}"


def _lacks(label: str, be: Backend | None) -> TypeError:
    name = be.name if be is not None else "numpy"
    return TypeError(
        f"{label} is not implemented by the {name} backend, and interop neither copies data "
        "to the host nor computes a Dask graph implicitly: convert explicitly (t.numpy() "
        "computes a Dask tensor, t.cpu() copies from the GPU) and call NumPy on that, or use "
        "an interop function")


def _call_backend(func: Any, method: str, be: Backend | None, rargs: list, rkwargs: dict) -> Any:
    """The NumPy callable on raw arrays, with NumPy's 'nobody implements it' made clear."""
    fn = func if method == "__call__" else getattr(func, method) if be is None \
        else be.ufunc_method(func, method)
    if be is not None and method == "__call__" and not isinstance(func, np.ufunc):
        fn = be.numpy_supplement(func) or fn
    if be is not None and not be.numpy_protocols:
        fn = be.numpy_function(func, method)
        if fn is None:
            raise _lacks(_label(func, method), be)
    elif be is not None and be.lazy and method in ufunc_methods.METHODS:
        fn = _lazy_method(func, method)
    try:
        if be is not None and be.lazy:
            with warnings.catch_warnings():
                warnings.filterwarnings("error", _DASK_COMPUTES, FutureWarning)
                return fn(*rargs, **rkwargs)
        return fn(*rargs, **rkwargs)
    except FutureWarning:
        raise _lacks(_label(func, method), be) from None
    except (ValueError, NotImplementedError) as exc:  # e.g. Dask's unknown (NaN) sizes
        explained = be.explain_error(_label(func, method), rargs, exc) if be is not None else None
        if explained is None:
            raise
        raise explained from exc
    except TypeError as exc:
        text = str(exc)
        if "no implementation found" in text or "returned NotImplemented from" in text:
            raise _lacks(_label(func, method), be) from None
        raise


def _lazy_method(ufunc: np.ufunc, method: str) -> Callable:
    """The ufunc method built from Dask's blocks; values it needs are read through the gate."""
    fn = functools.partial(ufunc_methods.METHODS[method], ufunc)
    return functools.partial(fn, read=_host_values) if method in ufunc_methods.NEEDS_VALUES else fn


def _lazy_function(func: Callable) -> Callable:
    """The NumPy function built from Dask's blocks, named as NumPy's in errors."""
    fn = numpy_dask.lazy_functions()[func]
    read = {"read": _host_values} if func in numpy_dask.VALUE_ANSWERS else {}
    return functools.update_wrapper(functools.partial(fn, **read), func)


def _host_values(value: Any, why: str) -> Any:
    """``value`` (a tensor, raw array, or tuple of them) with lazy arrays read, under the
    ``dask_compute`` policy."""
    if type(value) is tuple:
        return tuple(_host_values(v, why) for v in value)
    raw = value._raw if isinstance(value, Tensor) else value
    be = registry.backend_of(raw)
    return be.to_host(raw, why) if be is not None and be.lazy else raw


def _run_at(ufunc: np.ufunc, args: tuple, kwargs: dict) -> None:
    """``ufunc.at`` writes into its first argument on that target's own backend: a host
    target's lazy operands are read (a value read), never the target moved to Dask."""
    be, rargs, rkwargs = dispatch.unwrap_call(args, kwargs)
    target = args[0]._raw if isinstance(args[0], Tensor) else args[0]
    if be is not None and rargs[0] is not target:
        be = registry.backend_of(target)
        why = f"numpy.{ufunc.__name__}.at into a {be.name if be else 'host'} target"
        rargs = [target, *(_host_values(a, why) for a in args[1:])]
    if be is not None and isinstance(args[0], Tensor):
        rargs = [be.write_target(rargs[0], f"numpy.{ufunc.__name__}.at"), *rargs[1:]]
    _call_backend(ufunc, "at", be, rargs, rkwargs)
    if isinstance(args[0], Tensor) and rargs[0] is not target:
        args[0]._raw = rargs[0]  # an immutable library's new array (Backend.write_target)


def _out_results(label: str, out: Any, raw_out: Any, ret: Any, cls: type, args: tuple) -> Any:
    """Results for an ``out=`` call: the given out objects themselves, identity kept."""
    many = isinstance(out, tuple)
    outs, raws = (out, raw_out) if many else ((out,), (raw_out,))
    for o, r in zip(outs, raws):
        if o is not None and r is not (o._raw if isinstance(o, Tensor) else o):
            raise TypeError(f"{label}: out= holds a {type(o).__name__} on another backend than "
                            "the inputs, which is not an interop tensor; wrap it "
                            "(interop.as_tensor(out)) so the result is written into its "
                            "buffer, or assign the result instead")
        if o is not None:
            views.written(r)
    if not many:
        return out
    if len(outs) == 1:
        return outs[0]
    rets = ret if isinstance(ret, tuple) else (ret,)
    return tuple(o if o is not None else dispatch.wrap(r, cls, args) for o, r in zip(outs, rets))


def run_ufunc(ufunc: np.ufunc, method: str, cls: type, args: tuple, kwargs: dict) -> Any:
    """The default for a ufunc call: the backend's ufunc on raw arrays, results as ``cls``."""
    if method == "at":
        return _run_at(ufunc, args, kwargs)
    be, rargs, rkwargs = dispatch.unwrap_call(args, kwargs)
    if be is not None and be.lazy and method == "__call__" and rkwargs.get("out") is not None:
        _check_out_cast(ufunc, rargs, rkwargs)
    out = kwargs.get("out") if kwargs else None
    if out is not None and be is not None and (not be.mutable or _many_lazy_outs(be, out)
                                               or _outs_elsewhere(out, rkwargs["out"])):
        return _written_out(_label(ufunc, method), out, ufunc, method, be, rargs, rkwargs, cls,
                            args)
    ret = _call_backend(ufunc, method, be, rargs, rkwargs)
    if out is None:
        return dispatch.wrap(ret, cls, args)
    return _out_results(_label(ufunc, method), out, rkwargs["out"], ret, cls, args)


def _many_lazy_outs(be: Backend, out: Any) -> bool:
    """Several ``out=`` arrays on a lazy backend: Dask's ufuncs take one (``np.modf``,
    ``np.divmod`` and ``np.frexp`` with ``out=(o1, o2)`` raise there)."""
    return be.lazy and isinstance(out, tuple) and len(out) > 1


def _outs_elsewhere(out: Any, raw_out: Any) -> bool:
    """An out tensor whose array was brought onto the call's backend (a NumPy tensor beside
    Dask inputs): a write never moves its target, so the result is written into it."""
    pairs = zip(out, raw_out) if isinstance(out, tuple) else ((out, raw_out),)
    return any(isinstance(o, Tensor) and r is not o._raw for o, r in pairs)


def _written_out(label: str, out: Any, func: Any, method: str, be: Backend, rargs: list,
                 rkwargs: dict, cls: type, args: tuple) -> Any:
    """``out=`` where the backend's ufunc cannot write it (JAX's arrays are immutable, Dask's
    multi-output ufuncs take no out=, an out tensor on another backend): computed out of
    place, then written into the out tensors as ``t.copy_(result)`` would (views replay; a
    lazy result into a host tensor is a value read under ``dask_compute``).  Every out is checked before the
    first is written."""
    outs = out if isinstance(out, tuple) else (out,)
    if not all(o is None or isinstance(o, Tensor) for o in outs):
        raise TypeError(f"{label}: out= must hold interop tensors on a {be.name} call (the "
                        "backend's function cannot write into other arrays): pass tensors")
    ret = _call_backend(func, method, be, rargs, {k: v for k, v in rkwargs.items() if k != "out"})
    rets = ret if isinstance(ret, tuple) else (ret,)
    for o, r in zip(outs, rets):
        if o is not None:
            dispatch.write_into(o, r, label)
    if len(outs) == 1:
        return outs[0]
    return tuple(o if o is not None else dispatch.wrap(r, cls, args) for o, r in zip(outs, rets))


def _check_out_cast(ufunc: np.ufunc, rargs: list, rkwargs: dict) -> None:
    """NumPy's casting check for ``out=``, made before a lazy call: Dask would re-type the out
    array to the result's dtype instead of refusing, as NumPy does, a cast it may not make."""
    outs = rkwargs["out"] if isinstance(rkwargs["out"], tuple) else (rkwargs["out"],)
    ins = [a.dtype if hasattr(a, "dtype") else type(a) for a in rargs]
    if "dtype" in rkwargs or "signature" in rkwargs or len(ins) != ufunc.nin or \
            not all(isinstance(d, np.dtype) or d in _SCALARS for d in ins):
        return
    ufunc.resolve_dtypes((*ins, *(getattr(o, "dtype", None) for o in outs)),
                         casting=rkwargs.get("casting", "same_kind"))


_WRITE_INTO_FIRST = frozenset({np.put, np.place, np.putmask, np.copyto, np.fill_diagonal,
                               np.put_along_axis})
"""NumPy's functions that write into their first argument, element by element: an error
part-way (``np.put(t, [0, 99], v)``: index 99) would leave the first elements written."""


def _written_whole(func: Callable, be: Backend, rargs: list, rkwargs: dict) -> None:
    """``func`` writing into a copy of its target, then the copy into the target: a write that
    fails leaves the target unchanged (docs/errors.md, rule 5), as interop's own writes."""
    target = rargs[0]
    work = be.copy(target)
    _call_backend(func, "__call__", be, [work, *rargs[1:]], rkwargs)
    be.write_at(target, Ellipsis, work)


def run_function(func: Callable, cls: type, args: tuple, kwargs: dict) -> Any:
    """The default for a NumPy function: the backend's implementation, results as ``cls``."""
    be, rargs, rkwargs = dispatch.unwrap_call(args, kwargs)
    if func in _WRITE_INTO_FIRST and be is not None and be.mutable and not be.lazy \
            and isinstance(args[0], Tensor) and rargs[0] is args[0]._raw:
        return _written_whole(func, be, rargs, rkwargs)
    if be is not None and be.lazy and func in numpy_dask.lazy_functions():
        ret = _call_backend(_lazy_function(func), "__call__", be, rargs, rkwargs)
        if func in numpy_dask.VALUE_ANSWERS:
            return ret
    else:
        out = kwargs.get("out") if kwargs else None
        if out is not None and be is not None and not be.mutable:
            return _written_out(_label(func), out, func, "__call__", be, rargs, rkwargs, cls, args)
        ret = _call_backend(func, "__call__", be, rargs, rkwargs)
    out = kwargs.get("out") if kwargs else None
    if out is None:
        return dispatch.wrap(ret, cls, args)
    return _out_results(_label(func), out, rkwargs["out"], ret, cls, args)


def resolve_numpy_callable(func: Callable) -> dispatch.Route | None:
    """The route of a ufunc, a bound ufunc method or a NEP-18 NumPy function."""
    if isinstance(func, np.ufunc):
        return dispatch.Route(functools.partial(run_ufunc, func, "__call__"))
    owner = getattr(func, "__self__", None)
    if isinstance(owner, np.ufunc):
        return dispatch.Route(functools.partial(run_ufunc, owner, func.__name__))
    if hasattr(func, "_implementation") and (getattr(func, "__module__", None) or "").startswith("numpy"):
        return dispatch.Route(functools.partial(run_function, func))
    return None


# ------------------------------------------------------------------ the protocol methods
def __array_ufunc__(self: Tensor, ufunc: np.ufunc, method: str, *inputs: Any,  # noqa: N807
                    **kwargs: Any) -> Any:
    """NEP 13: every ufunc and ufunc method, through the ``__torch_function__`` hook."""
    if not _active():
        plain = dispatch.plain_call(inputs, kwargs)
        if plain is not None:
            cls, be, raws = plain
            if raws is not None and be is not None and method == "__call__" and not kwargs \
                    and be.numpy_protocols:
                try:  # the common call: plain operands of one array type
                    ret = ufunc(*raws)
                except TypeError:  # run it again the general way, for the clear error
                    return run_ufunc(ufunc, method, cls, inputs, kwargs)
                return dispatch.finish(ret, cls, inputs)
            if raws is not None or foreign_wrappers.foreign_wrapper(inputs, kwargs) is None:
                return run_ufunc(ufunc, method, cls, inputs, kwargs)
    if foreign_wrappers.foreign_wrapper(inputs, kwargs) is not None:
        return NotImplemented  # NEP 13: the wrapper (pint, a masked array) answers, then us
    func = ufunc if method == "__call__" else getattr(ufunc, method)
    return dispatch.dispatch(func, functools.partial(run_ufunc, ufunc, method), inputs, kwargs)


@functools.cache
def _takes_like(func: Callable) -> bool:
    """NEP 35 creation functions (np.zeros, np.asarray, ...): they dispatch on ``like`` only."""
    try:
        return "like" in inspect.signature(func).parameters
    except (TypeError, ValueError):  # NumPy before 2.4: its C functions carry no signature
        head = (getattr(func, "__doc__", None) or "").lstrip().split("\n\n", 1)[0]
        return head.startswith(f"{getattr(func, '__name__', '')}(") and "like=None" in head


def __array_function__(self: Tensor, func: Callable, types: tuple, args: tuple,  # noqa: N807
                       kwargs: dict) -> Any:
    """NEP 18: every public NumPy function, through the ``__torch_function__`` hook.

    NumPy removes ``like=`` before calling a creation function (NEP 35); it is
    put back, so handlers see the call as written and the backend creates on
    its own device.  A call holding a foreign wrapper of tensors (pint's Quantity) is the
    wrapper's first (NotImplemented), as NEP 18 orders it.
    """
    if foreign_wrappers.defers_to(types):
        return NotImplemented
    if _takes_like(func):
        kwargs = {**kwargs, "like": self}
    if not _active():
        plain = dispatch.plain_call(args, kwargs)
        if plain is not None:
            cls = plain[0]
            return run_function(func, cls, args, kwargs)
    return dispatch.dispatch(func, functools.partial(run_function, func), args, kwargs)


def __array__(self: Tensor, dtype: Any = None, copy: bool | None = None) -> np.ndarray:  # noqa: N807
    """The host array: no copy for NumPy tensors; Dask computes; GPU data raises.

    Honours NumPy 2's ``copy=``: ``copy=False`` raises where a copy can't be
    avoided (a dtype change, a Dask compute).
    """
    raw = self._raw
    be = registry.backend_of(raw)
    device = be.device_of(raw)
    if device.type != "cpu":
        raise TypeError(f"can't convert a {be.name} tensor on {device} to a NumPy array: NumPy "
                        "needs host memory and interop never copies from the GPU implicitly; "
                        "call t.cpu() (or t.numpy(force=True)) first")
    if be.lazy:
        if copy is False:
            raise ValueError("Unable to avoid copy while creating an array as requested: a dask "
                             "tensor has no memory to share (np.asarray computes it)")
        raw, copy = registry.host_values(raw, "np.asarray (__array__)"), None
    return np.asarray(raw, dtype=dtype, copy=copy)


def install(tensor_cls: Any) -> None:
    """Put the NumPy protocols on ``tensor_cls`` and teach the dispatch core NumPy callables."""
    tensor_cls.__array_ufunc__ = __array_ufunc__
    tensor_cls.__array_function__ = __array_function__
    tensor_cls.__array__ = __array__
    dispatch.RESOLVERS.append(resolve_numpy_callable)
    check_numpy_functions_recognised(np)


def check_numpy_functions_recognised(numpy: Any) -> None:
    """NumPy's NEP 18 functions are known by their ``_implementation`` (checked once, at
    import: a NumPy without it would leave them to run unrecognised, their values read)."""
    if not hasattr(numpy.mean, "_implementation"):
        warn_changed("NumPy's functions carrying _implementation (numpy.mean._implementation)",
                     "numpy", "a subclass's __torch_function__ handing interop a NumPy function "
                     "is not recognised")
