"""QR in LAPACK's packed form, as torch exposes it: ``torch.geqrf`` (the Householder vectors
below R's diagonal and their scales tau), ``torch.linalg.householder_product`` (LAPACK's
orgqr: the first n columns of Q = H_1 ... H_k) and ``torch.ormqr`` (ormqr: Q or Q^H times
another matrix, on either side), with H_i = I - tau_i v_i v_i^H and v_i column i of A below
the diagonal under an implicit 1.

geqrf is the backend's ``qr(mode='raw')`` (NumPy's gives LAPACK's h transposed); on Dask it
runs per chunk of whole matrices.  The products apply one reflector at a time with the
backend's array operations (rank-1 updates), so they stay lazy on Dask.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from ..registry import op
from .torch_linalg import _float, mH

_GEQRF = namedtuple("geqrf", ["a", "tau"])


def _matrix(name: str, x: Any, what: str = "input") -> None:
    if x.ndim < 2:
        raise RuntimeError(f"torch.{name}: {what} must have at least 2 dimensions; got "
                           f"{x.ndim} (add one with unsqueeze)")


def _raw_qr(a: Any, xp: Any = np) -> Any:
    """LAPACK's (h, tau) of each matrix, stacked as one array: tau is the extra last row."""
    m, n = a.shape[-2:]
    h, tau = xp.linalg.qr(a, mode="raw")
    pad = xp.zeros((*a.shape[:-2], n - tau.shape[-1]), dtype=a.dtype)
    last = xp.concatenate([tau.astype(a.dtype), pad], axis=-1)[..., None, :]
    return xp.concatenate([xp.swapaxes(h, -1, -2).astype(a.dtype), last], axis=-2)  # (JAX too)


@op(torch=("torch.geqrf", "torch.Tensor.geqrf"))
def geqrf(be: Any, input: Any) -> Any:
    """(a, tau): R on and above the diagonal, the Householder vectors below it (LAPACK geqrf)."""
    _float("geqrf", input)
    _matrix("geqrf", input)
    m, n = input.shape[-2:]
    k = min(m, n)
    packed = be.on_matrices(_raw_qr, input, (m + 1, n))  # h and tau made together
    return _GEQRF(packed[..., :m, :], packed[..., m, :k])


def _reflector(be: Any, A: Any, i: int) -> Any:
    """v_i (..., m, 1): zeros above row i, 1 at i, A[i+1:, i] below."""
    col = A[..., :, i:i + 1]
    rows = be.np.arange(A.shape[-2])[:, None]
    one = be.np.ones((), dtype=A.dtype)
    return be.np.where(rows > i, col, be.np.where(rows == i, one, be.np.zeros((), dtype=A.dtype)))


def _apply(be: Any, A: Any, tau: Any, C: Any, left: bool, adjoint: bool) -> Any:
    """op(Q) C (``left``) or C op(Q), Q = H_0 ... H_{k-1}, op = conjugate transpose if
    ``adjoint``: one rank-1 update per reflector, in the order the product needs."""
    k = tau.shape[-1]
    forward = left == adjoint  # Q^H C and C Q start from H_0
    for i in (range(k) if forward else range(k - 1, -1, -1)):
        v = _reflector(be, A, i)
        t = tau[..., i, None, None]
        t = be.np.conj(t) if adjoint and t.dtype.kind == "c" else t
        if left:
            C = C - t * (v @ (mH(be, v) @ C))
        else:
            C = C - t * ((C @ v) @ mH(be, v))
    return C


def _same_dtype(name: str, *xs: Any) -> None:
    if any(x.dtype != xs[0].dtype for x in xs):
        raise RuntimeError(f"torch.{name}: the arguments must share a dtype; got "
                           f"{', '.join(str(x.dtype) for x in xs)} (convert with .to(input.dtype))")


def _batch(name: str, input: Any, tau: Any) -> None:
    if tau.ndim != input.ndim - 1 or tuple(tau.shape[:-1]) != tuple(input.shape[:-2]):
        raise RuntimeError(f"torch.{name}: expected the batch dimensions of tau "
                           f"({tuple(tau.shape[:-1])}) to equal input.shape[:-2] "
                           f"({tuple(input.shape[:-2])})")


@op("linalg_householder_product", method=False,
    torch=("torch.linalg.householder_product",))
def householder_product(be: Any, A: Any, tau: Any) -> Any:  # noqa: N803 (torch's name)
    """The first n columns of H_1 ... H_k (LAPACK orgqr), A (..., m, n), m >= n >= k."""
    name = "linalg.householder_product"
    _float(name, A)
    _matrix(name, A)
    m, n = A.shape[-2:]
    if m < n:
        raise RuntimeError(f"torch.{name}: input.shape[-2] must be greater than or equal to "
                           f"input.shape[-1]; got {m} < {n}")
    if tau.shape[-1:] and tau.shape[-1] > n:
        raise RuntimeError(f"torch.{name}: input.shape[-1] must be greater than or equal to "
                           f"tau.shape[-1]; got {n} < {tau.shape[-1]}")
    _batch(name, A, tau)
    _same_dtype(name, A, tau)
    eye = be.np.broadcast_to(be.np.eye(m, M=n, dtype=A.dtype), (*A.shape[:-2], m, n))
    return _apply(be, A, tau, eye, left=True, adjoint=False)


@op(torch=("torch.orgqr", "torch.Tensor.orgqr"))
def orgqr(be: Any, input: Any, tau: Any) -> Any:
    """torch.linalg.householder_product under LAPACK's name."""
    return householder_product(be, input, tau)


@op(torch=("torch.ormqr", "torch.Tensor.ormqr"))
def ormqr(be: Any, input: Any, tau: Any, other: Any, left: bool = True,
          transpose: bool = False) -> Any:
    """op(Q) C (``left``) or C op(Q) (LAPACK ormqr): Q from geqrf's (input, tau),
    C = other, op = conjugate transpose when ``transpose``."""
    A, C = input, other
    _float("ormqr", A)
    _matrix("ormqr", A)
    _matrix("ormqr", C, "other")
    _same_dtype("ormqr", A, tau, C)
    _batch("ormqr", A, tau)
    side = C.shape[-2] if left else C.shape[-1]
    if A.shape[-2] != side:
        raise RuntimeError(f"torch.ormqr: input.shape[-2] ({A.shape[-2]}) must equal "
                           f"other.shape[{-2 if left else -1}] ({side}) with left={left}")
    if tau.shape[-1] > A.shape[-2] or tau.shape[-1] > A.shape[-1]:
        raise RuntimeError(f"torch.ormqr: tau.shape[-1] ({tau.shape[-1]}) must be at most "
                           f"min(input.shape[-2:]) ({min(A.shape[-2:])})")
    if tuple(C.shape[:-2]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"torch.ormqr: expected the batch dimensions of other "
                           f"({tuple(C.shape[:-2])}) to equal input.shape[:-2] "
                           f"({tuple(A.shape[:-2])})")
    return _apply(be, A, tau, C, left=left, adjoint=transpose)
