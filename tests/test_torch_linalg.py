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


@pytest.mark.parametrize("a_shape, b_shape", [
    ((3, 4, 4), (4, 2)),  # B a matrix for every matrix of A (torch: not a batch of vectors)
    ((3, 4, 4), (3, 4)),  # a batch of vectors: B.shape == A.shape[:-1]
    ((3, 4, 4), (4,)), ((2, 1, 4, 4), (3, 4, 1)), ((2, 3, 4, 4), (3, 4))])
def test_solve_reads_b_by_torchs_vector_rule(a_shape, b_shape, backend):
    """B is a batch of vectors only when 1-d or shaped like A without its last dimension;
    otherwise a (broadcast) batch of matrices, or refused where torch refuses it."""
    rng = np.random.default_rng(1)
    A = (rng.standard_normal(a_shape) + 4 * np.eye(4)).astype(np.float32)
    B = rng.standard_normal(b_shape).astype(np.float32)
    try:
        expected = LA.solve(torch.from_numpy(A), torch.from_numpy(B)).numpy()
    except RuntimeError:
        with pytest.raises((RuntimeError, ValueError)):
            to_numpy(LA.solve(interop.tensor(A, backend=backend), interop.tensor(B, backend=backend)))
        return
    got = to_numpy(LA.solve(interop.tensor(A, backend=backend, chunks=(1,) + A.shape[1:])
                            if backend == "dask" else interop.tensor(A, backend=backend),
                            interop.tensor(B, backend=backend)))
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=2e-4, atol=2e-4)


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


def test_dask_factorisations_give_every_mode_batched_and_chunked() -> None:
    """QR and SVD on Dask in every mode (Dask's own are reduced, one tall matrix): a batch
    of matrices chunked across rows and columns, against torch, lazily."""
    pytest.importorskip("dask")
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(0).standard_normal((3, 6, 4))
    t = interop.tensor(a, backend="dask", chunks=(2, 3, 3))
    ta = torch.tensor(a)
    for mode in ("reduced", "complete"):
        q, r = interop.linalg_qr(t, mode=mode)
        tq, tr = torch.linalg.qr(ta, mode=mode)
        assert q.backend == "dask" and tuple(q.shape) == tuple(tq.shape)
        np.testing.assert_allclose(np.abs(r.numpy()), np.abs(tr.numpy()), atol=1e-10)
        np.testing.assert_allclose((q @ r).numpy(), a, atol=1e-10)
    for full in (True, False):
        u, s, vh = interop.linalg_svd(t, full_matrices=full)
        tu, ts, tvh = torch.linalg.svd(ta, full_matrices=full)
        assert tuple(u.shape) == tuple(tu.shape) and tuple(vh.shape) == tuple(tvh.shape)
        np.testing.assert_allclose(s.numpy(), ts.numpy(), atol=1e-10)


MATRIX_EXP = {"small_norm": (np.float32, (3, 3), 1e-3),
              "batched_mixed_norms": (np.float64, (3, 4, 4), np.array([1e-2, 1.0, 6.0])[:, None, None]),
              "large_norm": (np.float32, (5, 5), 8.0), "complex": (np.complex128, (2, 3, 3), 2.0),
              "empty_batch": (np.float32, (0, 3, 3), 1.0), "zero_by_zero": (np.float64, (2, 0, 0), 1.0),
              "one_by_one": (np.float32, (4, 1, 1), 3.0), "complex64": (np.complex64, (3, 5, 5), 1.5),
              # float32 norms up to ~30, squared 4 times: torch's own rounding, not exp's
              "float32_squared": (np.float32, (6, 5, 5), 5.0),
              "single_each_degree": (np.float64, (4, 4), 1e-9)}


