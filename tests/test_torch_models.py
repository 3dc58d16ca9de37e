"""Small end-to-end torch programs, written as for torch tensors, run unchanged on interop
tensors on NumPy and on Dask, against torch on the same input: a DataLoader loop over a
Dataset of interop tensors, torch.distributions, and small models whose weights come from a
torch state_dict (tests/test_torch_modules.py covers the modules one by one).

On Dask a forward builds a graph and computes nothing until the result is read (counted).
"""

from __future__ import annotations

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy, torch_device

torch = pytest.importorskip("torch")
pytest.importorskip("dask")
from torch import distributions as D  # noqa: E402
from torch import nn  # noqa: E402
from torch.utils.data import DataLoader, Dataset  # noqa: E402

from tests.helpers.dask_counting import ComputeCounter  # noqa: E402
from tests.test_torch_modules import as_interop, assert_like_torch, from_checkpoint  # noqa: E402

RNG = np.random.default_rng(7)


def normal(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


# ---------------------------------------------------------------- DataLoader
class Pairs(Dataset):
    """(features, label, extras) items, each an interop tensor on ``backend``."""

    def __init__(self, features: np.ndarray, backend: str) -> None:
        self.features, self.backend = features, backend

    def __len__(self) -> int:
        return len(self.features)

    def __getitem__(self, i: int):
        x = interop.tensor(self.features[i], backend=self.backend)
        return x, i % 3, {"norm": (x * x).sum()}


def test_dataloader_batches_interop_tensors(backend):
    """torch's default collation stacks interop tensors (nested in tuples and dicts) into
    batches on their backend; a model consumes them as a training loop would."""
    features = normal(10, 4)
    model = from_checkpoint(lambda: nn.Linear(4, 3))
    with torch.no_grad():
        expected = model(torch.from_numpy(features))
    model.to(torch_device(backend))
    loader = DataLoader(Pairs(features, backend), batch_size=4, shuffle=False)
    outputs, labels = [], []
    with torch.no_grad(), ComputeCounter() as counter:
        for x, y, extras in loader:
            assert isinstance(x, interop.Tensor) and x.backend == backend
            assert isinstance(extras["norm"], interop.Tensor) and extras["norm"].shape == (len(y),)
            assert isinstance(y, torch.Tensor) and y.dtype == torch.int64  # ints: torch's own
            outputs.append(model(x))
            labels.append(y)
    assert counter.count == 0
    assert [tuple(o.shape) for o in outputs] == [(4, 3), (4, 3), (2, 3)]
    assert_like_torch(interop.cat(outputs), expected, backend)
    np.testing.assert_array_equal(torch.cat(labels).numpy(), np.arange(10) % 3)


def test_dataloader_with_worker_process():
    """Batches collated in a worker process come back as interop tensors (pickled)."""
    features = normal(6, 2)
    loader = DataLoader(Pairs(features, "numpy"), batch_size=3, num_workers=1)
    batches = [x for x, _, _ in loader]
    assert all(isinstance(b, interop.Tensor) for b in batches)
    np.testing.assert_array_equal(to_numpy(interop.cat(batches)), features)


def test_collation_is_registered_lazily():
    """``import interop`` imports no torch; the collation entry appears with torch's module."""
    import subprocess
    import sys
    code = ("import sys, interop; assert 'torch' not in sys.modules; "
            "from torch.utils.data._utils.collate import default_collate_fn_map as m; "
            "assert interop.Tensor in m")
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------- torch.distributions
LOC, SCALE = normal(3, 2), np.abs(normal(3, 2)) + 0.5
TRIL = np.tril(normal(3, 2, 2)) + 2 * np.eye(2, dtype=np.float32)
LOGITS = np.log(np.array([0.2, 0.5, 0.3], np.float32))


def make_distribution(name, t):
    """Built from ``t``(array): torch tensors or interop tensors; argument validation off:
    torch's ``_validate_sample`` requires ``isinstance(value, torch.Tensor)``, which no
    other class can satisfy."""
    kw = {"validate_args": False}
    components = {
        "Normal": lambda: D.Normal(t(LOC), t(SCALE), **kw),
        "Categorical": lambda: D.Categorical(logits=t(LOGITS), **kw),
        "MultivariateNormal": lambda: D.MultivariateNormal(t(LOC), scale_tril=t(TRIL), **kw),
        "MultivariateNormal_covariance": lambda: D.MultivariateNormal(
            t(LOC), covariance_matrix=t(TRIL @ np.swapaxes(TRIL, -1, -2)), **kw),
        "Mixture_of_Normals": lambda: D.MixtureSameFamily(
            D.Categorical(logits=t(LOGITS), **kw), D.Independent(D.Normal(t(LOC), t(SCALE), **kw), 1),
            **kw),
        "Mixture_of_MultivariateNormals": lambda: D.MixtureSameFamily(
            D.Categorical(logits=t(LOGITS), **kw),
            D.MultivariateNormal(t(LOC), scale_tril=t(TRIL), **kw), **kw)}
    return components[name]()


VALUES = {"Normal": normal(4, 3, 2), "Categorical": np.array([0, 2, 1, 1]),
          "MultivariateNormal": normal(4, 3, 2), "MultivariateNormal_covariance": normal(4, 3, 2),
          "Mixture_of_Normals": normal(4, 2), "Mixture_of_MultivariateNormals": normal(4, 2)}
NO_ENTROPY = ("Mixture_of_Normals", "Mixture_of_MultivariateNormals")  # torch has none either
FINFO = "Categorical"
"""Categorical.entropy (and Categorical(probs=...)) call torch.finfo(t.dtype), which does not
dispatch and accepts torch.dtype objects only (interop/dtypes.py DType): it raises TypeError."""


def torch_array(a):
    return torch.from_numpy(np.asarray(a))


@pytest.mark.parametrize("name", list(VALUES))
def test_distribution_matches_torch(name, backend):
    """log_prob and entropy equal torch's; sample has torch's shape, lands on the backend and
    repeats under torch.manual_seed."""
    expected = make_distribution(name, torch_array)
    value = VALUES[name]
    # MultivariateNormal draws with torch.randn on its loc's device, which torch lacks for gpulike
    draws = backend != "gpulike" or "MultivariateNormal" not in name
    with ComputeCounter() as counter:
        got = make_distribution(name, lambda a: interop.tensor(np.asarray(a), backend=backend))
        log_prob = got.log_prob(interop.tensor(value, backend=backend))
        entropy = None if name in NO_ENTROPY + (FINFO,) else got.entropy()
        if draws:
            torch.manual_seed(0)
            sample = got.sample((5,))
            torch.manual_seed(0)
            again = got.sample((5,))
    assert counter.count == 0
    assert_like_torch(log_prob, expected.log_prob(torch_array(value)), backend)
    if entropy is not None:
        assert_like_torch(entropy, expected.entropy(), backend)
    if name == FINFO:
        with pytest.raises(TypeError, match="finfo"):
            got.entropy()
    if not draws:
        return
    reference = expected.sample((5,))
    assert isinstance(sample, interop.Tensor) and sample.backend == backend
    assert tuple(sample.shape) == tuple(reference.shape)
    assert to_numpy(sample).dtype == reference.numpy().dtype
    np.testing.assert_array_equal(to_numpy(sample), to_numpy(again))


def test_samples_follow_the_distribution(backend):
    """Many draws: moments of Normal, frequencies of Categorical, torch.Generator seeding."""
    torch.manual_seed(1)
    t = lambda a: interop.tensor(np.asarray(a), backend=backend)  # noqa: E731
    draws = to_numpy(D.Normal(t(LOC), t(SCALE), validate_args=False).sample((4000,)))
    np.testing.assert_allclose(draws.mean(0), LOC, atol=0.1)
    np.testing.assert_allclose(draws.std(0), SCALE, rtol=0.1)
    counts = np.bincount(to_numpy(D.Categorical(logits=t(LOGITS)).sample((6000,))), minlength=3)
    np.testing.assert_allclose(counts / 6000, np.exp(LOGITS), atol=0.03)
    g1, g2 = torch.Generator().manual_seed(5), torch.Generator().manual_seed(5)
    a, b = torch.multinomial(t(np.exp(LOGITS)), 9, True, generator=g1), \
        torch.multinomial(t(np.exp(LOGITS)), 9, True, generator=g2)
    np.testing.assert_array_equal(to_numpy(a), to_numpy(b))
    assert sorted(to_numpy(torch.multinomial(t(np.exp(LOGITS)), 3))) == [0, 1, 2]  # no repeats


def test_sampling_refuses_like_torch(backend):
    t = lambda a: interop.tensor(np.asarray(a), backend=backend)  # noqa: E731
    for call in (lambda f: torch.multinomial(f(np.ones((2, 2, 2), np.float32)), 1),
                 lambda f: torch.multinomial(f(np.ones(3, np.int64)), 1),
                 lambda f: torch.multinomial(f(np.ones(3, np.float32)), 4),
                 lambda f: torch.normal(f(np.zeros(3, np.int64)), 1.0)):
        with pytest.raises(RuntimeError):
            call(torch_array)
        with pytest.raises(RuntimeError):
            call(t)
    if backend == "numpy":  # value checks: Dask would compute to make them
        with pytest.raises(RuntimeError, match="std >= 0"):
            torch.normal(t(np.zeros(3, np.float32)), t(-np.ones(3, np.float32)))
        with pytest.raises(RuntimeError, match="element < 0"):
            torch.multinomial(t(-np.ones(3, np.float32)), 1)


# ---------------------------------------------------------------- models
class BasicBlock(nn.Module):
    """ResNet's basic block: two 3x3 convolutions with BatchNorm, and a projected shortcut."""

    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return torch.relu(out + self.shortcut(x))


class SmallResNet(nn.Module):
    def __init__(self, classes: int = 5) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8),
                                  nn.ReLU(inplace=True))
        self.layers = nn.Sequential(BasicBlock(8, 8, 1), BasicBlock(8, 16, 2))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, classes)

    def forward(self, x):
        x = self.pool(self.layers(self.stem(x)))
        return self.fc(torch.flatten(x, 1))


