"""The tensor as the standard's array object, against array-api-strict: every operator
(reflected and in-place too) for every pair of dtypes and with Python scalars, and the
standard's indexing rules for __getitem__/__setitem__.  Where torch's semantics (the
operators' surface) and the standard's disagree, strict refuses the call (cross-kind mixing,
int true division), so what both accept must agree in dtype and values."""

from __future__ import annotations

import itertools
import operator

import array_api_strict as strict
import numpy as np
import pytest

import interop
from tests.conftest import to_numpy

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64", "complex64", "complex128"]
BINARY = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and_", "or_", "xor",
          "lshift", "rshift", "lt", "le", "gt", "ge", "eq", "ne"]
INPLACE = ["iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "iand", "ior",
           "ixor", "ilshift", "irshift"]
SCALARS = (2, 2.5, True, 1j)
ORDERING = {"lt", "le", "gt", "ge"}
StrictArray = type(strict.asarray(0))


@pytest.fixture(autouse=True, scope="module")
def strict_2025_12():
    strict.set_array_api_strict_flags(api_version="2025.12")
    yield
    strict.reset_array_api_strict_flags()


def _values(dtype, n, lo):
    return (np.arange(n) % 3 + lo).astype(dtype)


def _same(got, exp, what):
    e = np.from_dlpack(exp)
    g = to_numpy(got)
    assert isinstance(got, interop.Tensor), what
    assert (g.dtype, g.shape) == (e.dtype, e.shape), f"{what}: {g.dtype}{g.shape} != {e.dtype}{e.shape}"
    np.testing.assert_allclose(g, e, err_msg=what)


def _operands(backend, names):
    """(dtype1, dtype2) pairs: all 169 on NumPy, same-kind neighbours on Dask (speed)."""
    pairs = itertools.product(DTYPES, DTYPES) if backend != "dask" else \
        [(a, b) for a, b in itertools.product(DTYPES, DTYPES) if abs(DTYPES.index(a) - DTYPES.index(b)) <= 1]
    return list(pairs)


@pytest.mark.parametrize("name", BINARY + INPLACE)
def test_binary_operators_match_strict(name, backend):
    f = getattr(operator, name)
    checked = 0
    for d1, d2 in _operands(backend, name):
        a, b = _values(d1, 6, 1), _values(d2, 6, 1)
        operands = [(b, b)] + [(s, s) for s in SCALARS]
        for ours, theirs in operands:
            if isinstance(theirs, complex) and name in ORDERING:
                continue  # outside the standard (no complex scalar there): torch's rule, raise
            try:
                exp = f(strict.asarray(a.copy()), strict.asarray(theirs.copy())
                        if isinstance(theirs, np.ndarray) else theirs)
            except (TypeError, ValueError, NotImplementedError):
                continue  # outside the standard: torch's rules apply there
            t = interop.tensor(a.copy(), backend=backend)
            other = interop.tensor(ours, backend=backend) if isinstance(ours, np.ndarray) else ours
            _same(f(t, other), exp, f"{name}({d1}, {d2 if isinstance(ours, np.ndarray) else ours!r})")
            checked += 1
    assert checked > 0


@pytest.mark.parametrize("name", ["add", "sub", "mul", "truediv", "pow", "and_", "lt", "eq"])
def test_reflected_operators_with_scalars(name, backend):
    f = getattr(operator, name)
    for d in DTYPES:
        a = _values(d, 4, 1)
        for s in SCALARS:
            if isinstance(s, complex) and name in ORDERING:
                continue  # outside the standard (no complex scalar there): torch's rule, raise
            try:
                exp = f(s, strict.asarray(a))
            except (TypeError, ValueError):
                continue
            _same(f(s, interop.tensor(a, backend=backend)), exp, f"{name}({s!r}, {d})")


@pytest.mark.parametrize("name", ["neg", "pos", "abs", "invert"])
def test_unary_operators_match_strict(name, backend):
    f = getattr(operator, name)
    for d in DTYPES:
        a = _values(d, 4, 0)
        try:
            exp = f(strict.asarray(a))
        except TypeError:
            continue
        _same(f(interop.tensor(a, backend=backend)), exp, f"{name}({d})")


A = np.arange(24).reshape(2, 3, 4)
INDICES = {
    "int, ...": (0, Ellipsis), "negative ints": (-1, -2, -3),
    "steps": (slice(None, None, -1), slice(0, 3, 2), Ellipsis),
    "ellipsis": (Ellipsis, 0), "newaxis": (None, 0, Ellipsis), "empty slice": (slice(2, 1), Ellipsis),
    "all ints": (1, 2, 3), "ellipsis only": Ellipsis, "boolean mask": "mask", "0-d int array": ("i0", 1, 2),
    "integer arrays": (0, "i1", "i2"),
}
_ARRAYS = {"mask": A % 2 == 0, "i0": np.asarray(1), "i1": np.asarray([2, 0]), "i2": np.asarray([1, 3])}


def _index(key, make):
    if isinstance(key, tuple):
        return tuple(_index(k, make) for k in key)
    return make(_ARRAYS[key]) if isinstance(key, str) else key


@pytest.mark.parametrize("what", INDICES)
def test_getitem_follows_the_standard(what, backend):
    key = INDICES[what]
    exp = strict.asarray(A)[_index(key, strict.asarray)]
    got = interop.tensor(A, backend=backend)[_index(key, lambda a: interop.tensor(a, backend=backend))]
    _same(got, exp, what)


@pytest.mark.parametrize("what", ["int, ...", "ellipsis", "steps", "boolean mask", "all ints"])
def test_setitem_follows_the_standard(what, backend):
    key = INDICES[what]
    s = strict.asarray(A.copy())
    s[_index(key, strict.asarray)] = 7
    t = interop.tensor(A.copy(), backend=backend)
    t[_index(key, lambda a: interop.tensor(a, backend=backend))] = 7
    _same(t, s, what)
