"""The standard's rule where every backend's array-api-compat namespace departs from it.

Kept to what array-api-strict (the reference) shows differs on all backends;
each entry takes raw arrays or dtypes, like the backend function it replaces.
Rules for one backend live in a module named after it (``_dask``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import dtypes
from ..backends.cupy.standard import complex_of
from ..errors import NonNumericError


def can_cast(from_: Any, to: Any, /) -> bool:
    """True where this namespace's ``result_type(from_, to)`` is ``to``.

    The standard leaves promotion across kinds to the library; this namespace promotes as
    NumPy does (``result_type(int8, float64)`` is float64), so ``can_cast`` answers by the
    same rule: ``int8 -> float64`` and ``bool -> float64`` True, as NumPy and torch say;
    ``int64 -> float32`` and any cast to a lower kind False.
    """
    dst = np.dtype(to)
    return bool(np.promote_types(np.dtype(getattr(from_, "dtype", from_)), dst) == dst)


@dataclass(frozen=True)
class FInfo:
    """The standard's ``finfo`` object: its numbers are Python ``float``s, not NumPy scalars."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: Any


def finfo(type: Any, /) -> FInfo:  # noqa: A002 (the standard's name)
    """NumPy's ``finfo`` (which array-api-compat returns as is) gives ``numpy.float32``
    scalars for float32 and complex64; the standard asks for Python floats."""
    info = np.finfo(dtypes.as_dtype(getattr(type, "dtype", type)))  # (a torch array's too)
    return FInfo(int(info.bits), float(info.eps), float(info.max), float(info.min),
                 float(info.smallest_normal), info.dtype)


def iinfo(type: Any, /) -> Any:  # noqa: A002 (the standard's name)
    """NumPy's ``iinfo`` (Python ints, a dtype): array-api-compat's torch ``iinfo`` is torch's,
    whose ``dtype`` is a string."""
    return np.iinfo(dtypes.as_dtype(getattr(type, "dtype", type)))


def result_type(*arrays_and_dtypes: Any) -> np.dtype:
    """The standard's promotion, which NumPy's follows where the standard defines it, from
    the operands' dtypes (Python scalars weak): torch promotes no unsigned integer type
    above uint8 (``result_type(uint8, uint16)`` raises there)."""
    if not arrays_and_dtypes:
        raise ValueError("at least one array or dtype is required")
    return np.result_type(*(x if isinstance(x, (bool, int, float, complex)) else
                            dtypes.as_dtype(getattr(x, "dtype", x)) for x in arrays_and_dtypes))


def repeat(x: Any, repeats: Any, /, *, axis: int | None = None) -> Any:
    """NumPy (and CuPy) cast array ``repeats`` to intp under the 'safe' rule, which refuses
    uint64; the standard takes counts of any integer dtype, so uint64 counts become int64."""
    import array_api_compat
    if getattr(repeats, "dtype", None) == np.uint64:
        repeats = repeats.astype(np.int64)
    return array_api_compat.array_namespace(x).repeat(x, repeats, axis=axis)


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """Shapes only, no arrays: the same answer on every backend (2025.12)."""
    return tuple(int(s) for s in np.broadcast_shapes(*shapes))


def eig(x: Any, /) -> Any:
    import array_api_compat
    w, v = array_api_compat.array_namespace(x).linalg.eig(x)
    return type(np.linalg.eig(np.eye(1)))(dtypes.complex_result(w), dtypes.complex_result(v))


def eigvals(x: Any, /) -> Any:
    import array_api_compat
    return dtypes.complex_result(array_api_compat.array_namespace(x).linalg.eigvals(x))


_SCALARS = (bool, int, float, complex, np.generic)


def _namespace(*xs: Any) -> Any:
    """The array-api-compat namespace of the arrays among ``xs`` (NumPy scalars, which
    array-api-compat counts as NumPy arrays, are scalars here, as Python's)."""
    import array_api_compat
    return array_api_compat.array_namespace(*(x for x in xs if not isinstance(x, _SCALARS)))


