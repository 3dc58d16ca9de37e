"""Pickling: tensors of every backend, and subclasses with their attributes, round-trip
(what dask.distributed does to send them to workers); lazy tensors stay lazy."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy


class Tagged(interop.Tensor):
    """A module-level subclass (picklable by reference) with attributes."""


def _tagged(t: interop.Tensor) -> Tagged:
    s = t.as_subclass(Tagged)
    s.unit, s.meta = "m", {"source": "sensor", "scale": [1, 2]}
    return s


@pytest.mark.parametrize("protocol", [2, pickle.HIGHEST_PROTOCOL])
def test_tensor_round_trips(backend, protocol):
    host = np.arange(12.0).reshape(3, 4)
    t = interop.tensor(host, backend=backend)
    back = pickle.loads(pickle.dumps(t, protocol=protocol))
    assert type(back) is interop.Tensor and back.backend == backend
    assert back.dtype == t.dtype and back.shape == t.shape
    np.testing.assert_array_equal(to_numpy(back), host)


def test_subclass_keeps_attributes(backend):
    host = np.arange(6.0)
    s = _tagged(interop.tensor(host, backend=backend))
    back = pickle.loads(pickle.dumps(s))
    assert type(back) is Tagged and back.unit == "m" and back.meta == s.meta
    assert back.meta is not s.meta
    np.testing.assert_array_equal(to_numpy(back + 1), host + 1)


def test_lazy_tensor_pickles_its_graph_not_values():
    pytest.importorskip("dask.array")
    t = _tagged(interop.tensor(np.arange(8.0), backend="dask", chunks=2)) * 3
    with interop.config(dask_compute="raise"):
        back = pickle.loads(pickle.dumps(t))  # would raise if pickling read values
    assert back.backend == "dask" and back.chunks == ((2, 2, 2, 2),) and back.unit == "m"
    np.testing.assert_array_equal(to_numpy(back), np.arange(8.0) * 3)


def test_cloudpickle_round_trips_subclass_defined_in_a_function():
    cloudpickle = pytest.importorskip("cloudpickle")

    class Local(interop.Tensor):
        pass

    s = interop.tensor([1.0, 2.0]).as_subclass(Local)
    s.unit = "s"
    back = cloudpickle.loads(cloudpickle.dumps(s))
    assert type(back).__name__ == "Local" and back.unit == "s"
    np.testing.assert_array_equal(to_numpy(back), [1.0, 2.0])


def test_copy_and_deepcopy_keep_subclass_and_attributes(backend):
    s = _tagged(interop.tensor(np.arange(4.0), backend=backend))
    shallow, deep = copy.copy(s), copy.deepcopy(s)
    assert type(shallow) is type(deep) is Tagged
    assert shallow.meta is s.meta and deep.meta == s.meta and deep.meta is not s.meta
