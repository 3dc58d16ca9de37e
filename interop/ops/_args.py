"""Argument helpers shared by the implementations: sizes, integers, dtypes and promotion.

Dimensions and NumPy's aliases (``axis``, ``keepdims``) are not here: the records'
annotations say what a parameter is, and ``normalize`` converts and checks it once.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..backends.registry import python_int
from ..errors import NumberOverflowError, UnsupportedDtypeError


def size_arg(size: tuple) -> tuple:
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all mean shape (2, 3)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return tuple(s if type(s) is int else _size(s) for s in size)


def _size(s: Any) -> int:
    if s is None:
        raise TypeError("a size is None, the unknown size a lazy tensor's shape shows (after "
                        "masking, unique or nonzero): learn it first (t.compute_chunk_sizes() "
                        "on Dask), or pass an integer")
    return python_int(s, "a size")


def int_arg(name: str, what: str, x: Any) -> int:
    """An integer argument (a size, index, step or count) that may be a one-element tensor:
    reading it is a value read, under the ``dask_compute`` policy."""
    return x if type(x) is int else python_int(x, f"{name}(): {what}")


def float_input(be: Any, x: Any) -> Any:
    """Integers and bools become the default float dtype, as torch's float functions do."""
    if x.dtype.kind in "biu":
        return x.astype(dtypes.get_default_dtype())
    return x


def cast(x: Any, dtype: Any) -> Any:
    """Arrays take ``dtype`` (no copy if they have it); Python scalars stay weak."""
    dt = getattr(x, "dtype", None)
    if dt is None and getattr(dtype, "name", None) == "bfloat16":
        return dtype.type(x)  # NumPy takes bfloat16 with a Python float to float32
    if dt is None or (dt if isinstance(dt, np.dtype) else dtypes.as_dtype(dt)) == dtype:
        return x  # (a library's own dtype object, array-api-strict's, as NumPy's)
    return x.astype(dtype)


def promote(*xs: Any) -> tuple[Any, ...]:
    """Operands cast to torch's result type; Python ints wrap into an integer result type."""
    if len(xs) == 2:
        da = getattr(xs[0], "dtype", None)
        if da is not None and da == getattr(xs[1], "dtype", None):
            return xs  # one dtype already: nothing to promote
    dt = dtypes.result_type(*xs)
    return tuple(wrapped_int(x, dt) if type(x) is int else cast(x, dt) for x in xs)


def wrapped_int(x: int, dtype: Any) -> Any:
    """A Python int as torch uses it with a tensor of ``dtype``: wrapped modulo 2**bits into an
    integer dtype (``int8 tensor + 1000`` adds -24), as C casts do; unchanged otherwise.

    Beyond int64 and uint64 torch raises; so does interop, naming the fix.
    """
    if 0 <= x < 128:  # every dtype holds these: the common case, decided at once
        return x
    bounds = INT_BOUNDS.get(np.dtype(dtype))
    if bounds is None or bounds[0] <= x <= bounds[1]:
        return x
    if not -2 ** 63 <= x < 2 ** 64:
        raise NumberOverflowError(f"Overflow when unpacking long: the Python int {x} does not "
                                  "fit in 64 bits; use a float (float(x)) or a smaller number")
    span = bounds[1] - bounds[0] + 1
    return np.dtype(dtype).type((x - bounds[0]) % span + bounds[0])


INT_BOUNDS = {np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
              for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                        np.uint64)}
"""(min, max) of each integer dtype (np.iinfo is slow to build on every call)."""


