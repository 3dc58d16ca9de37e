"""LU factorisation with partial pivoting, as torch returns it: LAPACK's packed LU (unit
lower L below the diagonal, U on and above), 1-based int32 row-swap pivots, and the info
code (the first zero pivot, 1-based; 0 when none).  torch.linalg.lu, lu_factor,
lu_factor_ex, lu_solve and the older torch.lu, lu_solve, lu_unpack share it.

The factorisation is LAPACK's getf2 written with the backend's array operations (batched:
one column step over every matrix at once), with in-place writes: lazy backends (Dask,
Cubed) run it in one task on whole arrays (``whole_arrays``), the factors, pivots and info
codes packed in one array of A's dtype (pivots and codes are small integers, exact in it).
"""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Any

import numpy as np

from .._args import whole_arrays
from ..registry import op
from . import torch_linalg as tl

_LU = namedtuple("linalg_lu", ["P", "L", "U"])
_LU_FACTOR = namedtuple("linalg_lu_factor", ["LU", "pivots"])
_LU_FACTOR_EX = namedtuple("linalg_lu_factor_ex", ["LU", "pivots", "info"])
_LU_UNPACK = namedtuple("lu_unpack", ["P", "L", "U"])


def _check(name: str, A: Any, pivot: bool) -> None:
    tl._float(name, A)
    if A.ndim < 2:
        raise RuntimeError(f"torch.{name}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{tuple(A.shape)} instead")
    if not pivot:
        raise RuntimeError(f"{name}: LU without pivoting is not implemented on the CPU; "
                           "call it with pivot=True")


def _factor(be: Any, A: Any) -> tuple[Any, Any, Any]:
    """(LU, pivots, info) of every matrix in ``A`` (..., m, n), by getf2's column steps."""
    return factors_in_one_task(be, _packed_factors, A, min(A.shape[-2:]))


def factors_in_one_task(be: Any, packed: Any, A: Any, k: int, *args: Any) -> tuple[Any, Any, Any]:
    """(factors like ``A``, pivots (..., k), info (...)) from ``packed(be, A, *args)``, which
    returns them per matrix as one array [factors flattened, pivots, info] of ``A``'s dtype
    (pivots and codes are small integers, exact in it): on lazy backends, one task."""
    xp = be.np
    *batch, m, n = A.shape
    size = m * n
    out = whole_arrays(be, packed, (math.prod(batch), size + k + 1), A.dtype, A, *args)
    counts = out[:, size:]
    if counts.dtype.kind == "c":
        counts = xp.real(counts)
    counts = counts.astype(np.int32)
    return (xp.reshape(out[:, :size], (*batch, m, n)), xp.reshape(counts[:, :k], (*batch, k)),
            xp.reshape(counts[:, k], tuple(batch)))


def _packed_factors(be: Any, A: Any) -> Any:
    """[LU flattened, pivots, info] per matrix, in ``A``'s dtype (``_factor``)."""
    xp = be.np
    lu, pivots, info = _column_steps(be, A)
    return xp.concatenate([lu, pivots.astype(lu.dtype), info[:, None].astype(lu.dtype)], axis=1)


def _column_steps(be: Any, A: Any) -> tuple[Any, Any, Any]:
    """getf2 over every matrix at once: (LU (b, m * n), pivots (b, k), info (b,))."""
    xp = be.np
    *batch, m, n = A.shape
    k = min(m, n)
    lu = xp.reshape(xp.asarray(A).copy(), (math.prod(batch), m, n))
    rows = xp.arange(lu.shape[0])
    pivots = xp.zeros((lu.shape[0], k), dtype=np.int32)
    info = xp.zeros(lu.shape[0], dtype=np.int32)
    every = slice(None)
    for j in range(k):
        below = slice(j + 1, None)  # written through be.updated (JAX: out of place)
        p = xp.argmax(xp.abs(lu[:, j:, j]), axis=-1) + j  # the first largest, as idamax
        pivots = be.updated(pivots, (every, j), p + 1)
        row_j = lu[rows, j].copy()
        lu = be.updated(lu, (rows, j), lu[rows, p])
        lu = be.updated(lu, (rows, p), row_j)
        d = lu[:, j, j]
        singular = d == 0
        info = xp.where((info == 0) & singular, j + 1, info).astype(np.int32)
        lu = be.updated(lu, (every, below, j), lu[:, j + 1:, j] / xp.where(singular, 1, d)[:, None])
        lu = be.updated(lu, (every, below, below),
                        lu[:, j + 1:, j + 1:] - lu[:, j + 1:, j:j + 1] * lu[:, j:j + 1, j + 1:])
    return xp.reshape(lu, (lu.shape[0], m * n)), pivots, info


def _permutation(be: Any, pivots: Any, m: int, dtype: Any) -> Any:
    """P with A = P L U, from the row swaps ``pivots`` (1-based) applied in order (in one
    task on lazy backends: the swaps write in place)."""
    return whole_arrays(be, _swapped, (*pivots.shape[:-1], m, m), dtype, pivots, m, dtype)


def _swapped(be: Any, pivots: Any, m: int, dtype: Any) -> Any:
    xp = be.np
    *batch, k = pivots.shape
    swaps = xp.reshape(xp.asarray(pivots), (math.prod(batch), k)).astype(np.int64) - 1
    rows = xp.arange(swaps.shape[0])
    perm = xp.broadcast_to(xp.arange(m), (swaps.shape[0], m)).copy()
    for j in range(k):
        at_j = perm[:, j].copy()
        perm = be.updated(perm, (slice(None), j), perm[rows, swaps[:, j]])
        perm = be.updated(perm, (rows, swaps[:, j]), at_j)
    eye = xp.eye(m, dtype=dtype)
    return xp.reshape(xp.swapaxes(eye[perm], -1, -2), (*batch, m, m))


