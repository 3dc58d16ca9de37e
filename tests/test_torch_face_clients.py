"""What torch's libraries do with ``as_torch()`` tensors once the first forward pass works
(issue 32): checkpoints, fused attention, ``torch.unique``, spectrograms and masking on Dask,
aliasing checks by ``data_ptr()``, ``torch.compile``.  Each is compared with torch on its own
tensors; torchvision's and torchaudio's calls, which CI lacks, are reproduced with torch alone.
"""

from __future__ import annotations

import copy
import io

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy

torch = pytest.importorskip("torch")
pytest.importorskip("dask")
counting = pytest.importorskip("tests.helpers.dask_counting")

BACKENDS = ("numpy", "dask")


def face(x: np.ndarray, backend: str, **kwargs):
    chunks = {"chunks": tuple(max(1, (n + 1) // 2) for n in x.shape)} if backend == "dask" \
        else {}
    return interop.tensor(x, backend=backend, **chunks).as_torch(**kwargs)


def check(got, expected, backend: str, tol: float = 1e-6) -> None:
    """``got`` is a TorchTensor on ``backend`` with torch's dtype, shape and values."""
    assert isinstance(got, interop.TorchTensor) and got.backend == backend, type(got)
    assert got.dtype == expected.dtype and got.shape == expected.shape, (got, expected)
    np.testing.assert_allclose(to_numpy(got.as_interop()), expected.detach().numpy(),
                               rtol=tol, atol=tol)


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3)).double()


# ------------------------------------------------------------------ 1. checkpoints
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_checkpoint_loads_with_weights_only_and_holds_the_values(backend):
    reference = _model()
    model = interop.to_backend(copy.deepcopy(reference), backend)
    state = model.state_dict()
    buffer = io.BytesIO()
    with counting.ComputeCounter() as counter:
        torch.save(state, buffer)
    assert counter.count == (len(state) if backend == "dask" else 0)  # each tensor once
    buffer.seek(0)
    loaded = torch.load(buffer)  # weights_only=True, torch's default
    assert loaded.keys() == reference.state_dict().keys()
    for name, expected in reference.state_dict().items():
        assert type(loaded[name]) is torch.Tensor and torch.equal(loaded[name], expected), name
    # face tensors again: load into a model already on the backend
    again = interop.to_backend(_model().apply(_scrambled), backend)
    again.load_state_dict(loaded)
    x = np.linspace(-1, 1, 8).reshape(2, 4)
    check(again.eval()(face(x, backend)), reference.eval()(torch.from_numpy(x)), backend)
    assert again[0].weight.backend == backend


def _scrambled(module) -> None:
    for p in module.parameters(recurse=False):
        torch.nn.init.normal_(p)


def test_a_parameter_saves_as_a_parameter_and_pickle_keeps_the_backend():
    model = interop.to_backend(_model(), "dask")
    buffer = io.BytesIO()
    torch.save(model[0].weight, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer)
    assert type(loaded) is torch.nn.Parameter and loaded.requires_grad
    np.testing.assert_array_equal(loaded.detach().numpy(), to_numpy(model[0].weight.as_interop()))
    import pickle
    assert pickle.loads(pickle.dumps(model[0].weight)).backend == "dask"  # a graph still


def test_saving_a_dask_checkpoint_follows_the_compute_policy():
    model = interop.to_backend(_model(), "dask")
    with interop.config(dask_compute="raise"), pytest.raises(interop.DaskComputeError,
                                                             match="torch.save"):
        torch.save(model.state_dict(), io.BytesIO())
