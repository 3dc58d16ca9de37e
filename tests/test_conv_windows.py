"""Convolution's two forms against torch: one matrix product per image over the unfolded
windows (a strided view, ``Backend.windows``: NumPy; the forward, the input's gradient and
the weights') and one product per kernel offset (every other backend, grouped
convolutions).  Random shapes, strides, paddings and dilations; each backend's result against
torch's kernels on the same data (CuPy's where a GPU is present).  interop's own forms, not
torch's kernels on NumPy blocks (``interop.config(kernels="interop")``)."""

from __future__ import annotations

import asyncio
import concurrent.futures

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import interop
from interop.backends import registry
from interop.ops.nn.conv import window_view
from tests.conftest import BACKENDS, to_numpy
from tests.helpers.hooks import Logged, counting_mode

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def interops_own_forms():
    """These tests are about interop's own forms: on NumPy (and Dask's NumPy blocks) torch's
    kernels would otherwise run (tests/test_kernel_providers.py tests both)."""
    interop.config.set_default(kernels="interop")
    yield
    interop.config.set_default(kernels="auto")


@st.composite
def conv_cases(draw):
    n = draw(st.integers(1, 3))
    groups = draw(st.sampled_from([1, 1, 2]))
    kernel = tuple(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)))
    stride = tuple(draw(st.lists(st.integers(1, 4), min_size=n, max_size=n)))
    dilation = tuple(draw(st.lists(st.integers(1, 2), min_size=n, max_size=n)))
    padding = tuple(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    sizes = tuple(draw(st.integers(d * (k - 1) + 1 - min(2 * p, d * (k - 1)), 7))
                  for k, d, p in zip(kernel, dilation, padding))
    batch = draw(st.integers(0, 3))
    channels, out_ch = 2 * groups, draw(st.sampled_from([1, 3])) * groups
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    x = rng.standard_normal((batch, channels, *sizes))
    w = rng.standard_normal((out_ch, channels // groups, *kernel))
    return x, w, stride, padding, dilation, groups


def _gradient(x, w, stride, padding, dilation, groups, g, convert):
    return torch.ops.aten.convolution_backward(
        convert(g), convert(x), convert(w), [w.shape[0]], list(stride), list(padding),
        list(dilation), False, [0] * len(stride), groups, [True, True, True])


@pytest.mark.parametrize("backend", BACKENDS)
@given(case=conv_cases())
def test_convolution_and_its_gradients_match_torch(backend, case):
    x, w, stride, padding, dilation, groups = case
    n = w.ndim - 2
    conv = getattr(torch.nn.functional, f"conv{n}d")
    expected = conv(torch.from_numpy(x), torch.from_numpy(w), None, stride, padding, dilation,
                    groups)
    got = conv(interop.tensor(x, backend=backend), interop.tensor(w, backend=backend), None,
               stride, padding, dilation, groups)
    assert got.backend == backend
    np.testing.assert_allclose(to_numpy(got), expected.numpy(), rtol=1e-10, atol=1e-10)
    g = np.random.default_rng(1).standard_normal(tuple(expected.shape))
    want = _gradient(x, w, stride, padding, dilation, groups, g, torch.from_numpy)
    have = _gradient(x, w, stride, padding, dilation, groups, g,
                     lambda a: interop.tensor(a, backend=backend))
    for h, e, name in zip(have, want, ("input", "weight", "bias")):
        np.testing.assert_allclose(to_numpy(h), e.numpy(), rtol=1e-10, atol=1e-10, err_msg=name)


def test_windows_are_a_view_on_numpy_and_absent_elsewhere():
    """The unfolded windows copy nothing until the product (NumPy's strided view); a backend
    without strided views offers none, and its convolution takes the offsets one by one."""
    x = np.arange(2 * 3 * 6 * 6, dtype=np.float64).reshape(2, 3, 6, 6)
    view = window_view(registry.get_backend("numpy"), x, (2, 3), (2, 1), [(0, 0)] * 2, (1, 1))
    assert view.shape == (2, 3, 3, 4, 2, 3) and np.shares_memory(view, x)
    np.testing.assert_array_equal(view[1, 2, 1, 3], x[1, 2, 2:4, 3:6])
    assert window_view(registry.get_backend("gpulike"), interop.tensor(x, backend="gpulike").raw,
                       (2, 3), (2, 1), [(0, 0)] * 2, (1, 1)) is None


def test_integer_and_complex_convolutions_on_the_unfolded_windows():
    """The one-product form keeps the dtype rules of the per-offset form: integers stay
    integers (no BLAS, exact), complex numbers multiply as complex (torch computes both)."""
    rng = np.random.default_rng(5)
    for dtype in (np.int64, np.complex128):
        x = (rng.integers(-3, 4, (2, 2, 8, 8)) * (1 + 1j if dtype is np.complex128 else 1))
        w = (rng.integers(-3, 4, (3, 2, 2, 2)) * (1 - 2j if dtype is np.complex128 else 1))
        x, w = x.astype(dtype), w.astype(dtype)
        got = torch.nn.functional.conv2d(interop.tensor(x), interop.tensor(w), None, 2)
        expected = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), None, 2)
        assert got.dtype == dtype
        np.testing.assert_array_equal(to_numpy(got), expected.numpy())


@pytest.mark.parametrize("per_image_from", [0, 10 ** 9])
@pytest.mark.parametrize("images", [1, 3, 10])
def test_the_unfolded_forms_over_slices_of_the_batch(monkeypatch, per_image_from, images):
    """The unfolded windows a slice of the batch at a time (memory bound): one image, three
    (a last, shorter slice), all seven; the weights' gradient as products per image and as one
    product over the slice (few positions per image); each as torch computes it."""
    from interop.ops.nn import backward, conv
    monkeypatch.setattr(backward, "_PER_IMAGE_POSITIONS", per_image_from)
    # one image's windows and products: C * k = 8 by (25 positions + 3 outputs), float64
    monkeypatch.setattr(conv, "COLUMNS_BYTES", images * 8 * 8 * (25 + 3))
    rng = np.random.default_rng(7)
    x, w = rng.standard_normal((7, 2, 6, 6)), rng.standard_normal((3, 2, 2, 2))
    g = rng.standard_normal((7, 3, 5, 5))
    want = _gradient(x, w, (1, 1), (0, 0), (1, 1), 1, g, torch.from_numpy)
    have = _gradient(x, w, (1, 1), (0, 0), (1, 1), 1, g, interop.tensor)
    np.testing.assert_allclose(to_numpy(have[1]), want[1].numpy(), rtol=1e-10, atol=1e-10)
    forward = torch.nn.functional.conv2d(interop.tensor(x), interop.tensor(w))
    np.testing.assert_allclose(to_numpy(forward), torch.nn.functional.conv2d(
        torch.from_numpy(x), torch.from_numpy(w)).numpy(), rtol=1e-10, atol=1e-10)


# ---------------------------------------------------------------- the edges of the forms
STRIDED = dict(stride=2, padding=1)  # a strided layer: its input gradient by col2im
XS = np.random.default_rng(3).standard_normal((4, 2, 7, 7))
WS = np.random.default_rng(4).standard_normal((3, 2, 3, 3))
GS = np.random.default_rng(5).standard_normal((4, 3, 4, 4))


def _strided_backward(g, x, w):
    return torch.ops.aten.convolution_backward(g, x, w, [3], [2, 2], [1, 1], [1, 1], False,
                                               [0, 0], 1, [True, True, True])


def _want():
    return _strided_backward(*map(torch.from_numpy, (GS, XS, WS)))


def _same(got, want):
    for g, e in zip(got, want):
        np.testing.assert_allclose(to_numpy(g), e.numpy(), rtol=1e-10, atol=1e-12)


def test_a_bad_argument_is_refused_before_any_form():
    """The checks come before the forms: torch's messages, whichever form would run."""
    x = interop.tensor(XS)
    with pytest.raises(RuntimeError, match=r"Input type \(float64\) and weight type "
                                           r"\(float32\) should be the same"):
        torch.nn.functional.conv2d(x, interop.tensor(WS.astype(np.float32)))
    with pytest.raises(RuntimeError, match=r"expected input\[4, 2, 7, 7\] to have 4 channels"):
        torch.nn.functional.conv2d(x, interop.tensor(np.ones((3, 4, 3, 3))))
    with pytest.raises(RuntimeError, match=r"kernel size \[9, 9\] \(dilated\) is larger"):
        torch.nn.functional.conv2d(x, interop.tensor(np.ones((3, 2, 9, 9))))


def test_unknown_dask_sizes_take_the_unfolded_forms_per_chunk_without_computing():
    """Rows of unknown count: the strided layer's backward builds under ``raise`` (each
    chunk's NumPy block then unfolds and folds) and computes torch's values."""
    def unknown_rows(a):
        keep = interop.tensor(np.ones(len(a), bool), backend="dask", chunks=2)
        return interop.tensor(a, backend="dask", chunks=(2, *a.shape[1:]))[keep]
    with interop.config(dask_compute="raise"):
        g, x = unknown_rows(GS), unknown_rows(XS)
        assert x.raw.chunks[0][0] != x.raw.chunks[0][0]
        got = _strided_backward(g, x, interop.tensor(WS, backend="dask"))
        forward = torch.nn.functional.conv2d(x, interop.tensor(WS, backend="dask"), **STRIDED)
    assert all(t.backend == "dask" for t in got)
    _same(got, _want())
    _same([forward], [torch.nn.functional.conv2d(torch.from_numpy(XS), torch.from_numpy(WS),
                                                 **STRIDED)])


def test_a_gradient_on_another_backend_joins_the_lazy_one():
    """A NumPy output gradient beside Dask operands: Dask's result, torch's values."""
    got = _strided_backward(interop.tensor(GS), interop.tensor(XS, backend="dask", chunks=2),
                            interop.tensor(WS, backend="dask"))
    assert all(t.backend == "dask" for t in got)
    _same(got, _want())


def test_threads_and_asyncio_tasks_each_get_their_own_gradients():
    rng = np.random.default_rng(9)
    cases = [tuple(rng.standard_normal(a.shape) for a in (GS, XS, WS)) for _ in range(6)]

    def run(case):
        return (_strided_backward(*map(interop.tensor, case)),
                _strided_backward(*map(torch.from_numpy, case)))
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(run, cases))

    async def tasks():
        return await asyncio.gather(*(asyncio.to_thread(run, c) for c in cases))
    for got, want in [*results, *asyncio.run(tasks())]:
        _same(got, want)



