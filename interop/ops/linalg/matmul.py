"""Matrix products.  torch requires both operands of a product to share a dtype;
so do we, with torch's message, rather than promoting silently.
"""

from __future__ import annotations

from typing import Any

from ...errors import UnsupportedDtypeError
from .._args import promote
from ..registry import op, torch_alias


def _dtype_mismatch(name: str, a: Any, b: Any) -> RuntimeError:
    """torch's error for operands of two dtypes (checked inline: this is a hot path)."""
    return RuntimeError(f"{name}: expected m1 and m2 to have the same dtype, but got: "
                        f"{a.dtype} != {b.dtype}; convert one with .to(other.dtype)")


def _check_ndim(name: str, x: Any, ndim: int, what: str) -> None:
    if x.ndim != ndim:
        raise RuntimeError(f"{name}: {what} must be a {ndim}D tensor, got {x.ndim}D")


@op(out=True)
def matmul(be: Any, input: Any, other: Any) -> Any:
    """Matrix product with broadcasting (1-d operands are vectors), as ``@``.

    >>> interop.matmul(interop.ones(2, 3), interop.ones(3))
    tensor([3., 3.], backend='numpy')
    >>> (interop.ones(4, 2, 3) @ interop.ones(3, 5)).shape
    (4, 2, 5)
    """
    if input.ndim == 0 or other.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{input.ndim}D and {other.ndim}D")
    if input.dtype != other.dtype:
        raise _dtype_mismatch("matmul", input, other)
    n, k = input.shape[-1], other.shape[-2 if other.ndim > 1 else 0]
    if n != k and n == n and k == k:  # NaN (a Dask size not known yet): Dask checks when run
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                           f"({'x'.join(map(str, input.shape))} and "
                           f"{'x'.join(map(str, other.shape))})")
    out = be.np.matmul(input, other)
    if input.dtype.kind in "fc":
        return out
    if input.dtype.kind == "b" and (out.size and input.shape[-1] or input.ndim == other.ndim == 1):
        raise UnsupportedDtypeError('matmul: "dot"/"addmm" not implemented for bool tensors '
                                    "(torch too, when there is work); convert first, e.g. "
                                    "t.int() or t.float()")
    return out if out.dtype == input.dtype else out.astype(input.dtype)  # Dask: int32 -> int64


@op(out=True)
def mm(be: Any, input: Any, mat2: Any) -> Any:
    """Product of two matrices (2-d only)."""
    _check_ndim("mm", input, 2, "self")
    _check_ndim("mm", mat2, 2, "mat2")
    return matmul(be, input, mat2)


torch_alias("torch.spmm", to="mm")  # one builtin in torch: resolve_name may say either


@op(out=True)
def bmm(be: Any, input: Any, mat2: Any) -> Any:
    """Batched product of (b, n, m) and (b, m, p) tensors."""
    _check_ndim("bmm", input, 3, "batch1")
    _check_ndim("bmm", mat2, 3, "batch2")
    return matmul(be, input, mat2)


@op(out=True)
def mv(be: Any, input: Any, vec: Any) -> Any:
    """Matrix-vector product."""
    _check_ndim("mv", input, 2, "self")
    _check_ndim("mv", vec, 1, "vec")
    return matmul(be, input, vec)


@op(out=True)
def dot(be: Any, input: Any, other: Any) -> Any:
    """Inner product of two 1-d tensors."""
    _check_ndim("dot", input, 1, "self")
    _check_ndim("dot", other, 1, "other")
    if input.dtype != other.dtype:
        raise _dtype_mismatch("dot", input, other)
    return be.np.sum(input * other)


@op(out=True, aliases=("ger",))
def outer(be: Any, input: Any, vec2: Any) -> Any:
    """Outer product of two vectors."""
    a, b = promote(input, vec2)
    return be.np.multiply(a[:, None], b[None, :])


@op(method=False, keywords={"axes": "dims"})
def tensordot(be: Any, a: Any, b: Any, dims: Any = 2) -> Any:
    """Sum of products over the given dimensions."""
    a, b = promote(a, b)
    if isinstance(dims, (list, tuple)) and len(dims) == 2 and not isinstance(dims[0], int):
        for x, y in zip(dims[0], dims[1]):  # torch broadcasts a size-1 contracted dim
            if a.shape[x] == 1 and b.shape[y] != 1:
                b = be.np.sum(b, axis=y, keepdims=True)
            elif b.shape[y] == 1 and a.shape[x] != 1:
                a = be.np.sum(a, axis=x, keepdims=True)
    return be.np.tensordot(a, b, axes=dims)


@op(method=False)
def vecdot(be: Any, x: Any, y: Any, *, dim: int = -1, axis: Any = None) -> Any:
    """Dot product along ``dim`` (complex first argument conjugated)."""
    x, y = promote(x, y)
    d = dim if axis is None else axis
    return be.np.sum(be.np.conj(x) * y if x.dtype.kind == "c" else x * y, axis=d)


@op(method=False)
def einsum(be: Any, equation: Any, *operands: Any) -> Any:
    """Einstein summation; operands promote to one dtype first.  Also torch's sublist form,
    ``einsum(a, [0, 1], b, [1, 2], [0, 2])``.

    >>> interop.einsum('ij,j->i', interop.ones(2, 3), interop.ones(3))
    tensor([3., 3.], backend='numpy')
    >>> interop.einsum('ii', interop.eye(3))
    tensor(3., backend='numpy')
    """
    if not isinstance(equation, str):
        equation, operands = _sublist_equation((equation, *operands))
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    if arrow and "..." in lhs and "..." not in rhs:  # torch sums the ellipsis dims away
        out = be.np.einsum(f"{lhs}->...{rhs}", *promote(*operands))
        return be.np.sum(out, axis=tuple(range(out.ndim - len(rhs))))
    return be.np.einsum(equation, *promote(*operands))


def _sublist_equation(args: tuple) -> tuple[str, tuple]:
    """(operand, sublist, operand, sublist, ..., [output sublist]) as an equation and operands."""
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

    def subscripts(sublist: Any) -> str:
        try:
            return "".join("..." if s is Ellipsis else letters[s] for s in sublist)
        except (IndexError, TypeError):
            raise ValueError(f"einsum(): sublist {list(sublist)} must hold integers in [0, 52) "
                             "or Ellipsis") from None
    operands, terms = args[0::2][:len(args) // 2], [subscripts(s) for s in args[1::2]]
    equation = ",".join(terms[:len(operands)])
    if len(args) % 2:
        equation += "->" + subscripts(args[-1])
    return equation, tuple(operands)


@op()
def trace(be: Any, input: Any) -> Any:
    """Sum of the main diagonal of a matrix."""
    _check_ndim("trace", input, 2, "input")
    return be.np.trace(input)