class TextClassifier(nn.Module):
    """Token ids -> embedding + learned positions -> TransformerEncoder -> masked mean -> logits."""

    def __init__(self, vocab: int = 20, d_model: int = 16, classes: int = 3) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model, padding_idx=0)
        self.position = nn.Parameter(torch.randn(1, 12, d_model) * 0.1)
        layer = nn.TransformerEncoderLayer(d_model, 4, 32, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.head = nn.Linear(d_model, classes)

    def forward(self, tokens):
        padding = tokens == 0
        x = self.embed(tokens) + self.position[:, :tokens.shape[1]]
        x = self.encoder(x, src_key_padding_mask=padding)
        keep = (~padding).unsqueeze(-1).to(x.dtype)
        pooled = (x * keep).sum(1) / keep.sum(1).clamp(min=1)
        return self.head(pooled)


class LSTMTagger(nn.Module):
    """The PyTorch tutorial's sequence tagger, bidirectional: word ids -> tag log-probabilities."""

    def __init__(self, vocab: int = 20, embedding: int = 8, hidden: int = 6, tags: int = 4) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, embedding)
        self.lstm = nn.LSTM(embedding, hidden, batch_first=True, bidirectional=True)
        self.tag = nn.Linear(2 * hidden, tags)

    def forward(self, sentences):
        out, _ = self.lstm(self.embed(sentences))
        return nn.functional.log_softmax(self.tag(out), dim=-1)


