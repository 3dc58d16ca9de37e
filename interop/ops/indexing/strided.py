"""torch.as_strided and its copy and scatter forms: a view of a tensor's memory with the
sizes, strides (in elements, as torch counts them) and storage offset given.

The memory is the array's own buffer (the root of a NumPy view chain, so a view's
as_strided reaches the elements before and around it as torch's storage does).  The
requested extent is checked against that buffer first, as torch checks its storage, so no
view ever reads past it.  Dask arrays have no memory to stride over: Dask lacks these
(and CuPy, for which they are not written yet).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..registry import op

_LACKS = {"dask": "a Dask array has no buffer to take strided views of",
          "cubed": "a Cubed array has no buffer to take strided views of",
          "cupy": "strided views are written for host buffers only"}


def _storage(x: np.ndarray) -> tuple[np.ndarray, int]:
    """(the flat buffer ``x`` lives in, ``x``'s offset in it in elements)."""
    root = x
    while isinstance(root.base, np.ndarray) and root.base.dtype == x.dtype:
        root = root.base
    if not root.flags.c_contiguous:  # not a buffer of its own: take x's values as one
        return np.ascontiguousarray(x).reshape(-1), 0
    offset = (x.__array_interface__["data"][0] - root.__array_interface__["data"][0])
    return root.reshape(-1), offset // x.itemsize


def _strided_view(name: str, x: Any, size: Any, stride: Any, storage_offset: Any) -> Any:
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(f"{name}: mismatch in length of strides and shape ({len(size)} sizes, "
                           f"{len(stride)} strides)")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"{name}: Negative strides are not supported at the moment, got "
                           f"strides: {list(stride)}")
    flat, own_offset = _storage(np.asarray(x))
    offset = own_offset if storage_offset is None else int(storage_offset)
    needed = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if needed > flat.size:
        raise RuntimeError(
            f"{name}: setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
            f"{offset}, and itemsize {x.itemsize} requiring a storage size of "
            f"{needed * x.itemsize} are out of bounds for storage of size "
            f"{flat.size * x.itemsize}")
    return np.lib.stride_tricks.as_strided(flat[offset:] if needed else flat, shape=size,
                                           strides=tuple(s * x.itemsize for s in stride))


@op(torch=("torch.as_strided", "torch.Tensor.as_strided"), lacks=_LACKS)
def as_strided(be: Any, input: Any, size: Any, stride: Any, storage_offset: Any = None) -> Any:
    """A view of ``input``'s memory with these sizes and element strides (writes show)."""
    return _strided_view("as_strided", input, size, stride, storage_offset)


@op(method=False, torch=("torch.as_strided_copy",), lacks=_LACKS)
def as_strided_copy(be: Any, input: Any, size: Any, stride: Any,
                    storage_offset: Any = None) -> Any:
    """as_strided's values in a fresh array."""
    return _strided_view("as_strided_copy", input, size, stride, storage_offset).copy()


@op(torch=("torch.as_strided_scatter", "torch.Tensor.as_strided_scatter"),
    lacks=_LACKS)
def as_strided_scatter(be: Any, input: Any, src: Any, size: Any, stride: Any,
                       storage_offset: Any = None) -> Any:
    """A copy of ``input`` with ``src`` written through the strided view of the copy."""
    out = np.array(input, copy=True, order="C")
    view = _strided_view("as_strided_scatter", out, size, stride,
                         storage_offset if storage_offset is not None else 0)
    if tuple(np.shape(src)) != view.shape:
        raise RuntimeError(f"as_strided_scatter: expected src to have a size equal to the slice "
                           f"of self. src size = {list(np.shape(src))}, slice size = "
                           f"{list(view.shape)}")
    view[...] = src
    return out

