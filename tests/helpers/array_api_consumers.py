"""Consumers of the Array API run on interop tensors and on plain NumPy, in a fresh process.

SciPy reads ``SCIPY_ARRAY_API`` when it is first imported, and scikit-learn's
``array_api_dispatch`` needs it too, so the cases run in a subprocess:
``python -m tests.helpers.array_api_consumers <consumer> <backend>`` prints one JSON
line per case: whether the call ran, whether the result has the type of the
NumPy run (tensors on ``backend`` where NumPy gave arrays, the same Python
type otherwise) and whether the values equal the NumPy run's.  On Dask the
inputs are Dask tensors with NumPy left the default backend, and the same
call runs on raw Dask arrays (array-api-compat's namespace) too: where raw
Dask returns a Dask array, the tensor result must be Dask-backed, and where
raw Dask computes nothing (counted with a Dask callback), neither may
interop.  ``python -m tests.helpers.array_api_consumers table sklearn scipy extra``
prints the per-case table.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any

os.environ["SCIPY_ARRAY_API"] = "1"

import numpy as np  # noqa: E402

import interop  # noqa: E402
from interop.backends import backend_of  # noqa: E402
from tests.conftest import to_numpy  # noqa: E402

RNG = np.random.default_rng(0)
X = RNG.normal(size=(40, 5))
Y = X @ np.array([1.0, -2.0, 0.5, 0.0, 3.0]) + 0.1 * RNG.normal(size=40)
YC = (X[:, 0] > 0).astype(np.int64) + (X[:, 1] > 0)
P = np.abs(X) + 0.1
PROBA = np.exp(X[:, :3]) / np.exp(X[:, :3]).sum(axis=1, keepdims=True)


def sklearn_cases() -> dict[str, Callable]:
    from sklearn import config_context, metrics
    from sklearn.decomposition import PCA
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.kernel_approximation import Nystroem
    from sklearn.linear_model import Ridge, RidgeClassifier, RidgeCV
    from sklearn.metrics import pairwise
    from sklearn.mixture import GaussianMixture
    from sklearn.model_selection import train_test_split
    from sklearn.naive_bayes import GaussianNB
    from sklearn.preprocessing import (
        Binarizer,
        KernelCenterer,
        LabelEncoder,
        MaxAbsScaler,
        MinMaxScaler,
        Normalizer,
        PolynomialFeatures,
        StandardScaler,
    )

    def dispatch(f: Callable) -> Callable:
        def run(*a: Any) -> Any:
            with config_context(array_api_dispatch=True):
                return f(*a)
        return run

    cases = {
        "PCA(svd_solver='full')": lambda x, y, yc, p, pr: PCA(2, svd_solver="full").fit(x).transform(x),
        "PCA(svd_solver='covariance_eigh')": lambda x, y, yc, p, pr: PCA(2, svd_solver="covariance_eigh").fit_transform(x),
        "LinearDiscriminantAnalysis": lambda x, y, yc, p, pr: LinearDiscriminantAnalysis().fit(x, yc).predict_proba(x),
        "Ridge(solver='svd')": lambda x, y, yc, p, pr: Ridge(solver="svd").fit(x, y).predict(x),
        "RidgeCV": lambda x, y, yc, p, pr: RidgeCV().fit(x, y).predict(x),
        "RidgeClassifier(solver='svd')": lambda x, y, yc, p, pr: RidgeClassifier(solver="svd").fit(x, yc).decision_function(x),
        "GaussianNB": lambda x, y, yc, p, pr: GaussianNB().fit(x, yc).predict_proba(x),
        "GaussianMixture": lambda x, y, yc, p, pr: GaussianMixture(2, random_state=0, init_params="random_from_data").fit(x).predict_proba(x),
        "Nystroem": lambda x, y, yc, p, pr: Nystroem(n_components=10, random_state=0).fit_transform(x),
        "StandardScaler": lambda x, y, yc, p, pr: StandardScaler().fit_transform(x),
        "MinMaxScaler": lambda x, y, yc, p, pr: MinMaxScaler().fit_transform(x),
        "MaxAbsScaler": lambda x, y, yc, p, pr: MaxAbsScaler().fit_transform(x),
        "Normalizer": lambda x, y, yc, p, pr: Normalizer().fit_transform(x),
        "Binarizer": lambda x, y, yc, p, pr: Binarizer().fit_transform(x),
        "KernelCenterer": lambda x, y, yc, p, pr: KernelCenterer().fit_transform(x @ x.T),
        "PolynomialFeatures": lambda x, y, yc, p, pr: PolynomialFeatures(2).fit_transform(x),
        "r2_score": lambda x, y, yc, p, pr: metrics.r2_score(y, x[:, 0]),
        "mean_squared_error": lambda x, y, yc, p, pr: metrics.mean_squared_error(y, x[:, 0]),
        "mean_absolute_error": lambda x, y, yc, p, pr: metrics.mean_absolute_error(y, x[:, 0]),
        "explained_variance_score": lambda x, y, yc, p, pr: metrics.explained_variance_score(y, x[:, 0]),
        "mean_poisson_deviance": lambda x, y, yc, p, pr: metrics.mean_poisson_deviance(p[:, 0], p[:, 1]),
        "accuracy_score": lambda x, y, yc, p, pr: metrics.accuracy_score(yc, yc[::-1]),
        "confusion_matrix": lambda x, y, yc, p, pr: metrics.confusion_matrix(yc, yc[::-1]),
        "f1_score(average='macro')": lambda x, y, yc, p, pr: metrics.f1_score(yc, yc[::-1], average="macro"),
        "log_loss": lambda x, y, yc, p, pr: metrics.log_loss(yc, pr),
        "zero_one_loss": lambda x, y, yc, p, pr: metrics.zero_one_loss(yc, yc[::-1]),
        "euclidean_distances": lambda x, y, yc, p, pr: pairwise.euclidean_distances(x),
        "cosine_similarity": lambda x, y, yc, p, pr: pairwise.cosine_similarity(x),
        "rbf_kernel": lambda x, y, yc, p, pr: pairwise.rbf_kernel(x),
        "polynomial_kernel": lambda x, y, yc, p, pr: pairwise.polynomial_kernel(x),
        "chi2_kernel": lambda x, y, yc, p, pr: pairwise.chi2_kernel(p),
        "additive_chi2_kernel": lambda x, y, yc, p, pr: pairwise.additive_chi2_kernel(p),
        "linear_kernel": lambda x, y, yc, p, pr: pairwise.linear_kernel(x),
        "sigmoid_kernel": lambda x, y, yc, p, pr: pairwise.sigmoid_kernel(x),
        "cosine_distances": lambda x, y, yc, p, pr: pairwise.cosine_distances(x),
        "paired_euclidean_distances": lambda x, y, yc, p, pr: pairwise.paired_euclidean_distances(x, x[::-1]),
        "paired_cosine_distances": lambda x, y, yc, p, pr: pairwise.paired_cosine_distances(x, x[::-1]),
        "mean_absolute_percentage_error": lambda x, y, yc, p, pr: metrics.mean_absolute_percentage_error(p[:, 0], p[:, 1]),
        "mean_squared_log_error": lambda x, y, yc, p, pr: metrics.mean_squared_log_error(p[:, 0], p[:, 1]),
        "mean_gamma_deviance": lambda x, y, yc, p, pr: metrics.mean_gamma_deviance(p[:, 0], p[:, 1]),
        "mean_tweedie_deviance(power=1.5)": lambda x, y, yc, p, pr: metrics.mean_tweedie_deviance(p[:, 0], p[:, 1], power=1.5),
        "d2_tweedie_score": lambda x, y, yc, p, pr: metrics.d2_tweedie_score(p[:, 0], p[:, 1]),
        "mean_pinball_loss": lambda x, y, yc, p, pr: metrics.mean_pinball_loss(y, x[:, 0]),
        "max_error": lambda x, y, yc, p, pr: metrics.max_error(y, x[:, 0]),
        "precision_score(average='macro')": lambda x, y, yc, p, pr: metrics.precision_score(yc, yc[::-1], average="macro"),
        "recall_score(average='macro')": lambda x, y, yc, p, pr: metrics.recall_score(yc, yc[::-1], average="macro"),
        "jaccard_score(average='macro')": lambda x, y, yc, p, pr: metrics.jaccard_score(yc, yc[::-1], average="macro"),
        "hamming_loss": lambda x, y, yc, p, pr: metrics.hamming_loss(yc, yc[::-1]),
        "multilabel_confusion_matrix": lambda x, y, yc, p, pr: metrics.multilabel_confusion_matrix(yc, yc[::-1]),
        "LabelEncoder": lambda x, y, yc, p, pr: LabelEncoder().fit_transform(yc[::-1]),
        "train_test_split": lambda x, y, yc, p, pr: train_test_split(x, shuffle=False)[1],
    }
    return {k: dispatch(f) for k, f in cases.items()}


def scipy_cases() -> dict[str, Callable]:
    import scipy.fft
    import scipy.special
    import scipy.stats
    return {
        "special.logsumexp": lambda x, *_: scipy.special.logsumexp(x, axis=0),
        "special.softmax": lambda x, *_: scipy.special.softmax(x, axis=1),
        "special.erf": lambda x, *_: scipy.special.erf(x),
        "special.expit": lambda x, *_: scipy.special.expit(x),
        "fft.fft": lambda x, *_: scipy.fft.fft(x, axis=0),
        "fft.rfft": lambda x, *_: scipy.fft.rfft(x, axis=0),
        "fft.dct": lambda x, *_: scipy.fft.dct(x, axis=0),
        "stats.zscore": lambda x, *_: scipy.stats.zscore(x, axis=0),
        "stats.moment": lambda x, *_: scipy.stats.moment(x, order=3, axis=0),
        "stats.skew": lambda x, *_: scipy.stats.skew(x, axis=0),
        "stats.kurtosis": lambda x, *_: scipy.stats.kurtosis(x, axis=0),
        "stats.gmean": lambda x, y, yc, p, pr: scipy.stats.gmean(p, axis=0),
        "stats.variation": lambda x, *_: scipy.stats.variation(x, axis=0),
        "stats.sem": lambda x, *_: scipy.stats.sem(x, axis=0),
        "stats.pearsonr": lambda x, *_: scipy.stats.pearsonr(x[:, 0], x[:, 1]).statistic,
        "stats.ttest_1samp": lambda x, *_: scipy.stats.ttest_1samp(x, 0.0, axis=0).statistic,
        "stats.tmean": lambda x, *_: scipy.stats.tmean(x, (-1.0, 1.0)),
        "special.rel_entr": lambda x, y, yc, p, pr: scipy.special.rel_entr(p[:, 0], p[:, 1]),
    }


def scipy_filters_cases() -> dict[str, Callable]:
    """SciPy's signal and ndimage functions: compiled code run on NumPy (``np.asarray`` of the
    input), the result brought back with the input's namespace's ``xp.asarray``."""
    import scipy.ndimage as nd
    import scipy.signal as ss
    b, a, sos = np.array([0.2, 0.3, 0.5]), np.array([1.0, -0.3]), ss.butter(2, 0.2, output="sos")

    def like(x: Any, v: np.ndarray) -> Any:  # coefficients in the input's namespace
        import array_api_compat
        return array_api_compat.array_namespace(x).asarray(v)
    return {
        "signal.convolve": lambda x, y, *_: ss.convolve(y, like(y, b)),
        "signal.correlate": lambda x, y, *_: ss.correlate(y, like(y, b)),
        "signal.lfilter": lambda x, y, *_: ss.lfilter(like(y, b), like(y, a), y),
        "signal.filtfilt": lambda x, y, *_: ss.filtfilt(like(y, b), like(y, a), y),
        "signal.sosfilt": lambda x, y, *_: ss.sosfilt(like(y, sos), y),
        "signal.savgol_filter": lambda x, y, *_: ss.savgol_filter(y, 7, 2),
        "signal.detrend": lambda x, y, *_: ss.detrend(y),
        "signal.medfilt": lambda x, y, *_: ss.medfilt(y, 5),
        "signal.resample_poly": lambda x, y, *_: ss.resample_poly(y, 2, 3),
        "signal.upfirdn": lambda x, y, *_: ss.upfirdn(like(y, b), y, 2),
        "ndimage.gaussian_filter": lambda x, *_: nd.gaussian_filter(x, 1.5),
        "ndimage.uniform_filter": lambda x, *_: nd.uniform_filter(x, 3),
        "ndimage.median_filter": lambda x, *_: nd.median_filter(x, 3),
        "ndimage.sobel": lambda x, *_: nd.sobel(x),
        "ndimage.zoom": lambda x, *_: nd.zoom(x, 2),
        "ndimage.shift": lambda x, *_: nd.shift(x, 1.5),
        "ndimage.label": lambda x, *_: nd.label(x > 0.5)[0],
        "ndimage.binary_opening": lambda x, *_: nd.binary_opening(x > 0.5),
        "ndimage.distance_transform_edt": lambda x, *_: nd.distance_transform_edt(x > 0.5),
        "ndimage.sum_labels": lambda x, *_: nd.sum_labels(x, nd.label(x > 0.5)[0],
                                                          like(x, np.arange(1, 4))),
    }


def extra_cases() -> dict[str, Callable]:
    import array_api_extra as xpx
    return {
        "atleast_nd": lambda x, *_: xpx.atleast_nd(x[0], ndim=3),
        "cov": lambda x, *_: xpx.cov(x.T),
        "create_diagonal": lambda x, *_: xpx.create_diagonal(x[0]),
        "expand_dims": lambda x, *_: xpx.expand_dims(x, axis=(0, 2)),
        "kron": lambda x, *_: xpx.kron(x[:2, :2], x[2:4, :2]),
        "nunique": lambda x, y, yc, *_: xpx.nunique(yc),
        "pad": lambda x, *_: xpx.pad(x, 1),
        "setdiff1d": lambda x, y, yc, *_: xpx.setdiff1d(yc, yc[:3]),
        "sinc": lambda x, *_: xpx.sinc(x),
        "isclose": lambda x, *_: xpx.isclose(x, x + 1e-12),
        "nan_to_num": lambda x, *_: xpx.nan_to_num(x / 0.0),
        "one_hot": lambda x, y, yc, *_: xpx.one_hot(yc, 3),
        "at.set": lambda x, *_: xpx.at(x)[0, :].set(0.0),
        "at.add": lambda x, *_: xpx.at(x)[:, 1].add(1.0),
        "apply_where": lambda x, *_: xpx.apply_where(x > 0, x, lambda v: v ** 0.5, fill_value=0.0),
        "broadcast_shapes": lambda x, *_: xpx.broadcast_shapes(x.shape, (1, 5)),
        "default_dtype": lambda x, *_: str(xpx.default_dtype(x.__array_namespace__())),
    }


def xarray_cases() -> dict[str, Callable]:
    """tests/test_consumers_xarray.py's operations on a DataArray over the first 3 x 4 values
    of ``X``: its ``.data``, a tensor on the input's backend where NumPy gives an array."""
    from tests.test_consumers_xarray import OPERATIONS, _array

    def case(operation: Callable) -> Callable:
        return lambda x, y, yc, p, pr: operation(_array(x[:3, :4])).data
    return {name: case(operation) for name, operation in OPERATIONS.items()}


