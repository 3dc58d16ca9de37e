"""Writes through basic-indexing views reach the tensor they were taken from, on every backend.

NumPy and CuPy views share the buffer; Dask arrays have none, so interop
replays a write into a view into its base (interop/backends/views.py).  Each
case runs the same code on NumPy arrays (the reference) and on tensors.
"""

from __future__ import annotations

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy


def _inplace_add(v):
    v += 1


def _method(v):
    v.add_(2) if isinstance(v, interop.Tensor) else np.add(v, 2, out=v)


def _setitem(v):
    v[0] = 7


def _ufunc_out(v):
    np.multiply(v, 3, out=v)


WRITES = [_inplace_add, _method, _setitem, _ufunc_out]
VIEWS = {
    "whole": lambda t: t[:],  # Dask returns the array itself: nothing to replay
    "row": lambda t: t[1],
    "slice": lambda t: t[1:, :2],
    "strided": lambda t: t[::2, 1:],
    "ellipsis, None": lambda t: t[..., 2][None],
    "chain": lambda t: t[1:][0][1:],
}
# torch's view operations, and the same view in NumPy (the reference)
LAYOUTS = {
    "reshape": (lambda t: t.reshape(4, 3), lambda a: a.reshape(4, 3)),
    "view": (lambda t: t.view(2, 6), lambda a: a.reshape(2, 6)),
    "flatten": (lambda t: t.flatten(), lambda a: a.reshape(-1)),
    "ravel": (lambda t: t.ravel(), lambda a: a.ravel()),
    "unsqueeze, squeeze": (lambda t: t.unsqueeze(1).squeeze(1), lambda a: a),
    "permute": (lambda t: t.permute(1, 0), lambda a: a.transpose(1, 0)),
    "transpose": (lambda t: t.transpose(0, 1), lambda a: a.T),
    "T": (lambda t: t.T, lambda a: a.T),
    "mT": (lambda t: t.mT, lambda a: a.T),
    "t()": (lambda t: t.t(), lambda a: a.T),
    "narrow": (lambda t: t.narrow(1, 1, 2), lambda a: a[:, 1:3]),
    "split": (lambda t: t.split(2, dim=1)[1], lambda a: a[:, 2:4]),
    "unbind": (lambda t: t.unbind(0)[2], lambda a: a[2]),
    "chain": (lambda t: t[1:].reshape(8)[::3], lambda a: a[1:].reshape(8)[::3]),
    # reshapes of views that are not contiguous are copies: writes stay there
    "reshape of a transpose": (lambda t: t.T.reshape(12), lambda a: a.T.reshape(12)),
    "reshape of a strided slice": (lambda t: t[::2].reshape(8), lambda a: a[::2].reshape(8)),
    "reshape of columns": (lambda t: t[:, 1:3].flatten(), lambda a: a[:, 1:3].flatten()),
    "reshape of a row block": (lambda t: t[1:, :].flatten(), lambda a: a[1:, :].reshape(-1)),
}


def _reference(view, write):
    a = np.arange(12.0).reshape(3, 4)
    write(view(a))
    return a


