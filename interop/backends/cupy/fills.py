"""Negative zeros written as negative zeros.

CuPy writes a scalar zero with a memset (``ndarray.fill``, which ``x[...] = v``,
``cupy.full`` and ``cupy.asarray`` of 0-d host data use): ``-0.0`` lands as ``+0.0``.
NumPy, torch and the Array API standard keep the sign (``atan2(-0.0, 1.0)`` is ``-0.0``,
``1 / -0.0`` is ``-inf``): here a negative zero goes in as a 0-d array, which CuPy copies
element by element.  ``KeptSigns`` is mixed into the CuPy backend, and into the gpulike test
backend, whose arrays write zeros as CuPy does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..contract import Backend

_SCALARS = (float, complex, np.floating, np.complexfloating)


def negative_zero(value: Any) -> bool:
    """A float or complex scalar equal to zero with a sign bit set (in either part)."""
    if not isinstance(value, _SCALARS) or value != 0:
        return False
    number: Any = value  # (NumPy's stubs type np.real of a Python complex as object)
    return bool(np.signbit(np.real(number)) or np.signbit(np.imag(number)))


def zero_d_copied(make: Any, data: Any, **kwargs: Any) -> Any:
    """``make(data, **kwargs)`` (``cupy.asarray``, array-api-compat's), 0-d host data made
    from one element of a 1-d copy: CuPy fills a 0-d array from the host, by memset for a
    zero."""
    host = np.asarray(data) if isinstance(data, (*_SCALARS, np.ndarray)) else None
    if host is None or host.ndim or not negative_zero(host[()]):
        return make(data, **kwargs)
    return make(host.reshape(1), **kwargs).reshape(())


class KeptSigns(Backend):
    """Backend methods that write scalars, a negative zero passed as a 0-d array."""

    def _kept(self, raw: Any, value: Any) -> Any:
        return self.asarray(value, device=self.device_of(raw)) if negative_zero(value) \
            else value

    def create(self, fn: str, *args: Any, **kwargs: Any) -> Any:
        if fn == "full" and len(args) > 1 and negative_zero(args[1]):
            out = super().create("empty", args[0], **kwargs)
            out[...] = self._kept(out, args[1])
            return out
        return super().create(fn, *args, **kwargs)

    def write_at(self, raw: Any, index: Any, value: Any, name: str = "t[index] = value") -> None:
        super().write_at(raw, index, self._kept(raw, value), name)

    def updated(self, raw: Any, index: Any, value: Any, how: str | None = None) -> Any:
        return super().updated(raw, index, self._kept(raw, value) if how is None else value, how)

    def advanced_assign(self, raw: Any, items: tuple, value: Any) -> None:
        super().advanced_assign(raw, items, self._kept(raw, value))
