"""``interop.to_backend(module, "dask")``: a torch module's parameters and buffers as
``TorchTensor``s on a backend, so that an unmodified forward, ``loss.backward()`` and
``torch.optim`` step run there (torchax's ``module.to("jax")``)."""

from __future__ import annotations

from typing import Any

from ...backends import registry
from ...core.tensor import Tensor, make, to_raw
from . import boxes, training
from .face import torch_tensor_class


def to_backend(module: Any, backend: str, **options: Any) -> Any:
    """``module`` with every parameter and buffer copied onto ``backend`` as a TorchTensor
    (parameters stay ``nn.Parameter``s, with their ``requires_grad``); ``options`` go to the
    backend (``chunks=`` for Dask).  Returns the module itself, as ``Module.to`` does."""
    import torch
    torch_tensor_class()
    for sub in module.modules():
        for name, param in list(sub._parameters.items()):
            if param is not None:
                sub._parameters[name] = torch.nn.Parameter(
                    _onto(param, backend, options), requires_grad=param.requires_grad)
        for name, buf in list(sub._buffers.items()):
            if buf is not None:
                sub._buffers[name] = _onto(buf, backend, options)
    if registry.get_backend(backend).lazy:
        training.track(module)  # its buffers persist with its optimizer's steps
    return module


def _onto(t: Any, backend: str, options: dict) -> Any:
    """A TorchTensor copy of torch tensor ``t`` (or of a TorchTensor's data) on ``backend``."""
    data = t._t if type(t) is boxes.TorchTensor else boxes.plain_tensor(t.detach())
    return boxes.box(make(Tensor, to_raw(data, backend=backend, copy=True, **options)))
