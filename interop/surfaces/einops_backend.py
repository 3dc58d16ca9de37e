"""einops' main API (``rearrange``, ``reduce``, ``repeat``, ``einsum``, ``pack``) on interop tensors.

einops finds a backend for a tensor among the subclasses of its ``AbstractBackend``
whose framework is imported.  The backend class is defined once ``einops._backends``
is imported (``after_import.when_imported``), so that ``import interop`` never imports einops.
"""

from __future__ import annotations

from typing import Any

from .after_import import when_imported

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


def install(interop: Any) -> None:
    """Make ``interop`` (the package) known to einops, now or when einops loads."""
    when_imported(_EINOPS_BACKENDS, lambda module: _define_backend(interop))