@pytest.mark.parametrize("write", WRITES, ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize("view", VIEWS.values(), ids=VIEWS.keys())
def test_a_write_into_a_view_reaches_its_base(backend, view, write):
    t = interop.tensor(np.arange(12.0).reshape(3, 4), backend=backend)
    v = view(t)
    write(v)
    np.testing.assert_array_equal(to_numpy(t), _reference(view, write))
    np.testing.assert_array_equal(to_numpy(v), view(_reference(view, write)))


@pytest.mark.parametrize("write", WRITES, ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize("view, reference", LAYOUTS.values(), ids=LAYOUTS.keys())
def test_a_write_into_a_view_operation_reaches_its_base(backend, view, reference, write):
    t = interop.tensor(np.arange(12.0).reshape(3, 4), backend=backend)
    a = np.arange(12.0).reshape(3, 4)
    write(view(t))
    write(reference(a))
    np.testing.assert_array_equal(to_numpy(t), a)


def test_writes_on_dask_stay_lazy():
    pytest.importorskip("dask")
    from dask.callbacks import Callback
    runs = []
    t = interop.tensor(np.zeros((4, 4)), backend="dask", chunks=2)
    with Callback(start=lambda dsk: runs.append(dsk)):
        for i in range(4):
            t[i][i] = i  # a write through a view, as scikit-learn's _add_to_diagonal does
    assert not runs
    np.testing.assert_array_equal(to_numpy(t), np.diag(np.arange(4.0)))


def test_array_api_consumer_pattern(backend):
    """scikit-learn's GaussianMixture: c[k] written whole, then its diagonal through a view."""
    xp = interop.array_api
    c = xp.zeros((2, 3, 3)) if backend == "numpy" else \
        interop.zeros((2, 3, 3), backend=backend)
    for k in range(2):
        c[k, :, :] = xp.ones((3, 3), device=c.device) * k  # made where c is, as consumers do
        view = c[k, :, :]
        diagonal = xp.linalg.diagonal(view) + 0.5
        for i in range(3):
            view[i, i] = diagonal[i]
    expected = np.stack([np.ones((3, 3)) * k + 0.5 * np.eye(3) for k in range(2)])
    np.testing.assert_array_equal(to_numpy(c), expected)


def test_advanced_indexing_copies_on_every_backend(backend):
    """An integer-array or mask index gives a copy (NumPy's rule): writes do not reach t."""
    t = interop.tensor(np.arange(6.0), backend=backend)
    picked = t[interop.tensor([0, 2], backend=backend)]
    picked += 100
    np.testing.assert_array_equal(to_numpy(t), np.arange(6.0))


# ------------------------------------------------------------------ torch's view operations
torch = pytest.importorskip("torch")

# torch's documented views, each the same call on a torch tensor and an interop one
TORCH_VIEWS = {
    "squeeze": lambda t: t[None].squeeze(0),
    "squeeze dim": lambda t: t[:1].squeeze(0),
    "select": lambda t: t.select(1, 2),
    "select negative": lambda t: t.select(0, -1),
    "movedim": lambda t: t.movedim(0, 1),
    "movedim tuple": lambda t: t.unsqueeze(0).movedim((0, 2), (2, 0)),
    "unflatten": lambda t: t.unflatten(1, (2, 2)),
    "tensor_split": lambda t: t.tensor_split(3, dim=1)[1],
    "tensor_split indices": lambda t: t.tensor_split([1, 2])[2],
    "diagonal": lambda t: t.diagonal(),
    "diagonal offset": lambda t: t.diagonal(1),
    "diagonal below": lambda t: t.diagonal(-1),
    "diagonal dims": lambda t: t.unsqueeze(0).diagonal(0, 2, 1),
    "0-d integer index": lambda t: t[torch.tensor(1) if isinstance(t, torch.Tensor)
                                     else interop.tensor(1)],
    "0-d integer index in a tuple": lambda t: t[torch.tensor(1) if isinstance(t, torch.Tensor)
                                                else interop.tensor(1), 1:],
    "0-d integer slice bound": lambda t: t[1, torch.tensor(2) if isinstance(t, torch.Tensor)
                                           else interop.tensor(2, backend="dask"):],
    "expand to the same shape": lambda t: t.expand(3, 4),
    "view_as": lambda t: t.view_as(t.reshape(4, 3)),
    "reshape_as": lambda t: t.reshape_as(t.reshape(2, 6)),
    "H": lambda t: t.H,
    "mH": lambda t: t.mH,
    "swapdims": lambda t: t.swapdims(0, 1),
    "hsplit": lambda t: t.hsplit(2)[1],
    "vsplit": lambda t: t.vsplit(3)[1],
    "chunk": lambda t: t.chunk(2, 1)[1],
    "split_with_sizes": lambda t: t.split([1, 2])[1],
    "detach": lambda t: t.detach(),
    "chain": lambda t: t.T.select(0, 1).unflatten(0, (1, 3)).squeeze(0),
}
TORCH_WRITES = {
    "add_": lambda v: v.add_(100),
    "setitem": lambda v: v.__setitem__(0, 99),
    "fill_": lambda v: v.fill_(-5),
    "mul_ by itself": lambda v: v.mul_(v),
}


@pytest.mark.parametrize("write", list(TORCH_WRITES))
@pytest.mark.parametrize("view", list(TORCH_VIEWS))
def test_torch_views_write_through(backend, view, write):
    """The view and the tensor it came from both hold torch's values after the write."""
    expected = torch.arange(12.0, dtype=torch.float64).reshape(3, 4)
    t = interop.tensor(np.arange(12.0).reshape(3, 4), backend=backend,
                       **({"chunks": 2} if backend == "dask" else {}))
    expected_view, v = TORCH_VIEWS[view](expected), TORCH_VIEWS[view](t)
    TORCH_WRITES[write](expected_view)
    TORCH_WRITES[write](v)
    np.testing.assert_array_equal(to_numpy(t), expected.numpy())
    np.testing.assert_array_equal(to_numpy(v), expected_view.numpy())


@pytest.mark.parametrize("part", ["real", "imag"])
def test_real_and_imag_write_through(backend, part):
    values = np.arange(6.0).reshape(2, 3) * (1 + 2j)
    expected = torch.from_numpy(values.copy())
    t = interop.tensor(values, backend=backend)
    for x in (expected, t):
        v = getattr(x, part)
        v.add_(10)
        v[0, 1] = -1
    np.testing.assert_array_equal(to_numpy(t), expected.numpy())


def test_negative_step_views_write_through(backend):
    """torch has no negative steps; NumPy's views are the reference (a half-write before)."""
    a = np.arange(12.0).reshape(3, 4)
    t = interop.tensor(a.copy(), backend=backend, **({"chunks": 2} if backend == "dask" else {}))
    for x in (a, t):
        v = x[1, ::-1]
        v[0] = 99
        w = x[::-2, 1:3][0]
        w += 1000
    np.testing.assert_array_equal(to_numpy(t), a)
    np.testing.assert_array_equal(to_numpy(t[1, ::-1]), a[1, ::-1])


BROADCASTS = {
    "expand": lambda t: t[:1].expand(3, 4),
    "expand new dims": lambda t: t[0].expand(2, 4),
    "broadcast_to": lambda t: t[:1].broadcast_to((3, 4)),
    "expand_as": lambda t: t[:1].expand_as(t),
}


@pytest.mark.parametrize("view", list(BROADCASTS))
def test_writes_into_broadcast_views_raise_as_torch(backend, view):
    """torch's words, on both backends, and nothing written."""
    reference = torch.zeros(3, 4)
    with pytest.raises(RuntimeError) as torch_error:
        BROADCASTS[view](reference).add_(1)
    t = interop.tensor(np.arange(12.0).reshape(3, 4), backend=backend)
    for write in (lambda v: v.add_(1), lambda v: v.__setitem__(0, 5), lambda v: v.fill_(2),
                  lambda v: v.copy_(v * 2)):
        v = BROADCASTS[view](t)
        with pytest.raises(RuntimeError, match="more than one element of the written-to") as err:
            write(v)
        assert str(torch_error.value) in str(err.value)
    np.testing.assert_array_equal(to_numpy(t), np.arange(12.0).reshape(3, 4))


def test_a_lazy_zero_d_index_is_a_value_read():
    from interop.errors import DaskComputeError
    t = interop.tensor(np.arange(12.0).reshape(3, 4), backend="dask")
    i = interop.tensor(np.array(1), backend="dask")
    with interop.config(dask_compute="raise"), pytest.raises(DaskComputeError):
        t[i]
    v = t[i]
    v.add_(1)
    np.testing.assert_array_equal(to_numpy(t)[1], np.arange(4.0, 8.0) + 1)
