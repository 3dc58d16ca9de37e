"""How a tensor shows itself as text: torch's repr with the backend (Jupyter's card: ``card``).

``tensor([1., 2.], backend='numpy')``; a subclass shows its own name
(``Meters([1., 2.], backend='numpy')``), the dtype appears when it is not the
default for its kind (default float, int64, bool), the device for GPU data.
Neither repr ever computes a Dask graph, and GPU data travels to the host only
as the bounded corners that are printed.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes
from ..errors import TracedValueError, shown_shape

_THRESHOLD, _EDGEITEMS, _LINEWIDTH = 1000, 3, 80


def display_name(cls: type) -> str:
    """What a repr starts with: ``tensor`` for the base class, a subclass's own name (as torch).

    The base class marks itself (``_base_of_tensors``) so that this module
    needs no import of ``tensor``, which imports it."""
    inherits = any(vars(c).get("_base_of_tensors") for c in cls.__mro__[1:])
    return cls.__name__ if inherits else "tensor"


def _implicit_dtype(dt: np.dtype) -> bool:
    return dt in (dtypes.get_default_dtype(), dtypes.int64, dtypes.bool, dtypes.default_complex())


def _values(host: np.ndarray, prefix: str, summarize: bool | None = None) -> str:
    """The values as torch prints them; ``summarize`` for a large array's corners."""
    summarize = host.size > _THRESHOLD if summarize is None else summarize
    if dtypes.is_bfloat16(host.dtype):
        host = host.astype(np.float32)  # exact; NumPy's printer formats its own floats only
    shown = _edges(host) if summarize else host
    formatter, width = _torch_format(shown)
    # torch fits floor((80 - indent) / (width + 2)) elements on a line; the numpy line width
    # that fits as many (numpy also counts the ", " and one "]" per dimension):
    indent = len(prefix) + max(host.ndim - 1, 0)
    per_line = max(1, (_LINEWIDTH - indent) // (width + 2))
    line = indent + per_line * (width + 2) - 1 + host.ndim if width else _LINEWIDTH
    text = np.array2string(
        host, separator=", ", prefix=prefix, threshold=0 if summarize else _THRESHOLD,
        edgeitems=_EDGEITEMS, precision=4, floatmode="fixed", suppress_small=False,
        formatter=formatter, max_line_width=line)
    return text.replace(", ..., ", ",  ..., ")  # torch pads the summary mark


def _torch_format(shown: np.ndarray) -> tuple[Any, int]:
    """numpy formatter (None: numpy's own) and element width, as torch formats ``shown``."""
    if shown.dtype.kind == "f":
        return _torch_float_format(shown)
    if shown.size == 0:
        return None, 0
    if shown.dtype.kind == "b":
        width = 4 if shown.all() else 5
        return {"bool": lambda v: str(bool(v)).rjust(width)}, width
    if shown.dtype.kind in "iu":
        return None, max(len(str(v)) for v in (shown.min(), shown.max()))
    return None, 0  # complex: numpy's layout


def _edges(host: np.ndarray) -> np.ndarray:
    """The elements a summarised print shows (torch sizes its format on these alone)."""
    e = _EDGEITEMS
    return host[np.ix_(*[np.r_[0:e, s - e:s] if s > 2 * e else np.arange(s) for s in host.shape])]


def _torch_float_format(shown: np.ndarray) -> tuple[dict, int]:
    """torch's ``_Formatter`` for real floats: integer, fixed or scientific mode, one width.

    Sized on the nonzero finite values shown: whole numbers print as ``3.``,
    others with 4 decimals; scientific when magnitudes span more than 1000x,
    exceed 1e8 or (not whole) fall under 1e-4.
    """
    flat = shown.reshape(-1).astype(np.float64)
    nonzero = flat[np.isfinite(flat) & (flat != 0)]
    magnitudes = np.abs(nonzero)
    whole = bool(np.all(nonzero == np.ceil(nonzero)))
    lo, hi = (magnitudes.min(), magnitudes.max()) if nonzero.size else (1.0, 1.0)
    sci = hi / lo > 1000.0 or hi > 1.0e8 or (not whole and lo < 1.0e-4)

    def text(v: float) -> str:
        if not math.isfinite(v):
            return f"{v:.0f}"  # nan, inf, -inf
        return f"{v:.4e}" if sci else f"{v:.0f}." if whole else f"{v:.4f}"

    width = max([1, *(len(text(v)) for v in nonzero.tolist())])
    return {"float_kind": lambda v: text(float(v)).rjust(width)}, width


def _host_values(be: Any, raw: Any, prefix: str) -> str:
    """The printed values; a GPU array sends only the corners that are shown to the host.
    Printing reads no value that is not there: an array JAX is tracing shows its shape and
    dtype, as JAX's tracers print."""
    try:
        if be.device_of(raw).type == "meta":  # torch's tensors of shape and dtype, no data:
            return "..."                       # printed as torch prints them
        if be.device_of(raw).type == "cpu":
            return _values(np.asarray(be.to_host(raw)), prefix)
        return _values(np.asarray(be.to_host(_preview(be, raw))), prefix,
                       summarize=math.prod(raw.shape) > _THRESHOLD)
    except TracedValueError:
        return f"<traced shape={tuple(raw.shape)}, dtype={raw.dtype}>"


def _lazy_body(raw: Any) -> str:
    return f"<lazy shape={shown_shape(raw.shape)}, chunks={raw.chunksize}, dtype={raw.dtype}>"


def format_tensor(be: Any, raw: Any, name: str = "tensor", suffixes: tuple[str, ...] = ()) -> str:
    """The text repr of a raw array held by a tensor (bounded copy for GPU data); ``suffixes``
    end it, after the backend (the torch face's ``grad_fn=<SumBackward0>``, as torch's)."""
    extras = []
    device = be.device_of(raw)
    if be.lazy:
        body = _lazy_body(raw)
    else:
        body = _host_values(be, raw, f"{name}(")
        if device.type == "meta" or (math.prod(raw.shape) == 0 and raw.ndim != 1):
            extras.append(f"size={tuple(raw.shape)}")
        if not _implicit_dtype(be.dtype_of(raw)):
            extras.append(f"dtype={dtypes.as_dtype(be.dtype_of(raw))}")
    if device.type != "cpu":
        extras.append(f"device='{device}'")
    extras.append(f"backend='{be.name}'")
    extras.extend(suffixes)
    return f"{name}({body}, {', '.join(extras)})"


def _preview(be: Any, raw: Any) -> Any:
    """The corners of a large array that a summarised print shows, plus one hidden middle row.

    Each long axis keeps its first and last ``_EDGEITEMS`` and one element
    between, so the corners print, with ``summarize=True``, exactly as the
    whole array would (the middle one falls under the ``...``).
    """
    if math.prod(raw.shape) <= _THRESHOLD:
        return raw
    e = _EDGEITEMS
    index = [be.np.asarray([*range(e + 1), *range(s - e, s)]) if s > 2 * e else be.np.arange(s)
             for s in raw.shape]
    return raw[be.np.ix_(*index)]
