"""torch functions built from backend primitives (pointwise, products, stacking and
statistics in interop/ops' domain packages) against torch, on numpy and dask (cupy on a
GPU); what Dask lacks raises a TypeError naming both."""

from __future__ import annotations

import numpy as np
import pytest

import interop
from interop.ops import TABLE
from tests.conftest import to_numpy

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)
M = RNG.standard_normal((3, 4)).astype(np.float32)
V3 = RNG.standard_normal((2, 3)).astype(np.float32)
BATCH = RNG.standard_normal((2, 3, 4)).astype(np.float32)
INTS = RNG.integers(1, 30, (3, 4))
WITH_NAN = np.where(M > 1, np.nan, M).astype(np.float32)

# name: (call, operands); operands are NumPy arrays given to the call as tensors
CASES = {
    "addmm": (lambda a, b: torch.addmm(a[:, :3], a, b.T[:, :3], beta=0.5, alpha=2), (M, M)),
    "addmv": (lambda a, b: torch.addmv(b[:, 0], a, b[0]), (M, M)),
    "addr": (lambda a: torch.addr(a, a[:, 0], a[0], alpha=3), (M,)),
    "baddbmm": (lambda b: torch.baddbmm(b[:, :, :3], b, b.transpose(1, 2)[:, :, :3]), (BATCH,)),
    "addcmul": (lambda a: torch.addcmul(a, a, a, value=0.5), (M,)),
    "addcdiv": (lambda a: torch.addcdiv(a, a, a.abs() + 1, value=2), (M,)),
    "lerp": (lambda a, b: torch.lerp(a, b, 0.3), (M, M[::-1].copy())),
    "frac": (lambda a: torch.frac(a * 3), (M,)),
    "gcd": (lambda a: torch.gcd(a, a.flip(0)), (INTS,)),
    "lcm": (lambda a: torch.lcm(a, a.flip(0)), (INTS,)),
    "ldexp": (lambda a, i: torch.ldexp(a, i), (M, INTS % 4)),
    "float_power": (lambda a: torch.float_power(a.abs(), 1.5), (M,)),
    "sgn": (lambda a: torch.sgn(a), (M,)),
    "isposinf": (lambda a: torch.isposinf(a / 0), (M,)),
    "angle": (lambda a: torch.angle(a), (M,)),
    "clamp_min": (lambda a: torch.clamp_min(a, 0.1), (M,)),
    "inner": (lambda a: torch.inner(a, a), (M,)),
    "kron": (lambda a: torch.kron(a, a), (M,)),
    "cross": (lambda a, b: torch.cross(a, b, dim=1), (V3, V3[::-1].copy())),
    "diag_embed": (lambda a: torch.diag_embed(a, offset=1), (M,)),
    "hstack": (lambda a: torch.hstack([a, a]), (M,)),
    "vstack": (lambda a: torch.vstack([a, a[0]]), (M,)),
    "column_stack": (lambda a: torch.column_stack([a[0], a[1]]), (M,)),
    "rot90": (lambda a: torch.rot90(a, 3, [0, 1]), (M,)),
    "unflatten": (lambda a: torch.unflatten(a, 1, (2, -1)), (M,)),
    "tensor_split": (lambda a: torch.tensor_split(a, 3, dim=1)[2], (M,)),
    "hsplit": (lambda a: torch.hsplit(a, [1, 3])[1], (M,)),
    "select": (lambda a: torch.select(a, 1, -1), (M,)),
    "argwhere": (lambda a: torch.argwhere(a > 0), (M,)),
    "msort": (lambda a: torch.msort(a), (M,)),
    "cummax": (lambda a: torch.cummax(a, 1).indices, (M,)),
    "logcumsumexp": (lambda a: torch.logcumsumexp(a, 0), (M,)),
    "nansum": (lambda a: torch.nansum(a, 1), (WITH_NAN,)),
    "nanmean": (lambda a: torch.nanmean(a, 0, keepdim=True), (WITH_NAN,)),
    "aminmax": (lambda a: torch.aminmax(a, dim=0).max, (M,)),
    "var_mean": (lambda a: torch.var_mean(a, 1, correction=0)[0], (M,)),
    "median": (lambda a: torch.median(a, 1).values, (M,)),
    "median_index": (lambda a: torch.median(a, 0).indices, (M,)),
    "nanmedian": (lambda a: torch.nanmedian(a), (WITH_NAN,)),
    "quantile": (lambda a: torch.quantile(a, 0.3, dim=1), (M,)),
    "dist": (lambda a, b: torch.dist(a, b, 3), (M, M[::-1].copy())),
    "cov": (lambda a: torch.cov(a), (M,)),
    "corrcoef": (lambda a: torch.corrcoef(a), (M,)),
    "bucketize": (lambda a: torch.bucketize(a, (torch if isinstance(a, torch.Tensor) else interop)
                                            .tensor([-1.0, 0.0, 1.0], device=a.device)), (M,)),
    "histc": (lambda a: torch.histc(a, bins=5), (M,)),
    "trapezoid": (lambda a: torch.trapezoid(a, dx=0.5), (M,)),
    # written from pieces every backend has (Dask lacks kron, cross, heaviside, ... itself)
    "trapezoid_x": (lambda a, x: torch.trapezoid(a, x[0], dim=1), (M, np.cumsum(M, axis=1))),
    "trapezoid_dim0": (lambda a: torch.trapezoid(a, dim=0), (M,)),
    "kron_ranks": (lambda a: torch.kron(a[0], a), (M,)),
    "kron_3d": (lambda b: torch.kron(b, b[:1, :2]), (BATCH,)),
    "cross_default_dim": (lambda a, b: torch.cross(a.T, b.T), (V3, V3[::-1].copy())),
    "inner_vectors": (lambda a: torch.inner(a[0], a[1]), (M,)),
    "heaviside_nan": (lambda a: torch.heaviside(a - 1, a), (WITH_NAN,)),
    "diagflat": (lambda a: torch.diagflat(a, 1), (M[:2, :2].copy(),)),
    "column_stack_0d": (lambda a: torch.column_stack([a[0, 0], a[1, 1]]), (M,)),
}
# cases that call another table entry than their name says
OPERATION = {"median_index": "median"}
OPERATION.update({case: case.split("_")[0] for case in ("trapezoid_x", "trapezoid_dim0",
                  "kron_ranks", "kron_3d", "inner_vectors", "heaviside_nan")})
