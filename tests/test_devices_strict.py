"""The device model on array-api-strict's extra devices: runs on every CI run, GPU or not.

array-api-strict arrays live on ``CPU_DEVICE``, ``device1`` and ``device2``
(interop's ``cpu``, ``strict:1``, ``strict:2``) and refuse cross-device mixing
as CuPy's do across host and GPUs, so the generic device logic the CuPy backend
relies on (placement, ``to(...)``, mixing errors, ``implicit_transfer`` and the
transfer guard) is exercised here.  Values are checked against NumPy.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest

import interop

strict = pytest.importorskip("array_api_strict")

HOST = np.arange(12.0).reshape(3, 4)
DEVICES = ["cpu", "strict:1", "strict:2"]
OFF_HOST = ["strict:1", "strict:2"]
xa = interop.array_api


def on(device: str, data: np.ndarray = HOST) -> interop.Tensor:
    return interop.tensor(data, backend="strict", device=device)


def values(t: interop.Tensor) -> np.ndarray:
    """Host values, through the explicit move only (``.cpu()``)."""
    host = t.cpu()
    assert host.device == "cpu"
    return np.asarray(host.raw)


def native(device: str):
    return interop.get_backend("strict").native_device(device)


# ------------------------------------------------------------------ names and placement
def test_strict_devices_are_interop_devices():
    assert interop.device("strict:1") == "strict:1" == interop.device("strict", 1)
    assert interop.device("strict") == "strict:1"  # like 'cuda' meaning 'cuda:0'
    assert repr(interop.device("strict", 2)) == "device(type='strict', index=2)"
    be = interop.get_backend("strict")
    assert native("cpu") == strict.Device("CPU_DEVICE")
    assert native("strict:2") == strict.Device("device2")
    with pytest.raises(ValueError, match="strict:3"):
        be.native_device("strict:3")


@pytest.mark.parametrize("device", DEVICES)
def test_tensor_is_placed_on_the_device(device):
    t = on(device)
    assert t.backend == "strict" and t.device == device
    assert t.raw.device == native(device)  # really there: array-api-strict agrees
    assert t.dtype == np.float64 and t.shape == HOST.shape
    np.testing.assert_array_equal(values(t), HOST)


@pytest.mark.parametrize("device", OFF_HOST)
def test_a_device_alone_picks_its_backend(device):
    t = interop.tensor(HOST, device=device)  # as device='cuda' picks CuPy
    assert t.backend == "strict" and t.device == device
    assert interop.zeros(2, 3, device=device).device == device
    assert interop.tensor(HOST, device=device, dtype=interop.float32).dtype == np.float32


@pytest.mark.parametrize("device", OFF_HOST)
@pytest.mark.parametrize("make, expected", [  # floats default to float32, as in torch
    (lambda d: interop.zeros(2, 3, device=d), np.zeros((2, 3), np.float32)),
    (lambda d: interop.ones(4, device=d, dtype=interop.int32), np.ones(4, dtype=np.int32)),
    (lambda d: interop.full((2,), 3.5, device=d), np.full(2, 3.5, np.float32)),
    (lambda d: interop.arange(5, device=d), np.arange(5)),
    (lambda d: interop.eye(3, device=d), np.eye(3, dtype=np.float32)),
    (lambda d: interop.zeros_like(interop.tensor(HOST, device=d)), np.zeros_like(HOST)),
    (lambda d: xa.asarray(HOST, device=d), HOST),
])
def test_creation_functions_honour_device(device, make, expected):
    t = make(device)
    assert t.backend == "strict" and t.device == device
    got = values(t)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("device, default", [("strict:1", np.float64), ("strict:2", np.float32)])
def test_array_api_creation_takes_the_devices_default_dtype(device, default):
    """array-api-strict's device2 defaults to float32 (as some GPUs do); the standard's
    creation functions follow the device, given as an interop or a native device."""
    native_default = strict.__array_namespace_info__().default_dtypes(device=native(device))
    assert interop.get_backend("strict").dtype_of(strict.zeros(1, dtype=native_default[
        "real floating"])) == default
    for t in (xa.zeros((2, 3), device=device), xa.zeros((2, 3), device=native(device))):
        assert t.device == device and t.dtype == default
        np.testing.assert_array_equal(values(t), np.zeros((2, 3), default))


@pytest.mark.parametrize("device", DEVICES)
def test_native_arrays_keep_their_device(device):
    """A library array already on a device stays there (as a CuPy array stays on its GPU);
    host arrays follow the default backend, as NumPy arrays do."""
    raw = strict.asarray(HOST, device=native(device))
    for t in (interop.tensor(raw), xa.asarray(raw)):
        assert t.backend == ("numpy" if device == "cpu" else "strict")
        assert t.device == device
    assert interop.tensor(raw).raw is not raw  # a copy, on the same device
    assert interop.as_tensor(raw).device == device
    assert interop.as_tensor(raw).raw is raw  # no copy
    for t in (interop.tensor(raw), interop.as_tensor(raw), xa.asarray(raw)):
        np.testing.assert_array_equal(values(t), HOST)


# ------------------------------------------------------------------ explicit moves
@pytest.mark.parametrize("source", DEVICES)
@pytest.mark.parametrize("dest", DEVICES)
def test_to_moves_between_devices(source, dest):
    t = on(source)
    for moved in (t.to(dest), t.to(interop.device(dest)), t.to(device=dest), t.to_device(dest)):
        assert moved.backend == "strict" and moved.device == dest
        assert moved.raw.device == native(dest)
        np.testing.assert_array_equal(values(moved), HOST)
    assert t.device == source  # the source stays where it was


@pytest.mark.parametrize("source, dest", [("strict:1", "strict:2"), ("cpu", "strict:1"),
                                          ("strict:2", "cpu")])
def test_to_another_tensor_takes_its_device_and_dtype(source, dest):
    """torch's t.to(other): other only names the target, so it may sit on any device."""
    other = on(dest, HOST.astype(np.float32))
    for t in (on(source), interop.tensor(HOST)):
        moved = t.to(other)
        assert moved.device == dest and moved.dtype == np.float32
        np.testing.assert_array_equal(values(moved), HOST.astype(np.float32))
    assert on(source).to(other).raw.device == native(dest)