def _unpack(be: Any, LU: Any, pivots: Any, unpack_data: bool = True,  # noqa: N803
            unpack_pivots: bool = True) -> Any:
    xp = be.np
    m, n = LU.shape[-2:]
    k = min(m, n)
    empty = xp.zeros((0,), dtype=LU.dtype)
    P = _permutation(be, pivots, m, LU.dtype) if unpack_pivots else empty
    if not unpack_data:
        return _LU_UNPACK(P, empty, empty)
    L = xp.tril(LU[..., :, :k], -1) + xp.eye(m, dtype=LU.dtype)[:, :k]  # (Dask: eye(N, chunks))
    U = xp.triu(LU[..., :k, :])
    return _LU_UNPACK(P, L, U)


@op("linalg_lu_factor_ex", method=False, torch=("torch.linalg.lu_factor_ex",))
def lu_factor_ex(be: Any, A: Any, *, pivot: bool = True,  # noqa: N803 (torch's name)
                 check_errors: bool = False) -> Any:
    """(LU, pivots, info): LAPACK's packed factors, 1-based int32 pivots, the singular step."""
    _check("linalg.lu_factor_ex", A, pivot)
    LU, pivots, info = _factor(be, A)
    if check_errors and bool(be.np.any(info > 0)):
        raise RuntimeError("linalg.lu_factor_ex: U is singular (a zero pivot); the "
                           "factorisation completed but cannot be used to solve")
    return _LU_FACTOR_EX(LU, pivots, info)


@op("linalg_lu_factor", method=False, torch=("torch.linalg.lu_factor",))
def lu_factor(be: Any, A: Any, *, pivot: bool = True) -> Any:  # noqa: N803
    """(LU, pivots) of A = P L U; a singular A still factorises (torch's info is dropped)."""
    _check("linalg.lu_factor", A, pivot)
    LU, pivots, _ = _factor(be, A)
    return _LU_FACTOR(LU, pivots)


@op("linalg_lu", method=False, torch=("torch.linalg.lu",))
def lu(be: Any, A: Any, *, pivot: bool = True) -> Any:  # noqa: N803
    """(P, L, U) with A = P L U: L unit lower (m, k), U upper (k, n), k = min(m, n)."""
    _check("linalg.lu", A, pivot)
    LU, pivots, _ = _factor(be, A)
    return _LU(*_unpack(be, LU, pivots))


@op("lu", torch=("torch.functional.lu", "torch.lu", "torch.Tensor.lu"))
def lu_legacy(be: Any, A: Any, pivot: bool = True, get_infos: bool = False) -> Any:  # noqa: N803
    """torch.lu: (LU, pivots), with the info codes too when ``get_infos``."""
    _check("lu", A, pivot)
    LU, pivots, info = _factor(be, A)
    return (LU, pivots, info) if get_infos else (LU, pivots)


@op(torch=("torch.lu_unpack",), method=False)
def lu_unpack(be: Any, LU_data: Any, LU_pivots: Any, unpack_data: bool = True,  # noqa: N803
              unpack_pivots: bool = True) -> Any:
    """(P, L, U) from packed factors; the parts not asked for are empty tensors, as torch."""
    if LU_pivots.dtype != np.int32:
        raise RuntimeError(f"torch.lu_unpack: LU_pivots is expected to be a contiguous tensor "
                           f"of torch.int32 dtype, got {LU_pivots.dtype}")
    return _unpack(be, LU_data, LU_pivots, unpack_data, unpack_pivots)


def _solve(be: Any, LU: Any, pivots: Any, B: Any, left: bool, adjoint: bool) -> Any:  # noqa: N803
    """X with op(A) X = B (``left=False``: X op(A) = B), A = P L U, op = adjoint or identity."""
    xp = be.np
    if not left:  # X A = B  <=>  A^H X^H = B^H
        return tl.mH(be, _solve(be, LU, pivots, tl.mH(be, B), True, not adjoint))
    P, L, U = _unpack(be, LU, pivots)
    if adjoint:  # A^H X = B: U^H L^H P^T X = B
        Y = tl.solve_triangular(be, tl.mH(be, U), B, upper=False)
        Z = tl.solve_triangular(be, tl.mH(be, L), Y, upper=True, unitriangular=True)
        return xp.matmul(P, Z)
    Y = tl.solve_triangular(be, L, xp.matmul(tl.mH(be, P), B), upper=False, unitriangular=True)
    return tl.solve_triangular(be, U, Y, upper=True)


@op("linalg_lu_solve", method=False, torch=("torch.linalg.lu_solve",))
def lu_solve(be: Any, LU: Any, pivots: Any, B: Any, *, left: bool = True,  # noqa: N803
             adjoint: bool = False) -> Any:
    """X with A X = B from A's factors (``left=False``: X A = B; ``adjoint``: A^H)."""
    tl._float("lu_solve", LU)
    return _solve(be, LU, pivots, B, left, adjoint)


@op("lu_solve", torch=("torch.lu_solve", "torch.Tensor.lu_solve"))
def lu_solve_legacy(be: Any, b: Any, LU_data: Any, LU_pivots: Any) -> Any:  # noqa: N803
    """torch.lu_solve(b, LU_data, LU_pivots): torch.linalg.lu_solve's order of old."""
    tl._float("lu_solve", LU_data)
    return _solve(be, LU_data, LU_pivots, b, True, False)
