"""Every operation in the table, on the numpy and dask backends (cupy on a GPU), against
torch computing the same thing: values, dtype and shape; where torch raises, interop must
raise too.  Elementwise operations and reductions draw shapes, dtypes and values with
hypothesis; the rest use explicit samples.  ``test_every_operation_has_samples`` keeps
the table and this file in step: an operation without samples fails it.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import interop
from interop.ops import TABLE
from interop.ops.elementwise.arithmetic import BINARY, UNARY
from tests.conftest import off_host, to_numpy
from tests.helpers.samplers import DRAWS

torch = pytest.importorskip("torch")

FLOAT_ELEMENTS = st.floats(-8, 8, width=32, allow_subnormal=False)
INT_ELEMENTS = st.integers(-20, 20)
DTYPES = ["float32", "int64", "bool"]


def arrays(dtype: str, shape) -> st.SearchStrategy:
    elements = {"float32": FLOAT_ELEMENTS, "float64": FLOAT_ELEMENTS, "int64": INT_ELEMENTS,
                "int32": INT_ELEMENTS, "bool": st.booleans()}[dtype]
    return hnp.arrays(np.dtype(dtype), shape, elements=elements)


def to_interop(x, backend):
    if isinstance(x, np.ndarray):
        chunks = {"chunks": tuple(max(1, s // 2) for s in x.shape)} if backend == "dask" else {}
        return interop.tensor(x, backend=backend, **chunks)
    if isinstance(x, (list, tuple)) and x and isinstance(x[0], np.ndarray):
        return type(x)(to_interop(v, backend) for v in x)
    return x


def to_torch(x):
    if isinstance(x, np.ndarray):
        return torch.from_numpy(x.copy())
    if isinstance(x, (list, tuple)) and x and isinstance(x[0], np.ndarray):
        return type(x)(to_torch(v) for v in x)
    return x


def torch_callable(name: str, method: bool):
    if method:
        return getattr(torch.Tensor, name)
    for space in (torch, torch.linalg, torch.special, torch.nn.functional):
        if hasattr(space, name):
            return getattr(space, name)
    return getattr(torch.Tensor, name)


def tolerance(dtype) -> dict:
    return {"float32": dict(rtol=2e-5, atol=2e-5), "float16": dict(rtol=1e-2, atol=1e-2)}.get(
        str(dtype), dict(rtol=1e-10, atol=1e-12))


def assert_same(got, expected, where=""):
    if isinstance(expected, torch.Tensor):
        assert isinstance(got, interop.Tensor), f"{where}: expected a tensor, got {type(got)}"
        exp = expected.numpy()
        assert got.dtype == exp.dtype, f"{where}: dtype {got.dtype} != torch's {exp.dtype}"
        res = to_numpy(got)
        assert res.shape == exp.shape, f"{where}: shape {res.shape} != torch's {exp.shape}"
        if exp.dtype.kind in "fc":
            np.testing.assert_allclose(res, exp, equal_nan=True, err_msg=where,
                                       **tolerance(exp.dtype))
        else:
            np.testing.assert_array_equal(res, exp, err_msg=where)
    elif isinstance(expected, (tuple, list)):
        assert len(got) == len(expected), where
        if hasattr(expected, "_fields"):
            assert got._fields == expected._fields[:len(got._fields)], where
        for g, e in zip(got, expected):
            assert_same(g, e, where)
    elif isinstance(expected, torch.Size):
        assert tuple(got) == tuple(expected), where
    elif isinstance(expected, torch.dtype):
        assert str(got) == str(expected).removeprefix("torch."), where
    elif isinstance(expected, float) and math.isnan(expected):
        assert math.isnan(got), where
    else:
        assert got == expected, f"{where}: {got!r} != {expected!r}"


def check(name, args, kwargs=None, backend="numpy", method=False, interop_name=None):
    """Run ``name`` through interop on ``backend`` and through torch; compare."""
    kwargs = kwargs or {}
    try:
        expected = torch_callable(name, method)(*map(to_torch, args), **kwargs)
    except Exception as exc:  # noqa: BLE001 - torch refusing is a result to match
        expected = exc
    iargs = [to_interop(a, backend) for a in args]
    target = interop_name or name
    fn = getattr(interop.Tensor, target) if method else getattr(interop, target)
    where = f"{target}{'(method)' if method else ''} on {backend}"
    if isinstance(expected, TypeError) and "must be Tensor, not" in str(expected):
        return  # torch refuses a Python number here; interop accepts it (a documented extension)
    if isinstance(expected, Exception):
        if backend == "dask" and "ZeroDivisionError" in str(expected):
            return  # checking a lazy divisor would compute it: Dask gives NumPy's 0 (documented)
        with pytest.raises(Exception):  # noqa: B017,PT011 - torch raised; interop must too
            _force(fn(*iargs, **kwargs))
        return
    assert_same(fn(*iargs, **kwargs), expected, where)


def _force(result):
    """Compute lazy results so Dask errors surface where torch's do."""
    if isinstance(result, interop.Tensor):
        to_numpy(result)
    elif isinstance(result, (tuple, list)):
        for r in result:
            _force(r)
    return result