def token_ids(batch: int, length: int, pad_from: list[int]) -> np.ndarray:
    ids = RNG.integers(1, 20, (batch, length))
    for row, start in enumerate(pad_from):
        ids[row, start:] = 0
    return ids


MODELS = {"resnet": (SmallResNet, lambda: normal(4, 3, 8, 8)),
          "transformer_classifier": (TextClassifier, lambda: token_ids(4, 7, [7, 4, 6, 2])),
          "lstm_tagger": (LSTMTagger, lambda: RNG.integers(0, 20, (4, 9)))}


def trained(make):
    """The model from a checkpoint, with BatchNorm statistics that are not the defaults."""
    model = from_checkpoint(make)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
    return model


@pytest.mark.parametrize("name", list(MODELS))
def test_model_matches_torch(name, backend):
    make, data = MODELS[name]
    model = trained(make)
    x = data()
    with torch.no_grad():
        expected = model(torch.from_numpy(x))
        model.to(torch_device(backend))
        with ComputeCounter() as counter:
            got = model(as_interop(x, backend))
    assert counter.count == 0, f"{name} computed {counter.count} Dask graph(s) before the read"
    assert_like_torch(got, expected, backend)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_bernoulli_draws_zeros_and_ones_with_the_given_probability(backend):
    p = interop.tensor(np.full((400, 50), 0.3, np.float32), backend=backend)
    torch.manual_seed(0)
    first = torch.bernoulli(p)
    torch.manual_seed(0)
    again = torch.bernoulli(p)
    draws = to_numpy(first)
    assert draws.dtype == np.float32 and set(np.unique(draws)) <= {0.0, 1.0}
    assert abs(draws.mean() - 0.3) < 0.02
    np.testing.assert_array_equal(draws, to_numpy(again))  # torch.manual_seed repeats it
    assert to_numpy(p.bernoulli(0.0)).sum() == 0 and to_numpy(torch.bernoulli(p, 1.0)).all()
    with pytest.raises(RuntimeError, match="p_in >= 0"):
        torch.bernoulli(interop.tensor(np.array([1.5], np.float32)))
