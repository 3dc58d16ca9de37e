"""The standard's rule where every backend's array-api-compat namespace departs from it.

Kept to what array-api-strict (the reference) shows differs on all backends;
each entry takes raw arrays or dtypes, like the backend function it replaces.
Rules for one backend live in a module named after it (``_dask``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

_KIND = {"b": "bool", "i": "integral", "u": "integral", "f": "real", "c": "complex"}


def can_cast(from_: Any, to: Any, /) -> bool:
    """True where type promotion of ``from_`` with ``to`` gives ``to``.

    NumPy (and so CuPy and Dask) also call int -> float and float -> int-free
    "safe" casts castable; the standard never crosses kinds, except real to
    complex floating.
    """
    src, dst = np.dtype(getattr(from_, "dtype", from_)), np.dtype(to)
    same_kind = _KIND[src.kind] == _KIND[dst.kind] or (src.kind, dst.kind) == ("f", "c")
    return same_kind and np.promote_types(src, dst) == dst


RULES = {"can_cast": can_cast}
