"""Elementwise operations: one row per operation, its torch name and NumPy-namespace function.

Result dtypes follow torch: floating functions of integer tensors give the
default float dtype; binary operations promote by ``dtypes.result_type``
(so ``int32 tensor + 2.5`` is float32, not NumPy's float64).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import dtypes
from ...backends import views
from ...backends.registry import python_value
from ...errors import UnsupportedDtypeError
from .._args import cast, fits_dtype, float_input, kept_scalars, ordered, promote
from ..registry import op, torch_alias

# name: (backend function, kind, array-api/NumPy aliases)
#   kind "same": keeps the dtype; "float": integers become the default float;
#   "bool": returns bool; "int": integer and bool inputs only
UNARY = {
    "abs": ("absolute", "same", ("absolute",)),
    "neg": ("negative", "same", ("negative",)),
    "positive": ("positive", "same", ()),
    "sign": ("sign", "same", ()),
    "floor": ("floor", "same", ()),
    "ceil": ("ceil", "same", ()),
    "trunc": ("trunc", "same", ("fix",)),
    "square": ("square", "same", ()),
    "conj_physical": ("conj", "same", ()),
    "sqrt": ("sqrt", "float", ()),
    "exp": ("exp", "float", ()),
    "exp2": ("exp2", "float", ()),
    "expm1": ("expm1", "float", ()),
    "log": ("log", "float", ()),
    "log2": ("log2", "float", ()),
    "log10": ("log10", "float", ()),
    "log1p": ("log1p", "float", ()),
    "sin": ("sin", "float", ()),
    "cos": ("cos", "float", ()),
    "tan": ("tan", "float", ()),
    "asin": ("arcsin", "float", ("arcsin",)),
    "acos": ("arccos", "float", ("arccos",)),
    "atan": ("arctan", "float", ("arctan",)),
    "sinh": ("sinh", "float", ()),
    "cosh": ("cosh", "float", ()),
    "tanh": ("tanh", "float", ()),
    "asinh": ("arcsinh", "float", ("arcsinh",)),
    "acosh": ("arccosh", "float", ("arccosh",)),
    "atanh": ("arctanh", "float", ("arctanh",)),
    "reciprocal": ("reciprocal", "float", ()),
    "deg2rad": ("deg2rad", "float", ()),
    "rad2deg": ("rad2deg", "float", ()),
    "isnan": ("isnan", "bool", ()),
    "isinf": ("isinf", "bool", ()),
    "isfinite": ("isfinite", "bool", ()),
    "signbit": ("signbit", "bool", ()),
    "logical_not": ("logical_not", "bool", ()),
    "bitwise_not": ("invert", "int", ("bitwise_invert",)),
}

# name: (backend function, kind, aliases)
#   kind "arith": promote; "float": promote, integers become the default float;
#   "compare": promote, returns bool; "int": integer and bool inputs only; "logical": bool result
BINARY = {
    "mul": ("multiply", "arith", ("multiply",)),
    "floor_divide": ("floor_divide", "arith", ()),
    "remainder": ("remainder", "arith", ()),
    "fmod": ("fmod", "arith", ()),
    "pow": ("power", "arith", ()),
    "maximum": ("maximum", "arith", ()),
    "minimum": ("minimum", "arith", ()),
    "fmax": ("fmax", "arith", ()),
    "fmin": ("fmin", "arith", ()),
    "atan2": ("arctan2", "float", ("arctan2",)),
    "hypot": ("hypot", "float", ()),
    "logaddexp": ("logaddexp", "float", ()),
    "logaddexp2": ("logaddexp2", "float", ()),
    "copysign": ("copysign", "float", ()),
    "nextafter": ("nextafter", "arith", ()),
    "eq": ("equal", "compare", ("equal",)),
    "ne": ("not_equal", "compare", ("not_equal",)),
    "lt": ("less", "compare", ("less",)),
    "le": ("less_equal", "compare", ("less_equal",)),
    "gt": ("greater", "compare", ("greater",)),
    "ge": ("greater_equal", "compare", ("greater_equal",)),
    "bitwise_and": ("bitwise_and", "int", ()),
    "bitwise_or": ("bitwise_or", "int", ()),
    "bitwise_xor": ("bitwise_xor", "int", ()),
    "bitwise_left_shift": ("left_shift", "int", ()),
    "bitwise_right_shift": ("right_shift", "int", ()),
    "logical_and": ("logical_and", "logical", ()),
    "logical_or": ("logical_or", "logical", ()),
    "logical_xor": ("logical_xor", "logical", ()),
}

# Input dtype kinds torch does not implement an operation for (after promotion);
# interop refuses them too, with torch's exception type, rather than NumPy's answer.
REFUSED_KINDS = {
    "abs": "b", "ceil": "b", "floor": "b", "trunc": "b", "round": "b", "clamp": "b",
    "hypot": "biu", "logaddexp": "biu", "logaddexp2": "biu", "nextafter": "biu",
    "bitwise_left_shift": "bfc", "bitwise_right_shift": "bfc",
    "floor_divide": "bc", "fmod": "bc", "remainder": "bc", "pow": "b",
    "neg": "b", "sub": "b",  # torch: use ~ or logical_not / logical_xor on masks
}
for _name in ("lt", "le", "gt", "ge", "maximum", "minimum", "fmax", "fmin", "sign", "floor",
              "ceil", "trunc", "round", "clamp"):  # complex numbers have no order
    REFUSED_KINDS[_name] = REFUSED_KINDS.get(_name, "") + "c"
_INT_DIVISIONS = {"floor_divide", "fmod", "remainder"}

_NO_INPLACE = {"isnan", "isinf", "isfinite", "signbit", "eq", "ne", "lt", "le", "gt", "ge",
               "logical_not", "logical_and", "logical_or", "logical_xor", "positive",
               "conj_physical"}


def refuse_kinds(name: str, dtype: Any) -> None:
    """Raise as torch does for a dtype the operation is not implemented for."""
    if dtype is not None and dtype.kind in REFUSED_KINDS.get(name, ""):
        ordered(name, np.empty(0, dtype))  # complex: its own message
        raise UnsupportedDtypeError(f'"{name}" not implemented for {dtype} tensors (torch '
                                    "refuses them too); convert first, e.g. "
                                    "t.to(interop.float32), or use ~ / logical_* on masks")


def check_int_division(be: Any, name: str, divisor: Any) -> None:
    """torch raises on integer division by zero (NumPy would give 0); where reading the
    divisor costs nothing (``Backend.peek``): checking a Dask operand would compute it."""
    dt = getattr(divisor, "dtype", None)
    is_int = dt.kind in "iu" if dt is not None else isinstance(divisor, int)
    if is_int and be.peek(be.np.any(be.np.asarray(divisor) == 0)):
        raise RuntimeError(f"ZeroDivisionError: {name}: integer division by zero; use floating "
                           "point operands (t.float()) to get inf/nan instead")


def int_pow(be: Any, a: Any, b: Any) -> Any:
    """Integer powers with torch's meaning for negative exponents (NumPy refuses them):
    1 ** -n = 1, (-1) ** -n = +-1, anything else ** -n = 0."""
    kind = getattr(getattr(b, "dtype", None), "kind", None)
    if kind is None and b < 0:  # a negative Python int: torch refuses (tensors give 0s)
        raise RuntimeError("Integers to negative integer powers are not allowed; use a float "
                           "base (t.float() ** -1) or a float exponent")
    if kind in ("u", "b") or kind is None:  # no negative exponent: a Python int
        return be.np.power(a, b)                        # stays weak (the base's dtype, NEP 50)
    negative = b < 0
    if be.peek(be.np.any(negative)) is False:  # (None where reading would compute)
        return be.np.power(a, b)
    safe = be.np.power(a, be.np.where(negative, 0, b))
    ones = be.np.where(be.np.remainder(b, 2) == 0, 1, -1).astype(safe.dtype)
    small = be.np.where(a == 1, 1, be.np.where(a == -1, ones, 0)).astype(safe.dtype)
    return be.np.where(negative, small, safe)


def _require_int(name: str, *xs: Any) -> None:
    for x in xs:
        dt = getattr(x, "dtype", None)
        if (dt is not None and dt.kind not in "biu") or isinstance(x, (float, complex)):
            kind = dt if dt is not None else type(x).__name__
            raise UnsupportedDtypeError(
                f"{name}(): only integer and bool tensors are supported, got {kind}; "
                "use a logical_* function or convert with .to(interop.int64)")


_BOOL_UNARY = {"sign": lambda be, x: x.copy(), "conj_physical": lambda be, x: x.copy(),
               "square": lambda be, x: be.np.square(x.astype("int64"))}


def _unary(name: str, fname: str, kind: str) -> Any:
    def impl(be: Any, input: Any) -> Any:
        fn = getattr(be.np, fname)
        if kind == "float":
            return fn(float_input(be, input))
        if kind == "int":
            _require_int(name, input)
        refuse_kinds(name, input.dtype)
        if input.dtype.kind == "b" and name in _BOOL_UNARY:
            return _BOOL_UNARY[name](be, input)
        if kind == "same" and name in ("floor", "ceil", "trunc") and input.dtype.kind in "biu":
            return input.copy()
        if name == "sign" and input.dtype.kind == "f":  # torch: sign(nan) is 0, NumPy's nan
            return be.np.where(be.np.isnan(input), input.dtype.type(0), fn(input))
        return fn(input)
    impl.__name__ = name
    impl.__doc__ = f"Elementwise {name} (torch.{name}), computed by the backend's {fname}."
    return impl


def _binary(name: str, fname: str, kind: str) -> Any:
    def impl(be: Any, input: Any, other: Any) -> Any:
        fn = getattr(be.np, fname)
        if kind == "int":
            _require_int(name, input, other)
        a, b = promote(input, other)
        if name != "pow" or getattr(other, "dtype", None) is not None:
            refuse_kinds(name, getattr(a, "dtype", None))
        if name in _INT_DIVISIONS:
            check_int_division(be, name, b)
        elif name == "pow" and getattr(a, "dtype", None) is not None and a.dtype.kind in "biu":
            if a.dtype.kind == "b":  # bool ** bool stays bool in torch: x ** y == x or not y
                return be.np.logical_or(a, be.np.logical_not(b))
            return int_pow(be, a, b)
        if kind == "float":
            dt = getattr(a, "dtype", None)
            if dt is not None and dt.kind in "biu":
                a, b = cast(a, dtypes.get_default_dtype()), cast(b, dtypes.get_default_dtype())
        return fn(a, b)
    impl.__name__ = name
    impl.__doc__ = f"Elementwise {name} (torch.{name}), computed by the backend's {fname}."
    return impl


for _name, (_fname, _kind, _aliases) in UNARY.items():
    op(_name, inplace=_name not in _NO_INPLACE, aliases=_aliases, out=True)(_unary(_name, _fname, _kind))

for _name, (_fname, _kind, _aliases) in BINARY.items():
    op(_name, inplace=_name not in _NO_INPLACE, aliases=_aliases, out=True)(_binary(_name, _fname, _kind))


@op(inplace=True, aliases=(), out=True)
def add(be: Any, input: Any, other: Any, *, alpha: Any = 1) -> Any:
    """input + alpha * other, with torch's promotion.

    >>> a = interop.tensor([1.0, 2.0])
    >>> interop.add(a, 1, alpha=2)
    tensor([3., 4.], backend='numpy')
    >>> a + a
    tensor([2., 4.], backend='numpy')
    """
    a, b = promote(input, other)
    return be.np.add(a, b if alpha == 1 else _scaled(be, "add", a, b, alpha))


@op(inplace=True, aliases=("subtract",), out=True)
def sub(be: Any, input: Any, other: Any, *, alpha: Any = 1) -> Any:
    """input - alpha * other; bool tensors cannot be subtracted (as in torch, whose 2.13 says
    RuntimeError and 2.14 NotImplementedError, a RuntimeError; NumPy says TypeError).

    >>> interop.sub(interop.tensor([5, 3]), 1)
    tensor([4, 2], backend='numpy')
    """
    if any(getattr(x, "dtype", None) == dtypes.bool or type(x) is bool for x in (input, other)):
        raise UnsupportedDtypeError("Subtraction, the `-` operator, with a bool tensor is not "
                                    "supported. "
                                    "If you are trying to invert a mask, use the `~` or "
                                    "`logical_not()` operator instead.")
    a, b = promote(input, other)
    return be.np.subtract(a, b if alpha == 1 else _scaled(be, "sub", a, b, alpha))


def _scaled(be: Any, name: str, a: Any, b: Any, alpha: Any) -> Any:
    """``alpha * b`` with torch's checks: alpha must fit the result's kind, not promote it."""
    dt = be.dtype_of(a if hasattr(a, "dtype") else b)  # promoted already: the result's dtype
    kind = dt.kind
    if kind in "biu" and isinstance(alpha, float) or kind != "c" and isinstance(alpha, complex):
        raise RuntimeError(f"{name}(): for {'integral' if kind in 'biu' else 'non-complex'} "
                           f"input tensors, argument alpha must not be a "
                           f"{'floating point' if isinstance(alpha, float) else 'complex'} "
                           f"number (got alpha={alpha!r}); convert the tensors first, e.g. "
                           "t.float()")
    if kind != "b" and isinstance(alpha, bool):
        raise RuntimeError(f"{name}(): Boolean alpha only supported for Boolean results; pass "
                           "alpha=1 (or 0) instead")
    alpha = fits_dtype(name, alpha, dt)
    return b * (bool(alpha) if kind == "b" else alpha)


@op(inplace=True, aliases=("divide", "true_divide"), out=True)
def div(be: Any, input: Any, other: Any, *, rounding_mode: str | None = None) -> Any:
    """True division (integers give the default float), or 'trunc'/'floor' rounding.

    >>> interop.tensor([5, -5]) / 2
    tensor([ 2.5000, -2.5000], backend='numpy')
    >>> interop.div(interop.tensor([5, -5]), 2, rounding_mode='floor')
    tensor([ 2, -3], backend='numpy')
    """
    a, b = promote(input, other)
    if rounding_mode is None:
        dt = getattr(a, "dtype", None)
        if dt is not None and dt.kind in "biu":
            a, b = cast(a, dtypes.get_default_dtype()), cast(b, dtypes.get_default_dtype())
        return be.np.true_divide(a, b)
    if a.dtype.kind in "iu":
        check_int_division(be, "div", b)
    if rounding_mode == "floor":
        return be.np.floor_divide(a, b)
    if rounding_mode == "trunc":
        if a.dtype.kind in "iu":  # exact in integers (through float64, 2**62 + 1 would round)
            q = be.np.floor_divide(a, b)
            inexact = (be.np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
            return q + inexact.astype(q.dtype)
        return be.np.trunc(be.np.true_divide(a, b))
    raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                     f"found '{rounding_mode}'")


torch_alias("torch.Tensor.true_divide", to="div")


@op(inplace=True, aliases=("clip",), out=True)
def clamp(be: Any, input: Any, min: Any = None, max: Any = None) -> Any:  # noqa: A002
    """Limit values to [min, max]; either bound may be None (not both).

    >>> interop.tensor([-1.0, 0.5, 2.0]).clamp(0, 1)
    tensor([0.0000, 0.5000, 1.0000], backend='numpy')
    >>> interop.tensor([-1.0, 0.5, 2.0]).clamp(min=0)
    tensor([0.0000, 0.5000, 2.0000], backend='numpy')
    """
    if min is None and max is None:
        raise RuntimeError("clamp: at least one of 'min' or 'max' must not be None")
    bounds = [x for x in (min, max) if x is not None]
    dt = dtypes.result_type(input, *bounds)
    ordered("clamp", np.empty(0, dt))
    min, max = kept_scalars("clamp", dt, min, max)  # noqa: A001
    if any(getattr(x, "dtype", None) is None for x in bounds):
        refuse_kinds("clamp", dt)
    out = cast(input, dt)
    if min is not None:
        out = be.np.maximum(out, cast(min, dt))
    if max is not None:
        out = be.np.minimum(out, cast(max, dt))
    return out


@op(function=True, method="round", inplace=True, out=True)
def round(be: Any, input: Any, *, decimals: int = 0) -> Any:  # noqa: A001
    """Round half to even (as torch and NumPy do)."""
    refuse_kinds("round", input.dtype)
    if input.dtype.kind in "biu":
        return input.copy()
    return be.np.round(input, decimals)


@op(out=True)
def isclose(be: Any, input: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Any:
    """Elementwise closeness, as torch.isclose (both tensors of one dtype)."""
    dt_a, dt_b = getattr(input, "dtype", None), getattr(other, "dtype", None)
    if dt_a is not None and dt_b is not None and dt_a != dt_b:
        raise RuntimeError(f"isclose: {dt_a} did not match {dt_b}; convert one operand with "
                           ".to(other.dtype)")
    a, b = promote(input, other)
    return be.np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


@op()
def allclose(be: Any, input: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """True if all elements are close (computes a Dask graph: it returns a Python bool).

    >>> interop.allclose(interop.ones(2), interop.ones(2) + 1e-9)
    True
    >>> interop.allclose(interop.ones(2), interop.zeros(2))
    False
    """
    a, b = promote(input, other)
    return bool(python_value(be.np.all(be.np.isclose(a, b, rtol=rtol, atol=atol,
                                                     equal_nan=equal_nan)), "allclose()"))


@op()
def equal(be: Any, input: Any, other: Any) -> bool:
    """True if same shape and values (torch.equal; returns a Python bool)."""
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool(python_value(be.np.all(input == other), "equal()"))


@op(method="real", property=True, function=True)
def real(be: Any, input: Any) -> Any:
    """Real part (a view for complex tensors, on Dask too)."""
    if input.dtype.kind != "c":
        return input
    return views.merged(input.real, input, lambda base, raw: raw + 1j * base.imag)


@op(method="imag", property=True, function=True)
def imag(be: Any, input: Any) -> Any:
    """Imaginary part; zeros for a real tensor, as NumPy and Dask answer (torch raises).
    Duck-array checks read ``.imag`` of any array's data: xarray keeps a pint Quantity of
    tensors only where its magnitude has one (docs/consumers.md)."""
    if input.dtype.kind != "c":
        return be.np.zeros_like(input)
    return views.merged(input.imag, input, lambda base, raw: base.real + 1j * raw)


@op(aliases=("conjugate",))  # NumPy's name, which SciPy calls
def conj(be: Any, input: Any) -> Any:
    """Complex conjugate (the input itself for real tensors, as torch)."""
    return be.np.conj(input) if input.dtype.kind == "c" else input


@op(out=True)
def sigmoid(be: Any, input: Any) -> Any:
    """1 / (1 + exp(-x)).

    >>> interop.sigmoid(interop.tensor([0.0, 2.0]))
    tensor([0.5000, 0.8808], backend='numpy')
    """
    x = float_input(be, input)
    return 1 / (1 + be.np.exp(-x))


@op(out=True, inplace=True)
def rsqrt(be: Any, input: Any) -> Any:
    """1 / sqrt(x)."""
    return 1 / be.np.sqrt(float_input(be, input))


@op(out=True)
def nan_to_num(be: Any, input: Any, nan: float | None = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Any:
    """Replace NaN and infinities by finite numbers (0 and the dtype's extremes by default;
    None asks for the default, as in torch's schema)."""
    if input.dtype.kind not in "fc":
        return input.copy()
    info = np.finfo(input.dtype)
    hi = info.max if posinf is None else posinf
    lo = info.min if neginf is None else neginf
    out = be.np.where(be.np.isnan(input), 0.0 if nan is None else nan, input)
    out = be.np.where(be.np.isposinf(out), hi, out)
    return be.np.where(be.np.isneginf(out), lo, out).astype(input.dtype)
