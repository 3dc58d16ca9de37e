"""torch.linalg (and torch.det, torch.inverse, ...) on the backend's own linalg module
(numpy.linalg, cupy.linalg, dask.array.linalg), with torch's argument names and its
named-tuple results (``Q, R = torch.linalg.qr(A)``; ``.eigenvalues``/``.eigenvectors``).

Dask implements only part of linalg (inv, solve, qr, svd, cholesky, norm, lstsq); the
rest raises a TypeError naming the function and the backend rather than computing.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from ..annotations import DimOrDims, DType
from ..registry import op, torch_alias, torch_names

RESULTS: dict[str, Any] = {name: namedtuple(name, fields) for name, fields in {
    "linalg_qr": ("Q", "R"), "linalg_svd": ("U", "S", "Vh"), "linalg_eigh": ("eigenvalues", "eigenvectors"),
    "linalg_eig": ("eigenvalues", "eigenvectors"), "linalg_slogdet": ("sign", "logabsdet"),
    "linalg_inv_ex": ("inverse", "info"), "linalg_cholesky_ex": ("L", "info"),
    "linalg_solve_ex": ("result", "info"), "linalg_polar": ("U", "H"),
    "linalg_lstsq": ("solution", "residuals", "rank", "singular_values")}.items()}


def _dask_lacks(name: str) -> dict[str, str]:
    return {"dask": f"dask.array.linalg has no {name}"}


def linalg(be: Any, name: str) -> Any:
    """``be.np.linalg.<name>``, or a TypeError naming the torch function and backend."""
    fn = getattr(getattr(be.np, "linalg", None), name, None)
    if fn is None:
        raise TypeError(f"torch.linalg.{name} is not implemented by the {be.name} backend; "
                        "compute the tensor first (interop.tensor(t, backend='numpy'))")
    return fn


def _float(name: str, x: Any) -> None:
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.{name}: Expected a floating point or complex tensor as "
                           f"input. Got {x.dtype}; convert with .float() first")


def _square(name: str, x: Any) -> None:
    _float(name, x)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise RuntimeError(f"linalg.{name}: A must be batches of square matrices, but they are "
                           f"{x.shape[-2] if x.ndim > 1 else 1} by {x.shape[-1]} matrices")


def _like(out: Any, A: Any) -> Any:
    """Dask's linalg computes in float64; torch keeps the input's dtype."""
    return out if out.dtype == A.dtype else out.astype(A.dtype)


def mH(be: Any, x: Any) -> Any:  # noqa: N802 (torch's name)
    """The conjugate transpose of the last two dimensions."""
    x = be.np.swapaxes(x, -1, -2)
    return be.np.conj(x) if x.dtype.kind == "c" else x


def _zero_info(be: Any, a: Any) -> Any:
    return be.np.zeros(a.shape[:-2], dtype=np.int32)


@op("linalg_inv", method="inverse",
    torch=torch_names("inv", "torch.linalg", also=("torch.inverse", "torch.Tensor.inverse")))
def inv(be: Any, A: Any) -> Any:
    """The inverse of each square matrix."""
    _square("inv", A)
    return _like(linalg(be, "inv")(A), A)


@op("linalg_inv_ex", method=False, torch=torch_names("inv_ex", "torch.linalg"))
def inv_ex(be: Any, A: Any, *, check_errors: bool = False) -> Any:
    """(inverse, info): info is 0 where the inverse exists."""
    return RESULTS["linalg_inv_ex"](inv(be, A), _zero_info(be, A))


@op("linalg_det", method="det",
    torch=torch_names("det", "torch.linalg", function=True, method=True))
def det(be: Any, A: Any) -> Any:
    """The determinant of each square matrix."""
    _square("det", A)
    return linalg(be, "det")(A)


@op("linalg_slogdet", method="slogdet",
    torch=torch_names("slogdet", "torch.linalg", function=True, method=True))
def slogdet(be: Any, A: Any) -> Any:
    """(sign, log|det|), stable for large determinants."""
    _square("slogdet", A)
    sign, logabs = linalg(be, "slogdet")(A)
    return RESULTS["linalg_slogdet"](sign, logabs)


@op("logdet", method="logdet", torch=("torch.logdet", "torch.Tensor.logdet"))
def logdet(be: Any, A: Any) -> Any:
    """log(det(A)): nan for a negative determinant, -inf for zero."""
    sign, logabs = slogdet(be, A)
    return be.np.where(sign < 0, A.dtype.type(np.nan), logabs)


@op("linalg_solve", method=False, torch=torch_names("solve", "torch.linalg"))
def solve(be: Any, A: Any, B: Any, *, left: bool = True) -> Any:
    """X with A X = B (``left=False``: X A = B); B may be a vector or a batch of them."""
    _square("solve", A)
    if not left:
        return be.np.swapaxes(solve(be, be.np.swapaxes(A, -1, -2), be.np.swapaxes(B, -1, -2)),
                              -1, -2)
    if B.ndim == 1 or B.ndim == A.ndim - 1 and B.shape == A.shape[:-1]:  # torch's vector rule
        return _like(_solved(be, A, B[..., None])[..., 0], A)
    return _like(_solved(be, A, B), A)


def _solved(be: Any, A: Any, B: Any) -> Any:
    """The library's solve on matrices B, with the batch dimensions broadcast first (NumPy
    broadcasts them itself; CuPy wants them equal) and empty batches answered here."""
    if B.ndim < 2:  # refused as the library refuses it
        return linalg(be, "solve")(A, B)
    batch = np.broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2]))
    if 0 in batch or 0 in B.shape[-2:]:  # nothing to solve (CuPy divides by the batch size)
        return be.np.zeros(batch + tuple(B.shape[-2:]), dtype=np.result_type(A.dtype, B.dtype))
    return linalg(be, "solve")(be.np.broadcast_to(A, batch + tuple(A.shape[-2:])),
                               be.np.broadcast_to(B, batch + tuple(B.shape[-2:])))


@op("linalg_solve_ex", method=False, torch=torch_names("solve_ex", "torch.linalg"))
def solve_ex(be: Any, A: Any, B: Any, *, left: bool = True, check_errors: bool = False) -> Any:
    """(result, info) of solve."""
    return RESULTS["linalg_solve_ex"](solve(be, A, B, left=left), _zero_info(be, A))


@op("linalg_cholesky", method=False, torch=torch_names("cholesky", "torch.linalg"))
def cholesky(be: Any, A: Any, *, upper: bool = False) -> Any:
    """L with A = L L^H (``upper=True``: its conjugate transpose)."""
    _square("cholesky", A)
    L = _like(be.cholesky(A), A)
    return be.np.conj(be.np.swapaxes(L, -1, -2)) if upper else L


@op("linalg_cholesky_ex", method=False, torch=torch_names("cholesky_ex", "torch.linalg"))
def cholesky_ex(be: Any, A: Any, *, upper: bool = False, check_errors: bool = False) -> Any:
    """(L, info) of cholesky."""
    return RESULTS["linalg_cholesky_ex"](cholesky(be, A, upper=upper), _zero_info(be, A))


@op("linalg_qr", method=False, torch=torch_names("qr", "torch.linalg"))
def qr(be: Any, A: Any, mode: str = "reduced") -> Any:
    """(Q, R); ``mode`` 'reduced', 'complete' or 'r' (Q empty), as torch."""
    _float("qr", A)
    if mode == "r":
        r = linalg(be, "qr")(A, mode="r")
        return RESULTS["linalg_qr"](be.np.zeros((0,), dtype=A.dtype), r)
    q, r = be.qr(A, mode)
    return RESULTS["linalg_qr"](q, r)


@op("linalg_svd", method=False, torch=torch_names("svd", "torch.linalg"))
def svd(be: Any, A: Any, full_matrices: bool = True, *, driver: Any = None) -> Any:
    """(U, S, Vh) with A = U diag(S) Vh."""
    _float("svd", A)
    u, s, vh = be.svd(A, full_matrices)
    return RESULTS["linalg_svd"](u, s, vh)


@op("linalg_svdvals", method=False, torch=torch_names("svdvals", "torch.linalg"))
def svdvals(be: Any, A: Any, *, driver: Any = None) -> Any:
    """The singular values, descending."""
    _float("svdvals", A)
    return be.svdvals(A)


@op("linalg_eigh", method=False, torch=torch_names("eigh", "torch.linalg"))
def eigh(be: Any, A: Any, UPLO: str = "L") -> Any:
    """(eigenvalues ascending, eigenvectors) of a Hermitian matrix."""
    _square("eigh", A)
    w, v = linalg(be, "eigh")(A, UPLO=UPLO)
    return RESULTS["linalg_eigh"](w, v)


@op("linalg_matrix_sqrth", method=False, torch=torch_names("matrix_sqrth", "torch.linalg"))
def matrix_sqrth(be: Any, A: Any) -> Any:
    """The principal square root of a Hermitian positive-definite matrix (its lower triangle,
    as ``eigh`` reads it), from the eigendecomposition; eigenvalues below 0 count as 0, as in
    torch (torch 2.14's ``torch.linalg.matrix_sqrth``)."""
    _square("matrix_sqrth", A)
    w, v = linalg(be, "eigh")(A)
    root = be.np.sqrt(be.np.maximum(w, w.dtype.type(0)))
    return _like(be.np.matmul(v * root[..., None, :].astype(v.dtype), mH(be, v)), A)


@op("linalg_polar", method=False, torch=torch_names("polar", "torch.linalg"))
def polar(be: Any, A: Any) -> Any:
    """(U, H) with A = U H for m >= n: U with orthonormal columns, H Hermitian positive
    semi-definite, from the SVD as torch computes it on the CPU (torch 2.14's
    ``torch.linalg.polar``)."""
    _float("polar", A)
    if A.ndim < 2:
        raise RuntimeError("linalg.polar: The input tensor A must have at least 2 dimensions.")
    m, n = A.shape[-2:]
    if m < n:
        raise RuntimeError(f"linalg.polar: input must have at least as many rows as columns, "
                           f"but got {m} by {n} matrices (polar of A.mH gives the other factor "
                           "order)")
    w, s, vh = be.svd(A, False)
    h = be.np.matmul(mH(be, vh) * s[..., None, :].astype(vh.dtype), vh)
    return RESULTS["linalg_polar"](_like(be.np.matmul(w, vh), A), _like(h, A))


@op("linalg_eigvalsh", method=False, torch=torch_names("eigvalsh", "torch.linalg"))
def eigvalsh(be: Any, A: Any, UPLO: str = "L") -> Any:
    """Eigenvalues of a Hermitian matrix, ascending."""
    _square("eigvalsh", A)
    return linalg(be, "eigvalsh")(A, UPLO=UPLO)


def _complex(x: Any) -> Any:
    return x if x.dtype.kind == "c" else x.astype(np.result_type(x.dtype, np.complex64))


@op("linalg_eig", method=False, torch=torch_names("eig", "torch.linalg"),
    lacks=_dask_lacks("eig"))
def eig(be: Any, A: Any) -> Any:
    """(eigenvalues, eigenvectors), always complex as in torch."""
    _square("eig", A)
    w, v = linalg(be, "eig")(A)
    return RESULTS["linalg_eig"](_complex(w), _complex(v))


@op("linalg_eigvals", method=False, torch=torch_names("eigvals", "torch.linalg"),
    lacks=_dask_lacks("eigvals"))
def eigvals(be: Any, A: Any) -> Any:
    """Eigenvalues, always complex as in torch."""
    _square("eigvals", A)
    return _complex(linalg(be, "eigvals")(A))


def _ord(ord: Any) -> Any:
    return {"fro": "fro", "nuc": "nuc"}.get(ord, ord) if isinstance(ord, str) else ord


def _dims(dim: Any) -> Any:
    return tuple(dim) if isinstance(dim, list) else dim


@op("linalg_norm", method=False, torch=torch_names("norm", "torch.linalg"))
def norm(be: Any, A: Any, ord: Any = None, dim: Any = None, keepdim: bool = False, *,
         dtype: Any = None) -> Any:
    """A vector or matrix norm, chosen by ``ord`` and ``dim`` (numpy.linalg.norm's rules)."""
    x = A.astype(dtype) if dtype is not None else A
    _float("norm", x)
    if ord is None and dim is None and x.ndim > 2:
        return vector_norm(be, x, 2, None, keepdim)
    return linalg(be, "norm")(x, ord=_ord(ord), axis=_dims(dim), keepdims=keepdim)


@op("linalg_vector_norm", method=False, torch=torch_names("vector_norm", "torch.linalg"))
def vector_norm(be: Any, x: Any, ord: Any = 2, dim: DimOrDims | None = None,
                keepdim: bool = False, *, dtype: DType = None) -> Any:
    """(sum |x|^ord)^(1/ord) over ``dim`` (all dims by default); inf/-inf/0 as torch."""
    x = x.astype(dtype) if dtype is not None else x
    _float("vector_norm", x)
    d = dim  # (of a 0-d tensor, dim 0 or -1 is the scalar itself: None)
    a = be.np.abs(x)
    real = a.dtype
    if ord == float("inf"):
        return be.np.max(a, axis=d, keepdims=keepdim) if a.size else be.np.sum(a, axis=d, keepdims=keepdim)
    if ord == float("-inf"):
        return be.np.min(a, axis=d, keepdims=keepdim)
    if ord == 0:
        return be.np.sum(a != 0, axis=d, keepdims=keepdim).astype(real)
    if ord == 2:
        return be.np.sqrt(be.np.sum(a * a, axis=d, keepdims=keepdim))
    if ord == 1:
        return be.np.sum(a, axis=d, keepdims=keepdim)
    return (be.np.sum(a ** real.type(ord), axis=d, keepdims=keepdim) ** real.type(1 / ord))


@op("linalg_matrix_norm", method=False, torch=torch_names("matrix_norm", "torch.linalg"))
def matrix_norm(be: Any, A: Any, ord: Any = "fro", dim: Any = (-2, -1), keepdim: bool = False, *,
                dtype: Any = None) -> Any:
    """Frobenius, nuclear, 1/-1/2/-2/inf/-inf matrix norms over the two ``dim`` axes."""
    x = A.astype(dtype) if dtype is not None else A
    _float("matrix_norm", x)
    if ord in ("nuc", 2, -2):  # from the singular values (Dask's norm has none beyond 2-d)
        return _singular_value_norm(be, x, ord, tuple(dim), keepdim)
    return linalg(be, "norm")(x, ord=_ord(ord), axis=tuple(dim), keepdims=keepdim)


def _singular_value_norm(be: Any, x: Any, ord: Any, dim: tuple, keepdim: bool) -> Any:
    """The nuclear (sum), 2 (largest) or -2 (smallest singular value) norm of each matrix."""
    dims = tuple(d % x.ndim for d in dim)
    s = be.svdvals(be.np.moveaxis(x, dims, (-2, -1)))
    out = s.sum(axis=-1) if ord == "nuc" else s.max(axis=-1) if ord == 2 else s.min(axis=-1)
    for d in sorted(dims) if keepdim else ():
        out = be.np.expand_dims(out, d)
    return out


@op("linalg_matrix_power", method="matrix_power",
    torch=torch_names("matrix_power", "torch.linalg", function=True, method=True))
def matrix_power(be: Any, A: Any, n: int) -> Any:
    """A^n for integer n (negative: powers of the inverse)."""
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices")
    return linalg(be, "matrix_power")(A, n)


@op("linalg_pinv", method="pinverse",
    torch=torch_names("pinv", "torch.linalg", also=("torch.pinverse", "torch.Tensor.pinverse")))
def pinv(be: Any, A: Any, rcond: Any = None, hermitian: bool = False, *, atol: Any = None,
         rtol: Any = None) -> Any:
    """The Moore-Penrose pseudo-inverse (singular values below rtol * max are dropped)."""
    _float("pinv", A)
    if atol is not None:
        raise NotImplementedError("linalg.pinv: atol= is not implemented by interop; use rtol=")
    tol = rtol if rtol is not None else rcond
    if tol is None:
        tol = max(A.shape[-2:]) * np.finfo(A.dtype).eps if A.shape[-1] and A.shape[-2] else 0.0
    if not A.size:  # nothing to invert: the transposed shape (Dask's pinv cannot broadcast an
        return be.np.swapaxes(A, -1, -2).copy()  # rtol of an empty batch)
    if hermitian:
        return _hermitian_pinv(be, A, tol)
    return linalg(be, "pinv")(A, rcond=tol)


def _hermitian_pinv(be: Any, A: Any, tol: Any) -> Any:
    """NumPy's pinv(hermitian=True) by eigh, on every backend (CuPy's pinv has no
    ``hermitian=``): V diag(1/w) V^H over the eigenvalues w above tol * the largest |w|."""
    w, v = linalg(be, "eigh")(A)
    size = be.np.abs(w)
    cutoff = be.np.asarray(tol)[..., None] * be.np.max(size, axis=-1, keepdims=True)
    kept = size > cutoff
    inverse = be.np.where(kept, 1 / be.np.where(kept, w, 1), 0).astype(v.dtype)
    return (v * inverse[..., None, :]) @ be.np.conj(be.np.swapaxes(v, -1, -2))


@op("linalg_matrix_rank", method=False, torch=torch_names("matrix_rank", "torch.linalg"))
def matrix_rank(be: Any, A: Any, tol: Any = None, hermitian: bool = False, *, atol: Any = None,
                rtol: Any = None) -> Any:
    """The number of singular values above max(atol, rtol * the largest), per matrix; atol and
    rtol (numbers or tensors, broadcast against the batch) default as torch's: atol 0, rtol
    max(m, n) * eps where atol is not positive; ``tol`` is atol with rtol 0 (the old form)."""
    _float("matrix_rank", A)
    s = svdvals(be, A) if not hermitian else be.np.abs(eigvalsh(be, A))
    if not s.size:  # nothing to count (and Dask has no max of an empty batch)
        smax = s.sum(-1, keepdims=True)
    else:
        smax = s[..., :1] if not hermitian else be.np.max(s, axis=-1, keepdims=True)
    if tol is not None:
        atol, rtol = tol, 0.0
    default = max(A.shape[-2:]) * np.finfo(A.real.dtype).eps
    if rtol is None:
        rtol = default if atol is None else be.np.where(be.np.asarray(atol) > 0, 0.0, default)
    cut = be.np.maximum(_per_matrix(0.0 if atol is None else atol), _per_matrix(rtol) * smax)
    return be.np.sum(s > cut, axis=-1).astype(np.int64)


def _per_matrix(x: Any) -> Any:
    """A tolerance (a number, or one per matrix of the batch) against the singular values."""
    return x[..., None] if getattr(x, "ndim", 0) else x


@op("linalg_multi_dot", method=False, torch=torch_names("multi_dot", "torch.linalg"))
def multi_dot(be: Any, tensors: Any) -> Any:
    """The product of a chain of matrices (first/last may be vectors)."""
    out = tensors[0]
    for t in tensors[1:]:
        out = be.np.matmul(out, t)
    return out


@op("linalg_cross", method=False, torch=torch_names("cross", "torch.linalg"))
def cross(be: Any, input: Any, other: Any, *, dim: int = -1) -> Any:
    """The 3-vector cross product along ``dim`` (broadcasting the rest)."""
    a, b = be.np.broadcast_arrays(input, other)
    return be.np.cross(a, b, axis=dim)


@op("linalg_diagonal", method=False, torch=torch_names("diagonal", "torch.linalg"))
def linalg_diagonal(be: Any, A: Any, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Any:
    """The diagonals of the matrices (a view where the backend allows)."""
    return be.np.diagonal(A, offset=offset, axis1=dim1, axis2=dim2)


@op("linalg_vander", method=False, torch=torch_names("vander", "torch.linalg"))
def vander(be: Any, x: Any, *, N: Any = None) -> Any:
    """Columns x^0, x^1, ..., x^(N-1) (increasing powers, torch's order)."""
    x = be.np.reshape(x, (1,)) if x.ndim == 0 else x  # torch: a 0-d x is one point
    n = x.shape[-1] if N is None else N
    return x[..., None] ** be.np.arange(n).astype(x.dtype)


LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _lstsq_operands(A: Any, B: Any) -> tuple[Any, bool]:
    """B as (..., m, k), and whether it was a (batch of) vector(s) (..., m); torch's checks."""
    if not 0 <= A.ndim - B.ndim <= 1 or A.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to "
                           "other.dim() and (input.dim() - other.dim()) <= 1, with input a "
                           f"(batch of) matrices; got {A.ndim} and {B.ndim} dimensions")
    if A.dtype != B.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same "
                           f"dtype, but got {A.dtype} and {B.dtype}; convert one with .to()")
    vector = B.ndim == A.ndim - 1
    B = B[..., None] if vector else B
    if B.shape[-2] != A.shape[-2]:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size(-2); "
                           f"got {A.shape[-2]} and {B.shape[-2]}")
    try:
        np.broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2]))
    except ValueError:
        raise RuntimeError(f"torch.linalg.lstsq: the batch dimensions of input "
                           f"{tuple(A.shape[:-2])} and other {tuple(B.shape[:-2])} must "
                           "broadcast") from None
    return B, vector


