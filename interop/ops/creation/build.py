"""torch functions that build a tensor out of others: block_diag, cartesian_prod,
combinations, complex/polar/view_as_complex, frexp's (mantissa, exponent) pair,
``Tensor.unfold``'s sliding windows and ``_chunk_cat``'s padded chunks.  Each is a
composition of backend primitives (concatenate, meshgrid, take, pad, arithmetic), so it
stays lazy on Dask.
"""

from __future__ import annotations

import itertools
from collections import namedtuple
from typing import Annotated, Any

from ... import dtypes
from .._args import int_arg, promote
from ..annotations import DimOf
from ..normalize import in_range
from ..registry import op
from ..shape.manipulation import _reshape as reshape_any

_FREXP = namedtuple("frexp", ["mantissa", "exponent"])
_COMPLEX = {"float16": dtypes.complex64, "float32": dtypes.complex64,
            "float64": dtypes.complex128}


@op(method=False)
def block_diag(be: Any, *tensors: Any) -> Any:
    """The tensors (0-, 1- or 2-d) as blocks on the diagonal of a zero matrix."""
    blocks = [be.np.reshape(t, (1, -1) if t.ndim < 2 else t.shape) for t in tensors]
    if any(b.ndim != 2 for b in blocks):
        raise RuntimeError("torch.block_diag: Input tensors must have 2 or fewer dimensions; "
                           "reshape the others into matrices first")
    if not blocks:
        return be.np.zeros((0, 0), dtype=dtypes.get_default_dtype())
    blocks = list(promote(*blocks)) if len(blocks) > 1 else blocks
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        right = width - left - b.shape[1]
        rows.append(be.np.concatenate([be.np.zeros((b.shape[0], left), dtype=b.dtype), b,
                                       be.np.zeros((b.shape[0], right), dtype=b.dtype)], axis=1))
        left += b.shape[1]
    return be.np.concatenate(rows, axis=0)


@op(method=False)
def cartesian_prod(be: Any, *tensors: Any) -> Any:
    """Every combination of one element from each 1-d tensor, as rows (one tensor: itself)."""
    if len({str(t.dtype) for t in tensors}) > 1:
        raise RuntimeError("cartesian_prod: meshgrid expects all tensors to have the same dtype; "
                           "convert them to one dtype first")
    if len(tensors) == 1:
        return tensors[0]
    grids = be.np.meshgrid(*tensors, indexing="ij")
    return be.np.stack([be.np.reshape(g, (-1,)) for g in grids], axis=1)


@op()
def combinations(be: Any, input: Any, r: int = 2, with_replacement: bool = False) -> Any:
    """Length-``r`` combinations of a 1-d tensor's elements, as rows (itertools' order)."""
    if input.ndim != 1:
        raise RuntimeError(f"torch.combinations: Expect a 1D vector, but got shape "
                           f"{list(input.shape)}; flatten it first")
    if r == 0:
        return be.np.zeros((0,), dtype=input.dtype)
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    index = [list(c) for c in pick(range(int(input.shape[0])), r)]
    if not index:
        return be.np.zeros((0, r), dtype=input.dtype)
    flat = be.np.asarray([i for c in index for i in c], dtype=dtypes.int64)  # Dask takes 1-d
    return be.np.reshape(be.np.take(input, flat, axis=0), (len(index), r))


def _complex(be: Any, real: Any, imag: Any) -> Any:
    dt = _COMPLEX.get(str(real.dtype))
    if dt is None or real.dtype != imag.dtype:
        raise RuntimeError(f"complex: expected both inputs to be Half, Float or Double tensors "
                           f"of one dtype but got {real.dtype} and {imag.dtype}")
    return real.astype(dt) + imag.astype(dt) * 1j


@op("complex", method=False)
def complex_(be: Any, real: Any, imag: Any) -> Any:
    """``real + imag * 1j`` (float32 -> complex64, float64 -> complex128)."""
    return _complex(be, real, imag)


@op(method=False)
def polar(be: Any, abs: Any, angle: Any) -> Any:  # noqa: A002
    """The complex numbers with modulus ``abs`` and argument ``angle``."""
    return _complex(be, abs * be.np.cos(angle), abs * be.np.sin(angle))


@op(method=False)
def view_as_complex(be: Any, input: Any) -> Any:
    """A (..., 2) float tensor's pairs as complex numbers (a copy: backends keep no
    complex view of real memory that Dask and CuPy share)."""
    if input.ndim == 0 or input.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    return _complex(be, input[..., 0], input[..., 1])


