"""torch.stft / torch.istft, F.grid_sample / F.affine_grid and F.ctc_loss on interop tensors
against torch: values, dtype, shape and torch's refusals, on NumPy and (lazily) on Dask."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import interop
from tests.conftest import to_numpy

torch = pytest.importorskip("torch")
F = torch.nn.functional
RNG = np.random.default_rng(0)


def _on(x, backend: str):
    """numpy arrays as interop tensors (Dask: two chunks along the first and last axes)."""
    if isinstance(x, np.ndarray):
        if backend == "dask":
            chunks = tuple(max(1, (n + 1) // 2) if i in (0, x.ndim - 1) else -1
                           for i, n in enumerate(x.shape))
            return interop.tensor(x, backend="dask", chunks=chunks)
        return interop.tensor(x, backend=backend)
    if isinstance(x, (list, tuple)) and x and isinstance(x[0], np.ndarray):
        return type(x)(_on(v, backend) for v in x)
    return x


def _torch(x):
    return torch.from_numpy(x.copy()) if isinstance(x, np.ndarray) else x


def same_as_torch(fn, args, kwargs, backend, tol=1e-4, lazy=True):
    """``fn`` on interop tensors gives torch's result, or raises where torch raises; on Dask
    the result is built without computing anything (``dask_compute='raise'``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = fn(*map(_torch, args), **{k: _torch(v) for k, v in kwargs.items()})
        except Exception as exc:  # noqa: BLE001 - torch refusing is an outcome to match
            want = exc
        iargs, ikw = [_on(a, backend) for a in args], {k: _on(v, backend) for k, v in kwargs.items()}
        if isinstance(want, Exception):
            with pytest.raises(type(want)):
                to_numpy(fn(*iargs, **ikw))
            return
        with interop.config(dask_compute="raise" if lazy else "allow"):
            got = fn(*iargs, **ikw)
    assert isinstance(got, interop.Tensor) and got.backend == backend
    res, exp = to_numpy(got), want.numpy()
    assert res.dtype == exp.dtype and res.shape == exp.shape, (res.dtype, res.shape, exp.dtype,
                                                               exp.shape)
    np.testing.assert_allclose(res, exp, rtol=tol, atol=tol, equal_nan=True)


# ------------------------------------------------------------------ stft / istft
SIGNAL = RNG.standard_normal((3, 100)).astype(np.float32)
WINDOW16 = RNG.random(16).astype(np.float32)
WINDOW10 = RNG.random(10).astype(np.float32)

STFT_CASES = [
    ((SIGNAL[0], 10), dict(return_complex=True)),
    ((SIGNAL[0], 10), dict(return_complex=False)),
    ((SIGNAL[0, :10], 7), dict(center=False, return_complex=True)),
    ((SIGNAL, 16), dict(hop_length=4, return_complex=True)),
    ((SIGNAL, 16), dict(window=WINDOW16, onesided=False, return_complex=True)),
    ((SIGNAL, 16), dict(window=WINDOW10, win_length=10, normalized=True, return_complex=True)),
    ((SIGNAL, 16), dict(window=WINDOW10, win_length=10, hop_length=3, center=False,
                        align_to_window=True, return_complex=True)),
    ((SIGNAL, 16), dict(window=WINDOW16.astype(np.float64), return_complex=True)),
    ((SIGNAL.astype(np.complex64), 16), {}),
    ((SIGNAL[0], 16), dict(pad_mode="constant", return_complex=True)),
    ((SIGNAL[0], 16), dict(pad_mode="circular", return_complex=True)),
    ((SIGNAL[0], 16), dict(pad_mode="replicate", return_complex=True)),
    ((SIGNAL[0], 16), dict(window=np.ones(16, np.complex64))),
    ((SIGNAL[0], 16), dict(window=np.ones(16, np.int64), return_complex=True)),
    # torch's refusals
    ((SIGNAL[0], 16), {}),  # return_complex is required for real input
    ((SIGNAL.astype(np.complex64), 16), dict(onesided=True)),
    ((SIGNAL[0], 16), dict(pad_mode="foo", return_complex=True)),
    ((SIGNAL[0, :5], 16), dict(return_complex=True)),
    ((SIGNAL[0], 160), dict(center=False, return_complex=True)),
    ((SIGNAL[0], 16), dict(hop_length=0, return_complex=True)),
    ((SIGNAL[0], 16), dict(win_length=17, return_complex=True)),
    ((SIGNAL[0], 16), dict(window=np.ones(15, np.float32), return_complex=True)),
    ((SIGNAL[0], 16), dict(align_to_window=True, return_complex=True)),
    ((np.arange(30), 16), dict(return_complex=True)),
    ((SIGNAL.reshape(3, 10, 10), 4), dict(return_complex=True)),
]


@pytest.mark.parametrize("args,kwargs", STFT_CASES, ids=[f"stft{i}" for i in range(len(STFT_CASES))])
def test_stft_matches_torch(args, kwargs, backend):
    same_as_torch(torch.stft, args, kwargs, backend)


SPECTRUM = torch.stft(torch.from_numpy(SIGNAL), 16, hop_length=4, window=torch.hann_window(16),
                      return_complex=True).numpy()
FULL = torch.stft(torch.from_numpy(SIGNAL), 16, hop_length=4, onesided=False,
                  return_complex=True).numpy()
HANN = torch.hann_window(16).numpy()

ISTFT_CASES = [
    ((SPECTRUM, 16), dict(hop_length=4)),
    ((SPECTRUM[0], 16), dict(hop_length=4, length=90)),
    ((SPECTRUM, 16), dict(hop_length=4, length=120)),
    ((SPECTRUM, 16), dict(hop_length=4, center=False)),
    ((SPECTRUM, 16), dict(hop_length=4, normalized=True, win_length=12)),
    ((FULL, 16), dict(hop_length=4, return_complex=True)),
    ((FULL, 16), dict(hop_length=4)),
    # torch's refusals
    ((SPECTRUM.real.copy(), 16), dict(hop_length=4)),
    ((FULL, 16), dict(hop_length=4, onesided=True)),
    ((SPECTRUM, 16), dict(hop_length=4, return_complex=True)),
    ((SPECTRUM, 16), dict(hop_length=17)),
    ((SPECTRUM, 16), dict(win_length=17)),
    ((SPECTRUM, 16), dict(hop_length=4, length=0)),
    ((SPECTRUM[None], 16), {}),
    ((SPECTRUM, 15), {}),
]


@pytest.mark.parametrize("args,kwargs", ISTFT_CASES,
                         ids=[f"istft{i}" for i in range(len(ISTFT_CASES))])
def test_istft_matches_torch(args, kwargs, backend):
    same_as_torch(torch.istft, args, kwargs, backend)


@pytest.mark.parametrize("window", [HANN, HANN.astype(np.float64), np.ones(16, np.int64),
                                    np.zeros(16, np.float32)], ids=str)
def test_istft_window_matches_torch(window, backend):
    """A window tensor's values are read for torch's overlap-add (NOLA) check: on Dask that
    read computes the window (16 numbers), under the dask_compute policy."""
    same_as_torch(torch.istft, (SPECTRUM, 16), dict(hop_length=4, window=window), backend,
                  lazy=False)


def test_stft_then_istft_round_trips(backend):
    x = _on(SIGNAL, backend)
    spec = torch.stft(x, 16, hop_length=4, return_complex=True)
    back = torch.istft(spec, 16, hop_length=4, length=100)
    np.testing.assert_allclose(to_numpy(back), SIGNAL, rtol=1e-5, atol=1e-5)
    assert to_numpy(x.stft(16, return_complex=True)).shape == (3, 9, 26)


# ------------------------------------------------------------------ grid_sample / affine_grid
MODES_2D = ["bilinear", "nearest", "bicubic"]
PADDINGS = ["zeros", "border", "reflection"]


@given(data=st.data(), d=st.sampled_from([2, 3]), padding_mode=st.sampled_from(PADDINGS),
       align_corners=st.booleans(), ties=st.booleans())
def test_grid_sample_matches_torch_on_random_grids(data, d, padding_mode, align_corners, ties):
    """Random sizes and grids (inside and outside [-1, 1]; ``ties``: multiples of 1/8, where
    nearest's rounding meets .5 exactly), every mode and padding, 4-d and 5-d."""
    mode = data.draw(st.sampled_from(MODES_2D if d == 2 else MODES_2D[:2]), label="mode")
    sizes = data.draw(st.tuples(*[st.integers(1, 5)] * d), label="input sizes")
    out = data.draw(st.tuples(*[st.integers(1, 4)] * d), label="grid sizes")
    seed = data.draw(st.integers(0, 2 ** 16), label="seed")
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 2, *sizes)).astype(np.float32)
    shape = (2, *out, d)
    grid = (rng.integers(-20, 21, shape) / 8 if ties else rng.uniform(-1.8, 1.8, shape))
    grid = grid.astype(np.float32)
    kwargs = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    want = F.grid_sample(torch.from_numpy(x), torch.from_numpy(grid), **kwargs).numpy()
    got = F.grid_sample(interop.tensor(x), interop.tensor(grid), **kwargs)
    np.testing.assert_allclose(to_numpy(got), want, rtol=1e-5, atol=1e-5)
    if mode == "nearest":  # exact: the same pixel is picked
        np.testing.assert_array_equal(to_numpy(got), want)


