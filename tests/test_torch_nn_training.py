"""torch.nn's training-mode and aten-level forms on interop tensors, against torch: batch
normalisation's aten variants (with the running statistics written in place), the channel
and alpha dropouts (random: their structure and statistics), dropout's and softmax's
backward kernels, _safe_softmax, embedding's max_norm (the weight renormalised in place),
replicate padding with negative amounts, linear_cross_entropy's chunked options, the
antialiased bilinear kernel and multi-head attention with masks. Each on NumPy and Dask
(lazily: building the result computes nothing), with empty and 0-size-batch inputs.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy
from tests.test_torch_nn import assert_like_torch, tensor

torch = pytest.importorskip("torch")
dask_counting = pytest.importorskip("tests.helpers.dask_counting")
lazily = dask_counting.lazily
F = torch.nn.functional
aten = torch.ops.aten

RNG = np.random.default_rng(7)
IMG = RNG.standard_normal((4, 3, 5, 6)).astype(np.float32)


def t(x):
    return torch.from_numpy(np.array(x, copy=True))


def _same(got, expected, backend):
    if isinstance(expected, tuple):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _same(g, e, backend)
    else:
        assert_like_torch(got, expected, backend)


# ------------------------------------------------------------------ batch normalisation
BN = {
    "native_batch_norm": lambda x, w, b, rm, rv, training: torch.native_batch_norm(
        x, w, b, rm, rv, training, 0.3, 1e-5),
    "_native_batch_norm_legit": lambda x, w, b, rm, rv, training: torch._native_batch_norm_legit(
        x, w, b, rm, rv, training, 0.3, 1e-5),
    "_batch_norm_with_update": lambda x, w, b, rm, rv, training: aten._batch_norm_with_update(
        x, w, b, rm, rv, 0.3, 1e-5),
    "batch_norm": lambda x, w, b, rm, rv, training: F.batch_norm(
        x, rm, rv, w, b, training, 0.3, 1e-5),
}


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("name", sorted(BN))
@pytest.mark.parametrize("shape", [(4, 3, 5, 6), (5, 3), (2, 3, 7)])
def test_batch_norm_forms_and_running_stats(name, training, shape, backend):
    if name == "_batch_norm_with_update" and not training:
        pytest.skip("always training")
    x = RNG.standard_normal(shape).astype(np.float32) * 3 + 1
    w, b = RNG.standard_normal(3).astype(np.float32), RNG.standard_normal(3).astype(np.float32)
    rm, rv = RNG.standard_normal(3).astype(np.float32), RNG.random(3).astype(np.float32) + 0.5
    trm, trv = t(rm), t(rv)
    expected = BN[name](t(x), t(w), t(b), trm, trv, training)
    irm, irv = tensor(rm, backend), tensor(rv, backend)
    with lazily():
        got = BN[name](tensor(x, backend), tensor(w, backend), tensor(b, backend), irm, irv,
                       training)
    _same(got, expected, backend)
    assert_like_torch(irm, trm, backend)  # the running statistics, updated in place
    assert_like_torch(irv, trv, backend)


def test_batch_norm_without_running_stats(backend):
    x = IMG
    expected = torch._native_batch_norm_legit(t(x), None, None, True, 0.1, 1e-5)
    _same(torch._native_batch_norm_legit(tensor(x, backend), None, None, True, 0.1, 1e-5),
          expected, backend)
    expected = torch.native_batch_norm(t(x), None, None, None, None, True, 0.1, 1e-5)
    _same(torch.native_batch_norm(tensor(x, backend), None, None, None, None, True, 0.1, 1e-5),
          expected, backend)


def test_batch_norm_empty_and_refusals(backend):
    rm, rv = np.zeros(3, np.float32), np.ones(3, np.float32)
    for shape in [(0, 3, 4), (0,)]:
        x = np.zeros(shape, np.float32)
        r = (rm, rv) if len(shape) > 1 else (rm[:0], rv[:0])
        irm = tensor(r[0], backend)
        expected = F.batch_norm(t(x), t(r[0]), t(r[1]), training=True)
        assert_like_torch(F.batch_norm(tensor(x, backend), irm, tensor(r[1], backend),
                                       training=True), expected, backend)
        assert_like_torch(irm, t(r[0]), backend)  # untouched
    with pytest.raises(RuntimeError, match="at least one element"):
        torch.native_batch_norm(tensor(np.zeros((0, 3, 4), np.float32), backend), None, None,
                                tensor(rm, backend), tensor(rv, backend), True, 0.1, 1e-5)
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        F.batch_norm(tensor(IMG[:1, :, :1, :1], backend), tensor(rm, backend),
                     tensor(rv, backend), training=True)
    with pytest.raises(RuntimeError, match="running_mean must be defined in evaluation mode"):
        F.batch_norm(tensor(IMG, backend), None, None, training=False)
    with pytest.raises(RuntimeError, match="running_mean should contain 3 elements not 2"):
        F.batch_norm(tensor(IMG, backend), tensor(rm[:2], backend), tensor(rv[:2], backend))


def test_batch_norm_module_training(backend):
    """nn.BatchNorm2d in training mode on interop tensors keeps torch's running buffers."""
    torch.manual_seed(0)
    ref = torch.nn.BatchNorm2d(3)
    mod = torch.nn.BatchNorm2d(3)
    mod.load_state_dict(ref.state_dict())
    for name in ("running_mean", "running_var"):  # interop tensors as the buffers
        buf = getattr(mod, name).numpy()
        delattr(mod, name)
        setattr(mod, name, tensor(buf, backend))
    mod.weight = mod.bias = None
    ref.weight = ref.bias = None
    for _ in range(2):
        with torch.no_grad():
            assert_like_torch(mod(tensor(IMG, backend)), ref(t(IMG)), backend)
    assert_like_torch(mod.running_mean, ref.running_mean, backend)
    assert_like_torch(mod.running_var, ref.running_var, backend)


