"""torch.special (and torch.erf, torch.lgamma, ...): special functions from the backend's
scipy.special (CuPy: cupyx.scipy.special; Dask applies SciPy's ufuncs lazily per chunk).

SciPy is optional: without it these raise a TypeError naming the function
and the package to install.  Results take the input's floating dtype
(integers: the default float), as torch's do.
"""

from __future__ import annotations

import math
from typing import Any

from ... import dtypes
from .. import nn  # noqa: F401  (the torch.special aliases at the end name nn's softmax)
from .._args import promote, special_module
from ..registry import op, torch_alias


def _floating(be: Any, *xs: Any) -> tuple[Any, ...]:
    """Operands promoted, then integers/bools as the default float (torch's float functions)."""
    xs = promote(*xs) if len(xs) > 1 else xs
    dt = next((x.dtype for x in xs if hasattr(x, "dtype")), None)
    if dt is None or dt.kind in "biu":
        target = dtypes.get_default_dtype()
        return tuple(x.astype(target) if hasattr(x, "astype") else x for x in xs)
    return xs


def _result(out: Any, like: Any) -> Any:
    return out.astype(like.dtype, copy=False) if out.dtype != like.dtype else out


# name: (scipy.special function, extra torch names besides torch.special.<name>)
UNARY = {
    "erf": ("erf", ("torch.erf", "torch.Tensor.erf")),
    "erfc": ("erfc", ("torch.erfc", "torch.Tensor.erfc")),
    "erfinv": ("erfinv", ("torch.erfinv", "torch.Tensor.erfinv")),
    "erfcx": ("erfcx", ()),
    "lgamma": ("gammaln", ("torch.special.gammaln", "torch.Tensor.lgamma")),
    "digamma": ("psi", ("torch.special.psi", "torch.Tensor.digamma")),
    "i0": ("i0", ("torch.Tensor.i0",)),
    "i0e": ("i0e", ()),
    "i1": ("i1", ()),
    "i1e": ("i1e", ()),
    "ndtr": ("ndtr", ()),
    "ndtri": ("ndtri", ()),
    "log_ndtr": ("log_ndtr", ()),
    "entr": ("entr", ()),
    "bessel_j0": ("j0", ()),
    "bessel_j1": ("j1", ()),
    "bessel_y0": ("y0", ()),
    "bessel_y1": ("y1", ()),
    "modified_bessel_i0": ("i0", ()),
    "modified_bessel_i1": ("i1", ()),
    "modified_bessel_k0": ("k0", ()),
    "modified_bessel_k1": ("k1", ()),
    "scaled_modified_bessel_k0": ("k0e", ()),
    "scaled_modified_bessel_k1": ("k1e", ()),
}
_TOP_LEVEL = {"erf", "erfc", "erfinv", "lgamma", "digamma", "i0"}  # interop.<name> too

BINARY = {
    "xlogy": ("xlogy", ("torch.xlogy", "torch.Tensor.xlogy")),
    "xlog1py": ("xlog1py", ()),
    "zeta": ("zeta", ()),
    "igamma": ("gammainc", ("torch.igamma", "torch.special.gammainc", "torch.Tensor.igamma")),
    "igammac": ("gammaincc", ("torch.igammac", "torch.special.gammaincc",
                              "torch.Tensor.igammac")),
}


def _unary(name: str, fname: str) -> Any:
    def impl(be: Any, input: Any) -> Any:
        (x,) = _floating(be, input)
        return _result(getattr(special_module(be, name), fname)(x), x)
    impl.__name__ = name
    impl.__doc__ = f"torch.special.{name}, by scipy.special.{fname} on the backend."
    return impl


def _binary(name: str, fname: str) -> Any:
    def impl(be: Any, input: Any, other: Any) -> Any:
        a, b = _floating(be, input, other)
        like = a if hasattr(a, "dtype") else b
        return _result(getattr(special_module(be, name), fname)(a, b), like)
    impl.__name__ = name
    impl.__doc__ = f"torch.special.{name}, by scipy.special.{fname} on the backend."
    return impl


for _name, (_fname, _extra) in UNARY.items():
    _top = _name in _TOP_LEVEL
    _key = _name if _top else f"special_{_name}"
    op(_key, method=_name if f"torch.Tensor.{_name}" in _extra else False,
       torch=(f"torch.special.{_name}", *(("torch." + _name,) if _top else ()), *_extra))(
        _unary(_name, _fname))

for _name, (_fname, _extra) in BINARY.items():
    _top = _name in ("xlogy", "igamma", "igammac")
    op(_name if _top else f"special_{_name}", method=_name if _top else False,
       torch=(f"torch.special.{_name}", *_extra))(_binary(_name, _fname))


@op(method=True,
    torch=("torch.polygamma", "torch.special.polygamma", "torch.Tensor.polygamma"))
def polygamma(be: Any, n: int, input: Any) -> Any:
    """The n-th derivative of digamma (``torch.polygamma(n, x)``; the method is ``x.polygamma(n)``)."""
    if not isinstance(n, int) and hasattr(input, "__index__"):
        n, input = input, n  # Tensor.polygamma(x, n)
    (x,) = _floating(be, input)
    sp = special_module(be, "polygamma")
    if n == 0:
        return _result(sp.psi(x), x)
    # (-1)^(n+1) n! zeta(n+1, x): ufuncs only, so Dask stays lazy (scipy's polygamma is not one)
    return _result(x.dtype.type((-1) ** (n + 1) * math.factorial(n)) * sp.zeta(n + 1, x), x)


