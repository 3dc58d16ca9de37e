"""SciPy with SCIPY_ARRAY_API=1 (set before import, in a subprocess) on interop tensors vs NumPy."""

from __future__ import annotations

import pytest

from tests.array_api_consumers import assert_case

pytest.importorskip("scipy")

CASES = [
    "special.logsumexp", "special.softmax", "special.erf", "special.expit", "fft.fft", "fft.rfft",
    "fft.dct", "stats.zscore", "stats.moment", "stats.skew", "stats.kurtosis", "stats.gmean",
    "stats.variation", "stats.sem", "stats.pearsonr", "stats.ttest_1samp",
]
DASK_LIMITS = {
    "stats.ttest_1samp": "an intermediate SciPy builds from NumPy gets NaN sizes on Dask",
    "stats.variation": "x[mask] = y[mask]: Dask cannot assign values of unknown (NaN) size",
    "stats.pearsonr": "indexes a 0-d result in a way interop's Dask getitem refuses",
}


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_scipy_matches_numpy_run(case, backend):
    assert_case("scipy", "SciPy", case, backend, DASK_LIMITS)
