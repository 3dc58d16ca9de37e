"""What torch's libraries do with ``as_torch()`` tensors once the first forward pass works
(issue 32): checkpoints, fused attention, ``torch.unique``, spectrograms and masking on Dask,
aliasing checks by ``data_ptr()``, ``torch.compile``.  Each is compared with torch on its own
tensors; torchvision's and torchaudio's calls, which CI lacks, are reproduced with torch alone.
"""

from __future__ import annotations

import contextlib
import copy
import io

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy

torch = pytest.importorskip("torch")
pytest.importorskip("dask")
counting = pytest.importorskip("tests.helpers.dask_counting")

BACKENDS = ("numpy", "dask")


def face(x: np.ndarray, backend: str, **kwargs):
    chunks = {"chunks": tuple(max(1, (n + 1) // 2) for n in x.shape)} if backend == "dask" \
        else {}
    return interop.tensor(x, backend=backend, **chunks).as_torch(**kwargs)


def check(got, expected, backend: str, tol: float = 1e-6) -> None:
    """``got`` is a TorchTensor on ``backend`` with torch's dtype, shape and values."""
    assert isinstance(got, interop.TorchTensor) and got.backend == backend, type(got)
    assert got.dtype == expected.dtype and got.shape == expected.shape, (got, expected)
    np.testing.assert_allclose(to_numpy(got.as_interop()), expected.detach().numpy(),
                               rtol=tol, atol=tol)


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3)).double()


# ------------------------------------------------------------------ 1. checkpoints
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_checkpoint_loads_with_weights_only_and_holds_the_values(backend):
    reference = _model()
    model = interop.to_backend(copy.deepcopy(reference), backend)
    state = model.state_dict()
    buffer = io.BytesIO()
    with counting.ComputeCounter() as counter:
        torch.save(state, buffer)
    assert counter.count == (1 if backend == "dask" else 0)  # the whole state dict at once
    buffer.seek(0)
    loaded = torch.load(buffer)  # weights_only=True, torch's default
    assert loaded.keys() == reference.state_dict().keys()
    for name, expected in reference.state_dict().items():
        assert type(loaded[name]) is torch.Tensor and torch.equal(loaded[name], expected), name
    # face tensors again: load into a model already on the backend
    again = interop.to_backend(_model().apply(_scrambled), backend)
    again.load_state_dict(loaded)
    x = np.linspace(-1, 1, 8).reshape(2, 4)
    check(again.eval()(face(x, backend)), reference.eval()(torch.from_numpy(x)), backend)
    assert again[0].weight.backend == backend


class Tied(torch.nn.Module):
    """An encoder and a decoder sharing one weight, as language models tie embeddings."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.encoder = torch.nn.Linear(4, 4, bias=False)
        self.decoder = torch.nn.Linear(4, 4)
        self.decoder.weight = self.encoder.weight


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_tied_weight_is_stored_once_and_loads_tied(backend):
    """As torch's own checkpoint of the same model: one storage for the two names (the file
    as large as torch's), the loaded names one tensor, and one compute on Dask."""
    reference = Tied()
    model = interop.to_backend(Tied(), backend)
    assert model.encoder.weight is model.decoder.weight
    ours, theirs = io.BytesIO(), io.BytesIO()
    with counting.ComputeCounter() as counter:
        torch.save(model.state_dict(), ours)
    torch.save(reference.state_dict(), theirs)
    assert counter.count == (1 if backend == "dask" else 0)
    assert abs(len(ours.getvalue()) - len(theirs.getvalue())) < 256  # (names of the storages)
    ours.seek(0)
    loaded = torch.load(ours)
    assert loaded["encoder.weight"].untyped_storage().data_ptr() == \
        loaded["decoder.weight"].untyped_storage().data_ptr()
    for name, expected in reference.state_dict().items():
        assert torch.equal(loaded[name], expected), name


def test_each_save_reads_the_values_of_its_moment():
    """Two saves of one array written between them: each holds the values of its moment
    (nothing of one save is reused by the next)."""
    model = interop.to_backend(_model(), "numpy")
    first, second = io.BytesIO(), io.BytesIO()
    torch.save(model.state_dict(), first)
    with torch.no_grad():
        model[0].weight.add_(1.0)
    torch.save(model.state_dict(), second)
    first.seek(0)
    second.seek(0)
    a, b = torch.load(first)["0.weight"], torch.load(second)["0.weight"]
    assert torch.equal(b, a + 1)


def test_the_names_read_in_torch_save_are_there():
    """checkpoints.py reads torch.serialization._save's locals ``obj`` and ``pickler``: a
    torch that renames them loses the one compute and the tied storage (values stay right),
    so this test says so first."""
    code = torch.serialization._save.__code__
    from interop.surfaces.torch_face import checkpoints
    assert {checkpoints._SAVED_OBJECT, checkpoints._PICKLER} <= set(code.co_varnames)


def _scrambled(module) -> None:
    for p in module.parameters(recurse=False):
        torch.nn.init.normal_(p)


def test_a_parameter_saves_as_a_parameter_and_pickle_keeps_the_backend():
    model = interop.to_backend(_model(), "dask")
    buffer = io.BytesIO()
    torch.save(model[0].weight, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer)
    assert type(loaded) is torch.nn.Parameter and loaded.requires_grad
    np.testing.assert_array_equal(loaded.detach().numpy(), to_numpy(model[0].weight.as_interop()))
    import pickle
    assert pickle.loads(pickle.dumps(model[0].weight)).backend == "dask"  # a graph still


VIEWS_AND_DTYPES = {
    "transposed": lambda x: x.t(), "reversed": lambda x: x.flip(0),
    "strided": lambda x: x[:, ::2], "0-d": lambda x: x.sum(), "bool": lambda x: x > 3,
    "float32": lambda x: x.float(), "complex64": lambda x: x.to(torch.complex64),
    "bfloat16": lambda x: x.to(torch.bfloat16),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("make", VIEWS_AND_DTYPES.values(), ids=VIEWS_AND_DTYPES.keys())
def test_a_checkpoint_holds_views_and_any_dtype(backend, make):
    if make is VIEWS_AND_DTYPES["bfloat16"]:
        pytest.importorskip("ml_dtypes")
    values = np.arange(12.0).reshape(3, 4)
    buffer = io.BytesIO()
    torch.save({"v": make(face(values, backend))}, buffer)
    buffer.seek(0)
    loaded, expected = torch.load(buffer)["v"], make(torch.from_numpy(values))
    assert type(loaded) is torch.Tensor and torch.equal(loaded, expected)


def test_saving_a_dask_checkpoint_follows_the_compute_policy():
    model = interop.to_backend(_model(), "dask")
    with interop.config(dask_compute="raise"), pytest.raises(interop.DaskComputeError,
                                                             match="torch.save"):
        torch.save(model.state_dict(), io.BytesIO())


# ------------------------------------------------------------------ 3. torch.unique
UNIQUE_CALLS = {
    "plain": lambda x: torch.unique(x),
    "inverse and counts": lambda x: torch.unique(x, return_inverse=True, return_counts=True),
    "unsorted": lambda x: torch.unique(x, sorted=False, return_counts=True),
    "dim": lambda x: torch.unique(x.reshape(2, 4), dim=1, return_inverse=True),
    "consecutive": lambda x: torch.unique_consecutive(x, return_counts=True),
    "method": lambda x: x.unique(return_inverse=True),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("call", UNIQUE_CALLS.values(), ids=UNIQUE_CALLS.keys())
def test_unique_as_torch_gives_it(backend, call):
    values = np.array([3, 1, 2, 3, 1, 5, 5, 0])
    if backend == "dask" and call is UNIQUE_CALLS["dim"]:  # as on the plain facade
        with pytest.raises(interop.errors.BackendLacksError, match="unique"):
            call(face(values, backend))
        return
    got, expected = call(face(values, backend)), call(torch.from_numpy(values))
    for g, e in zip(*(r if isinstance(r, tuple) else (r,) for r in (got, expected)),
                    strict=True):
        check(g, e, backend)


def test_binary_auroc_as_torchmetrics_computes_it():
    """torchmetrics' ``binary_auroc`` (not in CI): thresholds from ``torch.unique``, rates
    from masking and ``cumsum``, the area by ``torch.trapz``."""
    def auroc(preds, target):
        thresholds = torch.unique(preds).flip(0)
        tps = ((preds[None] >= thresholds[:, None]) & (target[None] == 1)).sum(1)
        fps = ((preds[None] >= thresholds[:, None]) & (target[None] == 0)).sum(1)
        tpr = torch.cat([tps.new_zeros(1), tps]) / (target == 1).sum()
        fpr = torch.cat([fps.new_zeros(1), fps]) / (target == 0).sum()
        return torch.trapz(tpr, fpr)
    preds, target = np.array([0.1, 0.4, 0.35, 0.8, 0.7, 0.2]), np.array([0, 0, 1, 1, 1, 0])
    expected = auroc(torch.from_numpy(preds), torch.from_numpy(target))
    for backend in BACKENDS:
        check(auroc(face(preds, backend), face(target, backend)), expected, backend)


# ------------------------------------------------------------------ 5. masking on Dask
MASKING = {
    "x[x > 0.5]": lambda x: x[x > 0.5],
    "torch.nonzero": lambda x: torch.nonzero(x > 0.5),
    "masked_select": lambda x: torch.masked_select(x, x < 0.3),
    "unique": lambda x: torch.unique((x * 4).round()),
}


@pytest.mark.parametrize("call", MASKING.values(), ids=MASKING.keys())
def test_masking_on_dask_learns_the_sizes_in_one_compute(call):
    values = np.linspace(0, 1, 12).reshape(3, 4)
    x = face(values, "dask")
    with counting.ComputeCounter() as counter:
        got = call(x)
    assert counter.count == 1  # the sizes, as dask's compute_chunk_sizes() learns them
    check(got, call(torch.from_numpy(values)), "dask")
    with interop.config(dask_compute="raise"), pytest.raises(interop.UnknownShapeError,
                                                             match="compute_chunk_sizes"):
        call(x)


def test_pearson_corrcoef_as_torchmetrics_computes_it_on_dask():
    """torchmetrics' ``pearson_corrcoef`` (not in CI) drops NaN pairs by masking."""
    def pearson(preds, target):
        keep = ~(preds.isnan() | target.isnan())
        p, t = preds[keep], target[keep]
        p, t = p - p.mean(), t - t.mean()
        return (p * t).sum() / (p.norm() * t.norm())
    preds = np.array([0.1, np.nan, 0.4, 0.9, 0.3, 0.7])
    target = np.array([0.2, 0.5, 0.3, 1.0, np.nan, 0.6])
    check(pearson(face(preds, "dask"), face(target, "dask")),
          pearson(torch.from_numpy(preds), torch.from_numpy(target)), "dask")


# ------------------------------------------------------------------ 2. fused attention
def _on(x: torch.Tensor, backend: str):
    return face(x.numpy(), backend) if isinstance(x, torch.Tensor) else x


class _OperationLog(torch.utils._python_dispatch.TorchDispatchMode):
    """The ATen operations a block reaches (then run as they would be)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.seen.add(func)
        return func(*args, **(kwargs or {}))


ATTENTION_MASKS = {
    "none": {},
    "no weights": {"need_weights": False},
    "key padding": {"key_padding_mask": torch.tensor([[False, False, True],
                                                      [False, True, True]])},
    "causal, per head": {"attn_mask": torch.ones(3, 3, dtype=torch.bool).triu(1),
                         "average_attn_weights": False},
    "both": {"attn_mask": torch.ones(3, 3, dtype=torch.bool).triu(1),
             "key_padding_mask": torch.tensor([[False, False, True], [False, False, False]])},
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("masks", ATTENTION_MASKS.values(), ids=ATTENTION_MASKS.keys())
def test_multihead_attention_in_eval_mode_runs_the_fused_kernel(backend, masks):
    """nn.MultiheadAttention's eval fast path (torchvision's VisionTransformer's blocks)."""
    torch.manual_seed(0)
    reference = torch.nn.MultiheadAttention(8, 2, batch_first=True).double().eval()
    model = interop.to_backend(copy.deepcopy(reference), backend)
    x = torch.randn(2, 3, 8, dtype=torch.float64)
    fx = _on(x, backend)
    with torch.no_grad():
        expected = reference(x, x, x, **masks)
        with _OperationLog() as log:
            got = model(fx, fx, fx, **{k: _on(v, backend) for k, v in masks.items()})
    assert torch.ops.aten._native_multi_head_attention.default in log.seen
    check(got[0], expected[0], backend, 1e-10)
    if expected[1] is None:
        assert got[1] is None
    else:
        check(got[1], expected[1], backend, 1e-10)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("backend", BACKENDS)
def test_transformer_encoder_layer_in_eval_mode(backend, norm_first):
    torch.manual_seed(0)
    reference = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True,
                                                 norm_first=norm_first, activation="gelu")
    reference = reference.double().eval()
    model = interop.to_backend(copy.deepcopy(reference), backend)
    x = torch.randn(2, 3, 8, dtype=torch.float64)
    padding = torch.tensor([[False, False, True], [False, False, False]])
    with torch.no_grad():
        check(model(_on(x, backend), src_key_padding_mask=_on(padding, backend)),
              reference(x, src_key_padding_mask=padding), backend, 1e-10)


# ------------------------------------------------------------------ 6. data_ptr
def _aliasing(x) -> np.ndarray:
    """Which of a family of tensors made from ``x`` have equal ``data_ptr()``s."""
    family = [x, x.clone(), x[0], x[1], x.view(-1), x.detach(), x.t(), x[:, 1], x + 0]
    return np.array([[p.data_ptr() == q.data_ptr() for q in family] for p in family])


def test_data_ptr_tells_aliasing_as_torch_does():
    values = np.arange(6.0).reshape(2, 3)
    expected = _aliasing(torch.from_numpy(values.copy()))
    assert not expected.all()  # torch's own answer: views of the same start only
    np.testing.assert_array_equal(_aliasing(face(values, "numpy")), expected)
    x = face(values, "numpy")
    assert x.data_ptr() == x.as_interop().raw.ctypes.data


def test_data_ptr_of_lazy_tensors_is_distinct_for_distinct_tensors():
    """A Dask tensor has no memory: faces over one interop tensor agree (detach, alias), other
    tensors differ (views too: where they start is not known), in-place writes keep it."""
    x = face(np.arange(6.0).reshape(2, 3), "dask")
    got = _aliasing(x)
    np.testing.assert_array_equal(got, np.eye(len(got), dtype=bool) | _detached_pairs(len(got)))
    before = x.data_ptr()
    x.add_(1)
    assert x.data_ptr() == before != 0


def _detached_pairs(n: int) -> np.ndarray:
    pairs = np.zeros((n, n), dtype=bool)
    pairs[0, 5] = pairs[5, 0] = True  # x and x.detach()
    return pairs


# ------------------------------------------------------------------ 4. spectrograms on Dask
def _mel_spectrogram(wave, window, filterbank):
    """torchaudio's ``MelSpectrogram`` (not in CI), as it calls torch: a power spectrogram from
    ``torch.stft`` (reflect-padded frames), then the mel filter bank, then the log (``MFCC``'s
    first steps)."""
    spec = torch.stft(wave, 64, hop_length=16, window=window, center=True, pad_mode="reflect",
                      normalized=False, onesided=True, return_complex=True).abs().pow(2.0)
    return torch.log(torch.matmul(spec.transpose(-1, -2), filterbank).transpose(-1, -2) + 1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_stft_and_a_mel_spectrogram_on_the_backend(backend):
    wave = (np.sin(np.linspace(0, 60, 600)) + np.linspace(0, 1, 600)).reshape(2, 300)
    window, filterbank = torch.hann_window(64, dtype=torch.float64), torch.rand(33, 8).double()
    expected = _mel_spectrogram(torch.from_numpy(wave), window, filterbank)
    with counting.lazily() if backend == "dask" else contextlib.nullcontext():
        got = _mel_spectrogram(face(wave, backend), _on(window, backend), _on(filterbank, backend))
    check(got, expected, backend, 1e-9)


@pytest.mark.parametrize(("size", "stride", "offset"), [
    ((2, 3, 2, 4), (30, 10, 4, 1), 0),  # windows along the last axis: unfold
    ((2, 3, 2, 3), (30, 10, 4, 1), 0),  # fewer windows than fit, gaps between them
    ((2, 3, 4), (30, 10, 2), 0),  # any other view: gathered
    ((5,), (7,), 1),
])
def test_as_strided_on_dask(size, stride, offset):
    values = np.arange(60.0).reshape(2, 3, 10)
    expected = torch.as_strided(torch.from_numpy(values), size, stride, offset)
    with counting.lazily():
        got = torch.as_strided(face(values, "dask"), size, stride, offset)
    check(got, expected, "dask")
    reference, x = torch.from_numpy(values.copy()), face(values, "dask")
    torch.as_strided(reference, size, stride, offset).mul_(-1)
    with counting.lazily():  # the write is replayed into the tensor, lazily
        torch.as_strided(x, size, stride, offset).mul_(-1)
    check(x, reference, "dask")
    with pytest.raises(RuntimeError, match="as_strided"):
        torch.as_strided(face(values, "dask"), (4, 4), (20, 1), 0)  # past the end


def test_stft_gradients_on_dask():
    wave = np.cos(np.linspace(0, 30, 256))
    x = face(wave, "dask", requires_grad=True)
    torch.stft(x, 32, hop_length=8, window=_on(torch.hann_window(32).double(), "dask"),
               return_complex=True).abs().sum().backward()
    reference = torch.from_numpy(wave.copy()).requires_grad_()
    torch.stft(reference, 32, hop_length=8, window=torch.hann_window(32).double(),
               return_complex=True).abs().sum().backward()
    check(x.grad, reference.grad, "dask", 1e-9)


# ------------------------------------------------------------------ 7. torch.compile
def _clamped_index(x):
    """torchvision's ``roi_align`` Python path (``torch.compile(dynamic=True)``, not in CI):
    an index clamped against a size read from the tensor."""
    height = x.size(-1)
    low = x.clamp(min=0).int()
    return torch.where(low >= height - 1, height - 1, low + 1)


@pytest.fixture
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.mark.usefixtures("fresh_dynamo")
@pytest.mark.parametrize("backend", BACKENDS)
def test_torch_compile_runs_the_face_operations_eagerly(backend):
    """Dynamo breaks the graph at each TorchTensor operation and runs it; interop's dispatch
    is run, never traced (tracing it failed inside Dynamo)."""
    values = np.linspace(-1, 6, 12).reshape(2, 6)
    got = torch.compile(_clamped_index, dynamic=False)(face(values, backend))
    check(got, _clamped_index(torch.from_numpy(values)), backend)


@pytest.mark.usefixtures("fresh_dynamo")
def test_dynamic_compile_runs_under_the_eager_stance():
    """With ``dynamic=True`` Dynamo compares a TorchTensor with a symbolic size by
    ``op(object(), None)`` (torch/_dynamo/variables/builtin.py), a TypeError for ``>=``:
    ``torch.compiler.set_stance("force_eager")`` runs the compiled function as written."""
    values = np.linspace(-1, 6, 12).reshape(2, 6)
    compiled = torch.compile(_clamped_index, dynamic=True)
    try:
        got = compiled(face(values, "numpy"))
    except torch._dynamo.exc.InternalTorchDynamoError as exc:  # torch 2.13's Dynamo
        assert "not supported between instances of 'object' and 'NoneType'" in str(exc)
    else:
        check(got, _clamped_index(torch.from_numpy(values)), "numpy")
    with torch.compiler.set_stance("force_eager"):
        got = compiled(face(values, "numpy"))
    check(got, _clamped_index(torch.from_numpy(values)), "numpy")


def test_checkpoint_edges_empty_0d_raise_and_threads():
    """Empty and 0-d tensors in one save with Dask ones; under dask_compute='raise' the save
    refuses by name, computing nothing; saves in two threads at once each hold their own
    values (one table per save, not per process)."""
    from concurrent.futures import ThreadPoolExecutor

    from interop.errors import DaskComputeError
    state = {"empty": face(np.zeros((0, 3)), "dask"), "scalar": face(np.array(4.5), "dask"),
             "host": face(np.arange(3.0), "numpy"), "lazy": face(np.arange(6.0), "dask") * 2}
    buffer = io.BytesIO()
    with counting.ComputeCounter() as counter:
        torch.save(state, buffer)
    assert counter.count == 1
    buffer.seek(0)
    loaded = torch.load(buffer)
    for name, value in state.items():
        np.testing.assert_array_equal(loaded[name].numpy(), to_numpy(value.as_interop()))
    with interop.config(dask_compute="raise"), counting.ComputeCounter() as counter, \
            pytest.raises(DaskComputeError, match="torch.save"):
        torch.save(state, io.BytesIO())
    assert counter.count == 0

    def save(k: int) -> float:
        out = io.BytesIO()
        torch.save({"w": face(np.full(4, float(k)), "dask") + 0}, out)
        out.seek(0)
        return float(torch.load(out)["w"].sum())
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(save, range(8))) == [4.0 * k for k in range(8)]


def test_to_backend_keeps_a_non_persistent_buffer_out_of_the_state_dict():
    model = torch.nn.BatchNorm1d(2)
    model.register_buffer("scratch", torch.ones(2), persistent=False)
    expected = sorted(model.state_dict())
    interop.to_backend(model, "numpy")
    assert sorted(model.state_dict()) == expected
    assert isinstance(model.scratch, interop.TorchTensor) and model.scratch.backend == "numpy"
