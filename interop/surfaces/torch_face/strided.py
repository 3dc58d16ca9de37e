"""``aten.as_strided`` on a lazy backend, which has no buffer to stride over: windows along the
last axis (``unfold``: the backend's sliding windows), else the elements the view would reach
gathered from the tensor's values in torch's order (a copy, not a view).

torch's decompositions frame signals with it (``torch.stft``'s windows, which torchaudio's
``Spectrogram``, ``MelSpectrogram`` and ``MFCC`` reach): ``aten.stft`` is composite, so torch
decomposes it before the face sees an operation, and the face never meets the ``stft`` record.
A lazy TorchTensor has no strides of its own (torch counts it contiguous, at offset 0), so the
storage torch strides over is the tensor's values in order, and the gather reads exactly the
elements torch would.  Writes into the result do not reach the tensor.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...backends import registry
from ...core.tensor import Tensor, make
from ...errors import BackendLacksError
from .records import record


def as_strided(input: Any, size: Any, stride: Any, storage_offset: Any = None) -> Any:
    """The record's strided view where the backend has one, else (lazy backends) a gather."""
    try:
        return record("torch.as_strided")(input, size, stride, storage_offset)
    except BackendLacksError:
        if not registry.backend_of(input._raw).lazy:
            raise
    size, stride, offset = tuple(size), tuple(stride), int(storage_offset or 0)
    windows = _windows(tuple(input.shape), size, stride, offset)
    if windows is not None:
        count, length, step = windows
        framed = record("torch.Tensor.unfold")(input, -1, length, step)
        return record("torch.narrow")(framed, -2, 0, count)
    return _gathered(input, size, stride, offset)


def _windows(shape: tuple, size: tuple, stride: tuple, offset: int) -> tuple | None:
    """(count, length, step) where the view is ``count`` windows of ``length`` every ``step``
    along the last axis (``unfold``, the backend's sliding windows: torch.stft's frames),
    else None."""
    if offset or not shape or len(size) != len(shape) + 1:
        return None
    lead = len(shape) - 1
    contiguous = tuple(math.prod(shape[i + 1:]) for i in range(lead))
    count, length = size[lead], size[lead + 1]
    step, unit = stride[lead], stride[lead + 1]
    if size[:lead] != shape[:lead] or stride[:lead] != contiguous or unit != 1 or step < 1 \
            or count < 1 or (count - 1) * step + length > shape[-1]:
        return None
    return count, length, step


def _gathered(input: Any, size: tuple, stride: tuple, offset: int) -> Any:
    index = np.full((), offset, dtype=np.int64)
    for n, s in zip(size, stride):
        index = index[..., None] + np.arange(n, dtype=np.int64) * s
    available = math.prod(input.shape)
    if index.size and int(index.max()) >= available:
        raise RuntimeError(
            f"as_strided: sizes {list(size)}, strides {list(stride)} and storage offset "
            f"{offset} reach element {int(index.max())} of a tensor of {available} elements "
            "(a lazy tensor's storage is its own values)")
    flat = record("torch.Tensor.reshape")(input, (-1,))
    taken = record("torch.take")(flat, make(Tensor, index.reshape(-1)))
    return record("torch.Tensor.reshape")(taken, size)


ADAPTERS = {"aten.as_strided.default": as_strided}
