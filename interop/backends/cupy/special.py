"""What ``cupyx.scipy.special`` lacks of the special-function module interop's operations use:
the orthogonal polynomials of ``torch.special`` (``eval_chebyt`` ... ``eval_legendre``), by
their three-term recurrences, over any NumPy-like namespace ``xp``.

``n`` is an integer degree (a Python int or an integer array, broadcast against ``x``; the
operations give 0 for negative degrees themselves); the recurrence runs to the largest
degree (a value read of ``n``'s maximum), in float64 as SciPy computes them.  The Airy
functions have no such form here: the operation declares them missing on CuPy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def _recurrence(xp: Any, n: Any, x: Any, first: Callable, step: Callable) -> Any:
    """p_n(x), from p_0 = 1, p_1 = first(x) and p_(k+1) = step(k, x, p_k, p_(k-1))."""
    x = xp.asarray(x)
    x = x.astype(np.promote_types(x.dtype, np.float64))
    n = xp.asarray(n)
    prev, cur = xp.ones_like(x), first(x)
    out = xp.where(n == 0, prev, cur)
    for k in range(1, int(n.max()) if n.size else 0):
        prev, cur = cur, step(k, x, cur, prev)
        out = xp.where(n == k + 1, cur, out)
    return out


def _shifted(fn: Callable) -> Callable:
    return lambda xp, n, x: fn(xp, n, 2 * xp.asarray(x) - 1)


def eval_chebyt(xp: Any, n: Any, x: Any) -> Any:
    return _recurrence(xp, n, x, lambda x: x, lambda k, x, p, q: 2 * x * p - q)


def eval_chebyu(xp: Any, n: Any, x: Any) -> Any:
    return _recurrence(xp, n, x, lambda x: 2 * x, lambda k, x, p, q: 2 * x * p - q)


def eval_hermite(xp: Any, n: Any, x: Any) -> Any:
    """The physicists' Hermite polynomials H_n."""
    return _recurrence(xp, n, x, lambda x: 2 * x, lambda k, x, p, q: 2 * x * p - 2 * k * q)


def eval_hermitenorm(xp: Any, n: Any, x: Any) -> Any:
    """The probabilists' Hermite polynomials He_n."""
    return _recurrence(xp, n, x, lambda x: x, lambda k, x, p, q: x * p - k * q)


def eval_laguerre(xp: Any, n: Any, x: Any) -> Any:
    return _recurrence(xp, n, x, lambda x: 1 - x,
                       lambda k, x, p, q: ((2 * k + 1 - x) * p - k * q) / (k + 1))


def eval_legendre(xp: Any, n: Any, x: Any) -> Any:
    return _recurrence(xp, n, x, lambda x: x,
                       lambda k, x, p, q: ((2 * k + 1) * x * p - k * q) / (k + 1))


RECURRENCES: dict[str, Callable] = {
    "eval_chebyt": eval_chebyt, "eval_chebyu": eval_chebyu,
    "eval_sh_chebyt": _shifted(eval_chebyt), "eval_sh_chebyu": _shifted(eval_chebyu),
    "eval_hermite": eval_hermite, "eval_hermitenorm": eval_hermitenorm,
    "eval_laguerre": eval_laguerre, "eval_legendre": eval_legendre}


class Supplemented:
    """A special-function module (``cupyx.scipy.special``) with the recurrences above in place
    of the functions it lacks (or, for a test backend standing for CuPy, of its own)."""

    def __init__(self, module: Any, xp: Any) -> None:
        self._module, self._xp = module, xp

    def __getattr__(self, name: str) -> Any:
        fn = RECURRENCES.get(name)
        if fn is None:
            return getattr(self._module, name)
        return lambda n, x: fn(self._xp, n, x)