# ------------------------------------------------------------------ elementwise
EXTRA_UNARY = ["sigmoid", "rsqrt", "conj", "real", "round", "nan_to_num"]


@pytest.mark.parametrize("name", sorted(UNARY) + EXTRA_UNARY)
@given(data=st.data())
def test_unary(name, data, backend):
    dtype = data.draw(st.sampled_from(DTYPES), label="dtype")
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, max_side=4), label="shape")
    x = data.draw(arrays(dtype, shape), label="x")
    check(name, (x,), backend=backend)
    if hasattr(torch.Tensor, name) and name not in ("real",):
        check(name, (x,), backend=backend, method=True)


@pytest.mark.parametrize("name", sorted(BINARY) + ["add", "sub", "div", "clamp", "isclose"])
@given(data=st.data())
def test_binary(name, data, backend):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3),
                       label="shapes")
    da, db = data.draw(st.sampled_from(DTYPES), label="dtype a"), \
        data.draw(st.sampled_from(DTYPES), label="dtype b")
    a = data.draw(arrays(da, shapes.input_shapes[0]), label="a")
    b = data.draw(arrays(db, shapes.input_shapes[1]), label="b")
    if name == "pow" and db != "float32":
        b = np.asarray(np.abs(b))  # torch and NumPy refuse negative integer powers differently
    check(name, (a, b), backend=backend)
    scalar = data.draw(st.sampled_from([2, 2.5, True]), label="scalar")
    check(name, (a, scalar), backend=backend)


@pytest.mark.parametrize("kwargs", [{"alpha": 2}, {"rounding_mode": "floor"},
                                    {"rounding_mode": "trunc"}])
def test_binary_keywords(kwargs, backend):
    a = np.array([[-7, 5, 9]], dtype=np.int64)
    b = np.array([[2], [-3]], dtype=np.int64)
    name = "add" if "alpha" in kwargs else "div"
    check(name, (a, b), kwargs, backend=backend)
    check(name, (a.astype(np.float32), b.astype(np.float32)), kwargs, backend=backend)


# ------------------------------------------------------------------ reductions
REDUCTIONS = ["sum", "prod", "mean", "std", "var", "amax", "amin", "argmax", "argmin", "all",
              "any", "max", "min", "count_nonzero", "logsumexp", "cumsum", "cumprod", "norm"]


@pytest.mark.parametrize("name", REDUCTIONS)
@given(data=st.data())
def test_reductions(name, data, backend):
    dtype = data.draw(st.sampled_from(DTYPES), label="dtype")
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    x = data.draw(arrays(dtype, shape), label="x")
    ndim = len(shape)
    dim = data.draw(st.integers(-ndim, ndim - 1), label="dim")
    keepdim = data.draw(st.booleans(), label="keepdim")
    if name in ("cumsum", "cumprod"):
        check(name, (x, dim), backend=backend)
        return
    if name == "logsumexp":
        check(name, (x, dim, keepdim), backend=backend)
        return
    if name not in ("count_nonzero",):
        check(name, (x,), backend=backend)
    check(name, (x, dim), {} if name == "count_nonzero" else {"keepdim": keepdim},
          backend=backend)


