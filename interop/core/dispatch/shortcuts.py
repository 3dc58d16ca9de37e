"""Operators' shortcut: ``t + t`` on raw arrays where NumPy's answer is torch's.

Plain operands of one array type, dtype and device, of a dtype kind where NumPy's result
dtype equals torch's, run the raw operator directly: the table entry would give the same
answer, slower.  ``interop.add(t, t)`` and ``torch.add(t, t)`` take it too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .wrapping import raw_backends


def raw_shortcut(fast: Callable, kinds: str, a: Any, b: Any) -> Any:
    """An operator's shortcut, ``fast(a, b)`` on raw arrays, where it gives the table entry's
    answer: one array type, dtype and device, of a dtype kind in ``kinds`` (where NumPy's
    result dtype is torch's), neither 0-d; None where the entry must decide.  Non-NumPy
    dtypes (array-api-strict's, torch's) and two devices of one backend take the full path:
    it knows their rules and names the devices in its error."""
    dt = a.dtype
    if type(a) is not type(b) or dt is not b.dtype and dt != b.dtype \
            or getattr(dt, "kind", "?") not in kinds or not (a.ndim and b.ndim) or \
            raw_backends[type(a)].multi_device and a.device != b.device:
        return None
    try:
        return fast(a, b)
    except ValueError:
        return None  # the entry says it in torch's words (Dask: NaN sizes explained)


def fits_int(x: int, dtype: np.dtype) -> bool:
    """True if ``dtype`` (an integer dtype) holds ``x``; else the operator wraps x, as torch."""
    bounds = _int_bounds.get(dtype)
    if bounds is None:
        info = np.iinfo(dtype)
        bounds = _int_bounds[dtype] = (int(info.min), int(info.max))
    return bounds[0] <= x <= bounds[1]


_int_bounds: dict[np.dtype, tuple[int, int]] = {}