# ------------------------------------------------------------------ dropout
def _channels_whole(out, x, scale):
    """Each (n, c) channel of ``out`` is either all zero or ``x`` times ``scale``."""
    flat_o = out.reshape(out.shape[0] * out.shape[1], -1)
    flat_x = x.reshape(flat_o.shape)
    zero = (flat_o == 0).all(axis=1)
    kept = np.isclose(flat_o, flat_x * scale, rtol=1e-6).all(axis=1)
    assert (zero | kept).all()
    return zero.mean()


@pytest.mark.parametrize("fn,shape", [(F.dropout1d, (40, 50, 3)), (F.dropout2d, (40, 50, 2, 3)),
                                      (F.dropout3d, (40, 50, 2, 1, 3))])
def test_channel_dropout_zeroes_whole_channels(fn, shape, backend):
    interop.manual_seed(0)
    x = RNG.standard_normal(shape).astype(np.float32) + 5  # no zeros of its own
    with lazily():
        got = fn(tensor(x, backend), p=0.3, training=True)
    assert got.shape == x.shape and got.dtype == interop.float32
    dropped = _channels_whole(to_numpy(got), x, 1 / 0.7)
    assert 0.22 < dropped < 0.38
    # one dim less: unbatched (C, ...), the mask per channel of dim 0 (dropout2d reads a 3-D
    # input as batched (N, C, L), as torch does)
    out = to_numpy(fn(tensor(x[0], backend), p=0.5, training=True))
    _channels_whole(out if fn is F.dropout2d else out[None], x[0] if fn is F.dropout2d else x[:1],
                    2.0)


def test_dropout_identities_and_refusals(backend):
    x = tensor(IMG, backend)
    for fn in (F.dropout, F.dropout1d, F.dropout2d, F.dropout3d, F.alpha_dropout,
               F.feature_alpha_dropout):
        assert_like_torch(fn(x if fn is not F.dropout1d else x[0], p=0.4, training=False),
                          t(IMG if fn is not F.dropout1d else IMG[0]), backend)
        empty = np.zeros((0, 3, 2, 2) if fn is not F.dropout1d else (0, 3, 2), np.float32)
        assert fn(tensor(empty, backend), p=0.4, training=True).shape == empty.shape
        with pytest.raises(ValueError, match="between 0 and 1"):
            fn(x, p=1.5)
    assert (to_numpy(F.dropout2d(x, p=1.0, training=True)) == 0).all()
    with pytest.raises(RuntimeError, match="2D or 3D input"):
        F.dropout1d(x, p=0.5)
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        F.feature_alpha_dropout(tensor(IMG[0, 0, 0], backend), p=0.5, training=True)