def _as_arrays(xs: tuple) -> list:
    """Python and NumPy scalars among ``xs`` as 0-d arrays beside the arrays there, with
    NumPy's dtype for them (NumPy's functions take scalars where the standard asks for
    arrays, and consumers rely on it; torch's and other namespaces refuse them)."""
    arrays = [x for x in xs if not isinstance(x, _SCALARS)]
    if len(arrays) == len(xs):
        return list(xs)
    if not arrays:
        return [np.asarray(x) for x in xs]
    import array_api_compat
    xp, device = _namespace(*arrays), array_api_compat.device(arrays[0])
    return [xp.asarray(np.asarray(x), device=device) if isinstance(x, _SCALARS) else x
            for x in xs]


def broadcast_arrays(*arrays: Any) -> Any:
    return _namespace(*arrays).broadcast_arrays(*_as_arrays(arrays)) if arrays else []


def broadcast_to(x: Any, /, shape: tuple[int, ...]) -> Any:
    if isinstance(x, _SCALARS):
        x = np.asarray(x)
    return _namespace(x).broadcast_to(x, shape)


def where(condition: Any, /, *values: Any) -> Any:
    """A scalar ``condition`` (NumPy takes it) as a 0-d array beside ``x1`` and ``x2``
    (``values``; NumPy's one-argument form passes through)."""
    if isinstance(condition, _SCALARS):
        condition = _as_arrays((condition, *values))[0]
    return _namespace(condition, *values).where(condition, *values)


def imag(x: Any, /) -> Any:
    """Zeros for a real ``x``, as NumPy and Dask answer (the standard leaves real inputs to
    the library; torch and array-api-strict refuse them, and xarray asks ``DataArray.imag``
    of real data)."""
    xp = _namespace(x)
    return xp.imag(x) if xp.isdtype(x.dtype, "complex floating") else xp.zeros_like(x)


def floor_divide(x1: Any, x2: Any, /) -> Any:
    """NumPy (and torch) floor-divide an infinity into NaN and a finite number by the
    opposite infinity into -1; the standard takes ``floor(x1 / x2)`` there: +-infinity and
    -0. (The Tensor's ``//`` stays torch's: see the conformance notes.)"""
    xp = _namespace(x1, x2)
    with np.errstate(invalid="ignore", divide="ignore"):
        quotient = xp.floor_divide(x1, x2)
        if not xp.isdtype(quotient.dtype, "real floating"):
            return quotient
        x1, x2 = (xp.asarray(x, dtype=quotient.dtype) if isinstance(x, _SCALARS) else x
                  for x in (x1, x2))
        return xp.where(xp.isfinite(x1) & xp.isfinite(x2), quotient, xp.floor(x1 / x2))


def diff(x: Any, /, *, axis: int = -1, n: int = 1, prepend: Any = None,
         append: Any = None) -> Any:
    """NumPy's ``diff`` (CuPy's, Dask's) reads ``prepend=None`` as a value to prepend; the
    standard's None (its default, which callers pass on by keyword) means none."""
    extra = {k: v for k, v in (("prepend", prepend), ("append", append)) if v is not None}
    return _namespace(x, *extra.values()).diff(x, axis=axis, n=n, **extra)


def expm1(x: Any, /) -> Any:
    """NumPy's complex ``expm1`` gives NaN for infinite parts where ``exp(x) - 1`` gives the
    standard's values (``expm1(+inf + 0j)`` is ``+inf + 0j``), and a real part of -0 for
    ``-0 + 0j``; finite values keep expm1's precision."""
    import array_api_compat
    xp = array_api_compat.array_namespace(x)
    if not xp.isdtype(x.dtype, "complex floating"):
        return xp.expm1(x)
    with np.errstate(invalid="ignore", over="ignore"):
        out = xp.where(xp.isfinite(x), xp.expm1(x), xp.exp(x) - 1)
    zero = (x == 0) & ~xp.signbit(xp.imag(x))  # expm1(-0 + 0j) is +0 + 0j, not NumPy's -0
    return xp.where(zero, xp.zeros_like(out), out)


