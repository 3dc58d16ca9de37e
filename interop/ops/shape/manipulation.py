"""Shape and view operations (joining and splitting: ``joining.py``).  On NumPy and CuPy
the view operations return views
(memory shared with the input), as torch's do; Dask arrays have none, so a write into a
view's result is replayed into its input (``interop.backends.views``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import dtypes
from ...backends import views
from ...errors import ShapeError
from .._args import int_arg, size_arg
from ..annotations import Dim, DimOrDims, NewDim
from ..registry import op, torch_alias


def _check_new_shape(shape: tuple) -> None:
    """torch's rules for a new shape: sizes of 0 or more, and at most one -1 to infer."""
    for i, s in enumerate(shape):
        if s < -1:
            raise ShapeError(f"invalid shape dimension {s} at index {i} of shape {list(shape)}; "
                             "sizes are 0 or more, or -1 for one size to infer")
    if shape.count(-1) > 1:
        raise ShapeError(f"only one dimension can be inferred (shape {list(shape)})")


def _reshape(be: Any, input: Any, shape: tuple) -> Any:
    _check_new_shape(shape)
    return be.reshape(input, shape)


@op(keywords={"shape": "shape"})
def reshape(be: Any, input: Any, *shape: Any) -> Any:
    """A tensor with the same data and a new shape (a view when possible).

    >>> interop.arange(6).reshape(2, 3)
    tensor([[0, 1, 2],
            [3, 4, 5]], backend='numpy')
    >>> interop.arange(6).reshape(-1, 2).shape
    (3, 2)
    """
    return views.reshaped(_reshape(be, input, size_arg(shape)), input)


@op(function=False, keywords={"size": "shape", "dtype": "shape"})
def view(be: Any, input: Any, *shape: Any) -> Any:
    """A view with a new shape, or with another dtype of the same itemsize.

    >>> t = interop.arange(6)
    >>> v = t.view(3, 2)
    >>> v[0, 0] = 10
    >>> t
    tensor([10,  1,  2,  3,  4,  5], backend='numpy')
    """
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list)):
        return input.view(dtypes.as_dtype(shape[0]))
    shape = size_arg(shape)
    out = _reshape(be, input, shape)
    if out.size and be.shares_memory(out, input) is False:
        raise RuntimeError(f"view size is not compatible with input tensor's size and stride; "
                           f"use .reshape({', '.join(map(str, shape))}) instead")
    return views.reshaped(out, input)


@op(aliases=("permute_dims",), keywords={"dims": "dims"})
def permute(be: Any, input: Any, *dims: Any) -> Any:
    """Reorder dimensions (a view).

    >>> interop.zeros(2, 3, 4).permute(2, 0, 1).shape
    (4, 2, 3)
    """
    dims = size_arg(dims)
    if sorted(d % max(input.ndim, 1) for d in dims) != list(range(input.ndim)):
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {input.ndim} is not equal to len(dims) = {len(dims)}"
                           if len(dims) != input.ndim else f"permute(): repeated dim in {dims}")
    return views.permuted(be.np.transpose(input, dims), input, dims)


@op(aliases=("swapaxes", "swapdims"), inplace=False, keywords={"axes": "dim0"})
def transpose(be: Any, input: Any, dim0: DimOrDims, dim1: Dim | None = None) -> Any:
    """Swap two dimensions (a view); one sequence of dims permutes, as Dask's ``transpose(axes)``
    (what xarray calls on Dask collections).

    >>> interop.arange(6).reshape(2, 3).transpose(0, 1)
    tensor([[0, 3],
            [1, 4],
            [2, 5]], backend='numpy')
    """
    if dim1 is None and isinstance(dim0, tuple):
        return permute(be, input, *dim0)
    if input.ndim == 0:
        return input  # (its dims, 0 or -1, read as None)
    if dim1 is None:
        raise TypeError("transpose() missing 1 required positional argument: 'dim1'")
    axes: list = list(range(input.ndim))
    axes[dim0], axes[dim1] = dim1, dim0  # type: ignore[index]  # (dim0 is one dim here)
    return views.permuted(be.np.swapaxes(input, dim0, dim1), input, axes)


@op()
def t(be: Any, input: Any) -> Any:
    """Transpose of a tensor with at most 2 dimensions."""
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{input.ndim}D; use .mT or .permute(...) for batches")
    return views.permuted(input.T, input, range(input.ndim)[::-1])