def test_reduction_keyword_aliases(backend):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = to_interop(x, backend)
    np.testing.assert_allclose(to_numpy(interop.sum(t, axis=0, keepdims=True)),
                               x.sum(axis=0, keepdims=True))
    np.testing.assert_allclose(to_numpy(t.mean(dim=(0, 1))), x.mean())
    check("sum", (x,), {"dtype": torch.float64}, backend=backend)
    check("std", (x, 1), {"correction": 0}, backend=backend)
    check("var", (x,), {"unbiased": False}, backend=backend)
    check("sum", (x, (0, 1)), backend=backend)
    check("max", (x, x[::-1].copy()), backend=backend)
    check("diff", (x,), {"dim": 1}, backend=backend)
    check("diff", (x, 2, 0), backend=backend)
    check("norm", (x,), {"p": 1, "dim": 1}, backend=backend)
    check("norm", (x,), {"p": float("inf")}, backend=backend)


# ------------------------------------------------------------------ explicit samples
X = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7
M = np.arange(12, dtype=np.float32).reshape(3, 4) / 3
V = np.array([3.0, -1.0, 2.0, 5.0, 0.5], dtype=np.float32)
I64 = np.array([[1, 0, 2], [2, 1, 0]], dtype=np.int64)
B = np.array([[True, False, True], [False, False, True]])

