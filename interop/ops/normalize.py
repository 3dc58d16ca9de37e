"""Arguments normalised once per record, with torch's rules, before any implementation runs.

The plan is compiled once per record from its signature's annotations (the aliases of
``ops/annotations.py``), so implementations receive checked, converted arguments:

- dimensions (``Dim``, ``Dims``, ``DimOrDims``, ``NewDim``, ``DimOf``): NumPy integers
  and 0-d integer tensors are dims (a lazy one is a value read under ``dask_compute``);
  a bare bool is not (``dim=True`` is a TypeError, as in torch; a bool passed by position
  is left to the operation: ``torch.var(x, True)`` means ``unbiased``); lists become
  tuples where several are taken, a tuple where one is taken is a TypeError; each is
  checked against the rank of the tensor it counts (torch's IndexError) and made
  non-negative; of a 0-d tensor, 0 and -1 read as None; records declared with
  ``all_dims_if_empty`` read ``dim=()`` as every dimension (torch's ``sum``), where
  NumPy's ``axis=()`` reduces nothing; NumPy's ``axis`` is the alias of the dimension
  parameter where the record has one;
- ``KeepDim``: NumPy's ``keepdims`` is its alias; ``DType``: any spelling, as NumPy's;
- ``Size``: ``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all mean the shape (2, 3).

Parameters with torch's dimension names but no annotation (``dims`` of ``permute``) are
converted (ints, tuples) and left to the operation to check.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from .. import dtypes
from ..backends import registry
from ..errors import IndexOutOfRangeError
from ._args import size_arg
from .annotations import DimSpec, DTypeSpec, KeepDimSpec, SizeSpec

DIM_NAMES = frozenset({"dim", "dims", "dim0", "dim1", "dim2", "start_dim", "end_dim"})
"""Dimension parameters by name where a record has no annotation.  Not ``source``: it is
``movedim``'s dims (annotated) but ``index_add``'s tensor, which a dim's conversion turned
into a Python number."""
_ALIASES = {"dim": "axis", "keepdim": "keepdims"}  # NumPy's spellings, where a record has them
_EMPTY = inspect.Parameter.empty


class Normalized(NamedTuple):
    """An implementation with its arguments normalised, and what lets the fast path skip the
    normaliser: ``bare`` (the implementation itself) may be called where ``fits(args)`` is
    true (None: always)."""

    call: Callable
    bare: Callable
    fits: Callable[[tuple], bool] | None


class _Entry(NamedTuple):
    """One parameter to normalise."""

    name: str
    index: int | None  # type: ignore[assignment]  # its position (over tuple.index)
    spec: Any  # DimSpec, KeepDimSpec, DTypeSpec, SizeSpec
    default: Any
    alias: str | None  # NumPy's spelling of it, a parameter of the record too
    of: Any  # the operand a dim counts: its position, else its name
    checked: bool  # a dim checked against its operand's rank (annotated), or only converted


# ------------------------------------------------------------------ one argument
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


def _dims(name: str, param: str, value: Any, arity: str, tensors: bool,
          empty_means_all: bool) -> Any:
    """``value`` as one int, a tuple of ints, or None; a tensor left as it is where one in
    this place is an operand (``torch.max(x, other)``: ``tensors`` False)."""
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
        return value
    return _as_int(name, param, value)


def in_range(name: str, param: str, dim: Any, ndim: int) -> Any:
    """``dim`` (an int or a tuple of ints) checked against ``ndim`` with torch's IndexError
    and made non-negative; of a 0-d tensor, 0 and -1 read as None."""
    dims = dim if type(dim) is tuple else (dim,)
    bound = max(ndim, 1)
    for d in dims:
        if type(d) is not int:
            raise TypeError(f"{name}(): argument '{param}' must be int or tuple of ints, not "
                            f"{type(d).__name__}")
        if not -bound <= d < bound:
            raise IndexOutOfRangeError(
                f"{name}(): Dimension out of range (expected to be in range of "
                f"[{-bound}, {bound - 1}], but got {d})")
    if ndim == 0:
        return None
    return tuple(d % ndim for d in dims) if type(dim) is tuple else dim % ndim


def _rank(operand: Any, extra: int) -> int | None:
    """The rank a dimension counts: ``operand``'s plus ``extra``; None for no array.

    A list of tensors counts its first that is not a 1-d empty one (``cat`` skips those,
    as torch's does), and at least 1: of 0-d tensors, ``cat`` and ``stack`` say more."""
    if type(operand) is list or type(operand) is tuple:
        if not operand:
            return None
        first = next((t for t in operand if getattr(t, "shape", None) != (0,)), operand[0])
        ndim = getattr(first, "ndim", None)
        return None if ndim is None else max(ndim + extra, 1)
    ndim = getattr(operand, "ndim", None)
    return None if ndim is None or isinstance(operand, np.generic) else ndim + extra


# ------------------------------------------------------------------ the plan
def _spec(hint: Any) -> Any:
    """The alias's metadata in an annotation (also inside ``X | None``)."""
    if typing.get_origin(hint) is typing.Annotated:
        return next((m for m in hint.__metadata__
                     if isinstance(m, (DimSpec, KeepDimSpec, DTypeSpec, SizeSpec))), None)
    for arg in typing.get_args(hint):
        found = _spec(arg)
        if found is not None:
            return found
    return None


def _hints(impl: Callable) -> dict[str, Any]:
    try:
        return typing.get_type_hints(impl, include_extras=True)
    except (NameError, TypeError):
        return {}


def _plan(impl: Callable, params: list[inspect.Parameter]) -> list[_Entry]:
    hints, names = _hints(impl), [p.name for p in params]
    first = 0 if params else None
    plan = []
    for i, p in enumerate(params):
        spec = _spec(hints.get(p.name))
        checked = isinstance(spec, DimSpec)
        if spec is None and p.name in DIM_NAMES:
            spec = DimSpec(_legacy_arity(p.annotation))
        if spec is None:
            continue
        index = i if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL) \
            else None
        alias = _ALIASES.get("keepdim" if isinstance(spec, KeepDimSpec) else
                             "dim" if isinstance(spec, DimSpec) else "")
        of = None
        if checked:
            of = first if spec.of is None else tuple(_place(params, o) for o in spec.of) \
                if isinstance(spec.of, tuple) else _place(params, spec.of)
        plan.append(_Entry(p.name, index, spec, p.default,
                           alias if alias in names and alias != p.name else None, of, checked))
    return plan


