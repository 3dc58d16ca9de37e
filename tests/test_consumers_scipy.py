"""SciPy with SCIPY_ARRAY_API=1 (set before import, in a subprocess) on interop tensors vs NumPy;
on Dask, vs raw Dask too: Dask-backed results and no more computes where raw Dask has none."""

from __future__ import annotations

import pytest

from tests.helpers.array_api_consumers import assert_case
from tests.helpers.upstream_features import scipy_stats_reads_nan_checks_of_unknown_lazy_arrays

pytest.importorskip("scipy")

CASES = [
    "special.logsumexp", "special.softmax", "special.erf", "special.expit", "fft.fft", "fft.rfft",
    "fft.dct", "stats.zscore", "stats.moment", "stats.skew", "stats.kurtosis", "stats.gmean",
    "stats.variation", "stats.sem", "stats.pearsonr", "stats.ttest_1samp", "stats.tmean",
    "special.rel_entr",
]
NUMPY_FALLBACK = ("SciPy runs its NumPy implementation on np.asarray(x) for array namespaces it "
                  "does not know, and hands the result back with xp.asarray")
DASK_LIMITS = {
    "stats.tmean": "SciPy skips its NaN checks for Dask's own namespace only; for one it "
                   "does not know, it reads any() of the lazy checks: one compute",
} if scipy_stats_reads_nan_checks_of_unknown_lazy_arrays() else {}
DEVICE_LIMITS = {  # off the host (CuPy on a GPU, the gpulike test device)
    "fft.dct": f"{NUMPY_FALLBACK}: np.asarray of a GPU tensor is refused (no implicit copy)",
}


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_scipy_matches_numpy_run(case, backend):
    assert_case("scipy", "SciPy", case, backend, DASK_LIMITS, DEVICE_LIMITS)


FILTERS = [
    "signal.convolve", "signal.correlate", "signal.lfilter", "signal.filtfilt", "signal.sosfilt",
    "signal.savgol_filter", "signal.detrend", "signal.medfilt", "signal.resample_poly",
    "signal.upfirdn", "ndimage.gaussian_filter", "ndimage.uniform_filter",
    "ndimage.median_filter", "ndimage.sobel", "ndimage.zoom", "ndimage.shift", "ndimage.label",
    "ndimage.binary_opening", "ndimage.distance_transform_edt", "ndimage.sum_labels",
]
NOT_CUPY = ("SciPy delegates to cupyx.scipy only for CuPy's own namespace and runs NumPy "
            "(np.asarray) for any other; interop refuses that implicit copy from the device "
            "(docs/consumers.md)")


@pytest.mark.slow
@pytest.mark.parametrize("case", FILTERS)
def test_scipy_filters_stay_on_the_backend(case, backend):
    """SciPy computes on NumPy and brings the result back with ``xp.asarray``: the input's
    namespace puts it on the input's backend (Dask stays Dask, computing as raw Dask does)."""
    assert_case("scipy_filters", "SciPy", case, backend, {}, dict.fromkeys(FILTERS, NOT_CUPY))


def test_compute_under_raise_names_the_scipy_function():
    """SciPy computes a Dask tensor's values for its compiled code; under
    ``dask_compute='raise'`` the error names the SciPy function and the ways out."""
    import numpy as np
    import scipy.ndimage

    import interop
    from interop.errors import DaskComputeError
    t = interop.tensor(np.arange(10.0), backend="dask")
    with interop.config(dask_compute="raise"), pytest.raises(
            DaskComputeError, match=r"^scipy\.ndimage\.\w+\.gaussian_filter reads the values .*"
                                    r"t\.compute\(\).*t\.to\(backend='numpy'\)"):
        scipy.ndimage.gaussian_filter(t, 1.0)
