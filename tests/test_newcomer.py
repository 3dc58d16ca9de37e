"""What a newcomer from torch or NumPy types first: devices, dtypes and names they already use."""

from __future__ import annotations

import numpy as np
import pytest

import interop
from interop.errors import UnknownNameError

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("call", [
    lambda t: t.to(torch.device("cpu")), lambda t: t.to(device=torch.device("cpu")),
    lambda t: t.to("cpu"), lambda t: t.to(interop.device("cpu")),
], ids=["to(torch.device)", "to(device=torch.device)", "to('cpu')", "to(interop.device)"])
def test_torch_devices_are_devices(call, backend) -> None:
    t = interop.tensor([1.0, 2.0], backend=backend)
    moved = call(t)
    assert moved.device == "cpu" and moved.backend == backend
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
    expected = torch.zeros(2, dtype=dtype).type()
    assert interop.zeros(2, dtype=dtype, backend=backend).type() == expected


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
