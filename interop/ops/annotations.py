"""Annotated aliases for the parameters of operation records: they say what an argument is,
and the normaliser (``ops/normalize.py``) reads them once per record to check and convert
the argument before the implementation runs, with torch's rules and errors.

    def sum(be, input, dim: DimOrDims | None = None, keepdim: KeepDim = False, *,
            dtype: DType = None, axis: Any = None, keepdims: bool | None = None): ...

- ``Dim``, ``Dims``, ``DimOrDims``: dimensions of the first operand (``input``), one or
  several; NumPy integers and 0-d integer tensors count, bools do not; checked against
  its rank (torch's ``IndexError``) and made non-negative; of a 0-d operand, ``0`` and
  ``-1`` are accepted and read as None (the operation's "no dimension").  A record that
  also has NumPy's ``axis`` parameter takes it as an alias (both given: ``TypeError``).
- ``VectorDim``: a dimension where a 0-d operand is one element along dim 0 (0 and -1
  read as 0): torch's scans, ``max(t, dim)`` of a 0-d tensor, ``unfold``.
- ``NewDim``: a dimension of the result, one more than the operand has (``unsqueeze``,
  ``stack``).  ``Annotated[int, DimOf(param)]`` counts another parameter's dimensions (a list of tensors:
  its first), for the few records whose dimension is not the first operand's.
- ``KeepDim``: a bool; NumPy's ``keepdims``, where the record has it, is its alias.
- ``DType``: a dtype in any spelling interop takes (NumPy's, torch's, a name), as NumPy's.
- ``Size``: a shape given as ``f(2, 3)``, ``f((2, 3))`` or ``f([2, 3])``: a tuple of ints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any


@dataclass(frozen=True)
class DimSpec:
    """What a dimension parameter counts: the dimensions of ``of`` (a parameter, or several
    whose broadcast it counts; None: the first operand) plus ``extra`` new ones; one
    dimension (``single``), several (``several``), or either.  ``vector_if_scalar``: a 0-d
    operand is one element along dim 0, so 0 and -1 read as 0 (torch's ``unfold``,
    ``cosine_similarity``), not as None."""

    arity: str = "either"
    of: str | tuple[str, ...] | None = None
    extra: int = 0
    vector_if_scalar: bool = False


@dataclass(frozen=True)
class KeepDimSpec:
    """A ``keepdim`` flag, with NumPy's ``keepdims`` as its alias."""


@dataclass(frozen=True)
class DTypeSpec:
    """A dtype in any spelling, converted to NumPy's."""


@dataclass(frozen=True)
class SizeSpec:
    """A shape, given as separate ints or one sequence."""


Dim = Annotated[int, DimSpec("single")]
Dims = Annotated[tuple[int, ...], DimSpec("several")]
DimOrDims = Annotated[int | tuple[int, ...], DimSpec("either")]
NewDim = Annotated[int, DimSpec("single", extra=1)]
VectorDim = Annotated[int, DimSpec("single", vector_if_scalar=True)]
KeepDim = Annotated[bool, KeepDimSpec()]
DType = Annotated[Any, DTypeSpec()]
Size = Annotated[tuple[int, ...], SizeSpec()]


def DimOf(of: str | tuple[str, ...], extra: int = 0,  # noqa: N802
          vector_if_scalar: bool = False) -> DimSpec:
    """A dimension of the parameter ``of`` (a list of tensors: of its first one; several
    parameters: of their broadcast), as ``Annotated[int, DimOf("tensors")]``."""
    return DimSpec("single", of=of, extra=extra, vector_if_scalar=vector_if_scalar)