def test_dropout_in_place_writes_through(backend):
    interop.manual_seed(1)
    x = tensor(IMG + 5, backend)
    out = F.dropout2d(x, p=0.5, training=True, inplace=True)
    np.testing.assert_array_equal(to_numpy(x), to_numpy(out))
    _channels_whole(to_numpy(x), IMG + 5, 2.0)


ALPHA = 1.7580993408473766


@pytest.mark.parametrize("feature", [False, True])
def test_alpha_dropout_formula_and_moments(feature, backend):
    interop.manual_seed(2)
    p = 0.2
    x = RNG.standard_normal((200, 100, 4)).astype(np.float32)
    fn = F.feature_alpha_dropout if feature else F.alpha_dropout
    with lazily():
        got = fn(tensor(x, backend), p=p, training=True)
    out = to_numpy(got)
    a = 1 / math.sqrt((ALPHA ** 2 * p + 1) * (1 - p))
    kept = np.isclose(out, a * x + ALPHA * a * p, rtol=1e-5, atol=1e-6)
    dropped = np.isclose(out, ALPHA * a * (p - 1), rtol=1e-5)  # an x may give both: either fits
    if feature:  # whole channels
        kept, dropped = kept.all(axis=2), dropped.all(axis=2)
    assert (kept | dropped).all()
    assert abs((dropped & ~kept).mean() - p) < 0.03
    # self-normalising: zero mean, unit variance kept (torch's reason for the formula)
    assert abs(out.mean()) < 0.05 and abs(out.std() - 1) < 0.05


def test_native_dropout_backward(backend):
    g = RNG.standard_normal((3, 4)).astype(np.float32)
    mask = RNG.random((3, 4)) > 0.5
    expected = aten.native_dropout_backward.default(t(g), t(mask), 2.5)
    with lazily():
        got = aten.native_dropout_backward.default(tensor(g, backend), tensor(mask, backend), 2.5)
    assert_like_torch(got, expected, backend)
    empty = np.zeros((0, 4), np.float32)
    assert_like_torch(aten.native_dropout_backward(tensor(empty, backend),
                                                   tensor(empty > 0, backend), 2.0),
                      aten.native_dropout_backward(t(empty), t(empty > 0), 2.0), backend)


# ------------------------------------------------------------------ softmax kernels
def test_safe_softmax_zeroes_fully_masked_rows(backend):
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    x[1] = -np.inf
    x[2, :2] = -np.inf
    for dim in (1, 0, -1):
        expected = aten._safe_softmax.default(t(x), dim)
        with lazily():
            got = aten._safe_softmax.default(tensor(x, backend), dim)
        assert_like_torch(got, expected, backend)
    assert_like_torch(aten._safe_softmax(tensor(x, backend), 1, torch.float64),
                      aten._safe_softmax(t(x), 1, torch.float64), backend)
    empty = np.zeros((0, 4), np.float32)
    assert_like_torch(aten._safe_softmax(tensor(empty, backend), 1),
                      aten._safe_softmax(t(empty), 1), backend)


def test_softmax_backward_data(backend):
    y = torch.softmax(t(RNG.standard_normal((3, 5)).astype(np.float32)), 1).numpy()
    g = RNG.standard_normal((3, 5)).astype(np.float32)
    for dim in (1, 0):
        expected = aten._softmax_backward_data(t(g), t(y), dim, torch.float32)
        with lazily():
            got = aten._softmax_backward_data(tensor(g, backend), tensor(y, backend), dim,
                                              torch.float32)
        assert_like_torch(got, expected, backend)
    empty = np.zeros((0, 5), np.float32)
    assert_like_torch(aten._softmax_backward_data(tensor(empty, backend), tensor(empty, backend),
                                                  1, torch.float32),
                      aten._softmax_backward_data(t(empty), t(empty), 1, torch.float32), backend)