DEFAULT_FLOAT = {"one_hot"}
"""Cases whose result has the default real floating dtype of the inputs' namespace and
device (array-api-extra documents ``one_hot``'s default as ``default_dtype(xp, device)``:
NumPy's float64, torch's float32, as raw torch tensors give), not the NumPy run's."""

CONSUMERS = {"sklearn": sklearn_cases, "scipy": scipy_cases, "extra": extra_cases,
             "scipy_filters": scipy_filters_cases,
             "xarray": xarray_cases}


def run_cases(consumer: str, backend: str) -> dict[str, dict[str, Any]]:
    """The results of ``consumer``'s cases on ``backend``, from a fresh interpreter."""
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.run([sys.executable, "-m", "tests.helpers.array_api_consumers", consumer, backend],
                          cwd=root, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "SCIPY_ARRAY_API": "1"})
    if proc.returncode:
        raise RuntimeError(f"the {consumer} cases crashed on {backend}:\n{proc.stderr[-3000:]}")
    return {r["case"]: r for r in map(json.loads, proc.stdout.splitlines())}


def verdict(result: dict[str, Any]) -> str:
    """'' when the case matched the NumPy run (and, on Dask, raw Dask's laziness), else why not."""
    if not result["ran"]:
        return f"raised {result['error']} ({result['where']})"
    if not result["typed"]:
        return f"returned {result['what']} where {result['expected']} was expected"
    if not result["same"]:
        return f"values differ from the NumPy run ({result['what']})"
    raw = result.get("raw")
    if raw and raw["ran"] and raw["computes"] == 0 and result["computes"] \
            and not result.get("lazy_under_raise"):
        return f"computed {result['computes']} time(s) where raw Dask computes none"
    return ""


