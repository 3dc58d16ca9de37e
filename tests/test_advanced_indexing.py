"""Advanced indexing, property-tested: random mixes of integers, slices, None, ``...``
and integer arrays (several, broadcast together, n-d), and boolean masks over some
dimensions, read and written on NumPy and Dask tensors against torch (the semantics
of ``t[...]``) and, where the two agree, NumPy.  On Dask nothing computes while the
result is built or written (counted with a Dask callback)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import interop

torch = pytest.importorskip("torch")
pytest.importorskip("dask.array")
from tests.helpers.dask_counting import ComputeCounter  # noqa: E402

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
CHUNKS = 2  # several chunks along every dimension: the takes cross chunk boundaries


@st.composite
def advanced_keys(draw):
    """(shape, key): integer arrays at one or more dimensions, broadcastable shapes, and
    integers, slices, None and ``...`` around them (lists stand for index tensors)."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    kinds = draw(st.lists(st.sampled_from(["array", "int", "slice", "whole"]),
                          min_size=len(shape), max_size=len(shape)).filter(
        lambda k: "array" in k))
    bshape = draw(st.lists(st.integers(1, 3), min_size=1, max_size=2))
    last = len(kinds) - 1 - kinds[::-1].index("array")
    key = []
    for d, (size, kind) in enumerate(zip(shape, kinds)):
        if kind == "array":  # 0-d ones too (torch selects with them, as with integers),
            dims = draw(st.integers(0 if d < last else 1, len(bshape)))  # the last is not
            ashape = [draw(st.sampled_from([1, b])) for b in bshape[len(bshape) - dims:]]
            key.append(np.asarray(draw(st.lists(st.integers(-size, size - 1),
                                                min_size=int(np.prod(ashape)),
                                                max_size=int(np.prod(ashape))))).reshape(ashape))
        elif kind == "int":
            key.append(draw(st.integers(-size, size - 1)))
        elif kind == "slice":
            key.append(slice(draw(st.integers(0, size)), draw(st.integers(0, size) | st.none()),
                             draw(st.sampled_from([None, 1, 2]))))
        else:
            key.append(slice(None))
    if draw(st.booleans()):
        key.insert(draw(st.integers(0, len(key))), None)
    if draw(st.booleans()):  # replace a trailing run of whole slices by ...
        while key and isinstance(key[-1], slice) and key[-1] == slice(None):
            key.pop()
        key.append(Ellipsis)
    return shape, tuple(key)


def _key(key, make):
    return tuple(make(k) if isinstance(k, np.ndarray) else k for k in key)


def _torch_result(x, key, value=None):
    t = torch.from_numpy(x.copy())
    tkey = _key(key, lambda k: torch.from_numpy(k.astype(np.int64)) if k.dtype != bool
                else torch.from_numpy(k))
    if value is None:
        return t[tkey].numpy()
    t[tkey] = torch.from_numpy(np.broadcast_to(value, t[tkey].shape).copy())
    return t.numpy()


def _interop_key(key, backend):
    return _key(key, lambda k: interop.tensor(k, backend=backend, chunks=CHUNKS)
                if backend == "dask" else interop.tensor(k))


def _tensor(x, backend):
    return interop.tensor(x, backend=backend, chunks=CHUNKS) if backend == "dask" \
        else interop.tensor(x)


def _host(t):
    return (t.compute() if t.backend == "dask" else t).numpy()


def _numpy_agrees(key):
    """NumPy's placement equals torch's where no integer stands beside the index arrays."""
    return not any(isinstance(k, int) or getattr(k, "ndim", 1) == 0 for k in key)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@SETTINGS
@given(case=advanced_keys())
def test_getitem_matches_torch_and_numpy(case, backend):
    shape, key = case
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    expected = _torch_result(x, key)
    t = _tensor(x, backend)
    with ComputeCounter() as counter:
        out = t[_interop_key(key, backend)]
    assert counter.count == 0
    assert tuple(out.shape) == expected.shape and out.backend == backend
    np.testing.assert_array_equal(_host(out), expected)
    if _numpy_agrees(key):
        np.testing.assert_array_equal(_host(out), x[key])


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@SETTINGS
@given(case=advanced_keys(), data=st.data())
def test_setitem_matches_torch(case, data, backend):
    shape, key = case
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    selected = _torch_result(x, key).shape
    # distinct positions only: with repeated ones, which value lands is unspecified
    coords = np.broadcast_arrays(*[k for k in key if isinstance(k, np.ndarray)])
    flat = np.ravel_multi_index([c.ravel() % s for c, s in zip(coords, _array_sizes(shape, key))],
                                _array_sizes(shape, key)) if coords else np.zeros(0)
    if len(np.unique(flat)) != len(flat):
        return
    value = -1 - np.arange(int(np.prod(selected)), dtype=np.int32).reshape(selected)
    if data.draw(st.booleans(), label="scalar value"):
        value = np.int32(-5)
    expected = _torch_result(x, key, value)
    t = _tensor(x, backend)
    with ComputeCounter() as counter:
        t[_interop_key(key, backend)] = value if value.ndim == 0 else _tensor(value, backend)
    assert counter.count == 0
    np.testing.assert_array_equal(_host(t), expected)


