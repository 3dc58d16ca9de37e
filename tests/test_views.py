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
        c[k, :, :] = xp.ones((3, 3)) * k
        view = c[k, :, :]
        diagonal = xp.linalg.diagonal(view) + 0.5
        for i in range(3):
            view[i, i] = diagonal[i]
    expected = np.stack([np.ones((3, 3)) * k + 0.5 * np.eye(3) for k in range(2)])
    np.testing.assert_array_equal(to_numpy(c), expected)


def test_advanced_indexing_copies_on_every_backend(backend):
    """An integer-array or mask index gives a copy (NumPy's rule): writes do not reach t."""
    t = interop.tensor(np.arange(6.0), backend=backend)
    picked = t[interop.tensor([0, 2])]
    picked += 100
    np.testing.assert_array_equal(to_numpy(t), np.arange(6.0))
