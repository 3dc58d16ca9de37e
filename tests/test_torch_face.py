"""``t.as_torch()``: an ``interop.TorchTensor``, a real ``torch.Tensor`` over the same data on
the same backend, for torch code that checks types (``isinstance``, ``torch.finfo``), validates
arguments (``torch.distributions``), or is written against torch tensors (kornia,
torchvision.transforms.v2).  Its ATen operations run on the backend: results are TorchTensors
there, Dask stays lazy until a value is read, and an operation no record covers raises naming
it, never running on torch's kernels.
"""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy, torch_device

torch = pytest.importorskip("torch")
dask_counting = pytest.importorskip("tests.helpers.dask_counting")
lazily = dask_counting.lazily
D = torch.distributions

X = np.linspace(-2, 2, 24).reshape(2, 3, 4)


@pytest.fixture(autouse=True)
def _a_device_torch_has(request):
    """The face is a torch tensor: on the gpulike test device, which torch lacks, these
    tests skip (test_a_device_torch_lacks_is_refused_naming_it checks the refusal)."""
    if "backend" in request.fixturenames:
        torch_device(request.getfixturevalue("backend"))


def face(x, backend, **kwargs):
    chunks = {"chunks": tuple(max(1, n // 2) for n in x.shape)} if backend == "dask" else {}
    return interop.tensor(x, backend=backend, **chunks).as_torch(**kwargs)


def check(got, expected, backend) -> None:
    """``got`` is a TorchTensor on ``backend`` with torch's dtype, shape and values."""
    assert isinstance(got, interop.TorchTensor) and got.backend == backend
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(to_numpy(got.as_interop()), expected.detach().numpy(),
                               rtol=1e-6, atol=1e-6)


def test_import_interop_imports_no_torch_and_the_class_loads_it():
    code = ("import sys, interop; assert 'torch' not in sys.modules; t = interop.tensor([1.]); "
            "assert 'torch' not in sys.modules; x = t.as_torch(); import torch; "
            "assert isinstance(x, torch.Tensor) and interop.TorchTensor is type(x)")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_device_torch_lacks_is_refused_naming_it():
    with pytest.raises(interop.DeviceMismatchError, match="torch has no device gpulike:0"):
        interop.tensor(X, backend="gpulike").as_torch()


def test_a_torch_tensor_over_the_same_data(backend):
    t = interop.tensor(X, backend=backend)
    x = t.as_torch()
    assert isinstance(x, torch.Tensor) and isinstance(x, interop.TorchTensor)
    assert x.dtype is torch.float64 and x.shape == (2, 3, 4) and x.device.type == \
        ("cuda" if backend == "cupy" else "cpu")
    assert x.as_interop() is t and x.backend == backend and not x.requires_grad
    assert torch.finfo(x.dtype).eps == np.finfo(np.float64).eps
    assert torch.iinfo(x.long().dtype).max == np.iinfo(np.int64).max
    assert x.is_quantized is False and x.layout is torch.strided


def test_no_copy_writes_through_both_faces():
    t = interop.tensor(X)
    x = t.as_torch()
    x[0, 0, 0] = 100.0
    x.mul_(2)
    assert t.raw[0, 0, 0] == 200.0 and np.shares_memory(t.raw, x.as_interop().raw)
    t[1] = 0
    assert float(x[1].sum()) == 0.0


@pytest.mark.parametrize("call", [
    lambda x: x + 1,
    lambda x: torch.nn.functional.softmax(x, dim=-1),
    lambda x: torch.einsum("bij,bkj->bik", x, x),
    lambda x: x.transpose(0, 2).reshape(4, -1) @ x.reshape(6, 4).T.reshape(6, 4),
    lambda x: torch.cat([x, x.flip(0)], dim=1)[:, ::2].cumsum(1),
    lambda x: torch.where(x > 0, x.exp(), x.sin()).amax(dim=(0, 2)),
    lambda x: torch.nn.functional.layer_norm(x, (4,)),
    lambda x: x[torch.tensor([1, 0])].std(dim=1),
], ids=["add", "softmax", "einsum", "matmul", "cat_slice_cumsum", "where_amax", "layer_norm",
        "index_std"])
def test_torch_calls_give_torch_values_on_the_backend_lazily(call, backend):
    x = face(X, backend)
    with lazily():
        got = call(x)
    check(got, call(torch.from_numpy(X.copy())), backend)


def test_distributions_validate_and_stay_on_the_backend(backend):
    """Default validation reads the support check (one compute of a bool on Dask); the
    result itself is lazy.  Without validation nothing is computed."""
    x, ref = face(X, backend), torch.from_numpy(X.copy())
    check(D.Normal(0.0, 1.0).log_prob(x), D.Normal(0.0, 1.0).log_prob(ref), backend)
    check(D.Categorical(logits=x).entropy(), D.Categorical(logits=ref).entropy(), backend)
    with lazily():
        lp = D.Normal(0.0, 1.0, validate_args=False).log_prob(x)
    check(lp, D.Normal(0.0, 1.0).log_prob(ref), backend)


def test_kornia_box_blur(backend):
    kornia = pytest.importorskip("kornia")
    img = np.random.default_rng(0).random((2, 3, 8, 8))
    with lazily():
        got = kornia.filters.box_blur(face(img, backend), (3, 3))
    check(got, kornia.filters.box_blur(torch.from_numpy(img), (3, 3)), backend)


def test_torchvision_transforms_v2(backend):
    v2 = pytest.importorskip("torchvision.transforms.v2")
    img = np.random.default_rng(0).random((3, 16, 12)).astype(np.float32)
    transform = v2.Compose([v2.Resize((12, 10), antialias=False), v2.CenterCrop(8),
                            v2.Normalize(mean=[0.5, 0.4, 0.3], std=[0.2, 0.3, 0.4])])
    x = face(img, backend)
    with lazily():
        got = transform(x)
    assert got is not x
    check(got, transform(torch.from_numpy(img)), backend)


def test_an_operation_no_record_covers_names_itself_and_the_backend(backend):
    x = face(np.random.default_rng(0).random((1, 1, 6, 6)), backend)
    with pytest.raises(NotImplementedError,
                       match=rf"aten\.fractional_max_pool2d\.default .*{backend} backend.*"
                             "does not fall back to torch's own kernels"):
        torch.nn.functional.fractional_max_pool2d(x, 2, output_size=3)


def test_unknown_dask_sizes_are_refused_where_the_policy_forbids_computing_them():
    x = face(X, "dask")
    with interop.config(dask_compute="raise"), pytest.raises(interop.UnknownShapeError,
                                                             match="compute_chunk_sizes"):
        x[x > 0]


def test_to_backend_pickle_deepcopy_and_state_dict(backend):
    torch.manual_seed(0)
    model = interop.to_backend(torch.nn.Linear(4, 2).double(), backend)
    assert isinstance(model.weight, torch.nn.Parameter) and model.weight.backend == backend
    clone = copy.deepcopy(model)
    assert clone.weight is not model.weight and clone.weight.backend == backend
    assert isinstance(clone.weight, torch.nn.Parameter)
    restored = pickle.loads(pickle.dumps(model.weight))
    assert restored.backend == backend and restored.requires_grad
    plain = torch.nn.Linear(4, 2).double()
    model.load_state_dict(plain.state_dict())  # torch tensors copied onto the backend
    check(model(face(X[0], backend)), plain(torch.from_numpy(X[0].copy())), backend)
    back = torch.nn.Linear(4, 2).double()
    back.load_state_dict(clone.state_dict())  # and back into torch's own tensors
    np.testing.assert_allclose(back.weight.detach().numpy(), to_numpy(clone.weight.as_interop()))


def test_mixing_the_faces_gives_the_plain_facade(backend):
    """A TorchTensor among the operands of interop's own functions (or NumPy's, or a torch
    function that a plain interop tensor takes over) is its interop tensor; one that requires
    grad is refused, since the plain facade records no gradients."""
    t = interop.tensor(X, backend=backend)
    x = interop.tensor(X * 2, backend=backend).as_torch()
    for got in (t + x, x + t, interop.add(t, x), torch.add(x, t), np.add(t, x)):
        assert type(got) is interop.Tensor and got.backend == backend
        np.testing.assert_allclose(to_numpy(got), X * 3)
    with pytest.raises(TypeError, match="requires grad cannot be an operand"):
        t + x.requires_grad_()


@pytest.mark.parametrize("other", ["dask", "jax", "cubed", "torch"])
def test_gradients_on_the_other_backends(other):
    """The face holds any backend's tensor: JAX's (immutable: writes rebind), Cubed's (lazy),
    torch's own (the table runs torch's functions); gradients come back on it, and a write
    through a detached alias reaches the tensor, as torch's do."""
    pytest.importorskip(other)
    x = interop.tensor(X[0], backend=other).as_torch(requires_grad=True)
    (torch.nn.functional.softmax(x, -1) * x).sum().backward()
    ref = torch.from_numpy(X[0].copy()).requires_grad_()
    (torch.nn.functional.softmax(ref, -1) * ref).sum().backward()
    assert x.grad.backend == other
    np.testing.assert_allclose(to_numpy(x.grad.as_interop()), ref.grad.numpy(), atol=1e-12)
    x.detach().add_(1)[0] = 5.0
    np.testing.assert_allclose(to_numpy(x.as_interop())[0], 5.0)
