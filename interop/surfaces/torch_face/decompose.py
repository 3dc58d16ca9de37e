"""ATen overloads no record answers, run as torch's decompositions of them into others
(``torch._decomp``'s table, or the overload's own composite kernel), on the backend.

A decomposition is Python code over torch calls: those on ``TorchTensor``s come back to the
face; the tensors it makes from nothing (``torch.zeros(...)``, ``torch.scalar_tensor(...)``)
and the constants it computes with would be made by torch's own kernels, so while it runs a
dispatch mode (``OnBackend``) makes them on the operands' backend and device instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...core.tensor import Tensor, make, to_raw
from ...upstream import private
from . import attention, boxes

Handler = Callable[[tuple, dict], Any]
_mode_class: list[type] = []


def _decomposition(func: Any) -> Callable | None:
    """The face's own decomposition of ``func`` (``attention``), else torch's."""
    found: Any = attention.DECOMPOSITIONS.get(str(func)) or \
        private("torch._decomp", "decomposition_table").get(func)
    if found is None and private("torch._C", "_dispatch_has_kernel_for_dispatch_key")(
            func.name(), "CompositeImplicitAutograd"):
        found = func.decompose
    return found


def decomposed(func: Any, handler_for: Callable[[Any], Handler]) -> Handler | None:
    """The handler running torch's decomposition of ``func`` under ``OnBackend``, or None if
    torch has none; ``handler_for`` runs the tensors the decomposition makes from nothing."""
    decomposition = _decomposition(func)
    if decomposition is None:
        return None

    def run(args: tuple, kwargs: dict) -> Any:
        like = boxes.first_face((*args, *kwargs.values()))
        with on_backend_mode()(like, handler_for):
            return decomposition(*args, **kwargs)
    return run


class OnBackendMixin:
    """The dispatch mode's behaviour (the class itself subclasses torch's ``TorchDispatchMode``
    and is made when first used: ``on_backend_mode``)."""

    def __init__(self, like: Any, handler_for: Callable[[Any], Handler]) -> None:
        super().__init__()
        self.like, self.handler_for = like, handler_for

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (),
                           kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        if boxes.TorchTensor in types:
            return func(*args, **kwargs)
        plain = [False]
        args, kwargs = self._onto_backend(args, plain), self._onto_backend(kwargs, plain)
        if plain[0]:
            return func(*args, **kwargs)  # now on TorchTensors: back to the face
        if self.like is None:
            raise NotImplementedError(f"{func}: made inside a decomposition without tensor "
                                      "operands to take a backend from")
        kwargs["device"] = self.like._t.device  # the backend's device (a Dask one for Dask)
        return self.handler_for(func)(args, kwargs)

    def _onto_backend(self, x: Any, plain: list) -> Any:
        """Plain torch tensors in ``x`` as TorchTensors on the operands' backend and device."""
        t = type(x)
        if t is list or t is tuple:
            return t(self._onto_backend(v, plain) for v in x)
        if t is dict:
            return {k: self._onto_backend(v, plain) for k, v in x.items()}
        if isinstance(x, boxes.TORCH.Tensor) and t is not boxes.TorchTensor:
            plain[0] = True
            data = boxes.plain_tensor(x)
            if self.like is not None:
                target = self.like._t
                data = make(Tensor, to_raw(data, device=target.device, backend=target.backend))
            return boxes.box(data)
        return x


def on_backend_mode() -> type:
    """The ``OnBackend`` dispatch mode class, made on first use (torch is loaded by then)."""
    if not _mode_class:
        mode = private("torch.utils._python_dispatch", "TorchDispatchMode")
        _mode_class.append(type("OnBackend", (OnBackendMixin, mode),
                                {"__doc__": __doc__}))
    return _mode_class[0]
