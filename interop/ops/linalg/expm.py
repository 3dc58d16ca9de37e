"""torch.linalg.matrix_exp as torch computes it on the CPU, so that float32 results agree
with torch's to its rounding (not only to the exact exponential): Bader, Blanes and Casas'
optimised Taylor polynomials of degree 1, 2, 4, 8, 12 and 18 ("Computing the matrix
exponential with an optimized Taylor polynomial approximation", Mathematics 2019), chosen
by the 1-norm for a single matrix; a batch of several matrices always takes degree 18 with
scaling and squaring, each matrix squared as often as its own norm needs, as torch does.

The products of small batched matrices are summed in torch's order (its CPU ``bmm`` loops
below 400 multiply-adds per matrix instead of calling BLAS); on Dask each chunk of whole
matrices runs the same code (the degree and the squarings depend on the values).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..registry import op, torch_names
from .torch_linalg import _square

_SQRT_177 = 0.1330413469565007072504e+2
_X3 = 2. / 3.
_T8 = {"x1": _X3 * ((1. + _SQRT_177) / 88.), "x2": _X3 * ((1. + _SQRT_177) / 352.),
       "x4": (-271. + 29. * _SQRT_177) / (315. * _X3),
       "x5": (-11. + 11. * _SQRT_177) / (1260. * _X3),
       "x6": (-99. + 11. * _SQRT_177) / (5040. * _X3), "x7": (89. - _SQRT_177) / (5040. * _X3),
       "y2": (857. - 58. * _SQRT_177) / 630.}
_T12 = ((9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740),
        (5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031,
         0.01108844528519167989),
        (0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968,
         0.00610700528898058230),
        (-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079,
         -0.00675951846863086359))
_T18 = ((0., -1.00365581030144618291e-01, -8.02924648241156932449e-03,
         -8.92138498045729985177e-04, 0.),
        (0., 3.97849749499645077844e-01, 1.36783778460411720168e+00, 4.98289622525382669416e-01,
         -6.37898194594723280150e-04),
        (-1.09676396052962061844e+01, 1.68015813878906206114e+00, 5.71779846478865511061e-02,
         -6.98210122488052056106e-03, 3.34975017086070470649e-05),
        (-9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02,
         2.95552570429315521194e-02, -1.39180257516060693404e-05),
        (0., 0., -9.23364619367118555360e-02, -1.69364939002081722752e-02,
         -1.40086798182036094347e-05))
"""The coefficients of the degree 8, 12 and 18 polynomials (Bader et al., as torch has them)."""
THETAS = {4: (1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02,
              5.800524627688768e-01, 1.461661507209034e+00, 3.010066362817634e+00),
          8: (2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04,
              4.991228871115323e-02, 2.996158913811580e-01, 1.090863719290036e+00)}
"""The largest 1-norm each degree (1, 2, 4, 8, 12, 18) serves, by the real type's bytes."""


def _mm(a: Any, b: Any) -> Any:
    """``a @ b`` for stacks of matrices, in torch's CPU bmm order: its own loop (sums over k
    in order, one rounding each) below 400 multiply-adds per matrix, BLAS above."""
    if a.shape[-1] * a.shape[-2] * b.shape[-1] >= 400:
        return a @ b
    out = a[..., :, 0, None] * b[..., None, 0, :]
    for k in range(1, a.shape[-1]):
        out = out + a[..., :, k, None] * b[..., None, k, :]
    return out


def _sum(coefs: tuple, mats: tuple, real: Any) -> Any:
    """sum(c * m), in order, with the coefficients in the real type (torch's linear combination)."""
    out = real.type(coefs[0]) * mats[0]
    for c, m in zip(coefs[1:], mats[1:]):
        out = out + real.type(c) * m
    return out


