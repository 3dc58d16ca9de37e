"""torch.stft / torch.istft, F.grid_sample / F.affine_grid and F.ctc_loss on interop tensors
against torch: values, dtype, shape and torch's refusals, on NumPy and (lazily) on Dask."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
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
