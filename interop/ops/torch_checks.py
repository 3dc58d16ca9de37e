"""torch's private validation reductions that torch's own Python code calls on user tensors
(``torch.distributions`` checks every argument with ``torch._is_all_true``)."""

from __future__ import annotations

from typing import Any

from .registry import op


def _check_bool(name: str, input: Any) -> None:
    if input.dtype.kind != "b":
        raise RuntimeError(f"torch.{name}: expected a bool tensor, got {input.dtype}; compare "
                           "first (t > 0) or convert with .bool()")


@op(method=False, family="reductions", torch=("torch._is_all_true",))
def _is_all_true(be: Any, input: Any) -> Any:
    """A 0-d bool tensor: every element is True (torch's private check)."""
    _check_bool("_is_all_true", input)
    return be.np.all(input)


@op(method=False, family="reductions", torch=("torch._is_any_true",))
def _is_any_true(be: Any, input: Any) -> Any:
    """A 0-d bool tensor: some element is True (torch's private check)."""
    _check_bool("_is_any_true", input)
    return be.np.any(input)