@pytest.mark.parametrize("case", list(MATRIX_EXP))
def test_matrix_exp_matches_torch(case, backend):
    """Scaling and squaring (each matrix of a batch its own scaling), against torch's own."""
    dtype, shape, scale = MATRIX_EXP[case]
    a = (RNG.standard_normal(shape) * scale).astype(dtype)
    if np.iscomplexobj(a):
        a = a + 1j * np.swapaxes(a, -1, -2)
    expected = torch.linalg.matrix_exp(torch.from_numpy(a)).numpy()
    with interop.config(dask_compute="raise"):
        got = torch.linalg.matrix_exp(interop.tensor(a, backend=backend))
        method = interop.tensor(a, backend=backend).matrix_exp()
    for g in (got, method):
        assert g.backend == backend
        res = to_numpy(g)
        assert res.dtype == expected.dtype and res.shape == expected.shape
        np.testing.assert_allclose(res, expected, rtol=2e-5 if dtype in (np.float32, np.complex64)
                                   else 1e-12, atol=1e-6 if dtype in (np.float32, np.complex64)
                                   else 1e-14)


@pytest.mark.parametrize("scale", [1e-9, 1e-5, 1e-3, 0.03, 0.3, 1.0, 3.0])
def test_matrix_exp_of_one_matrix_takes_torchs_degree(scale):
    """A single matrix gets the Taylor degree its norm needs (1, 2, 4, 8, 12, 18), as torch."""
    a = (RNG.standard_normal((6, 6)) * scale / 6).astype(np.float32)
    expected = torch.linalg.matrix_exp(torch.from_numpy(a)).numpy()
    got = torch.linalg.matrix_exp(interop.tensor(a)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)


def test_matrix_exp_refuses_like_torch(backend):
    for bad in (np.ones((2, 3), np.float32), np.ones((3, 3), np.int64)):
        with pytest.raises(RuntimeError):
            torch.linalg.matrix_exp(torch.from_numpy(bad))
        with pytest.raises(RuntimeError, match="matrix_exp"):
            torch.linalg.matrix_exp(interop.tensor(bad, backend=backend))


def test_einsum_sublists_and_tensordot_dims_forms(backend):
    """The forms opt_einsum and other libraries use: einsum(a, [0, 1], b, [1, 2], [2, 0]) and
    tensordot with dims as an int, a pair of lists, or nested lists."""
    a, b = M, B
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    ia, ib = interop.tensor(a, backend=backend), interop.tensor(b, backend=backend)
    calls = [lambda x, y: torch.einsum(x, [0, 1], y, [1, 2]),
             lambda x, y: torch.einsum(x, [0, 1], y, [1, 2], [2, 0]),
             lambda x, y: torch.einsum(x, [Ellipsis, 1], y, [1, 2], [Ellipsis, 2]),
             lambda x, y: torch.tensordot(x, y, dims=1),
             lambda x, y: torch.tensordot(x, y, dims=([1], [0])),
             lambda x, y: torch.tensordot(x, y, dims=[[1], [0]]),
             lambda x, y: torch.tensordot(x, x, dims=0)]
    for call in calls:
        np.testing.assert_allclose(to_numpy(call(ia, ib)), call(ta, tb).numpy(), rtol=1e-5)


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


HOUSEHOLDER_SHAPES = [(5, 5), (6, 4), (4, 6), (2, 3, 5, 3), (0, 4, 3), (3, 0, 2), (2, 0), (1, 1)]


def _lapack_input(shape, dtype):
    a = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype)