@op("linalg_lstsq", method=False, torch=torch_names("lstsq", "torch.linalg"))
def lstsq(be: Any, A: Any, B: Any, rcond: Any = None, *, driver: Any = None) -> Any:
    """(solution, residuals, rank, singular_values) minimising ||A X - B||, batched; the
    minimum-norm solution from the SVD, and torch's rules for what each driver returns:
    rank unless 'gels', singular values for 'gelsd'/'gelss', residuals (per column of B)
    for tall A unless 'gelsy', and for 'gelsd'/'gelss' only when every A has full rank.
    The rank is the number of singular values above ``rcond`` times the largest, LAPACK's
    rule for 'gelsd'/'gelss'; 'gelsy' estimates it from a pivoted QR instead, which agrees
    except near the cut-off (a large ``rcond`` on 'gelsy' may count differently)."""
    _float("lstsq", A)
    driver = "gelsy" if driver is None else driver  # torch's CPU default
    if driver not in LSTSQ_DRIVERS:
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of "
                           f"{LSTSQ_DRIVERS}; got {driver!r}")
    B, vector = _lstsq_operands(A, B)
    m, n = A.shape[-2:]
    real = A.real.dtype
    if rcond is None or driver == "gels":  # gels assumes full rank: no cut-off
        rcond = np.finfo(real).eps * max(m, n) if driver != "gels" else 0.0
    u, s, vh = be.np.linalg.svd(A, full_matrices=False)
    smax = s[..., :1] if min(m, n) else s.sum(-1, keepdims=True)
    kept = s > real.type(rcond) * smax
    inv = be.np.where(kept, 1 / be.np.where(kept, s, real.type(1)), real.type(0)).astype(A.dtype)
    x = mH(be, vh) @ (inv[..., None] * (mH(be, u) @ B))  # batch dims broadcast here
    rank = be.np.sum(kept, axis=-1).astype(np.int64)
    empty = be.np.zeros((0,), dtype=real)
    residuals = empty
    if m > n and driver != "gelsy" and (driver == "gels" or bool(be.to_host(
            be.np.all(rank == n), "linalg.lstsq's residuals (returned only when every "
            "matrix has full rank)"))):
        residuals = be.np.sum(be.np.abs(A @ x - B) ** 2, axis=-2).astype(real)
        residuals = residuals * 0 if driver == "gels" and n == 0 else residuals  # torch's zeros
    return RESULTS["linalg_lstsq"](
        x[..., 0] if vector else x, residuals,
        be.np.zeros((0,), dtype=np.int64) if driver == "gels" else rank,
        s.astype(real) if driver in ("gelsd", "gelss") else empty)