GRID_X = RNG.standard_normal((2, 3, 5, 6)).astype(np.float32)
GRID_G = RNG.uniform(-1.3, 1.3, (2, 4, 7, 2)).astype(np.float32)
GRID_X3 = RNG.standard_normal((2, 2, 3, 4, 5)).astype(np.float32)
GRID_G3 = RNG.uniform(-1.3, 1.3, (2, 3, 2, 4, 3)).astype(np.float32)
SPECIAL = np.array([[[[np.nan, 0.0], [0.2, np.inf], [1e10, -1e10], [-np.inf, 0.3]]]],
                   np.float32)
THETA = RNG.standard_normal((2, 2, 3)).astype(np.float32)
THETA3 = RNG.standard_normal((2, 3, 4)).astype(np.float32)

GRID_CASES = [
    (F.grid_sample, (GRID_X, GRID_G), dict(mode="bicubic", padding_mode="reflection",
                                           align_corners=True)),
    (F.grid_sample, (GRID_X3, GRID_G3), dict(mode="bilinear", padding_mode="border",
                                             align_corners=False)),
    (F.grid_sample, (GRID_X3, GRID_G3), dict(mode="nearest", padding_mode="reflection",
                                             align_corners=False)),
    (F.grid_sample, (GRID_X.astype(np.float64), GRID_G.astype(np.float64)), {}),
    (F.grid_sample, (GRID_X[:, :, :1], GRID_G), dict(align_corners=True,
                                                     padding_mode="reflection")),
    (F.grid_sample, (GRID_X[:0], GRID_G[:0]), {}),
    (F.grid_sample, (GRID_X, GRID_G[:, :0]), {}),
    (torch.grid_sampler, (GRID_X, GRID_G, 2, 1, False), {}),
    (torch.grid_sampler_2d, (GRID_X, GRID_G, 1, 2, True), {}),
    (torch.grid_sampler_3d, (GRID_X3, GRID_G3, 0, 0, True), {}),
    (F.affine_grid, (THETA, (2, 3, 5, 6)), dict(align_corners=False)),
    (F.affine_grid, (THETA, (2, 3, 1, 6)), dict(align_corners=True)),
    (F.affine_grid, (THETA3, (2, 3, 4, 1, 5)), dict(align_corners=False)),
    (F.affine_grid, (THETA.astype(np.float64), (2, 3, 5, 6)), dict(align_corners=True)),
    (torch.affine_grid_generator, (THETA, (2, 3, 5, 6), False), {}),
    # torch's refusals
    (F.grid_sample, (GRID_X, GRID_G), dict(mode="foo")),
    (F.grid_sample, (GRID_X, GRID_G), dict(padding_mode="foo")),
    (F.grid_sample, (GRID_X, GRID_G.astype(np.float64)), {}),
    (F.grid_sample, (GRID_X.astype(np.int64), GRID_G.astype(np.int64)), {}),
    (F.grid_sample, (GRID_X[:1], GRID_G), {}),
    (F.grid_sample, (GRID_X, GRID_G[..., :1]), {}),
    (F.grid_sample, (GRID_X[0], GRID_G[0]), {}),
    (F.grid_sample, (GRID_X[:, :, :0], GRID_G), {}),
    (F.grid_sample, (GRID_X3, GRID_G3), dict(mode="bicubic")),
    (torch.grid_sampler_2d, (GRID_X3, GRID_G3, 0, 0, False), {}),
    (torch.grid_sampler_3d, (GRID_X, GRID_G, 0, 0, False), {}),
    (F.affine_grid, (THETA, (2, 3, 0, 6)), dict(align_corners=False)),
    (F.affine_grid, (THETA, (3, 3, 5, 6)), dict(align_corners=False)),
    (F.affine_grid, (THETA.astype(np.int64), (2, 3, 5, 6)), dict(align_corners=False)),
    (F.affine_grid, (THETA, (2, 3, 5)), dict(align_corners=False)),
    (F.affine_grid, (THETA3, (2, 3, 5, 6)), dict(align_corners=False)),
]


