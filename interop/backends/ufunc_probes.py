"""NumPy's checks of a ufunc method or function, made on probe arrays before a library without
NumPy's methods (Dask, CuPy) computes it another way: NumPy's own exceptions, NumPy's result
dtype, and whether the ufunc may be reduced in any order."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ..upstream import private

NO_VALUE = private("numpy", "_NoValue")  # NumPy's "no value given" default


def probe_array(x: Any, keep: tuple = ()) -> np.ndarray:
    """Ones of ``x``'s dtype and rank, each size clipped to 1 (axes in ``keep`` kept whole);
    an unknown (NaN) Dask size counts as 1."""
    shape = tuple(1 if s != s else s if i in keep else min(s, 1) for i, s in enumerate(x.shape))
    return np.ones(shape, dtype=x.dtype)


def numpy_checked(call: Callable, *args: Any, **kwargs: Any) -> np.dtype:
    """NumPy's own validation of a call, on probe arrays: its exception, or the result dtype."""
    with np.errstate(all="ignore"):
        return np.asarray(call(*args, **kwargs)).dtype


@functools.cache
def reorderable(ufunc: np.ufunc) -> bool:
    """Can NumPy reduce this ufunc over several axes at once (associative and commutative)?"""
    loop = next((t[0] for t in ufunc.types if t[0] in "?bhilqBHILQefdgFDG"), None)
    if loop is None:
        return False
    try:
        ufunc.reduce(np.ones((1, 1), dtype=loop), axis=(0, 1))
    except (ValueError, TypeError):
        return False
    return True


def axes_of(axis: Any, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(int(a) % max(ndim, 1) for a in axes)
