"""Conformance of interop.array_api, function by function, with array-api-strict as the oracle.

Every function of the 2025.12 namespace (and its linalg and fft extensions)
has a hypothesis strategy below drawing valid arguments (random shapes,
dtypes and values, Python scalars where the standard allows them).  The same
call is made on array-api-strict and on interop tensors of each backend; the
results must agree in type (tensors of that backend), shape, dtype and values.
A test checks that the table covers the whole namespace.
"""

from __future__ import annotations

import array_api_strict as strict
import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, reject, settings
from hypothesis.extra import numpy as hnp

import interop
import interop.array_api as xp
from tests.conftest import to_numpy

StrictArray, StrictDType = type(strict.asarray(0)), type(strict.float32)
INT = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
FLOAT = ("float32", "float64")
NORMS = ("backward", "ortho", "forward")
COMPLEX = ("complex64", "complex128")
REAL = INT + FLOAT
NUMERIC = REAL + COMPLEX
INTB = INT + ("bool",)
ALL = NUMERIC + ("bool",)


# ------------------------------------------------------------------ drawing arguments
class Dt:
    """A dtype argument, resolved in each namespace (strict's dtypes are its own objects)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Dt({self.name})"


def elements(dt: np.dtype, lo: float = -10, hi: float = 10) -> st.SearchStrategy:
    if dt.kind == "b":
        return st.booleans()
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return st.integers(max(int(lo), int(info.min)), min(int(hi), int(info.max)))
    width = dt.itemsize * 8
    if dt.kind == "c":
        return st.complex_numbers(max_magnitude=hi, width=width, allow_nan=False,
                                  allow_infinity=False, allow_subnormal=False)
    return st.floats(lo, hi, width=width, allow_subnormal=False)


def dtype_of(draw, dtypes) -> np.dtype:
    return np.dtype(draw(st.sampled_from(dtypes)))


def array(draw, dtypes=FLOAT, shape=None, min_dims=0, max_dims=3, min_side=0, max_side=4,
          lo=-10, hi=10, dt=None):
    dt = dt if dt is not None else dtype_of(draw, dtypes)
    if shape is None:
        shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                                      max_side=max_side))
    return draw(hnp.arrays(dt, shape, elements=elements(dt, lo, hi)))


def pair(draw, dtypes, lo=-10, hi=10, lo2=None, hi2=None, scalar=True):
    """Two operands of one dtype with broadcastable shapes; the second may be a Python scalar."""
    dt = dtype_of(draw, dtypes)
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4)).input_shapes
    x1 = draw(hnp.arrays(dt, shapes[0], elements=elements(dt, lo, hi)))
    lo2, hi2 = lo if lo2 is None else lo2, hi if hi2 is None else hi2
    if scalar and dt.kind != "c" and draw(st.booleans()):
        return x1, draw(elements(dt, lo2, hi2))
    return x1, draw(hnp.arrays(dt, shapes[1], elements=elements(dt, lo2, hi2)))


def axis_of(draw, ndim, allow_none=True):
    choices = list(range(-ndim, ndim)) + ([None] if allow_none else [])
    return draw(st.sampled_from(choices)) if choices else None


def axes_of(draw, ndim):
    """None, an int or a tuple of distinct axes."""
    kind = draw(st.sampled_from(["none", "int", "tuple"])) if ndim else "none"
    if kind == "none":
        return None
    if kind == "int":
        return draw(st.integers(-ndim, ndim - 1))
    return tuple(draw(st.lists(st.integers(0, ndim - 1), unique=True, min_size=1)))


def spd(draw, dtypes=FLOAT, n=None, batch=True):
    """A well-conditioned symmetric positive definite (batch of) matrix."""
    dt = dtype_of(draw, dtypes)
    n = n or draw(st.integers(1, 4))
    shape = ((draw(st.integers(1, 2)),) if batch and draw(st.booleans()) else ()) + (n, n)
    a = draw(hnp.arrays(dt, shape, elements=elements(dt, -1, 1)))
    return (a @ np.swapaxes(a, -1, -2).conj() + n * np.eye(n, dtype=dt)).astype(dt)


def square(draw, dtypes=FLOAT, batch=True):
    """A diagonally dominant (invertible, well-conditioned) square matrix or batch."""
    dt = dtype_of(draw, dtypes)
    n = draw(st.integers(1, 4))
    shape = ((draw(st.integers(1, 2)),) if batch and draw(st.booleans()) else ()) + (n, n)
    a = draw(hnp.arrays(dt, shape, elements=elements(dt, -1, 1)))
    return (a + 2 * n * np.eye(n, dtype=dt)).astype(dt)


def matrix(draw, dtypes=FLOAT, min_side=1):
    return array(draw, dtypes, min_dims=2, max_dims=3, min_side=min_side)


S = {}  # name -> strategy of (args, kwargs); arrays are NumPy arrays, converted per namespace


def spec(*names):
    def register(fn):
        for n in names:
            S[n] = st.composite(lambda draw, fn=fn, n=n: fn(draw, n))()
        return fn
    return register


# element-wise
UNARY = {
    FLOAT + COMPLEX: ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp",
                      "expm1", "log", "log1p", "log2", "log10", "sin", "sinh", "sqrt", "tan",
                      "tanh", "reciprocal"),
    NUMERIC: ("abs", "negative", "positive", "square", "sign", "isfinite", "isinf", "isnan",
              "round"),
    REAL: ("ceil", "floor", "trunc"),
    FLOAT: ("signbit",),
    COMPLEX: ("conj", "real", "imag"),
    INTB: ("bitwise_invert",),
    ("bool",): ("logical_not",),
}
for _dtypes, _names in UNARY.items():
    spec(*_names)(lambda draw, n, d=_dtypes: ((array(draw, d),), {}))

BINARY = {
    FLOAT: ("atan2", "copysign", "hypot", "logaddexp", "nextafter", "divide"),
    NUMERIC: ("add", "subtract", "multiply", "equal", "not_equal"),
    REAL: ("greater", "greater_equal", "less", "less_equal", "maximum", "minimum"),
    INTB: ("bitwise_and", "bitwise_or", "bitwise_xor"),
    ("bool",): ("logical_and", "logical_or", "logical_xor"),
}
for _dtypes, _names in BINARY.items():
    spec(*_names)(lambda draw, n, d=_dtypes: (pair(draw, d), {}))


@spec("pow")
def _pow(draw, n):
    return pair(draw, FLOAT, lo=0.25, hi=5, lo2=-3, hi2=3), {}


@spec("floor_divide", "remainder")
def _div(draw, n):
    return pair(draw, REAL, lo=0, hi=20, lo2=1, hi2=7), {}


@spec("bitwise_left_shift", "bitwise_right_shift")
def _shift(draw, n):
    return pair(draw, INT, lo=0, hi=15, lo2=0, hi2=3), {}


@spec("clip")
def _clip(draw, n):
    x = array(draw, REAL)
    lo, hi = sorted([draw(elements(x.dtype)), draw(elements(x.dtype))])
    return (x,), {"min": draw(st.sampled_from([lo, None])), "max": hi}


# reductions and statistics
@spec("sum", "prod", "max", "min", "mean", "all", "any", "count_nonzero")
def _reduce(draw, n):
    dtypes = {"mean": FLOAT + COMPLEX, "max": REAL, "min": REAL, "all": ALL, "any": ALL,
              "count_nonzero": ALL}.get(n, NUMERIC)
    x = array(draw, dtypes, min_side=1 if n in ("max", "min") else 0, hi=3 if n == "prod" else 10)
    kwargs = {"axis": axes_of(draw, x.ndim), "keepdims": draw(st.booleans())}
    if n in ("sum", "prod"):
        kwargs["dtype"] = _opt_dtype(draw, ("int64", "uint64", "float32", "float64", "complex128"))
    return (x,), kwargs


@spec("std", "var")
def _stat(draw, n):
    x = array(draw, FLOAT, min_side=3)
    return (x,), {"axis": axes_of(draw, x.ndim), "keepdims": draw(st.booleans()),
                  "correction": draw(st.sampled_from([0, 1]))}


@spec("argmax", "argmin")
def _argext(draw, n):
    x = array(draw, REAL, min_side=1, min_dims=1)
    return (x,), {"axis": axis_of(draw, x.ndim), "keepdims": draw(st.booleans())}


@spec("cumulative_sum", "cumulative_prod")
def _cum(draw, n):
    x = array(draw, REAL, min_dims=1, max_dims=2, hi=3)
    return (x,), {"axis": axis_of(draw, x.ndim, allow_none=x.ndim == 1),
                  "include_initial": draw(st.booleans()),
                  "dtype": _opt_dtype(draw, ("int64", "float64"))}


@spec("diff")
def _diff(draw, n):
    x = array(draw, REAL, min_dims=1, min_side=2)
    return (x,), {"axis": axis_of(draw, x.ndim, False), "n": draw(st.integers(0, 2))}


# sorting, searching, sets, indexing
@spec("sort", "argsort")
def _sort(draw, n):
    x = array(draw, REAL, min_dims=1)
    return (x,), {"axis": axis_of(draw, x.ndim, False), "descending": draw(st.booleans()),
                  "stable": True}


@spec("nonzero")
def _nonzero(draw, n):
    return (array(draw, ALL, min_dims=1),), {}


@spec("where")
def _where(draw, n):
    x1, x2 = pair(draw, NUMERIC)
    cond = array(draw, ("bool",), shape=np.broadcast_shapes(np.shape(x1), np.shape(x2)))
    return (cond, x1, x2), {}


@spec("searchsorted")
def _searchsorted(draw, n):
    x1 = np.sort(array(draw, REAL, min_dims=1, max_dims=1))
    x2 = draw(elements(x1.dtype)) if draw(st.booleans()) else array(draw, dt=x1.dtype)
    return (x1, x2), {"side": draw(st.sampled_from(["left", "right"]))}  # a scalar: 2025.12


@spec("isin")
def _isin(draw, n):
    """Integer (or bool) elements and test values; either may be a Python scalar (2025.12)."""
    dt = dtype_of(draw, INTB)
    x1 = array(draw, dt=dt, lo=0, hi=4)
    x2 = array(draw, dt=dt, lo=0, hi=4, max_dims=2)
    which = draw(st.sampled_from(["none", "x1", "x2"]))
    if which == "x1" and dt.kind != "b":
        x1 = draw(elements(dt, 0, 4))
    elif which == "x2" and dt.kind != "b":
        x2 = draw(elements(dt, 0, 4))
    return (x1, x2), {"invert": draw(st.booleans())}


@spec("broadcast_shapes")
def _bcast_shapes(draw, n):
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=draw(st.integers(1, 3)),
                                                    max_dims=3, max_side=4)).input_shapes
    return tuple(shapes), {}


@spec("unique_all", "unique_counts", "unique_inverse", "unique_values")
def _unique(draw, n):
    return (array(draw, REAL, lo=0, hi=3),), {}


@spec("take")
def _take(draw, n):
    x = array(draw, NUMERIC, min_dims=1, min_side=1)
    axis = axis_of(draw, x.ndim, allow_none=False)
    idx = array(draw, ("int64",), min_dims=1, max_dims=1, lo=0, hi=x.shape[axis] - 1)
    return (x, idx), {"axis": axis}


@spec("take_along_axis")
def _take_along(draw, n):
    x = array(draw, NUMERIC, min_dims=1, min_side=1)
    axis = axis_of(draw, x.ndim, allow_none=False)
    idx = np.argsort(x, axis=axis) if x.dtype.kind != "c" else np.zeros(x.shape, np.int64)
    return (x, idx), {"axis": axis}


# manipulation
@spec("broadcast_arrays")
def _bcast_arrays(draw, n):
    return pair(draw, NUMERIC, scalar=False), {}


@spec("broadcast_to")
def _bcast_to(draw, n):
    x = array(draw, NUMERIC, max_dims=2)
    return (x, (draw(st.integers(1, 3)), *x.shape)), {}


@spec("concat", "stack")
def _join(draw, n):
    dt = dtype_of(draw, NUMERIC)
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=3))
    xs = [draw(hnp.arrays(dt, shape, elements=elements(dt))) for _ in range(draw(st.integers(1, 3)))]
    nd = len(shape) + (n == "stack")
    return (xs,), {"axis": draw(st.integers(-nd, nd - 1))}


@spec("expand_dims")
def _expand(draw, n):
    """One axis, or (2025.12) a tuple of distinct axes of the result, negative ones too."""
    x = array(draw, NUMERIC)
    if draw(st.booleans()):
        return (x,), {"axis": draw(st.integers(-x.ndim - 1, x.ndim))}
    k = draw(st.integers(1, 2))
    out = x.ndim + k
    axes = draw(st.lists(st.integers(0, out - 1), min_size=k, max_size=k, unique=True))
    return (x,), {"axis": tuple(a - out if draw(st.booleans()) else a for a in axes)}


@spec("flip")
def _flip(draw, n):
    x = array(draw, NUMERIC)
    return (x,), {"axis": axes_of(draw, x.ndim)}


@spec("moveaxis")
def _moveaxis(draw, n):
    x = array(draw, NUMERIC, min_dims=1)
    return (x, axis_of(draw, x.ndim, False), axis_of(draw, x.ndim, False)), {}


@spec("permute_dims")
def _permute(draw, n):
    x = array(draw, NUMERIC)  # negative axes: 2025.12
    return (x, tuple(a - x.ndim if draw(st.booleans()) else a
                     for a in draw(st.permutations(range(x.ndim))))), {}


@spec("repeat")
def _repeat(draw, n):
    """A Python int, or an array of counts (one per element along the axis) of any integer
    dtype."""
    x = array(draw, NUMERIC, min_dims=1)
    axis = axis_of(draw, x.ndim)
    if draw(st.booleans()):
        return (x, draw(st.integers(0, 3))), {"axis": axis}
    size = x.size if axis is None else x.shape[axis]
    return (x, array(draw, INT, shape=(size,), lo=0, hi=3)), {"axis": axis}


@spec("reshape")
def _reshape(draw, n):
    x = array(draw, NUMERIC)
    return (x, draw(st.sampled_from([(-1,), (x.size, 1), (1, -1) if x.size else (0,)]))), {}


@spec("roll")
def _roll(draw, n):
    x = array(draw, NUMERIC, min_dims=1)
    return (x, draw(st.integers(-5, 5))), {"axis": axis_of(draw, x.ndim)}


@spec("squeeze")
def _squeeze(draw, n):
    x = array(draw, NUMERIC, min_dims=1)[None]
    return (x,), {"axis": 0}


@spec("tile")
def _tile(draw, n):
    x = array(draw, NUMERIC)
    return (x, tuple(draw(st.lists(st.integers(0, 3), min_size=1, max_size=3)))), {}


@spec("unstack")
def _unstack(draw, n):
    x = array(draw, NUMERIC, min_dims=1)
    return (x,), {"axis": axis_of(draw, x.ndim, False)}


# linear algebra in the main namespace
@spec("matmul")
def _matmul(draw, n):
    dt = dtype_of(draw, NUMERIC)
    a, b, c = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    batch = (draw(st.integers(1, 2)),) if draw(st.booleans()) else ()
    return ((draw(hnp.arrays(dt, (*batch, a, b), elements=elements(dt))),
             draw(hnp.arrays(dt, (b, c), elements=elements(dt)))), {})


@spec("matrix_transpose")
def _mt(draw, n):
    return (matrix(draw, NUMERIC),), {}


@spec("tensordot")
def _tensordot(draw, n):
    dt = dtype_of(draw, NUMERIC)
    a, b, c = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    return ((draw(hnp.arrays(dt, (a, b), elements=elements(dt))),
             draw(hnp.arrays(dt, (b, c), elements=elements(dt)))),
            {"axes": draw(st.sampled_from([1, ([1], [0])]))})


@spec("vecdot")
def _vecdot(draw, n):
    x1, x2 = pair(draw, FLOAT + COMPLEX, scalar=False)
    if not (np.ndim(x1) and np.ndim(x2)):
        reject()
    x1, x2 = np.broadcast_arrays(x1, x2)
    return (np.ascontiguousarray(x1), np.ascontiguousarray(x2)), {"axis": -1}


# creation
def _shape(draw, max_dims=3):
    return tuple(draw(hnp.array_shapes(min_dims=0, max_dims=max_dims, min_side=0, max_side=4)))


def _opt_dtype(draw, dtypes=ALL):
    return draw(st.sampled_from([None, *(Dt(d) for d in dtypes)]))


@spec("arange")
def _arange(draw, n):
    start, stop = draw(st.integers(-10, 10)), draw(st.integers(-10, 10))
    step = draw(st.sampled_from([1, 2, -1, -3]))
    return (start, stop, step), {"dtype": _opt_dtype(draw, ("int64", "float64"))}


@spec("empty", "ones", "zeros")
def _filled(draw, n):
    return (_shape(draw),), {"dtype": _opt_dtype(draw)}


@spec("full")
def _full(draw, n):
    fill = draw(st.sampled_from([1.5, -2, True, 3]))
    kinds = {float: FLOAT, int: INT[:4] + FLOAT, bool: ("bool",)}[type(fill)]
    return (_shape(draw), fill), {"dtype": _opt_dtype(draw, kinds)}


@spec("eye")
def _eye(draw, n):
    return ((draw(st.integers(0, 4)), draw(st.sampled_from([None, 0, 2, 5]))),
            {"k": draw(st.integers(-3, 3)), "dtype": _opt_dtype(draw, REAL)})


@spec("linspace")
def _linspace(draw, n):
    return ((draw(st.integers(-10, 10)), draw(st.integers(-10, 10)), draw(st.integers(0, 6))),
            {"endpoint": draw(st.booleans()), "dtype": _opt_dtype(draw, FLOAT)})


@spec("from_dlpack")
def _dlpack(draw, n):
    return (array(draw, ALL),), {}


@spec("asarray")
def _asarray(draw, n):
    if draw(st.booleans()):
        return (array(draw, ALL),), {"copy": draw(st.sampled_from([None, True]))}
    values = draw(st.lists(st.floats(-10, 10, width=32), max_size=4))
    return (values,), {"dtype": _opt_dtype(draw, FLOAT)}


@spec("empty_like", "ones_like", "zeros_like")
def _like(draw, n):
    return (array(draw, ALL),), {"dtype": _opt_dtype(draw)}


@spec("full_like")
def _full_like(draw, n):
    return (array(draw, FLOAT), draw(st.sampled_from([0.5, -3.0]))), {}


@spec("meshgrid")
def _meshgrid(draw, n):
    dt = dtype_of(draw, NUMERIC)
    xs = [array(draw, dt=dt, min_dims=1, max_dims=1) for _ in range(draw(st.integers(1, 3)))]
    return xs, {"indexing": draw(st.sampled_from(["xy", "ij"]))}


@spec("tril", "triu")
def _tri(draw, n):
    return (matrix(draw, NUMERIC, min_side=0),), {"k": draw(st.integers(-3, 3))}


# data types and metadata
@spec("astype")
def _astype(draw, n):
    x = array(draw, REAL + ("bool",), lo=0, hi=100)
    return (x, Dt(draw(st.sampled_from(REAL + ("bool",))))), {"copy": draw(st.booleans())}


@spec("can_cast")
def _can_cast(draw, n):
    """Pairs the standard's promotion defines (one kind, or real to complex floating); across
    kinds interop answers by its own result_type (tests/test_array_api.py, every pair)."""
    kind = draw(st.sampled_from([INT, FLOAT + COMPLEX, ("bool",)]))
    return (Dt(draw(st.sampled_from(kind))), Dt(draw(st.sampled_from(kind)))), {}


@spec("result_type")
def _result_type(draw, n):
    kind = draw(st.sampled_from([INT, FLOAT + COMPLEX, ("bool",)]))
    args = [array(draw, kind, max_dims=1) if draw(st.booleans()) else Dt(draw(st.sampled_from(kind)))
            for _ in range(draw(st.integers(1, 3)))]
    if kind == INT and any((a.dtype if isinstance(a, np.ndarray) else np.dtype(a.name)).kind == "u"
                           for a in args):
        reject()  # uint64 with signed ints has no standard result
    return args, {}


@spec("finfo")
def _finfo(draw, n):
    return (Dt(draw(st.sampled_from(FLOAT + COMPLEX))),), {}


@spec("iinfo")
def _iinfo(draw, n):
    return (Dt(draw(st.sampled_from(INT))),), {}


@spec("isdtype")
def _isdtype(draw, n):
    kinds = ["bool", "signed integer", "unsigned integer", "integral", "real floating",
             "complex floating", "numeric"]
    return (Dt(draw(st.sampled_from(ALL))), draw(st.sampled_from(kinds))), {}


# the linalg extension
@spec("linalg.cholesky")
def _chol(draw, n):
    return (spd(draw),), {"upper": draw(st.booleans())}


@spec("linalg.cross")
def _cross(draw, n):
    dt = dtype_of(draw, REAL)
    shape = ((draw(st.integers(1, 3)),) if draw(st.booleans()) else ()) + (3,)
    return (draw(hnp.arrays(dt, shape, elements=elements(dt, -5, 5))),
            draw(hnp.arrays(dt, shape, elements=elements(dt, -5, 5)))), {}


@spec("linalg.det", "linalg.inv", "linalg.slogdet")
def _square(draw, n):
    return (square(draw),), {}


@spec("linalg.eigh", "linalg.eigvalsh")
def _eigh(draw, n):
    return (spd(draw),), {}


@spec("linalg.eig", "linalg.eigvals")
def _eig(draw, n):
    return (square(draw),), {}


@spec("linalg.diagonal", "linalg.trace")
def _diag(draw, n):
    return (matrix(draw, NUMERIC, min_side=0),), {"offset": draw(st.integers(-2, 2))}


@spec("linalg.matmul", "linalg.tensordot")
def _lmatmul(draw, n):
    return draw(S[n.split(".")[1]])


@spec("linalg.matrix_transpose")
def _lmt(draw, n):
    return (matrix(draw, NUMERIC),), {}


@spec("linalg.vecdot")
def _lvecdot(draw, n):
    return draw(S["vecdot"])


@spec("linalg.matrix_norm")
def _mnorm(draw, n):
    return (matrix(draw, FLOAT),), {"ord": draw(st.sampled_from(["fro", 1, -1, np.inf, -np.inf])),
                                    "keepdims": draw(st.booleans())}


@spec("linalg.matrix_power")
def _mpow(draw, n):
    return (square(draw), draw(st.integers(-2, 3))), {}


@spec("linalg.matrix_rank", "linalg.pinv", "linalg.svdvals")
def _rank(draw, n):
    return (matrix(draw, FLOAT),), {}


@spec("linalg.outer")
def _outer(draw, n):
    dt = dtype_of(draw, NUMERIC)
    return (array(draw, dt=dt, min_dims=1, max_dims=1), array(draw, dt=dt, min_dims=1, max_dims=1)), {}


@spec("linalg.qr", "linalg.svd")
def _qr(draw, n):
    return (square(draw, batch=False),), {}


@spec("linalg.solve")
def _solve(draw, n):
    a = square(draw)
    return (a, array(draw, dt=a.dtype, shape=a.shape)), {}


@spec("linalg.vector_norm")
def _vnorm(draw, n):
    x = array(draw, FLOAT)
    return (x,), {"axis": axes_of(draw, x.ndim), "keepdims": draw(st.booleans()),
                  "ord": draw(st.sampled_from([2, 1, np.inf, -np.inf, 3]))}


# the fft extension
@spec("fft.fft", "fft.ifft", "fft.fftn", "fft.ifftn")
def _cfft(draw, n):
    return (array(draw, COMPLEX, min_dims=1, min_side=1),), {"norm": draw(st.sampled_from(NORMS))}


@spec("fft.rfft", "fft.rfftn", "fft.ihfft")
def _rfft(draw, n):
    return (array(draw, FLOAT, min_dims=1, min_side=1),), {"norm": draw(st.sampled_from(NORMS))}


@spec("fft.irfft", "fft.irfftn", "fft.hfft")
def _irfft(draw, n):
    return (array(draw, COMPLEX, min_dims=1, min_side=2),), {}


@spec("fft.fftfreq", "fft.rfftfreq")
def _freq(draw, n):
    return (draw(st.integers(1, 8)),), {"d": draw(st.sampled_from([1.0, 0.5]))}


@spec("fft.fftshift", "fft.ifftshift")
def _shift_fft(draw, n):
    x = array(draw, FLOAT, min_dims=1)
    return (x,), {"axes": axes_of(draw, x.ndim)}


# ------------------------------------------------------------------ running and comparing
DASK_LACKS: set[str] = set()  # functions Dask's namespace lacks (none left)
ONE_CHUNK = ("linalg.",)  # Dask's linalg wants whole matrices in a chunk
SHAPE_ONLY = {"empty", "empty_like"}


def _arrays(args):
    for a in args:
        if isinstance(a, np.ndarray):
            yield a
        elif isinstance(a, list):
            yield from _arrays(a)


def _empty(args, kwargs=None):
    return any(a.size == 0 for a in _arrays(args))


def _batched(args, kwargs=None):
    return args[0].ndim > 2


# Cases Dask gets wrong (its errors or results, not interop's), skipped on Dask and listed in
# docs/array-api.md: zero-size inputs, batches of matrices.
DASK_LIMITS = {
    **{n: (_empty, "zero-size input") for n in (
        "nonzero", "reshape", "roll", "unique_all", "unique_counts",
        "unique_inverse", "unique_values", "linalg.vector_norm", "take")},
    "linalg.solve": (_batched, "only 2-D matrices"),
    "linalg.cholesky": (_batched, "only 2-D matrices"),
    **{n: (_batched, "only 2-D matrices (and reduced SVDs)") for n in (
        "linalg.svd", "linalg.svdvals", "linalg.matrix_rank")},
    "linalg.inv": (_batched, "only 2-D matrices"),
    "searchsorted": (_empty, "zero-size input"),
}
DASK_BROKEN: dict[str, str] = {}  # whole functions Dask gets wrong (none left)


def function(ns, name):
    for part in name.split("."):
        ns = getattr(ns, part)
    return ns


def convert(x, ns, backend, chunks):
    if isinstance(x, np.ndarray):
        if ns is strict:
            return strict.asarray(x)
        return interop.tensor(x, backend=backend,
                              **({"chunks": chunks(x)} if backend == "dask" else {}))
    if isinstance(x, Dt):
        return getattr(ns, x.name)
    if isinstance(x, list) and any(isinstance(v, np.ndarray) for v in x):
        return [convert(v, ns, backend, chunks) for v in x]
    return x


def host(x):
    """A strict or interop result as a NumPy array (or a plain value)."""
    if isinstance(x, StrictArray):
        return np.from_dlpack(x)
    if isinstance(x, interop.Tensor):
        return to_numpy(x)
    return x


def assert_same(got, exp, backend, name, shape_only=False):
    if isinstance(exp, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(exp), f"{name}: {got!r}"
        if hasattr(exp, "_fields"):
            assert getattr(got, "_fields", exp._fields) == exp._fields
        for g, e in zip(got, exp):
            assert_same(g, e, backend, name, shape_only)
        return
    if not isinstance(exp, StrictArray):
        if hasattr(exp, "bits"):  # finfo / iinfo objects
            for attr in ("bits", "max", "min") + (("eps", "smallest_normal") if hasattr(exp, "eps") else ()):
                assert getattr(got, attr) == getattr(exp, attr), f"{name}.{attr}"
        elif isinstance(exp, StrictDType):
            assert got == getattr(xp, str(exp).rpartition(".")[2]), f"{name}: {got} != {exp}"
        else:
            assert got == exp and type(got) is type(exp), f"{name}: {got!r} != {exp!r}"
        return
    assert isinstance(got, interop.Tensor), f"{name}: returned {type(got)}, not a tensor"
    assert got.backend == backend, f"{name}: result on {got.backend}, not {backend}"
    g, e = host(got), host(exp)
    assert g.dtype == e.dtype, f"{name}: dtype {g.dtype} != strict's {e.dtype}"
    assert g.shape == e.shape, f"{name}: shape {g.shape} != strict's {e.shape}"
    if shape_only:
        return
    if e.dtype.kind in "fc":
        single = e.dtype in (np.float32, np.complex64)
        np.testing.assert_allclose(g, e, rtol=1e-4 if single else 1e-9,
                                   atol=1e-3 if single else 1e-9, equal_nan=True, err_msg=name)
    else:
        np.testing.assert_array_equal(g, e, err_msg=name)


def _reconstruct(name, args, got, exp, backend):
    """QR, SVD and eigh are unique up to signs, eig up to order and scale: compare values that
    are, and reconstruct."""
    a = args[0]
    tol = dict(rtol=1e-3, atol=1e-3) if a.dtype == np.float32 else dict(rtol=1e-8, atol=1e-8)
    if name == "linalg.eigvals":
        got, exp = (got,), (exp,)
    parts = [host(p) for p in got]
    for p, e in zip(got, exp):
        assert isinstance(p, interop.Tensor) and p.backend == backend
        assert host(p).dtype == host(e).dtype and host(p).shape == host(e).shape
    if name == "linalg.qr":
        np.testing.assert_allclose(parts[0] @ parts[1], a, **tol)
    elif name == "linalg.eigvals":
        np.testing.assert_allclose(np.sort(parts[0], axis=-1), np.sort(host(exp[0]), axis=-1), **tol)
    elif name == "linalg.eig":
        w, v = parts
        np.testing.assert_allclose(a @ v, v * w[..., None, :], **tol)
    elif name == "linalg.svd":
        u, s, vh = parts
        np.testing.assert_allclose(s, host(exp[1]), **tol)
        np.testing.assert_allclose((u * s[..., None, :]) @ vh, a, **tol)
    else:
        w, v = parts
        np.testing.assert_allclose(w, host(exp[0]), **tol)
        np.testing.assert_allclose((v * w[..., None, :]) @ np.swapaxes(v, -1, -2), a, **tol)


def _strict_isin_inverted(s_args, exp):
    """array-api-strict 2.6 drops ``invert=`` (it calls np.isin without it): where its answer
    is the same either way, the standard's inverted one is its negation."""
    if np.array_equal(host(exp), host(strict.isin(*s_args, invert=False))):
        return strict.logical_not(exp)
    return exp