def _taylor(A: Any, degree: int, xp: Any) -> Any:
    """The degree-``degree`` polynomial approximation of exp on the stack ``A`` (b, n, n)."""
    real = A.real.dtype
    eye = xp.broadcast_to(xp.eye(A.shape[-1], dtype=A.dtype), A.shape)
    if degree == 1:
        return eye + A
    A2 = _mm(A, A)
    if degree == 2:
        return eye + A + A2 / real.type(2)
    if degree == 4:
        return eye + A + _mm(A2, _sum((1 / 2, 1 / 6, 1 / 24), (eye, A, A2), real))
    if degree == 8:
        c = _T8
        A4 = _mm(A2, _sum((c["x1"], c["x2"]), (A, A2), real))
        A8 = _mm(_sum((_X3, 1.0), (A2, A4), real),
                 _sum((c["x4"], c["x5"], c["x6"], c["x7"]), (eye, A, A2, A4), real))
        return _sum((1.0, 1.0, c["y2"], 1.0), (eye, A, A2, A8), real)
    A3 = _mm(A, A2)
    if degree == 12:
        B = [_sum(row, (eye, A, A2, A3), real) for row in _T12]
        A6 = B[2] + _mm(B[3], B[3])
        return B[0] + _mm(B[1] + A6, A6)
    B = [_sum(row, (eye, A, A2, A3, _mm(A3, A3)), real) for row in _T18]
    A9 = B[3] + _mm(B[0], B[4])
    return B[1] + _mm(B[2] + A9, A9)


def _scaled_and_squared(A: Any, norm: Any, theta: Any, xp: Any) -> Any:
    """Degree 18 on A / 2^s, squared s times, s = ceil(log2(norm / theta)) per matrix."""
    s = xp.maximum(0, xp.ceil(xp.log2(norm / theta)))
    s = xp.where(xp.isfinite(s), s, 0).astype(np.int64)  # nan/inf matrices stay nan
    R = _taylor(A / (2.0 ** s).astype(A.real.dtype)[:, None, None], 18, xp)
    for k in range(int(s.max()) if s.size else 0):
        R = xp.where((k < s)[:, None, None], R @ R, R)  # torch squares each matrix by BLAS
    return R


def expm(A: Any, highest: bool, xp: Any = np) -> Any:
    """exp of each matrix of the stack ``A`` (b, n, n), n > 1, on one host or device array;
    ``highest``: degree 18 for every matrix (torch's rule for a batch of several)."""
    real = A.real.dtype
    thetas = [real.type(t) for t in THETAS[real.itemsize]]
    norm = xp.abs(A).sum(axis=-2).max(axis=-1)
    if highest:
        return _scaled_and_squared(A, norm, thetas[-1], xp)
    out = xp.full(A.shape, np.nan, dtype=A.dtype)  # a nan norm falls in no interval
    low = real.type(-1)
    for degree, theta in zip((1, 2, 4, 8, 12), thetas):
        chosen = (low < norm) & (norm <= theta)
        if chosen.any():
            out[chosen] = _taylor(A[chosen], degree, xp)
        low = theta
    large = norm >= thetas[-2]
    if large.any():
        out[large] = _scaled_and_squared(A[large], norm[large], thetas[-1], xp)
    return out


@op("linalg_matrix_exp", method="matrix_exp",
    torch=torch_names("matrix_exp", "torch.linalg", function=True, method=True))
def matrix_exp(be: Any, A: Any) -> Any:
    """exp(A) of each square matrix, by torch's algorithm; on Dask per chunk of whole
    matrices (the degree and the squarings depend on each matrix's norm)."""
    _square("matrix_exp", A)
    n = A.shape[-1]
    if n == 0:
        return A.copy()
    if n == 1:
        return be.np.exp(A)
    highest = math.prod(A.shape[:-2]) > 1

    def run(block: Any, xp: Any = np) -> Any:
        return expm(block.reshape(-1, n, n), highest, xp).reshape(block.shape)
    return be.on_matrices(run, A)