_RESULTS: dict[tuple[str, str], dict] = {}  # (consumer, backend) -> the subprocess's results


def assert_case(consumer: str, label: str, case: str, backend: str, dask_limits: dict,
                device_limits: dict | None = None) -> None:
    """The case matches the NumPy run; on Dask, where raw Dask (array-api-compat's namespace)
    runs it, interop's Dask tensors give what it gives (Dask-backed results, as lazily); a
    listed limit (``dask_limits`` on Dask, ``device_limits`` off the host: CuPy, gpulike)
    must still be one (xfail).

    The consumer's cases run once per backend, in one subprocess, on first use."""
    import pytest

    from tests.conftest import off_host
    if (consumer, backend) not in _RESULTS:
        _RESULTS[consumer, backend] = run_cases(consumer, backend)
    result = _RESULTS[consumer, backend][case]
    problem = verdict(result)
    limits = dask_limits if backend == "dask" else (device_limits or {}) if off_host(backend) \
        else {}
    if case in limits:
        assert problem, f"{label} {case} now works on {backend}: update its list of limits"
        pytest.xfail(f"{backend}: {limits[case]} ({problem[:160]})")
    assert not problem, f"{label} {case} on {backend}: {problem}"


def host(x: Any) -> Any:
    """A result's values on the host: a tensor's or a backend's raw array through its backend
    (copied from a device, computed on Dask), anything else as NumPy reads it."""
    if isinstance(x, interop.Tensor) or backend_of(x) is not None:
        return to_numpy(x)
    return np.asarray(x)