# ------------------------------------------------------------------ embedding max_norm
@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_embedding_max_norm_renormalises_weight_in_place(norm_type, backend):
    w = RNG.standard_normal((6, 4)).astype(np.float32) * 2
    idx = np.array([[0, 2], [2, 5]])
    tw = t(w)
    expected = F.embedding(t(idx), tw, max_norm=1.0, norm_type=norm_type)
    iw = tensor(w, backend)
    with lazily():
        got = F.embedding(tensor(idx, backend), iw, max_norm=1.0, norm_type=norm_type)
    assert_like_torch(got, expected, backend)
    assert_like_torch(iw, tw, backend)  # rows 0, 2, 5 renormalised, the others untouched
    np.testing.assert_array_equal(to_numpy(iw)[[1, 3, 4]], w[[1, 3, 4]])


def test_embedding_max_norm_module_and_empty(backend):
    torch.manual_seed(0)
    ref = torch.nn.Embedding(5, 3, max_norm=0.5)
    mod = torch.nn.Embedding(5, 3, max_norm=0.5)
    mod.load_state_dict(ref.state_dict())
    del mod.weight
    mod.weight = tensor(ref.weight.detach().numpy().copy(), backend)
    with torch.no_grad():
        expected = ref(t(np.array([4, 1, 4])))
        assert_like_torch(mod(tensor(np.array([4, 1, 4]), backend)), expected, backend)
    assert_like_torch(mod.weight, ref.weight.detach(), backend)
    empty = np.zeros((0,), np.int64)
    w = RNG.standard_normal((5, 3)).astype(np.float32) * 3
    iw = tensor(w, backend)
    assert F.embedding(tensor(empty, backend), iw, max_norm=1.0).shape == (0, 3)
    np.testing.assert_array_equal(to_numpy(iw), w)  # no row named: none renormalised


# ------------------------------------------------------------------ padding
@pytest.mark.parametrize("pad", [(-4, 5, 0, 0), (0, 0, 2, -4), (5, -4, -4, 3), (-2, -1, 0, 0),
                                 (-1, 2, 1, -1)])
def test_pad_replicate_negative(pad, backend):
    """Crops and pads that leave every padded dim non-empty (an emptied one: torch 2.13 and
    2.14 disagree, tests/test_torch_releases.py)."""
    x = RNG.standard_normal((2, 3, 4, 4)).astype(np.float32)
    expected = F.pad(t(x), pad, mode="replicate")
    with lazily():
        got = F.pad(tensor(x, backend), pad, mode="replicate")
    assert_like_torch(got, expected, backend)
    zero_batch = np.zeros((0, 3, 4, 4), np.float32)
    assert_like_torch(F.pad(tensor(zero_batch, backend), pad, mode="replicate"),
                      F.pad(t(zero_batch), pad, mode="replicate"), backend)


def test_pad_replicate_negative_refusals(backend):
    x = tensor(IMG, backend)
    with pytest.raises(RuntimeError):
        F.pad(x, (-4, -3), mode="replicate")  # a negative size: torch refuses too
    with pytest.raises(RuntimeError):
        F.pad(t(IMG), (-4, -3), mode="replicate")


