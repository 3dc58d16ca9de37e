"""Linear algebra: products, decompositions, solvers, torch.linalg.

Importing the package declares its operations (fills ``registry.TABLE``)."""

from . import core, expm, functions, householder, ldl, legacy, lowrank, lu, products  # noqa: F401
