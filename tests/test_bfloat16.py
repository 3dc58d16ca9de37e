"""bfloat16 on NumPy and Dask (ml_dtypes gives NumPy the dtype), compared with torch's bfloat16
under torch's own bfloat16 tolerances; without ml_dtypes, an error that says how to install it."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import interop
from tests.conftest import off_host, to_numpy

torch = pytest.importorskip("torch")
pytest.importorskip("ml_dtypes")

# torch.testing.assert_close's defaults for bfloat16
TOLERANCE = {"rtol": 1.6e-2, "atol": 1e-5}


def _pair(values: np.ndarray, backend: str):
    if off_host(backend):  # (gpulike computes with NumPy, but stands for CuPy)
        pytest.skip("bfloat16 is offered on NumPy and Dask")
    return (interop.tensor(values, dtype=torch.bfloat16, backend=backend),
            torch.tensor(values, dtype=torch.bfloat16))


def _same(got, expected) -> None:
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_allclose(to_numpy(got).astype(np.float32), expected.float().numpy(),
                               **TOLERANCE)


@pytest.mark.parametrize("spelling", [torch.bfloat16, "bfloat16", "torch.bfloat16",
                                      "torch.BFloat16Tensor", "interop"], ids=str)
def test_every_spelling_makes_a_bfloat16_tensor(spelling, backend) -> None:
    dtype = interop.bfloat16 if spelling == "interop" else spelling
    t, _ = _pair(np.array([1.0, 2.0]), backend)
    for made in (interop.tensor([1.0, 2.0], dtype=dtype, backend=backend),
                 interop.zeros(2, dtype=dtype, backend=backend),
                 interop.ones((2, 1), dtype=dtype, backend=backend),
                 interop.tensor([1.0, 2.0], backend=backend).to(dtype),
                 interop.tensor([1.0, 2.0], backend=backend).to("cpu", dtype),
                 interop.tensor([1.0, 2.0], backend=backend).type(dtype), t):
        assert made.dtype == torch.bfloat16 and made.dtype == interop.bfloat16
        assert made.dtype.is_floating_point and made.type() == "torch.BFloat16Tensor"
        assert made.backend == backend


@pytest.mark.parametrize("expression", [
    lambda a, b: a + b, lambda a, b: a - b * 3, lambda a, b: a * 2.5, lambda a, b: a / 3,
    lambda a, b: 1.5 - a, lambda a, b: a + 1, lambda a, b: (a * b).exp(), lambda a, b: a.sqrt(),
    lambda a, b: a @ b.T, lambda a, b: a.sum(), lambda a, b: a.sum(0), lambda a, b: a.mean(1),
    lambda a, b: torch.add(a, b, alpha=2), lambda a, b: torch.sum(a * b, dim=1),
], ids=["add", "sub-mul", "mul-float", "div-int", "rsub-float", "add-int", "exp", "sqrt",
        "matmul", "sum", "sum0", "mean1", "torch.add-alpha", "torch.sum-dim"])
def test_arithmetic_and_sums_as_torch(expression, backend) -> None:
    rng = np.random.default_rng(0)
    a_values, b_values = rng.uniform(0.1, 4, (3, 5)), rng.uniform(0.1, 1, (3, 5))
    a, ta = _pair(a_values, backend)
    b, tb = _pair(b_values, backend)
    _same(expression(a, b), expression(ta, tb))


@pytest.mark.parametrize("other", [np.float32, np.float16, np.float64, np.int64, np.complex64])
def test_promotion_with_other_dtypes_as_torch(other, backend) -> None:
    a, ta = _pair(np.array([1.0, 2.0]), backend)
    b = interop.tensor(np.array([3, 4], dtype=other), backend=backend)
    tb = torch.tensor(np.array([3, 4], dtype=other))
    assert (a + b).dtype == (ta + tb).dtype and (b * a).dtype == (tb * ta).dtype


@pytest.mark.parametrize("values", [[1000.0, 0.5, -1000.0], [1.0] * 4096, []],
                         ids=["cancelling", "4096-ones", "empty"])
def test_sums_accumulate_in_float32_as_torch(values, backend) -> None:
    """bfloat16 alone stops counting at 256 and loses 0.5 beside 1000: torch sums in float32."""
    a, ta = _pair(np.array(values), backend)
    _same(a.sum(), ta.sum())
    if values:
        _same(a.mean(), ta.mean())


@given(st.lists(st.floats(-1e3, 1e3, allow_nan=False, width=32), min_size=0, max_size=64))
def test_sum_of_any_values_as_torch(values) -> None:
    a, ta = _pair(np.array(values, dtype=np.float32), "numpy")
    _same(a.sum(), ta.sum())
    _same(a * 0.5 + 1, ta * 0.5 + 1)


def test_dask_bfloat16_stays_lazy_until_asked() -> None:
    pytest.importorskip("dask")
    t = interop.ones((4, 6), dtype=torch.bfloat16, backend="dask", chunks=(2, 3))
    with interop.config(dask_compute="raise"):
        total = (t * 2.5).sum()
    assert total.dtype == torch.bfloat16 and total.item() == 60.0


def test_import_works_without_ml_dtypes_and_says_how_to_get_it() -> None:
    """A fresh interpreter where ml_dtypes cannot be imported (as if not installed)."""
    script = """
import sys
sys.modules["ml_dtypes"] = None  # import ml_dtypes now raises ImportError
import interop
t = interop.tensor([1.0, 2.0])
assert not hasattr(interop, "bfloat16")
for call in (lambda: t.to("bfloat16"), lambda: interop.zeros(2, dtype="bfloat16")):
    try:
        call()
    except ModuleNotFoundError as error:
        assert "pip install ml_dtypes" in str(error), error
    else:
        raise AssertionError("no error")
try:
    interop.bfloat16
except AttributeError as error:
    assert "pip install ml_dtypes" in str(error), error
print("ok", "ml_dtypes" in sys.modules and sys.modules["ml_dtypes"] is not None)
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "ok False"


def test_import_interop_does_not_import_ml_dtypes() -> None:
    run = subprocess.run([sys.executable, "-c", "import sys, interop; print('ml_dtypes' in sys.modules)"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == "False", run.stderr
