"""torch.nn modules, loaded from a state_dict of torch tensors (as a checkpoint gives them), run
in eval mode on interop tensors on NumPy and on Dask, against torch on the same input.

The module's parameters and buffers stay torch tensors: calling the module with an interop
input sends each F.* call through ``Tensor.__torch_function__``, where the torch tensors are
operands taken in by DLPack.  On Dask the forward builds a graph and computes nothing until
the result is read (counted with a Dask callback).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import interop
from tests.conftest import off_host, to_numpy, torch_device

torch = pytest.importorskip("torch")
pytest.importorskip("dask")
from tests.helpers.dask_counting import ComputeCounter  # noqa: E402

nn = torch.nn

RNG = np.random.default_rng(0)


def normal(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def xfail(reason):
    return pytest.mark.xfail(reason=reason, raises=(TypeError, NotImplementedError), strict=True)


MODULES = {
    "Linear": (lambda: nn.Linear(6, 4), [normal(3, 6)]),
    "Bilinear": (lambda: nn.Bilinear(6, 5, 4), [normal(3, 6), normal(3, 5)]),
    "Conv1d": (lambda: nn.Conv1d(3, 4, 3, padding=1), [normal(2, 3, 9)]),
    "Conv2d": (lambda: nn.Conv2d(3, 4, 3, stride=2, padding=1), [normal(2, 3, 8, 7)]),
    "Conv3d": (lambda: nn.Conv3d(2, 3, 2), [normal(2, 2, 4, 5, 4)]),
    "ConvTranspose1d": (lambda: nn.ConvTranspose1d(3, 4, 3, stride=2), [normal(2, 3, 9)]),
    "ConvTranspose2d": (lambda: nn.ConvTranspose2d(3, 4, 3, stride=2, output_padding=1),
                        [normal(2, 3, 5, 4)]),
    "BatchNorm1d": (lambda: nn.BatchNorm1d(4), [normal(3, 4, 5)]),
    "BatchNorm2d": (lambda: nn.BatchNorm2d(3), [normal(2, 3, 4, 4)]),
    "BatchNorm3d": (lambda: nn.BatchNorm3d(2), [normal(2, 2, 3, 3, 3)]),
    "LayerNorm": (lambda: nn.LayerNorm(6), [normal(3, 6)]),
    "GroupNorm": (lambda: nn.GroupNorm(2, 4), [normal(2, 4, 5, 5)]),
    "InstanceNorm2d": (lambda: nn.InstanceNorm2d(3, affine=True), [normal(2, 3, 4, 4)]),
    "InstanceNorm1d_tracked": (lambda: nn.InstanceNorm1d(3, track_running_stats=True),
                               [normal(2, 3, 8)]),
    "Embedding": (lambda: nn.Embedding(10, 4), [RNG.integers(0, 10, (3, 5))]),
    "EmbeddingBag": (lambda: nn.EmbeddingBag(10, 4, mode="mean"), [RNG.integers(0, 10, (3, 5))]),
    "EmbeddingBag_max_padding": (lambda: nn.EmbeddingBag(10, 4, mode="max", padding_idx=0),
                                 [np.array([[0, 3, 3], [0, 0, 0], [5, 1, 0]])]),
    "MultiheadAttention": (lambda: nn.MultiheadAttention(8, 2, batch_first=True),
                           [normal(2, 5, 8)] * 3),
    "TransformerEncoderLayer": (lambda: nn.TransformerEncoderLayer(8, 2, 16, batch_first=True),
                                [normal(2, 5, 8)]),
    "TransformerDecoderLayer": (lambda: nn.TransformerDecoderLayer(8, 2, 16, batch_first=True),
                                [normal(2, 5, 8), normal(2, 4, 8)]),
    "Transformer": (lambda: nn.Transformer(8, 2, 1, 1, 16, batch_first=True),
                    [normal(2, 5, 8), normal(2, 4, 8)]),
    "RNN": (lambda: nn.RNN(4, 5), [normal(6, 2, 4)]),
    "RNN_relu_2layers_bidirectional": (
        lambda: nn.RNN(4, 5, num_layers=2, nonlinearity="relu", bidirectional=True),
        [normal(6, 2, 4)]),
    "RNN_unbatched": (lambda: nn.RNN(4, 5, batch_first=True), [normal(6, 4)]),
    "LSTM": (lambda: nn.LSTM(4, 5, num_layers=2, bidirectional=True, batch_first=True),
             [normal(2, 6, 4)]),
    "LSTM_proj_no_bias": (lambda: nn.LSTM(4, 5, proj_size=3, bias=False), [normal(6, 2, 4)]),
    "GRU": (lambda: nn.GRU(4, 5), [normal(6, 2, 4)]),
    "GRU_2layers_bidirectional_batch_first": (
        lambda: nn.GRU(4, 5, num_layers=2, bidirectional=True, batch_first=True),
        [normal(2, 6, 4)]),
    "MaxPool2d": (lambda: nn.MaxPool2d(2), [normal(2, 3, 6, 6)]),
    "MaxPool1d": (lambda: nn.MaxPool1d(3, stride=2, padding=1), [normal(2, 3, 9)]),
    "AvgPool2d": (lambda: nn.AvgPool2d(3, stride=2, padding=1), [normal(2, 3, 6, 6)]),
    "AdaptiveAvgPool2d": (lambda: nn.AdaptiveAvgPool2d((2, 3)), [normal(2, 3, 6, 7)]),
    "AdaptiveMaxPool1d": (lambda: nn.AdaptiveMaxPool1d(3), [normal(2, 3, 7)]),
    "Upsample_nearest": (lambda: nn.Upsample(scale_factor=2), [normal(2, 3, 4, 4)]),
    "Upsample_nearest_exact": (lambda: nn.Upsample(scale_factor=1.5, mode="nearest-exact"),
                               [normal(1, 2, 4, 4)]),
    "Upsample_linear": (lambda: nn.Upsample(size=7, mode="linear", align_corners=True),
                        [normal(1, 2, 4)]),
    "Upsample_bilinear": (lambda: nn.Upsample(scale_factor=2, mode="bilinear"),
                          [normal(2, 3, 4, 4)]),
    "Upsample_trilinear": (lambda: nn.Upsample(size=(3, 5, 4), mode="trilinear"),
                           [normal(1, 2, 2, 3, 2)]),
    "Upsample_bicubic": (lambda: nn.Upsample(scale_factor=2, mode="bicubic"),
                         [normal(2, 3, 4, 4)]),
    "PixelShuffle": (lambda: nn.PixelShuffle(2), [normal(2, 8, 3, 3)]),
    "Dropout": (lambda: nn.Dropout(0.5), [normal(3, 4)]),
}
ACTIVATIONS = ["ReLU", "GELU", "SiLU", "Tanh", "Sigmoid", "Softplus", "ELU", "LeakyReLU",
               "Hardswish", "Mish", "PReLU", "Hardtanh", "ReLU6", "SELU", "CELU", "GLU",
               "Softsign", "Tanhshrink", "LogSigmoid", "Hardsigmoid"]
for _name in ACTIVATIONS:
    MODULES[_name] = (getattr(nn, _name), [normal(3, 6)])
MODULES["Softmax"] = (lambda: nn.Softmax(dim=1), [normal(3, 6)])
MODULES["LogSoftmax"] = (lambda: nn.LogSoftmax(dim=1), [normal(3, 6)])
MODULES["Threshold"] = (lambda: nn.Threshold(0.1, 20.0), [normal(3, 6)])


def from_checkpoint(make):
    """A module whose weights come from another instance's state_dict (torch tensors)."""
    torch.manual_seed(0)
    trained = make()
    torch.manual_seed(1)
    module = make()
    module.load_state_dict(trained.state_dict())
    return module.eval()


