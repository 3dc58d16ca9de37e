"""torch.linalg on interop tensors against torch, on every backend (cupy on a GPU); what a
backend cannot do is declared on the record and tested in tests/test_capabilities.py."""

from __future__ import annotations

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy

torch = pytest.importorskip("torch")
LA = torch.linalg

RNG = np.random.default_rng(3)
M = RNG.standard_normal((4, 4)).astype(np.float32)
SPD = (M @ M.T + 4 * np.eye(4)).astype(np.float32)
TALL = RNG.standard_normal((6, 4)).astype(np.float32)
B = RNG.standard_normal((4, 2)).astype(np.float32)

# name: (call, operands); every backend implements them (Dask lazily, batched by apply_gufunc)
CASES = {
    "inv": (lambda a: LA.inv(a), (SPD,)),
    "solve": (lambda a, b: LA.solve(a, b), (SPD, B)),
    "solve_vector": (lambda a, b: LA.solve(a, b[:, 0]), (SPD, B)),
    "cholesky_upper": (lambda a: LA.cholesky(a, upper=True), (SPD,)),
    "qr_r": (lambda a: LA.qr(a).R.abs(), (TALL,)),
    "svdvals": (lambda a: LA.svdvals(a), (TALL,)),
    "det": (lambda a: LA.det(a), (SPD,)),
    "torch.det": (lambda a: torch.det(a), (SPD,)),
    "slogdet": (lambda a: LA.slogdet(a).logabsdet, (M,)),
    "eigvalsh": (lambda a: LA.eigvalsh(a), (SPD,)),
    "norm": (lambda a: LA.norm(a), (M,)),
    "vector_norm_inf": (lambda a: LA.vector_norm(a, float("inf"), dim=0), (M,)),
    "vector_norm_3": (lambda a: LA.vector_norm(a, 3, dim=1, keepdim=True), (M,)),
    "matrix_norm_nuc": (lambda a: LA.matrix_norm(a, "nuc"), (M,)),
    "matrix_power": (lambda a: LA.matrix_power(a, 3), (M,)),
    "pinv": (lambda a: LA.pinv(a), (TALL,)),
    "matrix_rank": (lambda a: LA.matrix_rank(a), (TALL,)),
    "multi_dot": (lambda a, b: LA.multi_dot([a, a, b]), (M, B)),
    "solve_triangular": (lambda a, b: LA.solve_triangular(a, b, upper=False), (SPD, B)),
    "vecdot": (lambda a, b: LA.vecdot(a, b), (M, M)),
}


@pytest.mark.parametrize("name", CASES)
def test_linalg_matches_torch(name, backend):
    call, operands = CASES[name]
    expected = call(*[torch.from_numpy(o.copy()) for o in operands])
    args = [interop.tensor(o, backend=backend) for o in operands]
    got = call(*args)
    assert isinstance(got, interop.Tensor) and got.backend == backend
    res, exp = to_numpy(got), expected.numpy()
    assert res.dtype == exp.dtype and res.shape == exp.shape
    np.testing.assert_allclose(res, exp, rtol=2e-4, atol=2e-4)


def test_named_tuples_and_reconstruction():
    a = interop.tensor(TALL)
    q, r = LA.qr(a)
    np.testing.assert_allclose(to_numpy(q @ r), TALL, atol=1e-5)
    u, s, vh = LA.svd(a, full_matrices=False)
    assert LA.svd(a)._fields == ("U", "S", "Vh")
    np.testing.assert_allclose(to_numpy((u * s) @ vh), TALL, atol=1e-5)
    eig = LA.eigh(interop.tensor(SPD))
    assert eig._fields == ("eigenvalues", "eigenvectors")
    v = eig.eigenvectors
    np.testing.assert_allclose(to_numpy(v @ torch.diag_embed(torch.from_numpy(
        to_numpy(eig.eigenvalues))) @ v.T), SPD, atol=1e-4)
    assert LA.eigvals(interop.tensor(M)).dtype == np.complex64


def test_linalg_refuses_integers_like_torch():
    with pytest.raises(RuntimeError, match="floating point"):
        LA.inv(interop.tensor(np.eye(3, dtype=np.int64)))


def test_dask_complete_factorisations_have_torch_shapes() -> None:
    """QR and SVD on Dask run per whole matrix: the complete modes give torch's shapes
    (Dask's own tall-and-skinny QR and SVD give the reduced ones only)."""
    pytest.importorskip("dask")
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(0).standard_normal((6, 3))
    t = interop.tensor(a, backend="dask", chunks=(6, 3))
    q, r = interop.linalg_qr(t, mode="complete")
    assert tuple(q.shape) == (6, 6) and tuple(r.shape) == (6, 3)
    np.testing.assert_allclose((q @ r).numpy(), a, atol=1e-12)
    u, s, vh = interop.linalg_svd(t)
    assert (tuple(u.shape), tuple(vh.shape)) == ((6, 6), (3, 3))
    s = interop.linalg_svd(t, full_matrices=False)[1]
    np.testing.assert_allclose(s.numpy(), torch.linalg.svdvals(torch.tensor(a)).numpy())
    q, r = interop.linalg_qr(t)
    assert tuple(q.shape) == (6, 3) and tuple(r.shape) == (3, 3)
    np.testing.assert_allclose((q @ r).numpy(), a, atol=1e-12)
