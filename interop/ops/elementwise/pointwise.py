"""Small pointwise functions built from backend primitives: addcmul, addcdiv, lerp,
frac, heaviside, gcd/lcm, ldexp, float_power, sgn, isposinf/isneginf, isreal,
angle, clamp_min/clamp_max, with torch's dtypes."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._args import cast, float_input, promote, scaled
from ..registry import op


@op()
def addcmul(be: Any, input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Any:
    """input + value * tensor1 * tensor2."""
    a, b, c = promote(input, tensor1, tensor2)
    return a + scaled(b * c, value)


@op()
def addcdiv(be: Any, input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Any:
    """input + value * tensor1 / tensor2 (integer tensors refused, as torch)."""
    a, b, c = promote(input, tensor1, tensor2)
    if getattr(b, "dtype", np.dtype("f")).kind in "biu":
        raise RuntimeError("Integer division with addcdiv is no longer supported; use "
                           "addcmul(input, tensor1, 1 / tensor2) or float tensors")
    return a + scaled(b / c, value)


@op()
def lerp(be: Any, input: Any, end: Any, weight: Any) -> Any:
    """input + weight * (end - input), as torch computes it (exact at weight 0 and 1)."""
    a, b = promote(input, end)
    w = cast(weight, a.dtype) if hasattr(weight, "dtype") else weight
    return be.np.where(be.np.abs(w) < 0.5, a + w * (b - a), b - (b - a) * (1 - w)).astype(a.dtype)

# ------------------------------------------------------------------ pointwise
@op()
def frac(be: Any, input: Any) -> Any:
    """x - trunc(x)."""
    return input - be.np.trunc(input)


@op()
def heaviside(be: Any, input: Any, values: Any) -> Any:
    """0 for x < 0, values for x == 0, 1 for x > 0 (and 0 for NaN, as torch's kernel)."""
    if getattr(input, "dtype", None) != getattr(values, "dtype", None):
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    return be.np.where(input == 0, values, input > 0).astype(input.dtype)


def _integer_pair(name: str, fn: str) -> None:
    def impl(be: Any, input: Any, other: Any) -> Any:
        a, b = promote(input, other)
        if getattr(a, "dtype", np.dtype("i")).kind not in "iu":
            raise RuntimeError(f'"{name}_cpu" not implemented for {a.dtype} tensors')
        return be.ufunc(fn)(a, b)
    impl.__name__, impl.__doc__ = name, f"Elementwise {name} of integer tensors."
    op(name)(impl)


_integer_pair("gcd", "gcd")
_integer_pair("lcm", "lcm")


@op()
def ldexp(be: Any, input: Any, other: Any) -> Any:
    """input * 2 ** other, in floating point."""
    a = float_input(be, input)
    return a * be.np.exp2(cast(other, a.dtype) if hasattr(other, "dtype") else other)


@op()
def float_power(be: Any, input: Any, exponent: Any) -> Any:
    """input ** exponent in double precision (complex128 for complex operands)."""
    complex_ = any(getattr(x, "dtype", np.dtype(type(x) if not isinstance(x, bool) else "b")).kind
                   == "c" for x in (input, exponent))
    dt = np.dtype("complex128" if complex_ else "float64")
    return be.np.power(cast(input, dt), cast(exponent, dt) if hasattr(exponent, "dtype")
                       else exponent)


@op()
def sgn(be: Any, input: Any) -> Any:
    """sign for real tensors; x / |x| (0 at 0) for complex ones."""
    if input.dtype.kind != "c":
        return input.copy() if input.dtype.kind == "b" else be.np.sign(input)
    a = be.np.abs(input)
    return be.np.where(a == 0, 0, input / be.np.where(a == 0, 1, a)).astype(input.dtype)


def _inf_test(name: str, sign: int) -> None:
    def impl(be: Any, input: Any) -> Any:
        if input.dtype.kind in "biu":
            return be.np.zeros_like(input, dtype=bool)
        return (input == sign * np.inf)
    impl.__name__, impl.__doc__ = name, f"True where x is {'+' if sign > 0 else '-'}inf."
    op(name)(impl)


_inf_test("isposinf", 1)
_inf_test("isneginf", -1)


@op()
def isreal(be: Any, input: Any) -> Any:
    """True where the imaginary part is 0 (everywhere for real tensors)."""
    if input.dtype.kind != "c":
        return be.np.ones_like(input, dtype=bool)
    return be.np.imag(input) == 0


@op()
def angle(be: Any, input: Any) -> Any:
    """The argument of each element (0 or pi for real numbers; nan stays nan)."""
    if input.dtype.kind == "c":
        return be.np.angle(input)
    x = float_input(be, input)
    return be.np.where(x < 0, x.dtype.type(math.pi), be.np.where(be.np.isnan(x), x, 0)).astype(x.dtype)


def _clamp_side(name: str, fn: str) -> None:
    def impl(be: Any, input: Any, bound: Any) -> Any:
        a, b = promote(input, bound)
        return getattr(be.np, fn)(a, b)
    impl.__name__, impl.__doc__ = name, f"{name}: elementwise bound, torch's promotion."
    op(name)(impl)


_clamp_side("clamp_min", "maximum")
_clamp_side("clamp_max", "minimum")