# name -> list of (args, kwargs, method?)
SAMPLES = {
    "_is_all_true": [((B,), {}, False), ((B[:, 2],), {}, False)],
    "_is_any_true": [((B,), {}, False), ((B[1, :2],), {}, False)],
    "cat": [(([M, M],), {}, False), (([M, M],), {"dim": 1}, False),
            (([M, M.astype(np.float64)],), {}, False)],
    "stack": [(([M, M],), {}, False), (([M, M],), {"dim": -1}, False)],
    "reshape": [((X, (6, 4)), {}, False), ((X, 6, 4), {}, True), ((X, (-1,)), {}, False)],
    "view": [((X, 4, 6), {}, True), ((X, -1), {}, True)],
    "permute": [((X, (2, 0, 1)), {}, False), ((X, 1, 0, 2), {}, True)],
    "transpose": [((X, 0, 2), {}, False), ((M, -1, 0), {}, True)],
    "t": [((M,), {}, False), ((V,), {}, False)],
    "adjoint": [((M,), {}, False)],
    "squeeze": [((X[:1],), {}, False), ((X[:1], 0), {}, False), ((X[:1], 1), {}, True)],
    "unsqueeze": [((M, 0), {}, False), ((M, -1), {}, True)],
    "flatten": [((X,), {}, False), ((X, 1), {}, False), ((X, 0, 1), {}, True)],
    "ravel": [((X,), {}, False)],
    "expand": [((M[:1], 5, 4), {}, True), ((M[:1], -1, 4), {}, True)],
    "broadcast_to": [((V, (3, 5)), {}, False)],
    "broadcast_tensors": [((M, M[:1]), {}, False)],
    "expand_as": [((M[:1], M), {}, True)],
    "view_as": [((M, X[0]), {}, True)],
    "view_as_real": [((M + 1j * M[::-1],), {}, False), ((V.astype(np.complex128),), {}, False)],
    "reshape_as": [((M, X[0]), {}, True)],
    "flip": [((X, (0, 2)), {}, False), ((M, [1]), {}, True)],
    "roll": [((X, 1, 2), {}, False), ((V, 2), {}, False), ((M, (1, 2), (0, 1)), {}, False)],
    "repeat": [((M, 2, 1), {}, True), ((V, 1, 2), {}, True)],
    "tile": [((M, (2, 1)), {}, False)],
    "repeat_interleave": [((V, 2), {}, False), ((M, 2, 0), {}, False)],
    "movedim": [((X, 0, -1), {}, False)],
    "unbind": [((M,), {}, False), ((M, 1), {}, False)],
    "split": [((V, 2), {}, False), ((M, [1, 3], 1), {}, False)],
    "chunk": [((V, 2), {}, False), ((M, 3, 1), {}, False)],
    "narrow": [((M, 1, 1, 2), {}, False)],
    "clone": [((M,), {}, False)],
    "contiguous": [((M,), {}, True)],
    "atleast_1d": [((np.array(2.0, dtype=np.float32),), {}, False)],
    "tril": [((M,), {}, False), ((M, 1), {}, False)],
    "triu": [((M, -1), {}, False)],
    "diagonal": [((M,), {}, False), ((X, 1, 1, 2), {}, False)],
    "diag": [((V,), {}, False), ((M,), {}, False)],
    "matmul": [((M, M.T.copy()), {}, False), ((X, M.T.copy()), {}, False), ((V[:4], M.T.copy()), {}, False),
               ((M, M.astype(np.float64).T.copy()), {}, False), ((M, M), {}, False)],
    "mm": [((M, M.T.copy()), {}, False), ((X, M), {}, False)],
    "bmm": [((X, X.transpose(0, 2, 1).copy()), {}, False)],
    "mv": [((M, V[:4]), {}, False)],
    "dot": [((V, V), {}, False)],
    "outer": [((V, V[:3]), {}, False)],
    "tensordot": [((X, M.T.copy()), {"dims": ([1, 2], [1, 0])}, False), ((M, M), {"dims": 2}, False)],
    "einsum": [(("ij,kj->ik", M, M), {}, False), (("bij->bji", X), {}, False)],
    "trace": [((M,), {}, False)],
    "vecdot": [((M, M), {}, False), ((X, M), {"dim": 1}, False)],
    "index_select": [((M, 1, np.array([0, 3, 3])), {}, False)],
    "gather": [((M[:2, :3], 1, I64), {}, False), ((M[:2, :3], 0, I64[:, :2] % 2), {}, False)],
    "take_along_dim": [((M[:2, :3], I64), {"dim": 1}, False)],
    "take": [((M, np.array([0, 5, 11])), {}, False)],
    "where": [((B, M[:2, :3], -M[:2, :3]), {}, False), ((B, M[:2, :3], 0.5), {}, False), ((B,), {}, False)],
    "nonzero": [((B,), {}, False), ((M,), {"as_tuple": True}, False)],
    "masked_fill": [((M[:2, :3], B, -1.0), {}, False)],
    "masked_select": [((M[:2, :3], B), {}, False)],
    "index_add": [((M, 0, np.array([0, 2, 0]), M), {}, False)],
    "scatter": [((np.zeros((2, 3), np.float32), 1, I64, M[:2, :3]), {}, False)],
    "scatter_add": [((np.zeros((2, 3), np.float32), 1, I64, M[:2, :3]), {}, False)],
    "sort": [((V,), {}, False), ((M, 0, True), {}, False)],
    "argsort": [((V,), {}, False), ((M,), {"dim": 0, "descending": True}, False)],
    "topk": [((V, 2), {}, False), ((M, 2, 0), {}, False), ((V, 2), {"largest": False}, False)],
    "kthvalue": [((V, 2), {}, False), ((M, 1, 0, True), {}, False)],
    "searchsorted": [((np.sort(V), V), {}, False), ((np.sort(V), V), {"right": True}, False)],
    "unique": [((I64,), {}, False), ((I64,), {"return_inverse": True, "return_counts": True}, False)],
    "bincount": [((np.array([0, 1, 1, 3]),), {}, False)],
    "isin": [((I64, np.array([0, 2])), {}, False), ((I64, np.array([0, 2])), {"invert": True}, False)],
    "broadcast_shapes": [(((2, 1), (3,)), {}, False), (((2,), (3,)), {}, False)],
    "result_type": [((I64, 2.5), {}, False), ((M, I64), {}, False), ((B, True), {}, False)],
    "can_cast": [((torch.float32, torch.int32), {}, False), ((torch.int8, torch.float16), {}, False)],
    "promote_types": [((torch.int32, torch.float32), {}, False), ((torch.uint8, torch.int8), {}, False)],
    "equal": [((M, M), {}, False), ((M, V), {}, False)],
    "allclose": [((M, M + 1e-9), {}, False)],
    "imag": [((M + 2j * M,), {}, False)],  # of real data: NumPy's zeros, on purpose (test_consumers_wrappers)
    "astype": [],  # the Array API name; checked in test_conversions
    "adaptive_max_pool1d_with_indices": [((X, 2), {}, False)],
    "adaptive_max_pool2d_with_indices": [((X, (2, 2)), {}, False)],
    "adaptive_max_pool3d_with_indices": [((X[None], (1, 2, 2)), {}, False)],
    "max_pool1d_with_indices": [((X, 2), {}, False)],
    "max_pool3d_with_indices": [((X[None], (1, 2, 2)), {}, False)],
    "dropout1d": [((X, 0.5), {"training": False}, False)],
}