def _tensor(a, backend):
    chunks = tuple(max(1, (n + 1) // 2) for n in a.shape)  # a chunk boundary in every dim
    return interop.tensor(a, backend=backend, **({"chunks": chunks} if backend == "dask" else {}))


def _close(got, expected, single=1e-5, double=1e-12):
    exp = expected.numpy()
    res = to_numpy(got)
    assert res.dtype == exp.dtype and res.shape == exp.shape, (res.shape, exp.shape)
    tol = single if exp.dtype in (np.float32, np.complex64) else double
    np.testing.assert_allclose(res, exp, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("shape", HOUSEHOLDER_SHAPES, ids=str)
def test_geqrf_householder_product_ormqr_match_torch(shape, dtype, backend):
    """LAPACK's packed QR (geqrf), its Q (householder_product, orgqr) and Q or Q^H applied on
    either side (ormqr): torch's values, batched, empty and complex; Dask lazily."""
    a = _lapack_input(shape, dtype)
    th, ttau = torch.geqrf(torch.from_numpy(a))
    m, n = shape[-2:]
    with interop.config(dask_compute="raise"):
        h, tau = torch.geqrf(_tensor(a, backend))
        assert h.backend == tau.backend == backend
        results = [(h, th), (tau, ttau), (interop.geqrf(_tensor(a, backend)).tau, ttau)]
        if m >= n:
            results += [(torch.linalg.householder_product(h, tau),
                         torch.linalg.householder_product(th, ttau)),
                        (torch.orgqr(h, tau), torch.orgqr(th, ttau))]
        for left in (True, False):
            for transpose in (True, False):
                c = _lapack_input((*shape[:-2], m, 3) if left else (*shape[:-2], 3, m), dtype)
                results.append((torch.ormqr(h, tau, _tensor(c, backend), left, transpose),
                                torch.ormqr(th, ttau, torch.from_numpy(c), left, transpose)))
    for got, expected in results:
        _close(got, expected)


def test_householder_product_refuses_like_torch(backend):
    a = _lapack_input((3, 5), np.float32)
    for args in ((a, a[0, :3]), (a.T, a[0, :4]), (a.T, a[:2, :2]), (a[0], a[0, :1])):
        with pytest.raises(RuntimeError):
            torch.linalg.householder_product(*map(torch.from_numpy, args))
        with pytest.raises(RuntimeError, match="householder_product"):
            torch.linalg.householder_product(*(_tensor(x, backend) for x in args))
    c = _lapack_input((4, 2), np.float32)
    with pytest.raises(RuntimeError):
        torch.ormqr(*map(torch.from_numpy, (a.T, a[0, :3], c)))
    with pytest.raises(RuntimeError, match="ormqr"):
        torch.ormqr(*(_tensor(x, backend) for x in (a.T, a[0, :3], c)))
    with pytest.raises(RuntimeError, match="geqrf"):
        torch.geqrf(_tensor(np.ones((3, 3), np.int64), backend))


LSTSQ_SHAPES = [((4, 3), (4, 2)), ((3, 3), (3, 2)), ((2, 3), (2, 2)), ((2, 4, 3), (2, 4, 2)),
                ((2, 4, 3), (2, 4)), ((1, 4, 3), (3, 4, 2)), ((3, 4, 3), (1, 4, 2)),
                ((0, 3), (0, 2)), ((4, 0), (4, 2)), ((0, 4, 3), (0, 4, 1)), ((4, 3), (4,))]


@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
@pytest.mark.parametrize("shapes", LSTSQ_SHAPES, ids=str)
def test_lstsq_matches_torch_per_driver(shapes, dtype, driver, backend):
    """What each driver returns (residuals only for tall A and not 'gelsy', and for 'gelsd'/
    'gelss' only at full rank; rank unless 'gels'; singular values for 'gelsd'/'gelss'),
    batched with broadcasting, B a vector, empty, complex; Dask builds it lazily except the
    full-rank check, whose answer sets the residuals' size."""
    a, b = (_lapack_input(s, dtype) for s in shapes)
    variants = [a]
    if a.shape[-2] > a.shape[-1] > 1:
        deficient = a.copy()
        deficient[..., -1] = 0  # rank n - 1 beyond doubt (a repeated column is, in float32,
        variants.append(deficient)  # at the cut-off, where gelsy's and the SVD's ranks differ)
    for A in variants:
        if A is not a and driver in (None, "gels", "gelsy"):
            continue  # gels: torch refuses it (full rank assumed), interop answers; gelsy:
            # MKL's returns zeros for some inputs with a zero column (1 in 60), rank 2 or not
        expected = torch.linalg.lstsq(torch.from_numpy(A), torch.from_numpy(b), driver=driver)
        gated = driver in ("gelsd", "gelss") and A.shape[-2] > A.shape[-1]
        with interop.config(dask_compute="allow" if gated else "raise"):
            got = torch.linalg.lstsq(_tensor(A, backend), _tensor(b, backend), driver=driver)
        for g, e in zip(got, expected):
            _close(g, e)


def test_lstsq_refuses_like_torch(backend):
    a, b = _lapack_input((4, 3), np.float32), _lapack_input((4, 2), np.float32)
    for args, kwargs in [((a, b[:3]), {}), ((a, b.astype(np.float64)), {}),
                         ((a, b[None, None]), {}), ((a, b), {"driver": "gelsx"}),
                         ((np.stack([a, a]), np.stack([b, b, b])), {})]:
        with pytest.raises(RuntimeError):
            torch.linalg.lstsq(*map(torch.from_numpy, args), **kwargs)
        with pytest.raises(RuntimeError, match="lstsq"):
            torch.linalg.lstsq(*(_tensor(x, backend) for x in args), **kwargs)


MATRIX_RANK_TOLERANCES = [{}, {"atol": 1.0}, {"rtol": 0.5}, {"atol": 0.1, "rtol": 0.2},
                          {"atol": "batch"}, {"rtol": "batch"}, {"atol": "batch", "rtol": "batch"},
                          {"tol": 1.0}]


@pytest.mark.parametrize("hermitian", [False, True])
@pytest.mark.parametrize("tolerances", MATRIX_RANK_TOLERANCES, ids=str)
@pytest.mark.parametrize("shape", [(5, 5), (2, 5, 5), (0, 5, 5), (2, 0, 0), (3, 4, 4)], ids=str)
def test_matrix_rank_tolerances_broadcast_like_torch(shape, tolerances, hermitian, backend):
    """atol/rtol as numbers or one per matrix (broadcast against the batch, empty batches
    included), torch's defaults (rtol 0 where atol > 0), the old ``tol``; Dask lazily."""
    a = _lapack_input(shape, np.float64)
    a = a @ np.swapaxes(a, -1, -2) if hermitian else a
    batch = shape[:-2]
    values = {k: (np.linspace(0.5, 2.0, int(np.prod(batch))).reshape(batch) if v == "batch" else v)
              for k, v in tolerances.items()}
    if "batch" in tolerances.values() and not batch:
        pytest.skip("one matrix: no batch to give tolerances to")
    args = [values.pop("tol")] if "tol" in values else []
    theirs = {k: torch.from_numpy(np.asarray(v)) if isinstance(v, np.ndarray) else v
              for k, v in values.items()}
    expected = torch.linalg.matrix_rank(torch.from_numpy(a), *args, hermitian=hermitian, **theirs)
    with interop.config(dask_compute="raise"):
        got = torch.linalg.matrix_rank(_tensor(a, backend), *args, hermitian=hermitian,
                                       **{k: _tensor(v, backend) if isinstance(v, np.ndarray) else v
                                          for k, v in values.items()})
    res = to_numpy(got)
    assert res.dtype == np.int64 and res.shape == tuple(expected.shape)
    np.testing.assert_array_equal(res, expected.numpy())


def _symmetric(shape, dtype, diagonal=1.0, hermitian=False):
    a = _lapack_input(shape, dtype)
    a = a + (np.conj if hermitian else np.asarray)(np.swapaxes(a, -1, -2))
    idx = np.arange(shape[-1])
    a[..., idx, idx] *= diagonal  # a small diagonal makes Bunch-Kaufman take 2x2 pivots
    return a


@pytest.mark.parametrize("diagonal", [1.0, 1e-3, 0.0])
@pytest.mark.parametrize("dtype,hermitian", [(np.float32, False), (np.float64, True),
                                             (np.complex128, False), (np.complex128, True),
                                             (np.complex64, True)], ids=str)
@pytest.mark.parametrize("shape", [(5, 5), (3, 8, 8), (2, 1, 1), (0, 3, 3), (0, 0), (2, 2)],
                         ids=str)
def test_ldl_factor_and_solve_match_torch(shape, dtype, hermitian, diagonal):
    """LAPACK's Bunch-Kaufman (sytrf, hetrf) pivots exactly and its LD to rounding, 1x1 and
    2x2 blocks, batched, empty, complex symmetric and Hermitian; the solve (sytrs, hetrs)
    with batches broadcast."""
    a = _symmetric(shape, dtype, diagonal, hermitian)
    expected = torch.linalg.ldl_factor_ex(torch.from_numpy(a), hermitian=hermitian)
    got = torch.linalg.ldl_factor_ex(interop.tensor(a), hermitian=hermitian)
    np.testing.assert_array_equal(to_numpy(got.pivots), expected.pivots.numpy())
    assert to_numpy(got.pivots).dtype == np.int32 and to_numpy(got.info).dtype == np.int32
    np.testing.assert_array_equal(to_numpy(got.info), expected.info.numpy())
    _close(got.LD, expected.LD)
    if expected.info.numpy().any():  # a zero pivot: torch's ldl_factor refuses
        with pytest.raises(RuntimeError):
            torch.linalg.ldl_factor(torch.from_numpy(a), hermitian=hermitian)
        with pytest.raises(RuntimeError, match="ldl_factor"):
            torch.linalg.ldl_factor(interop.tensor(a), hermitian=hermitian)
        return
    LD, pivots = torch.linalg.ldl_factor(interop.tensor(a), hermitian=hermitian)
    _close(LD, expected.LD)
    for b_shape in [(*shape[:-1], 3), shape[-2:-1] + (2,)]:
        b = _lapack_input(b_shape, dtype)
        want = torch.linalg.ldl_solve(expected.LD, expected.pivots, torch.from_numpy(b),
                                      hermitian=hermitian)
        got = torch.linalg.ldl_solve(LD, pivots, interop.tensor(b), hermitian=hermitian)
        cond = np.linalg.cond(a).max(initial=1.0) if a.size else 1.0  # two LAPACK builds' roundings
        _close(got, want, single=max(1e-5, 1e-6 * cond), double=max(1e-12, 1e-14 * cond))  # of an
        # ill-conditioned solve differ by about the condition number times the unit roundoff


def test_ldl_refuses_like_torch(backend):
    with pytest.raises(RuntimeError):
        torch.linalg.ldl_factor(torch.from_numpy(np.ones((3, 4))))
    with pytest.raises(RuntimeError, match="ldl_factor"):
        torch.linalg.ldl_factor(_tensor(np.ones((3, 4)), backend))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("shape", [(5, 3), (2, 4, 4), (0, 3, 2)])
def test_polar_and_matrix_sqrth_match_scipy_and_torch(shape, dtype, backend):
    """torch 2.14's linalg.polar and linalg.matrix_sqrth: against SciPy on every torch, and
    against torch where it has them; the factors' dtypes are the input's."""
    import scipy.linalg
    rng = np.random.default_rng(5)
    a = rng.standard_normal(shape)
    a = (a + 1j * rng.standard_normal(shape) if dtype == np.complex128 else a).astype(dtype)
    spd = (np.swapaxes(a, -1, -2).conj() @ a + np.eye(shape[-1])).astype(dtype)
    u, h = interop.linalg_polar(interop.tensor(a, backend=backend))
    root = interop.linalg_matrix_sqrth(interop.tensor(spd, backend=backend))
    tol = 1e-4 if dtype == np.float32 else 1e-10
    assert u.dtype == h.dtype == root.dtype == dtype
    for i in np.ndindex(shape[:-2]):
        want_u, want_h = scipy.linalg.polar(a[i])
        np.testing.assert_allclose(to_numpy(u)[i], want_u, atol=tol)
        np.testing.assert_allclose(to_numpy(h)[i], want_h, atol=tol)
        np.testing.assert_allclose(to_numpy(root)[i], scipy.linalg.sqrtm(spd[i]), atol=tol)
    if hasattr(LA, "polar"):
        np.testing.assert_allclose(to_numpy(LA.polar(interop.tensor(a, backend=backend)).H),
                                   LA.polar(torch.from_numpy(a)).H.numpy(), atol=tol)
        np.testing.assert_allclose(to_numpy(LA.matrix_sqrth(interop.tensor(spd, backend=backend))),
                                   LA.matrix_sqrth(torch.from_numpy(spd)).numpy(), atol=tol)


def test_polar_refuses_like_torch():
    with pytest.raises(RuntimeError, match="at least as many rows as columns"):
        interop.linalg_polar(interop.ones(2, 3))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        interop.linalg_polar(interop.ones(3))
    with pytest.raises(RuntimeError, match="square matrices"):
        interop.linalg_matrix_sqrth(interop.ones(2, 3))