# ------------------------------------------------------------------ linear_cross_entropy
def test_linear_cross_entropy_chunked_options(backend):
    options = pytest.importorskip("torch.nn.modules.linear_cross_entropy_options",
                                  reason="torch before 2.13 has no chunked linear_cross_entropy")
    LinearCrossEntropyOptions = options.LinearCrossEntropyOptions  # noqa: N806
    x = RNG.standard_normal((5, 4)).astype(np.float32)
    w = RNG.standard_normal((7, 4)).astype(np.float32)
    target = np.array([0, 6, 3, 3, 1])
    for reduction in ("mean", "sum", "none"):
        for opts in (LinearCrossEntropyOptions(batch_chunk_size=2),
                     LinearCrossEntropyOptions(acc_dtype=torch.float32, chunking_method=None,
                                               batch_chunk_size=3)):
            expected = F.linear_cross_entropy(t(x), t(w), t(target), reduction=reduction,
                                              options=opts)
            with lazily():
                got = F.linear_cross_entropy(tensor(x, backend), tensor(w, backend),
                                             tensor(target, backend), reduction=reduction,
                                             options=opts)
            assert_like_torch(got, expected, backend)
    # unbatched input, then a 0-size batch
    opts = LinearCrossEntropyOptions(batch_chunk_size=1)
    assert_like_torch(F.linear_cross_entropy(tensor(x[0], backend), tensor(w, backend),
                                             tensor(target[0], backend), options=opts),
                      F.linear_cross_entropy(t(x[0]), t(w), t(target[0]), options=opts), backend)
    assert_like_torch(F.linear_cross_entropy(tensor(x[:0], backend), tensor(w, backend),
                                             tensor(target[:0], backend), reduction="sum"),
                      F.linear_cross_entropy(t(x[:0]), t(w), t(target[:0]), reduction="sum"),
                      backend)
    bad = LinearCrossEntropyOptions(batch_chunk_size=3, chunking_method="aspect_ratio")
    with pytest.raises(ValueError, match="give different chunk sizes"):
        F.linear_cross_entropy(t(x), t(w), t(target), options=bad)
    with pytest.raises(ValueError, match="give different chunk sizes"):
        F.linear_cross_entropy(tensor(x, backend), tensor(w, backend), tensor(target, backend),
                               options=bad)


# ------------------------------------------------------------------ antialiased bilinear
@pytest.mark.parametrize("call", [
    lambda x: aten._upsample_bilinear2d_aa(x, [3, 4], False),
    lambda x: aten._upsample_bilinear2d_aa.default(x, [3, 8], True, 0.6, 1.3),
    lambda x: aten._upsample_bilinear2d_aa.vec(x, None, False, [0.6, 1.5]),
    lambda x: aten._upsample_bilinear2d_aa(x, output_size=None, align_corners=True,
                                           scale_factors=[0.5, 0.5]),
])
def test_upsample_bilinear2d_aa(call, backend):
    x = RNG.standard_normal((2, 3, 7, 6)).astype(np.float32)
    with lazily():
        got = call(tensor(x, backend))
    assert_like_torch(got, call(t(x)), backend)
    zero_batch = np.zeros((0, 3, 7, 6), np.float32)
    assert_like_torch(call(tensor(zero_batch, backend)), call(t(zero_batch)), backend)


# ------------------------------------------------------------------ attention
@pytest.mark.parametrize("mask_kind", ["bool", "float", "key_padding"])
def test_multi_head_attention_with_masks(mask_kind, backend):
    """F.multi_head_attention_forward (torch's Python body, run op by op) with masks. (Not
    through nn.MultiheadAttention: its forward checks masks with isinstance(torch.Tensor)
    before dispatching.)"""
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(8, 2).eval()
    params = [p.detach().numpy().copy() for p in (mha.in_proj_weight, mha.in_proj_bias,
                                                   mha.out_proj.weight, mha.out_proj.bias)]
    q = RNG.standard_normal((5, 2, 8)).astype(np.float32)
    masks = {}
    if mask_kind == "bool":
        masks["attn_mask"] = np.triu(np.ones((5, 5), bool), 1)
    elif mask_kind == "float":
        masks["attn_mask"] = RNG.standard_normal((5, 5)).astype(np.float32)
    else:
        masks["key_padding_mask"] = np.array([[False] * 4 + [True], [False] * 5])

    def call(conv):
        w, b, ow, ob = (conv(p) for p in params)
        return F.multi_head_attention_forward(
            conv(q), conv(q), conv(q), 8, 2, w, b, None, None, False, 0.0, ow, ob,
            training=False, **{k: conv(v) for k, v in masks.items()})
    _same(call(lambda a: tensor(a, backend)), call(t), backend)
