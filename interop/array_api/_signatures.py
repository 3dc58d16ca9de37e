"""The standard's (2025.12) signatures, given to the generated functions.

Every ``interop.array_api`` function is one generic ``(*args, **kwargs)``
wrapper, and the backends' array-api-compat functions do not carry the
standard's signatures either (``numpy.sum(a, axis=None, dtype=None, out=None,
...)``), so ``inspect.signature`` and the official array-api-tests'
signature tests would see no parameter names.  The parameter lists below are
the standard's (checked against array-api-strict in the tests); they document
the functions and are what ``inspect.signature(xp.sum)`` answers.  Calls are
not checked against them: the backend raises for a wrong call, as before.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

from ..ops.signatures import LazySignature
from ._extras import numpys

# parameter list -> the functions (qualified by extension) that take it
_SHARED = {
    "x, /": (
        "abs acos acosh asin asinh atan atanh bitwise_invert ceil conj cos cosh exp expm1 floor "
        "imag isfinite isinf isnan log log1p log2 log10 logical_not negative positive real "
        "reciprocal round sign signbit sin sinh square sqrt tan tanh trunc matrix_transpose "
        "nonzero unique_all unique_counts unique_inverse unique_values linalg.det linalg.eigh "
        "linalg.eig linalg.eigvals linalg.eigvalsh linalg.inv linalg.matrix_transpose linalg.slogdet "
        "linalg.svdvals"),
    "x1, x2, /": (
        "add atan2 bitwise_and bitwise_left_shift bitwise_or bitwise_right_shift bitwise_xor "
        "copysign divide equal floor_divide greater greater_equal hypot less less_equal "
        "logaddexp logical_and logical_or logical_xor maximum minimum multiply nextafter "
        "not_equal pow remainder subtract matmul linalg.matmul linalg.outer linalg.solve"),
    "x, /, *, axis=None, keepdims=False": "argmax argmin count_nonzero max mean min all any",
    "x, /, *, n=None, axis=-1, norm='backward'": (
        "fft.fft fft.ifft fft.rfft fft.irfft fft.hfft fft.ihfft"),
    "x, /, *, s=None, axes=None, norm='backward'": "fft.fftn fft.ifftn fft.rfftn fft.irfftn",
    "shape, *, dtype=None, device=None": "empty ones zeros",
    "x, /, *, dtype=None, device=None": "empty_like ones_like zeros_like",
    "x1, x2, /, *, axis=-1": "vecdot linalg.cross linalg.vecdot",
    "x, /, *, k=0": "tril triu",
    "type, /": "finfo iinfo",
    "x1, x2, /, *, axes=2": "tensordot linalg.tensordot",
    "arrays, /, *, axis=0": "concat stack",
    "x, /, *, axis=-1, descending=False, stable=True": "argsort sort",
    "x, /, *, axis=None, dtype=None, include_initial=False": "cumulative_prod cumulative_sum",
    "x, /, *, axis=None, dtype=None, keepdims=False": "prod sum",
    "x, /, *, axis=None, correction=0.0, keepdims=False": "std var",
    "x, /, *, rtol=None": "linalg.matrix_rank linalg.pinv",
    "n, /, *, d=1.0, dtype=None, device=None": "fft.fftfreq fft.rfftfreq",
    "x, /, *, axes=None": "fft.fftshift fft.ifftshift",
    "start, /, stop=None, step=1, *, dtype=None, device=None": "arange",
    "n_rows, n_cols=None, /, *, k=0, dtype=None, device=None": "eye",
    "x, /, *, device=None, copy=None": "from_dlpack",
    "shape, fill_value, *, dtype=None, device=None": "full",
    "start, stop, /, num, *, dtype=None, device=None, endpoint=True": "linspace",
    "obj, /, *, dtype=None, device=None, copy=None": "asarray",
    "x, /, fill_value, *, dtype=None, device=None": "full_like",
    "*arrays, indexing='xy'": "meshgrid",
    "x, dtype, /, *, copy=True, device=None": "astype",
    "from_, to, /": "can_cast",
    "dtype, kind": "isdtype",
    "*arrays_and_dtypes": "result_type",
    "x, /, min=None, max=None": "clip",
    "x, indices, /, *, axis=None": "take",
    "x, indices, /, *, axis=-1": "take_along_axis",
    "*arrays": "broadcast_arrays",
    "x, /, shape": "broadcast_to",
    "x, /, axis": "expand_dims squeeze",
    "x1, x2, /, *, invert=False": "isin",
    "*shapes": "broadcast_shapes",
    "x, /, *, axis=None": "flip",
    "x, source, destination, /": "moveaxis",
    "x, /, axes": "permute_dims",
    "x, repeats, /, *, axis=None": "repeat",
    "x, /, shape, *, copy=None": "reshape",
    "x, /, shift, *, axis=None": "roll",
    "x, repetitions, /": "tile",
    "x, /, *, axis=0": "unstack",
    "x1, x2, /, *, side='left', sorter=None": "searchsorted",
    "condition, x1, x2, /": "where",
    "x, /, *, axis=-1, n=1, prepend=None, append=None": "diff",
    "x, /, *, upper=False": "linalg.cholesky",
    "x, /, *, offset=0": "linalg.diagonal",
    "x, /, *, keepdims=False, ord='fro'": "linalg.matrix_norm",
    "x, n, /": "linalg.matrix_power",
    "x, /, *, mode='reduced'": "linalg.qr",
    "x, /, *, full_matrices=True": "linalg.svd",
    "x, /, *, offset=0, dtype=None": "linalg.trace",
    "x, /, *, axis=None, keepdims=False, ord=2": "linalg.vector_norm",
}

PARAMETERS = {q: params for params, names in _SHARED.items() for q in names.split()}


def signature(qualname: str) -> inspect.Signature:
    """The standard's signature of ``qualname`` (``"sum"``, ``"linalg.qr"``).

    The parameter list is a constant of this module, read by Python's own parser
    as a lambda's (defaults are literals only).
    """
    return inspect.signature(eval(f"lambda {PARAMETERS[qualname]}: None", {}))  # noqa: S307


def attach(functions: dict[str, Callable], module: str = "") -> dict[str, Callable]:
    """``functions`` (name -> generated function), each given its standard signature (made
    when first read)."""
    for name, fn in functions.items():
        qualname = f"{module}.{name}" if module else name
        if qualname not in PARAMETERS:
            raise KeyError(f"no standard parameter list for {qualname!r}")
        fn.__signature__ = LazySignature(  # type: ignore[attr-defined]  # (inspect reads it)
            functools.partial(signature, qualname))
    return functions


def _numpys_signature(name: str) -> inspect.Signature:
    return inspect.signature(numpys(name))


def attach_numpys(functions: dict[str, Callable]) -> dict[str, Callable]:
    """``functions`` (name -> generated function), each given NumPy's signature of that name
    (made when first read)."""
    for name, fn in functions.items():
        fn.__signature__ = LazySignature(  # type: ignore[attr-defined]  # (inspect reads it)
            functools.partial(_numpys_signature, name))
    return functions
