"""torch.linalg.ldl_factor, ldl_factor_ex and ldl_solve as LAPACK computes them: the
Bunch-Kaufman factorisation A = L D L^T of the lower triangle (sytf2: D of 1x1 and 2x2
blocks, pivots 1-based, negative for a 2x2 block) and its solve (sytrs).

The pivot choices depend on each matrix's values, one column at a time, so each matrix is
factorised on its own with in-place writes, on the host: lazy backends (Dask, Cubed) run
it in one task on whole arrays.  Complex matrices are complex
symmetric with ``hermitian=False`` (torch's default) and Hermitian (LAPACK's hetrf and
hetrs: conjugates, a real D) with ``hermitian=True``.
"""

from __future__ import annotations

import functools
import math
from collections import namedtuple
from typing import Any

import numpy as np

from .._args import whole_arrays
from ..registry import op
from . import torch_linalg as tl
from .lu import factors_in_one_task

_FACTOR = namedtuple("linalg_ldl_factor", ["LD", "pivots"])
_FACTOR_EX = namedtuple("linalg_ldl_factor_ex", ["LD", "pivots", "info"])
_ALPHA = (1 + math.sqrt(17)) / 8


def _abs1(x: Any) -> Any:
    """LAPACK's cabs1 (|re| + |im|) for complex, |x| for real."""
    return abs(x.real) + abs(x.imag) if np.iscomplexobj(x) else abs(x)


def _sytf2(a: Any, hermitian: bool) -> tuple[Any, Any, int]:
    """(LD, pivots, info) of one symmetric matrix (its lower triangle read), on the host;
    ``hermitian`` (complex): LAPACK's hetf2, the same steps with conjugates and a real D."""
    n = a.shape[0]
    herm = hermitian and np.iscomplexobj(a)
    conj = np.conj if herm else (lambda x: x)
    A = np.tril(a) + conj(np.tril(a, -1)).T  # the working copy kept whole (LAPACK reads L)
    diag = np.arange(n)
    if herm:
        A[diag, diag] = A[diag, diag].real

    def dabs(x: Any) -> Any:  # a diagonal entry's size: hetf2 reads its real part only
        return abs(x.real) if herm else _abs1(x)
    ipiv = np.zeros(n, dtype=np.int32)
    info = 0
    k = 0
    while k < n:
        kstep = 1
        absakk = dabs(A[k, k])
        if k < n - 1:
            imax = k + 1 + int(np.argmax(_abs1(A[k + 1:, k])))
            colmax = _abs1(A[imax, k])
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0 or np.isnan(absakk):
            info = info or k + 1
            kp = k
        else:
            if absakk >= _ALPHA * colmax:
                kp = k
            else:
                rowmax = _abs1(A[imax, k:imax]).max()
                if imax < n - 1:
                    rowmax = max(rowmax, _abs1(A[imax + 1:, imax]).max())
                if absakk >= _ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif dabs(A[imax, imax]) >= _ALPHA * rowmax:
                    kp = imax
                else:
                    kp, kstep = imax, 2
            kk = k + kstep - 1
            if kp != kk:  # the symmetric interchange of kk and kp in the trailing matrix
                A[[kk, kp], k:] = A[[kp, kk], k:]
                A[k:, [kk, kp]] = A[k:, [kp, kk]]
            if kstep == 1:
                if k < n - 1:
                    d11 = 1 / (A[k, k].real if herm else A[k, k])
                    x = A[k + 1:, k].copy()
                    A[k + 1:, k + 1:] -= d11 * np.outer(x, conj(x))
                    A[k + 1:, k] = x * d11
                    A[k, k + 1:] = conj(A[k + 1:, k])
            elif k < n - 2 and herm:
                d = abs(A[k + 1, k])
                d11, d22 = A[k + 1, k + 1].real / d, A[k, k].real / d
                t = 1 / (d11 * d22 - 1)
                d21 = A[k + 1, k] / d
                d = t / d
                ck, ck1 = A[k + 2:, k].copy(), A[k + 2:, k + 1].copy()
                wk = d * (d11 * ck - d21 * ck1)
                wkp1 = d * (d22 * ck1 - np.conj(d21) * ck)
                A[k + 2:, k + 2:] -= np.outer(ck, np.conj(wk)) + np.outer(ck1, np.conj(wkp1))
                A[k + 2:, k], A[k + 2:, k + 1] = wk, wkp1
                A[k, k + 2:], A[k + 1, k + 2:] = np.conj(wk), np.conj(wkp1)
            elif k < n - 2:
                d21 = A[k + 1, k]
                d11 = A[k + 1, k + 1] / d21
                d22 = A[k, k] / d21
                t = 1 / (d11 * d22 - 1)
                d21 = t / d21
                ck, ck1 = A[k + 2:, k].copy(), A[k + 2:, k + 1].copy()
                wk = d21 * (d11 * ck - ck1)
                wkp1 = d21 * (d22 * ck1 - ck)
                A[k + 2:, k + 2:] -= np.outer(ck, wk) + np.outer(ck1, wkp1)
                A[k + 2:, k], A[k + 2:, k + 1] = wk, wkp1
                A[k, k + 2:], A[k + 1, k + 2:] = wk, wkp1
            if herm:
                A[diag, diag] = A[diag, diag].real
        if kstep == 1:
            ipiv[k] = kp + 1
        else:
            ipiv[k] = ipiv[k + 1] = -(kp + 1)
        k += kstep
    return np.tril(A), ipiv, info