@pytest.mark.parametrize("device", OFF_HOST)
def test_moves_across_backends(device):
    t = interop.tensor(HOST).to(device)  # NumPy -> a device (as .cuda())
    assert t.backend == "strict" and t.device == device
    back = t.to(backend="numpy")  # and back to NumPy (as .cpu() from CuPy)
    assert back.backend == "numpy" and back.device == "cpu"
    np.testing.assert_array_equal(back.raw, HOST)
    assert t.cpu().backend == "strict"  # strict holds host data itself, CuPy hands it to NumPy
    f32 = t.to(interop.float32)
    assert f32.device == device and f32.dtype == np.float32


@pytest.mark.parametrize("device", OFF_HOST)
def test_values_leave_the_device_only_when_asked(device):
    t = on(device)
    with pytest.raises(TypeError, match=r"can't convert strict tensor to numpy.*cpu\(\)"):
        t.numpy()
    np.testing.assert_array_equal(t.numpy(force=True), HOST)
    assert t.tolist() == HOST.tolist() and on(device, np.float64(2.5)).item() == 2.5


# ------------------------------------------------------------------ operations stay on the device
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name, fn, ref", [
    ("t + t", lambda t: t + t, HOST + HOST),
    ("torch.add", lambda t: __import__("torch").add(t, t), HOST + HOST),
    ("keywords", lambda t: interop.add(t, other=t, alpha=2), HOST * 3),
    ("xa.multiply", lambda t: xa.multiply(t, t), HOST * HOST),
    ("xa.exp", lambda t: xa.exp(t), np.exp(HOST)),
    ("xa.sum", lambda t: xa.sum(t, axis=0), HOST.sum(axis=0)),
    ("xa.matmul", lambda t: xa.matmul(t, xa.matrix_transpose(t)), HOST @ HOST.T),
    ("xa.where", lambda t: xa.where(xa.greater(t, 3.0), t, 0.0), np.where(HOST > 3, HOST, 0.0)),
])
def test_operations_on_one_device_stay_there(device, name, fn, ref):
    if name == "torch.add":
        pytest.importorskip("torch")
    out = fn(on(device))
    assert out.backend == "strict" and out.device == device, name
    np.testing.assert_allclose(values(out), ref)


