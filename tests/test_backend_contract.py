"""The backend contract: every backend provides what it requires, and the optional services
operations call instead of branching on laziness give NumPy's answers on every backend."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import interop
from interop.backends.contract import REQUIRED, Backend
from interop.backends.registry import get_backend
from interop.devices import BACKEND_NAMES
from tests.conftest import to_numpy


def _backend(name: str) -> Backend:
    try:
        return get_backend(name)
    except ImportError as exc:
        pytest.skip(f"the {name} backend's library is not installed: {exc}")


@pytest.mark.parametrize("name", BACKEND_NAMES)
def test_each_backend_provides_what_the_contract_requires(name):
    be = _backend(name)
    cls = type(be)
    assert not inspect.isabstract(cls), f"{cls.__name__} lacks {sorted(cls.__abstractmethods__)}"
    assert cls.name == name and cls.array_type is not type(None)
    own = {attr for klass in cls.__mro__ if klass is not Backend and issubclass(klass, Backend)
           for attr in vars(klass)} | set(vars(be))
    assert REQUIRED - own == set(), f"{cls.__name__} inherits required {sorted(REQUIRED - own)}"


def test_required_and_optional_are_told_apart():
    """Required: no default; optional: a default suited to an eager host library."""
    assert {"xp", "np", "asarray"} <= REQUIRED
    optional = {n for n, v in vars(Backend).items() if inspect.isfunction(v)
                and not n.startswith("_") and not getattr(v, "__isabstractmethod__", False)}
    assert not optional & REQUIRED and {"to_host", "peek", "reshape", "on_matrices"} <= optional


HOST = np.arange(24.0).reshape(2, 3, 4)
EAGER_AND_LAZY = ["numpy", "dask", "cubed", "jax", "torch", "strict"]


def _raw(name: str, host: np.ndarray = HOST):
    _backend(name)
    kw = {"chunks": tuple(2 if s > 2 else max(s, 1) for s in host.shape)} \
        if name in ("dask", "cubed") else {}
    return interop.tensor(host, backend=name, **kw)._raw


def _values(be: Backend, raw) -> np.ndarray:
    (raw,) = be.compute(raw)
    return to_numpy(interop.as_tensor(raw))


@pytest.mark.parametrize("name", EAGER_AND_LAZY)
def test_peek_reads_only_what_costs_nothing(name):
    be, raw = _backend(name), _raw(name)
    peeked = be.peek(be.xp.sum(raw))
    assert peeked is None if be.lazy else peeked == HOST.sum()
    assert be.peek(3) == 3 and be.peek(np.float32(2.5)) == 2.5


@pytest.mark.parametrize("name", ["numpy", "dask", "cubed", "jax", "torch"])
def test_reshape_matches_numpy(name):
    be = _backend(name)
    for host, shape in ((HOST, (4, 6)), (HOST, (24,)), (np.zeros((0, 3)), (3, 0))):
        np.testing.assert_array_equal(_values(be, be.reshape(_raw(name, host), shape)),
                                      host.reshape(shape))


@pytest.mark.parametrize("name", ["numpy", "dask", "cubed"])
def test_whole_matrices_and_axes_match_numpy(name):
    be, raw = _backend(name), _raw(name)
    doubled = be.on_matrices(lambda block, xnp: xnp.swapaxes(block, -1, -2) * 2, raw, (4, 3))
    np.testing.assert_array_equal(_values(be, doubled), np.swapaxes(HOST, -1, -2) * 2)
    cumulative = be.along_axis(lambda block, xnp: xnp.cumsum(block, axis=1)[:, :2], raw, 1, 2)
    np.testing.assert_array_equal(_values(be, cumulative), np.cumsum(HOST, axis=1)[:, :2])
    whole = be.whole_along(raw, 2)
    assert be.chunking(whole) is None or len(be.chunking(whole)[2]) == 1


@pytest.mark.parametrize("name", ["numpy", "dask", "cubed"])
def test_chunk_options_and_chunking(name):
    be, raw = _backend(name), _raw(name)
    assert (be.chunking(raw) is None) == (not be.lazy)
    assert be.chunk_options(None) == ({"chunks": "auto"} if be.lazy else {})


@pytest.mark.parametrize("name", ["numpy", "dask", "cubed"])
def test_unique_slices_where_a_graph_can_have_them(name):
    be, raw = _backend(name), _raw(name, np.array([[1, 2], [1, 2], [0, 5]]))
    if be.lazy:
        with pytest.raises(interop.errors.BackendLacksError, match="unique"):
            be.unique_slices(raw, 0)
        return
    values, inverse, counts = be.unique_slices(raw, 0)
    np.testing.assert_array_equal(values, [[0, 5], [1, 2]])
    np.testing.assert_array_equal(counts, [1, 2])