@op(method=True,
    torch=("torch.mvlgamma", "torch.special.multigammaln", "torch.Tensor.mvlgamma"))
def mvlgamma(be: Any, input: Any, p: int) -> Any:
    """Log of the multivariate gamma function of dimension ``p``."""
    (x,) = _floating(be, input)
    sp = special_module(be, "multigammaln")
    out = sum(sp.gammaln(x - x.dtype.type(j / 2)) for j in range(p))
    return _result(out + x.dtype.type(p * (p - 1) / 4 * math.log(math.pi)), x)


@op(method=True, torch=("torch.logit", "torch.special.logit", "torch.Tensor.logit"))
def logit(be: Any, input: Any, eps: float | None = None) -> Any:
    """log(x / (1 - x)), with x clamped to [eps, 1 - eps] when ``eps`` is given; as torch's
    kernel, x below eps becomes eps first, so for eps > 0.5 (an empty interval) that wins."""
    (x,) = _floating(be, input)
    if eps is not None:
        lo, hi = x.dtype.type(eps), x.dtype.type(1 - eps)
        x = be.np.where(x < lo, lo, be.np.where(x > hi, hi, x))
    return be.np.log(x / (1 - x))


@op(method=True, torch=("torch.sinc", "torch.special.sinc", "torch.Tensor.sinc"))
def sinc(be: Any, input: Any) -> Any:
    """sin(pi x) / (pi x), 1 at 0."""
    (x,) = _floating(be, input)
    return _result(be.np.sinc(x), x)


@op(method=False, torch=("torch.special.spherical_bessel_j0",))
def special_spherical_bessel_j0(be: Any, input: Any) -> Any:
    """sin(x) / x, 1 at 0."""
    (x,) = _floating(be, input)
    safe = be.np.where(x == 0, x.dtype.type(1), x)
    return be.np.where(x == 0, x.dtype.type(1), be.np.sin(safe) / safe)


@op(method=False, torch=("torch.special.airy_ai",),
    lacks={"cupy": "cupyx.scipy.special has no airy (the Airy functions need Bessel functions "
                   "of order 1/3, which it has not either)"})
def special_airy_ai(be: Any, input: Any) -> Any:
    """The Airy function Ai."""
    (x,) = _floating(be, input)
    airy = special_module(be, "airy_ai").airy
    return _result(be.per_block(lambda block: airy(block)[0].astype(block.dtype), x), x)


# torch.special.<name>(input, n): scipy.special.eval_<fn>(n, x); 0 for negative n, as torch
POLYNOMIALS = {"chebyshev_polynomial_t": "chebyt", "chebyshev_polynomial_u": "chebyu",
               "shifted_chebyshev_polynomial_t": "sh_chebyt",
               "shifted_chebyshev_polynomial_u": "sh_chebyu", "hermite_polynomial_h": "hermite",
               "hermite_polynomial_he": "hermitenorm", "laguerre_polynomial_l": "laguerre",
               "legendre_polynomial_p": "legendre"}


def _polynomial(name: str, fname: str) -> Any:
    def impl(be: Any, input: Any, n: Any) -> Any:
        (x,) = _floating(be, input) if hasattr(input, "dtype") else (input,)
        like = x if hasattr(x, "dtype") else _floating(be, n)[0]
        degree = n.astype("int64") if hasattr(n, "astype") else int(n)
        safe = be.np.maximum(degree, 0) if hasattr(degree, "dtype") else max(degree, 0)
        out = getattr(special_module(be, name), f"eval_{fname}")(safe, x)
        return _result(be.np.where(degree < 0, 0, out), like)
    impl.__name__ = name
    impl.__doc__ = f"torch.special.{name}, by scipy.special.eval_{fname}(n, x)."
    return impl


for _name, _fname in POLYNOMIALS.items():
    op(f"special_{_name}", method=False,
       torch=(f"torch.special.{_name}",))(_polynomial(_name, _fname))


def _chebyshev_vw(name: str, sign: int, shifted: bool) -> Any:
    """Chebyshev polynomials of the third (V) and fourth (W) kinds from the second kind's:
    V_n = U_n - U_{n-1}, W_n = U_n + U_{n-1} (U_{-1} = 0); shifted: x -> 2x - 1."""
    chebyu = _polynomial("chebyshev_polynomial_u", "chebyu")

    def impl(be: Any, input: Any, n: Any) -> Any:
        x = input * 2 - 1 if shifted else input
        n = n.astype("int64") if hasattr(n, "astype") else int(n)  # truncated first, as torch
        return chebyu(be, x, n) + sign * chebyu(be, x, n - 1)
    impl.__name__ = name
    impl.__doc__ = f"torch.special.{name}: U_n(x) {'+-'[sign < 0]} U_(n-1)(x)" + \
        (" at 2x - 1." if shifted else ".")
    return impl


for _name, _sign in (("chebyshev_polynomial_v", -1), ("chebyshev_polynomial_w", 1)):
    for _shifted in (False, True):
        _full = f"shifted_{_name}" if _shifted else _name
        op(f"special_{_full}", method=False,
           torch=(f"torch.special.{_full}",))(_chebyshev_vw(_full, _sign, _shifted))

for _alias, _to in {"expit": "sigmoid", "exp2": "exp2", "expm1": "expm1", "log1p": "log1p",
                    "round": "round", "softmax": "softmax", "log_softmax": "log_softmax",
                    "logsumexp": "logsumexp"}.items():
    torch_alias(f"torch.special.{_alias}", to=_to)