def kind(x: Any) -> str:
    """What a result is: its backend's name ('numpy', 'dask', 'cupy', ...; tensor or raw
    array), else its type's name."""
    if isinstance(x, interop.Tensor):
        return x.backend
    be = backend_of(x)
    return be.name if be is not None else type(x).__name__


class Computes:
    """Counts the Dask graphs computed inside the block (a Dask callback)."""

    def __enter__(self) -> Computes:
        from dask.callbacks import Callback
        self.count = 0
        self._callback = Callback(start=self._started)
        self._callback.__enter__()
        return self

    def _started(self, dsk: Any) -> None:
        self.count += 1

    def __exit__(self, *exc: Any) -> None:
        self._callback.__exit__(*exc)


def call(f: Callable, args: tuple, lazy: bool) -> tuple[Any, int, dict | None]:
    """``f(*args)``, the computes it ran (Dask), and the error it raised if any."""
    counter = Computes() if lazy else None
    try:
        if counter is None:
            return f(*args), 0, None
        with counter:
            out = f(*args)
        return out, counter.count, None
    except Exception as exc:  # noqa: BLE001 - reported, the test decides
        return None, counter.count if counter else 0, {
            "ran": False, "error": f"{type(exc).__name__}: {exc}"[:400],
            "where": traceback.format_exc().splitlines()[-3].strip()[:200]}