def _place(params: list[inspect.Parameter], name: str) -> int | str:
    """Where an operand is found: its position, or its name if it is keyword-only."""
    i = [p.name for p in params].index(name)
    return name if params[i].kind == params[i].KEYWORD_ONLY else i


def _legacy_arity(annotation: Any) -> str:
    """'single', 'several' or 'either' for an unannotated dim parameter, by its type."""
    return "single" if annotation in ("int", "int | None") else \
        "several" if annotation in ("tuple[int, ...]", "tuple[int, ...] | None") else "either"


# ------------------------------------------------------------------ the normaliser
def normalizing(impl: Callable, name: str, *, all_dims_if_empty: bool = False,
                tensor_dim_is_other: bool = False) -> Normalized:
    """``impl`` with its arguments normalised (``impl`` itself if it has none to normalise)."""
    try:
        params = list(inspect.signature(impl).parameters.values())[1:]  # after be
    except (TypeError, ValueError):
        return Normalized(impl, impl, None)
    plan = _plan(impl, params)
    if not plan:
        return Normalized(impl, impl, None)
    defaults = {p.name: p.default for p in params}
    names = [p.name for p in params]

    def operand(of: Any, args: list, kwargs: dict) -> Any:
        if type(of) is int and of < len(args):
            return args[of]
        key = names[of] if type(of) is int else of
        return kwargs.get(key, defaults[key])

    def converted(e: _Entry, value: Any, by_position: bool, args: list, kwargs: dict) -> Any:
        spec = e.spec
        if isinstance(spec, DTypeSpec):
            return dtypes.as_dtype(value)
        if not isinstance(spec, DimSpec) or by_position and type(value) is bool:
            return value  # torch.var(x, True): a bool by position is another argument
        if not (type(value) is int and spec.arity != "several"):
            value = _dims(name, e.name, value, spec.arity,
                          not (by_position and tensor_dim_is_other), all_dims_if_empty)
        if not e.checked or value is None or getattr(value, "ndim", None) is not None:
            return value
        if type(e.of) is tuple:  # the broadcast of several operands
            ranks = [_rank(operand(o, args, kwargs), 0) for o in e.of]
            rank = None if None in ranks else max(ranks) + spec.extra
        else:
            rank = _rank(operand(e.of, args, kwargs), spec.extra)
        if rank is None:
            return value
        return in_range(name, e.name, value, max(rank, 1) if spec.vector_if_scalar else rank)

    def fix(given: tuple, kwargs: dict) -> tuple:
        args = list(given)
        for e in plan:
            if isinstance(e.spec, SizeSpec):
                args[e.index:] = size_arg(tuple(args[e.index:]))
                continue
            in_kwargs = e.name in kwargs
            by_position = not in_kwargs and e.index is not None and e.index < len(args)
            value = kwargs[e.name] if in_kwargs else args[e.index] if by_position else e.default
            new_place = False  # where the value goes: its own place, or a new keyword
            if e.alias is not None and kwargs.get(e.alias) is not None:
                given = kwargs.pop(e.alias)
                if isinstance(e.spec, DimSpec) and (in_kwargs or by_position):
                    raise TypeError(f"{name}(): got both '{e.name}' and its alias "
                                    f"'{e.alias}': pass one")
                value, new_place = (given if isinstance(e.spec, DimSpec) else bool(given)), True
            elif not (in_kwargs or by_position) and not e.checked:
                continue  # an absent argument the operation reads as it is
            if value is None or value is _EMPTY:
                continue
            new = converted(e, value, by_position, args, kwargs)
            if by_position:
                args[e.index] = new
            elif in_kwargs or new_place or new is not value:
                kwargs[e.name] = new
        return tuple(args)

    dims = [(e.index, e.default, e.of, e.spec.extra, e.checked) for e in plan
            if isinstance(e.spec, DimSpec)]
    typed = [e.index for e in plan if isinstance(e.spec, DTypeSpec) and e.index is not None]
    sizes = [e.index for e in plan if isinstance(e.spec, SizeSpec)]

    def fits_each(args: tuple) -> bool:
        """True where the positional arguments need nothing (no keywords: the fast path's
        calls): dims absent (None) or ints already in range, dtypes NumPy's, sizes ints."""
        n = len(args)
        for index, default, of, extra, checked in dims:
            value = args[index] if index is not None and index < n else default
            if value is None or value is _EMPTY:
                continue
            if type(value) is not int:
                return False
            if checked:
                ndim = getattr(args[of], "ndim", None) if type(of) is int and of < n else None
                if ndim is None or not 0 <= value < ndim + extra:
                    return False
        for index in typed:
            if index < n and args[index] is not None and not dtypes.is_numpy_dtype(args[index]):
                return False
        return not sizes or all(type(s) is int for index in sizes for s in args[index:])

    # The commonest call passes none of the normalised arguments by position (``t.sum()``):
    # where their defaults need nothing, the length of ``args`` is answer enough.
    first = min((e.index for e in plan if e.index is not None), default=None)
    if first is None or not fits_each(()):
        fits = fits_each
    else:
        def fits(args: tuple) -> bool:
            return len(args) <= first or fits_each(args)

    @functools.wraps(impl)
    def normalized(be: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs or not fits(args):
            args = fix(args, kwargs)
        return impl(be, *args, **kwargs)

    return Normalized(normalized, impl, fits)