@pytest.mark.parametrize("name", sorted(k for k, v in SAMPLES.items() if v))
def test_samples(name, backend):
    if backend == "dask" and name in ("nonzero", "masked_select", "unique") :
        pytest.skip("unknown Dask chunk sizes: covered by the Dask tests")
    for args, kwargs, method in SAMPLES[name]:
        check(name, args, kwargs, backend=backend, method=method)


# ------------------------------------------------------------------ creation
@pytest.mark.parametrize("name,args,kwargs", [
    ("zeros", (2, 3), {}), ("ones", ((2, 3),), {"dtype": torch.int64}), ("empty", (0, 2), {}),
    ("full", ((2, 2), 7), {}), ("full", ((2,), 1.5), {}), ("full", ((2,), True), {}),
    ("arange", (5,), {}), ("arange", (1, 4, 0.5), {}), ("arange", (2, 10, 3), {}),
    ("linspace", (0, 1, 5), {}), ("eye", (3,), {}), ("eye", (2, 4), {"dtype": torch.int32}),
    ("logspace", (0, 2, 5), {}), ("logspace", (0, 3.5, 4, 2.0), {"dtype": torch.int64}),
])
def test_creation(name, args, kwargs, backend):
    expected = getattr(torch, name)(*args, **kwargs)
    got = getattr(interop, name)(*args, backend=backend, **kwargs)
    assert got.backend == backend
    if name == "empty":
        assert got.shape == tuple(expected.shape) and got.dtype == expected.numpy().dtype
    else:
        assert_same(got, expected, f"{name} on {backend}")


@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "empty_like", "full_like",
                                  "rand_like", "randn_like", "randint_like"])
def test_creation_like(name, backend):
    x = to_interop(M, backend)
    args = (x, 3.0) if name == "full_like" else (x, 2, 5) if name == "randint_like" else (x,)
    got = getattr(interop, name)(*args)
    assert got.backend == backend and got.shape == M.shape and got.dtype == M.dtype
    if name in ("zeros_like", "ones_like", "full_like"):
        expected = getattr(torch, name)(*((to_torch(M), 3.0) if name == "full_like" else (to_torch(M),)))
        assert_same(got, expected, name)
    if name == "randint_like":
        assert set(np.unique(to_numpy(got))) <= {2.0, 3.0, 4.0}