def _check(name: str, A: Any) -> None:
    tl._square(name, A)


def _factor(be: Any, A: Any, hermitian: bool) -> tuple[Any, Any, Any]:
    return factors_in_one_task(be, _packed_factors, A, A.shape[-1], hermitian)


def _packed_factors(be: Any, A: Any, hermitian: bool) -> Any:
    """[LD flattened, pivots, info] per matrix, in ``A``'s dtype, factorised on the host."""
    n = A.shape[-1]
    host = be.to_host(A, "linalg.ldl_factor").reshape(math.prod(A.shape[:-2]), n, n)
    parts = [_sytf2(a, hermitian) for a in host]
    packed = np.concatenate([np.stack([p[0].reshape(n * n) for p in parts]),
                             np.stack([p[1] for p in parts]),
                             np.array([[p[2]] for p in parts])], axis=1) if parts else \
        np.zeros((0, n * n + n + 1))
    return be.asarray(packed.astype(A.dtype))


@op("linalg_ldl_factor_ex", method=False, torch=("torch.linalg.ldl_factor_ex",))
def ldl_factor_ex(be: Any, A: Any, *, hermitian: bool = False,  # noqa: N803 (torch's name)
                  check_errors: bool = False) -> Any:
    """(LD, pivots, info): L below the diagonal, D's blocks on it, LAPACK's pivots, and the
    first zero pivot (1-based; 0 when none)."""
    _check("linalg.ldl_factor_ex", A)
    LD, piv, info = _factor(be, A, hermitian)
    if check_errors and bool(np.any(be.to_host(info) > 0)):
        raise RuntimeError("torch.linalg.ldl_factor_ex: D is singular (a zero pivot); the "
                           "factorisation completed but cannot be used to solve")
    return _FACTOR_EX(LD, piv, info)


@op("linalg_ldl_factor", method=False, torch=("torch.linalg.ldl_factor",))
def ldl_factor(be: Any, A: Any, *, hermitian: bool = False) -> Any:  # noqa: N803
    """(LD, pivots) of the Bunch-Kaufman factorisation A = L D L^T (LAPACK sytrf)."""
    _check("linalg.ldl_factor", A)
    LD, piv, info = _factor(be, A, hermitian)
    if bool(np.any(be.to_host(info) > 0)):  # torch raises too
        raise RuntimeError("torch.linalg.ldl_factor: the factorisation met a zero pivot (D is "
                           "singular); use linalg.ldl_factor_ex for the factors and info")
    return _FACTOR(LD, piv)


