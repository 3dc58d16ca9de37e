"""The Array API special cases interop fixes for CuPy (``backends/cupy/standard.py``,
``fills.py``), checked where no GPU is needed: the fixes run on NumPy arrays, whose answers
already are the standard's (so a fix that broke an answer shows here), and through
``interop.array_api`` on the gpulike test backend, whose arrays write zeros by memset as
CuPy's do.  The values are the standard's special cases that failed on CuPy in the official
suite (array-api-tests, 2026-11-27)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import interop
from interop.backends.cupy import standard
from interop.backends.cupy.fills import negative_zero
from tests.conftest import to_numpy

inf, nan = math.inf, math.nan


def same(got, expected) -> None:
    """Equal values, NaNs where NaNs are, and the signs of zeros."""
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    for part in (np.real, np.imag) if got.dtype.kind == "c" else (lambda a: a,):
        g, e = part(got), part(expected)
        np.testing.assert_array_equal(np.isnan(g), np.isnan(e))
        keep = ~np.isnan(e)
        np.testing.assert_array_equal(g[keep], e[keep])
        np.testing.assert_array_equal(np.signbit(g[keep]), np.signbit(e[keep]))


def test_remainder_special_cases():
    x1 = np.array([0.0, -0.0, 0.0, -0.0, 1.5, 1.5, -1.5, -1.5, 5.0, -5.0, inf, 1.0, nan])
    x2 = np.array([-1.0, -1.0, 1.0, 1.0, inf, -inf, inf, -inf, 3.0, 3.0, 2.0, 0.0, 1.0])
    expected = np.array([-0.0, -0.0, 0.0, 0.0, 1.5, -inf, inf, -1.5, 2.0, 1.0, nan, nan, nan])
    with np.errstate(invalid="ignore"):
        same(standard.remainder(x1, x2), expected)
        same(standard.remainder(x1, x2), np.remainder(x1, x2))  # NumPy's are the standard's


def test_remainder_keeps_the_librarys_answer_elsewhere():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=50) * 10, rng.normal(size=50) * 3
    np.testing.assert_allclose(standard.remainder(a, b), np.remainder(a, b), rtol=1e-12)
    ints = rng.integers(-9, 9, 20), rng.integers(1, 5, 20)
    np.testing.assert_array_equal(standard.remainder(*ints), np.remainder(*ints))
    assert standard.remainder(a, 2.5).shape == (50,)


def test_complex_special_cases():
    with np.errstate(invalid="ignore"):
        same(standard.acosh(np.array([complex(0.0, nan)])),
             np.array([complex(nan, math.pi / 2)]))
        edges = np.array([complex(inf, nan), complex(-inf, nan), complex(nan, inf)])
        for fn in ("log", "log1p"):
            same(standard.FIXES[fn](edges), np.array([complex(inf, nan)] * 3))
        x = np.array([complex(0.0, inf), complex(-0.0, nan), complex(0.5, 1.0)])
        same(interop.array_api.tanh(interop.tensor(x)).raw,
             np.array([complex(0.0, nan), complex(-0.0, nan), np.tanh(complex(0.5, 1.0))]))


def test_fixes_give_the_librarys_answer_on_ordinary_values():
    x = np.array([0.3 + 0.2j, -1.5 + 2.0j, 4.0 - 1.0j])
    for name in ("acosh", "log", "log1p"):
        np.testing.assert_allclose(standard.FIXES[name](x), getattr(np, name.replace(
            "acosh", "arccosh"))(x), rtol=1e-12)
        real = np.array([1.5, 2.5])
        np.testing.assert_allclose(standard.FIXES[name](real), getattr(np, name.replace(
            "acosh", "arccosh"))(real), rtol=1e-12)


@pytest.mark.parametrize("name", ["sum", "prod"])
def test_reductions_cast_to_dtype_first(name):
    """prod(complex, dtype=int64) did not compile on CuPy; the standard casts first."""
    x = np.array([[1.5 + 2j, 2.0 - 1j], [3.0, 1.0 + 1j]])
    with pytest.warns(np.exceptions.ComplexWarning):
        expected = getattr(np, name)(x.astype(np.int64), axis=0)
    with pytest.warns(np.exceptions.ComplexWarning):
        got = standard.FIXES[name](x, axis=0, dtype=np.int64)
    same(got, expected)
    same(standard.FIXES[name](x, keepdims=True), getattr(np, name)(x, keepdims=True))


def test_negative_zero_is_told_apart():
    assert negative_zero(-0.0) and negative_zero(np.float32(-0.0)) and negative_zero(complex(0.0, -0.0))
    assert not negative_zero(0.0) and not negative_zero(0) and not negative_zero(-1.0)
    assert not negative_zero(np.array(-0.0))  # arrays are copied element by element already


def test_full_keeps_a_negative_zero():
    import array_api_compat.numpy as xp
    fixes = standard.creation_fixes(xp)
    same(fixes["full"]((2, 2), -0.0), np.full((2, 2), -0.0))
    same(fixes["full_like"](np.ones(3, np.float32), -0.0), np.full(3, -0.0, np.float32))
    same(fixes["full"](3, 2.5), np.full(3, 2.5))


@pytest.mark.parametrize("write", ["full", "full_like", "fill_", "setitem", "index_put",
                                   "xp.full", "xp.full_like", "xp.asarray", "tensor"])
def test_negative_zeros_survive_writes_on_a_memset_device(write):
    """gpulike's arrays write scalar zeros by memset, as CuPy's: interop's writes keep -0."""
    like = interop.tensor([1.0, 2.0, 3.0], backend="gpulike")
    t = interop.tensor([1.0, 2.0, 3.0], backend="gpulike")
    made = {"full": lambda: interop.full((3,), -0.0, backend="gpulike"),
            "full_like": lambda: interop.full_like(like, -0.0),
            "fill_": lambda: t.fill_(-0.0),
            "setitem": lambda: t.__setitem__(slice(None), -0.0) or t,
            "index_put": lambda: t.__setitem__(interop.tensor([0, 1, 2], backend="gpulike"),
                                               -0.0) or t,
            "xp.full": lambda: interop.array_api.full(3, -0.0, device=like.device),
            "xp.full_like": lambda: interop.array_api.full_like(like, -0.0),
            "xp.asarray": lambda: interop.array_api.asarray(-0.0, device=like.device),
            "tensor": lambda: interop.tensor(-0.0, backend="gpulike")}[write]()
    assert np.signbit(to_numpy(made)).all(), write