def inputs(backend: str) -> tuple:
    chunks = {"chunks": (20, -1)} if backend == "dask" else {}
    return tuple(interop.tensor(a, backend=backend, **(chunks if a.ndim == 2 else {}))
                 for a in (X, Y, YC, P, PROBA))


def raw_dask_inputs() -> tuple:
    """The same inputs as raw Dask arrays, which consumers see through array-api-compat."""
    import dask.array as da
    return tuple(da.from_array(a, chunks=(20, -1) if a.ndim == 2 else -1)
                 for a in (X, Y, YC, P, PROBA))


def compare(expected: Any, got: Any) -> bool:
    g = host(got)
    if isinstance(expected, np.ndarray):
        return g.dtype == expected.dtype and g.shape == expected.shape and bool(
            np.allclose(g, expected, rtol=1e-7, atol=1e-9, equal_nan=True))
    return bool(np.allclose(g, expected)) if not isinstance(expected, str) else bool(g == expected)


def check(name: str, f: Callable, backend: str) -> dict[str, Any]:
    """Run ``f`` on NumPy arrays and on tensors (and, for Dask, on raw Dask arrays); compare
    type, dtype, values and, on Dask, the computes run while calling ``f``."""
    expected = f(*(a.copy() for a in (X, Y, YC, P, PROBA)))  # copies: at() may write in place
    if name in DEFAULT_FLOAT:
        info = interop.array_api.__array_namespace_info__()
        device = inputs(backend)[0].device
        expected = expected.astype(interop.dtypes.as_dtype(
            info.default_dtypes(device=device)["real floating"]))
    lazy = backend == "dask"
    raw = None
    want = backend if isinstance(expected, np.ndarray) else type(expected).__name__
    if lazy:
        got_raw, computes, error = call(f, raw_dask_inputs(), lazy)
        raw = error or {"ran": True, "what": kind(got_raw), "computes": computes,
                        "same": compare(expected, got_raw)}
        if not error and raw["what"] == "dask":
            want = "dask"  # where raw Dask stays Dask, interop's Dask tensors must too
    got, computes, error = call(f, inputs(backend), lazy)
    if error:
        return {"case": name, **error, "raw": raw}
    result = {"case": name, "ran": True, "typed": matches(got, want, expected),
              "same": compare(expected, got), "what": kind(got), "expected": want,
              "computes": computes, "raw": raw}
    if computes and raw and raw["ran"] and raw["computes"] == 0:
        result["lazy_under_raise"] = lazy_under_raise(f, expected, want)
    return result


