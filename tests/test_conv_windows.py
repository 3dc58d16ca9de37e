"""Convolution's two forms against torch: one matrix product per image over the unfolded
windows (a strided view, ``Backend.windows``: NumPy; the forward, the input's gradient and
the weights') and one product per kernel offset (every other backend, grouped
convolutions).  Random shapes, strides, paddings and dilations; each backend's result against
torch's kernels on the same data (CuPy's where a GPU is present)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import interop
from interop.backends import registry
from interop.ops.nn.conv import window_view
from tests.conftest import BACKENDS, to_numpy

torch = pytest.importorskip("torch")


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
