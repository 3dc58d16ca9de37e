"""The Array API ``linalg`` extension (2025.12) on interop tensors, generated from the backends'."""

from ._names import LINALG
from ._signatures import attach
from ._wrap import generate_all

globals().update(attach(generate_all(LINALG, "linalg"), "linalg"))
__all__ = list(LINALG)
