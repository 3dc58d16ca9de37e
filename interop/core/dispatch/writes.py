"""Writes into a tensor's own buffer: ``t.add_(x)``, ``t[i] = v``, ``out=t``.

A write never changes its target: every operand is brought onto the target's backend and
device, never the other way round; the result is checked (dtype, shape, writable) before
anything is written, so a refused write leaves the target as it was; and a lazy result
written into an eager target is a value read under ``dask_compute``.
"""

from __future__ import annotations

from typing import Any

from ... import dtypes
from ...backends import registry, views
from ...backends.contract import Backend
from ..tensor import Tensor
from .running import backend_error
from .unwrap import Unwrapper, onto_target
from .wrapping import raw_backends


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
    be = raw_backends.get(type(dest)) or registry.backend_of(dest)
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
    u = Unwrapper()
    rargs = [u.one(a) for a in args]
    rkwargs = {k: u.one(v) for k, v in kwargs.items()} if kwargs else {}
    u.backend()  # mismatched devices raise here, as for any call
    dest = target._raw
    if u.mixed:
        rargs = [dest, *(_onto_all(dest, u.imported.get(id(a), a), name) for a in rargs[1:])]
        rkwargs = {k: _onto_all(dest, v, name) for k, v in rkwargs.items()}
    return raw_backends.get(type(dest)) or registry.backend_of(dest), rargs, rkwargs