@op(method=False)
def view_as_real(be: Any, input: Any) -> Any:
    """A complex tensor as (..., 2) real pairs (a copy, as ``view_as_complex`` is)."""
    if input.dtype.kind != "c":
        raise RuntimeError(f"view_as_real is only supported for complex tensors, got "
                           f"{input.dtype}; make it complex first (torch.complex(re, im))")
    return be.np.stack([be.np.real(input), be.np.imag(input)], axis=-1)


@op()
def frexp(be: Any, input: Any) -> Any:
    """(mantissa, exponent) with ``input = mantissa * 2**exponent``, exponent int32."""
    if input.dtype.kind != "f":
        raise RuntimeError(f"torch.frexp() only supports floating-point dtypes, got "
                           f"{input.dtype}; convert with .float() first")
    mantissa, exponent = be.np.frexp(input)
    return _FREXP(mantissa, exponent.astype(dtypes.int32))


@op("tensor_unfold", function=False, method="unfold",
    torch=("torch.Tensor.unfold",))
def tensor_unfold(be: Any, input: Any, dimension: Annotated[int, DimOf("input", vector_if_scalar=True)],
                  size: int, step: int) -> Any:
    """Windows of ``size`` every ``step`` along ``dimension``, as a new last dimension."""
    x = be.np.reshape(input, (1,)) if input.ndim == 0 else input
    d = dimension
    n = int(x.shape[d])
    if size > n or step <= 0:
        raise RuntimeError(f"unfold: maximum size for tensor at dimension {d} is {n} but size "
                           f"is {size}; step ({step}) must be > 0")
    starts = be.np.arange(0, n - size + 1, step, dtype=dtypes.int64)
    index = starts[:, None] + be.np.arange(size, dtype=dtypes.int64)[None, :]
    taken = be.np.take(x, be.np.reshape(index, (-1,)), axis=d)  # Dask takes 1-d indices only
    taken = be.np.reshape(taken, (*x.shape[:d], int(starts.shape[0]), size, *x.shape[d + 1:]))
    windows = be.np.moveaxis(taken, d + 1, -1)
    return be.np.reshape(windows, (size,)) if input.ndim == 0 else windows


def _chunk_cat_dim(tensors: list, dim: int, num_chunks: int) -> int:
    """torch's checks of ``_chunk_cat``'s arguments, in its order; the dim, made non-negative."""
    if num_chunks < 1:
        raise RuntimeError(f"_chunk_cat expects positive num_chunks, got {num_chunks}")
    if not tensors:
        raise RuntimeError("_chunk_cat expects a non-empty input tensor list")
    for t in tensors:
        if t.ndim == 0 or t.size == 0:  # (torch's kernel crashes on a 0-d tensor)
            raise RuntimeError("_chunk_cat expects non-empty tensor (with 1 or more dimensions)")
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("_chunk_cat expects all input tensors with the same dtype; "
                               "convert them to one dtype first")
    if len({t.ndim for t in tensors}) == 1:  # (the one dim rule that reads several ranks)
        dim = in_range("_chunk_cat", "dim", dim, tensors[0].ndim)
    elif dim < 0:
        raise RuntimeError("_chunk_cat expects non-negative dim when input tensors have "
                           "different ndims")
    elif any(dim >= t.ndim for t in tensors):
        raise RuntimeError("_chunk_cat expects dim < ndim for all input tensors")
    if any(tuple(t.shape[:dim]) != tuple(tensors[0].shape[:dim]) for t in tensors):
        raise RuntimeError("_chunk_cat expects same sizes of 0,...,dim-1 dimensions for all "
                           "tensors")
    return dim


@op("_chunk_cat", method=False, torch=("torch._chunk_cat",))
def chunk_cat(be: Any, tensors: Any, dim: int, num_chunks: int) -> Any:
    """Each tensor cut into ``num_chunks`` chunks along ``dim`` (zero-padded to a multiple of
    ``num_chunks`` there), each chunk flattened from ``dim`` on, and the chunks of all the
    tensors joined: shape (*sizes before dim, num_chunks, total) (FSDP's gradient buckets)."""
    tensors = list(tensors)
    num_chunks = int_arg("_chunk_cat", "num_chunks", num_chunks)
    d = _chunk_cat_dim(tensors, dim, num_chunks)
    lead = tuple(tensors[0].shape[:d])
    parts = []
    for t in tensors:
        n = int(t.shape[d])
        padded = -(-n // num_chunks) * num_chunks
        if padded != n:
            t = be.np.pad(t, [(0, padded - n) if i == d else (0, 0) for i in range(t.ndim)])
        parts.append(reshape_any(be, t, (*lead, num_chunks, -1)))
    return be.np.concatenate(parts, axis=d + 1)
