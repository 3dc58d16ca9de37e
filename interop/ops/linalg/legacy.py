"""torch's pre-``torch.linalg`` functions, kept by torch for old code: cholesky (with
``upper``), cholesky_inverse, cholesky_solve, triangular_solve, qr(some=) and
svd(some=, compute_uv=) returning V rather than Vh.  Each is the ``torch.linalg``
implementation (interop/ops/linalg/functions.py) with the old signature and result.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from ..registry import op, torch_names
from . import torch_linalg as tl

_QR = namedtuple("qr", ["Q", "R"])
_SVD = namedtuple("svd", ["U", "S", "V"])
_TRIANGULAR = namedtuple("triangular_solve", ["solution", "cloned_coefficient"])


# torch 2.14 removed torch.qr and torch.cholesky (deprecated since torch 1.9); interop's follow.
REMOVED_IN = "interop 0.3.0"


@op("cholesky", torch=torch_names("cholesky", method=True),
    deprecated=f"torch removed torch.cholesky in torch 2.14, and {REMOVED_IN} removes it: use "
               "interop.linalg_cholesky(A), or torch.linalg.cholesky(A) (upper=True: its .mH)")
def cholesky(be: Any, input: Any, upper: bool = False) -> Any:
    """L with A = L L^H (``upper=True``: U with A = U^H U); torch.linalg.cholesky's factor."""
    return tl.cholesky(be, input, upper=upper)


@op(torch=torch_names("cholesky_inverse", method=True))
def cholesky_inverse(be: Any, L: Any, upper: bool = False) -> Any:  # noqa: N803 (torch's name)
    """The inverse of A from its Cholesky factor (lower L, or upper U with ``upper``)."""
    tl._square("cholesky_inverse", L)
    factor = L if upper else tl.mH(be, L)  # U with A = U^H U
    u_inv = tl.solve_triangular(be, factor, _eye_like(be, L), upper=True)
    return be.np.matmul(u_inv, tl.mH(be, u_inv))


@op(torch=torch_names("cholesky_solve", method=True))
def cholesky_solve(be: Any, B: Any, L: Any, upper: bool = False) -> Any:  # noqa: N803
    """X with A X = B, given B and A's Cholesky factor L (U with ``upper``)."""
    lower = tl.mH(be, L) if upper else L
    y = tl.solve_triangular(be, lower, B, upper=False)
    return tl.solve_triangular(be, tl.mH(be, lower), y, upper=True)


@op(torch=torch_names("triangular_solve", method=True))
def triangular_solve(be: Any, b: Any, A: Any, upper: bool = True,  # noqa: N803
                     transpose: bool = False, unitriangular: bool = False) -> Any:
    """(X, A) with op(A) X = b for triangular A; op transposes with ``transpose``."""
    tri = be.np.swapaxes(A, -1, -2) if transpose else A
    x = tl.solve_triangular(be, tri, b, upper=upper != transpose, unitriangular=unitriangular)
    return _TRIANGULAR(x, be.copy(A))


@op("qr", torch=torch_names("qr", method=True),
    deprecated=f"torch removed torch.qr in torch 2.14, and {REMOVED_IN} removes it: use "
               "interop.linalg_qr(A), or torch.linalg.qr(A) (some=False: mode='complete')")
def qr(be: Any, input: Any, some: bool = True) -> Any:
    """(Q, R); ``some=False``: complete Q."""
    q, r = tl.qr(be, input, mode="reduced" if some else "complete")
    return _QR(q, r)


@op("svd", torch=torch_names("svd", method=True))
def svd(be: Any, input: Any, some: bool = True, compute_uv: bool = True) -> Any:
    """(U, S, V) with A = U diag(S) V^H; ``compute_uv=False``: U and V are zeros."""
    u, s, vh = tl.svd(be, input, full_matrices=not some)
    v = tl.mH(be, vh)
    if not compute_uv:  # torch: zero, full-size U and V
        m, n = input.shape[-2:]
        batch = tuple(input.shape[:-2])
        u = be.np.zeros((*batch, m, m), dtype=u.dtype)
        v = be.np.zeros((*batch, n, n), dtype=v.dtype)
    return _SVD(u, s, v)


def _eye_like(be: Any, a: Any) -> Any:
    n = a.shape[-1]
    return be.np.broadcast_to(be.np.eye(n, dtype=a.dtype), tuple(a.shape))
