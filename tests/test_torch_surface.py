"""The torch surface on interop tensors: torch callables resolved by name through
``__torch_function__``, torch's semantics (dtypes, named tuples, errors), torch tensors
as operands (by DLPack), and zero-copy DLPack exchange in both directions.
"""

from __future__ import annotations

import numpy as np
import pytest

import interop
from interop.backends.dlpack import foreign_to_raw, from_torch
from tests.conftest import HAS_GPU, to_numpy, torch_device

torch = pytest.importorskip("torch")


def tensor(x, backend):
    chunks = {"chunks": tuple(max(1, s // 2) for s in x.shape)} if backend == "dask" else {}
    return interop.tensor(x, backend=backend, **chunks)


A = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


def check(got, expected, backend):
    assert isinstance(got, interop.Tensor) and got.backend == backend
    exp = expected.numpy()
    res = to_numpy(got)
    assert res.dtype == exp.dtype and res.shape == exp.shape
    np.testing.assert_allclose(res, exp, rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda t: torch.add(t, 1),
    lambda t: torch.add(t, t, alpha=2),
    lambda t: torch.mul(t.long(), 2.5),          # int tensor * Python float -> default float
    lambda t: torch.div(t.long(), 2),            # true division of integers -> float32
    lambda t: torch.sum(t.long(), dim=1),        # integer sums are int64
    lambda t: torch.mean(t, 0, keepdim=True),
    lambda t: torch.clamp(t, min=-1, max=2),
    lambda t: torch.where(t > 0, t, 0.0),
    lambda t: torch.flatten(torch.transpose(t, 0, 1)),
    lambda t: torch.cat([t, t], dim=1),
    lambda t: torch.einsum("ij,kj->ik", t, t),
    lambda t: torch.tensordot(t, t.T, 1),
    lambda t: torch.std(t, dim=0),
], ids=lambda c: "")
def test_torch_functions_follow_torch(call, backend):
    check(call(tensor(A, backend)), call(torch.from_numpy(A.copy())), backend)


def test_named_tuple_results(backend):
    t = tensor(A, backend)
    got, exp = torch.max(t, dim=0), torch.max(torch.from_numpy(A), dim=0)
    assert got._fields == ("values", "indices")
    check(got.values, exp.values, backend)
    check(got.indices, exp.indices, backend)


def test_torch_tensor_operands_come_in(backend):
    """A plain torch.Tensor first or second: the result is an interop tensor on the backend."""
    device = torch_device(backend)  # the torch tensors where the data is (CUDA beside CuPy)
    t, w = tensor(A, backend), torch.ones(4, device=device)
    check(torch.add(w, t), torch.add(torch.ones(4), torch.from_numpy(A)), backend)
    check(torch.matmul(t, torch.ones(4, 2, device=device)), torch.from_numpy(A) @ torch.ones(4, 2),
          backend)


def test_torch_operand_is_zero_copy():
    w = torch.arange(6.0)
    raw = foreign_to_raw(w)
    assert np.shares_memory(raw, w.numpy())
    p = torch.nn.Parameter(torch.ones(3))  # requires_grad: detached, still shared
    assert np.shares_memory(foreign_to_raw(p), p.detach().numpy())


def test_from_dlpack_in_is_zero_copy():
    src = torch.arange(3)
    t = interop.from_dlpack(src)
    src[0] = 42
    assert t.backend == "numpy" and to_numpy(t)[0] == 42


def test_torch_from_dlpack_out_is_zero_copy():
    t = interop.tensor(A.copy())
    out = torch.from_dlpack(t)
    out[0, 0] = 99
    assert to_numpy(t)[0, 0] == 99 and out.dtype == torch.float32
    assert t.__dlpack_device__() == (1, 0)


def test_dask_tensor_exports_its_values_through_the_value_read_gate():
    t = tensor(A, "dask")
    assert t.__dlpack_device__() == (1, 0)
    np.testing.assert_array_equal(torch.from_dlpack(t).numpy(), A)  # computed: a copy
    with pytest.raises(BufferError, match="copy=False"):
        t.__dlpack__(copy=False)
    with interop.config(dask_compute="raise"), pytest.raises(interop.DaskComputeError):
        torch.from_dlpack(t)


@pytest.mark.skipif(not HAS_GPU, reason="needs a CUDA GPU and CuPy")
def test_dlpack_on_gpu_is_zero_copy():
    t = interop.tensor(A, backend="cupy")
    out = torch.from_dlpack(t)
    assert out.device.type == "cuda"
    out[0, 0] = 7
    assert float(to_numpy(t)[0, 0]) == 7
    back = interop.from_dlpack(out)
    assert back.backend == "cupy" and back.raw.data.ptr == t.raw.data.ptr


@pytest.mark.parametrize("call, name", [
    (lambda t: torch.nn.functional.fold(t[None], (2, 2), 1), r"torch\._C\._nn\.col2im"),  # F's body
    # torch.overrides cannot name it: a TypeError, not a RecursionError from calling it on t
    (lambda t: torch._euclidean_dist(t, t), "torch._euclidean_dist"),
])
def test_unsupported_torch_function_raises(call, name, backend):
    with pytest.raises(TypeError, match=rf"{name}.* {backend} backend"):
        call(tensor(A, backend))


def test_errors_where_torch_raises(backend):
    t = tensor(A, backend)
    with pytest.raises(RuntimeError):
        torch.matmul(t, tensor(A, backend))         # shapes (3, 4) @ (3, 4)
    with pytest.raises(IndexError):
        torch.sum(t, dim=5)


def test_subclass_sees_torch_calls():
    seen = []

    class Logged(interop.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(torch.overrides.resolve_name(func) or getattr(func, "__name__", ""))
            return super().__torch_function__(func, types, args, kwargs)

    t = interop.tensor(A).as_subclass(Logged)
    out = torch.nn.functional.relu(torch.add(t, 1))
    assert type(out) is Logged
    assert seen == ["torch.add", "torch.nn.functional.relu"]


def test_parameters_imported_once_and_kept_current():
    w = torch.nn.Parameter(torch.ones(3))
    x = interop.tensor(np.ones(3, np.float32))
    first = from_torch(w)
    assert from_torch(w) is first                         # remembered: no second DLPack import
    with torch.no_grad():
        w.add_(1)                                         # in place: the shared memory shows it
    np.testing.assert_array_equal(to_numpy(torch.add(x, w)), [3, 3, 3])
    w.data = torch.zeros(3)                               # new storage: imported afresh
    np.testing.assert_array_equal(to_numpy(torch.add(x, w)), [1, 1, 1])
    plain = torch.ones(2)
    assert from_torch(plain) is not from_torch(plain)     # plain tensors are never kept


@pytest.mark.parametrize("call", [
    lambda t, w: torch.einsum("ij,jk->ik", t, w),
    lambda t, w: torch.einsum("ij,kj->ik", w, t),
    lambda t, w: torch.tensordot(t, w, dims=1),
    lambda t, w: torch.cdist(t, w),
    lambda t, w: torch.nn.functional.layer_norm(t, (4,), w[0], w[1]),
    lambda t, w: torch.nn.functional.embedding(torch.tensor([[0, 2], [1, 1]], device=w.device), t),
    lambda t, w: torch.nn.functional.linear(t, torch.nn.Parameter(w)),
], ids=["einsum", "einsum_torch_first", "tensordot", "cdist", "layer_norm", "embedding",
        "linear_parameter"])
def test_torch_python_functions_take_torch_operands(call, backend):
    """torch's Python functions list torch.Tensor in ``types``: it is data, not an override."""
    w = torch.linspace(-1, 1, 16).reshape(4, 4)
    with torch.no_grad():
        check(call(tensor(A, backend), w.to(torch_device(backend))),
              call(torch.from_numpy(A.copy()), w), backend)


def test_unrelated_torch_subclass_still_declines():
    """A user's torch.Tensor subclass with its own handler keeps torch's rule: NotImplemented."""
    class Logged(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented
    w = torch.ones(4, 4).as_subclass(Logged)
    with pytest.raises(TypeError, match="no implementation found"):
        torch.einsum("ij,jk->ik", interop.tensor(A), w)


# ------------------------------------------------------------------ t.dtype for torch and NumPy code
DTYPE_NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
               "float64", "complex64", "complex128"]


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_dtype_answers_torch_numpy_and_array_api_code(name, backend):
    t = tensor(np.zeros((2, 3), name), backend)
    d, tdt, ndt = t.dtype, getattr(torch, name), np.dtype(name)
    assert d == tdt and tdt == d and not d != tdt and d != (torch.float64 if name != "float64"
                                                              else torch.float32)
    assert d == ndt and ndt == d and d == ndt.type and d == name and hash(d) == hash(ndt)
    assert d == t.__array_namespace__().__dict__.get(name, ndt)
    assert np.dtype(d) is ndt and np.zeros(3, dtype=d).dtype == ndt
    assert np.result_type(d, np.int8) == np.result_type(ndt, np.int8)
    assert (d.kind, d.itemsize, str(d)) == (ndt.kind, ndt.itemsize, str(ndt))
    assert (d.is_floating_point, d.is_complex) == (tdt.is_floating_point, tdt.is_complex)
    assert torch.zeros(3, dtype=d).dtype is tdt          # torch's parser hands the call to d
    assert torch.promote_types(d, torch.float64) is torch.promote_types(tdt, torch.float64)
    assert torch.ones(2, dtype=torch.float64).to(d).dtype is tdt
    assert {ndt: 1}[d] == 1


def test_dtype_in_torch_code_paths():
    """The idioms torch modules use: dtype= from an input, and comparisons in branches."""
    t = interop.tensor(np.ones((2, 3), np.float32))
    mask = interop.tensor(np.array([[True, False, False]]))
    assert mask.dtype == torch.bool and t.dtype != torch.bool
    assert torch.zeros_like(mask, dtype=t.dtype).dtype == torch.float32
    linear = torch.nn.Linear(3, 2).to(interop.tensor(np.ones(1, np.float64)).dtype)
    assert linear.weight.dtype is torch.float64


def test_finfo_iinfo_refuse_interop_dtypes_rather_than_misread():
    """torch.finfo/iinfo do not dispatch; they read a torch.dtype's layout, where they find a
    ScalarType that is neither floating nor integral: an error, never another type's limits."""
    with pytest.raises(TypeError, match="floating point input type"):
        torch.finfo(interop.tensor(np.ones(2, np.float32)).dtype)
    for name in DTYPE_NAMES:
        d = interop.tensor(np.ones(2, name)).dtype
        with pytest.raises(TypeError, match="integer input type"):
            torch.iinfo(d)
        with pytest.raises(TypeError, match="floating point input type"):
            torch.finfo(d)


TORCH_ASKS = ["is_quantized", "is_mps", "is_meta", "is_sparse", "is_sparse_csr", "is_mkldnn",
              "is_xpu", "is_xla", "is_vulkan", "is_ipu", "is_maia", "is_mtia", "is_cpu",
              "is_cuda", "is_nested", "layout"]


@pytest.mark.parametrize("name", TORCH_ASKS)
def test_constant_attributes_answer_as_a_dense_torch_tensor(name, backend):
    """What torch code reads before a special path (torchvision's roi_align: is_quantized,
    torchmetrics: is_mps): the answers of a dense host tensor, with no compute on Dask."""
    expected = getattr(torch.from_numpy(A), name)
    if backend in ("cupy", "gpulike") and name in ("is_cpu", "is_cuda"):
        expected = name == "is_cuda" and backend == "cupy"  # a CUDA tensor's; off the CPU
    assert getattr(tensor(A, backend), name) == expected


def test_dtype_pickles_to_the_same_object():
    import pickle
    d = interop.tensor(np.ones(2, np.float32)).dtype
    assert pickle.loads(pickle.dumps(d)) is d


@pytest.mark.parametrize("call", [
    lambda t, u: torch.einsum(t, [0, 1], u, [1, 2]),
    lambda t, u: torch.einsum(t, [0, 1], u, [1, 2], [2, 0]),
    lambda t, u: torch.einsum(t, [..., 1], t, [..., 1], [...]),
    lambda t, u: torch.tensordot(t, u, dims=([1], [0])),
    lambda t, u: torch.tensordot(t, u, 1),
    lambda t, u: torch._is_all_true(t > -6),
    lambda t, u: torch._is_any_true(t > 6),
], ids=["einsum_sublist", "einsum_sublist_out", "einsum_sublist_ellipsis", "tensordot_lists",
        "tensordot_int", "is_all_true", "is_any_true"])
def test_einsum_forms_and_torch_checks(call, backend):
    u = np.arange(20, dtype=np.float32).reshape(4, 5)
    check(call(tensor(A, backend), tensor(u, backend)),
          call(torch.from_numpy(A.copy()), torch.from_numpy(u)), backend)


def test_is_all_true_wants_bool():
    with pytest.raises(RuntimeError, match="bool tensor"):
        torch._is_all_true(interop.tensor(A))


def test_einsum_sublist_out_of_range():
    with pytest.raises(ValueError, match=r"sublist \[0, 99\]"):
        torch.einsum(interop.tensor(A), [0, 99], interop.tensor(A), [0, 99])
