"""Unknown sizes (NaN chunks after boolean masking or unique): what can proceed does and
matches NumPy; what cannot says to call compute_chunk_sizes(), after which it works."""

from __future__ import annotations

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy

pytest.importorskip("dask.array")

HOST = np.arange(24.0).reshape(4, 6) - 7.0
MASKED = HOST[HOST > 4]  # 12 values


@pytest.fixture
def masked() -> interop.Tensor:
    t = interop.tensor(HOST, backend="dask", chunks=(2, 3))
    m = t[t > 4]
    assert np.isnan(m.shape[0])
    return m


PROCEED = {
    "sum": (lambda m: m.sum(), lambda a: a.sum()),
    "mean": (lambda m: m.mean(), lambda a: a.mean()),
    "max": (lambda m: m.max(), lambda a: a.max()),
    "mul": (lambda m: m * 2, lambda a: a * 2),
    "add itself": (lambda m: m + m.abs(), lambda a: a + np.abs(a)),
    "cat": (lambda m: interop.cat([m, m]), lambda a: np.concatenate([a, a])),
    "unique": (lambda m: interop.unique(m % 5), lambda a: np.unique(a % 5)),
    "np.mean": (lambda m: np.mean(m), lambda a: np.mean(a)),
    "np.exp": (lambda m: np.exp(m / 10), lambda a: np.exp(a / 10)),
}


@pytest.mark.parametrize("name", PROCEED)
def test_what_can_proceed_does(masked, name):
    ours, ref = PROCEED[name]
    np.testing.assert_allclose(to_numpy(ours(masked)), ref(MASKED))


NEEDS_SIZES = {
    "len": (len, lambda a: len(a)),
    "reshape": (lambda m: m.reshape(2, -1), lambda a: a.reshape(2, -1)),
    "view": (lambda m: m.view(-1, 2), lambda a: a.reshape(-1, 2)),
    "unsqueeze": (lambda m: m.unsqueeze(0), lambda a: a[None]),
    "add known": (lambda m: m + interop.ones(len(MASKED), backend="dask"), lambda a: a + 1),
    "rechunk": (lambda m: m.rechunk(4), lambda a: a),
    "sort": (lambda m: interop.sort(m).values, lambda a: np.sort(a)),
    "index": (lambda m: m[2], lambda a: a[2]),
    "slice": (lambda m: m[1:5], lambda a: a[1:5]),
    "np.reshape": (lambda m: np.reshape(m, (2, -1)), lambda a: a.reshape(2, -1)),
}


@pytest.mark.parametrize("name", NEEDS_SIZES)
def test_what_cannot_says_compute_chunk_sizes_then_works(masked, name):
    ours, ref = NEEDS_SIZES[name]
    with pytest.raises(ValueError, match=r"compute_chunk_sizes\(\)"):
        ours(masked)
    same = masked.compute_chunk_sizes()
    assert masked.shape == (len(MASKED),) and same.shape == masked.shape  # updated in place
    np.testing.assert_allclose(to_numpy(ours(masked)), ref(MASKED))


def test_unknown_shape_error_is_torch_and_numpy_catchable(masked):
    with pytest.raises(interop.UnknownShapeError) as info:
        masked.reshape(2, -1)
    assert isinstance(info.value, RuntimeError) and isinstance(info.value, ValueError)
    assert "reshape" in str(info.value)


def test_compute_chunk_sizes_needs_a_dask_tensor():
    with pytest.raises(TypeError, match="Dask tensor"):
        interop.tensor(HOST).compute_chunk_sizes()