@pytest.mark.parametrize("fn,args,kwargs", GRID_CASES, ids=[f"grid{i}" for i in range(len(GRID_CASES))])
def test_grid_functions_match_torch(fn, args, kwargs, backend):
    same_as_torch(fn, args, kwargs, backend, tol=1e-5)


@pytest.mark.parametrize("mode", MODES_2D)
@pytest.mark.parametrize("padding_mode", PADDINGS)
def test_grid_sample_non_finite_coordinates_as_torch(mode, padding_mode, backend):
    """nan and infinite coordinates give torch's CPU results (nan, 0 or an edge pixel)."""
    x = GRID_X[:1, :1, :3, :3].copy()
    same_as_torch(F.grid_sample, (x, SPECIAL), dict(mode=mode, padding_mode=padding_mode,
                                                    align_corners=False), backend)
    same_as_torch(F.grid_sample, (x[..., None], np.concatenate(
        [SPECIAL, np.full(SPECIAL.shape[:-1] + (1,), 0.1, np.float32)], -1)[..., None, :]),
        dict(mode="bilinear" if mode == "bicubic" else mode, padding_mode=padding_mode,
             align_corners=True), backend)


def test_grid_sample_of_an_affine_grid_is_a_spatial_transformer(backend):
    theta = np.array([[[0.8, -0.2, 0.1], [0.3, 0.9, -0.2]]] * 2, np.float32)
    grid = F.affine_grid(_on(theta, backend), (2, 3, 5, 6), align_corners=False)
    got = F.grid_sample(_on(GRID_X, backend), grid, align_corners=False)
    want = F.grid_sample(torch.from_numpy(GRID_X), F.affine_grid(
        torch.from_numpy(theta), (2, 3, 5, 6), align_corners=False), align_corners=False)
    np.testing.assert_allclose(to_numpy(got), want.numpy(), rtol=1e-5, atol=1e-5)
    assert got.backend == backend


