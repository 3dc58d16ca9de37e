"""Products built from matmul: the fused forms (addmm, addmv, addr, baddbmm, addbmm:
beta * input + alpha * product) and inner, kron, vdot, cross."""

from __future__ import annotations

from typing import Any

from ... import dtypes
from .._args import promote, scaled
from ..registry import op


def _fused(input: Any, prod: Any, beta: Any, alpha: Any, *operands: Any) -> Any:
    """beta * input + alpha * prod in the operands' dtype (beta=0 ignores input, nan too);
    integer tensors take integer scalars (torch truncates 0.6 to 0)."""
    dt = dtypes.result_type(input, *operands)
    if dt.kind in "iu":
        alpha, beta = int(alpha), int(beta)
    out = scaled(prod, alpha)
    if beta != 0:
        out = out + scaled(input, beta)
    return out if out.dtype == dt else out.astype(dt)


# ------------------------------------------------------------------ fused arithmetic
@op()
def addmm(be: Any, input: Any, mat1: Any, mat2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    """beta * input + alpha * (mat1 @ mat2); beta=0 ignores input (nan included)."""
    return _fused(input, be.np.matmul(mat1, mat2), beta, alpha, mat1, mat2)


@op()
def addmv(be: Any, input: Any, mat: Any, vec: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    """beta * input + alpha * (mat @ vec)."""
    return _fused(input, be.np.matmul(mat, vec), beta, alpha, mat, vec)


@op()
def addr(be: Any, input: Any, vec1: Any, vec2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    """beta * input + alpha * outer(vec1, vec2)."""
    prod = vec1[:, None] * vec2[None, :]
    if prod.dtype.kind == "b":
        return be.np.logical_or(prod, input) if beta else prod
    prod = scaled(prod, alpha)
    return prod + scaled(input, beta) if beta != 0 else prod


@op()
def baddbmm(be: Any, input: Any, batch1: Any, batch2: Any, *, beta: Any = 1,
            alpha: Any = 1) -> Any:
    """beta * input + alpha * (batch1 @ batch2), batch by batch."""
    return _fused(input, be.np.matmul(batch1, batch2), beta, alpha, batch1, batch2)


@op()
def addbmm(be: Any, input: Any, batch1: Any, batch2: Any, *, beta: Any = 1,
           alpha: Any = 1) -> Any:
    """beta * input + alpha * sum_b(batch1[b] @ batch2[b])."""
    return _fused(input, be.np.sum(be.np.matmul(batch1, batch2), axis=0), beta, alpha, batch1, batch2)

# ------------------------------------------------------------------ products
@op()
def inner(be: Any, input: Any, other: Any) -> Any:
    """Sum over the last dims of both (a scalar operand multiplies)."""
    a, b = promote(input, other)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return be.np.tensordot(a, b, axes=([-1], [-1]))


@op()
def kron(be: Any, input: Any, other: Any) -> Any:
    """The Kronecker product: every pair of axes (a's i-th, b's i-th) merged into one."""
    a, b = promote(input, other)
    n = max(a.ndim, b.ndim)
    a = be.np.reshape(a, (1,) * (n - a.ndim) + tuple(a.shape))
    b = be.np.reshape(b, (1,) * (n - b.ndim) + tuple(b.shape))
    pairs = be.np.reshape(a, [s for d in a.shape for s in (d, 1)]) * \
        be.np.reshape(b, [s for d in b.shape for s in (1, d)])
    return be.np.reshape(pairs, tuple(x * y for x, y in zip(a.shape, b.shape)))


@op()
def vdot(be: Any, input: Any, other: Any) -> Any:
    """sum(conj(input) * other) of two 1-d tensors of one dtype."""
    if input.dtype != other.dtype:
        raise RuntimeError(f"vdot: expected both vectors to have same dtype, but found "
                           f"{input.dtype} and {other.dtype}")
    return be.np.sum(be.np.conj(input) * other)


@op()
def cross(be: Any, input: Any, other: Any, dim: Any = None) -> Any:
    """The 3-vector cross product along ``dim`` (default: the first dim of size 3)."""
    a, b = be.np.broadcast_arrays(*promote(input, other))
    if dim is None:
        dim = next(i for i, s in enumerate(a.shape) if s == 3)
    if a.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{a.shape[dim]} and {b.shape[dim]}")
    x, y = ([be.np.take(v, i, axis=dim) for i in range(3)] for v in (a, b))
    return be.np.stack([x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2],
                        x[0] * y[1] - x[1] * y[0]], axis=dim)
