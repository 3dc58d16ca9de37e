"""Linear algebra: products, decompositions, solvers, torch.linalg.

Importing the package declares its operations (fills ``registry.TABLE``)."""

from . import matmul  # noqa: F401  (first: torch_linalg aliases its records)

# isort: split
from . import expm, householder, ldl, legacy, lowrank, lu, products, torch_linalg  # noqa: F401
