"""torch.stft and torch.istft on backend arrays, with torch's arguments, dtypes and refusals.

stft: the signal (reflect-)padded by ``n_fft // 2`` when ``center``, cut into frames of
``n_fft`` every ``hop_length`` (``Tensor.unfold``'s windows), each multiplied by the window
(zero-padded to ``n_fft`` around its centre) and transformed by the backend's FFT.
istft: the inverse FFT of each frame, windowed, overlap-added and divided by the
overlap-added squared window (torch's NOLA check refuses a window that leaves it ~0).

Everything is a composition of backend primitives (take, pad, fft, reshape), so Dask
stays lazy; istft reads the window's values (a few numbers, not the signal) to build and
check its overlap-added envelope on the host, as torch's check does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...backends.registry import get_backend, host_values
from ...errors import UnsupportedDtypeError
from ..registry import TABLE, op
from .transforms import _complex_of, _real_of


def _whole(be: Any, x: Any, axis: int) -> Any:
    """``x`` in one chunk along ``axis`` on lazy backends (Dask's FFT needs the whole axis)."""
    return be.whole_along(x, axis)


def _describe(name: str, input: Any, n_fft: int, hop: int, win: int, window: Any,
              **more: Any) -> str:
    """torch's preamble of an stft/istft error: the call, so the message says what was asked."""
    shown = "None" if window is None else f"{window.dtype}{list(window.shape)}"
    rest = "".join(f", {k}={v}" for k, v in more.items())
    return (f"{name}({input.dtype}{list(input.shape)}, n_fft={n_fft}, hop_length={hop}, "
            f"win_length={win}, window={shown}{rest})")


def _padded_window(be: Any, window: Any, n_fft: int, win_length: int, dtype: Any) -> Any:
    """The window (ones if None) zero-padded on both sides to ``n_fft``, centred as torch."""
    if window is None:
        window = be.np.ones((win_length,), dtype=dtype)
    left = (n_fft - win_length) // 2
    if left or n_fft - win_length - left:
        window = be.np.pad(window, [(left, n_fft - win_length - left)], mode="constant")
    return window


def _fft_dtype(name: str, dt: np.dtype) -> None:
    """torch's CPU FFT refuses float16; so does interop (NumPy would compute in float32)."""
    if dt.kind == "f" and dt.itemsize < 4:
        raise RuntimeError(f"{name}: torch's CPU FFT does not support {dt} (MKL FFT doesn't "
                           "support Half); convert the input with .float() first")


def _as_float_window(window: Any, dtype: np.dtype) -> Any:
    """An integer or bool window takes the signal's float dtype (torch's multiply does)."""
    if window is not None and window.dtype.kind in "biu":
        return window.astype(dtype)
    return window


@op(method=True, torch=("torch.stft", "torch.Tensor.stft"))
def stft(be: Any, input: Any, n_fft: int, hop_length: Any = None, win_length: Any = None,
         window: Any = None, center: bool = True, pad_mode: str = "reflect",
         normalized: bool = False, onesided: Any = None, return_complex: Any = None,
         align_to_window: Any = None) -> Any:
    """Short-time Fourier transform of a 1-d signal or a batch of them (2-d): (B?, N, T)."""
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    hop = n_fft // 4 if hop_length is None else int(hop_length)
    win = n_fft if win_length is None else int(win_length)
    complex_in = input.dtype.kind == "c" or (window is not None and window.dtype.kind == "c")
    want_complex = complex_in if return_complex is None else bool(return_complex)
    if not want_complex and return_complex is None:
        raise RuntimeError("stft requires the return_complex parameter be given for real "
                           "inputs, and will further require that return_complex=True in a "
                           "future PyTorch release (pass return_complex=True; "
                           "torch.view_as_real gives the old format)")
    x = input
    if center:
        if pad_mode not in ("constant", "reflect", "replicate", "circular"):
            raise NotImplementedError(f"stft: unrecognised padding mode {pad_mode!r} (use "
                                      "'reflect', 'constant', 'replicate' or 'circular')")
        half = n_fft // 2
        if pad_mode == "reflect" and x.ndim in (1, 2) and half >= x.shape[-1]:
            raise RuntimeError(f"stft: reflect padding of {half} needs a signal longer than "
                               f"{half}, but got length {x.shape[-1]}; use a shorter n_fft or "
                               "center=False")
        if x.ndim in (1, 2) and x.shape[-1] == 0 or x.ndim == 2 and x.shape[0] == 0:
            raise RuntimeError(f"stft: expected a non-empty signal, but got shape "
                               f"{list(x.shape)}")
        if x.ndim in (1, 2):  # padded as torch does it: viewed as 3-d (pad's rule for modes)
            x3 = be.np.reshape(x, (1,) * (3 - x.ndim) + x.shape)
            padded = TABLE["pad"].impl(be, x3, (half, half), pad_mode)
            x = be.np.reshape(padded, padded.shape[3 - x.ndim:])
    where = _describe("stft", x, n_fft, hop, win, window, normalized=int(normalized),
                      onesided=onesided, return_complex=int(want_complex),
                      align_to_window=align_to_window)
    if x.dtype.kind not in "fc":
        # torch 2.13 raises RuntimeError, 2.14 NotImplementedError: this error is both
        raise UnsupportedDtypeError(f"{where}: expected a tensor of floating point or complex "
                                    "values")
    if x.ndim not in (1, 2):
        raise RuntimeError(f"{where}: expected a 1D or 2D tensor")
    length = x.shape[-1]
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(f"{where}: expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(f"{where}: expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(f"{where}: expected 0 < win_length <= n_fft, but got "
                           f"win_length={win}")
    if window is not None and (window.ndim != 1 or window.shape[0] != win):
        raise RuntimeError(f"{where}: expected a 1D window tensor of size equal to "
                           f"win_length={win}, but got window with size {list(window.shape)}")
    _fft_dtype("stft", x.dtype)
    window = _as_float_window(window, x.dtype)
    if align_to_window:  # frames start where the window does, not where its padding does
        left = (n_fft - win) // 2
        x = be.np.pad(x, [(0, 0)] * (x.ndim - 1) + [(left, n_fft - win - left)])
    frames = TABLE["tensor_unfold"].impl(be, x, -1, n_fft, hop)  # (B?, frames, n_fft)
    w = _padded_window(be, window, n_fft, win, x.dtype)
    frames = _whole(be, frames * w, -1)
    sided = not complex_in if onesided is None else bool(onesided)
    if sided and frames.dtype.kind == "c":
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    norm = "ortho" if normalized else "backward"
    spectrum = (be.np.fft.rfft if sided else be.np.fft.fft)(frames, axis=-1, norm=norm)
    spectrum = be.np.swapaxes(spectrum.astype(_complex_of(frames.dtype)), -1, -2)
    if want_complex:
        return spectrum
    return be.np.stack([be.np.real(spectrum), be.np.imag(spectrum)], axis=-1)


def _overlap_add(be: Any, frames: Any, hop: int) -> Any:
    """Frames (B, T, n) added at offsets t * hop into one signal (B, (T - 1) * hop + n):
    torch's unfold_backward, by ceil(n / hop) shifted sums of hop-wide pieces."""
    batch, count, n = frames.shape
    pieces = -(-n // hop)
    frames = be.np.pad(frames, [(0, 0), (0, 0), (0, pieces * hop - n)])
    frames = be.np.reshape(frames, (batch, count, pieces, hop))
    total = None
    for j in range(pieces):
        shifted = be.np.pad(frames[:, :, j, :], [(0, 0), (j, pieces - 1 - j), (0, 0)])
        total = shifted if total is None else total + shifted
    signal = be.np.reshape(total, (batch, (count + pieces - 1) * hop))
    return signal[:, :(count - 1) * hop + n]


def _envelope(window: Any, n_fft: int, win: int, hop: int, count: int, dtype: Any) -> Any:
    """The squared window overlap-added over ``count`` frames, on the host (1, length): what
    istft divides by, and checks for zeros before it does (a value read of the window only)."""
    host = get_backend("numpy")
    if window is not None:
        window = host_values(window, "istft(): the window's overlap-add check (NOLA)")
    w = _padded_window(host, window, n_fft, win, dtype)
    return _overlap_add(host, np.broadcast_to((w * w)[None, None], (1, count, n_fft)), hop)


@op(method=True, torch=("torch.istft", "torch.Tensor.istft"))
def istft(be: Any, input: Any, n_fft: int, hop_length: Any = None, win_length: Any = None,
          window: Any = None, center: bool = True, normalized: bool = False,
          onesided: Any = None, length: Any = None, return_complex: bool = False) -> Any:
    """Inverse short-time Fourier transform: a complex (B?, N, T) spectrum back to (B?, L)."""
    hop = n_fft // 4 if hop_length is None else int(hop_length)
    win = n_fft if win_length is None else int(win_length)
    if input.dtype.kind != "c":
        # torch 2.13 raises RuntimeError, 2.14 TypeError: this error is both
        raise UnsupportedDtypeError("istft requires a complex-valued input tensor matching the "
                                    "output from stft with return_complex=True.")
    where = _describe("istft", input, n_fft, hop, win, window, center=int(center),
                      normalized=int(normalized), onesided=onesided, length=length,
                      return_complex=int(return_complex))
    if input.size == 0:
        raise RuntimeError(f"{where}: input tensor cannot be empty.")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"{where}: expected a tensor with 3 or 4 dimensions of real, or 2 "
                           f"or 3 dimensions of complex, but got {input.ndim + 1}")
    n_freq, count = input.shape[-2], input.shape[-1]
    sided = n_freq != n_fft if onesided is None else bool(onesided)
    if sided and n_fft // 2 + 1 != n_freq:
        raise RuntimeError(f"{where}: expected the frequency dimension (3rd to the last) of "
                           "the input tensor to match n_fft / 2 + 1 when onesided=True, but "
                           f"got {n_freq}")
    if not sided and n_fft != n_freq:
        raise RuntimeError(f"{where}: expected the frequency dimension (3rd to the last) of "
                           f"the input tensor to match n_fft when onesided=False, but got "
                           f"{n_freq}")
    if not 0 < hop <= win:
        raise RuntimeError(f"{where}: expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise RuntimeError(f"{where}: expected 0 < win_length <= n_fft")
    if window is not None and (window.ndim != 1 or window.shape[0] != win):
        raise RuntimeError(f"{where}: Invalid window shape. window has to be 1D and length of "
                           "`win_length`")
    _fft_dtype("istft", _real_of(input.dtype))
    window = _as_float_window(window, _real_of(input.dtype))
    w = _padded_window(be, window, n_fft, win, _real_of(input.dtype))
    x = input if input.ndim == 3 else input[None]
    x = _whole(be, be.np.swapaxes(x, 1, 2), -1)  # (B, frames, freq)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        if sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = be.np.fft.ifft(x, axis=-1, norm=norm).astype(input.dtype)
    else:
        if w.dtype.kind == "c":
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        half = x if sided else x[..., :n_fft // 2 + 1]
        frames = be.np.fft.irfft(half, n=n_fft, axis=-1, norm=norm).astype(
            _real_of(input.dtype))
    signal = _overlap_add(be, frames * w, hop)
    expected = n_fft + hop * (count - 1)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (expected - n_fft // 2 if center
                                                     else expected)
    envelope = _envelope(window, n_fft, win, hop, count, _real_of(input.dtype))[:, start:end]
    if envelope.shape[1] == 0:
        raise RuntimeError(f"{where}: the output would be empty (length {length}); ask for a "
                           "positive length")
    if np.abs(envelope).min() < 1e-11:
        raise RuntimeError(f"{where}: window overlap add min: 1 (the squared window, overlap-"
                           "added, is ~0 somewhere, so the signal cannot be recovered: use a "
                           "window that satisfies NOLA, or a smaller hop_length)")
    signal = signal[:, start:end] / be.asarray(envelope)
    if end > expected:
        signal = be.np.pad(signal, [(0, 0), (0, end - expected)])
    return signal if input.ndim == 3 else signal[0]