def _array_sizes(shape, key):
    """The sizes of the dimensions the index arrays of ``key`` index."""
    sizes, d = [], 0
    for k in key:
        if k is Ellipsis:
            d += len(shape) - sum(1 for j in key if j is not None and j is not Ellipsis)
        elif k is not None:
            if isinstance(k, np.ndarray):
                sizes.append(shape[d])
            d += 1
    return sizes


@st.composite
def masks(draw):
    """(shape, key): a boolean mask over k consecutive dimensions, whole slices around it."""
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=1, max_size=4)))
    at = draw(st.integers(0, len(shape) - 1))
    k = draw(st.integers(1, len(shape) - at))
    size = int(np.prod(shape[at:at + k]))
    mask = np.asarray(draw(st.lists(st.booleans(), min_size=size, max_size=size)), dtype=bool)
    mask = mask.reshape(shape[at:at + k])
    return shape, (*[slice(None)] * at, mask)


@SETTINGS
@given(case=masks())
def test_masks_over_some_dimensions_on_dask(case):
    shape, key = case
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    t = _tensor(x, "dask")
    with ComputeCounter() as counter:
        out = t[_interop_key(key, "dask")]
    assert counter.count == 0
    expected = x[key]
    got = _host(out)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)
    if not key[-1].size:  # nothing can be selected: the size is known without computing
        assert tuple(out.shape) == expected.shape


def test_index_arrays_stay_lazy_and_are_bound_checked_when_computed():
    x = interop.tensor(np.arange(24).reshape(2, 3, 4), backend="dask", chunks=2)
    i = interop.tensor([0, 2], backend="dask")
    j = interop.tensor([[1], [4]], backend="dask")  # 4 is out of range for a size of 4
    with ComputeCounter() as counter:
        out = x[:, i, j]
    assert counter.count == 0 and tuple(out.shape) == (2, 2, 2)
    with pytest.raises(IndexError, match="out of bounds"):
        out.compute()


def test_host_index_arrays_are_checked_at_once():
    x = interop.tensor(np.arange(24).reshape(2, 3, 4), backend="dask", chunks=2)
    with pytest.raises(IndexError):
        x[[0, 1], [0, 3]]
    with pytest.raises(IndexError, match="broadcast"):
        x[[0, 1], [0, 1, 2]]
    with pytest.raises(IndexError, match="boolean index did not match"):
        x[np.ones((2, 2), bool)]


def test_integers_select_before_index_tensors_as_in_torch():
    """NumPy puts i's dimension first in x[0, :, i] (the integer counts as an index array);
    torch selects with the integer first, so the dimension stays in place."""
    x = np.arange(60).reshape(3, 4, 5)
    for backend in ("numpy", "dask"):
        out = _tensor(x, backend)[0, :, [1, 2]]
        assert tuple(out.shape) == (4, 2)
        np.testing.assert_array_equal(_host(out), x[0][:, [1, 2]])
    assert x[0, :, [1, 2]].shape == (2, 4)


@pytest.mark.parametrize("call", [
    lambda t, i, s, m: m.index_add(t, 0, i, s, alpha=2),
    lambda t, i, s, m: t.index_copy(0, i, s),
    lambda t, i, s, m: t.float().index_reduce(0, i, s.float(), "prod"),
    lambda t, i, s, m: t.clone().index_add_(0, i, s)],
    ids=["index_add", "index_copy", "index_reduce", "index_add_"])
def test_index_functions_of_0d_tensors_take_a_0d_source(backend, call):
    """A parameter named ``source`` is a tensor here, not a dimension (the name-based rule
    for unannotated dims turned a 0-d source into a Python number): torch's values."""
    from tests.conftest import to_numpy
    ours = [interop.tensor(np.array(v), backend=backend) for v in (5, [0], 3)]
    theirs = [torch.tensor(v) for v in (5, [0], 3)]
    got = call(*ours, interop)
    assert got.backend == backend and tuple(got.shape) == ()
    np.testing.assert_array_equal(to_numpy(got), call(*theirs, torch).numpy())
