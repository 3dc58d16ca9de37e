"""``aten.as_strided`` on a lazy backend, which has no buffer to stride over: windows along the
last axis (``unfold``: the backend's sliding windows), else the elements the view would reach
gathered from the tensor's values in torch's order.  Either is a lazy copy linked to the tensor
as the backend's views are (``backends/views.py``): a write into it is replayed into the tensor.

torch's decompositions frame signals with it (``torch.stft``'s windows, which torchaudio's
``Spectrogram``, ``MelSpectrogram`` and ``MFCC`` reach): ``aten.stft`` is composite, so torch
decomposes it before the face sees an operation, and the face never meets the ``stft`` record.
A lazy TorchTensor has no strides of its own (torch counts it contiguous, at offset 0), so the
storage torch strides over is the tensor's values in order, and the gather reads exactly the
elements torch would (torch's autograd writes through such views: ``as_strided``'s backward).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...backends import registry, views
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
    last, available = offset + sum((n - 1) * s for n, s in zip(size, stride)), \
        math.prod(input.shape)
    if 0 not in size and last >= available:
        raise RuntimeError(
            f"as_strided: sizes {list(size)}, strides {list(stride)} and storage offset "
            f"{offset} reach element {last} of a tensor of {available} elements (a lazy "
            "tensor's storage is its own values)")
    windows = _windows(tuple(input.shape), size, stride, offset)
    if windows is not None:
        count, length, step = windows
        framed = record("torch.Tensor.unfold")(input, -1, length, step)
        out = record("torch.narrow")(framed, -2, 0, count)
    else:
        flat = record("torch.Tensor.reshape")(input, (-1,))
        index = make(Tensor, _index(size, stride, offset).reshape(-1))
        out = record("torch.Tensor.reshape")(record("torch.take")(flat, index), size)
    be = registry.backend_of(input._raw)
    views.merged(out._raw, input._raw, lambda base, values: _scattered(
        be, base, _index(size, stride, offset), values))
    return out


def _index(size: tuple, stride: tuple, offset: int) -> np.ndarray:
    """The storage position of each element of the view (torch's ``as_strided`` arithmetic)."""
    index = np.full((), offset, dtype=np.int64)
    for n, s in zip(size, stride):
        index = index[..., None] + np.arange(n, dtype=np.int64) * s
    return index


def _scattered(be: Any, base: Any, index: np.ndarray, values: Any) -> Any:
    """``base`` with the view's ``values`` written at their storage positions (where the view
    overlaps itself, the last element written wins, as a write in order leaves it)."""
    flat = be.np.reshape(base, (-1,))
    source = np.full(int(flat.shape[0]), -1, dtype=np.int64)
    source[index.reshape(-1)] = np.arange(index.size, dtype=np.int64)
    placed = be.np.take(be.np.reshape(values, (-1,)), np.maximum(source, 0))
    return be.np.reshape(be.np.where(source >= 0, placed, flat), tuple(base.shape))


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


def as_strided_copy(input: Any, size: Any, stride: Any, storage_offset: Any = None) -> Any:
    """``aten.as_strided_copy``: the view's values in an array of their own."""
    return record("torch.clone")(as_strided(input, size, stride, storage_offset))


ADAPTERS = {"aten.as_strided.default": as_strided,
            "aten.as_strided_copy.default": as_strided_copy}
