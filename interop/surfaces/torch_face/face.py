"""``interop.TorchTensor``: a real ``torch.Tensor`` (a wrapper subclass, as DTensor and
FakeTensor are) holding an interop tensor, whose ATen operations run on that tensor's backend.

torch sees a tensor with a real ``torch.dtype``, ``torch.device`` and shape, records autograd
on it and hands every operation to ``__torch_dispatch__`` as an ATen overload; the handler
(``aten.handler_for``) runs it through the operation table on the backend, and the results
come back as ``TorchTensor``s on the same backend.  torch is imported only when the class is
first asked for (``torch_tensor_class``), so ``import interop`` needs no torch.
"""

from __future__ import annotations

import copy
from typing import Any, SupportsIndex

from ...backends import registry
from ...core.card import Fact, cost_text, html_card
from ...core.repr import format_tensor
from ...core.tensor import Tensor
from . import addresses, aten, boxes, compiling, saving, training
from .boxes import box

_class: list[type] = []  # the TorchTensor class, once made


def torch_tensor_class() -> type:
    """``interop.TorchTensor``, made on first use: a subclass of ``torch.Tensor`` (torch is
    imported now) with ``TorchFace``'s methods ahead of torch's."""
    if not _class:
        import torch
        cls = type(torch.Tensor)("TorchTensor", (TorchFace, torch.Tensor), {
            "__module__": "interop", "__doc__": TorchFace.__doc__,
            "__torch_function__": torch._C._disabled_torch_function_impl})
        _class.append(cls)
        boxes.bind(cls, torch)
        compiling.run_not_traced(TorchFace.__torch_dispatch__)
        training.install(torch)
    return _class[0]


def as_torch(self: Tensor, *, requires_grad: bool = False) -> Any:
    """This tensor as an ``interop.TorchTensor``: a ``torch.Tensor`` holding the same data (no
    copy) on the same backend, for torch code that checks types or needs autograd
    (``requires_grad=True`` makes it a leaf that gradients flow to)."""
    torch_tensor_class()
    return box(self, requires_grad)


class TorchFace:
    """A ``torch.Tensor`` whose data is an interop tensor (NumPy, Dask, CuPy, JAX, Cubed):
    ``isinstance(x, torch.Tensor)`` holds, its dtype and device are torch's, autograd records on
    it, and every ATen operation runs on the interop tensor's backend (Dask: lazily).
    ``x.as_interop()`` gives the interop tensor back.  Made by ``t.as_torch()``."""

    _t: Tensor
    requires_grad: bool  # (torch.Tensor's, which the class made from this one derives from)
    is_leaf: bool
    grad: Any
    grad_fn: Any

    @classmethod
    def __torch_dispatch__(cls, func: Any, types: Any, args: tuple = (),
                           kwargs: dict | None = None) -> Any:
        run = aten.HANDLERS.get(func)
        if run is None:
            run = aten.handler_for(func)
        return run(args, kwargs or {})

    def as_interop(self) -> Tensor:
        """The interop tensor this wraps (the same object: no copy)."""
        return self._t

    @property
    def backend(self) -> str:
        """The backend the data lives on: 'numpy', 'dask', 'cupy', ..."""
        return self._t.backend

    def __repr__(self, *, tensor_contents: Any = None) -> str:
        """interop's repr of the data named ``TorchTensor``, ending as torch's ends: the
        ``grad_fn`` of a computed result, else ``requires_grad=True`` on a leaf that has it."""
        raw = self._t._raw
        return format_tensor(registry.owner(raw), raw, "TorchTensor", self._autograd_suffix())

    def _autograd_suffix(self) -> tuple[str, ...]:
        if self.grad_fn is not None:
            return (f"grad_fn=<{type(self.grad_fn).__name__}>",)
        return ("requires_grad=True",) if self.requires_grad else ()

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """IPython's plain text: the repr, and the cost line of chunked data (as a Tensor's)."""
        printer.text(repr(self))
        if cost := cost_text(self._t):
            printer.break_()
            printer.text(cost)

    def _repr_html_(self) -> str:
        """Jupyter's card of the data (``interop.core.card``), with the autograd state: whether
        it requires grad, the ``grad_fn`` that made it, and the ``.grad`` a leaf holds."""
        inner = type(self._t)
        name = "TorchTensor" if inner is Tensor else f"TorchTensor of {inner.__name__}"
        autograd = [Fact("requires-grad", f"requires_grad={self.requires_grad}")]
        if self.grad_fn is not None:
            autograd.append(Fact("grad-fn", f"grad_fn=<{type(self.grad_fn).__name__}>"))
        elif self.is_leaf and self.grad is not None:  # (.grad of a non-leaf warns: not read)
            autograd.append(Fact("grad", f"grad {tuple(self.grad.shape)}"))
        return html_card(self._t, name, autograd)

    def numpy(self, *, force: bool = False) -> Any:
        """The values as a NumPy array (shared for NumPy data; Dask computes)."""
        if self.requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return self._t.numpy(force=force)

    def tolist(self) -> Any:
        return self._t.tolist()

    def data_ptr(self) -> int:
        """The address of the first element in the backend's memory (``addresses``)."""
        return addresses.data_ptr(self._t)

    @property
    def data(self) -> Any:
        """The same data without autograd history (shared: writes reach this tensor)."""
        return box(self._t)

    @data.setter
    def data(self, new: Any) -> None:
        boxes.TORCH._C.TensorBase.data.__set__(self, new)  # torch's metadata
        self._t = new._t

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple:
        if saving.saving_with_torch():
            return saving.torch_reduction(self, int(protocol))
        attrs = {k: v for k, v in self.__dict__.items() if k != "_t"}  # _is_param
        return (_rebuild, (self._t, self.requires_grad, attrs))

    def __deepcopy__(self, memo: dict) -> Any:
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment; detach() first")
        new = box(copy.deepcopy(self._t, memo), self.requires_grad)
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            if key != "_t":
                setattr(new, key, copy.deepcopy(value, memo))
        if self.grad is not None:
            new.grad = copy.deepcopy(self.grad, memo)
        return new


def _rebuild(t: Tensor, requires_grad: bool, attrs: dict) -> Any:
    """Unpickling: the TorchTensor over ``t``, its attributes (``_is_param``) restored."""
    torch_tensor_class()
    obj = box(t, requires_grad)
    obj.__dict__.update(attrs)
    return obj
