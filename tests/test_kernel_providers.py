"""The heavy kernels' two providers (``interop/ops/nn/kernels.py``): torch's CPU kernels on
NumPy blocks ('auto', where torch is importable) and interop's own forms ('interop'), each
against torch on the same data: random shapes, strides, paddings, dilations, groups, dtypes
and empty batches, on NumPy and on Dask (whose chunk tasks run the same kernels on NumPy
blocks); gradients through the torch face; integer convolutions (interop's form: torch has
none); a process where torch cannot be imported, whose values are torch's; and Dask workers
too small to import torch, which keep interop's forms rather than pause."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import interop
from interop.ops.nn import kernels
from tests.conftest import to_numpy
from tests.test_conv_windows import conv_cases

torch = pytest.importorskip("torch")
F = torch.nn.functional
aten = torch.ops.aten

PROVIDERS = ["auto", "interop"]
BACKENDS = ["numpy", "dask"]
DTYPES = [np.float32, np.float64]


@pytest.fixture(params=PROVIDERS)
def provider(request):
    """The provider, for this thread and Dask's worker threads (which read the default)."""
    interop.config.set_default(kernels=request.param)
    yield request.param
    interop.config.set_default(kernels="auto")


def close(got, want, dtype, err_msg=""):
    tol = 1e-10 if dtype == np.float64 else 2e-4
    np.testing.assert_allclose(to_numpy(got), want.detach().numpy(), rtol=tol, atol=tol,
                               err_msg=err_msg)


