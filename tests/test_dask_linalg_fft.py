"""Matrix functions and FFTs on Dask tensors chunked across the matrix / transform axes:
interop rechunks lazily (each matrix, each transformed axis in one chunk) and runs NumPy per
block, so the answers match torch and building the graph computes nothing."""

from __future__ import annotations

import numpy as np
import pytest

import interop
from interop.errors import DaskComputeError

da = pytest.importorskip("dask.array")
torch = pytest.importorskip("torch")

from tests.helpers.dask_counting import ComputeCounter  # noqa: E402

RNG = np.random.default_rng(0)


def _spd(shape: tuple) -> np.ndarray:
    """Symmetric positive-definite matrices of ``shape`` (..., n, n)."""
    a = RNG.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def _split_in_two(a: np.ndarray) -> interop.Tensor:
    """A Dask tensor with every axis of size > 1 in two chunks."""
    return interop.tensor(a, backend="dask", chunks=tuple(max(1, (n + 1) // 2) for n in a.shape))


def _lazily(fn, *args):
    """``fn(*args)`` built with no compute (the policy raises on one), then computed."""
    with ComputeCounter() as counter, interop.config(dask_compute="raise"):
        out = fn(*args)
    assert counter.count == 0
    return out


def _values(out):
    return [np.asarray(o.numpy()) for o in out] if isinstance(out, tuple) else np.asarray(out.numpy())


SHAPES = [(5, 5), (3, 4, 4), (0, 3, 3), (0, 0)]
MATRIX_FUNCTIONS = {
    "inv": (lambda m: m.linalg.inv, lambda a: (a,)),
    "cholesky": (lambda m: m.linalg.cholesky, lambda a: (a,)),
    "cholesky_upper": (lambda m: lambda a: m.linalg.cholesky(a, upper=True), lambda a: (a,)),
    "solve": (lambda m: m.linalg.solve, lambda a: (a, a[..., :2] if a.shape[-1] else a)),
    "solve_triangular": (lambda m: lambda a, b: m.linalg.solve_triangular(a, b, upper=False),
                         lambda a: (a, a)),
    "svdvals": (lambda m: m.linalg.svdvals, lambda a: (a,)),
    "matrix_rank": (lambda m: m.linalg.matrix_rank, lambda a: (a,)),
    "nuclear_norm": (lambda m: lambda a: m.linalg.matrix_norm(a, ord="nuc"), lambda a: (a,)),
    "norm_2": (lambda m: lambda a: m.linalg.matrix_norm(a, ord=2), lambda a: (a,)),
    "pinv": (lambda m: m.linalg.pinv, lambda a: (a,)),
    "det": (lambda m: m.linalg.det, lambda a: (a,)),
}


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", MATRIX_FUNCTIONS)
def test_matrix_function_matches_torch(name: str, shape: tuple) -> None:
    if name == "norm_2" and 0 in shape:
        pytest.skip("torch: matrix_norm(ord=2) of an empty matrix raises")
    fn, operands = MATRIX_FUNCTIONS[name]
    args = operands(_spd(shape))
    expected = fn(torch)(*(torch.tensor(a) for a in args))
    got = _lazily(fn(torch), *(_split_in_two(a) for a in args))
    np.testing.assert_allclose(_values(got), expected.numpy(), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
@pytest.mark.parametrize("shape", [(6, 3), (3, 6), (2, 4, 4), (0, 3, 2)], ids=str)
def test_qr_reconstructs_with_torch_shapes(mode: str, shape: tuple) -> None:
    a = RNG.standard_normal(shape)
    q, r = _lazily(lambda t: torch.linalg.qr(t, mode=mode), _split_in_two(a))
    tq, tr = torch.linalg.qr(torch.tensor(a), mode=mode)
    assert (tuple(q.shape), tuple(r.shape)) == (tuple(tq.shape), tuple(tr.shape))
    np.testing.assert_allclose(np.abs(r.numpy()), np.abs(tr.numpy()), atol=1e-9)
    if mode != "r":
        np.testing.assert_allclose((q @ r).numpy(), a, atol=1e-9)


@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd_has_torch_shapes_and_values(full_matrices: bool) -> None:
    a = RNG.standard_normal((2, 5, 3))
    u, s, vh = _lazily(lambda t: torch.linalg.svd(t, full_matrices=full_matrices), _split_in_two(a))
    tu, ts, tvh = torch.linalg.svd(torch.tensor(a), full_matrices=full_matrices)
    assert (tuple(u.shape), tuple(vh.shape)) == (tuple(tu.shape), tuple(tvh.shape))
    np.testing.assert_allclose(s.numpy(), ts.numpy(), atol=1e-9)


def test_distribution_log_prob_uses_batched_triangular_solve() -> None:
    """MultivariateNormal.log_prob solves batched triangular systems."""
    cov = _spd((4, 4))
    x = RNG.standard_normal((6, 4))
    dist = torch.distributions.MultivariateNormal(torch.zeros(4, dtype=torch.float64),
                                                  covariance_matrix=torch.tensor(cov), validate_args=False)
    got = _lazily(dist.log_prob, _split_in_two(x))
    np.testing.assert_allclose(got.numpy(), dist.log_prob(torch.tensor(x)).numpy(), rtol=1e-10)


@pytest.mark.parametrize("driver", [None, "gels", "gelsd"])
@pytest.mark.parametrize("shape", [(6, 3), (3, 3), (2, 3)], ids=str)
def test_lstsq_matches_torch(shape: tuple, driver) -> None:
    a, b = RNG.standard_normal(shape), RNG.standard_normal((shape[0], 2))
    expected = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
    def call(x, y):
        return torch.linalg.lstsq(x, y, driver=driver)
    if driver == "gelsd" and shape[0] > shape[1]:  # residuals only if every A has full rank:
        with pytest.raises(DaskComputeError, match="residuals"):  # a size known from values
            _lazily(call, _split_in_two(a), _split_in_two(b))
        with interop.config(dask_compute="allow"):
            got = call(_split_in_two(a), _split_in_two(b))
    else:
        got = _lazily(call, _split_in_two(a), _split_in_two(b))
    np.testing.assert_allclose(got.solution.numpy(), expected.solution.numpy(), atol=1e-9)
    for field in ("residuals", "rank"):
        want = getattr(expected, field).numpy()
        have = getattr(got, field).numpy()
        assert (have.shape, have.dtype) == (want.shape, want.dtype), field
        np.testing.assert_allclose(have, want, atol=1e-9)


@pytest.mark.parametrize("dim", [0, -1])
def test_cross_matches_torch(dim: int) -> None:
    a = RNG.standard_normal((3, 3) if dim == 0 else (4, 3))
    b = RNG.standard_normal((3, 1) if dim == 0 else (1, 3))
    got = _lazily(lambda x, y: torch.linalg.cross(x, y, dim=dim), _split_in_two(a), _split_in_two(b))
    expected = torch.linalg.cross(torch.tensor(a), torch.tensor(b), dim=dim)
    np.testing.assert_allclose(got.numpy(), expected.numpy())


def test_cross_refuses_other_than_3_vectors() -> None:
    with pytest.raises((ValueError, RuntimeError), match="cross"):
        torch.linalg.cross(_split_in_two(np.ones((4, 2))), _split_in_two(np.ones((4, 2)))).numpy()


FFT_CALLS = {
    "fft": lambda m, x: m.fft.fft(x, dim=0), "ifft": lambda m, x: m.fft.ifft(x, n=7),
    "rfft": lambda m, x: m.fft.rfft(x, dim=0), "irfft": lambda m, x: m.fft.irfft(x),
    "hfft": lambda m, x: m.fft.hfft(x, dim=0), "ihfft": lambda m, x: m.fft.ihfft(x),
    "fft2": lambda m, x: m.fft.fft2(x), "rfft2": lambda m, x: m.fft.rfft2(x, s=(4, 4)),
    "irfft2": lambda m, x: m.fft.irfft2(x), "hfft2": lambda m, x: m.fft.hfft2(x),
    "fftn": lambda m, x: m.fft.fftn(x, s=(3,)), "irfftn": lambda m, x: m.fft.irfftn(x, dim=(0, 1)),
    "ihfftn": lambda m, x: m.fft.ihfftn(x),
}


@pytest.mark.parametrize("name", FFT_CALLS)
def test_torch_fft_over_several_chunks_matches_torch(name: str) -> None:
    x = RNG.standard_normal((6, 5))
    got = _lazily(lambda t: FFT_CALLS[name](torch, t), _split_in_two(x))
    expected = FFT_CALLS[name](torch, torch.tensor(x))
    np.testing.assert_allclose(got.numpy(), expected.resolve_conj().numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name,kwargs", [("fft", {"axis": 0}), ("rfft", {}), ("ifft", {"n": 3}),
                                         ("fftn", {"s": (3,), "axes": (0,)}), ("rfft2", {}), ("irfftn", {}),
                                         ("hfft", {"axis": 0})])
def test_numpy_fft_over_several_chunks_matches_numpy(name: str, kwargs: dict) -> None:
    x = RNG.standard_normal((6, 5))
    got = _lazily(lambda t: getattr(np.fft, name)(t, **kwargs), _split_in_two(x))
    assert isinstance(got, interop.Tensor)
    np.testing.assert_allclose(got.numpy(), getattr(np.fft, name)(x, **kwargs), atol=1e-10)


def test_array_api_fft_over_several_chunks() -> None:
    x = RNG.standard_normal((6, 5))
    xp = _split_in_two(x).__array_namespace__()
    got = _lazily(lambda t: xp.fft.fftn(t, s=(3,)), _split_in_two(x))
    np.testing.assert_allclose(got.numpy(), np.fft.fftn(x, s=(3,), axes=(1,)), atol=1e-10)


@pytest.mark.parametrize("shape", [(4, 6, 5), (3, 6, 2, 3), (0, 6, 2)], ids=str)
def test_group_norm_over_uneven_chunks_matches_torch(shape: tuple) -> None:
    x = RNG.standard_normal(shape)
    weight, bias = RNG.standard_normal(6), RNG.standard_normal(6)
    args = (3, torch.tensor(weight), torch.tensor(bias))
    got = _lazily(lambda t: torch.nn.functional.group_norm(t, *args), _split_in_two(x))
    np.testing.assert_allclose(got.numpy(), torch.nn.functional.group_norm(torch.tensor(x), *args).numpy(),
                               atol=1e-10)


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_over_chunks_of_one_matches_torch(edge_order: int) -> None:
    x = RNG.standard_normal((5, 4))
    t = interop.tensor(x, backend="dask", chunks=1)
    got = _lazily(lambda u: torch.gradient(u, edge_order=edge_order), t)
    for g, e in zip(got, torch.gradient(torch.tensor(x), edge_order=edge_order)):
        np.testing.assert_allclose(g.numpy(), e.numpy(), atol=1e-10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_airy_ai_runs_per_chunk(dtype) -> None:
    x = RNG.standard_normal((5, 3)).astype(dtype)
    got = _lazily(torch.special.airy_ai, _split_in_two(x))
    expected = torch.special.airy_ai(torch.tensor(x))
    assert got.dtype == expected.dtype  # (torch's float32 kernel and SciPy's differ by ~2e-5)
    np.testing.assert_allclose(got.numpy(), expected.numpy(),
                               rtol=1e-4 if dtype == np.float32 else 1e-10)


@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("shape", [(), (0,), (7,)], ids=str)
def test_bucketize_matches_torch(shape: tuple, right: bool) -> None:
    x, boundaries = RNG.standard_normal(shape), np.array([-1.0, 0.0, 0.5, 2.0])
    got = _lazily(lambda t, b: torch.bucketize(t, b, right=right), _split_in_two(x),
                  _split_in_two(boundaries))
    expected = torch.bucketize(torch.tensor(x), torch.tensor(boundaries), right=right)
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
