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
    backend (``chunks=`` for Dask).  Returns the module itself, as ``Module.to`` does.  A
    parameter or buffer shared by several modules (tied weights) stays one, as with
    ``Module.to``."""
    import torch
    torch_tensor_class()
    moved: dict[int, tuple[Any, Any]] = {}  # id -> (the original, held; its copy)
    for sub in module.modules():
        for name, param in list(sub.named_parameters(recurse=False, remove_duplicate=False)):
            if id(param) not in moved:
                moved[id(param)] = (param, torch.nn.Parameter(
                    _onto(param, backend, options), requires_grad=param.requires_grad))
            setattr(sub, name, moved[id(param)][1])  # (Module.__setattr__ registers it)
        for name, buf in list(sub.named_buffers(recurse=False, remove_duplicate=False)):
            if id(buf) not in moved:
                moved[id(buf)] = (buf, _onto(buf, backend, options))
            setattr(sub, name, moved[id(buf)][1])  # (a buffer's name: stays one, persistent or not)
    if registry.get_backend(backend).lazy:
        training.track(module)  # its buffers persist with its optimizer's steps
    return module


def _onto(t: Any, backend: str, options: dict) -> Any:
    """A TorchTensor copy of torch tensor ``t`` (or of a TorchTensor's data) on ``backend``."""
    data = t._t if type(t) is boxes.TorchTensor else boxes.plain_tensor(t.detach())
    return boxes.box(make(Tensor, to_raw(data, backend=backend, copy=True, **options)))
