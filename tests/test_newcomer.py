"""What a newcomer from torch or NumPy types first: devices, dtypes and names they already use."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import interop
from interop.errors import UnknownNameError
from tests.conftest import off_host, to_numpy

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("call", [
    lambda t: t.to(torch.device("cpu")), lambda t: t.to(device=torch.device("cpu")),
    lambda t: t.to("cpu"), lambda t: t.to(interop.device("cpu")),
], ids=["to(torch.device)", "to(device=torch.device)", "to('cpu')", "to(interop.device)"])
def test_torch_devices_are_devices(call, backend) -> None:
    t = interop.tensor([1.0, 2.0], backend=backend)
    moved = call(t)  # off the host, the move lands on the host's backend
    assert moved.device == "cpu" and moved.backend == ("numpy" if off_host(backend) else backend)
    assert interop.tensor([1.0], device=torch.device("cpu")).device == "cpu"


@pytest.mark.parametrize("dtype", [np.float64, "float64", torch.float64, float, np.dtype("float64"),
                                   "torch.DoubleTensor", "double"], ids=repr)
def test_every_spelling_of_a_dtype(dtype, backend) -> None:
    t = interop.tensor([1.0, 2.0], backend=backend)
    for converted in (t.to(dtype), t.to("cpu", dtype), t.type(dtype),
                      interop.zeros(2, dtype=dtype), interop.tensor([1, 2], dtype=dtype)):
        assert converted.dtype == np.float64 and converted.dtype == torch.float64


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int32, torch.int16,
                                   torch.int8, torch.uint8, torch.bool, torch.complex64,
                                   torch.complex128, torch.float16, torch.uint16])
def test_type_names_as_torch(dtype, backend) -> None:
    t = interop.zeros(2, dtype=dtype, backend=backend)
    expected = torch.zeros(2, dtype=dtype).type()  # a CUDA tensor's: torch.cuda.<name>
    assert t.type() == (expected.replace("torch.", "torch.cuda.", 1) if t.is_cuda else expected)


@pytest.mark.parametrize("data", [[np.float64(1), 2.0], [np.float32(1), 2.0], [np.int32(1), 2],
                                  [np.int32(1), 2.0], [np.float16(1), np.float64(2)],
                                  [[np.float64(1)], [2.0]], [np.int8(1), True],
                                  [np.complex64(1), 2.0], [1.0, 2.0], [1, 2]], ids=repr)
def test_list_dtypes_inferred_as_torch(data) -> None:
    assert interop.tensor(data).dtype == torch.tensor(data).dtype


@pytest.mark.parametrize("call, match", [
    (lambda t: t.to(backend="jaxx"), r"unknown backend 'jaxx'.*'numpy', 'cupy', 'dask'"),
    (lambda t: interop.tensor([1.0], backend="dsak"), r"unknown backend 'dsak': did you mean 'dask'"),
    (lambda t: interop.zeros(2, device="gpu"), r"unknown device type 'gpu': did you mean 'cuda'"),
    (lambda t: t.to("dask"), r"'dask' is a backend: pass backend='dask'"),
    (lambda t: interop.zeros(2, dtype="flaot32"), r"unknown dtype 'flaot32': did you mean 'float32'"),
    (lambda t: t.to(dtype="int33"), r"unknown dtype 'int33'"),
], ids=["backend", "backend-typo", "device-gpu", "backend-as-device", "dtype-typo", "dtype"])
def test_wrong_names_list_the_valid_ones(call, match) -> None:
    t = interop.tensor([1.0])
    with pytest.raises(UnknownNameError, match=match) as info:
        call(t)
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)


EINOPS_CASES = [("rearrange", "b h w -> b (h w)", {}), ("rearrange", "b h w -> w b h", {}),
                ("reduce", "b h w -> b", {"reduction": "max"}),
                ("reduce", "b h w -> h", {"reduction": "prod"}),
                ("reduce", "b (h h2) w -> b h w", {"reduction": "mean", "h2": 3}),
                ("repeat", "b h w -> b h w c", {"c": 2}), ("repeat", "b h w -> (b 2) h w", {})]


@pytest.mark.parametrize("name, pattern, options", EINOPS_CASES, ids=[c[1] for c in EINOPS_CASES])
def test_einops_main_api(name, pattern, options, backend) -> None:
    einops = pytest.importorskip("einops")
    a = np.arange(2 * 3 * 4, dtype=np.float64).reshape(2, 3, 4)
    t = interop.tensor(a, backend=backend)
    got = getattr(einops, name)(t, pattern, **options)
    assert isinstance(got, interop.Tensor) and got.backend == backend
    np.testing.assert_array_equal(to_numpy(got), getattr(einops, name)(a, pattern, **options))


def test_einops_found_whichever_is_imported_first() -> None:
    pytest.importorskip("einops")
    import subprocess
    import sys
    program = ("import sys, einops, numpy as np; assert 'interop' not in sys.modules; import interop; "
               "assert einops.rearrange(interop.tensor(np.ones((2, 3))), 'a b -> b a').shape == (3, 2); "
               "print('ok')")
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "ok", out.stderr
    lazy = subprocess.run([sys.executable, "-c", "import sys, interop; print('einops' in sys.modules)"],
                          capture_output=True, text=True, timeout=120)
    assert lazy.stdout.strip() == "False", lazy.stderr  # importing interop does not import einops


def test_ndarray_spellings_scipy_reads(backend) -> None:
    scipy_linalg = pytest.importorskip("scipy.linalg")
    a = np.arange(24.0).reshape(2, 3, 4)
    t = interop.tensor(a, backend=backend)
    if backend != "dask":  # views keep NumPy's layout (CuPy's too)
        assert (t.strides, t[:, 1].strides, t.T.strides) == (a.strides, a[:, 1].strides, a.T.strides)
    else:  # Dask: the C-contiguous strides its chunks will have
        assert (t.strides, t.T.strides) == (a.strides, np.ascontiguousarray(a.T).strides)
    z = interop.tensor(np.array([1 + 2j, 3 - 1j]), backend=backend)
    np.testing.assert_array_equal(to_numpy(z.conjugate()), np.conjugate(to_numpy(z)))
    v = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(scipy_linalg.toeplitz(interop.tensor(v)), scipy_linalg.toeplitz(v))
    np.testing.assert_array_equal(scipy_linalg.circulant(interop.tensor(v)), scipy_linalg.circulant(v))


def test_strides_of_unknown_sizes_say_so() -> None:
    pytest.importorskip("dask")
    d = interop.tensor(np.arange(6.0), backend="dask")
    assert d.strides == (8,)
    with pytest.raises(interop.UnknownShapeError, match="compute_chunk_sizes"):
        _ = d[d > 2].strides


@pytest.mark.parametrize("name, s, dim", [
    ("ihfftn", (3, 4), None), ("hfftn", (3, 4), None), ("fftn", (3, 4), None),
    ("rfftn", (2, 3, 4), None), ("irfftn", (3, 4), None), ("ihfft2", (3, 4), (-2, -1)),
    ("hfftn", (3,), 0), ("ihfftn", None, None),
])
def test_fft_sizes_without_numpy_deprecation(name, s, dim, backend) -> None:
    """s without dim means the last len(s) dims in torch; NumPy is given those axes
    explicitly, so its "will raise an error in a future version" warning never fires."""
    x = np.random.default_rng(0).random((5, 6, 7))
    kwargs = {"s": s} if dim is None else {"s": s, "dim": dim}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = getattr(torch.fft, name)(interop.tensor(x, backend=backend), **kwargs)
        values = to_numpy(got)
    expected = getattr(torch.fft, name)(torch.tensor(x), **kwargs)
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_allclose(values, expected.numpy(), rtol=1e-10, atol=1e-10)
