"""``torch.save`` of TorchTensors: the values as torch's own tensors, which
``torch.load(weights_only=True)`` (torch's default) accepts.

A plain ``pickle`` of a TorchTensor keeps its backend (a Dask tensor its graph: workers and
copies go on lazily); a checkpoint is for another process, maybe without interop, and torch's
safe loader admits only torch's own tensor classes.  Python's pickle tells ``__reduce_ex__``
nothing about the pickler, so the face asks whether ``torch.save`` is on the stack (its C
pickler leaves no frames in between).  The values are read through the backend's value-read
gate: a Dask tensor is computed once, under ``interop.config(dask_compute=...)``.
"""

from __future__ import annotations

import sys
import warnings
from collections import OrderedDict
from types import FrameType
from typing import Any

import numpy as np

from ...errors import InteropWarning
from . import boxes, checkpoints

_SAVERS: list[Any] = []  # the code objects of torch.serialization's savers, once looked up
_DEPTH = 64  # frames searched: the pickle module's own (a Python pickler), then torch.save


_SAVER_NAMES = ("_save", "_legacy_save")  # torch.serialization's (private) savers


def _savers() -> list[Any]:
    """The code objects of ``torch.serialization._save``/``_legacy_save``; none when this
    torch has neither (renamed upstream): ``saving_with_torch`` then warns and answers True."""
    if not _SAVERS:
        serialization = boxes.TORCH.serialization
        _SAVERS.extend(getattr(getattr(serialization, name, None), "__code__", None)
                       for name in _SAVER_NAMES)
    return [code for code in _SAVERS if code is not None]


def saving_with_torch() -> bool:
    """True while ``torch.save`` (the zip format or the legacy one) is pickling.

    Where this torch has neither private saver (``torch.serialization._save``, ``_legacy_save``:
    renamed upstream), ``torch.save`` cannot be told from a plain pickle: every pickle of a
    TorchTensor then holds torch tensors (values, computed under ``dask_compute``), with an
    ``InteropWarning`` saying so: a checkpoint stays loadable by ``torch.load(weights_only=True)``
    and a plain pickle loses only laziness, never a value."""
    if not _savers():
        warnings.warn(
            f"torch {boxes.TORCH.__version__} has no torch.serialization._save or _legacy_save, "
            "by which interop recognises torch.save: TorchTensors are pickled as torch tensors "
            "(their values) for every pickle, so checkpoints stay safe to load; please report "
            "it with the version", InteropWarning, stacklevel=3)
        return True
    return torch_save_frame() is not None


def torch_save_frame() -> FrameType | None:
    """The frame of ``torch.save``'s saver while it is pickling, else None (always None where
    this torch has neither saver: see ``saving_with_torch``)."""
    savers = _savers()
    frame: FrameType | None = sys._getframe(2)
    for _ in range(_DEPTH):
        if frame is None:
            return None
        if frame.f_code in savers:
            return frame
        frame = frame.f_back
    return None


def _torch_tensor(host: np.ndarray) -> Any:
    """A CPU torch tensor with ``host``'s values, through its bytes: the same for every dtype
    (bfloat16 from ml_dtypes, reversed views, 0-d arrays)."""
    data = np.ascontiguousarray(host).reshape(-1).view(np.uint8)
    if not data.flags.writeable:  # JAX's host values: torch.from_numpy wants writable memory
        data = data.copy()
    return boxes.TORCH.from_numpy(data).view(boxes.torch_dtype(host.dtype)).reshape(host.shape)


def torch_reduction(face: Any, protocol: int) -> tuple:
    """What ``torch.save`` pickles for ``face``: a torch tensor (a ``Parameter`` where
    ``face`` is one) on the host with its values and ``requires_grad``."""
    values = checkpoints.host_tensor(face._t._raw, torch_save_frame(), _torch_tensor)
    if getattr(face, "_is_param", False):
        return (boxes.TORCH._utils._rebuild_parameter,
                (values, face.requires_grad, OrderedDict()))
    return values.requires_grad_(face.requires_grad and face.is_leaf).__reduce_ex__(protocol)
