"""torch.nn.functional.max_unpool1d/2d/3d: the partial inverse of a max pool, each value
written at the flat spatial index the pool returned, zeros elsewhere.  A scatter: on
Dask it runs lazily on whole arrays in one task.
"""

from __future__ import annotations

import math
from typing import Any

from .._args import whole_arrays
from ..registry import op, torch_names
from .common import NN
from .conv import _batched, _tuple


def _scatter_planes(be: Any, x: Any, indices: Any, planes: int, size: int) -> Any:
    """Zeros (planes, size) with row i's values of ``x`` at row i's ``indices``."""
    out = be.np.zeros((planes, size), dtype=x.dtype)
    rows = be.np.arange(planes)[:, None]
    return be.updated(out, (rows, be.np.reshape(indices, (planes, -1))),
                      be.np.reshape(x, (planes, -1)))


def _output_size(x: Any, kernel: tuple, stride: tuple, padding: tuple, output_size: Any,
                 n: int) -> tuple:
    if output_size is not None:
        return tuple(int(s) for s in tuple(output_size)[-n:])
    return tuple((x.shape[2 + i] - 1) * stride[i] - 2 * padding[i] + kernel[i] for i in range(n))


def _unpool(n: int) -> None:
    def impl(be: Any, input: Any, indices: Any, kernel_size: Any, stride: Any = None,
             padding: Any = 0, output_size: Any = None) -> Any:
        x, unbatched = _batched(input, n)
        idx = indices[None] if unbatched else indices
        kernel = _tuple(kernel_size, n)
        stride_ = _tuple(stride, n) if stride not in (None, (), []) else kernel
        spatial = _output_size(x, kernel, stride_, _tuple(padding, n), output_size, n)
        planes, size = int(x.shape[0]) * int(x.shape[1]), math.prod(spatial)
        flat = whole_arrays(be, _scatter_planes, (planes, size), x.dtype, x, idx, planes,
                            size)  # a scatter: on lazy backends, one task
        out = be.np.reshape(flat, (*x.shape[:2], *spatial))
        return out[0] if unbatched else out
    name = f"max_unpool{n}d"
    impl.__name__ = name
    impl.__doc__ = f"Values at their max_pool{n}d indices, zeros elsewhere."
    op(name, method=False, torch=torch_names(name, NN))(impl)


for _n in (1, 2, 3):
    _unpool(_n)
