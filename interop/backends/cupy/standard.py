"""The Array API standard's answers where CuPy's kernels give others (``Backend.standard_fixes``).

The official suite on a GPU (``interop.array_api`` on CuPy) failed 78 special cases.  Most
came from negative zeros written as positive ones: the suite makes its inputs with
``xp.asarray(-0.0)``, which CuPy fills by memset (``fills.py``); the rest from kernels:

- ``remainder`` of a finite x1 by an infinite x2 gives NaN (the standard: x1, or x2 where the
  signs differ), and a zero result does not take x2's sign;
- ``acosh``, ``log``, ``log1p`` (and ``tanh``: the rule for every backend,
  ``array_api/_standard.py``) of complex infinities and NaNs (thrust's complex functions),
  where the standard fixes the answer;
- ``sum`` and ``prod`` with a ``dtype=`` that the input must be cast to: CuPy's reduction
  kernel does not compile for some pairs (complex input, integer dtype); cast first.

Each fix computes the library's answer and replaces the special cases' elements with the
standard's, in whatever namespace the arrays belong to (``array_namespace``), so the same
code runs, and is tested, on NumPy, whose answers already are the standard's
(tests/test_cupy_standard.py) and on the gpulike test backend.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import array_api_compat
import numpy as np

from .fills import negative_zero, zero_d_copied


def _ns(*xs: Any) -> Any:
    return array_api_compat.array_namespace(*(x for x in xs if hasattr(x, "dtype")))


def complex_of(xp: Any, real: Any, imag: float, like: Any) -> Any:
    """A complex array of ``like``'s dtype and shape, ``real + imag j``: ``real`` a number or an
    array of that shape, whose zeros keep their signs.  Built by arithmetic, not by writes to
    ``.real``/``.imag`` (views on NumPy, copies on Dask): adding ``-0.0`` keeps every real
    part, ``-0.0`` too."""
    if not hasattr(real, "dtype"):
        return xp.full(like.shape, complex(real, imag), dtype=like.dtype)
    return xp.astype(real, like.dtype) + complex(-0.0, imag)


def remainder(x1: Any, x2: Any, /) -> Any:
    """Python's (NumPy's) floating remainder: fmod, moved into x2's sign, a zero with x2's
    sign; integers as the library computes them."""
    xp = _ns(x1, x2)
    if np.result_type(getattr(x1, "dtype", x1), getattr(x2, "dtype", x2)).kind != "f":
        return xp.remainder(x1, x2)
    r = xp.asarray(xp.fmod(x1, x2))
    r = xp.where((r != 0) & ((r < 0) != (x2 < 0)), r + x2, r)
    return xp.where(r == 0, xp.copysign(xp.zeros_like(r), xp.asarray(x2, dtype=r.dtype)), r)


def acosh(x: Any, /) -> Any:
    """acosh(+-0 + NaN j) is NaN + pi/2 j."""
    xp = _ns(x)
    out = xp.acosh(x)
    if x.dtype.kind != "c":
        return out
    special = (xp.real(x) == 0) & xp.isnan(xp.imag(x))
    return xp.where(special, complex_of(xp, math.nan, math.pi / 2, x), out)


def _log_like(name: str) -> Callable:
    def fixed(x: Any, /) -> Any:
        """An infinite part with a NaN one gives +inf + NaN j."""
        xp = _ns(x)
        out = getattr(xp, name)(x)
        if x.dtype.kind != "c":
            return out
        re, im = xp.real(x), xp.imag(x)
        special = (xp.isinf(re) & xp.isnan(im)) | (xp.isnan(re) & xp.isinf(im))
        return xp.where(special, complex_of(xp, math.inf, math.nan, x), out)
    fixed.__name__ = name
    return fixed


def _cast_first(name: str) -> Callable:
    def fixed(x: Any, /, *, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
        """The input cast to ``dtype`` first, then reduced (CuPy's kernel for some pairs does
        not compile)."""
        xp = _ns(x)
        if dtype is not None and dtype != x.dtype:
            x = x.astype(dtype)
        return getattr(xp, name)(x, axis=axis, dtype=dtype, keepdims=keepdims)
    fixed.__name__ = name
    return fixed


def creation_fixes(xp: Any) -> dict[str, Callable]:
    """``full``, ``full_like`` and ``asarray`` of ``xp`` (a namespace: no array says which)
    keeping a negative zero's sign: CuPy's fill writes zeros by memset, also the one
    ``asarray`` makes of 0-d host data: ``xp.asarray(-0.0)`` was +0 (``fills.py``)."""
    def full(shape: Any, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Any:
        out = xp.full(shape, fill_value, dtype=dtype, device=device)
        if not negative_zero(fill_value):
            return out
        value = zero_d_copied(xp.asarray, fill_value, dtype=out.dtype, device=device)
        return xp.asarray(xp.broadcast_to(value, out.shape), copy=True)

    def full_like(x: Any, /, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Any:
        return full(x.shape, fill_value, dtype=dtype or x.dtype,
                    device=array_api_compat.device(x) if device is None else device)

    def asarray(obj: Any, /, **kwargs: Any) -> Any:
        return zero_d_copied(xp.asarray, obj, **kwargs)

    return {"full": full, "full_like": full_like, "asarray": asarray}


FIXES: dict[str, Callable] = {
    "remainder": remainder, "acosh": acosh,
    "log": _log_like("log"), "log1p": _log_like("log1p"),
    "sum": _cast_first("sum"), "prod": _cast_first("prod")}
