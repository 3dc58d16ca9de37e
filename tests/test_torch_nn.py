"""torch.nn.functional, torch.fft, torch.special and nn.Module inference on interop tensors,
on the numpy and dask backends (cupy on a GPU), against torch computing the same thing.

The torch callables themselves are called with interop tensors, so every call goes
through ``Tensor.__torch_function__``; torch tensors (weights) come in by DLPack.
"""

from __future__ import annotations

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy, torch_device

torch = pytest.importorskip("torch")
F = torch.nn.functional

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 6)).astype(np.float32)
IMG = RNG.standard_normal((2, 3, 7, 6)).astype(np.float32)
SEQ = RNG.standard_normal((2, 3, 9)).astype(np.float32)
LABELS = np.array([1, 0, 5, 3])
PROBS = np.abs(X) / np.abs(X).sum(1, keepdims=True)


def tensor(x, backend):
    if not isinstance(x, (np.ndarray, np.generic)):  # a NumPy scalar too (a 0-d tensor)
        return x
    chunks = {"chunks": tuple(max(1, s // 2) for s in x.shape)} if backend == "dask" else {}
    return interop.tensor(x, backend=backend, **chunks)


def assert_like_torch(got, expected, backend, rtol=2e-5, atol=2e-5):
    assert isinstance(got, interop.Tensor), type(got)
    assert got.backend == backend
    exp = expected.detach().resolve_conj().numpy()
    res = to_numpy(got)
    assert res.dtype == exp.dtype and res.shape == exp.shape, (res.dtype, res.shape, exp.dtype,
                                                                exp.shape)
    np.testing.assert_allclose(res, exp, rtol=rtol, atol=atol)


CASES = {
    "relu": (F.relu, (X,), {}),
    "relu_int": (F.relu, (LABELS - 2,), {}),
    "gelu": (F.gelu, (X,), {}),
    "gelu_tanh": (F.gelu, (X,), {"approximate": "tanh"}),
    "silu": (F.silu, (X,), {}),
    "leaky_relu": (F.leaky_relu, (X, 0.2), {}),
    "elu": (F.elu, (X,), {"alpha": 0.5}),
    "selu": (F.selu, (X,), {}),
    "softplus": (F.softplus, (X,), {"beta": 2.0, "threshold": 1.0}),
    "hardswish": (F.hardswish, (X,), {}),
    "mish": (F.mish, (X,), {}),
    "logsigmoid": (F.logsigmoid, (X,), {}),
    "softmax": (F.softmax, (X,), {"dim": -1}),
    "torch.softmax": (torch.softmax, (X, 0), {}),
    "log_softmax": (F.log_softmax, (X,), {"dim": 1}),
    "softmin": (F.softmin, (X,), {"dim": 1}),
    "glu": (F.glu, (X,), {}),
    "layer_norm": (F.layer_norm, (X, (6,)), {}),
    "layer_norm_affine": (F.layer_norm, (X, (6,), X[0], X[1]), {}),
    "rms_norm": (F.rms_norm, (X, (6,)), {}),
    "group_norm": (F.group_norm, (IMG, 3), {}),
    "local_response_norm": (F.local_response_norm, (IMG, 2), {}),  # torch's Python body
    "batch_norm_eval": (F.batch_norm, (IMG, X[0, :3], np.abs(X[1, :3])), {}),
    "normalize": (F.normalize, (X,), {"dim": 0}),
    "linear": (F.linear, (X, X[:3], X[0, :3]), {}),
    "dropout_eval": (F.dropout, (X,), {"training": False}),
    "pad_constant": (F.pad, (IMG, (1, 2, 0, 1)), {"value": 0.5}),
    "pad_reflect": (F.pad, (SEQ, (2, 1)), {"mode": "reflect"}),
    "pad_replicate": (F.pad, (IMG, (1, 1, 2, 0)), {"mode": "replicate"}),
    "pad_crop": (F.pad, (IMG, (-1, 2)), {}),
    "conv1d": (F.conv1d, (SEQ, SEQ[:, :, :3].copy()), {"padding": 1}),
    "conv2d": (F.conv2d, (IMG, IMG[:2, :, :3, :2].copy(), X[0, :2]),
               {"stride": (2, 1), "dilation": (1, 2)}),
    "conv2d_groups_same": (F.conv2d, (IMG, IMG[:, :1, :3, :3].repeat(3, 0).copy()),
                           {"groups": 3, "padding": "same"}),
    "conv_transpose2d": (F.conv_transpose2d,
                         (IMG, IMG.transpose(1, 0, 2, 3)[:, :2, :3, :2].copy(), X[0, :2]),
                         {"stride": 2, "padding": 1, "output_padding": 1}),
    "conv_transpose2d_groups": (F.conv_transpose2d, (IMG, IMG[0, :, :2, None, :3].copy()),
                                {"groups": 3, "dilation": (2, 1)}),
    "conv_transpose1d": (F.conv_transpose1d, (SEQ, SEQ[:, :, :3].transpose(1, 0, 2).copy()),
                         {"stride": 3, "dilation": 2}),
    "unfold": (F.unfold, (IMG, (2, 3)), {"padding": 1, "stride": (1, 2)}),
    "interpolate_nearest": (F.interpolate, (IMG,), {"scale_factor": 2.0}),
    "interpolate_bilinear": (F.interpolate, (IMG,), {"size": (5, 9), "mode": "bilinear"}),
    "interpolate_aligned": (F.interpolate, (SEQ,), {"size": 4, "mode": "linear",
                                                    "align_corners": True}),
    "max_pool2d": (F.max_pool2d, (IMG, 2), {"stride": 1, "padding": 1}),
    "avg_pool1d": (F.avg_pool1d, (SEQ, 3), {"stride": 2, "padding": 1,
                                             "count_include_pad": False}),
    "mse_loss": (F.mse_loss, (X, X[::-1].copy()), {}),
    "l1_loss_sum": (F.l1_loss, (X, X[::-1].copy()), {"reduction": "sum"}),
    "smooth_l1_loss": (F.smooth_l1_loss, (X, X[::-1].copy()), {"beta": 0.5}),
    "huber_loss": (F.huber_loss, (X, X[::-1].copy()), {"reduction": "none"}),
    "cross_entropy": (F.cross_entropy, (X, LABELS), {}),
    "cross_entropy_weighted": (F.cross_entropy, (X, LABELS), {
        "weight": np.arange(1, 7, dtype=np.float32), "ignore_index": 0,
        "label_smoothing": 0.1}),
    "cross_entropy_probs": (F.cross_entropy, (X, PROBS), {"label_smoothing": 0.2}),
    "nll_loss_none": (F.nll_loss, (X, LABELS), {"reduction": "none"}),
    "bce": (F.binary_cross_entropy, (1 / (1 + np.exp(-X)), (X > 0).astype(np.float32)), {}),
    "bce_logits": (F.binary_cross_entropy_with_logits, (X, (X > 0).astype(np.float32)),
                   {"pos_weight": np.full(6, 2.0, np.float32)}),
    "kl_div": (F.kl_div, (np.log(PROBS), PROBS[::-1].copy()), {"reduction": "batchmean"}),
    "cosine_similarity": (F.cosine_similarity, (X, X[::-1].copy()), {}),
    "one_hot": (F.one_hot, (LABELS,), {"num_classes": 7}),
    "embedding": (F.embedding, (LABELS.reshape(2, 2), X.T.copy()), {}),
    "prelu": (F.prelu, (IMG, np.array([0.1, 0.2, 0.3], np.float32)), {}),
    "pixel_shuffle": (F.pixel_shuffle, (np.repeat(IMG, 4, 1),), {"upscale_factor": 2}),
    "adaptive_avg_pool2d": (F.adaptive_avg_pool2d, (IMG, (3, 4)), {}),
    "pairwise_distance": (F.pairwise_distance, (X, X[::-1].copy()), {"p": 3.0}),
    "sdpa_causal": (F.scaled_dot_product_attention, (IMG, IMG, IMG), {"is_causal": True}),
    "sdpa_mask": (F.scaled_dot_product_attention, (IMG, IMG, IMG),
                  {"attn_mask": IMG[0, 0, :, :1] > 0}),
    "margin_ranking_loss": (F.margin_ranking_loss, (X, X[::-1].copy(), np.sign(X)), {}),
    "poisson_nll_loss": (F.poisson_nll_loss, (X, np.abs(X)), {"full": True}),
    "fft.rfft": (torch.fft.rfft, (SEQ,), {"n": 12, "norm": "ortho"}),
    "fft.ifft": (torch.fft.ifft, (X,), {"dim": 0}),
    "fft.irfft": (torch.fft.irfft, (X,), {}),
    "fft.fftshift": (torch.fft.fftshift, (X,), {}),
    "special.erf": (torch.special.erf, (X,), {}),
    "erfinv": (torch.erfinv, (np.tanh(X),), {}),
    "lgamma": (torch.lgamma, (np.abs(X) + 0.1,), {}),
    "special.ndtr": (torch.special.ndtr, (X,), {}),
    "special.i0e": (torch.special.i0e, (X,), {}),
    "xlogy": (torch.xlogy, (X, np.abs(X)), {}),
    "special.logit": (torch.special.logit, (np.abs(PROBS),), {"eps": 1e-6}),
    "polygamma": (torch.polygamma, (1, np.abs(X) + 0.5), {}),
    "special.expit": (torch.special.expit, (X,), {}),
    "igamma": (torch.igamma, (np.abs(X) + 0.1, np.abs(X)), {}),
    "special.hermite_h": (torch.special.hermite_polynomial_h, (X, LABELS[:, None] - 1), {}),
    "special.legendre_p": (torch.special.legendre_polynomial_p, (np.tanh(X), 3), {}),
}
# Dask's FFTs need the transformed axis in one chunk (Dask's own rule).
DASK_ONE_CHUNK = {"fft.rfft", "fft.ifft", "fft.irfft", "fft.fftshift"}


def _args(values, backend, name):
    if backend == "dask" and name in DASK_ONE_CHUNK:
        return [interop.tensor(v, backend="dask", chunks=-1) if isinstance(v, np.ndarray) else v
                for v in values]
    return [tensor(v, backend) for v in values]


@pytest.mark.parametrize("name", CASES)
def test_functional_matches_torch(name, backend):
    fn, args, kwargs = CASES[name]
    expected = fn(*[torch.from_numpy(a.copy()) if isinstance(a, np.ndarray) else a for a in args],
                  **{k: torch.from_numpy(v) if isinstance(v, np.ndarray) else v
                     for k, v in kwargs.items()})
    got = fn(*_args(args, backend, name),
             **{k: tensor(v, backend) for k, v in kwargs.items()})
    assert_like_torch(got, expected, backend)


def test_inplace_relu_writes_through():
    t = interop.tensor(X.copy())
    out = F.relu(t, inplace=True)
    assert (to_numpy(t) >= 0).all() and np.shares_memory(out.raw, t.raw)
    t2 = interop.tensor(X.copy())
    assert t2.relu_() is t2 and (to_numpy(t2) >= 0).all()


def test_dropout_training_zeroes_and_scales():
    interop.manual_seed(0)
    out = to_numpy(F.dropout(interop.tensor(np.ones((200, 50), np.float32)), p=0.25))
    assert set(np.unique(out)) <= {0.0, np.float32(1 / 0.75)}
    assert 0.2 < (out == 0).mean() < 0.3


def test_unsupported_raises_typeerror_naming_function_and_backend(backend):
    """F.fold's Python body runs; the kernel it reaches (torch._C._nn.col2im) is missing."""
    t = tensor(IMG, backend)
    with pytest.raises(TypeError, match=rf"torch\._C\._nn\.col2im .*{backend} backend"):
        F.fold(t[0, :, :4, :1].reshape(1, 3, 4), (2, 2), 1)


def test_loss_errors_like_torch():
    with pytest.raises(ValueError, match="reduction"):
        F.mse_loss(interop.tensor(X), interop.tensor(X), reduction="avg")
    with pytest.raises(RuntimeError, match="same dtype"):
        F.linear(interop.tensor(X), interop.tensor(X.astype(np.float64)))


# ------------------------------------------------------------------ nn.Module inference
class Net(torch.nn.Module):
    """Every layer kind the issue names, in one forward."""

    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(10, 8)
        self.conv1 = torch.nn.Conv1d(8, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(1, 2, 3, padding=1)
        self.norm = torch.nn.LayerNorm(8)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(16, 12), torch.nn.GELU(), torch.nn.Dropout(0.3),
                                       torch.nn.Linear(12, 4), torch.nn.ReLU())
        self.head = torch.nn.Softmax(dim=-1)

    def forward(self, tokens):
        h = self.embed(tokens)                          # (B, L, 8)
        h = self.conv1(h.transpose(1, 2)).transpose(1, 2)
        h = self.norm(h)                                # (B, L, 8)
        img = self.conv2(h[:, None])                    # (B, 2, L, 8)
        h = img.mean(dim=2).flatten(1)                  # (B, 16)
        return self.head(self.mlp(h))


def test_module_inference_matches_torch(backend):
    torch.manual_seed(0)
    model = Net().eval()
    tokens = np.random.default_rng(1).integers(0, 10, (3, 5))
    with torch.no_grad():
        expected = model(torch.from_numpy(tokens))
        got = model.to(torch_device(backend))(tensor(tokens, backend))
    assert_like_torch(got, expected, backend)


def test_issue_example(backend):
    x_np = RNG.standard_normal((32, 16)).astype(np.float32)
    w_np = RNG.standard_normal((16, 4)).astype(np.float32)
    x = interop.tensor(x_np, backend=backend, **({"chunks": (8, 16)} if backend == "dask" else {}))
    w = interop.tensor(w_np, backend=backend)
    h = F.relu(torch.matmul(x, w))
    p = torch.softmax(h, dim=-1)
    tp = torch.softmax(F.relu(torch.from_numpy(x_np) @ torch.from_numpy(w_np)), dim=-1)
    assert_like_torch(p, tp, backend)
    assert_like_torch(torch.cat([p, p], 0), torch.cat([tp, tp], 0), backend)
    assert_like_torch(torch.where(p > 0.5, p, 0.0), torch.where(tp > 0.5, tp, 0.0), backend)
    model = torch.nn.Sequential(torch.nn.Linear(16, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2)).eval()
    with torch.no_grad():
        expected = model(torch.from_numpy(x_np))
        assert_like_torch(model.to(torch_device(backend))(x), expected, backend)
