"""einops' main API (``rearrange``, ``reduce``, ``repeat``, ``einsum``, ``pack``) on interop tensors.

einops finds a backend for a tensor among the subclasses of its ``AbstractBackend``
whose framework is imported.  The backend class is defined once ``einops._backends``
is imported, so that ``import interop`` never imports einops: at once if einops is
already loaded, else by a one-shot import hook that runs after that module loads.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from typing import Any

_EINOPS_BACKENDS = "einops._backends"
_defined: list[type] = []  # einops finds backends by __subclasses__(), which holds weak references


def _define_backend(interop: Any) -> None:
    """The backend class, calling ``interop``'s public functions (the package passes itself)."""
    from einops._backends import AbstractBackend

    class InteropBackend(AbstractBackend):
        framework_name = "interop"

        def is_appropriate_type(self, tensor: Any) -> bool:
            return isinstance(tensor, interop.Tensor)

        def from_numpy(self, x: Any) -> Any:
            return interop.tensor(x)

        def to_numpy(self, x: Any) -> Any:
            return x.numpy()

        def arange(self, start: int, stop: int) -> Any:
            return interop.arange(start, stop, dtype=interop.int64)

        def shape(self, x: Any) -> tuple:
            return tuple(x.shape)

        def reshape(self, x: Any, shape: tuple) -> Any:
            return x.reshape(shape)

        def transpose(self, x: Any, axes: tuple) -> Any:
            return x.permute(axes)

        def reduce(self, x: Any, operation: str, reduced_axes: tuple) -> Any:
            if operation in ("min", "max"):
                return getattr(x, f"a{operation}")(dim=tuple(reduced_axes))
            if operation in ("sum", "mean"):
                return getattr(x, operation)(dim=tuple(reduced_axes))
            if operation in ("any", "all", "prod"):  # one dimension at a time, as torch's
                for axis in sorted(reduced_axes, reverse=True):
                    x = getattr(x, operation)(dim=axis)
                return x
            raise NotImplementedError(f"einops reduction {operation!r} on interop tensors")

        def stack_on_zeroth_dimension(self, tensors: list) -> Any:
            return interop.stack(tensors)

        def add_axis(self, x: Any, new_position: int) -> Any:
            return x.unsqueeze(new_position)

        def add_axes(self, x: Any, n_axes: int, pos2len: dict) -> Any:
            repeats = [-1] * n_axes
            for position, length in pos2len.items():
                x = self.add_axis(x, position)
                repeats[position] = length
            return x.expand(repeats)

        def tile(self, x: Any, repeats: tuple) -> Any:
            return x.repeat(repeats)

        def concat(self, tensors: list, axis: int) -> Any:
            return interop.cat(tensors, dim=axis)

        def is_float_type(self, x: Any) -> bool:
            return x.is_floating_point()

        def einsum(self, pattern: str, *x: Any) -> Any:
            return interop.einsum(pattern, *x)

    _defined.append(InteropBackend)


class _AfterEinopsImport(importlib.abc.MetaPathFinder):
    """Defines the backend right after ``einops._backends`` loads, then steps aside."""

    def __init__(self, interop: Any) -> None:
        self.interop = interop

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != _EINOPS_BACKENDS:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        load = spec.loader.exec_module

        def exec_module(module: Any) -> None:
            load(module)
            _define_backend(self.interop)
        spec.loader.exec_module = exec_module
        return spec


def install(interop: Any) -> None:
    """Make ``interop`` (the package) known to einops, now or when einops loads."""
    if _EINOPS_BACKENDS in sys.modules:
        _define_backend(interop)
    else:
        sys.meta_path.insert(0, _AfterEinopsImport(interop))