# ------------------------------------------------------------------ mixing devices
def _surfaces(a: interop.Tensor, b: interop.Tensor) -> list:
    calls = [("operator", lambda: a + b), ("operator, reflected", lambda: b * a),
             ("Array API", lambda: xa.add(a, b)), ("method", lambda: a.add(b)),
             ("NumPy ufunc", lambda: np.add(a, b)), ("NumPy function", lambda: np.stack([a, b])),
             ("keywords", lambda: interop.add(a, other=b, alpha=2))]
    try:
        import torch
        calls.append(("torch", lambda: torch.add(a, b)))
    except ImportError:
        pass
    return calls


MIXES = [("strict:1", "strict:2"), ("strict:1", "cpu"), ("cpu", "strict:2")]


@pytest.mark.parametrize("dev_a, dev_b", MIXES)
def test_mixing_devices_raises_naming_both_and_the_fix(dev_a, dev_b):
    a, b = on(dev_a), on(dev_b)
    for surface, call in _surfaces(a, b):
        with pytest.raises(interop.DeviceMismatchError) as info:
            call()
        msg = str(info.value)
        assert dev_a in msg and dev_b in msg and ".to(" in msg, (surface, msg)
        assert "implicit_transfer=True" in msg


@pytest.mark.parametrize("device", OFF_HOST)
def test_mixing_with_numpy_raises_on_every_surface(device):
    t, h = on(device), interop.tensor(HOST)
    calls = [lambda: t + h, lambda: h + t, lambda: t + HOST, lambda: HOST + t,
             lambda: np.add(t, h), lambda: np.add(h, t), lambda: np.multiply(HOST, t),
             lambda: xa.add(h, t)] + [call for _, call in _surfaces(t, h)]
    for call in calls:
        with pytest.raises(interop.DeviceMismatchError, match=rf"{device}.*\.to\(|cpu.*{device}"):
            call()


def test_device_mismatch_is_also_a_value_and_runtime_error():
    with pytest.raises(ValueError):
        on("strict:1") + on("strict:2")
    with pytest.raises(RuntimeError):
        on("strict:1") + on("strict:2")


@pytest.mark.parametrize("device", OFF_HOST)
def test_host_scalars_join_any_device(device):
    t = on(device)
    for out, ref in ((xa.multiply(2.0, t), HOST * 2), (xa.add(t, 1.0), HOST + 1)):
        assert out.device == device
        np.testing.assert_array_equal(values(out), ref)


# ------------------------------------------------------------------ implicit transfers, opt-in
@pytest.mark.parametrize("dev_a, dev_b", MIXES + [("strict:2", "numpy")])
def test_implicit_transfer_moves_data_to_the_device(dev_a, dev_b):
    a = on(dev_a)
    b = interop.tensor(HOST * 10) if dev_b == "numpy" else on(dev_b, HOST * 10)
    off_host = [d for d in (dev_a, dev_b) if d not in ("cpu", "numpy")]
    with interop.config(implicit_transfer=True):
        # the result lands on the first operand's device off the host
        for out, where in ((a + b, off_host[0]), (xa.add(a, b), off_host[0]),
                           (b + a, off_host[-1])):
            assert out.backend == "strict" and out.device == where
            np.testing.assert_array_equal(values(out), HOST * 11)
    assert b.device == ("cpu" if dev_b == "numpy" else dev_b)  # operands did not move
    with pytest.raises(interop.DeviceMismatchError):  # off again outside the block
        a + b


# ------------------------------------------------------------------ the transfer guard
def test_guard_allow_log_disallow_as_context(caplog):
    a, b = on("strict:1"), on("strict:2", HOST * 10)
    with interop.config(implicit_transfer=True):
        with interop.transfer_guard("allow"), caplog.at_level(logging.WARNING, "interop.transfer"):
            np.testing.assert_array_equal(values(a + b), HOST * 11)
        assert "implicit transfer" not in caplog.text
        with interop.transfer_guard("log"), caplog.at_level(logging.WARNING, "interop.transfer"):
            np.testing.assert_array_equal(values(a + b), HOST * 11)
        assert "implicit transfer between strict:1 (strict), strict:2 (strict)" in caplog.text
        with interop.transfer_guard("disallow"):
            with pytest.raises(interop.DeviceMismatchError, match=r"transfer_guard.*t\.to\("):
                a + b
            with pytest.raises(interop.DeviceMismatchError, match="cpu \\(numpy\\), strict:1"):
                a + interop.tensor(HOST)
            # explicit moves are never guarded, nor are ops on one device
            np.testing.assert_array_equal(values(a + b.to("strict:1")), HOST * 11)
    assert interop.config.get("transfer_guard") == "allow"