def test_grid_sample_half_rounds_as_torch():
    """float16 is computed in float16, as torch's CPU kernel does (nearest: the same pixels)."""
    x, g = GRID_X.astype(np.float16), (GRID_G * 1.2).astype(np.float16)
    for mode in MODES_2D:
        want = F.grid_sample(torch.from_numpy(x), torch.from_numpy(g), mode=mode,
                             align_corners=False).numpy()
        got = to_numpy(F.grid_sample(interop.tensor(x), interop.tensor(g), mode=mode,
                                     align_corners=False))
        assert got.dtype == np.float16
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32),
                                   atol=1e-2 if mode == "bicubic" else 0)


# ------------------------------------------------------------------ ctc_loss
def _ctc_inputs(seed: int, steps: int = 9, batch: int = 3, classes: int = 5, longest: int = 4,
                dtype=np.float32):
    rng = np.random.default_rng(seed)
    logits = torch.from_numpy(rng.standard_normal((steps, batch, classes)))
    log_probs = logits.log_softmax(2).numpy().astype(dtype)
    targets = rng.integers(1, classes, (batch, longest))
    return log_probs, targets


LP, TG = _ctc_inputs(0)
IL, TL = np.array([9, 6, 0]), np.array([4, 2, 0])
CONCAT = np.concatenate([TG[0, :4], TG[1, :2]])
REPEATS = np.array([[1, 1, 2, 2], [3, 3, 3, 1], [2, 1, 2, 1]])

