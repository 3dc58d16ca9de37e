"""The torch face: ``t.as_torch()`` is an ``interop.TorchTensor``, a real ``torch.Tensor``
whose ATen operations run on ``t``'s backend through the operation table.

One module per job: ``face`` (the class), ``boxes`` (between interop tensors and
TorchTensors), ``aten`` (the one mapping from ATen overloads to records), ``adapters``
(overloads adapted by hand), ``decompose`` (torch's decompositions, run on the backend) and
``modules`` (``interop.to_backend``: a module's parameters and buffers onto a backend).
Nothing here imports torch until the face is first used.
"""

from __future__ import annotations

from ...core.tensor import Tensor
from .face import as_torch, torch_tensor_class
from .modules import to_backend

__all__ = ["as_torch", "install", "to_backend", "torch_tensor_class"]


def install(tensor_cls: type[Tensor]) -> None:
    """Put ``as_torch`` on ``tensor_cls``."""
    tensor_cls.as_torch = as_torch  # type: ignore[method-assign,assignment]  # (installed here)
