"""Laziness: 20 chained calls on each surface (interop functions, Tensor methods and
operators, torch, NumPy, the Array API) build a Dask graph and compute nothing; the one
explicit compute at the end matches the same chain run on NumPy tensors."""

from __future__ import annotations

import numpy as np
import pytest

import interop

pytest.importorskip("dask.array")
from tests.helpers.dask_counting import ComputeCounter  # noqa: E402


def chain_interop(x):
    i = interop
    y = i.add(x, 1.0); y = i.mul(y, 0.5); y = i.exp(i.neg(y)); y = i.sub(y, 0.25)
    y = i.abs(y); y = i.sqrt(y); y = i.clamp(y, 0.1, 2.0); y = i.matmul(y, i.transpose(y, 0, 1))
    y = i.sum(y, dim=1, keepdim=True); y = i.div(y, i.amax(y)); y = i.log1p(y); y = i.where(y > 0.5, y, 0.0)
    y = i.cat([y, y], dim=1); y = i.reshape(y, (-1,)); y = i.cumsum(y, dim=0); y = i.flip(y, dims=(0,))
    y = i.maximum(y, i.mean(y)); y = i.sin(y); y = i.std(y, dim=0, keepdim=True)
    return i.pow(y, 2)                                                       # 20 calls


def chain_methods(x):
    y = (x + 1) * 0.5; y = y.exp().neg(); y = y - y.mean(dim=0, keepdim=True); y = y.abs().sqrt()
    y = y @ y.T; y = y[1:, :-2]; y = y.reshape(-1, 2); y = y.sum(dim=1); y = y / y.max()
    y = y.unsqueeze(0).expand(3, -1); y = y.permute(1, 0).contiguous(); y = y.clamp(min=0.2)
    return y.var(dim=0) ** 0.5                                               # 22 calls


def chain_torch(x):
    torch = pytest.importorskip("torch")
    y = torch.add(x, 1.0); y = torch.mul(y, 0.5); y = torch.clamp(y - 2.0, min=0); y = torch.exp(-y)
    y = torch.tanh(y); y = torch.sigmoid(y); y = torch.matmul(y, y.T); y = torch.div(y, y.sum())
    y = torch.sum(y, dim=0); y = torch.cat([y, y]); y = torch.stack([y, y]); y = torch.mean(y, dim=0)
    y = torch.clamp(y, 0.0, 1.0); y = torch.where(y > 0.1, y, torch.zeros_like(y)); y = torch.sqrt(y)
    y = torch.cumsum(y, dim=0); y = torch.flip(y, dims=(0,)); y = torch.maximum(y, torch.mean(y))
    return torch.sin(y)                                                      # 20 calls


def chain_numpy(x):
    y = np.add(x, 1.0); y = np.multiply(y, 0.5); y = np.exp(-y); y = np.sqrt(y); y = np.tanh(y)
    y = np.matmul(y, np.transpose(y)); y = np.mean(y, axis=0); y = np.concatenate([y, y])
    y = np.where(y > 0.1, y, 0.0); y = np.clip(y, 0.0, 1.0); y = np.cumsum(y); y = np.flip(y)
    y = np.einsum("i,i->i", y, y); y = np.maximum(y, np.mean(y)); y = np.log1p(y)
    return np.sin(y)                                                         # 20 calls


def chain_array_api(x):
    xp = x.__array_namespace__()
    y = xp.add(x, 1.0); y = xp.multiply(y, 0.5); y = xp.exp(xp.negative(y)); y = xp.sqrt(y)
    y = xp.matmul(y, xp.permute_dims(y, (1, 0))); y = xp.sum(y, axis=0); y = xp.concat([y, y])
    y = xp.where(y > 0.1, y, 0.0); y = xp.clip(y, 0.0, 1.0); y = xp.cumulative_sum(y)
    y = xp.flip(y); y = xp.maximum(y, xp.mean(y)); y = xp.log1p(y); y = xp.sin(y)
    return xp.square(y)                                                      # 20 calls


CHAINS = {"interop": chain_interop, "methods": chain_methods, "torch": chain_torch,
          "numpy": chain_numpy, "array_api": chain_array_api}


@pytest.mark.parametrize("surface", CHAINS)
def test_twenty_chained_calls_compute_nothing(surface):
    host = np.random.default_rng(0).standard_normal((8, 6))
    lazy = interop.tensor(host, backend="dask", chunks=(4, 3))
    with ComputeCounter() as counter, interop.config(dask_compute="raise"):
        out = CHAINS[surface](lazy)
        assert isinstance(out, interop.Tensor) and out.backend == "dask"
        repr(out)  # printing never computes either
        assert counter.count == 0
        value = out.compute()
        assert counter.count == 1
    np.testing.assert_allclose(value.raw, CHAINS[surface](interop.tensor(host)).raw,
                               rtol=1e-10, atol=1e-12)


LINSPACE = [((0, "z", 3), {}), ((0, "z32", 5), {}), (("z", 0, 4), {"endpoint": False}),
            ((0, "v", 3), {"axis": 1}), ((1, "z", 1), {}), ((0, "z", 0), {}),
            ((0, "z", 4), {"dtype": int}), ((0, "z", 5), {"retstep": True})]


@pytest.mark.parametrize("args, kwargs", LINSPACE)
def test_linspace_with_lazy_endpoints_stays_lazy(args, kwargs):
    """np.linspace with 0-d (or n-d) Dask tensors as endpoints: Dask's own reads them
    (float(stop), even under dask_compute='raise'); interop's stays in the graph and gives
    NumPy's values, dtype and step."""
    host = {"z": np.array(2.0), "z32": np.float32(2.0), "v": np.array([1.0, 5.0])}
    lazy = {k: interop.tensor(np.asarray(a), backend="dask") for k, a in host.items()}
    with interop.config(dask_compute="raise"), ComputeCounter() as counter:
        out = np.linspace(*(lazy.get(a, a) if isinstance(a, str) else a for a in args), **kwargs)
    assert counter.count == 0
    ref = np.linspace(*(host.get(a, a) if isinstance(a, str) else a for a in args), **kwargs)
    if kwargs.get("retstep"):
        (out, step), (ref, ref_step) = out, ref
        assert float(step) == ref_step
    assert out.backend == "dask"
    got = out.compute().numpy()
    assert (got.dtype, got.shape) == (ref.dtype, ref.shape)
    np.testing.assert_array_equal(got, ref)
