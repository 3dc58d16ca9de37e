"""Shape and view operations.  On NumPy and CuPy the view operations return views
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
from .._args import check_dim, dim_arg, int_arg, promote, size_arg
from ..registry import op, torch_alias


def _promoted_list(tensors: Any) -> list:
    return list(promote(*tensors)) if len(tensors) > 1 else list(tensors)


@op(aliases=("concat", "concatenate"), out=True, method=False)
def cat(be: Any, tensors: Any, dim: int = 0, *, axis: Any = None) -> Any:
    """Join tensors along an existing dimension (dtypes promote as in torch)."""
    tensors = list(tensors)
    if not tensors:
        raise ValueError("cat(): expected a non-empty list of tensors")
    d = dim_arg(dim if axis is None else None, axis)
    if d is None:
        return be.np.concatenate([be.np.reshape(t, (-1,)) for t in _promoted_list(tensors)])
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"cat(): zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated; make it 1-d with t.unsqueeze(0), or use stack")
    promoted = _promoted_list(tensors)
    kept = [(i, t) for i, t in enumerate(promoted) if t.shape != (0,)]  # torch skips these
    if not kept:
        return be.np.concatenate(promoted)
    d = check_dim("cat", d, kept[0][1].ndim)
    _check_cat_shapes(kept, d)
    return be.np.concatenate([t for _, t in kept], axis=d)


def _check_cat_shapes(kept: list, d: int) -> None:
    """torch's checks, made here: Dask drops empty operands without checking their shapes."""
    first = tuple(kept[0][1].shape)
    for i, t in kept[1:]:
        if t.ndim != len(first):
            if any(x.ndim == 1 and math.isnan(x.shape[0]) for x in (kept[0][1], t)):
                raise ValueError("cat: a 1-d tensor of unknown (NaN) size, which torch skips "
                                 "if it is empty")
            raise ShapeError(f"cat(): Tensors must have same number of dimensions: got "
                             f"{len(first)} and {t.ndim}; reshape or unsqueeze tensor {i}")
        for j, (a, b) in enumerate(zip(first, t.shape)):
            if j != d and a == a and b == b and a != b:  # (NaN: a size Dask does not know yet)
                raise ShapeError(f"cat(): Sizes of tensors must match except in dimension {d}. "
                                 f"Expected size {a} but got size {b} for tensor number {i} in "
                                 "the list; check the arguments' shapes")


@op(out=True, method=False)
def stack(be: Any, tensors: Any, dim: int = 0, *, axis: Any = None) -> Any:
    """Join tensors along a new dimension."""
    tensors = list(tensors)
    if not tensors:
        raise ValueError("stack(): expected a non-empty list of tensors")
    d = dim_arg(dim if axis is None else None, axis)
    check_dim("stack", d, tensors[0].ndim + 1)
    return be.np.stack(_promoted_list(tensors), axis=d)


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
    if not be.lazy:
        return be.np.reshape(input, shape)
    if input.size == 0:  # Dask fails on empty arrays; with no data there is nothing to move
        return be.np.empty_like(input, shape=np.empty(input.shape, bool).reshape(shape).shape)
    try:
        return be.np.reshape(input, shape)
    except NotImplementedError:  # Dask cannot split chunks unevenly: one chunk, then reshape
        return be.np.reshape(input.rechunk(-1), shape)


@op(keywords={"shape": "shape"})
def reshape(be: Any, input: Any, *shape: Any) -> Any:
    """A tensor with the same data and a new shape (a view when possible)."""
    return views.reshaped(_reshape(be, input, size_arg(shape)), input)


@op(function=False, keywords={"size": "shape", "dtype": "shape"})
def view(be: Any, input: Any, *shape: Any) -> Any:
    """A view with a new shape, or with another dtype of the same itemsize."""
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list)):
        return input.view(dtypes.as_dtype(shape[0]))
    shape = size_arg(shape)
    out = _reshape(be, input, shape)
    if be.mutable and not be.lazy and out.size and not be.np.shares_memory(out, input):
        raise RuntimeError(f"view size is not compatible with input tensor's size and stride; "
                           f"use .reshape({', '.join(map(str, shape))}) instead")
    return views.reshaped(out, input)


