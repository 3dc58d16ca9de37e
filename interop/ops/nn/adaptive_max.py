"""torch.nn.functional.adaptive_max_pool1d/2d/3d (and their ``_with_indices`` forms): the
maximum over adaptive windows (torch's floor/ceil bounds), one spatial dim at a time,
innermost first so the index kept is the first maximum in row-major order, as torch's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..indexing.selection import _take_along
from ..registry import op, torch_names
from . import torch_kernels
from .common import NN
from .functional import _adaptive_bounds
from .kernels import provided


@provided(torch_kernels.adaptive_max)
def adaptive_max(be: Any, input: Any, output_size: Any, n: int) -> tuple[Any, Any]:
    """(values, flat spatial indices) of adaptive max pooling over the last ``n`` dims."""
    outs = (output_size,) * n if isinstance(output_size, int) else tuple(output_size)
    sizes = tuple(int(s) for s in input.shape[-n:])
    outs = tuple(sizes[i] if o is None else int(o) for i, o in enumerate(outs))
    flat = be.np.reshape(be.np.arange(int(np.prod(sizes)), dtype=np.int64), sizes)
    x, index = input, be.np.broadcast_to(flat, tuple(input.shape))
    for k in reversed(range(n)):
        axis = x.ndim - n + k
        pre = (slice(None),) * axis
        values, picks = [], []
        for lo, hi in _adaptive_bounds(sizes[k], outs[k]):
            window = x[pre + (slice(lo, hi),)]
            arg = be.np.expand_dims(be.np.argmax(window, axis=axis), axis)
            values.append(_take_along(be, window, arg, axis))
            picks.append(_take_along(be, index[pre + (slice(lo, hi),)], arg, axis))
        x, index = be.np.concatenate(values, axis=axis), be.np.concatenate(picks, axis=axis)
    return x, index.astype(np.int64)


def _register(n: int) -> None:
    def with_indices(be: Any, input: Any, output_size: Any, return_indices: bool = True) -> Any:
        return adaptive_max(be, input, output_size, n)

    def values_only(be: Any, input: Any, output_size: Any, return_indices: bool = False) -> Any:
        values, indices = adaptive_max(be, input, output_size, n)
        return (values, indices) if return_indices else values

    for name, impl, names in (  # torch.adaptive_max_pool1d returns both, as _with_indices
            (f"adaptive_max_pool{n}d_with_indices", with_indices,
             torch_names(f"adaptive_max_pool{n}d_with_indices", NN) + (
                 ("torch.adaptive_max_pool1d",) if n == 1 else ())),
            (f"adaptive_max_pool{n}d", values_only, torch_names(f"adaptive_max_pool{n}d", NN))):
        impl.__name__ = name
        impl.__doc__ = f"Maximum over adaptive {n}-d windows giving ``output_size``."
        op(name, method=False, torch=names)(impl)


for _n in (1, 2, 3):
    _register(_n)
