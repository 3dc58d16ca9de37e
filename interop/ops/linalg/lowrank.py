"""torch.svd_lowrank and torch.pca_lowrank: Halko, Martinsson and Tropp's randomized SVD
(their algorithms 4.4 and 5.1, as torch/_lowrank.py writes them), on interop tensors.

torch's own Python code cannot run on them: its matmul helper asks ``isinstance(A,
torch.Tensor)`` to tell sparse matrices apart.  Here the same steps run on the backend's
arrays (lazily on Dask), and the random test matrix is torch's own draw (``torch.randn``
from torch's default generator, on the host), so the results are torch's up to the
signs of the singular vectors, which LAPACK implementations choose differently.
"""

from __future__ import annotations

import sys
from typing import Any

from ... import dtypes
from ..registry import op
from .matmul import matmul
from .torch_linalg import qr, svd


def _mh(be: Any, x: Any) -> Any:
    """The conjugate transpose of the last two dimensions."""
    t = be.np.swapaxes(x, -1, -2)
    return be.np.conj(t) if x.dtype.kind == "c" else t


def _torch_randn(be: Any, like: Any, rows: int, cols: int) -> Any:
    """torch's ``randn(rows, cols)`` in torch's floating dtype for ``like`` (float16/32/64 and
    complex kept, others float32), drawn as torch draws it, on ``like``'s backend."""
    torch = sys.modules["torch"]  # reached from torch's functions only
    dt = like.dtype if dtypes.kind(like.dtype) in "fc" else dtypes.float32
    drawn = torch.randn(rows, cols, dtype=getattr(torch, dt.name)).numpy()
    return be.asarray(drawn, device=be.device_of(like))


def _minus(be: Any, a: Any, M: Any, times: Any) -> Any:  # noqa: N803
    """``a @ times``, less ``M @ times`` when there is an M (the mean taken out as torch does,
    without forming ``a - M``)."""
    out = matmul(be, a, times)
    return out if M is None else out - matmul(be, M, times)


def _basis(be: Any, A: Any, q: int, niter: int, M: Any) -> Any:  # noqa: N803
    """Q with orthonormal columns whose span approximates the range of ``A - M``."""
    R = _torch_randn(be, A, int(A.shape[-1]), q)  # noqa: N806
    Q = qr(be, _minus(be, A, M, R)).Q  # noqa: N806
    AH, MH = _mh(be, A), None if M is None else _mh(be, M)  # noqa: N806
    for _ in range(niter):
        Q = qr(be, _minus(be, AH, MH, Q)).Q  # noqa: N806
        Q = qr(be, _minus(be, A, M, Q)).Q  # noqa: N806
    return Q


def _svd_lowrank(be: Any, A: Any, q: int, niter: int, M: Any) -> tuple:  # noqa: N803
    m, n = A.shape[-2:]
    if M is not None:
        M = be.np.broadcast_to(M, tuple(A.shape))  # noqa: N806
    if m < n:
        A, M = _mh(be, A), None if M is None else _mh(be, M)  # noqa: N806
    Q = _basis(be, A, q, niter, M)  # noqa: N806
    B = _mh(be, _minus(be, _mh(be, A), None if M is None else _mh(be, M), Q))  # noqa: N806
    U, S, Vh = svd(be, B, False)  # noqa: N806
    U, V = matmul(be, Q, U), _mh(be, Vh)  # noqa: N806
    return (V, S, U) if m < n else (U, S, V)


@op(function=False, method=False, torch=("torch.svd_lowrank",))
def svd_lowrank(be: Any, A: Any, q: int | None = 6, niter: int | None = 2,  # noqa: N803
                M: Any = None) -> Any:  # noqa: N803
    """(U, S, V) with ``A - M ~ U diag(S) V^H``, of rank ``q``, by ``niter`` subspace
    iterations on a random start (torch's draw)."""
    return _svd_lowrank(be, A, 6 if q is None else q, 2 if niter is None else niter, M)


@op(function=False, method=False, torch=("torch.pca_lowrank",))
def pca_lowrank(be: Any, A: Any, q: int | None = None, center: bool = True,  # noqa: N803
                niter: int = 2) -> Any:
    """svd_lowrank of ``A`` with each column's mean taken out (``center``): V's columns are
    the principal directions, ``S**2 / (m - 1)`` the variances along them."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if center:
        A = A - be.np.mean(A, axis=-2, keepdims=True)  # noqa: N806
    return _svd_lowrank(be, A, q, niter, None)
