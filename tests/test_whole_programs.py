"""Whole programs on chunked and compiled backends: a network over a chunked Dask array is
one task per chunk per layer, fused (blockwise lowering), and under ``jax.jit`` a
convolution or a pool is XLA's one primitive; each result equals torch's."""

from __future__ import annotations

import io

import numpy as np
import pytest

import interop
from tests.helpers.dask_counting import ComputeCounter

torch = pytest.importorskip("torch")
da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
nn = torch.nn


def _cnn() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, stride=2), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 4)).eval()


IMAGES = np.random.default_rng(0).standard_normal((24, 3, 16, 16)).astype(np.float32)


def test_a_network_over_chunks_is_a_few_tasks_per_chunk_and_torchs_values():
    model, chunks = _cnn(), 6
    x = interop.tensor(IMAGES, backend="dask", chunks=(len(IMAGES) // chunks, 3, 16, 16))
    with ComputeCounter() as counter, torch.no_grad():
        y = model(x)
    assert counter.count == 0 and isinstance(y.raw, da.Array)
    tasks = len(dask.optimize(y.raw)[0].__dask_graph__())
    assert tasks <= 20 * chunks, f"{tasks} tasks for {chunks} chunks"
    with torch.no_grad():
        expected = model(torch.from_numpy(IMAGES)).numpy()
    np.testing.assert_allclose(np.asarray(y.compute()), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("layer", [
    nn.Conv1d(3, 4, 3), nn.MaxPool1d(2), nn.AvgPool1d(3, 2, 1), nn.AdaptiveAvgPool1d(4),
    nn.GroupNorm(1, 3), nn.Linear(16, 5), nn.BatchNorm1d(3).eval()], ids=repr)
def test_each_lowered_layer_matches_torch_in_one_layer_per_chunk(layer):
    host = IMAGES[:, :, 0, :]  # (24, 3, 16)
    x = interop.tensor(host, backend="dask", chunks=(8, 3, 16))
    with torch.no_grad():
        got, expected = layer(x), layer(torch.from_numpy(host)).numpy()
    ours = got.raw.dask.layers[got.raw.name]  # one layer, a task per chunk
    assert type(ours).__name__ == "Blockwise" and len(ours) == x.raw.numblocks[0]
    np.testing.assert_allclose(np.asarray(got.compute()), expected, rtol=1e-5, atol=1e-6)


def test_chunking_across_the_dependent_axes_is_rechunked_or_left_to_the_general_graph():
    model = _cnn()
    x = interop.tensor(IMAGES, backend="dask", chunks=(12, 3, 8, 8))  # spatial chunks too
    with torch.no_grad():
        got, expected = model(x), model(torch.from_numpy(IMAGES)).numpy()
    np.testing.assert_allclose(np.asarray(got.compute()), expected, rtol=1e-5, atol=1e-6)


def test_argument_errors_are_raised_when_the_call_is_made_not_when_computed():
    x = interop.tensor(IMAGES, backend="dask", chunks=(12, 3, 16, 16))
    with pytest.raises(RuntimeError, match="channels"):
        torch.nn.functional.conv2d(x, torch.ones(4, 5, 3, 3))
    with pytest.raises(RuntimeError, match="running_mean"):
        torch.nn.functional.batch_norm(x, None, None, training=False)


def test_jax_convolutions_and_pools_are_xlas_primitives_under_jit():
    jax = pytest.importorskip("jax")
    model = _cnn()
    x = interop.tensor(IMAGES, backend="jax")

    def forward(t):
        with torch.no_grad():
            return model(t)
    text = jax.jit(forward).lower(x).as_text()
    assert text.count("stablehlo.convolution") == 2 and "reduce_window" in text
    with torch.no_grad():
        expected = model(torch.from_numpy(IMAGES)).numpy()
    np.testing.assert_allclose(np.asarray(jax.jit(forward)(x).raw), expected, rtol=1e-5,
                               atol=1e-5)


@pytest.mark.parametrize("call", [
    lambda f, x: f.conv2d(x, torch.ones(4, 3, 3, 3), padding="same", dilation=2),
    lambda f, x: f.conv2d(x, torch.ones(6, 1, 3, 3), stride=(2, 1), groups=3),
    lambda f, x: f.max_pool2d(x, 3, 2, 1, ceil_mode=True),  # declined: the generic form
    lambda f, x: f.max_pool2d(x, 2, return_indices=True)[1],
    lambda f, x: f.avg_pool2d(x, 3, 1, 1, count_include_pad=False),
    lambda f, x: f.adaptive_avg_pool2d(x, (5, 3)),  # uneven windows: the generic form
])
def test_jax_primitives_answer_as_torch_and_decline_what_they_lack(call):
    pytest.importorskip("jax")
    f = torch.nn.functional
    expected = call(f, torch.from_numpy(IMAGES[:2])).numpy()
    got = call(f, interop.tensor(IMAGES[:2], backend="jax"))
    np.testing.assert_allclose(np.asarray(got.raw), expected, rtol=1e-5, atol=1e-5)


def test_a_network_on_cubed_stays_planned_with_nothing_computed():
    cubed = pytest.importorskip("cubed")
    model = _cnn()
    x = interop.tensor(IMAGES, backend="cubed", chunks=(8, 3, 16, 16))
    with cubed.raise_if_computes(), torch.no_grad():  # (numpy scalars once computed it)
        y = model(x)
    assert isinstance(y.raw, cubed.Array)
    with torch.no_grad():
        expected = model(torch.from_numpy(IMAGES)).numpy()
    np.testing.assert_allclose(np.asarray(y.compute()), expected, rtol=1e-5, atol=1e-6)


def _arrays_carried(task: object, array_type: type) -> int:
    """How many ``array_type`` arrays pickling ``task`` would send with it."""
    cloudpickle = pytest.importorskip("cloudpickle")
    found = []

    class Finder(cloudpickle.CloudPickler):
        def persistent_id(self, obj):
            if isinstance(obj, array_type):
                found.append(obj)
                return len(found)
            return None

    Finder(io.BytesIO()).dump(task)
    return len(found)


def test_tasks_carry_their_blocks_not_the_graph_before_them():
    """A task that pickled the lazy array it was built from would carry every layer before
    it: sizes grew with chunk count and an out-of-core run filled its workers' memory."""
    raw = da.random.default_rng(0).standard_normal((32, 3, 16, 16), chunks=(4, 3, 16, 16),
                                                   dtype=np.float32)
    with torch.no_grad():
        y = _cnn()(interop.tensor(raw))
    graph = dict(dask.optimize(y.raw)[0].__dask_graph__())
    assert sum(_arrays_carried(task, da.Array) for task in graph.values()) == 0


def test_cubed_tasks_carry_their_blocks_not_the_plan_before_them():
    cubed = pytest.importorskip("cubed")
    from cubed.core.plan import arrays_to_plan
    with torch.no_grad():
        y = _cnn()(interop.tensor(IMAGES, backend="cubed", chunks=(8, 3, 16, 16)))
    functions = [node["primitive_op"].pipeline.config.function
                 for _, node in arrays_to_plan(y.raw)._finalize().dag.nodes(data=True)
                 if "primitive_op" in node and hasattr(node["primitive_op"].pipeline.config,
                                                       "function")]
    assert functions and sum(_arrays_carried(f, cubed.Array) for f in functions) == 0


def test_lazy_weights_are_shared_not_copied_so_steps_grow_the_graph_linearly():
    """A weight that is itself a graph (a training step's result) is an operand of the
    per-chunk layer, not a literal Dask copies into it: the graph after n steps of
    ``w -= lr * grad(conv(x, w))``-like updates grows by the same count each step."""
    F = torch.nn.functional
    x = interop.tensor(IMAGES, backend="dask", chunks=(6, 3, 16, 16))
    w = interop.tensor(np.full((4, 3, 3, 3), 0.1, np.float32), backend="dask")

    def graph_after(steps: int) -> int:
        v = w
        for _ in range(steps):
            v = v - 0.01 * F.conv2d(x, v, padding=1).mean() * v
        return len(v.raw.__dask_graph__())

    sizes = [graph_after(n) for n in (2, 4, 8)]
    assert sizes[2] - sizes[1] == 2 * (sizes[1] - sizes[0]), sizes
