"""xarray over torch-backed tensors keeps torch's autograd: gradients through xarray's methods.

For each differentiable method of ``test_consumers_xarray.SURFACE``, the function
``w -> method(DataArray(interop.tensor(w, backend="torch"))).data.raw`` is checked with
``torch.autograd.gradcheck`` (torch's analytic gradient against finite differences, float64;
NaN that the method puts in, as shift and rolling do, read as zero);
a few are also compared with the same computation written in torch on the raw tensor.
"""

from __future__ import annotations

import numpy as np
import pytest

import interop
from tests.test_consumers_xarray import LIMITS, SURFACE, WEIGHTS, _surface

torch = pytest.importorskip("torch")
xr = pytest.importorskip("xarray")

NOT_DIFFERENTIABLE = {"idxmax", "interp", "chunk", "compute", "cross"}
"""Integer results (idxmax), results computed outside torch (interp: SciPy on NumPy), and
methods listed in ``LIMITS`` for torch (cross)."""
DATA = np.arange(24.0).reshape(4, 6) / 7.0 - 1.3  # no NaN, no ties, no zeros


def _method(name):
    def f(w):
        d, weights = _surface(interop.tensor(w, backend="torch"),
                              interop.tensor(torch.as_tensor(WEIGHTS), backend="torch"))
        return SURFACE[name](d, weights).data.raw
    return f


@pytest.mark.parametrize("name", [n for n in SURFACE if n not in NOT_DIFFERENTIABLE])
def test_gradients_through_xarray(name):
    w = torch.tensor(DATA, requires_grad=True)
    if ("torch", name) in LIMITS:
        pytest.xfail(LIMITS["torch", name])
    f = _method(name)
    assert torch.autograd.gradcheck(lambda x: torch.nan_to_num(f(x)), (w,), eps=1e-6, atol=1e-5)


REFERENCES = {  # xarray method -> the same computation in torch on the raw tensor
    "mean (skipna)": lambda w: w.mean(0),
    "std (ddof=1)": lambda w: w.std(0, correction=1),
    "where": lambda w: torch.where(w > 0, w, torch.nan),
    "rolling": lambda w: torch.cat([torch.full((4, 2), torch.nan, dtype=w.dtype),
                                    w.unfold(1, 3, 1).mean(-1)], 1),
    "cumprod": lambda w: w.cumprod(0),
    "dot": lambda w: torch.as_tensor(WEIGHTS) @ w,
    "weighted": lambda w: (torch.as_tensor(WEIGHTS) @ torch.nan_to_num(w))
    / (torch.as_tensor(WEIGHTS) @ (~w.isnan()).to(w.dtype)),
}


def test_torchs_spelling_keeps_torchs_refusal_of_mixed_dtypes():
    """opt_einsum's ``tensordot(mask, weights, axes=...)`` (NumPy's keyword) promotes, as
    NumPy does; torch's own call and spelling refuse a bool beside a float, as torch does."""
    mask = interop.tensor(torch.tensor([True, False, True]), backend="torch")
    weights = interop.tensor(torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64), backend="torch")
    assert float(interop.tensordot(mask, weights, axes=1)) == 1.5
    for call in (lambda: interop.tensordot(mask, weights, dims=1),
                 lambda: torch.tensordot(mask, weights, dims=1),
                 lambda: torch.tensordot(mask.raw, weights.raw, dims=1)):
        with pytest.raises(RuntimeError, match="same dtype"):
            call()


@pytest.mark.parametrize("name", REFERENCES)
def test_gradients_equal_torchs(name):
    """``.data.raw.backward()`` through xarray fills ``w.grad`` as torch does on the raw tensor."""
    w = torch.tensor(DATA, requires_grad=True)
    out = _method(name)(w)
    cotangent = torch.linspace(0.5, 1.5, out.numel(), dtype=out.dtype).reshape(out.shape)
    torch.nan_to_num(out * cotangent).sum().backward()
    got, w.grad = w.grad, None
    ref = REFERENCES[name](w)
    torch.nan_to_num(ref * cotangent).sum().backward()
    torch.testing.assert_close(got, w.grad)


def test_numpys_spelling_edges_against_numpy():
    """Empty, 0-d (axes=0) and a host operand beside torch's: NumPy's values and dtypes; a
    bad ``axes`` is refused with torch's message."""
    def on_torch(a):
        return interop.tensor(torch.as_tensor(np.asarray(a)), backend="torch")
    cases = [(np.zeros(0, bool), np.zeros(0), 1), (np.array(True), np.array(2.5), 0),
             (np.array([True, False]), np.array([1.0, 2.0]), 1)]
    for a, b, axes in cases:
        got = interop.tensordot(on_torch(a), on_torch(b), axes=axes)
        want = np.tensordot(a, b, axes=axes)
        assert got.backend == "torch" and got.dtype == want.dtype
        np.testing.assert_array_equal(got.raw.numpy(), want)
    host = interop.tensor(np.array([1.0, 2.0]))  # a NumPy tensor joins torch's
    assert float(interop.tensordot(on_torch([True, False]), host, axes=1)) == 1.0
    with pytest.raises(RuntimeError, match="tensordot expects dims"):
        interop.tensordot(on_torch([True]), on_torch([1.0]), axes="x")