OPERATION.update({"cross_default_dim": "cross", "column_stack_0d": "column_stack"})


@pytest.mark.parametrize("name", CASES)
def test_composite_matches_torch(name, backend):
    call, operands = CASES[name]
    expected = call(*[torch.from_numpy(o.copy()) for o in operands])
    args = [interop.tensor(o, backend=backend) for o in operands]
    declared_gap = TABLE[OPERATION.get(name, name)].lacks.get(backend)
    if declared_gap is not None:  # the record says the backend cannot: it must say so when called
        with pytest.raises(interop.errors.BackendLacksError, match=backend):
            to_numpy(call(*args))
        return
    got = call(*args)
    assert isinstance(got, interop.Tensor) and got.backend == backend
    res, exp = to_numpy(got), expected.numpy()
    assert res.dtype == exp.dtype and res.shape == exp.shape, (res.dtype, exp.dtype, res.shape)
    np.testing.assert_allclose(res, exp, rtol=2e-5, atol=2e-5, equal_nan=True)


def test_named_tuples():
    t = interop.tensor(M)
    assert torch.cummax(t, 0)._fields == ("values", "indices")
    assert torch.median(t, 0)._fields == ("values", "indices")
    assert torch.aminmax(t)._fields == ("min", "max")


def test_integer_scalars_truncate_like_torch():
    a = np.arange(6).reshape(2, 3)
    got = torch.addmm(interop.tensor(a[:, :2]), interop.tensor(a), interop.tensor(a.T[:, :2]),
                      beta=0.5, alpha=1.7)
    exp = torch.addmm(torch.from_numpy(a[:, :2]), torch.from_numpy(a), torch.from_numpy(a.T[:, :2]),
                      beta=0.5, alpha=1.7)
    np.testing.assert_array_equal(to_numpy(got), exp.numpy())