NAMES = sorted(S)


def test_table_covers_the_whole_namespace():
    functions = {n for n in xp.__all__ if callable(getattr(xp, n)) and n not in
                 ("__array_namespace_info__", *DTYPE_NAMES)}
    ours = functions | {f"linalg.{n}" for n in xp.linalg.__all__} | {f"fft.{n}" for n in xp.fft.__all__}
    assert ours - set(S) == set(), "functions without a conformance strategy"
    assert set(S) - ours == set()


DTYPE_NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
               "float32", "float64", "complex64", "complex128")


@pytest.fixture(autouse=True, scope="module")
def strict_2025_12():
    """The revision the namespace implements (array-api-strict's default, set explicitly)."""
    strict.set_array_api_strict_flags(api_version="2025.12")
    yield
    strict.reset_array_api_strict_flags()


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=max(5, settings().max_examples // 3))  # ~340 cases: keep CI in budget
@given(data=st.data())
def test_matches_array_api_strict(name, default_backend, data):
    backend = default_backend
    if backend == "dask" and name in DASK_BROKEN:
        pytest.skip(f"Dask: {DASK_BROKEN[name]}")
    args, kwargs = data.draw(S[name], label="call")
    chunks = (lambda x: -1) if name.startswith(ONE_CHUNK) else \
        (lambda x: (max(1, x.shape[0] // 2), *x.shape[1:]) if x.ndim > 1 else -1)
    s_args = [convert(a, strict, backend, chunks) for a in args]
    s_kwargs = {k: convert(v, strict, backend, chunks) for k, v in kwargs.items()}
    try:
        exp = function(strict, name)(*s_args, **s_kwargs)
    except (TypeError, ValueError, IndexError):
        reject()  # not a valid call by the standard's rules: nothing to compare
    if name == "isin" and kwargs["invert"]:
        exp = _strict_isin_inverted(s_args, exp)
    i_args = [convert(a, xp, backend, chunks) for a in args]
    i_kwargs = {k: convert(v, xp, backend, chunks) for k, v in kwargs.items()}
    if backend == "dask" and name in DASK_LIMITS and DASK_LIMITS[name][0](args, kwargs):
        reject()  # a documented Dask limitation (docs/array-api.md)
    if backend == "dask" and name in DASK_LACKS:
        with pytest.raises(TypeError, match="not implemented by the dask backend"):
            function(xp, name)(*i_args, **i_kwargs)
        return
    got = function(xp, name)(*i_args, **i_kwargs)
    if name in ("linalg.qr", "linalg.svd", "linalg.eigh", "linalg.eig", "linalg.eigvals"):
        _reconstruct(name, args, got, exp, backend)
    else:
        assert_same(got, exp, backend, name, shape_only=name in SHAPE_ONLY)
