"""Dimension arguments normalised once per record, with torch's rules, before any implementation.

Parameters keep torch's names (``dim``, ``dims``, ``dim0``, ``start_dim``, ...), so
the rule is keyed on the name and compiled once per record from its signature:

- NumPy integers are dims (``dim=np.int64(1)``); so are 0-d integer tensors
  (a lazy one is a value read under the ``dask_compute`` policy);
- bools are not: ``dim=True`` is a TypeError, as in torch (a bool passed by
  position is left to the operation: ``torch.var(x, True)`` means ``unbiased``);
- lists become tuples, where the parameter takes several (a parameter
  annotated ``int`` or ``int | None`` takes one: a tuple there is a TypeError);
- records declared with ``all_dims_if_empty`` read ``dim=()``/``[]`` as every
  dimension (torch's ``sum``, ``mean``, ``amax``, ``var``, ...), where NumPy's
  ``axis=()`` reduces nothing.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from ..backends import registry

DIM_NAMES = frozenset({"dim", "dims", "dim0", "dim1", "dim2", "start_dim", "end_dim",
                       "source", "destination"})


def _as_int(name: str, param: str, d: Any, *, bools: bool = False) -> Any:
    """One dimension: Python and NumPy integers and 0-d integer arrays as int; others as given.

    A bool alone is refused; inside a tuple torch reads it as 0 or 1 (``bools``)."""
    t = type(d)
    if t is int:
        return d
    if t is bool or t is np.bool_:
        if bools:
            return int(d)
        raise TypeError(f"{name}(): argument '{param}' must be int or tuple of ints, not bool")
    if isinstance(d, np.integer):
        return int(d)
    if getattr(d, "ndim", None) == 0 and getattr(d.dtype, "kind", "") in "iu":
        be = registry.backend_of(d)
        return int(be.to_host(d, f"{name}({param}=<0-d tensor>)") if be is not None else d)
    return d


_SINGLE = frozenset({"int", "int | None"})
_SEVERAL = frozenset({"tuple[int, ...]", "tuple[int, ...] | None"})


def _fix(name: str, param: str, value: Any, *, arity: str, tensors: bool,
         empty_means_all: bool) -> Any:
    if type(value) is list or type(value) is tuple:
        if arity == "single":
            raise TypeError(f"{name}(): argument '{param}' must be int, not "
                            f"{type(value).__name__}")
        value = tuple(_as_int(name, param, d, bools=True) for d in value)
        return None if empty_means_all and not value else value
    if arity == "several":
        raise TypeError(f"{name}(): argument '{param}' must be tuple of ints, not "
                        f"{type(value).__name__}")
    if not tensors and getattr(value, "ndim", None) is not None \
            and not isinstance(value, np.generic):
        return value  # torch.max(x, other): a tensor in this position is an operand
    return _as_int(name, param, value)


def _arity(annotation: Any) -> str:
    """'single', 'several' or 'either' dimensions, as the parameter's annotation says."""
    return "single" if annotation in _SINGLE else "several" if annotation in _SEVERAL else "either"


class Normalized(NamedTuple):
    """An implementation with its dimension arguments normalised, and what lets the fast
    path skip the normaliser: ``bare`` (the implementation itself) may be called where
    ``fits(args)`` is true (None: always)."""

    call: Callable
    bare: Callable
    fits: Callable[[tuple], bool] | None


def normalizing(impl: Callable, name: str, *, all_dims_if_empty: bool = False,
                tensor_dim_is_other: bool = False) -> Normalized:
    """``impl`` with its dimension arguments normalised (``impl`` itself if it takes none)."""
    try:
        params = list(inspect.signature(impl).parameters.values())[1:]  # after be
    except (TypeError, ValueError):
        return Normalized(impl, impl, None)
    plan = [(i if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) else None, p.name,
             _arity(p.annotation)) for i, p in enumerate(params) if p.name in DIM_NAMES]
    if not plan:
        return Normalized(impl, impl, None)

    def fix(args: tuple, kwargs: dict) -> tuple:
        for i, param, arity in plan:
            if param in kwargs:
                kwargs[param] = _fix(name, param, kwargs[param], arity=arity, tensors=True,
                                     empty_means_all=all_dims_if_empty)
            elif i is not None and i < len(args):
                value = args[i]
                if value is not None and type(value) is not bool and \
                        (type(value) is not int or arity == "several"):
                    args = (*args[:i], _fix(name, param, value, arity=arity,
                                            tensors=not tensor_dim_is_other,
                                            empty_means_all=all_dims_if_empty), *args[i + 1:])
        return args

    first = plan[0][0]

    @functools.wraps(impl)
    def with_dims(be: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs or not fits(args):
            args = fix(args, kwargs)
        return impl(be, *args, **kwargs)

    def fits(args: tuple) -> bool:
        """True for the common call, keywords aside: no dim, or a plain int in the first
        dim's place; nothing to fix (the fast path then calls ``impl`` itself)."""
        return first is None or len(args) <= first or type(args[first]) is int

    return Normalized(with_dims, impl, fits)