@op(aliases=("permute_dims",), keywords={"dims": "dims"})
def permute(be: Any, input: Any, *dims: Any) -> Any:
    """Reorder dimensions (a view)."""
    dims = size_arg(dims)
    if sorted(d % max(input.ndim, 1) for d in dims) != list(range(input.ndim)):
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {input.ndim} is not equal to len(dims) = {len(dims)}"
                           if len(dims) != input.ndim else f"permute(): repeated dim in {dims}")
    return views.permuted(be.np.transpose(input, dims), input, dims)


@op(aliases=("swapaxes", "swapdims"), inplace=False, keywords={"axes": "dim0"})
def transpose(be: Any, input: Any, dim0: int | tuple[int, ...], dim1: int | None = None) -> Any:
    """Swap two dimensions (a view); one sequence of dims permutes, as Dask's ``transpose(axes)``
    (what xarray calls on Dask collections)."""
    if dim1 is None and isinstance(dim0, (tuple, list)):
        return permute(be, input, *dim0)
    if dim1 is None:
        raise TypeError("transpose() missing 1 required positional argument: 'dim1'")
    n = input.ndim
    d0, d1 = check_dim("transpose", dim0, n), check_dim("transpose", dim1, n)
    if n == 0:
        return input
    axes = list(range(n))
    axes[d0], axes[d1] = d1, d0
    return views.permuted(be.np.swapaxes(input, d0, d1), input, axes)


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
def squeeze(be: Any, input: Any, dim: Any = None, *, axis: Any = None) -> Any:
    """Remove dimensions of size 1 (only those named by ``dim``, if given)."""
    d = check_dim("squeeze", dim_arg(dim, axis), input.ndim)
    named = range(input.ndim) if d is None else d if isinstance(d, tuple) else (d,)
    if any(math.isnan(input.shape[x]) for x in named):  # Dask would keep it, even if it is 1
        raise ValueError("squeeze: whether an unknown (NaN) size is 1")
    if d is None:
        return views.reshaped(be.np.squeeze(input), input)
    dims = d if isinstance(d, tuple) else (d,)
    dims = tuple(x for x in dims if input.shape[x] == 1)
    return views.reshaped(be.np.squeeze(input, axis=dims), input) if dims else input[...]


@op(aliases=("expand_dims",))
def unsqueeze(be: Any, input: Any, dim: int = None, *, axis: Any = None) -> Any:
    """Insert a dimension of size 1 at ``dim``."""
    d = dim_arg(dim, axis)
    d = check_dim("unsqueeze", d, input.ndim + 1)
    index = (slice(None),) * d + (None, Ellipsis)  # a view; Dask's expand_dims needs sizes
    return views.remember(input[index], input, index)


@op()
def flatten(be: Any, input: Any, start_dim: int = 0, end_dim: int = -1) -> Any:
    """Merge dimensions start_dim..end_dim into one."""
    if input.ndim == 0:
        return views.reshaped(_reshape(be, input, (1,)), input)
    s, e = check_dim("flatten", start_dim, input.ndim), check_dim("flatten", end_dim, input.ndim)
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
    """Broadcast to ``sizes`` (-1 keeps a dimension) without copying."""
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
def flip(be: Any, input: Any, dims: Any = None, *, axis: Any = None) -> Any:
    """Reverse the order of elements along ``dims``."""
    d = check_dim("flip", dim_arg(dims, axis), input.ndim)
    if d is None:
        return be.np.flip(input)
    return be.np.flip(input, axis=d)