CTC_CASES = [
    (F.ctc_loss, (LP, TG, IL, TL), dict(reduction="none")),
    (F.ctc_loss, (LP, TG, IL, TL), {}),
    (F.ctc_loss, (LP, TG, IL, TL), dict(reduction="sum")),
    (F.ctc_loss, (LP, CONCAT, IL, TL), dict(reduction="none")),
    (F.ctc_loss, (LP, REPEATS, (9, 9, 9), (4, 4, 4)), dict(reduction="none")),
    (F.ctc_loss, (LP[:4], REPEATS, (4, 4, 4), (4, 4, 4)), dict(reduction="none")),  # impossible
    (F.ctc_loss, (LP[:4], REPEATS, (4, 4, 4), (4, 4, 4)), dict(zero_infinity=True)),
    (F.ctc_loss, (LP, TG, IL, TL), dict(blank=4, reduction="none")),
    (F.ctc_loss, (LP.astype(np.float64), TG, IL, TL), dict(reduction="none")),
    (F.ctc_loss, (LP, TG.astype(np.float32), IL, TL), dict(reduction="none")),
    (F.ctc_loss, (LP[:, 0], TG[0], np.array(9), np.array(4)), dict(reduction="none")),
    (F.ctc_loss, (LP[:, 0], TG[0], np.array(9), np.array(4)), {}),
    (torch.ctc_loss, (LP, TG, IL, TL), {}),  # torch 2.13's default reduction: none
    (torch.ctc_loss, (LP, TG, IL, TL, 0, 1, False), {}),
    (torch.ctc_loss, (LP, TG, [9, 6, 0], [4, 2, 0], 0, 2, True), {}),
    # torch's refusals
    (F.ctc_loss, (LP, TG, IL, TL), dict(reduction="foo")),
    (F.ctc_loss, (LP, TG, IL.astype(np.float32), TL), {}),
    (F.ctc_loss, (LP, TG, IL, TL), dict(blank=5)),
    (F.ctc_loss, (LP, TG, np.array([10, 6, 0]), TL), {}),
    (F.ctc_loss, (LP, TG, IL, np.array([5, 2, 0])), {}),
    (F.ctc_loss, (LP, TG, IL, np.array([-1, 2, 0])), {}),
    (F.ctc_loss, (LP, TG, IL[:2], TL), {}),
    (F.ctc_loss, (LP, TG[:2], IL, TL), {}),
    (F.ctc_loss, (LP, np.concatenate([CONCAT, [1]]), IL, TL), {}),
    (F.ctc_loss, (LP[:, 0], TG[0], 9, 4), {}),
    (F.ctc_loss, (LP.astype(np.float16), TG, IL, TL), {}),
    (F.ctc_loss, (LP, TG[None], IL, TL), {}),
    (F.ctc_loss, (LP[:, :0], TG[:0], IL[:0], TL[:0]), {}),
]


@pytest.mark.parametrize("fn,args,kwargs", CTC_CASES, ids=[f"ctc{i}" for i in range(len(CTC_CASES))])
def test_ctc_loss_matches_torch(fn, args, kwargs, backend):
    """(Length tensors are sizes read on the host, as torch reads them: on Dask a value read.)"""
    same_as_torch(fn, args, kwargs, backend, lazy=False)


def test_ctc_loss_on_dask_computes_nothing_with_lengths_given_as_ints():
    log_probs = interop.tensor(LP, backend="dask", chunks=(3, 2, 5))
    with interop.config(dask_compute="raise"):
        loss = F.ctc_loss(log_probs, interop.tensor(TG, backend="dask", chunks=(2, 4)),
                          (9, 6, 0), (4, 2, 0), reduction="none")
    want = F.ctc_loss(torch.from_numpy(LP), torch.from_numpy(TG), (9, 6, 0), (4, 2, 0),
                      reduction="none")
    np.testing.assert_allclose(to_numpy(loss), want.numpy(), rtol=1e-5, atol=1e-5)


@given(seed=st.integers(0, 2 ** 16), steps=st.integers(1, 10), batch=st.integers(1, 4),
       classes=st.integers(2, 5), longest=st.integers(0, 5), blank=st.integers(0, 4),
       concatenated=st.booleans(), reduction=st.sampled_from(["none", "mean", "sum"]),
       zero_infinity=st.booleans())
def test_ctc_loss_matches_torch_on_random_alignments(seed, steps, batch, classes, longest,
                                                     blank, concatenated, reduction,
                                                     zero_infinity):
    """Any lengths (0 included), labels that repeat or equal the blank, alignments that are
    impossible (inf), padded or concatenated targets."""
    log_probs, _ = _ctc_inputs(seed, steps, batch, classes)
    rng = np.random.default_rng(seed + 1)
    blank %= classes
    targets = rng.integers(0, classes, (batch, longest))
    il, tl = rng.integers(0, steps + 1, batch), rng.integers(0, longest + 1, batch)
    if concatenated:
        targets = np.concatenate([targets[b, :tl[b]] for b in range(batch)]).astype(np.int64)
    kwargs = dict(blank=blank, reduction=reduction, zero_infinity=zero_infinity)
    want = F.ctc_loss(*map(torch.from_numpy, (log_probs, targets, il, tl)), **kwargs).numpy()
    got = F.ctc_loss(*map(interop.tensor, (log_probs, targets, il, tl)), **kwargs)
    np.testing.assert_allclose(to_numpy(got), want, rtol=1e-5, atol=1e-5)
