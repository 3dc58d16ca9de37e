"""Shared by the test_numpy_* modules: tensors from NumPy inputs, and the comparison of an
interop result with NumPy's result on plain arrays (values, dtype, shape, result type)."""

from __future__ import annotations

import numpy as np

import interop
from tests.conftest import to_numpy


def as_tensors(x, backend: str):
    """NumPy arrays (also inside lists and tuples) as tensors; Dask splits axis 0 of 2-D and
    higher arrays in two (1-D arrays stay one chunk, as Dask's FFTs need)."""
    if isinstance(x, np.ndarray):
        chunks = {"chunks": (max(1, x.shape[0] // 2), *x.shape[1:]) if x.ndim > 1 else -1} \
            if backend == "dask" else {}
        return interop.tensor(x, backend=backend, **chunks)
    if type(x) in (list, tuple):
        return type(x)(as_tensors(v, backend) for v in x)
    return x


def assert_matches(got, expected, backend: str, where: str = "") -> None:
    """``got`` (interop) is NumPy's ``expected``: arrays become tensors of ``backend``."""
    if isinstance(expected, (np.ndarray, np.generic)):
        assert isinstance(got, interop.Tensor), f"{where}: expected a tensor, got {type(got)}"
        assert got.backend == backend, f"{where}: result on {got.backend}, not {backend}"
        res = to_numpy(got)
        assert res.dtype == expected.dtype, f"{where}: dtype {res.dtype} != NumPy's {expected.dtype}"
        assert res.shape == np.shape(expected), f"{where}: shape {res.shape} != {np.shape(expected)}"
        if res.dtype.kind in "fc":
            np.testing.assert_allclose(res, expected, rtol=1e-10, atol=1e-12, equal_nan=True,
                                       err_msg=where)
        else:
            np.testing.assert_array_equal(res, expected, err_msg=where)
    elif isinstance(expected, (tuple, list)):
        if backend == "dask" and isinstance(expected, tuple):  # Dask: plain tuples, no namedtuples
            assert isinstance(got, tuple), f"{where}: {type(got)} is not a tuple"
        else:
            assert type(got) is type(expected), f"{where}: {type(got)} != NumPy's {type(expected)}"
        assert len(got) == len(expected), where
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_matches(g, e, backend, f"{where}[{i}]")
    else:
        assert type(got) is type(expected), f"{where}: {type(got)} != NumPy's {type(expected)}"
        assert got == expected or (got != got and expected != expected), f"{where}: {got!r}"
