"""ATen's three FFT kernels, which torch.fft's functions and their gradients reduce to, as
torch.fft records: ``_fft_r2c`` (real to complex, one-sided or whole), ``_fft_c2c`` (either
direction) and ``_fft_c2r`` (one-sided complex to real).

ATen states the scaling as an int: 0 none, 1 by 1/sqrt(n), 2 by 1/n; torch.fft's ``norm`` names
it from the direction's point of view (a forward transform's "backward" scales nothing).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .records import record

_FORWARD_NORM = ("backward", "ortho", "forward")
_INVERSE_NORM = ("forward", "ortho", "backward")


def fft_r2c(input: Any, dim: Any, normalization: int, onesided: bool) -> Any:
    """rfftn over ``dim`` (the last one halved), or fftn of the real input."""
    name = "torch.fft.rfftn" if onesided else "torch.fft.fftn"
    return record(name)(input, dim=list(dim), norm=_FORWARD_NORM[normalization])


def fft_c2c(input: Any, dim: Any, normalization: int, forward: bool) -> Any:
    """fftn or ifftn over ``dim``."""
    if forward:
        return record("torch.fft.fftn")(input, dim=list(dim), norm=_FORWARD_NORM[normalization])
    return record("torch.fft.ifftn")(input, dim=list(dim), norm=_INVERSE_NORM[normalization])


def fft_c2r(input: Any, dim: Any, normalization: int, last_dim_size: int) -> Any:
    """irfftn over ``dim``, the last dim's output ``last_dim_size`` long."""
    sizes = [int(input.shape[d]) for d in dim[:-1]] + [int(last_dim_size)]
    return record("torch.fft.irfftn")(input, s=sizes, dim=list(dim),
                                      norm=_INVERSE_NORM[normalization])


ADAPTERS: dict[str, Callable[..., Any]] = {
    "aten._fft_r2c": fft_r2c, "aten._fft_c2c": fft_c2c, "aten._fft_c2r": fft_c2r}