@op("T", function=False, property=True)
def T(be: Any, input: Any) -> Any:  # noqa: N802
    """All dimensions reversed (torch deprecates this for ndim != 2)."""
    return views.permuted(be.np.transpose(input), input, range(input.ndim)[::-1])


@op("mT", function=False, property=True)
def mT(be: Any, input: Any) -> Any:  # noqa: N802
    """The last two dimensions swapped (batched matrix transpose)."""
    if input.ndim < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                           f"Got {input.ndim}-D tensor.")
    axes = [*range(input.ndim - 2), input.ndim - 1, input.ndim - 2]
    return views.permuted(be.np.swapaxes(input, -1, -2), input, axes)


@op(aliases=("matrix_transpose",), method=False)
def adjoint(be: Any, input: Any) -> Any:
    """Conjugate transpose of the last two dimensions."""
    return be.np.conj(be.np.swapaxes(input, -1, -2)) if input.dtype.kind == "c" else \
        be.np.swapaxes(input, -1, -2)


@op()
def squeeze(be: Any, input: Any, dim: DimOrDims | None = None, *, axis: Any = None) -> Any:
    """Remove dimensions of size 1 (only those named by ``dim``, if given).

    >>> interop.zeros(1, 3, 1).squeeze().shape
    (3,)
    >>> interop.zeros(1, 3, 1).squeeze(0).shape
    (3, 1)
    """
    d = dim
    named = range(input.ndim) if d is None else d if isinstance(d, tuple) else (d,)
    if any(math.isnan(input.shape[x]) for x in named):  # Dask would keep it, even if it is 1
        raise ValueError("squeeze: whether an unknown (NaN) size is 1")
    if d is None:
        return views.reshaped(be.np.squeeze(input), input)
    dims = d if isinstance(d, tuple) else (d,)
    dims = tuple(x for x in dims if input.shape[x] == 1)
    return views.reshaped(be.np.squeeze(input, axis=dims), input) if dims else input[...]


@op(aliases=("expand_dims",))
def unsqueeze(be: Any, input: Any, dim: NewDim = None, *, axis: Any = None) -> Any:
    """Insert a dimension of size 1 at ``dim``.

    >>> interop.tensor([1, 2]).unsqueeze(0)
    tensor([[1, 2]], backend='numpy')
    >>> interop.tensor([1, 2]).unsqueeze(-1).shape
    (2, 1)
    """
    index = (slice(None),) * dim + (None, Ellipsis)  # a view; Dask's expand_dims needs sizes
    return views.remember(input[index], input, index)


@op()
def flatten(be: Any, input: Any, start_dim: Dim = 0, end_dim: Dim = -1) -> Any:
    """Merge dimensions start_dim..end_dim into one.

    >>> interop.zeros(2, 3, 4).flatten().shape
    (24,)
    >>> interop.zeros(2, 3, 4).flatten(1).shape
    (2, 12)
    """
    if input.ndim == 0:
        return views.reshaped(_reshape(be, input, (1,)), input)
    s, e = start_dim, end_dim
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    shape = tuple(input.shape)
    return views.reshaped(_reshape(be, input, (*shape[:s], -1, *shape[e + 1:])), input)


@op(method="ravel")
def ravel(be: Any, input: Any) -> Any:
    """The elements as one dimension."""
    return views.reshaped(_reshape(be, input, (-1,)), input)