@pytest.mark.parametrize("name", ["rand", "randn", "randint"])
def test_random_is_seedable(name, backend):
    args = (0, 10, (500,)) if name == "randint" else (500,)
    interop.manual_seed(3)
    a = getattr(interop, name)(*args, backend=backend)
    interop.manual_seed(3)
    b = getattr(interop, name)(*args, backend=backend)
    g = interop.Generator().manual_seed(3)
    c = getattr(interop, name)(*args, backend=backend, generator=g)
    np.testing.assert_array_equal(to_numpy(a), to_numpy(b))
    np.testing.assert_array_equal(to_numpy(a), to_numpy(c))
    values = to_numpy(a)
    assert a.dtype == (np.int64 if name == "randint" else np.float32)
    if name == "rand":
        assert values.min() >= 0 and values.max() < 1 and abs(values.mean() - 0.5) < 0.1
    elif name == "randn":
        assert abs(values.mean()) < 0.2 and abs(values.std() - 1) < 0.2
    else:
        assert set(np.unique(values)) <= set(range(10))


def test_meshgrid(backend):
    a, b = V[:2], V[:3]
    assert_same(interop.meshgrid(to_interop(a, backend), to_interop(b, backend)),
                torch.meshgrid(to_torch(a), to_torch(b), indexing="ij"), "meshgrid")


# ------------------------------------------------------------------ attributes, conversions
def test_attributes(backend):
    x = to_interop(X, backend)
    tx = to_torch(X)
    assert x.shape == tuple(tx.shape) and x.ndim == tx.ndim == x.dim()
    assert x.size() == tuple(tx.size()) and x.size(1) == tx.size(1) and x.numel() == tx.numel()
    assert interop.numel(x) == 24 and x.element_size() == 4 and x.nbytes == 96
    assert x.itemsize == 4 and x.dtype == interop.float32 == np.float32
    assert x.device == ("cpu" if not off_host(backend) else x.device)
    assert x.is_floating_point() and not x.is_complex()
    assert not x.requires_grad and x.is_cuda == (backend == "cupy") and x.detach() is not None
    assert len(x) == 2 and [type(r) for r in x] == [interop.Tensor] * 2
    one = to_interop(np.array([2.5], dtype=np.float32), backend)
    assert one.item() == 2.5 and float(one) == 2.5 and int(one) == 2 and bool(one)
    assert complex(one) == 2.5 and x.tolist() == tx.tolist()
    assert int(to_interop(np.array(3), backend)) == 3 and [0, 1, 2, 3][to_interop(np.array(3), backend)] == 3
    assert 5.0 in to_interop(M * 3, backend) and format(one[0], ".1f") == "2.5"
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(x)
    with pytest.raises(RuntimeError, match="cannot be converted to Scalar"):
        x.item()
    np.testing.assert_array_equal(to_numpy(x), X)


def test_conversions(backend):
    x = to_interop(M, backend)
    for name, dt in (("double", np.float64), ("half", np.float16), ("long", np.int64),
                     ("int", np.int32), ("bool", np.bool_), ("short", np.int16)):
        got = getattr(x, name)()
        expected = getattr(to_torch(M), name)()
        assert_same(got, expected, name)
        assert got.dtype == dt
    assert x.float() is x or x.float().dtype == np.float32
    assert x.to(interop.float64).dtype == np.float64 and x.to(torch.int64).dtype == np.int64
    assert x.to("float16").dtype == np.float16 and x.type(interop.int32).dtype == np.int32
    assert x.type() == ("torch.cuda.FloatTensor" if x.is_cuda else "torch.FloatTensor")
    assert x.type_as(to_interop(I64, backend)).dtype == np.int64
    assert interop.astype(x, interop.int8).dtype == np.int8
    assert x.to("cpu").backend == ("numpy" if off_host(backend) else backend)
    assert x.cpu().device == "cpu"
    assert x.to(backend="numpy").backend == "numpy" and x.to(backend="dask").backend == "dask"
    np.testing.assert_array_equal(to_numpy(x.to(backend="dask", chunks=(1, 4))), M)
    other = to_interop(I64, backend)
    assert x.to(other).dtype == np.int64