@op("linalg_solve_triangular", method=False, torch=torch_names("solve_triangular", "torch.linalg"))
def solve_triangular(be: Any, A: Any, B: Any, *, upper: bool, left: bool = True,
                     unitriangular: bool = False) -> Any:
    """X with A X = B (``left=False``: X A = B) for triangular A (its other half is ignored)."""
    _square("solve_triangular", A)
    T = be.np.triu(A) if upper else be.np.tril(A)
    if unitriangular:
        n = A.shape[-1]
        eye = be.np.eye(n, dtype=bool)
        T = be.np.where(eye, A.dtype.type(1), T)
    return solve(be, T, B, left=left)


@op("linalg_cond", method=False, torch=torch_names("cond", "torch.linalg"))
def cond(be: Any, A: Any, p: Any = None) -> Any:
    """The condition number in the ``p`` norm (2-norm by default)."""
    _float("cond", A)
    return linalg(be, "cond")(A, p=_ord(p))


@op("linalg_tensorinv", method=False, torch=torch_names("tensorinv", "torch.linalg"),
    lacks=_dask_lacks("tensorinv"))
def tensorinv(be: Any, A: Any, ind: int = 2) -> Any:
    """The inverse of A for tensordot over its first ``ind`` dims."""
    _float("tensorinv", A)
    return linalg(be, "tensorinv")(A, ind=ind)


@op("linalg_tensorsolve", method=False, torch=torch_names("tensorsolve", "torch.linalg"),
    lacks=_dask_lacks("tensorsolve"))
def tensorsolve(be: Any, A: Any, B: Any, dims: Any = None) -> Any:
    """X with tensordot(A, X, X.ndim) = B."""
    _float("tensorsolve", A)
    return linalg(be, "tensorsolve")(A, B, axes=dims)


torch_alias("torch.linalg.vecdot", to="vecdot")
