"""State that lands: a torch module's buffers (and weights) that torch updates during the
forward pass are updated as torch updates them when the input is an interop tensor, on every
backend; on Dask the update is a value read, so ``dask_compute="raise"`` refuses it before
anything is written.  Each module is checked against the same module run by torch."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy

torch = pytest.importorskip("torch")
nn = torch.nn

RNG = np.random.default_rng(0)
# every torch module whose forward writes into its own state, with an input it takes
STATEFUL = {
    "BatchNorm1d (N, C)": (lambda: nn.BatchNorm1d(3), (8, 3)),
    "BatchNorm1d (N, C, L)": (lambda: nn.BatchNorm1d(3, momentum=None), (4, 3, 5)),
    "BatchNorm2d": (lambda: nn.BatchNorm2d(3), (4, 3, 5, 5)),
    "BatchNorm3d": (lambda: nn.BatchNorm3d(3, affine=False), (4, 3, 3, 3, 3)),
    "InstanceNorm1d": (lambda: nn.InstanceNorm1d(3, track_running_stats=True), (4, 3, 5)),
    "InstanceNorm2d": (lambda: nn.InstanceNorm2d(3, track_running_stats=True), (4, 3, 5, 5)),
    "InstanceNorm3d": (lambda: nn.InstanceNorm3d(3, track_running_stats=True, affine=True),
                       (2, 3, 3, 3, 3)),
    "Embedding(max_norm)": (lambda: nn.Embedding(10, 4, max_norm=1.0), None),
}


def _input(shape: tuple | None) -> np.ndarray:
    if shape is None:  # Embedding's indices: a few rows, some twice
        return np.array([[1, 2, 4], [4, 3, 9]])
    return (RNG.standard_normal(shape) * 3 + 1).astype(np.float32)


def _tensor(host: np.ndarray, backend: str) -> interop.Tensor:
    chunks = {"chunks": (max(1, host.shape[0] // 2), *host.shape[1:])} if backend == "dask" else {}
    return interop.tensor(host, backend=backend, **chunks)


def _state(module: nn.Module) -> dict[str, np.ndarray]:
    return {k: v.detach().numpy().copy() for k, v in module.state_dict().items()}


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("name", STATEFUL)
def test_forward_updates_state_as_torch(name, backend):
    make, shape = STATEFUL[name]
    torch.manual_seed(0)
    module = make().train()
    reference = copy.deepcopy(module)
    host = _input(shape)
    for _ in range(2):  # twice: the second pass starts from the first's state
        expected = reference(torch.from_numpy(host))
        with torch.no_grad():
            got = module(_tensor(host, backend))
        np.testing.assert_allclose(to_numpy(got), expected.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)
    ours, theirs = _state(module), _state(reference)
    assert ours.keys() == theirs.keys()
    for key in theirs:
        np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-5, atol=1e-6, err_msg=key)


@pytest.mark.parametrize("name", [n for n in STATEFUL if STATEFUL[n][1] is not None])
def test_lazy_state_update_refused_under_raise_leaves_state_unchanged(name):
    make, shape = STATEFUL[name]
    torch.manual_seed(0)
    module = make().train()
    before = _state(module)
    with interop.config(dask_compute="raise"), pytest.raises(interop.DaskComputeError,
                                                             match="eager operands"):
        module(_tensor(_input(shape), "dask"))
    after = _state(module)
    for key, value in before.items():
        if key != "num_batches_tracked":  # torch's own forward counts the batch first
            np.testing.assert_array_equal(after[key], value, err_msg=key)


def test_inference_writes_nothing_and_computes_nothing():
    from tests.helpers.dask_counting import ComputeCounter
    module = nn.BatchNorm2d(3).eval()
    before = _state(module)
    with ComputeCounter() as counter:
        out = module(_tensor(_input((4, 3, 5, 5)), "dask"))
    assert counter.count == 0 and type(out.raw).__module__.startswith("dask")
    assert all(np.array_equal(_state(module)[k], v) for k, v in before.items())
