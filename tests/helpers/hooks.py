"""The hooks a call sequence is tried under: a ``Tensor`` subclass whose
``__torch_function__`` logs each call, and a ``TorchFunctionMode`` that counts them."""

from __future__ import annotations

from typing import Any, ClassVar

import interop


class Logged(interop.Tensor):
    calls: ClassVar[list] = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN206
        cls.calls.append(getattr(func, "__name__", str(func)))
        return super().__torch_function__(func, types, args, kwargs or {})


def counting_mode() -> Any:
    """A fresh ``TorchFunctionMode`` (torch's) that counts the calls it sees in ``seen``."""
    import torch

    class Counting(torch.overrides.TorchFunctionMode):
        seen = 0

        def __torch_function__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
            self.seen += 1
            return func(*args, **(kwargs or {}))
    return Counting()