def test_inplace_and_setitem_write_through(backend):
    base = M.copy()
    x = interop.as_tensor(base) if backend == "numpy" else to_interop(base, backend)
    y = x.add_(1)
    assert y is x
    x.mul_(2).clamp_(max=10).sub_(1, alpha=2)
    x[0, 1] = 100.0
    x[1] = to_interop(np.full(4, -1, np.float32), backend)
    x[x > 50] = 0.0
    expected = torch.from_numpy(M.copy())
    expected.add_(1).mul_(2).clamp_(max=10).sub_(1, alpha=2)
    expected[0, 1] = 100.0
    expected[1] = -1
    expected[expected > 50] = 0.0
    assert_same(x, expected, "in-place chain")
    if backend == "numpy":
        np.testing.assert_array_equal(base, expected.numpy())  # written through, no copy
    z = to_interop(np.zeros(3, np.float32), backend)
    z.fill_(2.0).zero_()
    z.copy_(to_interop(np.arange(3.0), backend))
    np.testing.assert_array_equal(to_numpy(z), [0.0, 1.0, 2.0])
    ints = to_interop(np.arange(3), backend)
    with pytest.raises(RuntimeError, match="can't be cast"):
        ints.div_(2)
    np.testing.assert_array_equal(to_numpy(ints), [0, 1, 2])  # nothing half-written


def test_views_share_memory():
    base = np.arange(24.0).reshape(2, 3, 4)
    t = interop.as_tensor(base)
    for view in (t[0], t[:, 1], t.reshape(6, 4), t.view(4, 6), t.permute(2, 0, 1),
                 t.transpose(0, 1), t.unsqueeze(0), t.flatten(), t.T, t.mT,
                 t.narrow(2, 1, 2), t.diagonal(0, 1, 2), t.expand(3, 2, 3, 4), t[0].t()):
        assert np.shares_memory(view.raw, base)
    t[0].add_(1)
    assert base[0, 0, 0] == 1.0
    with pytest.raises(RuntimeError, match="use .reshape"):
        t.permute(2, 0, 1).view(-1)


def test_tensor_unfold(backend):
    check("unfold", (X, 2, 2, 1), backend=backend, method=True)


