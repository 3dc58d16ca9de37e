"""The device model: interop.device, t.device, to/cuda/cpu/to_device, Dask chunks on a
device, no silent host<->GPU transfers, the transfer guard.  GPU tests are marked and
skip cleanly without CUDA; everything device-generic runs everywhere."""

from __future__ import annotations

import logging
import pickle

import numpy as np
import pytest

import interop
from tests.conftest import HAS_GPU, home_device, off_host, to_numpy

HOST = np.arange(12.0).reshape(3, 4)


# ------------------------------------------------------------------ interop.device
@pytest.mark.parametrize("dev, text", [
    (interop.device("cpu"), "cpu"), (interop.device("cuda", 0), "cuda:0"),
    (interop.device("cuda"), "cuda:0"), (interop.device("cuda:1"), "cuda:1"),
])
def test_device_equals_torch_style_strings(dev, text):
    assert dev == text and str(dev) == text and dev == interop.device(text)
    assert hash(dev) == hash(interop.device(text))
    assert pickle.loads(pickle.dumps(dev)) == dev


def test_device_inequalities_and_repr():
    assert interop.device("cuda", 1) != "cuda:0" and interop.device("cpu") != "cuda"
    assert interop.device("cpu") != "banana"
    assert repr(interop.device("cuda", 1)) == "device(type='cuda', index=1)"
    assert repr(interop.device("cpu")) == "device(type='cpu')"
    with pytest.raises(ValueError, match="cpu.*cuda"):
        interop.device("tpu")


def test_device_of_host_tensors(backend):
    t = interop.tensor(HOST, backend=backend)
    assert t.device == home_device(backend) and t.is_cuda == (backend == "cupy")


# ------------------------------------------------------------------ explicit moves on the host
def test_to_cpu_keeps_backend_and_values(backend):
    t = interop.tensor(HOST, backend=backend)
    for moved in (t.to("cpu"), t.cpu(), t.to(interop.device("cpu")), t.to_device("cpu")):
        assert moved.device == "cpu"
        assert moved.backend == ("numpy" if off_host(backend) else backend)
        np.testing.assert_array_equal(to_numpy(moved), HOST)


def test_to_dask_with_chunks_and_back_to_numpy(backend):
    t = interop.tensor(HOST, backend=backend)
    lazy = t.to(backend="dask", chunks=(1, 2))
    assert lazy.backend == "dask" and lazy.chunks == ((1, 1, 1), (2, 2))
    assert lazy.device == t.device  # the chunks stay where the data was
    eager = lazy.to(backend="numpy")
    assert eager.backend == "numpy"
    np.testing.assert_array_equal(eager.raw, HOST)


def test_numpy_backend_refuses_a_gpu_device():
    with pytest.raises(interop.DeviceMismatchError, match="cpu.*cuda"):
        interop.tensor(HOST, backend="numpy", device="cuda")


@pytest.mark.skipif(HAS_GPU, reason="checks the message where CuPy is missing")
def test_gpu_request_without_cupy_says_what_to_install():
    pytest.importorskip("dask")
    try:
        import cupy  # noqa: F401
        pytest.skip("cupy is installed")
    except ImportError:
        pass
    for call in (lambda: interop.tensor(HOST).cuda(), lambda: interop.tensor(HOST).to("cuda"),
                 lambda: interop.zeros(3, device="cuda"),
                 lambda: interop.tensor(HOST, backend="dask").to("cuda")):
        with pytest.raises(ImportError, match="cupy"):
            call()


# ------------------------------------------------------------------ the transfer guard (options)
def test_transfer_guard_is_a_setting_and_a_context():
    assert interop.config.get("transfer_guard") == "allow"
    with interop.transfer_guard("disallow"):
        assert interop.config.get("transfer_guard") == "disallow"
        with interop.transfer_guard("log"):
            assert interop.config.get("transfer_guard") == "log"
        assert interop.config.get("transfer_guard") == "disallow"
    assert interop.config.get("transfer_guard") == "allow"
    with pytest.raises(ValueError, match="'allow', 'log', 'disallow'"):
        interop.transfer_guard("sometimes")


@pytest.mark.parametrize("make", [interop.zeros_like, interop.ones_like, interop.empty_like,
                                  lambda t, device: interop.full_like(t, 3.0, device=device),
                                  lambda t, device: t.new_zeros(2, device=device),
                                  lambda t, device: t.to(device)],
                         ids=["zeros_like", "ones_like", "empty_like", "full_like", "new_zeros",
                              "to"])
def test_like_creation_goes_to_the_device_asked(make, backend):
    """torch's ``device=`` of the ``*_like`` and ``new_*`` forms (op_db's device='cuda'
    samples): a host tensor's like made on ``backend``'s device, and back on the host."""
    home = home_device(backend)
    host = interop.tensor([1.0, 2.0])
    there = make(host, device=home)
    assert there.device == home
    assert make(interop.tensor([1.0, 2.0], backend=backend), device="cpu").device == "cpu"