def tanh(x: Any, /) -> Any:
    """NumPy's complex ``tanh(+inf + yj)`` is ``1 - 0j`` for some finite ``y``; the
    standard's is ``1 + 0j``.  CuPy's ``tanh(+-0 + inf j)`` and ``tanh(+-0 + NaN j)`` are
    NaN + NaN j; the standard's +-0 + NaN j."""
    import array_api_compat
    xp = array_api_compat.array_namespace(x)
    out = xp.tanh(x)
    if not xp.isdtype(x.dtype, "complex floating"):
        return out
    limit = (xp.real(x) == np.inf) & xp.isfinite(xp.imag(x)) & (xp.imag(x) > 0)
    out = xp.where(limit, xp.ones_like(out), out)
    edge = (xp.real(x) == 0) & ~xp.isfinite(xp.imag(x))
    return xp.where(edge, complex_of(xp, xp.real(x), np.nan, x), out)


def _correction_or_ddof(name: str) -> Any:
    """The standard's ``std``/``var``, also taking NumPy's ``ddof`` for ``correction`` (xarray
    passes ``ddof=``; array-api-compat's NumPy and Dask functions would pass both to NumPy)."""
    def reduce(x: Any, /, *, axis: Any = None, correction: float | None = None,
               keepdims: bool = False, ddof: float | None = None, **kwargs: Any) -> Any:
        if ddof is not None and correction is not None and ddof != correction:
            raise TypeError(f"interop.array_api.{name}: correction={correction} and ddof={ddof} "
                            "disagree; pass one (ddof is NumPy's name for correction)")
        correction = next((c for c in (correction, ddof) if c is not None), 0.0)
        return getattr(_namespace(x), name)(x, axis=axis, correction=correction,
                                            keepdims=keepdims, **kwargs)
    reduce.__name__ = name
    return reduce


DTYPES_ONLY = frozenset({"can_cast", "finfo", "iinfo", "isdtype", "result_type"})
"""Functions that read their arrays' dtypes only: a GPU tensor beside a host one is no mix."""
RULES = {"can_cast": can_cast, "finfo": finfo, "iinfo": iinfo, "result_type": result_type,
         "repeat": repeat, "floor_divide": floor_divide, "expm1": expm1, "tanh": tanh,
         "broadcast_arrays": broadcast_arrays, "broadcast_to": broadcast_to, "where": where,
         "broadcast_shapes": broadcast_shapes, "diff": diff, "imag": imag, "linalg.eig": eig,
         "linalg.eigvals": eigvals, "std": _correction_or_ddof("std"),
         "var": _correction_or_ddof("var")}


def numbers_only(make: Any) -> Any:
    """``make`` (a backend's ``asarray``) refusing what is not numbers, as the standard's
    namespaces do: NumPy and Dask would make string or object arrays, which no standard
    function takes (scikit-learn's ``label_binarize`` relies on the refusal, a TypeError
    and ValueError)."""
    def asarray(obj: Any, /, **kwargs: Any) -> Any:
        _check_numbers(getattr(obj, "dtype", None))  # an array's: before Dask tries to chunk it
        out = make(obj, **kwargs)
        _check_numbers(getattr(out, "dtype", None))
        return out
    return asarray


def _check_numbers(dtype: Any) -> None:
    if getattr(dtype, "kind", "b") not in "biufc":  # (torch's dtypes have no kind)
        what = "strings" if dtype.kind in "US" else f"{dtype} data"
        raise NonNumericError(f"interop.array_api.asarray: {what} cannot become an array "
                              f"(dtype {dtype}); the standard's arrays hold bool, integer, "
                              "floating or complex numbers")


CHECKED = {"asarray": numbers_only}
"""Functions whose backend implementation (or rule) is wrapped by a check of the standard's."""
