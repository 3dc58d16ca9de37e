"""SciPy's special functions on interop tensors, where a consumer looks for ``xp.special``.

SciPy (``scipy.special`` under ``SCIPY_ARRAY_API=1``) calls ``xp.special.<name>`` when the
namespace has it, an anticipated extension of the standard; without it, it converts an
unknown library's arrays to NumPy, which computes a Dask graph.  Here each name is SciPy's
own ufunc, which runs on a tensor through NumPy's ufunc protocol on the tensor's backend
(lazily on Dask), so ``scipy.special.entr(t)`` keeps a Dask tensor lazy.  Only SciPy's
elementwise functions (its ufuncs) are offered: they are the ones that may run chunk by
chunk.  SciPy loads on first use.

Each name is read from the public ``scipy.special`` namespace.  Under ``SCIPY_ARRAY_API=1``
SciPy's public names are Python functions that pick an implementation from the arguments'
namespace (this one, so handing them back would recurse); they wrap the ufunc with
``functools.wraps``, and ``inspect.unwrap`` (``__wrapped__``, Python's convention for
wrappers) gives the ufunc.  A name whose unwrapped value is not a ufunc is refused by name.
"""

from __future__ import annotations

import inspect

import numpy as np


def _scipy_special() -> object:
    try:
        import scipy.special
    except ImportError as exc:
        raise AttributeError("interop.array_api.special needs SciPy, which is not installed "
                             "(pip install scipy)") from exc
    return scipy.special


def _ufunc(name: str) -> np.ufunc | None:
    """SciPy's public ufunc ``name`` (through its Array API wrapper), or None."""
    fn = getattr(_scipy_special(), name, None)
    if fn is None:
        return None
    fn = inspect.unwrap(fn)
    return fn if isinstance(fn, np.ufunc) else None


def __getattr__(name: str) -> np.ufunc:
    """SciPy's ufunc ``name`` (``entr``, ``logit``, ``gammaln``, ``digamma``, ...)."""
    if name.startswith("__"):
        raise AttributeError(name)
    fn = _ufunc(name)
    if fn is None:
        raise AttributeError(f"interop.array_api.special has no {name!r}: it offers SciPy's "
                             "elementwise functions (scipy.special's ufuncs) only")
    return fn


def __dir__() -> list[str]:
    """The names offered: every public name of ``scipy.special`` that is a ufunc (none
    without SciPy)."""
    try:
        special = _scipy_special()
    except AttributeError:
        return []
    return sorted(n for n in dir(special) if not n.startswith("_") and _ufunc(n) is not None)