def test_host_mixes_are_not_transfers(backend):
    """NumPy with Dask (both host memory) is no transfer: the guard does not fire."""
    if off_host(backend):
        pytest.skip("host-only mix")
    with interop.transfer_guard("disallow"):
        out = interop.tensor(HOST) + interop.tensor(HOST, backend=backend)
    np.testing.assert_array_equal(to_numpy(out), 2 * HOST)


def test_cuda_array_interface_only_on_gpu_tensors(backend):
    t = interop.tensor(HOST, backend=backend)
    assert hasattr(t, "__cuda_array_interface__") == (backend == "cupy")


# ------------------------------------------------------------------ on a GPU
gpu = pytest.mark.gpu


@gpu
def test_cuda_round_trip_and_device_index():
    import cupy
    t = interop.tensor(HOST)
    for g in (t.cuda(), t.to("cuda"), t.to("cuda:0"), t.to_device("cuda"),
              interop.tensor(HOST, device="cuda"), t.to(device=interop.device("cuda", 0))):
        assert g.backend == "cupy" and g.device == "cuda:0" and g.is_cuda
        assert isinstance(g.raw, cupy.ndarray)
        back = g.cpu()
        assert back.backend == "numpy"
        np.testing.assert_array_equal(back.raw, HOST)


@gpu
def test_second_gpu_is_honoured():
    import cupy
    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("needs two GPUs")
    g = interop.tensor(HOST).to("cuda:1")
    assert g.device == "cuda:1" and g.raw.device.id == 1
    assert g.to("cuda:0").device == "cuda:0"
    assert interop.zeros(3, device="cuda:1").device == "cuda:1"


@gpu
def test_no_silent_transfers_and_clear_errors():
    g = interop.tensor(HOST).cuda()
    with pytest.raises(TypeError, match=r"cpu\(\)"):
        g.numpy()
    with pytest.raises(TypeError, match=r"cpu\(\)"):
        np.asarray(g)
    with pytest.raises(interop.DeviceMismatchError) as info:
        g + interop.tensor(HOST)
    msg = str(info.value)
    assert "cpu" in msg and "cuda:0" in msg and ".to(" in msg
    assert g.numpy(force=True).shape == HOST.shape  # the explicit escape hatch
    # 0-d host tensors join a GPU operation as scalars, as in torch
    np.testing.assert_array_equal(to_numpy(g * interop.tensor(2.0)), HOST * 2)


@gpu
def test_implicit_transfer_under_the_guard(caplog):
    g = interop.tensor(HOST).cuda()
    h = interop.tensor(HOST)
    with interop.config(implicit_transfer=True):
        np.testing.assert_array_equal(to_numpy(g + h), 2 * HOST)
        with interop.transfer_guard("log"), caplog.at_level(logging.WARNING, "interop.transfer"):
            g + h
        assert "implicit transfer between cpu (numpy), cuda:0 (cupy)" in caplog.text
        with interop.transfer_guard("disallow"), \
                pytest.raises(interop.DeviceMismatchError, match="transfer_guard"):
            g + h


@gpu
def test_dask_chunks_on_the_gpu():
    import cupy
    g = interop.tensor(HOST).cuda()
    lazy = g.to(backend="dask", chunks=(1, 4))
    assert lazy.backend == "dask" and lazy.device == "cuda:0"
    out = (lazy * 2).sum(dim=0).compute()
    assert out.backend == "cupy" and isinstance(out.raw, cupy.ndarray)
    np.testing.assert_array_equal(out.cpu().raw, HOST.sum(axis=0) * 2)
    host_lazy = interop.tensor(HOST, backend="dask", chunks=(1, 4))
    on_gpu = host_lazy.to("cuda")
    assert on_gpu.backend == "dask" and on_gpu.device == "cuda:0"
    assert on_gpu.cpu().device == "cpu"
    z = interop.zeros(4, 4, backend="dask", device="cuda", chunks=2)
    assert z.device == "cuda:0" and isinstance(z.compute().raw, cupy.ndarray)
    kinds = []
    on_gpu.map_blocks(lambda b: kinds.append(b.backend) or b, dtype=on_gpu.dtype).compute()
    assert set(kinds) == {"cupy"}


@gpu
def test_cuda_array_interface_and_dlpack_are_zero_copy():
    import cupy
    g = interop.tensor(HOST).cuda()
    assert g.__cuda_array_interface__["data"][0] == g.raw.data.ptr
    assert cupy.asarray(g).data.ptr == g.raw.data.ptr
    assert cupy.from_dlpack(g).data.ptr == g.raw.data.ptr
    back = interop.tensor(cupy.arange(3.0), backend=None)
    assert back.backend == "cupy"
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    tt = torch.from_dlpack(g)
    assert tt.is_cuda and tt.data_ptr() == g.raw.data.ptr
    assert interop.as_tensor(tt).raw.data.ptr == g.raw.data.ptr