def both(a, backend):
    """(the interop tensor on ``backend``, the torch tensor) of one array."""
    chunks = {"chunks": (max(1, a.shape[0] // 2 or 1), *a.shape[1:])} \
        if backend == "dask" and a.ndim else {}
    return interop.tensor(a, backend=backend, **chunks), torch.from_numpy(a)


# ---------------------------------------------------------------- convolutions
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@given(case=conv_cases())
def test_convolutions_and_gradients_match_torch(provider, backend, dtype, case):
    x, w, stride, padding, dilation, groups = case
    x, w = x.astype(dtype), w.astype(dtype)
    b = np.linspace(-1, 1, w.shape[0]).astype(dtype)
    n = w.ndim - 2
    conv = getattr(F, f"conv{n}d")
    (xi, xt), (wi, wt), (bi, bt) = both(x, backend), both(w, "numpy"), both(b, "numpy")
    want = conv(xt, wt, bt, stride, padding, dilation, groups)
    close(conv(xi, wi, bi, stride, padding, dilation, groups), want, dtype)
    g = np.random.default_rng(1).standard_normal(tuple(want.shape)).astype(dtype)
    gi, gt = both(g, backend)
    args = ([w.shape[0]], list(stride), list(padding), list(dilation), False, [0] * n, groups,
            [True, True, True])
    have = aten.convolution_backward(gi, xi, wi, *args)
    for h, e, name in zip(have, aten.convolution_backward(gt, xt, wt, *args),
                          ("input", "weight", "bias")):
        close(h, e, dtype, name)


@st.composite
def transposed_cases(draw):
    n = draw(st.integers(1, 3))
    groups = draw(st.sampled_from([1, 2]))
    kernel = tuple(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)))
    stride = tuple(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)))
    dilation = tuple(draw(st.lists(st.integers(1, 2), min_size=n, max_size=n)))
    padding = tuple(draw(st.integers(0, d * (k - 1))) for k, d in zip(kernel, dilation))
    out_pad = tuple(draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dilation))
    sizes = tuple(draw(st.lists(st.integers(1, 5), min_size=n, max_size=n)))
    if any((m - 1) * s - 2 * p + d * (k - 1) + o < 0 for m, s, p, d, k, o
           in zip(sizes, stride, padding, dilation, kernel, out_pad)):
        padding = (0,) * n  # (an output of no elements: torch refuses it but for no images)
    batch = draw(st.integers(0, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    x = rng.standard_normal((batch, 2 * groups, *sizes))
    w = rng.standard_normal((2 * groups, draw(st.integers(1, 2)), *kernel))
    return x, w, stride, padding, out_pad, groups, dilation


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@given(case=transposed_cases())
def test_transposed_convolutions_and_gradients_match_torch(provider, backend, dtype, case):
    x, w, stride, padding, out_pad, groups, dilation = case
    x, w = x.astype(dtype), w.astype(dtype)
    n = w.ndim - 2
    (xi, xt), (wi, wt) = both(x, backend), both(w, "numpy")
    conv = getattr(F, f"conv_transpose{n}d")
    try:
        want = conv(xt, wt, None, stride, padding, out_pad, groups, dilation)
    except RuntimeError:  # an output of no elements: torch refuses it, as interop
        with pytest.raises(RuntimeError):
            to_numpy(conv(xi, wi, None, stride, padding, out_pad, groups, dilation))
        return
    close(conv(xi, wi, None, stride, padding, out_pad, groups, dilation), want, dtype)
    g = np.random.default_rng(2).standard_normal(tuple(want.shape)).astype(dtype)
    gi, gt = both(g, backend)
    args = (None, list(stride), list(padding), list(dilation), True, list(out_pad), groups,
            [True, True, False])
    have = aten.convolution_backward(gi, xi, wi, *args)
    for h, e, name in zip(have[:2], aten.convolution_backward(gt, xt, wt, *args)[:2],
                          ("input", "weight")):
        close(h, e, dtype, name)


def test_integer_convolutions_compute_by_interops_form(provider):
    """torch has no integer convolution on the CPU: interop's form computes it, exactly."""
    rng = np.random.default_rng(5)
    x, w = rng.integers(-3, 4, (2, 2, 7, 7)), rng.integers(-3, 4, (3, 2, 3, 3))
    got = F.conv2d(interop.tensor(x), interop.tensor(w), None, 2, 1)
    want = F.conv2d(torch.from_numpy(x.astype(np.float64)), torch.from_numpy(
        w.astype(np.float64)), None, 2, 1).numpy()
    assert got.dtype == np.int64
    np.testing.assert_array_equal(to_numpy(got), want.astype(np.int64))
    lazy = F.conv2d(interop.tensor(x, backend="dask", chunks=(1, 2, 7, 7)), interop.tensor(w),
                    None, 2, 1)
    np.testing.assert_array_equal(to_numpy(lazy), want.astype(np.int64))


# ---------------------------------------------------------------- pools
@st.composite
def pool_cases(draw):
    n = draw(st.integers(1, 3))
    kernel = tuple(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)))
    stride = tuple(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)))
    padding = tuple(draw(st.integers(0, k // 2)) for k in kernel)
    dilation = tuple(draw(st.lists(st.integers(1, 2), min_size=n, max_size=n)))
    sizes = tuple(draw(st.integers(d * (k - 1) + 1, 7)) for k, d in zip(kernel, dilation))
    batch = draw(st.integers(0, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    return (rng.standard_normal((batch, 2, *sizes)), kernel, stride, padding, dilation,
            draw(st.booleans()), draw(st.booleans()))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@given(case=pool_cases())
def test_pools_and_their_gradients_match_torch(provider, backend, dtype, case):
    x, kernel, stride, padding, dilation, ceil_mode, include_pad = case
    x = x.astype(dtype)
    n = len(kernel)
    xi, xt = both(x, backend)
    maxed = getattr(F, f"max_pool{n}d")
    values, indices = maxed(xt, kernel, stride, padding, dilation, ceil_mode, True)
    got_values, got_indices = maxed(xi, kernel, stride, padding, dilation, ceil_mode, True)
    close(got_values, values, dtype)
    np.testing.assert_array_equal(to_numpy(got_indices), indices.numpy())
    averaged = getattr(F, f"avg_pool{n}d")
    close(averaged(xi, kernel, stride, padding, ceil_mode, include_pad),
          averaged(xt, kernel, stride, padding, ceil_mode, include_pad), dtype)
    if n == 2 and backend == "numpy":  # the backward kernels the face reaches
        g = np.random.default_rng(3).standard_normal(tuple(values.shape)).astype(dtype)
        gi, gt = both(g, backend)
        close(aten.max_pool2d_with_indices_backward(gi, xi, kernel, stride, padding, dilation,
                                                    ceil_mode, got_indices),
              aten.max_pool2d_with_indices_backward(gt, xt, kernel, stride, padding, dilation,
                                                    ceil_mode, indices), dtype)
        a = averaged(xt, kernel, stride, padding, ceil_mode, include_pad)
        g = np.random.default_rng(4).standard_normal(tuple(a.shape)).astype(dtype)
        gi, gt = both(g, backend)
        close(aten.avg_pool2d_backward(gi, xi, kernel, stride, padding, ceil_mode, include_pad,
                                       None),
              aten.avg_pool2d_backward(gt, xt, kernel, stride, padding, ceil_mode, include_pad,
                                       None), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("out", [1, 3, (2, None)])
def test_adaptive_pools_match_torch(provider, dtype, out):
    x = np.random.default_rng(6).standard_normal((3, 2, 7, 5)).astype(dtype)
    for backend in BACKENDS:
        xi, xt = both(x, backend)
        close(F.adaptive_avg_pool2d(xi, out), F.adaptive_avg_pool2d(xt, out), dtype)
        got, got_at = F.adaptive_max_pool2d(xi, out, True)
        want, want_at = F.adaptive_max_pool2d(xt, out, True)
        close(got, want, dtype)
        np.testing.assert_array_equal(to_numpy(got_at), want_at.numpy())


# ---------------------------------------------------------------- normalisation
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@given(shape=st.lists(st.integers(1, 4), min_size=2, max_size=4), training=st.booleans(),
       seed=st.integers(0, 2 ** 16))
def test_batch_norm_and_its_running_statistics_match_torch(provider, backend, dtype, shape,
                                                           training, seed):
    rng = np.random.default_rng(seed)
    shape[0] = max(shape[0], 2)  # (training needs more than one value per channel)
    x = rng.standard_normal(shape).astype(dtype)
    c = shape[1]
    stats = [rng.standard_normal(c).astype(dtype), rng.random(c).astype(dtype) + 0.5]
    weight, bias = rng.standard_normal(c).astype(dtype), rng.standard_normal(c).astype(dtype)
    xi, xt = both(x, backend)
    ours = [interop.tensor(s.copy(), backend=backend) for s in stats]
    theirs = [torch.from_numpy(s.copy()) for s in stats]
    got = F.batch_norm(xi, *ours, interop.tensor(weight), interop.tensor(bias), training, 0.1)
    want = F.batch_norm(xt, *theirs, torch.from_numpy(weight), torch.from_numpy(bias),
                        training, 0.1)
    close(got, want, dtype)
    for o, t, name in zip(ours, theirs, ("running_mean", "running_var")):
        close(o, t, dtype, name)
    if backend == "numpy" and training:
        out, mean, invstd = aten.native_batch_norm(xt, None, None, None, None, True, 0.1, 1e-5)
        g = rng.standard_normal(shape).astype(dtype)
        args = (True, 1e-5, [True, True, True])
        have = aten.native_batch_norm_backward(interop.tensor(g), xi, interop.tensor(weight),
                                               None, None, interop.tensor(mean.numpy()),
                                               interop.tensor(invstd.numpy()), *args)
        want = aten.native_batch_norm_backward(torch.from_numpy(g), xt,
                                               torch.from_numpy(weight), None, None, mean,
                                               invstd, *args)
        for h, e in zip(have, want):
            close(h, e, dtype)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@given(batch=st.integers(0, 3), groups=st.sampled_from([1, 2]), seed=st.integers(0, 2 ** 16))
def test_layer_and_group_norm_match_torch(provider, backend, dtype, batch, groups, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, 4, 3, 5)).astype(dtype)
    w, b = rng.standard_normal((3, 5)).astype(dtype), rng.standard_normal((3, 5)).astype(dtype)
    xi, xt = both(x, backend)
    close(F.layer_norm(xi, (3, 5), interop.tensor(w), interop.tensor(b)),
          F.layer_norm(xt, (3, 5), torch.from_numpy(w), torch.from_numpy(b)), dtype)
    cw = rng.standard_normal(4).astype(dtype)
    close(F.group_norm(xi, groups, interop.tensor(cw)),
          F.group_norm(xt, groups, torch.from_numpy(cw)), dtype)
    if backend == "numpy" and batch:
        for h, e in zip(torch.native_layer_norm(xi, [5], None, None, 1e-5),
                        aten.native_layer_norm(xt, [5], None, None, 1e-5)):
            close(h, e, dtype)
        for h, e in zip(torch.native_group_norm(xi, None, None, batch, 4, 15, groups, 1e-5),
                        aten.native_group_norm(xt, None, None, batch, 4, 15, groups, 1e-5)):
            close(h, e, dtype)


# ---------------------------------------------------------------- softmax and losses
@pytest.mark.parametrize("dtype", DTYPES)
@given(shape=st.lists(st.integers(0, 4), min_size=1, max_size=3), data=st.data())
def test_softmax_family_and_its_gradients_match_torch(provider, dtype, shape, data):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = np.random.default_rng(data.draw(st.integers(0, 99))).standard_normal(shape).astype(dtype)
    for backend in BACKENDS:
        xi, xt = both(x, backend)
        close(F.softmax(xi, dim), F.softmax(xt, dim), dtype)
        close(F.log_softmax(xi, dim), F.log_softmax(xt, dim), dtype)
    xi, xt = interop.tensor(x), torch.from_numpy(x)
    g = np.random.default_rng(1).standard_normal(shape).astype(dtype)
    for fn, backward in ((torch.softmax, aten._softmax_backward_data),
                         (torch.log_softmax, aten._log_softmax_backward_data)):
        y = fn(xt, dim)
        close(backward(interop.tensor(g), interop.tensor(y.numpy()), dim, y.dtype),
              backward(torch.from_numpy(g), y, dim, y.dtype), dtype)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@given(batch=st.integers(0, 5), classes=st.integers(1, 4), weighted=st.booleans(),
       reduction=st.sampled_from(["mean", "sum", "none"]), smoothing=st.sampled_from([0.0, 0.2]),
       seed=st.integers(0, 2 ** 16))
def test_cross_entropy_and_nll_match_torch(provider, backend, dtype, batch, classes, weighted,
                                           reduction, smoothing, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, classes)).astype(dtype)
    t = rng.integers(0, classes, batch)
    t[: batch // 3] = -100  # ignored
    w = rng.random(classes).astype(dtype) + 0.1 if weighted else None
    xi, xt = both(x, backend)
    ti, tt = both(t, backend)
    wi, wt = (None, None) if w is None else (interop.tensor(w), torch.from_numpy(w))
    close(F.cross_entropy(xi, ti, wi, reduction=reduction, label_smoothing=smoothing),
          F.cross_entropy(xt, tt, wt, reduction=reduction, label_smoothing=smoothing), dtype)
    close(F.nll_loss(xi, ti, wi, reduction=reduction), F.nll_loss(xt, tt, wt,
                                                                   reduction=reduction), dtype)
    if backend == "numpy" and batch:
        red = ["none", "mean", "sum"].index(reduction)
        loss, total = aten.nll_loss_forward(xt, tt, wt, red, -100)
        for h, e in zip(aten.nll_loss_forward(xi, ti, wi, red, -100), (loss, total)):
            close(h, e, dtype)
        g = torch.ones_like(loss)
        close(aten.nll_loss_backward(interop.tensor(g.numpy()), xi, ti, wi, red, -100,
                                     interop.tensor(total.numpy())),
              aten.nll_loss_backward(g, xt, tt, wt, red, -100, total), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mask", [None, "float", "bool"])
@pytest.mark.parametrize("causal", [False, True])
def test_attention_matches_torch(provider, dtype, mask, causal):
    if mask and causal:
        return  # (torch refuses both)
    rng = np.random.default_rng(8)
    q, k, v = (rng.standard_normal((2, 3, 4, 8)).astype(dtype) for _ in range(3))
    m = None if mask is None else rng.standard_normal((4, 4)).astype(dtype) if mask == "float" \
        else rng.random((4, 4)) > 0.3
    for backend in BACKENDS:
        args = [both(a, backend) for a in (q, k, v)]
        mi, mt = (None, None) if m is None else both(m, "numpy")
        close(F.scaled_dot_product_attention(*(a for a, _ in args), mi, is_causal=causal),
              F.scaled_dot_product_attention(*(b for _, b in args), mt, is_causal=causal),
              dtype)


# ---------------------------------------------------------------- the face, and who ran
def small_cnn():
    torch.manual_seed(0)
    nn = torch.nn
    return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Conv2d(4, 6, 3, stride=2), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(24, 5))


@pytest.mark.parametrize("dtype", DTYPES)
def test_gradients_through_the_face_match_torchs(provider, dtype):
    rng = np.random.default_rng(9)
    images = rng.standard_normal((6, 3, 10, 10)).astype(dtype)
    labels = rng.integers(0, 5, 6)
    theirs = small_cnn().to(torch.float64 if dtype == np.float64 else torch.float32)
    ours = interop.to_backend(small_cnn().to(theirs[0].weight.dtype), "numpy")
    F.cross_entropy(theirs(torch.from_numpy(images)), torch.from_numpy(labels)).backward()
    loss = F.cross_entropy(ours(interop.tensor(images).as_torch()),
                           interop.tensor(labels).as_torch())
    loss.backward()
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
        close(p.grad.as_interop(), q.grad, dtype, name)


def test_auto_runs_torchs_kernels_and_interop_runs_its_own(monkeypatch):
    """Which provider ran: torch's conv2d is called under 'auto' on NumPy and on Dask's
    blocks, never under 'interop', nor for blocks of other types (gpulike)."""
    calls = []
    real = F.conv2d

    def counting(*args, **kwargs):
        if all(type(a) is not interop.Tensor for a in args):
            calls.append(type(args[0]))
        return real(*args, **kwargs)
    monkeypatch.setattr(F, "conv2d", counting)
    x, w = np.ones((4, 2, 5, 5)), np.ones((3, 2, 3, 3))
    interop.conv2d(interop.tensor(x), interop.tensor(w))
    assert calls == [torch.Tensor]
    to_numpy(interop.conv2d(interop.tensor(x, backend="dask", chunks=(2, 2, 5, 5)),
                            interop.tensor(w)))
    assert len(calls) >= 3  # a probe and one call per chunk
    calls.clear()
    interop.conv2d(interop.tensor(x, backend="gpulike"), interop.tensor(w, backend="gpulike"))
    with interop.config(kernels="interop"):
        interop.conv2d(interop.tensor(x), interop.tensor(w))
    assert calls == []


def test_each_torch_form_computes_without_falling_back():
    """A form that raised would leave interop's form computing, silently: each form, called
    directly on good arguments, gives torch's values."""
    from interop.ops.nn import backward, conv, torch_kernels
    rng = np.random.default_rng(10)
    x, w = rng.standard_normal((2, 4, 6, 6)), rng.standard_normal((4, 2, 3, 3))
    g = rng.standard_normal((2, 4, 4, 4))
    cases = [(conv.convolution, (x, w, None, 1, 0, 1, 2, 2)),
             (conv.conv_transpose, (g, w, None, 1, 0, 0, 1, 1, 2)),
             (conv.pool, (x, 2, None, 0, 1, False, 2, "max")),
             (conv.pool, (x, 3, 2, 1, 1, True, 2, "avg")),
             (backward._input_gradient, (g, w, (6, 6), (1, 1), (0, 0), (1, 1), False, 2)),
             (backward._weight_gradient, (x, g, (3, 3), (1, 1), (0, 0), (1, 1), 2))]
    for fn, args in cases:
        want = fn.interop_form(_numpy_backend(), *args)
        got = fn.torch_form(torch, *args)
        assert got is not NotImplemented, fn.__name__
        for a, b in zip(*(o if isinstance(o, tuple) else (o,) for o in (got, want))):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10, err_msg=fn.__name__)
    y, t = rng.standard_normal((5, 3)), np.array([0, 2, 1, 1, 0])
    logp = torch.log_softmax(torch.from_numpy(y), 1).numpy()
    stats = (np.zeros(4), np.ones(4))
    others = [(torch_kernels.attention, (x, x, x)),
              (torch_kernels.linear, (y, rng.standard_normal((2, 3)), np.ones(2))),
              (torch_kernels.normalise, (x.copy(), *map(np.copy, stats), None, None, True, 0.1,
                                         1e-5)),
              (torch_kernels.normalise, (x, *stats, None, None, False, 0.1, 1e-5)),
              (torch_kernels.normalise_backward, (x, x, None, None, None, *stats, True, 1e-5,
                                                  [True, True, True])),
              (torch_kernels.softmax, (y, 1)), (torch_kernels.log_softmax, (y, 1)),
              (torch_kernels.softmax_backward, (y, y, 1, None)),
              (torch_kernels.log_softmax_backward, (y, logp, 1, None)),
              (torch_kernels.nll_loss_forward, (logp, t, None, "mean", -100)),
              (torch_kernels.nll_loss_backward, (np.array(1.0), logp, t, None, 1, -100,
                                                 np.array(5.0))),
              (torch_kernels.cross_entropy, (y, t, None, -100, "sum", 0.1)),
              (torch_kernels.layer_norm, (x, (6, 6))), (torch_kernels.group_norm, (x, 2)),
              (torch_kernels.adaptive_avg_pool, (x, 2, 2)), (torch_kernels.adaptive_max, (x, 2, 2)),
              (torch_kernels.aten("threshold_backward"), (x, x, 0.0))]
    for form, args in others:
        assert form(torch, *args) is not NotImplemented, form.__name__


def _numpy_backend():
    from interop.backends import registry
    return registry.get_backend("numpy")


def test_float16_and_other_block_types_take_interops_forms():
    assert kernels.torch_for(np.ones(2, np.float16)) is None
    assert kernels.torch_for(np.ones(2, np.int64)) is None
    assert kernels.torch_for(np.ones(2, np.float32)) is torch
    with interop.config(kernels="interop"):
        assert kernels.torch_for(np.ones(2, np.float32)) is None
    with pytest.raises(ValueError, match="kernels='cuda' is not one of 'auto', 'torch', 'interop'"):
        interop.config(kernels="cuda")


def test_read_only_and_reversed_blocks_are_taken_in():
    """Blocks torch cannot share (read-only: a broadcast; negative strides: a flip) are
    copied for it, without torch's warning about read-only arrays."""
    x = np.broadcast_to(np.arange(6.0), (2, 3, 6))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = interop.softmax(interop.tensor(x), -1)
        flipped = interop.softmax(interop.tensor(np.arange(6.0)[::-1].copy())[::-1], 0)
    np.testing.assert_allclose(to_numpy(got), torch.softmax(torch.from_numpy(x.copy()), -1))
    np.testing.assert_allclose(to_numpy(flipped), torch.softmax(torch.arange(6.0,
                                                                dtype=torch.float64), 0))


def test_worker_threads_leave_the_main_threads_torch_threads():
    """Kernels in Dask's worker threads run torch with ``kernels.WORKER_THREADS`` there; the
    thread that called compute keeps its own count."""
    before = torch.get_num_threads()
    seen = []

    def work():
        interop.conv2d(interop.tensor(np.ones((2, 2, 5, 5))), interop.tensor(np.ones((3, 2, 3, 3))))
        seen.append(torch.get_num_threads())
    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert torch.get_num_threads() == before
    assert seen == [kernels.WORKER_THREADS or before]


# ---------------------------------------------------------------- without torch
_WITHOUT_TORCH = r"""
import json, sys
sys.modules["torch"] = None  # import torch raises ImportError: a worker without torch
import numpy as np
import interop
rng = np.random.default_rng(11)
x = rng.standard_normal((4, 3, 8, 8)).astype(np.float32)
w = rng.standard_normal((5, 3, 3, 3)).astype(np.float32)
t = interop.tensor(x)
out = {
    "conv": interop.conv2d(t, interop.tensor(w), None, 2, 1),
    "lazy_conv": interop.conv2d(interop.tensor(x, backend="dask", chunks=(2, 3, 8, 8)),
                                interop.tensor(w), None, 2, 1).compute(),
    "pool": interop.max_pool2d(t, 2),
    "avg": interop.avg_pool2d(t, 3, 2, 1),
    "softmax": interop.softmax(t, 1),
    "batch_norm": interop.batch_norm(t, None, None, training=True),
    "layer_norm": interop.layer_norm(t, (8, 8)),
    "cross_entropy": interop.cross_entropy(interop.tensor(x[:, :, 0, 0]),
                                           interop.tensor(np.array([0, 1, 2, 1]))),
}
from interop.ops.nn import kernels
assert kernels.torch_module() is None and "torch" not in [m for m in sys.modules if sys.modules[m]]
print(json.dumps({k: np.asarray(v.numpy()).tolist() for k, v in out.items()}))
"""


def test_without_torch_interops_forms_give_torchs_values():
    done = subprocess.run([sys.executable, "-c", _WITHOUT_TORCH], capture_output=True,
                          text=True, check=True)
    got = json.loads(done.stdout)
    rng = np.random.default_rng(11)
    x = torch.from_numpy(rng.standard_normal((4, 3, 8, 8)).astype(np.float32))
    w = torch.from_numpy(rng.standard_normal((5, 3, 3, 3)).astype(np.float32))
    want = {"conv": F.conv2d(x, w, None, 2, 1), "lazy_conv": F.conv2d(x, w, None, 2, 1),
            "pool": F.max_pool2d(x, 2), "avg": F.avg_pool2d(x, 3, 2, 1),
            "softmax": F.softmax(x, 1), "batch_norm": F.batch_norm(x, None, None, training=True),
            "layer_norm": F.layer_norm(x, (8, 8)),
            "cross_entropy": F.cross_entropy(x[:, :, 0, 0], torch.tensor([0, 1, 2, 1]))}
    for name, value in want.items():
        np.testing.assert_allclose(np.array(got[name], dtype=np.float32), value.numpy(),
                                   rtol=1e-4, atol=1e-5, err_msg=name)


# ---------------------------------------------------------------- small Dask workers
@pytest.fixture(params=["short", "roomy"])
def sized_client(request):
    """A 2-worker cluster whose workers lack room for torch ('short': 1 GiB pausing at 60%,
    614 MiB, less than ``TORCH_IMPORT_ROOM`` whatever a worker already holds) or have it
    ('roomy': 4 GiB pausing at 80%)."""
    from tests.conftest import two_worker_cluster
    clusters = two_worker_cluster(**{"distributed.worker.memory.pause": 0.6}) \
        if request.param == "short" else two_worker_cluster(memory_limit="4GiB")
    for client in clusters:
        yield request.param, client


def test_auto_imports_torch_on_a_dask_worker_only_with_room(sized_client):
    """Importing torch holds up to 513 MiB for good (its CUDA build): on a worker that it
    would push past the pause threshold, the compute would never end.  Under 'auto' such a
    worker keeps interop's forms (torch never imported, the refusal noted); a worker with
    room runs torch's kernels.  torch's values either way."""
    from interop.backends.dask.workers import memory_room
    from tests.helpers.dask_workers import kernel_state
    size, client = sized_client
    rng = np.random.default_rng(5)
    x = rng.standard_normal((8, 3, 12, 12)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    lazy = interop.conv2d(interop.tensor(x, backend="dask", chunks=(2, 3, 12, 12)),
                          interop.tensor(w), None, 1, 1)
    got = client.compute(lazy.raw).result(timeout=120)  # (a paused worker: a timeout, not a hang)
    close(got, F.conv2d(torch.from_numpy(x), torch.from_numpy(w), None, 1, 1), np.float32)
    states = list(client.run(kernel_state).values())
    rooms = [client.submit(memory_room, pure=False, workers=[w]).result(timeout=60)
             for w in client.scheduler_info()["workers"]]  # asked inside a task, as a kernel asks
    if size == "short":
        assert not any(imported for imported, _ in states), states
        assert any(refused for _, refused in states), states  # (a chunk ran on one or both)
        assert all(0 <= room < kernels.TORCH_IMPORT_ROOM for room in rooms), rooms
    else:
        assert any(imported for imported, _ in states), states
        assert not any(refused for _, refused in states), states
        assert all(room >= kernels.TORCH_IMPORT_ROOM for room in rooms), rooms


def test_auto_imports_torch_only_with_room_below_a_workers_pause_threshold(monkeypatch):
    """The rule behind the test above, for each answer a worker's memory gives: no worker or
    no limit (None), enough room, too little (refused once, with one warning naming the
    fix)."""
    monkeypatch.setattr(kernels, "_no_room", False)
    for room in (None, kernels.TORCH_IMPORT_ROOM):
        monkeypatch.setattr(kernels, "memory_room", lambda room=room: room)
        assert kernels.room_for_torch()
    monkeypatch.setattr(kernels, "memory_room", lambda: 100 << 20)
    with pytest.warns(interop.InteropWarning, match=r"100 MiB are left.*kernels='torch'"):
        assert not kernels.room_for_torch()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not kernels.room_for_torch()  # decided once for the process


def test_memory_room_is_none_outside_a_worker():
    from interop.backends.dask.workers import memory_room
    assert memory_room() is None