def matches(got: Any, want: str, expected: Any) -> bool:
    """``got`` is what the NumPy run (or raw Dask, for 'dask') says it should be."""
    return kind(got) == want or (want != "dask" and isinstance(got, interop.Tensor) and
                                 (got.ndim == 0 or isinstance(expected, np.ndarray)))


def lazy_under_raise(f: Callable, expected: Any, want: str) -> bool:
    """True if ``f`` runs with no compute when implicit value reads raise.

    array-api-compat's ``is_lazy_array`` knows raw Dask by its class; for other
    arrays it calls ``bool()`` on one element, which computes a Dask tensor
    under ``dask_compute='allow'`` and raises under ``'raise'`` (as the standard
    lets lazy arrays do), so consumers take their lazy paths then.
    """
    with interop.config(dask_compute="raise"):
        got, computes, error = call(f, inputs("dask"), True)
    return not error and computes == 0 and matches(got, want, expected) and compare(expected, got)


def main(consumer: str, backend: str) -> None:
    # The default backend stays NumPy: results must follow their inputs' backend, as Array
    # API consumers create them with xp.zeros(..., device=x.device).
    for name, f in CONSUMERS[consumer]().items():
        print(json.dumps(check(name, f, backend)), flush=True)


def table(consumer: str) -> str:
    """The Markdown rows of the per-case Dask table for ``consumer``."""
    rows = []
    for name, r in run_cases(consumer, "dask").items():
        raw = r["raw"] or {}
        raw_text = (f"{raw['what']}, {raw['computes']} computes" if raw.get("ran")
                    else f"raises {raw.get('error', '?').split(':')[0]}")
        ours = (f"{r['what']}, {r['computes']} computes" if r["ran"]
                else f"raises {r['error'].split(':')[0]}")
        lazy = "yes" if r["ran"] and r["computes"] == 0 else \
            "under dask_compute='raise'" if r.get("lazy_under_raise") else "no"
        ok = verdict(r)
        rows.append(f"| {consumer} | `{name}` | {raw_text} | {ours} | {lazy} | "
                    f"{'ok' if not ok else ok[:90]} |")
    return "\n".join(rows)


if __name__ == "__main__":
    import warnings
    warnings.simplefilter("ignore")
    if sys.argv[1] == "table":
        print("| consumer | case | raw Dask | interop on Dask | lazy? | verdict |")
        print("|---|---|---|---|---|---|")
        for c in sys.argv[2:]:
            print(table(c))
    else:
        main(*sys.argv[1:3])