def test_the_forms_after_their_siblings_under_a_subclass_and_a_mode():
    """``F.unfold``, the overlapping and the strided ``conv2d``, ``conv_transpose2d`` and the
    strided backward (col2im), one after another, plainly, through a hooked subclass (kept)
    and inside a ``TorchFunctionMode``: each time torch's values."""
    F = torch.nn.functional
    tx, tw = torch.from_numpy(XS), torch.from_numpy(WS)
    want = [F.unfold(tx, 3, padding=1), F.conv2d(tx, tw, padding=1), F.conv2d(tx, tw, **STRIDED),
            F.conv_transpose2d(torch.from_numpy(GS), tw, stride=2, padding=1)]

    def round_of(make):
        x, w = make(XS), make(WS)
        got = [F.unfold(x, 3, padding=1), F.conv2d(x, w, padding=1), F.conv2d(x, w, **STRIDED),
               F.conv_transpose2d(make(GS), w, stride=2, padding=1)]
        _same(got, want)
        _same(_strided_backward(make(GS), x, w), _want())
        return got

    round_of(interop.tensor)
    Logged.calls.clear()
    kept = round_of(lambda a: interop.tensor(a).as_subclass(Logged))
    assert all(type(t) is Logged for t in kept) and Logged.calls
    with counting_mode() as mode:
        round_of(interop.tensor)
    assert mode.seen > 0
