"""torch's in-place samplers (``t.uniform_()``, ``t.normal_()``, ...) on every backend and through
the torch face, as ``torch.nn.init`` fills a module's weights.

The draws come from the backend's own generator (seeded from torch's, so
``torch.manual_seed`` repeats them), not torch's stream: each sampler is checked against
torch's samples of the same distribution by their moments (20,000 draws), and each write
lands in the tensor's own buffer.
"""

from __future__ import annotations

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy
from tests.helpers.samplers import DRAWS

torch = pytest.importorskip("torch")

N = 20_000
SAMPLERS = {  # name: (arguments, what each statistic is compared with)
    "uniform_": ((2.0, 5.0), "moments"),
    "normal_": ((1.0, 2.0), "moments"),
    "exponential_": ((3.0,), "moments"),
    "log_normal_": ((0.0, 0.5), "moments"),
    "geometric_": ((0.3,), "moments"),
    "cauchy_": ((1.0, 2.0), "quantiles"),  # no moments: its median and quartiles
}


def _statistics(values: np.ndarray, kind: str) -> np.ndarray:
    if kind == "moments":
        return np.array([values.mean(), values.std()])
    return np.quantile(values, [0.25, 0.5, 0.75])


@pytest.mark.parametrize("name", list(SAMPLERS))
def test_sampler_draws_torchs_distribution_into_the_tensor(name, backend):
    args, kind = SAMPLERS[name]
    t = interop.zeros(N, dtype=interop.float64, backend=backend)
    buffer = t.raw
    torch.manual_seed(0)
    assert getattr(t, name)(*args) is t
    if backend != "dask":
        assert t.raw is buffer  # written in place
    got = to_numpy(t)
    torch.manual_seed(0)
    expected = getattr(torch.zeros(N, dtype=torch.float64), name)(*args).numpy()
    np.testing.assert_allclose(_statistics(got, kind), _statistics(expected, kind), rtol=0.06)
    if name == "uniform_":
        assert 2.0 <= got.min() and got.max() < 5.0  # the support, [from, to)
    if name == "geometric_":
        assert got.min() >= 1 and np.array_equal(got, np.round(got))  # trials: 1, 2, ...
    again = interop.zeros(N, dtype=interop.float64, backend=backend)
    torch.manual_seed(0)
    np.testing.assert_array_equal(to_numpy(getattr(again, name)(*args)), got)  # seeded by torch


def test_samplers_keep_the_dtype_and_refuse_integers_as_torch_does():
    t = interop.zeros(5, dtype=interop.float32)
    assert t.uniform_().dtype == interop.float32 and t.normal_().dtype == interop.float32
    with pytest.raises(NotImplementedError, match="uniform_"):
        interop.zeros(3, dtype=interop.int64).uniform_()
    with pytest.raises(RuntimeError, match="from=3.0 > to=1.0"):
        t.uniform_(3.0, 1.0)
    with pytest.raises(RuntimeError, match="std >= 0.0"):
        t.normal_(0.0, -1.0)
    with pytest.raises(RuntimeError, match="p to be in"):
        t.geometric_(1.5)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_nn_init_fills_a_modules_weights_on_the_backend(backend):
    """A module moved to a backend re-initialises there: ``reset_parameters`` (uniform_),
    ``trunc_normal_``, ``xavier_normal_``, ``kaiming_uniform_``, with a torch.Generator too."""
    model = interop.to_backend(torch.nn.Linear(64, 32).double(), backend)
    model.reset_parameters()
    bound = 1 / 8  # 1 / sqrt(fan_in)
    weight = to_numpy(model.weight.as_interop())
    assert weight.shape == (32, 64) and np.abs(weight).max() <= bound and weight.std() > bound / 3
    torch.nn.init.trunc_normal_(model.weight, std=0.02)
    assert np.abs(to_numpy(model.weight.as_interop())).max() <= 2.0
    torch.nn.init.xavier_normal_(model.weight, generator=torch.Generator().manual_seed(1))
    assert abs(to_numpy(model.weight.as_interop()).std() - np.sqrt(2 / 96)) < 0.02
    torch.nn.init.kaiming_uniform_(model.weight)
    assert model.weight.as_interop().backend == backend


def test_every_sampler_record_is_sampled_here():
    assert set(SAMPLERS) == set(DRAWS.values())
    assert all(interop.ops.TABLE[record].inplace == method for record, method in DRAWS.items())


@pytest.mark.parametrize("name", list(SAMPLERS))
def test_a_parameter_that_is_not_a_number_is_refused_by_name(name):
    """As torch refuses it (``uniform_(None)``: argument 'from' must be float), before any
    draw."""
    with pytest.raises(TypeError) as theirs:
        getattr(torch.zeros(3), name)(None)
    param = str(theirs.value).split("'")[1]
    with pytest.raises(TypeError, match=f"{name}\\(\\): argument '{param}' must be float"):
        getattr(interop.zeros(3), name)(None)


def test_samplers_on_empty_0d_and_lazy_tensors_compute_nothing():
    from tests.test_numpy_functions import count_computes
    for shape in [(), (0,), (2, 0)]:
        for backend in ("numpy", "dask"):
            t = interop.zeros(shape, dtype=interop.float32, backend=backend).normal_()
            assert tuple(t.shape) == shape and to_numpy(t).dtype == np.float32
    with count_computes() as computes, interop.config(dask_compute="raise"):
        interop.zeros(8, dtype=interop.float64, backend="dask").uniform_().exponential_()
    assert computes == []