def test_guard_as_a_global_setting(caplog):
    a, h = on("strict:2"), interop.tensor(HOST)
    interop.transfer_guard("disallow")
    try:
        with interop.config(implicit_transfer=True), \
                pytest.raises(interop.DeviceMismatchError, match="disallow"):
            a + h
        interop.transfer_guard("log")
        with interop.config(implicit_transfer=True), \
                caplog.at_level(logging.WARNING, "interop.transfer"):
            out = h + a
        assert out.device == "strict:2"
        assert "implicit transfer between cpu (numpy), strict:2 (strict)" in caplog.text
    finally:
        interop.transfer_guard("allow")


def test_guard_does_not_fire_without_a_transfer():
    with interop.transfer_guard("disallow"), interop.config(implicit_transfer=True):
        for device in DEVICES:
            t = on(device)
            np.testing.assert_array_equal(values(t + xa.multiply(t, 2.0)), HOST * 3)
        # host mixes (strict's host array with NumPy's) are no transfer either
        out = on("cpu") + interop.tensor(HOST)
        assert out.device == "cpu"
        np.testing.assert_array_equal(values(out), HOST * 2)


def test_importing_interop_does_not_import_array_api_strict():
    import subprocess
    import sys
    code = "import sys, interop; print('array_api_strict' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("device", DEVICES)
def test_numpy_functions_run_by_name_in_the_namespace_of_a_library_without_nep18(device) -> None:
    """array-api-strict arrays implement neither NEP 13 nor 18: ``np.mean``, ``np.fft.rfft`` and
    ufuncs run its own functions of the same name, on the data's device, never via the host."""
    t = on(device)
    for func, expected in [(np.mean, np.mean(HOST)), (np.sqrt, np.sqrt(HOST)),
                           (np.fft.rfft, np.fft.rfft(HOST)), (np.add, HOST + HOST)]:
        got = func(t, t) if func is np.add else func(t)
        assert isinstance(got, interop.Tensor) and got.device == device, func
        np.testing.assert_allclose(values(got), expected, rtol=1e-12)


@pytest.mark.parametrize("call", [lambda t: np.median(t), lambda t: np.add.reduce(t)],
                         ids=["median", "add.reduce"])
def test_numpy_functions_the_namespace_lacks_raise_naming_the_backend(call) -> None:
    with pytest.raises(TypeError, match="not implemented by the strict backend"):
        call(on("strict:1"))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("values_", [(1.0, 2.0), (3, -1), (True, False), ("tensor", 2.5)],
                         ids=["floats", "ints", "bools", "tensor and float"])
def test_where_of_numbers_stays_on_the_device_with_torchs_dtype(device, values_):
    """interop.where with Python numbers for both branches (or one) on array-api-strict's
    devices: torch's dtype (the default float for floats), on the condition's device."""
    torch = pytest.importorskip("torch")
    mask = np.array([[True, False], [False, True]])
    ours = [on(device, np.array([[1.0, 5.0], [2.0, 0.5]], np.float32)) if v == "tensor" else v
            for v in values_]
    theirs = [torch.tensor([[1.0, 5.0], [2.0, 0.5]]) if v == "tensor" else v for v in values_]
    got = interop.where(on(device, mask), *ours)
    expected = torch.where(torch.from_numpy(mask), *theirs)
    assert got.device == device and got.backend == "strict"
    assert got.dtype == getattr(interop, str(expected.dtype).removeprefix("torch."))
    np.testing.assert_array_equal(values(got), expected.numpy())


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("values_", [(np.float32(1.5), 2), (np.int8(3), -1),
                                     (np.float64(1.0), np.float64(2.0))],
                         ids=["float32 and int", "int8 and int", "two float64"])
def test_where_of_numpy_scalars_works_on_every_device(device, values_):
    """NumPy scalars are 0-d arrays of their dtype, on array-api-strict's devices as on the
    host (array-api-strict takes no NumPy scalar: interop makes them arrays of the device)."""
    mask = np.array([True, False, True])
    got = interop.where(on(device, mask), *values_)
    host = interop.where(interop.tensor(mask), *values_)
    assert got.device == device and got.dtype == host.dtype
    np.testing.assert_array_equal(values(got), np.where(mask, *values_).astype(host.dtype))