def as_interop(x, backend):
    if backend == "dask":
        # two chunks along the batch: the graph stays small and the operations cross chunks
        return interop.tensor(x, backend="dask", chunks=(max(1, x.shape[0] // 2), *x.shape[1:]))
    return interop.tensor(x, backend=backend)


DASK_XFAIL = {"GroupNorm": "F.group_norm reshapes with Dask's own reshape, which refuses "
                            "this chunking (issue: rechunk first)"}
PARAMS = [pytest.param(name, make, inputs, id=name, marks=marks)
          for name, (make, inputs, *marks) in MODULES.items()]


@pytest.mark.parametrize("name,make,inputs", PARAMS)
def test_module_matches_torch(name, make, inputs, backend):
    if backend == "dask" and name in DASK_XFAIL:
        pytest.xfail(DASK_XFAIL[name])
    device = torch_device(backend)
    module = from_checkpoint(make)
    with torch.no_grad():
        expected = module(*[torch.from_numpy(x) for x in inputs])
        module.to(device)  # the weights where the input is (CUDA beside CuPy)
        with ComputeCounter() as counter:
            got = module(*[as_interop(x, backend) for x in inputs])
    assert counter.count == 0, f"{name} computed {counter.count} Dask graph(s) in forward"
    assert_like_torch(got, expected, backend)


def assert_like_torch(got, expected, backend):
    """Tensors (or the tuples MultiheadAttention returns) equal to torch's, on ``backend``."""
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_like_torch(g, e, backend)
        return
    assert isinstance(got, interop.Tensor) and got.backend == backend
    res = to_numpy(got)
    assert res.dtype == expected.numpy().dtype
    np.testing.assert_allclose(res, expected.numpy(), rtol=1e-4, atol=1e-5)


def test_attention_masks_match_torch(backend):
    """Key padding (a bool interop tensor) and a causal mask (torch's float mask, as
    nn.Transformer makes it): torch's mask handling compares and converts t.dtype."""
    device = torch_device(backend)
    mha = from_checkpoint(lambda: nn.MultiheadAttention(8, 2, batch_first=True))
    x = normal(2, 5, 8)
    padding = np.zeros((2, 5), bool)
    padding[1, 3:] = True
    causal = nn.Transformer.generate_square_subsequent_mask(5)
    with torch.no_grad():
        expected = mha(*[torch.from_numpy(x)] * 3, key_padding_mask=torch.from_numpy(padding),
                       attn_mask=causal)
        with ComputeCounter() as counter:
            got = mha.to(device)(*[as_interop(x, backend)] * 3,
                                 key_padding_mask=as_interop(padding, backend),
                                 attn_mask=causal.to(device))
    assert counter.count == 0
    assert_like_torch(got, expected, backend)


def test_transformer_encoder_causal_matches_torch(backend):
    device = torch_device(backend)
    layer = from_checkpoint(lambda: nn.TransformerEncoderLayer(8, 2, 16, batch_first=True))
    x = normal(2, 5, 8)
    causal = nn.Transformer.generate_square_subsequent_mask(5)
    with torch.no_grad():
        expected = layer(torch.from_numpy(x), src_mask=causal, is_causal=True)
        got = layer.to(device)(as_interop(x, backend), src_mask=causal.to(device),
                               is_causal=True)
    assert_like_torch(got, expected, backend)


RECURRENT = {"RNN": lambda: nn.RNN(4, 5, num_layers=2, bidirectional=True),
             "LSTM": lambda: nn.LSTM(4, 5, num_layers=2, bidirectional=True, batch_first=True),
             "GRU": lambda: nn.GRU(4, 5, bidirectional=True, batch_first=True)}


@pytest.mark.parametrize("enforce_sorted", [True, False], ids=["sorted", "unsorted"])
@pytest.mark.parametrize("kind", list(RECURRENT))
def test_packed_sequence_matches_torch(kind, enforce_sorted, backend):
    """pack_padded_sequence -> module -> pad_packed_sequence, as a user runs variable-length
    batches; the final hidden state of each sequence is the one at its own length."""
    device = torch_device(backend)
    module = from_checkpoint(RECURRENT[kind])
    lengths = [5, 4, 2] if enforce_sorted else [2, 5, 4]
    x = normal(3, 5, 4) if module.batch_first else normal(5, 3, 4)
    pack = nn.utils.rnn.pack_padded_sequence
    pad = nn.utils.rnn.pad_packed_sequence
    with torch.no_grad():
        packed, expected_hidden = module(pack(torch.from_numpy(x), lengths, module.batch_first,
                                              enforce_sorted=enforce_sorted))
        expected, expected_lengths = pad(packed, module.batch_first, padding_value=-1.0)
        module.to(device)
        with ComputeCounter() as counter:
            packed, hidden = module(pack(as_interop(x, backend), lengths, module.batch_first,
                                         enforce_sorted=enforce_sorted))
            got, got_lengths = pad(packed, module.batch_first, padding_value=-1.0)
    assert counter.count == 0
    assert_like_torch((got, hidden), (expected, expected_hidden), backend)
    np.testing.assert_array_equal(to_numpy(got_lengths), expected_lengths.numpy())


def test_recurrent_initial_state_as_interop_tensor(backend):
    """hx given by the caller (an interop tensor, here on the input's backend)."""
    device = torch_device(backend)
    module = from_checkpoint(lambda: nn.LSTM(4, 5, num_layers=2))
    x, h, c = normal(6, 2, 4), normal(2, 2, 5), normal(2, 2, 5)
    with torch.no_grad():
        expected = module(torch.from_numpy(x), (torch.from_numpy(h), torch.from_numpy(c)))
        got = module.to(device)(as_interop(x, backend), (as_interop(h, backend), as_interop(c, backend)))
    assert_like_torch((got[0], *got[1]), (expected[0], *expected[1]), backend)


def test_recurrent_refuses_other_dtype(backend):
    """A float64 input to float32 weights: torch's own check in forward raises first."""
    module = nn.GRU(4, 5).to(torch_device(backend))
    with pytest.raises((RuntimeError, ValueError), match="dtype"):
        module(as_interop(normal(6, 2, 4).astype(np.float64), backend))


def test_device_is_taken_by_torch_factories(backend):
    """``torch.zeros(n, device=x.device)`` (torch's modules make their initial states so)."""
    x = as_interop(normal(2, 3), backend)
    if backend == "gpulike":  # a device torch does not have: said plainly
        with pytest.raises(interop.DeviceMismatchError, match="torch has no device gpulike:0"):
            torch.zeros(2, dtype=x.dtype, device=x.device)
        return
    assert torch.zeros(2, dtype=x.dtype, device=x.device).device.type == torch_device(backend)
    if not off_host(backend):  # NumPy's device= takes the host only
        assert np.zeros(2, device=x.device).shape == (2,)


KINDS = {"RNN_TANH": lambda **kw: nn.RNN(nonlinearity="tanh", **kw),
         "RNN_RELU": lambda **kw: nn.RNN(nonlinearity="relu", **kw),
         "LSTM": nn.LSTM, "GRU": nn.GRU}


@given(kind=st.sampled_from(sorted(KINDS)), layers=st.integers(1, 2), bidirectional=st.booleans(),
       batch_first=st.booleans(), bias=st.booleans(),
       lengths=st.lists(st.integers(1, 4), min_size=1, max_size=3), packed=st.booleans())
def test_recurrent_configurations_match_torch(kind, layers, bidirectional, batch_first, bias,
                                              lengths, packed):
    """Any configuration and batch (padded, or packed with unsorted lengths) on NumPy."""
    torch.manual_seed(len(lengths))
    module = KINDS[kind](input_size=3, hidden_size=2, num_layers=layers, bias=bias,
                         bidirectional=bidirectional, batch_first=batch_first).eval()
    steps = max(lengths)
    x = normal(len(lengths), steps, 3) if batch_first else normal(steps, len(lengths), 3)

    def run(data):
        if not packed:
            return module(data)
        out, hidden = module(nn.utils.rnn.pack_padded_sequence(data, lengths, batch_first,
                                                               enforce_sorted=False))
        return nn.utils.rnn.pad_packed_sequence(out, batch_first)[0], hidden
    with torch.no_grad():
        expected, got = run(torch.from_numpy(x)), run(interop.tensor(x))
    flatten = lambda r: (r[0], *(r[1] if isinstance(r[1], tuple) else (r[1],)))  # noqa: E731
    assert_like_torch(flatten(got), flatten(expected), "numpy")


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_offsets_match_torch(mode, backend):
    """1-D indices cut by offsets (torch CPU tensors): an empty bag, padding, per-sample
    weights (sum), include_last_offset; the kernel's other outputs too."""
    device = torch_device(backend)
    weight = torch.from_numpy(normal(10, 3))
    indices, offsets = np.array([1, 2, 0, 4, 4, 3, 0]), torch.tensor([0, 2, 2, 5])
    weights = normal(7) if mode == "sum" else None
    for padding_idx, include_last in [(None, False), (0, False), (-6, False), (0, True)]:
        def call(i, w, on="cpu", padding_idx=padding_idx, include_last=include_last):
            cuts = torch.tensor([0, 2, 2, 7]) if include_last else offsets  # the last: the end
            return nn.functional.embedding_bag(i, weight.to(on), cuts.to(on), mode=mode,
                                               per_sample_weights=w, padding_idx=padding_idx,
                                               include_last_offset=include_last)
        expected = call(torch.from_numpy(indices),
                        None if weights is None else torch.from_numpy(weights))
        with ComputeCounter() as counter:
            got = call(as_interop(indices, backend),
                       None if weights is None else as_interop(weights, backend), device)
        assert counter.count == 0
        assert_like_torch(got, expected, backend)
    kernel = [torch.embedding_bag(weight.to(on), i, offsets.to(on), False,
                                  ["sum", "mean", "max"].index(mode), False, None, False, 0)
              for i, on in ((torch.from_numpy(indices), "cpu"),
                            (as_interop(indices, backend), device))]
    for got, expected in zip(kernel[1][1:], kernel[0][1:]):
        np.testing.assert_array_equal(to_numpy(got), expected.numpy())
