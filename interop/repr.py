"""Text reprs in torch's style, with the backend shown.

``tensor([1., 2.], backend='numpy')``; the dtype appears when it is not the
default for its kind (default float, int64, bool), the device for GPU data.
Dask tensors show shape, chunks and dtype without computing anything.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes

_THRESHOLD, _EDGEITEMS = 1000, 3


def _implicit_dtype(dt: np.dtype) -> bool:
    return dt in (dtypes.get_default_dtype(), dtypes.int64, dtypes.bool, dtypes.default_complex())


def _values(host: np.ndarray, prefix: str) -> str:
    floating = host.dtype.kind in "fc"
    finite = host[np.isfinite(host)] if floating and host.size <= _THRESHOLD else None
    whole = finite is not None and bool(np.all(finite == np.round(finite)))
    return np.array2string(
        host, separator=", ", prefix=prefix, threshold=_THRESHOLD, edgeitems=_EDGEITEMS,
        precision=4, floatmode="fixed" if floating and not whole else "maxprec",
        suppress_small=False)


def format_tensor(be: Any, raw: Any, name: str = "tensor") -> str:
    """The text repr of a raw array held by a tensor (bounded copy for GPU data)."""
    extras = []
    device = be.device_of(raw)
    if be.lazy:
        body = f"<lazy shape={tuple(raw.shape)}, chunks={raw.chunksize}, dtype={raw.dtype}>"
    else:
        prefix = f"{name}("
        host = be.to_host(_preview(be, raw)) if device.type != "cpu" else raw
        body = _values(np.asarray(host), prefix)
        if host.size == 0 and host.ndim != 1:
            extras.append(f"size={tuple(raw.shape)}")
        if not _implicit_dtype(raw.dtype):
            extras.append(f"dtype={dtypes.as_dtype(raw.dtype)}")
    if device.type != "cpu":
        extras.append(f"device='{device}'")
    extras.append(f"backend='{be.name}'")
    return f"{name}({body}, {', '.join(extras)})"


def _preview(be: Any, raw: Any) -> Any:
    """Only the summarised corners of a large GPU array travel to the host for printing."""
    if raw.size <= _THRESHOLD:
        return raw
    index = tuple(be.np.r_[0:_EDGEITEMS, s - _EDGEITEMS:s] if s > 2 * _EDGEITEMS else slice(None)
                  for s in raw.shape)
    return raw[be.np.ix_(*[i if not isinstance(i, slice) else be.np.arange(s)
                           for i, s in zip(index, raw.shape)])]
