"""The PyTorch backend: interop tensors holding torch tensors, checked against torch and NumPy.

Every surface on torch-backed tensors: the torch surface and interop's functions, methods
and operators run torch's own functions (results torch-backed, torch's values and dtypes);
NumPy calls run array-api-compat's torch namespace (never a conversion to NumPy); the
Array API namespace runs it too.  Then the mixing policy, devices, views and writes,
subclasses, 0-d and empty inputs.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import interop

torch = pytest.importorskip("torch")
F = torch.nn.functional

from tests.conftest import to_numpy  # noqa: E402
from tests.helpers.numpy_compare import as_tensors  # noqa: E402
from tests.test_numpy_functions import CASES  # noqa: E402

CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
A = torch.arange(12.0).reshape(3, 4) - 5.5  # float32, as torch makes it


def on_torch(x=A) -> interop.Tensor:
    return interop.as_tensor(x.clone())


def same(got, expected) -> None:
    """``got`` (interop, torch-backed) holds torch's ``expected``: values, dtype, shape."""
    if isinstance(expected, torch.Tensor):
        assert isinstance(got, interop.Tensor) and got.backend == "torch", type(got)
        assert got.raw.dtype == expected.dtype and got.raw.shape == expected.shape
        torch.testing.assert_close(got.raw, expected, equal_nan=True)
    elif isinstance(expected, (tuple, list)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            same(g, e)
    else:
        assert got == expected and type(got) is type(expected), (got, expected)


# ------------------------------------------------------------------ creation
def test_a_torch_tensor_stays_torch_and_shares_memory():
    x = A.clone()
    t = interop.as_tensor(x)
    assert t.backend == "torch" and t.raw is x
    assert interop.Tensor(x).raw is x
    copy = interop.tensor(x)  # torch.tensor's role: a copy, still torch
    assert copy.backend == "torch" and copy.raw is not x
    torch.testing.assert_close(copy.raw, x)
    assert interop.from_dlpack(x).backend == "numpy"  # DLPack import: host memory, shared
    assert interop.tensor(x, backend="numpy").backend == "numpy"
    assert interop.tensor(np.ones(3), backend="torch").raw.dtype == torch.float64



def test_tensor_copies_across_backends_as_torch_tensor_does():
    """``interop.tensor`` copies (torch.tensor's role) also where the move itself would
    share memory (DLPack between NumPy and torch); ``as_tensor`` shares."""
    host = np.zeros(3, dtype=np.float32)
    interop.tensor(host, backend="torch").add_(1)
    interop.tensor(torch.from_numpy(host), backend="numpy").add_(1)
    assert not host.any()
    interop.as_tensor(host, backend="torch").add_(1)
    assert host.all()

@pytest.mark.parametrize("make, expected", [
    (lambda: interop.zeros(2, 3, backend="torch"), torch.zeros(2, 3)),
    (lambda: interop.ones(3, dtype=interop.int32, backend="torch"),
     torch.ones(3, dtype=torch.int32)),
    (lambda: interop.full((2,), 2.5, backend="torch"), torch.full((2,), 2.5)),
    (lambda: interop.arange(5, backend="torch"), torch.arange(5)),
    (lambda: interop.arange(0.0, 1.0, 0.25, backend="torch"), torch.arange(0.0, 1.0, 0.25)),
    (lambda: interop.linspace(0, 1, 5, backend="torch"), torch.linspace(0, 1, 5)),
    (lambda: interop.eye(2, 3, backend="torch"), torch.eye(2, 3)),
    (lambda: interop.tensor([[1, 2], [3, 4]], backend="torch"), torch.tensor([[1, 2], [3, 4]])),
    (lambda: interop.zeros_like(on_torch()), torch.zeros_like(A)),
    (lambda: interop.full_like(on_torch(), 7), torch.full_like(A, 7)),
])
def test_creation_on_the_torch_backend(make, expected):
    same(make(), expected)


def test_default_backend_and_environment_variable():
    old = interop.default_backend()
    interop.set_default_backend("torch")
    try:
        assert interop.tensor([1.0, 2.0]).backend == "torch"
        assert interop.zeros(2).backend == "torch"
    finally:
        interop.set_default_backend(old)
    code = "import interop; print(interop.tensor([1.0]).backend, interop.ones(2).raw.dtype)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**__import__("os").environ, "INTEROP_BACKEND": "torch"}).stdout
    assert out.split() == ["torch", "torch.float32"]


# ------------------------------------------------------------------ the torch surface
CALLS = {  # name -> f(lib, t): torch's callable on a torch tensor vs on an interop tensor
    "torch.add": lambda lib, t: torch.add(t, 1),
    "torch.add alpha": lambda lib, t: torch.add(t, t, alpha=2),
    "method": lambda lib, t: t.add(1).mul(2),
    "interop function": lambda lib, t: (interop.add if lib == "interop" else torch.add)(t, 1),
    "F.relu": lambda lib, t: F.relu(t),
    "F.softmax": lambda lib, t: F.softmax(t, dim=1),
    "F.linear": lambda lib, t: F.linear(t, torch.ones(2, 4), torch.zeros(2)),
    "operators": lambda lib, t: (t + t) * 2.5 - t / 3,
    "int division": lambda lib, t: t.long() // 3,
    "reflected": lambda lib, t: 1 - t,
    "matmul": lambda lib, t: t @ t.T,
    "sum dim": lambda lib, t: t.sum(dim=0),
    "mean keepdim": lambda lib, t: torch.mean(t, 1, keepdim=True),
    "max dim": lambda lib, t: t.max(1),
    "sort": lambda lib, t: torch.sort(t, dim=1, descending=True),
    "reshape varargs": lambda lib, t: t.reshape(4, 3).permute(1, 0),
    "view": lambda lib, t: t.view(-1),
    "getitem": lambda lib, t: t[1:, ::2],
    "mask": lambda lib, t: t[t > 0],
    "fancy index": lambda lib, t: t[[0, 2]],
    "cat": lambda lib, t: torch.cat([t, t], dim=0),
    "stack": lambda lib, t: torch.stack([t, t]),
    "where": lambda lib, t: torch.where(t > 0, t, torch.zeros(())),
    "linalg.norm": lambda lib, t: torch.linalg.norm(t),
    "fft": lambda lib, t: torch.fft.rfft(t),
    "cast": lambda lib, t: t.to(torch.float64).double().half(),
    "bfloat16": lambda lib, t: t.bfloat16(),
    "split": lambda lib, t: torch.split(t, 2, dim=1),
    "cumsum": lambda lib, t: t.cumsum(0),
    "einsum": lambda lib, t: torch.einsum("ij,kj->ik", t, t),
    "not in interop's table": lambda lib, t: torch.vander(t[0]),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_torch_surface_runs_torch_itself(name):
    call = CALLS[name]
    same(call("interop", on_torch()), call("torch", A.clone()))


@pytest.mark.parametrize("make", [lambda: torch.nn.Linear(4, 2), lambda: torch.nn.LayerNorm(4),
                                  lambda: torch.nn.Conv1d(3, 2, 2)])
def test_modules_on_torch_backed_tensors(make):
    torch.manual_seed(0)
    module = make()
    with torch.no_grad():
        same(module(on_torch()), module(A.clone()))


def test_torch_errors_are_torchs():
    t = on_torch()
    with pytest.raises(RuntimeError, match="shape"):
        t @ t
    with pytest.raises(IndexError):
        t[5]
    with pytest.raises(RuntimeError, match="result type Float can't be cast"):
        interop.as_tensor(torch.ones(3, dtype=torch.int64)).add_(0.5)


def test_attributes_are_interops():
    t = on_torch()
    assert t.dtype == interop.float32 and t.dtype == torch.float32
    assert t.device == "cpu" and t.device.backend == "torch" and t.is_cuda is False
    assert t.shape == (3, 4) and t.ndim == 2 and t.numel() == 12 and len(t) == 3
    assert t.size == 12 and t.size() == (3, 4) and t.size(1) == 4
    assert repr(t).endswith("backend='torch')") and "tensor([[-5.5000" in repr(t)
    assert t[0, 0].item() == -5.5 and float(t[0, 0]) == -5.5 and t.tolist()[0][0] == -5.5


# ------------------------------------------------------------------ the NumPy surface
NUMPY_CALLS = {
    "mean": lambda t: np.mean(t), "sum axis": lambda t: np.sum(t, axis=0),
    "std": lambda t: np.std(t), "add": lambda t: np.add(t, np.ones(4, dtype=np.float32)),
    "exp ufunc": lambda t: np.exp(t), "maximum": lambda t: np.maximum(t, 0.0),
    "fft": lambda t: np.fft.fft(t), "matmul": lambda t: np.matmul(t, np.ones((4, 2), np.float32)),
    "add.reduce": lambda t: np.add.reduce(t), "multiply.accumulate":
        lambda t: np.multiply.accumulate(t, axis=1), "concatenate":
        lambda t: np.concatenate([t, t]), "where": lambda t: np.where(t > 0, t, 0.0),
    "argsort": lambda t: np.argsort(t, axis=1), "linalg.norm": lambda t: np.linalg.norm(t),
}


@pytest.mark.parametrize("name", list(NUMPY_CALLS))
def test_numpy_calls_run_on_torch(name):
    call = NUMPY_CALLS[name]
    got = call(on_torch())
    expected = call(A.numpy().copy())
    assert isinstance(got, interop.Tensor) and got.backend == "torch"
    np.testing.assert_allclose(to_numpy(got), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::UserWarning")
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_numpy_table_never_converts(case):
    """The 248 NumPy calls of tests/test_numpy_functions.py: each runs on torch (arrays in the
    result torch-backed) or raises; none gives a NumPy-backed result."""
    args, kwargs = case.arrays()
    targs = as_tensors(args, "torch")
    tkwargs = {k: as_tensors(v, "torch") for k, v in kwargs.items()}
    try:
        got = case.func(*targs, **tkwargs)
    except (TypeError, RuntimeError, ValueError, NotImplementedError, IndexError):
        return
    for item in got if isinstance(got, (tuple, list)) else (got,):
        assert not isinstance(item, (np.ndarray, np.generic)), f"{case.name}: a NumPy result"
        if isinstance(item, interop.Tensor):
            assert item.backend == "torch", case.name


def test_numpy_function_torch_lacks_is_a_clear_error():
    with pytest.raises(TypeError, match="numpy.ptp is not implemented by the torch backend"):
        np.ptp(on_torch())


def test_numpy_out_writes_into_the_torch_tensor():
    t, out = on_torch(), on_torch(torch.empty(3, 4))
    buffer = out.raw
    assert np.add(t, 1, out=out) is out and out.raw is buffer
    torch.testing.assert_close(buffer, A + 1)


def test_asarray_of_a_cpu_tensor_shares_memory():
    t = on_torch()
    host = np.asarray(t)
    host[0, 0] = 42
    assert t.raw[0, 0] == 42


# ------------------------------------------------------------------ the Array API surface
def test_array_namespace_runs_array_api_compat_torch():
    t = on_torch()
    xp = t.__array_namespace__()
    for got, expected in [(xp.mean(t, axis=0), A.mean(0)), (xp.matmul(t, t.T), A @ A.T),
                          (xp.linalg.vector_norm(t), torch.linalg.vector_norm(A)),
                          (xp.fft.fft(t), torch.fft.fft(A)), (xp.sum(t), A.sum()),
                          (xp.concat([t, t], axis=1), torch.cat([A, A], 1)),
                          (xp.astype(t, xp.int64), A.to(torch.int64))]:
        same(got, expected)
    made = xp.zeros(3, device=t.device)
    assert made.backend == "torch" and made.device == "cpu"
    assert xp.asarray([1.0, 2.0], device=t.device).backend == "torch"
    assert t.dtype == xp.float32


SCALAR_CALLS = {  # NumPy takes Python and NumPy scalars where the standard asks for arrays
    "broadcast_arrays": lambda xp, x: xp.broadcast_arrays(True, x, np.float64(2.0)),
    "broadcast_to": lambda xp, x: xp.broadcast_to(np.bool_(True), x.shape),
    "where": lambda xp, x: xp.where(np.bool_(True), x, 1.0),
    "where mask": lambda xp, x: xp.where(x > 0, np.float32(1.0), x),
    "floor_divide": lambda xp, x: xp.floor_divide(x, np.float32(2.0)),
    "floor_divide int": lambda xp, x: xp.floor_divide(np.int64(7), xp.astype(x, xp.int64)),
}


@pytest.mark.parametrize("backend", ["torch", "dask", "numpy"])
@pytest.mark.parametrize("call", list(SCALAR_CALLS))
def test_array_api_takes_numpy_scalars_where_python_scalars_go(call, backend):
    """SciPy's ``pearsonr`` broadcasts a Python bool with arrays (``apply_where``): every
    backend takes what NumPy's namespace takes, with the NumPy backend's values."""
    pytest.importorskip("dask") if backend == "dask" else None
    x = interop.tensor(np.array([-1.5, 2.0, 3.5], dtype=np.float32), backend=backend)
    expected = SCALAR_CALLS[call](interop.array_api, interop.tensor(to_numpy(x)))
    got = SCALAR_CALLS[call](interop.array_api, x)
    for g, e in zip(*(r if isinstance(r, (list, tuple)) else [r] for r in (got, expected)),
                    strict=True):
        assert g.backend == (backend if call != "broadcast_to" else "numpy")  # no tensor there
        np.testing.assert_array_equal(to_numpy(g), to_numpy(e))


NAN = np.array([[1.5, np.nan, -2.0], [np.nan, np.nan, np.nan], [0.5, 4.0, np.nan]])
NAN_CALLS = [(name, kwargs) for name in ("nanmax", "nanmin", "nansum", "nanprod", "nanmean",
                                         "nanvar", "nanstd")
             for kwargs in ({}, {"axis": 0}, {"axis": 1, "keepdims": True})] + [
    ("nanvar", {"axis": 1, "ddof": 1}), ("nanstd", {"ddof": 1}),
    ("nancumsum", {}), ("nancumsum", {"axis": 1}), ("nancumprod", {"axis": 0}),
    ("nanargmax", {"axis": 0}), ("nanargmin", {"axis": 1, "keepdims": True}),
    ("imag", {}), ("nanmedian", {}), ("nanmedian", {"axis": 1, "keepdims": True}),
    ("median", {"axis": 0}), ("nanmedian", {"axis": (0, 1), "keepdims": True})]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy warns on all-NaN slices
@pytest.mark.parametrize("name, kwargs", NAN_CALLS, ids=lambda v: str(v))
def test_numpy_nan_functions_on_torch_tensors(name, kwargs):
    """NumPy's NaN-ignoring functions (xarray's skipna reductions) run on torch, with
    NumPy's values, all-NaN slices included."""
    data = NAN if name not in ("nanargmax", "nanargmin", "median") else NAN[[0, 2]]
    got = getattr(np, name)(interop.tensor(data, backend="torch"), **kwargs)
    assert isinstance(got, interop.Tensor) and got.backend == "torch"
    np.testing.assert_allclose(to_numpy(got), getattr(np, name)(data, **kwargs), equal_nan=True)


def test_nanargmax_of_an_all_nan_slice_raises_as_numpy():
    with pytest.raises(ValueError, match="All-NaN slice"):
        np.nanargmax(interop.tensor(NAN, backend="torch"), axis=1)


def test_imag_of_a_real_tensor_is_zeros_as_numpy():
    t = on_torch()
    same(t.imag, torch.zeros(3, 4))  # NumPy's answer; torch raises (docs: on purpose)
    same(on_torch(A.to(torch.complex64)).imag, torch.zeros(3, 4))


def test_xarray_keeps_torch_tensors():
    """tests/test_consumers_xarray.py's operations (the NumPy and Dask backends run them
    there) on torch-backed DataArrays: the data stays torch, values as NumPy's."""
    consumer = pytest.importorskip("tests.test_consumers_xarray")
    for name in consumer.OPERATIONS:
        consumer.test_dataarray_keeps_tensor(name, "torch")
    consumer.test_dataarray_repr_shows_tensor("torch")


def test_array_api_dtype_functions_and_eig_on_torch():
    """The standard's answers where array-api-compat's torch namespace gives torch's: iinfo's
    dtype a dtype (torch's is a string), result_type of unsigned types above uint8 (torch
    refuses to promote them), eig of a real matrix (a torch dtype in the complex rule)."""
    xp = on_torch().__array_namespace__()
    info = xp.iinfo(xp.uint16)
    assert (info.dtype, info.max, info.min) == (xp.uint16, 65535, 0)
    assert xp.result_type(xp.uint8, xp.uint16) == xp.uint16
    assert xp.result_type(on_torch(torch.ones(2, dtype=torch.uint8)), xp.uint32, 1) == xp.uint32
    assert xp.result_type(xp.float32, 1.0) == xp.float32
    values, vectors = xp.linalg.eig(on_torch(torch.eye(2)))
    assert values.backend == "torch" and values.dtype == xp.complex64 == vectors.dtype
    same(xp.linalg.eigvals(on_torch(torch.eye(2))), torch.ones(2, dtype=torch.complex64))


# ------------------------------------------------------------------ mixing policy
def test_torch_with_numpy_tensors_runs_on_torch():
    t, n = on_torch(), interop.tensor(np.ones(4, dtype=np.float32))
    for got in (t + n, n + t, torch.add(n, t), t + np.ones(4, np.float32),
                np.ones(4, np.float32) + t):
        same(got, A + 1)
    same(interop.mul(n, t), A)


def test_raw_torch_tensors_beside_tensors_are_data_for_their_backend():
    """A module's weights (raw torch tensors) used on NumPy tensors: the result stays NumPy."""
    n = interop.tensor(A.numpy().copy())
    weight, bias = torch.ones(2, 4), torch.zeros(2)
    out = F.linear(n, weight, bias)
    assert out.backend == "numpy"
    np.testing.assert_allclose(to_numpy(out), F.linear(A, weight, bias).numpy())
    only_raw = interop.add(torch.ones(2), 1)  # no tensor: the raw array's own backend
    assert only_raw.backend == "torch"


def test_lazy_wins_with_dask():
    pytest.importorskip("dask")
    d = interop.tensor(np.ones((3, 4), np.float32), backend="dask")
    with interop.config(dask_compute="raise"):
        out = d + on_torch()
        assert out.backend == "dask"
        out2 = torch.mul(on_torch(), d)
        assert out2.backend == "dask"
    np.testing.assert_allclose(to_numpy(out), A.numpy() + 1)


def test_a_write_never_changes_its_target():
    pytest.importorskip("dask")
    n = interop.tensor(np.zeros(4, np.float32))
    buffer = n.raw
    n.add_(on_torch(torch.ones(4)))  # a NumPy target stays NumPy
    assert n.backend == "numpy" and n.raw is buffer and buffer[0] == 1
    t = on_torch(torch.zeros(4))
    raw = t.raw
    t.add_(interop.tensor(np.ones(4, np.float32)))
    t[1:3] = np.full(2, 5.0, np.float32)
    assert t.raw is raw and raw.tolist() == [1.0, 5.0, 5.0, 1.0]
    d = interop.tensor(np.zeros(4, np.float32), backend="dask")
    d.add_(on_torch(torch.ones(4)))  # a Dask target stays lazy
    assert d.backend == "dask"
    with interop.config(dask_compute="raise"):
        with pytest.raises(interop.DaskComputeError):  # a lazy value into torch is a value read
            t.add_(interop.tensor(np.ones(4, np.float32), backend="dask"))
    assert raw.tolist() == [1.0, 5.0, 5.0, 1.0]


def test_devices_of_two_backends_do_not_mix_silently():
    pytest.importorskip("array_api_strict")
    s = interop.tensor(np.ones(4, np.float32), backend="strict", device="strict:1")
    with pytest.raises(interop.DeviceMismatchError, match="strict:1"):
        on_torch(torch.ones(4)) + s


# ------------------------------------------------------------------ devices
def test_device_moves_stay_on_torch():
    t = on_torch()
    for moved in (t.to("cpu"), t.cpu(), t.to(interop.device("cpu")), t.to(torch.device("cpu"))):
        assert moved.backend == "torch" and moved.device == "cpu"
    assert t.to(backend="numpy").backend == "numpy"
    assert t.to(interop.float64).raw.dtype == torch.float64
    host = t.numpy()
    host[0, 0] = 9
    assert t.raw[0, 0] == 9  # shared, as torch's numpy()


@CUDA
def test_cuda_tensors():
    t = on_torch().cuda()
    assert t.backend == "torch" and t.device == "cuda:0" and t.is_cuda
    same((t * 2).cpu(), A * 2)
    with pytest.raises(RuntimeError):
        t + on_torch()
    assert interop.zeros(2, device="cuda", backend="torch").device == "cuda:0"
    with pytest.raises(TypeError, match="cpu"):
        np.asarray(t)


# ------------------------------------------------------------------ views and writes
def test_writes_through_views_reach_the_base():
    t = on_torch()
    raw = t.raw
    t[0] = 1
    row = t[1]
    row.add_(100)
    t[:, 0].zero_()
    t.T[3, 2] = -1
    t.view(-1)[5].fill_(7)
    expected = A.clone()
    expected[0] = 1
    expected[1] += 100
    expected[:, 0] = 0
    expected[2, 3] = -1
    expected.view(-1)[5] = 7
    assert t.raw is raw
    torch.testing.assert_close(raw, expected)


def test_inplace_and_out_land_in_the_torch_tensor():
    t = on_torch()
    raw = t.raw
    assert t.add_(1) is t and t.mul_(2) is t
    t += 1
    out = on_torch(torch.empty(0))
    buffer = out.raw
    assert interop.add(t, 1, out=out) is out and out.raw is buffer
    torch.testing.assert_close(raw, (A + 1) * 2 + 1)
    torch.testing.assert_close(buffer, (A + 1) * 2 + 2)  # torch resized the out tensor


def test_positive_steps_stay_torch_views():
    t = on_torch()
    for view in (t[::2], t[1:, 1::3], t[..., None, 2], t[0]):
        assert view.raw._base is t.raw  # zero copy
    assert t[::-1].raw._base is None  # torch has no negative strides: a linked copy


@st.composite
def slice_keys(draw):
    """(shape, key): slices of any step (negative ones above all), integers, ``None``,
    ``...`` and sometimes an index list, in any order."""
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=1, max_size=3)))
    items: list = []
    for size in shape:
        bound = st.none() | st.integers(-size - 1, size + 1)
        kinds = [st.builds(slice, bound, bound, st.sampled_from([-1, -2, -3, None, 1, 2]))]
        if size:
            kinds.append(st.integers(-size, size - 1))
            kinds.append(st.lists(st.integers(-size, size - 1), min_size=1, max_size=3))
        items.append(draw(st.one_of(kinds)))
    if len([i for i in items if isinstance(i, list)]) > 1:
        items = [slice(None, None, -1) if isinstance(i, list) else i for i in items]
    if draw(st.booleans()):  # trailing dimensions are left to ``...``
        items = items[:draw(st.integers(0, len(items)))] + [Ellipsis]
    for _ in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), None)
    return shape, tuple(items)


