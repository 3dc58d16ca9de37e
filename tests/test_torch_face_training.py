"""Training through ``interop.TorchTensor``: a small CNN (Conv2d, BatchNorm2d, ReLU, max
pooling, Linear) moved onto a backend with ``interop.to_backend`` and trained by an unmodified
loop (cross-entropy, ``loss.backward()``, ``torch.optim.SGD`` with momentum) for 20 steps in
float64 matches the same training on torch's own tensors; a dispatch mode counting every ATen
operation shows none ran on torch's kernels, and on Dask, with the per-step persist turned off
(``persist_state="never"``), the 20 steps build one graph without computing it (the default
persists after each step: tests/test_dask_training.py).  (On a GPU the same test runs on CuPy.)
"""

from __future__ import annotations

import numpy as np
import pytest

import interop
from tests.conftest import BACKENDS, torch_device

torch = pytest.importorskip("torch")
dask_counting = pytest.importorskip("tests.helpers.dask_counting")
pytree = pytest.importorskip("torch.utils._pytree")
python_dispatch = pytest.importorskip("torch.utils._python_dispatch")

STEPS = 20
CHUNKS = {"dask": (3, 1, 8, 8)}  # two chunks along the batch


class KernelCounter(python_dispatch.TorchDispatchMode):
    """Every ATen operation, sorted by where it ran: on a TorchTensor (the face's handler,
    so the backend) or on torch's own tensors only (torch's kernels).  torch's bookkeeping
    touches no data and is set apart: the optimizer's profiler marks, and the empty (0-element)
    ``reserve`` tensor torch's C++ batch_norm makes for cuDNN."""

    def __init__(self) -> None:
        super().__init__()
        self.on_face, self.on_torch, self.bookkeeping = 0, [], set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        tensors = [x for x in pytree.tree_leaves((args, kwargs)) if isinstance(x, torch.Tensor)]
        out = func(*args, **(kwargs or {}))
        if any(isinstance(x, interop.TorchTensor) for x in tensors):
            self.on_face += 1
        elif func.namespace == "profiler" or not tensors and out.numel() == 0:
            self.bookkeeping.add(str(func))
        else:
            self.on_torch.append(str(func))
        return out


def cnn() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
        torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(4 * 4 * 4, 3)).double()


def train(model, x, y, steps: int = STEPS) -> list:
    """An unmodified training loop; the loss of each step (not read)."""
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return losses


def data():
    rng = np.random.default_rng(0)
    return rng.random((6, 1, 8, 8)), np.array([0, 1, 2, 0, 1, 2])


def values(t) -> np.ndarray:
    return t.detach().as_interop().numpy(force=True) if isinstance(t, interop.TorchTensor) \
        else t.detach().numpy()


@pytest.fixture(scope="module")
def reference():
    """The same training on torch's own tensors: (losses, state_dict)."""
    x, y = data()
    model = cnn()
    losses = train(model, torch.from_numpy(x), torch.from_numpy(y))
    return [float(v) for v in losses], model.state_dict()


@pytest.mark.parametrize("backend", BACKENDS)
def test_cnn_trains_on_the_backend_as_on_torch(backend, reference):
    torch_device(backend)  # the face is a torch tensor: it needs a device torch has
    x, y = data()
    model = interop.to_backend(cnn(), backend)
    assert all(isinstance(p, interop.TorchTensor) and isinstance(p, torch.nn.Parameter)
               and p.backend == backend for p in model.parameters())
    options = {"chunks": CHUNKS[backend]} if backend in CHUNKS else {}
    xt = interop.tensor(x, backend=backend, **options).as_torch()
    yt = interop.tensor(y, backend=backend).as_torch()
    counter = KernelCounter()
    with dask_counting.ComputeCounter() as computes, counter, \
            interop.config(persist_state="never"):
        losses = train(model, xt, yt)
    assert computes.count == 0, f"{computes.count} computations while training"
    assert counter.on_torch == [], f"ran on torch's kernels: {sorted(set(counter.on_torch))}"
    assert counter.on_face > 20 * STEPS
    assert all(isinstance(v, interop.TorchTensor) and v.backend == backend for v in losses)
    expected_losses, expected_state = reference
    got = interop.compute(*(v.as_interop() for v in losses),
                          *(v.as_interop() for v in model.state_dict().values()))
    np.testing.assert_allclose([float(v) for v in got[:STEPS]], expected_losses, rtol=0,
                               atol=1e-5)
    for (name, want), have in zip(expected_state.items(), got[STEPS:]):
        np.testing.assert_allclose(np.asarray(have.numpy(force=True)), want.numpy(), rtol=0,
                                   atol=1e-5, err_msg=name)


def test_autograd_grad_and_backward_agree_with_torch(backend):
    torch_device(backend)
    x, _ = data()
    w = np.linspace(-1, 1, 9).reshape(1, 1, 3, 3)
    xt = interop.tensor(x, backend=backend).as_torch(requires_grad=True)
    wt = interop.tensor(w, backend=backend).as_torch(requires_grad=True)
    xr, wr = (torch.from_numpy(a.copy()).requires_grad_() for a in (x, w))
    f = lambda a, b: torch.nn.functional.conv2d(a, b).tanh().pow(2).mean()  # noqa: E731
    gx, gw = torch.autograd.grad(f(xt, wt), (xt, wt))
    ex, ew = torch.autograd.grad(f(xr, wr), (xr, wr))
    assert isinstance(gx, interop.TorchTensor) and gx.backend == backend
    np.testing.assert_allclose(values(gx), ex.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(values(gw), ew.numpy(), rtol=1e-10, atol=1e-12)
    f(xt, wt).backward()
    assert xt.grad.backend == backend
    np.testing.assert_allclose(values(wt.grad), ew.numpy(), rtol=1e-10, atol=1e-12)