@op(keywords={"shift": "shifts"})
def roll(be: Any, input: Any, shifts: Any, dims: Any = None, *, axis: Any = None) -> Any:
    """Rotate elements along ``dims`` (the flattened tensor when None)."""
    d = check_dim("roll", dim_arg(dims, axis), input.ndim)
    shifts = tuple(int_arg("roll", "shifts", s) for s in shifts) \
        if isinstance(shifts, (list, tuple)) else int_arg("roll", "shifts", shifts)
    return be.np.roll(input, shifts, axis=d)


@op(method="repeat", function=False, keywords={"repeats": "sizes"})
def repeat(be: Any, input: Any, *sizes: Any) -> Any:
    """Tile the tensor ``sizes`` times along each dimension (torch's Tensor.repeat)."""
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
def repeat_interleave(be: Any, input: Any, repeats: Any, dim: Any = None, *,
                      output_size: Any = None) -> Any:
    """Repeat each element ``repeats`` times (NumPy's repeat)."""
    if dim is None:
        return be.np.repeat(be.np.reshape(input, (-1,)), repeats)
    return be.np.repeat(input, repeats, axis=check_dim("repeat_interleave", dim, input.ndim))


@op(aliases=("moveaxis",))
def movedim(be: Any, input: Any, source: Any, destination: Any) -> Any:
    """Move dimensions to new positions (a view)."""
    for d in (source, destination):
        check_dim("movedim", dim_arg(d), input.ndim)
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
def unbind(be: Any, input: Any, dim: int = 0, *, axis: Any = None) -> Any:
    """The slices along ``dim``, as a tuple of views."""
    d = check_dim("unbind", dim_arg(dim if axis is None else None, axis), input.ndim)
    if input.ndim == 0:
        raise IndexError("unbind(): dimension specified as 0 but tensor has no dimensions")
    return tuple(be.view_at(input, (slice(None),) * d + (i,)) for i in range(input.shape[d]))


@op()
def split(be: Any, input: Any, split_size_or_sections: Any, dim: int = 0) -> Any:
    """Views of ``split_size`` elements each (or of the given section sizes) along ``dim``."""
    d = check_dim("split", dim, input.ndim)
    n = input.shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step < 0 or step == 0 and n:
            raise ShapeError(f"split expects split_size be non-negative (and 0 only for a "
                             f"dimension of size 0), but got split_size={step} for size {n}")
        bounds = list(range(0, n, step)) + [n] if n else [0, 0]
    else:
        bounds = [0]
        if any(s < 0 for s in split_size_or_sections):
            raise ShapeError(f"split_with_sizes expects split_sizes have only non-negative "
                             f"entries, but got split_sizes={list(split_size_or_sections)}")
        for s in split_size_or_sections:
            bounds.append(bounds[-1] + s)
        if bounds[-1] != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {d}), but got "
                               f"split_sizes={list(split_size_or_sections)}")
    index = (slice(None),) * d
    return tuple(views.remember(input[index + (slice(a, b),)], input, index + (slice(a, b),))
                 for a, b in zip(bounds[:-1], bounds[1:]))


torch_alias("torch.unsafe_split", "torch.split_with_sizes", to="split")


@op()
def chunk(be: Any, input: Any, chunks: int, dim: int = 0) -> Any:
    """Split into ``chunks`` nearly equal parts along ``dim``."""
    if chunks <= 0:
        raise ShapeError(f"chunk(): chunk expects `chunks` to be greater than 0, got: {chunks}; "
                         "pass the number of parts wanted (1 or more)")
    n = input.shape[check_dim("chunk", dim, input.ndim)]
    size = -(-n // chunks) if n else 1
    return split(be, input, size, dim)


torch_alias("torch.unsafe_chunk", to="chunk")


@op()
def narrow(be: Any, input: Any, dim: int, start: int, length: int) -> Any:
    """The slice ``start:start+length`` along ``dim`` (a view)."""
    d = check_dim("narrow", dim, input.ndim)
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
    if getattr(out, "flags", None) is not None and not out.flags.writeable \
            and input.flags.writeable:
        out.flags.writeable = True  # NumPy's diagonal is read-only only for backward compatibility
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
