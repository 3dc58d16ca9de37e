"""scikit-learn with array_api_dispatch=True on interop tensors vs the same code on NumPy."""

from __future__ import annotations

import pytest

from tests.helpers.array_api_consumers import assert_case

pytest.importorskip("sklearn")
pytest.importorskip("scipy")

CASES = [
    "PCA(svd_solver='full')", "PCA(svd_solver='covariance_eigh')", "LinearDiscriminantAnalysis",
    "Ridge(solver='svd')", "RidgeCV", "RidgeClassifier(solver='svd')", "GaussianNB",
    "GaussianMixture", "Nystroem", "StandardScaler", "MinMaxScaler", "MaxAbsScaler", "Normalizer",
    "Binarizer", "KernelCenterer", "PolynomialFeatures", "r2_score", "mean_squared_error",
    "mean_absolute_error", "explained_variance_score", "mean_poisson_deviance", "accuracy_score",
    "confusion_matrix", "f1_score(average='macro')", "log_loss", "zero_one_loss",
    "euclidean_distances", "cosine_similarity", "rbf_kernel", "polynomial_kernel", "chi2_kernel",
    "additive_chi2_kernel", "linear_kernel", "sigmoid_kernel", "cosine_distances",
    "paired_euclidean_distances", "paired_cosine_distances", "mean_absolute_percentage_error",
    "mean_squared_log_error", "mean_gamma_deviance", "mean_tweedie_deviance(power=1.5)",
    "d2_tweedie_score", "mean_pinball_loss", "max_error", "precision_score(average='macro')",
    "recall_score(average='macro')", "jaccard_score(average='macro')", "hamming_loss",
    "multilabel_confusion_matrix", "LabelEncoder", "train_test_split",
]

UNKNOWN_SIZES = "data-dependent sizes (unique labels, boolean masks) are NaN in Dask"
COUNT_OF_CLASSES = ("type_of_target compares the count of unique labels with 2: unknown, None "
                    "raises (Dask's NaN says 'binary' whatever the count)")
DASK_LIMITS = {
    "LinearDiscriminantAnalysis": UNKNOWN_SIZES,
    "RidgeClassifier(solver='svd')": UNKNOWN_SIZES,
    "GaussianNB": UNKNOWN_SIZES,
    "log_loss": UNKNOWN_SIZES,
    "f1_score(average='macro')": UNKNOWN_SIZES,
    "precision_score(average='macro')": UNKNOWN_SIZES,
    "recall_score(average='macro')": UNKNOWN_SIZES,
    "jaccard_score(average='macro')": UNKNOWN_SIZES,
    "multilabel_confusion_matrix": UNKNOWN_SIZES,
    "accuracy_score": COUNT_OF_CLASSES,
    "zero_one_loss": COUNT_OF_CLASSES,
    "hamming_loss": COUNT_OF_CLASSES,
    "Ridge(solver='svd')": "x[mask] = y[mask]: Dask cannot assign values of unknown (NaN) size",
}


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_sklearn_matches_numpy_run(case, backend):
    assert_case("sklearn", "scikit-learn", case, backend, DASK_LIMITS)