def _sytrs(LD: Any, ipiv: Any, B: Any, hermitian: bool) -> Any:
    """X with A X = B from one matrix's factors (LAPACK sytrs, lower; hetrs for
    ``hermitian`` complex ones), on the host."""
    n = LD.shape[0]
    conj = np.conj if hermitian and np.iscomplexobj(LD) else (lambda x: x)
    B = B.copy()
    k = 0
    while k < n:  # L D Y = B
        if ipiv[k] > 0:
            kp = ipiv[k] - 1
            B[[k, kp]] = B[[kp, k]]
            B[k + 1:] -= np.outer(LD[k + 1:, k], B[k])
            B[k] /= LD[k, k].real if conj is np.conj else LD[k, k]
            k += 1
        else:
            kp = -ipiv[k] - 1
            B[[k + 1, kp]] = B[[kp, k + 1]]
            B[k + 2:] -= np.outer(LD[k + 2:, k], B[k]) + np.outer(LD[k + 2:, k + 1], B[k + 1])
            akm1k = LD[k + 1, k]
            akm1, ak = LD[k, k] / conj(akm1k), LD[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1
            bkm1, bk = B[k] / conj(akm1k), B[k + 1] / akm1k
            B[k], B[k + 1] = (ak * bkm1 - bk) / denom, (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:  # L^T X = Y
        if ipiv[k] > 0:
            B[k] -= conj(LD[k + 1:, k]) @ B[k + 1:]
            kp = ipiv[k] - 1
            B[[k, kp]] = B[[kp, k]]
            k -= 1
        else:
            B[k] -= conj(LD[k + 1:, k]) @ B[k + 1:]
            B[k - 1] -= conj(LD[k + 1:, k - 1]) @ B[k + 1:]
            kp = -ipiv[k] - 1
            B[[k, kp]] = B[[kp, k]]
            k -= 2
    return B


@op("linalg_ldl_solve", method=False, torch=("torch.linalg.ldl_solve",))
def ldl_solve(be: Any, LD: Any, pivots: Any, B: Any, *,  # noqa: N803 (torch's names)
              hermitian: bool = False) -> Any:
    """X with A X = B from ldl_factor's (LD, pivots) (LAPACK sytrs); batches broadcast."""
    _check("linalg.ldl_solve", LD)
    if pivots.dtype != np.int32:
        raise RuntimeError(f"torch.linalg.ldl_solve: Expected pivots to be integers (int32); "
                           f"got {pivots.dtype}")
    if B.ndim < 2 or B.shape[-2] != LD.shape[-1]:
        raise RuntimeError(f"torch.linalg.ldl_solve: B must be (a batch of) matrices with "
                           f"{LD.shape[-1]} rows; got shape {tuple(B.shape)}")
    if B.dtype != LD.dtype:
        raise RuntimeError(f"torch.linalg.ldl_solve: LD and B must share a dtype; got "
                           f"{LD.dtype} and {B.dtype}")
    n, k = LD.shape[-1], B.shape[-1]
    batch = tuple(np.broadcast_shapes(tuple(LD.shape[:-2]), tuple(pivots.shape[:-1]),
                                      tuple(B.shape[:-2])))
    return whole_arrays(be, functools.partial(_solved, hermitian=hermitian, batch=batch),
                        (*batch, n, k), B.dtype, LD, pivots, B)


def _solved(be: Any, LD: Any, pivots: Any, B: Any, hermitian: bool, batch: tuple) -> Any:  # noqa: N803
    """sytrs for every matrix of the broadcast batch, on the host."""
    n, k = LD.shape[-1], B.shape[-1]
    count = math.prod(batch)
    ld = np.broadcast_to(be.to_host(LD, "linalg.ldl_solve"), (*batch, n, n)).reshape(count, n, n)
    piv = np.broadcast_to(be.to_host(pivots), (*batch, n)).reshape(count, n)
    b = np.broadcast_to(be.to_host(B), (*batch, n, k)).reshape(count, n, k)
    out = np.stack([_sytrs(*args, hermitian) for args in zip(ld, piv, b)]) if count else b.copy()
    return be.asarray(out.reshape(*batch, n, k))