def fits_dtype(name: str, value: Any, dtype: np.dtype) -> Any:
    """``value`` as torch puts it into ``dtype``, checked before anything is written.

    Out-of-range numbers, nan and inf into an integer dtype, and finite floats beyond a
    float dtype's range, raise as torch's do (NumPy would store a wrapped or undefined
    value; on Dask the failure would come only when the graph runs, the target lost).
    A negative int into an unsigned dtype wraps, as torch's fill and clamp do (-1 -> 255).
    """
    dtype = np.dtype(dtype)
    if isinstance(value, (bool, np.bool_)):
        return value
    if isinstance(value, complex) and dtype.kind != "c" and value.imag:
        raise _overflow(name, value, dtype, "complex (its imaginary part would be lost)")
    number = value.real if isinstance(value, complex) else value
    integral = isinstance(number, (int, np.integer))
    if type(number) is int and not -2 ** 63 <= number < 2 ** 64:
        raise _overflow(name, value, dtype, "beyond 64 bits (torch: Overflow when unpacking "
                        "long long)")
    if dtype.kind == "f":
        if (integral or np.isfinite(number)) and abs(number) > np.finfo(dtype).max:
            raise _overflow(name, value, dtype, f"beyond +-{np.finfo(dtype).max}")
        return value
    bounds = INT_BOUNDS.get(dtype)
    if bounds is None:
        return value
    if dtype.kind == "u" and integral and -(bounds[1] + 1) <= number < 0:
        return int(number) % (bounds[1] + 1)
    if not (integral or np.isfinite(number)) or not bounds[0] <= number < bounds[1] + 1:
        raise _overflow(name, value, dtype, f"outside [{bounds[0]}, {bounds[1]}]")
    return value


def _overflow(name: str, value: Any, dtype: np.dtype, where: str) -> NumberOverflowError:
    label = f"{name}()" if name.isidentifier() else name  # (``t[index] = value`` as it is)
    return NumberOverflowError(f"{label}: value cannot be converted to type {dtype} without "
                               f"overflow: {value!r} is {where}; pick a wider dtype or a value "
                               "in range (or convert the tensor with .to(dtype) first)")


def kept_scalars(name: str, dtype: Any, *xs: Any) -> tuple[Any, ...]:
    """``xs`` with Python numbers checked against ``dtype``: a value put into a tensor (fill,
    where, clamp bounds) must fit its dtype, where arithmetic wraps (``promote``)."""
    return tuple(fits_dtype(name, x, np.dtype(dtype)) if type(x) in (int, float, complex) else x
                 for x in xs)


def ordered(name: str, x: Any) -> Any:
    """``x`` unchanged; a complex tensor raises as torch's do, since complex numbers have no
    order (``<``, max, argmax, sort, clamp, relu, sign)."""
    dt = getattr(x, "dtype", None)
    if dt is not None and dt.kind == "c":
        raise UnsupportedDtypeError(
            f"{name}(): not implemented for complex tensors ({dt}): complex numbers have no "
            "order; compare t.abs() or t.real instead (torch.sgn for the sign)")
    return x


def whole_arrays(be: Any, impl: Any, shape: tuple, dtype: Any, *args: Any) -> Any:
    """Run ``impl(host_backend, *args)`` lazily on whole arrays, in one task of the lazy
    backend ``be`` (``Backend.in_one_task``).

    For the few scatter-like operations Dask and Cubed cannot express chunk by chunk:
    the graph stays lazy and the answer exact, at the cost of parallelism.
    """
    return be.in_one_task(impl, shape, dtype, *args)


def special_module(be: Any, name: str) -> Any:
    """scipy.special for NumPy and Dask, cupyx.scipy.special for CuPy."""
    try:
        return be.special
    except ImportError as exc:
        raise TypeError(f"torch.special.{name} on the {be.name} backend needs {exc.name}, which "
                        "is not installed (pip install scipy)") from exc


def scaled(x: Any, s: Any) -> Any:
    """``x * s``, skipped for the common ``s == 1`` (alpha, beta, value arguments)."""
    return x if s == 1 else x * s


def open_grids(be: Any, shape: tuple) -> list:
    """``np.indices(shape, sparse=True)``: one arange per dimension, shaped to broadcast
    along it (CuPy's ``indices`` has no ``sparse=``)."""
    return [be.np.arange(n).reshape((1,) * d + (n,) + (1,) * (len(shape) - d - 1))
            for d, n in enumerate(shape)]