@op(function=False, keywords={"size": "sizes"})
def expand(be: Any, input: Any, *sizes: Any) -> Any:
    """Broadcast to ``sizes`` (-1 keeps a dimension) without copying.

    >>> interop.tensor([1, 2]).expand(2, -1)
    tensor([[1, 2],
            [1, 2]], backend='numpy')
    """
    sizes = size_arg(sizes)
    lead = len(sizes) - input.ndim
    if lead < 0:
        raise RuntimeError(f"expand: the number of sizes provided ({len(sizes)}) must be greater "
                           f"or equal to the number of dimensions in the tensor ({input.ndim})")
    full = tuple(input.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
    return _broadcast_view(be, input, full)


def _broadcast_view(be: Any, input: Any, shape: tuple) -> Any:
    """``input`` broadcast to ``shape``: a plain (writable) view when no element repeats,
    else a view whose writes raise torch's overlap error (on Dask too)."""
    lead = len(shape) - input.ndim
    if all(n == 1 for n in shape[:lead]) and tuple(shape[lead:]) == tuple(input.shape):
        return views.reshaped(_reshape(be, input, shape), input)
    return views.broadcast(be.np.broadcast_to(input, shape), input)


@op(method=True)
def broadcast_to(be: Any, input: Any, shape: Any) -> Any:
    """Broadcast to ``shape`` without copying."""
    return _broadcast_view(be, input, tuple(shape))


@op(method=False, aliases=("broadcast_arrays",))
def broadcast_tensors(be: Any, *tensors: Any) -> Any:
    """Broadcast tensors against each other (views)."""
    return tuple(be.np.broadcast_arrays(*tensors))


@op(method=False, creation=True)
def broadcast_shapes(be: Any, *shapes: Any) -> tuple:
    """The shape these shapes broadcast to (torch.broadcast_shapes)."""
    try:
        return tuple(np.broadcast_shapes(*(tuple(s) if isinstance(s, (tuple, list)) else (s,)
                                           for s in shapes)))
    except ValueError as exc:
        raise RuntimeError(f"broadcast_shapes: shapes {list(shapes)} do not broadcast: trailing "
                           "dimensions must be equal or 1") from exc


@op(function=False, method="expand_as")
def expand_as(be: Any, input: Any, other: Any) -> Any:
    """Broadcast to ``other``'s shape."""
    return _broadcast_view(be, input, tuple(other.shape))


@op(function=False, method="view_as")
def view_as(be: Any, input: Any, other: Any) -> Any:
    """A view with ``other``'s shape."""
    return views.reshaped(_reshape(be, input, tuple(other.shape)), input)


@op(function=False, method="reshape_as")
def reshape_as(be: Any, input: Any, other: Any) -> Any:
    """Reshape to ``other``'s shape."""
    return views.reshaped(_reshape(be, input, tuple(other.shape)), input)


@op()
def flip(be: Any, input: Any, dims: DimOrDims | None = None, *, axis: Any = None) -> Any:
    """Reverse the order of elements along ``dims``."""
    if dims is None:
        return be.np.flip(input)
    return be.np.flip(input, axis=dims)


@op(keywords={"shift": "shifts"})
def roll(be: Any, input: Any, shifts: Any, dims: DimOrDims | None = None, *,
         axis: Any = None) -> Any:
    """Rotate elements along ``dims`` (the flattened tensor when None)."""
    d = dims
    shifts = tuple(int_arg("roll", "shifts", s) for s in shifts) \
        if isinstance(shifts, (list, tuple)) else int_arg("roll", "shifts", shifts)
    return be.np.roll(input, shifts, axis=d)


@op(method="repeat", function=False, keywords={"repeats": "sizes"})
def repeat(be: Any, input: Any, *sizes: Any) -> Any:
    """Tile the tensor ``sizes`` times along each dimension (torch's Tensor.repeat).

    >>> interop.tensor([1, 2]).repeat(2)
    tensor([1, 2, 1, 2], backend='numpy')
    >>> interop.tensor([1, 2]).repeat(2, 1).shape
    (2, 2)
    """
    sizes = size_arg(sizes)
    if len(sizes) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    return be.np.tile(input, sizes)


@op(keywords={"reps": "dims"})
def tile(be: Any, input: Any, dims: Any) -> Any:
    """Repeat along each dimension (torch.tile)."""
    return be.np.tile(input, tuple(dims))


@op()
def repeat_interleave(be: Any, input: Any, repeats: Any, dim: Dim | None = None, *,
                      output_size: Any = None) -> Any:
    """Repeat each element ``repeats`` times (NumPy's repeat)."""
    if dim is None:
        return be.np.repeat(be.np.reshape(input, (-1,)), repeats)
    return be.np.repeat(input, repeats, axis=dim)


@op(aliases=("moveaxis",))
def movedim(be: Any, input: Any, source: DimOrDims, destination: DimOrDims) -> Any:
    """Move dimensions to new positions (a view)."""
    if input.ndim == 0:
        return input  # (its dims, 0 or -1, read as None)
    return views.permuted(be.np.moveaxis(input, source, destination), input,
                          _moved_order(input.ndim, source, destination))


def _moved_order(ndim: int, source: Any, destination: Any) -> list:
    """The permutation ``moveaxis(x, source, destination)`` applies (NumPy's own rule)."""
    pairs = zip(*(np.atleast_1d(d) % max(ndim, 1) for d in (source, destination)))
    src_dst = sorted((int(d), int(s)) for s, d in pairs)
    order = [n for n in range(ndim) if n not in {s for _, s in src_dst}]
    for dest, src in src_dst:
        order.insert(dest, src)
    return order


@op(aliases=("unstack",))
def unbind(be: Any, input: Any, dim: Dim = 0, *, axis: Any = None) -> Any:
    """The slices along ``dim``, as a tuple of views."""
    d = dim
    if input.ndim == 0:
        raise IndexError("unbind(): dimension specified as 0 but tensor has no dimensions")
    return tuple(be.view_at(input, (slice(None),) * d + (i,)) for i in range(input.shape[d]))


@op()
def narrow(be: Any, input: Any, dim: Dim, start: int, length: int) -> Any:
    """The slice ``start:start+length`` along ``dim`` (a view)."""
    d = dim
    start, length = int_arg("narrow", "start", start), int_arg("narrow", "length", length)
    size = input.shape[d]
    if not -size <= start <= size:
        raise IndexError(f"narrow(): start out of range (expected to be in range of [{-size}, "
                         f"{size}], but got {start}); count start from 0 along dim {d}")
    start = start + size if start < 0 else start
    if length < 0 or start + length > size:
        raise ShapeError(f"narrow(): start ({start}) + length ({length}) exceeds dimension size "
                         f"({size}); pass a length of at most {size - start} along dim {d}")
    index = (slice(None),) * d + (slice(start, start + length),)
    return views.remember(input[index], input, index)


@op()
def clone(be: Any, input: Any, *, memory_format: Any = None) -> Any:
    """A copy with its own memory."""
    return input.copy()


torch_alias("torch.alias_copy", to="clone")


@op(function=False)
def contiguous(be: Any, input: Any, memory_format: Any = None) -> Any:
    """A C-contiguous tensor (the input itself when it already is)."""
    return be.contiguous(input)


@op(method=False, aliases=("atleast_1d",))
def atleast_1d(be: Any, *tensors: Any) -> Any:
    """Tensors with at least one dimension."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):  # torch takes a list too
        return tuple(be.np.atleast_1d(x) for x in tensors[0])
    out = [be.np.atleast_1d(x) for x in tensors]
    return out[0] if len(out) == 1 else tuple(out)


@op(keywords={"k": "diagonal"})
def tril(be: Any, input: Any, diagonal: int = 0) -> Any:
    """Lower triangle (the rest zeroed)."""
    return be.np.tril(input, k=diagonal)


@op(keywords={"k": "diagonal"})
def triu(be: Any, input: Any, diagonal: int = 0) -> Any:
    """Upper triangle (the rest zeroed)."""
    return be.np.triu(input, k=diagonal)


@op(keywords={"axis1": "dim1", "axis2": "dim2"})
def diagonal(be: Any, input: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
    """The diagonal of each matrix (dimensions dim1, dim2), as a writable view."""
    out = be.np.diagonal(input, offset=offset, axis1=dim1, axis2=dim2)
    # NumPy's diagonal is read-only only for backward compatibility; CuPy's flags have no
    # writeable (its arrays always are), Dask's and JAX's arrays no flags
    if getattr(getattr(out, "flags", None), "writeable", True) is False and input.flags.writeable:
        out.flags.writeable = True
    return views.merged(out, input, lambda base, raw: _with_diagonal(be, base, raw, offset,
                                                                      dim1, dim2))


def _with_diagonal(be: Any, base: Any, values: Any, offset: int, dim1: int, dim2: int) -> Any:
    """``base`` with its diagonal (``offset``, dims ``dim1``, ``dim2``) replaced by ``values``."""
    d1, d2 = dim1 % base.ndim, dim2 % base.ndim
    moved = be.np.moveaxis(base, (d1, d2), (-2, -1))
    rows, cols = moved.shape[-2:]
    on = np.eye(rows, cols, k=offset, dtype=bool)
    # values[..., i] goes to row i + max(-offset, 0): pad them to one value per row
    first = max(-offset, 0)
    pad = [(0, 0)] * (values.ndim - 1) + [(first, rows - first - values.shape[-1])]
    placed = be.np.pad(values, pad)[..., :, None]
    return be.np.moveaxis(be.np.where(on, placed, moved), (-2, -1), (d1, d2))


@op(keywords={"k": "diagonal"})
def diag(be: Any, input: Any, diagonal: int = 0) -> Any:
    """A diagonal matrix from a vector, or the diagonal of a matrix."""
    return be.np.diag(input, k=diagonal)
