"""The ATen backward kernels autograd calls on TorchTensors that torch has no decomposition
of (interop/ops/nn/backward.py), called directly through ``torch.ops.aten`` on interop tensors
and compared with torch's own kernels: convolution's (plain, strided, dilated, grouped,
transposed with output padding), the average, adaptive and max pools', the shrinks'."""

from __future__ import annotations

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy

torch = pytest.importorskip("torch")
aten = torch.ops.aten
RNG = np.random.default_rng(3)


def conv_case(n, transposed, stride, padding, dilation, groups, output_padding, batch=2,
              kernel=3):
    x = RNG.standard_normal((batch, 4, *(7,) * n))
    w = RNG.standard_normal((4, 4 // groups if not transposed else 3, *(kernel,) * n)) \
        if transposed else RNG.standard_normal((6, 4 // groups, *(kernel,) * n))
    out = aten.convolution(torch.from_numpy(x), torch.from_numpy(w), None, [stride] * n,
                           [padding] * n, [dilation] * n, transposed, [output_padding] * n,
                           groups)
    g = RNG.standard_normal(tuple(out.shape))
    return (lambda g, x, w: aten.convolution_backward(
        g, x, w, [w.shape[1 if transposed else 0] * (groups if transposed else 1)],
        [stride] * n, [padding] * n, [dilation] * n, transposed, [output_padding] * n, groups,
        [True, True, True]), (g, x, w))


IMG = RNG.standard_normal((2, 3, 7, 6))
VOL = RNG.standard_normal((1, 2, 5, 4, 5))


def pooled_grad(pool, x, *args, **kwargs):
    """(grad_output, indices) of a pool on ``x``: random gradients of its output's shape."""
    out = pool(torch.from_numpy(x), *args, **kwargs)
    values, indices = out if isinstance(out, tuple) else (out, None)
    return RNG.standard_normal(tuple(values.shape)), indices


AVG2, _ = pooled_grad(torch.nn.functional.avg_pool2d, IMG, 3, 2, 1, True, False)
AVG3, _ = pooled_grad(torch.nn.functional.avg_pool3d, VOL, 2, 1, 1, False, True, 3)
ADA2, _ = pooled_grad(torch.nn.functional.adaptive_avg_pool2d, IMG, (3, 4))
ADA3, _ = pooled_grad(torch.nn.functional.adaptive_avg_pool3d, VOL, (2, 3, 3))
AMAX2, AMAX2_I = pooled_grad(torch.nn.functional.adaptive_max_pool2d, IMG, (3, 4), True)
AMAX3, AMAX3_I = pooled_grad(torch.nn.functional.adaptive_max_pool3d, VOL, (2, 3, 3), True)
MAX3, MAX3_I = pooled_grad(torch.nn.functional.max_pool3d, VOL, 2, 2, 1, 1, True, True)

CONV_CASES = {  # (n, transposed, stride, padding, dilation, groups, output_padding)
    "conv2d": (2, False, 1, 1, 1, 1, 0),
    "conv2d_strided_dilated_grouped": (2, False, 2, 0, 2, 2, 0),
    "conv1d_transposed": (1, True, 2, 1, 1, 1, 1),
    "conv3d_transposed_grouped": (3, True, 2, 0, 1, 2, 1),
}
CASES = {
    **{name: conv_case(*args) for name, args in CONV_CASES.items()},
    "avg_pool2d_backward": (lambda g, x: aten.avg_pool2d_backward(
        g, x, [3, 3], [2, 2], [1, 1], True, False, None), (AVG2, IMG)),
    "avg_pool3d_backward": (lambda g, x: aten.avg_pool3d_backward(
        g, x, [2, 2, 2], [1, 1, 1], [1, 1, 1], False, True, 3), (AVG3, VOL)),
    "_adaptive_avg_pool2d_backward": (aten._adaptive_avg_pool2d_backward, (ADA2, IMG)),
    "_adaptive_avg_pool3d_backward": (aten._adaptive_avg_pool3d_backward, (ADA3, VOL)),
    "adaptive_max_pool2d_backward": (aten.adaptive_max_pool2d_backward,
                                     (AMAX2, IMG, AMAX2_I.numpy())),
    "adaptive_max_pool3d_backward": (aten.adaptive_max_pool3d_backward,
                                     (AMAX3, VOL, AMAX3_I.numpy())),
    "max_pool3d_with_indices_backward": (lambda g, x, i: aten.max_pool3d_with_indices_backward(
        g, x, [2, 2, 2], [2, 2, 2], [1, 1, 1], [1, 1, 1], True, i), (MAX3, VOL, MAX3_I.numpy())),
    "threshold_backward": (lambda g, x: aten.threshold_backward(g, x, 0.2), (IMG, IMG[::-1])),
    "hardshrink_backward": (lambda g, x: aten.hardshrink_backward(g, x, 0.7), (IMG, IMG[::-1])),
    "softshrink_backward": (lambda g, x: aten.softshrink_backward(g, x, 0.3), (IMG, IMG[::-1])),
}


@pytest.mark.parametrize("name", CASES)
def test_backward_kernel_matches_torch(name, backend):
    call, arrays = CASES[name]
    expected = call(*(torch.from_numpy(a.copy()) for a in arrays))
    got = call(*(interop.tensor(a.copy(), backend=backend) for a in arrays))
    for g, e in zip(*((got, expected) if isinstance(expected, tuple) else ((got,), (expected,)))):
        assert isinstance(g, interop.Tensor) and g.backend == backend
        np.testing.assert_allclose(to_numpy(g), e.numpy(), rtol=1e-10, atol=1e-10, err_msg=name)


def _batch_chunked(a, lazy, chunk):
    return interop.tensor(a.copy(), backend=lazy, chunks=(chunk, *a.shape[1:]))


@pytest.mark.parametrize("lazy", ["dask", "cubed"])
@pytest.mark.parametrize("name", CONV_CASES)
def test_conv_backward_of_a_batch_in_chunks_matches_torch(name, lazy):
    """A batch of 5 in chunks of 2 (a minibatch each, the last short): the input's gradient
    chunk by chunk, the weight's the sum of each chunk's part; all equal torch's."""
    pytest.importorskip(lazy)
    call, (g, x, w) = conv_case(*CONV_CASES[name], batch=5)
    expected = call(*(torch.from_numpy(a.copy()) for a in (g, x, w)))
    got = call(_batch_chunked(g, lazy, 2), _batch_chunked(x, lazy, 2),
               interop.tensor(w.copy(), backend=lazy))
    assert got[0].raw.chunks[0] == (2, 2, 1)  # the input's gradient keeps the batch's chunks
    for have, want in zip(got, expected):
        assert have.backend == lazy
        np.testing.assert_allclose(to_numpy(have), want.numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name", CONV_CASES)
def test_conv_backward_is_one_task_per_chunk_whatever_the_kernel(name):
    """On Dask, the weight's gradient is a task per batch chunk and a sum of the partials, and
    the input's a task per chunk: the graphs do not grow with the kernel's offsets (a 3x3
    kernel has 9, a 2x2 one 4), so a minibatch's backward is a few tasks where its chunk is."""
    pytest.importorskip("dask")
    from dask.utils import key_split
    sizes = []
    for kernel in (2, 3):
        call, (g, x, w) = conv_case(*CONV_CASES[name], batch=8, kernel=kernel)
        got = call(_batch_chunked(g, "dask", 2), _batch_chunked(x, "dask", 2),
                   interop.tensor(w, backend="dask"))
        graphs = [dict(t.raw.__dask_graph__()) for t in got[:2]]
        assert sum(key_split(k) == "weight_gradient" for k in graphs[1]) == 4
        assert sum(key_split(k) == "input_gradient" for k in graphs[0]) == 4
        sizes.append([len(graph) for graph in graphs])
    assert sizes[0] == sizes[1], sizes


LOGITS = RNG.standard_normal((5, 4))
LOGP = LOGITS - np.log(np.exp(LOGITS).sum(1, keepdims=True))
TARGETS = np.array([0, 3, -100, 1, 3])
CLASS_WEIGHTS = np.array([0.5, 1.0, 2.0, 3.0])
BN_INPUT, BN_GRAD = RNG.standard_normal((4, 3, 5, 2)), RNG.standard_normal((4, 3, 5, 2))
BN_WEIGHT, BN_MEAN, BN_VAR = RNG.standard_normal(3), RNG.standard_normal(3), RNG.random(3) + 0.5
BN_SAVE_MEAN = BN_INPUT.mean((0, 2, 3))
BN_SAVE_INVSTD = 1 / np.sqrt(BN_INPUT.var((0, 2, 3)) + 1e-5)


def _nll(reduction, weighted, one_sample=False):
    x, t = (LOGP[1], TARGETS[1]) if one_sample else (LOGP, TARGETS)
    weight = [CLASS_WEIGHTS] if weighted else []
    forward = (lambda x, t, *w: aten.nll_loss_forward(x, t, w[0] if w else None, reduction, -100),
               (x, t, *weight))
    kept = np.atleast_1d(t)[np.atleast_1d(t) != -100]
    total = CLASS_WEIGHTS[kept].sum() if weighted else float(kept.size)
    g = RNG.standard_normal(x.shape[:-1]) if reduction == 0 else np.array(1.7)
    backward = (lambda g, x, t, tw, *w: aten.nll_loss_backward(
        g, x, t, w[0] if w else None, reduction, -100, tw),
        (g, x, t, np.array(0.0 if reduction == 0 else total), *weight))
    return forward, backward


def _bn_backward(train, weighted):
    def call(g, x, *vectors):
        w = vectors[0] if weighted else None
        m, v, sm, si = vectors[-4:]
        return aten.native_batch_norm_backward(g, x, w, m, v, sm, si, train, 1e-5,
                                               [True, True, True])
    return call, (BN_GRAD, BN_INPUT, *([BN_WEIGHT] if weighted else []), BN_MEAN, BN_VAR,
                  BN_SAVE_MEAN, BN_SAVE_INVSTD)


def _flash_attention() -> dict:
    """The CPU flash attention scaled_dot_product_attention reaches from torch 2.14, forward
    and backward (its output and log-sum-exp from torch's kernel)."""
    q, k, v = (RNG.standard_normal((2, 3, 5, 4)) for _ in range(3))
    out, lse = aten._scaled_dot_product_flash_attention_for_cpu(
        *map(torch.from_numpy, (q, k, v)), is_causal=True)
    grad = RNG.standard_normal(tuple(out.shape))
    return {
        "_scaled_dot_product_flash_attention_for_cpu": (
            lambda q, k, v: aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, is_causal=True),
            (q, k, v)),
        "_scaled_dot_product_flash_attention_for_cpu_backward": (
            lambda g, q, k, v, o, lse: aten._scaled_dot_product_flash_attention_for_cpu_backward(
                g, q, k, v, o, lse, 0.0, True), (grad, q, k, v, out.numpy(), lse.numpy())),
    }


TRAINING_CASES = {  # the kernels a training step reaches that torch would decompose
    "_log_softmax": (lambda x: aten._log_softmax(x, -1, False), (LOGITS,)),
    "_log_softmax_backward_data": (lambda g, y: aten._log_softmax_backward_data(
        g, y, 1, torch.float64), (LOGITS[::-1].copy(), LOGP)),
    **{f"nll_loss_{kind}_{('none', 'mean', 'sum')[r]}{'_weighted' * w}": case
       for r in (0, 1, 2) for w in (False, True)
       for kind, case in zip(("forward", "backward"), _nll(r, w))},
    "nll_loss_forward_one_sample": _nll(1, True, one_sample=True)[0],
    "nll_loss_backward_one_sample": _nll(1, True, one_sample=True)[1],
    **{f"native_batch_norm_backward_{'train' if t else 'eval'}{'_weighted' * w}":
       _bn_backward(t, w) for t in (True, False) for w in (True, False)},
    **_flash_attention(),
}


@pytest.mark.parametrize("name", TRAINING_CASES)
def test_training_kernel_matches_torch(name, backend):
    """interop's own forms of the ATen kernels a training step reaches (cross-entropy's,
    batch norm's, ReLU's), where torch's decompositions would otherwise run, against torch's
    kernels on the same arrays."""
    call, arrays = TRAINING_CASES[name]
    expected = call(*(torch.from_numpy(np.array(a)) for a in arrays))
    got = call(*(interop.tensor(np.array(a), backend=backend) for a in arrays))
    for g, e in zip(*((got, expected) if isinstance(expected, tuple) else ((got,), (expected,)))):
        assert isinstance(g, interop.Tensor) and g.backend == backend
        assert g.shape == tuple(e.shape) and g.dtype == np.float64, name
        np.testing.assert_allclose(to_numpy(g), e.numpy(), rtol=1e-10, atol=1e-12, err_msg=name)


UPSAMPLE = {  # aten backward -> (spatial dims, align_corners or None, scale factors or None)
    "aten.upsample_nearest1d_backward": (1, None, None),
    "aten.upsample_nearest2d_backward": (2, None, (1.7, None)),
    "aten.upsample_nearest3d_backward": (3, None, None),
    "aten._upsample_nearest_exact1d_backward": (1, None, (2.5,)),
    "aten._upsample_nearest_exact2d_backward": (2, None, None),
    "aten._upsample_nearest_exact3d_backward": (3, None, None),
    "aten.upsample_linear1d_backward": (1, True, None),
    "aten.upsample_bilinear2d_backward": (2, False, (1.5, 0.75)),
    "aten.upsample_trilinear3d_backward": (3, False, None),
    "aten.upsample_bicubic2d_backward": (2, True, None),
    "aten._upsample_bilinear2d_aa_backward": (2, False, None),
    "aten._upsample_bicubic2d_aa_backward": (2, False, (0.6, None)),
}


def upsample_case(name):
    """(the aten kernel, a gradient array, the kernel's other arguments) for ``name``."""
    n, align, scales = UPSAMPLE[name]
    sizes_in, sizes_out = (5, 4, 6)[:n], (8, 3, 7)[:n]
    g = np.random.default_rng(n).standard_normal((2, 3, *sizes_out))
    args = [list(sizes_out), [2, 3, *sizes_in]] + ([align] if align is not None else []) + \
        list(scales or (None,) * n)
    return getattr(torch.ops.aten, name.removeprefix("aten.")), g, args


@pytest.mark.parametrize("name", UPSAMPLE)
def test_interpolation_backward_matches_torch(name, backend):
    kernel, g, args = upsample_case(name)
    expected = kernel(torch.from_numpy(g), *args)
    got = kernel(interop.tensor(g, backend=backend), *args)
    assert isinstance(got, interop.Tensor) and got.backend == backend
    np.testing.assert_allclose(to_numpy(got), expected.numpy(), rtol=1e-10, atol=1e-10)
