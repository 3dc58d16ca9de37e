"""The Array API ``linalg`` extension (2024.12) on interop tensors, generated from the backends'."""

from ._names import LINALG
from ._wrap import generate_all

globals().update(generate_all(LINALG, "linalg"))
__all__ = list(LINALG)