# Entries run against torch by a named test of their own: name -> (file, what it calls
# there), checked to be in that file (the recurrent kernels run inside nn.GRU & co.).
NAMED_TESTS = {
    **{name: ("test_random_fills.py", method) for name, method in DRAWS.items()},
    "gcd": ("test_torch_composite.py", "gcd"), "lcm": ("test_torch_composite.py", "lcm"),
    # torch 2.14's: in op_db there only
    **dict.fromkeys(("linalg_polar", "linalg_matrix_sqrth"),
                    ("test_torch_linalg.py", "test_polar_and_matrix_sqrth_match_scipy_and_torch")),
    **dict.fromkeys(("_scaled_dot_product_flash_attention_for_cpu",
                     "_scaled_dot_product_flash_attention_for_cpu_backward"),
                    ("test_flash_attention_records.py",
                     "test_forward_and_backward_match_torchs_kernels")),
    # removed by torch 2.14 (op_db's samples then fail on torch's side): against NumPy
    **dict.fromkeys(("qr", "cholesky"),
                    ("test_deprecations.py", "test_every_spelling_warns_and_still_computes")),
    "H": ("test_views.py", "H"), "mH": ("test_views.py", "mH"),
    "max_pool2d_with_indices": ("test_torch_opdb_ops.py", "max_pool2d_with_indices"),
    "new_empty": ("test_torch_opdb_ops.py", "new_empty"),
    "new_empty_strided": ("test_torch_opdb_ops.py", "new_empty_strided"),
    "new_full": ("test_torch_opdb_ops.py", "new_full"),
    "new_ones": ("test_torch_opdb_ops.py", "new_ones"),
    "new_zeros": ("test_torch_opdb_ops.py", "new_zeros"),
    "one_hot": ("test_torch_nn.py", "one_hot"),
    "orgqr": ("test_torch_linalg.py", "torch.orgqr"),
    "sum_to_size": ("test_torch_opdb_ops.py", "sum_to_size"),
    "unravel_index": ("test_torch_opdb_ops.py", "unravel_index"),
    "tensor_unfold": ("test_ops_table.py", "def test_tensor_unfold"),
    "gru": ("test_torch_modules.py", "nn.GRU"), "lstm": ("test_torch_modules.py", "nn.LSTM"),
    "rnn_tanh": ("test_torch_modules.py", "nn.RNN"),
    "rnn_relu": ("test_torch_modules.py", 'nonlinearity="relu"'),
    "_pack_padded_sequence": ("test_torch_modules.py", "pack_padded_sequence"),
    "_pad_packed_sequence": ("test_torch_modules.py", "pad_packed_sequence"),
    "embedding_bag": ("test_torch_modules.py", "EmbeddingBag"),
    "istft": ("test_torch_signal.py", "torch.istft"),
    "grid_sampler": ("test_torch_signal.py", "torch.grid_sampler,"),
    "affine_grid": ("test_torch_signal.py", "F.affine_grid"),
    "ctc_loss_reduction_code": ("test_torch_signal.py", "torch.ctc_loss"),
    "_nested_tensor_from_mask_left_aligned": ("test_torch_models.py", "TransformerEncoder"),
    "resize_": ("test_torch_opdb_ops.py", ".resize_("),
    "segment_reduce": ("test_torch_opdb_ops.py", "torch.segment_reduce("),
    "max_pool2d_with_indices_backward": ("test_torch_opdb_ops.py",
                                         "aten.max_pool2d_with_indices_backward("),
    **{name: ("test_aten_backward.py", f"aten.{name}") for name in (
        "convolution_backward", "avg_pool2d_backward", "avg_pool3d_backward",
        "_adaptive_avg_pool2d_backward", "_adaptive_avg_pool3d_backward",
        "adaptive_max_pool2d_backward", "adaptive_max_pool3d_backward",
        "max_pool3d_with_indices_backward", "hardshrink_backward", "softshrink_backward",
        "threshold_backward", "_log_softmax", "_log_softmax_backward_data", "nll_loss_forward",
        "nll_loss_backward", "native_batch_norm_backward",
        *(n for n in TABLE if "upsample" in n and n.endswith("_backward")))},
}


def test_every_operation_has_samples():
    """Every table entry is run against torch or NumPy somewhere: samples in this file,
    torch's op_db (tests/test_torch_opdb.py on the torch surface, and
    tests/test_table_surfaces.py on the function and method surfaces on both backends),
    the attribute, Dask and interchange tests, or a named test listed above."""
    pytest.importorskip("expecttest")
    from tests import test_table_surfaces as surfaces
    covered = set(UNARY) | set(BINARY) | set(EXTRA_UNARY) | set(REDUCTIONS) | set(SAMPLES)
    covered |= {"add", "sub", "div", "clamp", "isclose", "diff", "zeros", "ones", "empty",
                "full", "arange", "linspace", "logspace", "eye", "zeros_like", "ones_like",
                "empty_like", "full_like", "rand_like", "randn_like", "randint_like", "rand",
                "randn", "randint", "meshgrid", "__getitem__", "__setitem__", "T", "mT"}
    # attributes: test_attributes above; the Dask API: test_dask_api.py; interchange:
    # test_devices.py
    covered |= {e.name for e in TABLE.values()
                if e.family in ("attributes", "dask", "interchange")}
    operators = surfaces.float32_operators().values()
    opdb_names = {torch.overrides.resolve_name(o.op) for o in operators}
    opdb_names |= {f"torch.{o.name}" for o in operators}
    covered |= {e.name for e in TABLE.values() if set(e.torch) & opdb_names}
    tests_dir = Path(__file__).parent
    for name, (file, called) in NAMED_TESTS.items():
        assert called in (tests_dir / file).read_text(), (name, file, called)
    covered |= set(NAMED_TESTS)
    missing = sorted(set(TABLE) - covered)
    assert not missing, f"operations run against no reference: {missing}"
