"""F.interpolate's bicubic mode and antialias=True against torch, on NumPy and Dask."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import interop
from tests.conftest import to_numpy

torch = pytest.importorskip("torch")
F = torch.nn.functional


def _on(x: np.ndarray, backend: str):
    if backend == "dask":
        return interop.tensor(x, backend="dask", chunks=(1, 2, 3, 3))
    return interop.tensor(x, backend=backend)


CASES = [dict(size=(9, 4), mode="bicubic"),
         dict(size=(3, 11), mode="bicubic", align_corners=True),
         dict(scale_factor=1.7, mode="bicubic"), dict(scale_factor=0.5, mode="bicubic"),
         dict(size=(3, 2), mode="bilinear", antialias=True),
         dict(size=(2, 3), mode="bicubic", antialias=True),
         dict(size=(3, 2), mode="bilinear", antialias=True, align_corners=True),
         dict(scale_factor=0.4, mode="bicubic", antialias=True),
         dict(size=(10, 12), mode="bilinear", antialias=True)]


@pytest.mark.parametrize("kwargs", CASES, ids=[str(sorted(c.items())) for c in CASES])
def test_matches_torch(kwargs, backend):
    x = np.random.default_rng(0).standard_normal((2, 3, 5, 7)).astype(np.float32)
    want = F.interpolate(torch.from_numpy(x), **kwargs).numpy()
    got = F.interpolate(_on(x, backend), **kwargs)
    assert isinstance(got, interop.Tensor) and got.backend == backend
    np.testing.assert_allclose(to_numpy(got), want, rtol=1e-5, atol=1e-5)


@given(h=st.integers(1, 9), w=st.integers(2, 9), oh=st.integers(1, 12), ow=st.integers(2, 12),
       mode=st.sampled_from(["bilinear", "bicubic"]), antialias=st.booleans(),
       align=st.booleans())
def test_any_size_matches_torch(h, w, oh, ow, mode, antialias, align):
    """(A width of 1, in or out, is left out: torch 2.13's antialiased CPU kernel then
    repeats the first row, ``(2, 1) -> (3, 1)`` of [1, 3] giving [1, 1, 1] and
    ``(2, 2) -> (3, 1)`` of [[1, 5], [3, 7]] giving [3, 3, 3]; interop interpolates.)"""
    x = np.random.default_rng(h * 13 + w).standard_normal((1, 2, h, w)).astype(np.float32)
    kwargs = dict(size=(oh, ow), mode=mode, antialias=antialias, align_corners=align)
    want = F.interpolate(torch.from_numpy(x), **kwargs).numpy()
    np.testing.assert_allclose(to_numpy(F.interpolate(interop.tensor(x), **kwargs)), want,
                               rtol=1e-4, atol=1e-5)


def test_antialias_is_refused_for_modes_without_a_filter():
    x = interop.tensor(np.ones((1, 1, 4, 4), np.float32))
    with pytest.raises(ValueError, match="anti-alias"):
        F.interpolate(x, size=(2, 2), mode="nearest", antialias=True)
    with pytest.raises(ValueError):
        F.interpolate(torch.ones(1, 1, 4, 4), size=(2, 2), mode="nearest", antialias=True)
