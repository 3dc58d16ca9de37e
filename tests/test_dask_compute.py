"""interop.config(dask_compute=...): the one option governing implicit value reads of Dask
tensors (item, bool, float, int, complex, index, format, tolist, numpy, np.asarray)."""

from __future__ import annotations

import operator
import warnings

import numpy as np
import pytest

import interop
from tests.conftest import off_host

pytest.importorskip("dask.array")

READS = {
    "item()": lambda t: t.item(),
    "bool()": bool,
    "float()": float,
    "int()": int,
    "complex()": complex,
    "__index__()": operator.index,
    "format()": lambda t: format(t, ".1f"),
    "tolist()": lambda t: t.tolist(),
    "numpy()": lambda t: t.numpy(),
    "np.asarray": np.asarray,
}
EXPECTED = {"bool()": True, "format()": "3.0", "numpy()": np.array(3), "np.asarray": np.array(3)}


@pytest.fixture
def lazy_three() -> interop.Tensor:
    """A lazy 0-d int tensor worth 3 (ints so that every read, __index__ included, applies)."""
    return interop.tensor(np.array([1, 2]), backend="dask", chunks=1).sum()


@pytest.mark.parametrize("name", READS)
def test_raise_names_the_read_and_the_fix(lazy_three, name):
    with interop.config(dask_compute="raise"), \
            pytest.raises(interop.DaskComputeError, match=r"t\.compute\(\)") as info:
        READS[name](lazy_three)
    assert name.split("(")[0] in str(info.value) and "dask_compute='allow'" in str(info.value)


@pytest.mark.parametrize("name", READS)
def test_warn_computes_and_warns(lazy_three, name):
    with interop.config(dask_compute="warn"), pytest.warns(interop.DaskComputeWarning):
        value = READS[name](lazy_three)
    assert np.array_equal(value, EXPECTED.get(name, 3))


@pytest.mark.parametrize("name", READS)
def test_allow_computes_silently(lazy_three, name):
    with interop.config(dask_compute="allow"), warnings.catch_warnings():
        warnings.simplefilter("error")
        value = READS[name](lazy_three)
    assert np.array_equal(value, EXPECTED.get(name, 3))


def test_default_is_allow():
    assert interop.config.get("dask_compute") == "allow"


def test_explicit_computes_and_printing_ignore_raise(lazy_three):
    with interop.config(dask_compute="raise"):
        assert "lazy" in repr(lazy_three) and "lazy" in str(lazy_three)  # printing never computes
        assert lazy_three.compute().raw == 3
        assert interop.compute(lazy_three)[0].raw == 3
        assert lazy_three.to(backend="numpy").raw == 3


def test_eager_tensors_are_not_governed(backend):
    t = interop.tensor([3], backend=backend)
    with interop.config(dask_compute="raise"):
        if backend == "dask":
            with pytest.raises(interop.DaskComputeError):
                t.item()
        else:
            assert t.item() == 3 and t.tolist() == [3]


def test_config_scopes_and_validates():
    with interop.config(dask_compute="warn"):
        assert interop.config.get("dask_compute") == "warn"
    assert interop.config.get("dask_compute") == "allow"
    with pytest.raises(ValueError, match="'allow', 'warn', 'raise'"):
        interop.config(dask_compute="never")
    assert interop.config.get("dask_compute") == "allow"


def test_numpy_returns_an_ndarray_on_host_backends(backend):
    t = interop.tensor([1.0, 2.0], backend=backend)
    if off_host(backend):
        with pytest.raises(TypeError, match=r"cpu\(\)"):
            t.numpy()
        return
    out = t.numpy()
    assert type(out) is np.ndarray and out.tolist() == [1.0, 2.0]
    if backend == "numpy":
        assert np.shares_memory(out, t.raw)  # torch's numpy(): the same memory


def test_a_computed_0d_value_is_an_array_as_torchs(backend):
    """Dask computes a 0-d result as a NumPy scalar; what a read hands out is a 0-d array,
    as torch's ``numpy()`` and DLPack export give (``np.from_dlpack`` needs ``__dlpack__``)."""
    torch = pytest.importorskip("torch")
    t = interop.tensor(1.0, backend=backend) + 1
    ref = torch.tensor(1.0) + 1
    if off_host(backend):  # reads into host memory: refused off the host
        for read in (lambda x: x.numpy(), np.from_dlpack):
            with pytest.raises((TypeError, BufferError, RuntimeError)):
                read(t)
        return
    for read in (lambda x: x.numpy(), np.from_dlpack):
        out, expected = read(t), read(ref)
        assert type(out) is type(expected) is np.ndarray
        assert (out.shape, out.dtype, out.item()) == (expected.shape, expected.dtype, 2.0)


def test_warn_points_at_the_users_line(lazy_three):
    """The warning names this file and line, not an interop (or torch) frame."""
    torch = pytest.importorskip("torch")
    d = interop.tensor(np.arange(6.0), backend="dask", chunks=2)
    calls = [lambda: float(lazy_three), lambda: d.reshape(lazy_three - 1, 3),
             lambda: torch.histc(d, bins=3), lambda: 3.0 in d]
    for call in calls:
        with interop.config(dask_compute="warn"), warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            call()
        assert seen and all(w.filename == __file__ for w in seen), [w.filename for w in seen]


def test_tensor_of_lazy_tensors_stays_lazy():
    d = interop.tensor(np.arange(3.0), backend="dask", chunks=2)
    with interop.config(dask_compute="raise"):
        t = interop.tensor([d, d * 2])
        nested = interop.tensor([[d.sum(), 1.0]])
        shared = interop.as_tensor([d[0], d[1]])
    assert t.backend == nested.backend == shared.backend == "dask"
    np.testing.assert_array_equal(t.numpy(), [[0, 1, 2], [0, 2, 4]])
    assert nested.shape == (1, 2) and nested.tolist() == [[3.0, 1.0]]
    assert shared.tolist() == [0.0, 1.0]


@pytest.mark.parametrize("size", [2, np.int64(2), np.array(2)])
def test_sizes_from_eager_values_need_no_policy(size):
    with interop.config(dask_compute="raise"):
        assert interop.zeros(size, 3, backend="dask").shape == (2, 3)
        assert interop.tensor(np.arange(6)).reshape(size, -1).shape == (2, 3)


def test_sizes_must_be_integers():
    with pytest.raises(TypeError, match="integer"):
        interop.tensor(np.arange(6)).reshape(2.0, 3)


@pytest.mark.parametrize("momentum", [0.1, None], ids=["momentum", "cumulative average"])
def test_a_refused_batch_norm_leaves_the_module_as_it_was(momentum):
    """torch's BatchNorm counts the batch before calling F.batch_norm; when the compute policy
    refuses the call (a lazy batch's statistics into eager running buffers), every buffer,
    the count too, is as before, and the same module then trains as torch's does."""
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).random((8, 3)).astype(np.float32)
    ours, ref = torch.nn.BatchNorm1d(3, momentum=momentum), torch.nn.BatchNorm1d(3, momentum=momentum)
    before = {k: v.clone() for k, v in ours.state_dict().items()}
    with interop.config(dask_compute="raise"), pytest.raises(interop.DaskComputeError):
        ours(interop.tensor(x, backend="dask"))
    for k, v in ours.state_dict().items():
        assert torch.equal(v, before[k]), k
    ours(interop.tensor(x, backend="dask"))
    ref(torch.from_numpy(x))
    for k, v in ours.state_dict().items():
        torch.testing.assert_close(v, ref.state_dict()[k])