def _written(key, backend: str, shape: tuple) -> list:
    """Reads and writes through ``t[key]`` on ``backend``, in the order NumPy's views see them."""
    def now(x):  # a snapshot: NumPy's to_numpy shares memory
        return np.array(to_numpy(x))
    t = interop.tensor(np.arange(float(np.prod(shape))).reshape(shape), backend=backend)
    seen = [now(t[key])]
    t[key] = -to_numpy(t[key]) - 1  # an array of the selection's shape
    seen.append(now(t))
    if any(isinstance(i, list) for i in key):
        return seen  # advanced indexing copies: nothing to write through
    view = t[key]
    view.add_(100)  # in place, into the view
    if view.ndim:
        view[:1] = 7  # the first item of the view
        view[::-1][..., :1].mul_(2)  # a view of a negative step of the view
    else:
        view[...] = 7
    seen += [now(t), now(view)]
    t[key] = 5.0  # a scalar
    seen.append(now(t))
    return seen


@settings(max_examples=200, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(slice_keys())
def test_negative_steps_read_and_write_as_on_numpy(case):
    """Negative steps (which torch refuses) select, write and write through views exactly as
    on the NumPy backend; positive steps stay torch views."""
    shape, key = case
    for got, expected in zip(_written(key, "torch", shape), _written(key, "numpy", shape),
                             strict=True):
        np.testing.assert_array_equal(got, expected)


def test_errors_with_negative_steps_are_torchs():
    t = on_torch()
    with pytest.raises(IndexError, match="too many indices"):
        t[::-1, ::-1, ::-1]
    with pytest.raises(RuntimeError, match="expanded size"):
        t[::-1] = torch.zeros(2, 4)


# ------------------------------------------------------------------ subclasses, 0-d, empty
class Meters(interop.Tensor):
    pass


def test_subclasses_and_their_attributes_survive_every_surface():
    m = Meters(A.clone())
    m.unit = "m"
    xp = m.__array_namespace__()
    for got in (m + 1, torch.add(m, 1), F.relu(m), np.mean(m), np.exp(m), xp.sum(m), m[0],
                m.max(0).values):
        assert type(got) is Meters and got.unit == "m" and got.backend == "torch"


@pytest.mark.parametrize("x", [torch.tensor(3.5), torch.empty(0, 3), torch.empty(0)],
                         ids=["0-d", "empty 2-d", "empty"])
def test_zero_d_and_empty(x):
    t = on_torch(x)
    for call in (lambda v: v * 2, lambda v: torch.sum(v), lambda v: F.relu(v),
                 lambda v: v.sum(dim=0) if v.ndim else v.exp(), lambda v: v[..., None]):
        same(call(t), call(x.clone()))
    for call in (np.exp, np.sum, lambda v: np.add(v, 1)):
        got = call(t)
        assert isinstance(got, interop.Tensor) and got.backend == "torch"
        np.testing.assert_allclose(to_numpy(got), call(x.numpy()))
    if x.ndim == 0:
        assert t.item() == 3.5 and bool(t) and t.shape == ()


def test_pickle_and_copies_keep_torch():
    import copy
    import pickle
    t = Meters(A.clone())
    t.unit = "m"
    for other in (pickle.loads(pickle.dumps(t)), copy.deepcopy(t), copy.copy(t)):
        assert type(other) is Meters and other.unit == "m" and other.backend == "torch"
        torch.testing.assert_close(other.raw, A)
    assert copy.deepcopy(t).raw is not t.raw and copy.copy(t).raw is t.raw


def test_packed_sequences_and_recurrent_modules():
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(4, 5, batch_first=True)
    x = torch.randn(3, 5, 4)
    pack, pad = torch.nn.utils.rnn.pack_padded_sequence, torch.nn.utils.rnn.pad_packed_sequence
    with torch.no_grad():
        expected = pad(lstm(pack(x, [5, 4, 2], True))[0], True)
        got = pad(lstm(pack(interop.as_tensor(x.clone()), [5, 4, 2], True))[0], True)
    same(list(got), list(expected))


def test_large_tensors_print_their_corners_as_numpy_does():
    from interop.core import repr as printing
    x = torch.arange(3000.0).reshape(50, 60)
    corners = printing._preview(interop.get_backend("torch"), x)  # a GPU tensor's bounded copy
    expected = printing._preview(interop.get_backend("numpy"), x.numpy())
    np.testing.assert_array_equal(corners.numpy(), expected)
    assert repr(on_torch(x)) == repr(interop.tensor(x.numpy())).replace("'numpy'", "'torch'")
