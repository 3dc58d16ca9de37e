"""SciPy's special functions on interop tensors, where a consumer looks for ``xp.special``.

SciPy (``scipy.special`` under ``SCIPY_ARRAY_API=1``) calls ``xp.special.<name>`` when the
namespace has it, an anticipated extension of the standard; without it, it converts an
unknown library's arrays to NumPy, which computes a Dask graph.  Here each name is SciPy's
own ufunc, which runs on a tensor through NumPy's ufunc protocol on the tensor's backend
(lazily on Dask), so ``scipy.special.entr(t)`` keeps a Dask tensor lazy.  Only SciPy's
elementwise functions (its ufuncs) are offered: they are the ones that may run chunk by
chunk.  SciPy loads on first use.
"""

from __future__ import annotations

import numpy as np


def __getattr__(name: str) -> np.ufunc:
    """SciPy's ufunc ``name`` (``entr``, ``logit``, ``gammaln``, ...)."""
    try:
        from scipy.special import _ufuncs
    except ImportError as exc:
        raise AttributeError(f"interop.array_api.special.{name} needs SciPy, which is not "
                             "installed (pip install scipy)") from exc
    fn = getattr(_ufuncs, name, None)
    if not isinstance(fn, np.ufunc):
        raise AttributeError(f"interop.array_api.special has no {name!r}: it offers SciPy's "
                             "elementwise functions (scipy.special's ufuncs) only")
    return fn
