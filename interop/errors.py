"""Exception classes for mistakes that torch and NumPy report with different types.

interop answers two surfaces at once, and the two libraries disagree on the
type of some errors (a shape mismatch is torch's ``RuntimeError`` but NumPy's
``ValueError``).  Each class here derives from every type a user of either
library may have written an ``except`` clause for, so code ported from torch
or from NumPy keeps catching interop's errors.  docs/errors.md has the table.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

import numpy as np


class ShapeError(RuntimeError, ValueError):
    """Shapes or sizes that do not fit the operation (torch: RuntimeError; NumPy: ValueError)."""


class NonNumericError(TypeError, ValueError, RuntimeError):
    """Data that is not numbers: strings (torch: ValueError), objects and None (torch:
    RuntimeError); interop has always said TypeError."""


class IndexOutOfRangeError(IndexError, RuntimeError):
    """An index past the end (NumPy and torch indexing: IndexError; torch.gather: RuntimeError)."""


class ArgumentTypeError(TypeError):
    """An argument of the wrong kind, named as torch names it (``uniform_(): argument 'from'
    must be float, not NoneType``)."""


class InvalidIndexError(IndexError, TypeError):
    """An index of a type that cannot index (NumPy: IndexError; torch: TypeError for a str)."""


class UnsupportedDtypeError(TypeError, NotImplementedError):
    """An operation not defined for a dtype (torch: NotImplementedError for a function such as
    bitwise_and on floats, TypeError for the operator; NumPy: TypeError)."""


class NumberOverflowError(OverflowError, RuntimeError, ValueError):
    """A number its dtype cannot hold: ``full((2,), 300, dtype=int8)``, a Python int beyond 64
    bits (torch: RuntimeError, OverflowError or ValueError by call; NumPy: OverflowError)."""


class OutOfMemoryError(MemoryError, RuntimeError):
    """A result larger than the memory there is (torch: RuntimeError from its allocator;
    NumPy: MemoryError)."""


class ReadOnlyError(RuntimeError, ValueError):
    """A write into memory that is not writable: a NumPy array with ``writeable=False``
    (NumPy: ValueError "assignment destination is read-only")."""


class LinAlgError(np.linalg.LinAlgError, RuntimeError):
    """A singular or non-positive-definite matrix (NumPy and SciPy callers catch
    ``numpy.linalg.LinAlgError``; torch raises ``torch.linalg.LinAlgError``, a RuntimeError)."""


class BackendLacksError(TypeError, NotImplementedError):
    """An operation that a backend's library cannot express, as declared on its record
    (``lacks=``); torch code catches NotImplementedError, NumPy-style code TypeError."""


class UnknownNameError(ValueError, TypeError):
    """A backend, device or dtype name that does not exist.  A ValueError listing the valid
    names, with a suggestion; also a TypeError, which torch raises for a bad dtype."""


def unknown_name(what: str, name: str, valid: Iterable[str], hint: str = "",
                 fix: str = "") -> UnknownNameError:
    """The error for ``name``, which is not one of ``valid``: a suggestion, the list, the fix."""
    valid = list(valid)
    close = difflib.get_close_matches(str(name), valid, n=1, cutoff=0.6)
    suggestion = f"{hint}; " if hint else (f"did you mean {close[0]!r}? " if close else "")
    return UnknownNameError(f"unknown {what} {name!r}: {suggestion}expected one of "
                            f"{', '.join(map(repr, valid))}{'; ' + fix if fix else ''}")


__all__ = [
    "BackendLacksError",
    "IndexOutOfRangeError",
    "InvalidIndexError",
    "LinAlgError",
    "NonNumericError",
    "NumberOverflowError",
    "OutOfMemoryError",
    "ReadOnlyError",
    "ShapeError",
    "UnknownNameError",
    "UnsupportedDtypeError",
]


class DeviceMismatchError(RuntimeError, ValueError):
    """Operands live on different devices and moving them was not allowed."""


class UnknownShapeError(RuntimeError, ValueError):
    """An operation needs sizes that a lazy array does not know yet (Dask's NaN chunks)."""


def shown_shape(shape: tuple) -> tuple:
    """A shape as users see it: an unknown size (Dask's NaN, a float that arithmetic would
    carry silently) is None, the Array API standard's spelling."""
    return tuple(None if s != s else s for s in shape)


class TracedValueError(TypeError, RuntimeError):
    """A value was read from a JAX-backed tensor while ``jax.jit``/``grad``/``vmap`` traces it
    (the values are not known yet; a tracer has its shape and dtype only)."""


class InteropWarning(UserWarning):
    """Warnings issued by interop (tests turn them into errors)."""


class InteropDeprecationWarning(DeprecationWarning):
    """A name interop will remove: the message says in which release, and what to call
    instead.  A ``DeprecationWarning``, so Python shows it where the user's own script calls
    the name, and test runners report it."""


class DaskComputeWarning(InteropWarning):
    """A Dask graph was computed for an implicit value read (``dask_compute='warn'``)."""


class DaskComputeError(RuntimeError):
    """A Dask graph would be computed for an implicit value read (``dask_compute='raise'``)."""
