"""array-api-extra's functions on interop tensors vs the same calls on NumPy arrays."""

from __future__ import annotations

import pytest

from tests.helpers.array_api_consumers import assert_case

CASES = [
    "atleast_nd", "cov", "create_diagonal", "expand_dims", "kron", "nunique", "pad", "setdiff1d",
    "sinc", "isclose", "nan_to_num", "one_hot", "at.set", "at.add", "apply_where",
    "broadcast_shapes", "default_dtype",
]
DASK_LIMITS = {
    "setdiff1d": "needs known sizes (unique values are NaN-sized in Dask; raw Dask fails too)",
}


@pytest.mark.parametrize("case", CASES)
def test_array_api_extra_matches_numpy_run(case, backend):
    assert_case("extra", "array-api-extra", case, backend, DASK_LIMITS)
