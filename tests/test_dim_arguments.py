"""Dimension arguments follow torch's rules on every backend, normalised once per record.

Reference: torch on the same values.  Each case is (operation, how it is called,
the dim); both libraries must agree on the result's shape and values, or both
raise (torch's class where it raises a TypeError or IndexError).
"""

from __future__ import annotations

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy

torch = pytest.importorskip("torch")

REDUCTIONS = ["sum", "mean", "amax", "amin", "std", "var", "count_nonzero", "nansum",
              "nanmean", "var_mean", "std_mean", "any", "all", "prod", "max", "min", "argmax",
              "argmin", "median", "cumsum", "softmax", "squeeze", "unsqueeze", "flip"]
DIMS = [(), [], np.int64(1), np.int32(0), True, 1, -1, (0, 1), [np.int64(0)], (0, True)]


def _outcome(result):
    if isinstance(result, tuple):
        return tuple(_outcome(r) for r in result)
    return to_numpy(result)


def _call(lib, name, x, dim):
    fn = getattr(lib, name)
    if name == "flip":
        return fn(x, dims=dim)
    return fn(x, dim=dim)


@pytest.mark.parametrize("dim", DIMS, ids=repr)
@pytest.mark.parametrize("name", REDUCTIONS)
def test_dim_as_torch_reads_it(backend, name, dim) -> None:
    if backend == "dask" and name == "median":
        pytest.skip("torch.median is not implemented by the dask backend (no argsort in Dask)")
    values = np.arange(1.0, 7.0).reshape(2, 3)
    x = interop.tensor(values, backend=backend)
    if name == "flip" and not isinstance(dim, (tuple, list, bool)):
        # Deliberate: one record serves torch.flip(x, dims) (a tuple only) and Tensor.flip(*dims),
        # where torch takes t.flip(0); interop takes a bare int in both.
        assert to_numpy(x.flip(dim)).shape == (2, 3)
        return
    try:
        expected = _outcome(_call(torch, name, torch.tensor(values), dim))
    except (TypeError, RuntimeError, IndexError) as exc:
        with pytest.raises((type(exc), TypeError)):
            _call(interop, name, x, dim)
        return
    got = _outcome(_call(interop, name, x, dim))
    for e, g in zip(expected if isinstance(expected, tuple) else (expected,),
                    got if isinstance(got, tuple) else (got,)):
        assert g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=1e-6)


def test_a_zero_d_tensor_is_a_dim_and_a_lazy_one_is_a_value_read() -> None:
    pytest.importorskip("dask")
    values = np.arange(6.0).reshape(2, 3)
    x = interop.tensor(values)
    assert interop.sum(x, dim=interop.tensor(1)).shape == (2,)
    assert x.sum(interop.tensor(np.int64(0))).shape == (3,)
    lazy_dim = interop.tensor(1, backend="dask")
    with interop.config(dask_compute="raise"), pytest.raises(interop.DaskComputeError, match="dim"):
        interop.sum(x, dim=lazy_dim)
    assert interop.sum(x, dim=lazy_dim).shape == (2,)  # 'allow': read, then used


def test_max_with_a_tensor_in_place_of_dim_is_elementwise_as_in_torch() -> None:
    values = np.array([[1.0, 5.0], [3.0, 2.0]])
    other = np.array(2.5)
    expected = torch.max(torch.tensor(values), torch.tensor(other)).numpy()
    np.testing.assert_array_equal(interop.max(interop.tensor(values), interop.tensor(other)).numpy(),
                                  expected)
    values_, indices = interop.max(interop.tensor(values), np.int64(1))  # a NumPy int is a dim
    np.testing.assert_array_equal(indices.numpy(), torch.max(torch.tensor(values), 1).indices)


def test_error_names_the_operation_and_argument() -> None:
    x = interop.ones(2, 3)
    with pytest.raises(TypeError, match=r"sum\(\): argument 'dim' must be int or tuple of ints, not bool"):
        x.sum(dim=True)
    with pytest.raises(TypeError, match=r"prod\(\): argument 'dim' must be int, not tuple"):
        interop.prod(x, dim=(0, 1))
    assert interop.var(x, True).shape == ()  # torch.var(x, True): the bool is `unbiased`
