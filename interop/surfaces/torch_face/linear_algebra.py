"""ATen's linear-algebra kernels that return more than torch.linalg's functions do (the
factorisation autograd reuses: ``_linalg_det``'s LU and pivots), or name their arguments
otherwise, as torch.linalg records.

The ``info`` results are zeros and ``_linalg_check_errors`` checks nothing: the records raise
torch's error when a factorisation fails (a singular matrix), before any info is made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .records import record


def _empty(like: Any) -> Any:
    return record("torch.Tensor.new_empty")(like, (0,))


def _info(A: Any) -> Any:
    """int32 zeros, one per matrix of ``A``: no factorisation failed (the records raise)."""
    return record("torch.Tensor.new_zeros")(A, tuple(A.shape[:-2]), dtype=np.int32)


def linalg_svd(A: Any, full_matrices: bool, compute_uv: bool, driver: Any) -> tuple:  # noqa: N803
    """``_linalg_svd``: (U, S, Vh), U and Vh empty without ``compute_uv``."""
    if compute_uv:
        return tuple(record("torch.linalg.svd")(A, full_matrices))
    S = record("torch.linalg.svdvals")(A)
    return _empty(S), S, _empty(S)


def linalg_eigh(A: Any, UPLO: str = "L", compute_v: bool = True) -> tuple:  # noqa: N803
    """``_linalg_eigh``: (eigenvalues, eigenvectors), the vectors empty without ``compute_v``."""
    if compute_v:
        return tuple(record("torch.linalg.eigh")(A, UPLO))
    values = record("torch.linalg.eigvalsh")(A, UPLO)
    return values, _empty(values)


def linalg_det(A: Any) -> tuple:  # noqa: N803
    """``_linalg_det``: (det, LU, pivots)."""
    return (record("torch.linalg.det")(A), *record("torch.linalg.lu_factor")(A))


def linalg_slogdet(A: Any) -> tuple:  # noqa: N803
    """``_linalg_slogdet``: (sign, logabsdet, LU, pivots)."""
    return (*record("torch.linalg.slogdet")(A), *record("torch.linalg.lu_factor")(A))


def linalg_solve_ex(A: Any, B: Any, *, left: bool = True,  # noqa: N803
                    check_errors: bool = False) -> tuple:
    """``_linalg_solve_ex``: (result, LU, pivots, info)."""
    return (record("torch.linalg.solve")(A, B, left=left), *record("torch.linalg.lu_factor")(A),
            _info(A))


def check_errors(info: Any, api_name: str, *, is_matrix: bool) -> None:
    """``_linalg_check_errors``: nothing to check (the records raised already)."""


def linalg_lstsq(A: Any, b: Any, rcond: Any = None, *, driver: Any = None) -> tuple:  # noqa: N803
    """``linalg_lstsq``: (solution, residuals, rank, singular_values)."""
    return tuple(record("torch.linalg.lstsq")(A, b, rcond, driver=driver))


def cholesky_solve(input: Any, input2: Any, upper: bool = False) -> Any:
    return record("torch.cholesky_solve")(input, input2, upper)


def ormqr(input: Any, input2: Any, input3: Any, left: bool = True,
          transpose: bool = False) -> Any:
    return record("torch.ormqr")(input, input2, input3, left, transpose)


ADAPTERS: dict[str, Callable[..., Any]] = {
    "aten._linalg_svd": linalg_svd, "aten._linalg_eigh": linalg_eigh,
    "aten._linalg_det": linalg_det, "aten._linalg_slogdet": linalg_slogdet,
    "aten._linalg_solve_ex": linalg_solve_ex, "aten._linalg_check_errors": check_errors,
    "aten.linalg_lstsq": linalg_lstsq, "aten.cholesky_solve": cholesky_solve,
    "aten.ormqr": ormqr}
