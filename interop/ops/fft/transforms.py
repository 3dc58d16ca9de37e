"""torch.fft on the backend's own FFT module (numpy.fft, cupy.fft, dask.array.fft), with
torch's argument names (``n``/``s``, ``dim``, ``norm``) and result dtypes: real float32
input gives complex64, integers are taken as the default float first.

Dask transforms need one chunk along the transformed dims (Dask's own error says so).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ... import dtypes
from ..registry import op

_COMPLEX = {np.dtype("float32"): np.dtype("complex64"), np.dtype("float64"): np.dtype("complex128"),
            np.dtype("float16"): np.dtype("complex64")}


def _prepare(input: Any) -> Any:
    if input.dtype.kind in "biu":
        return input.astype(dtypes.get_default_dtype())
    return input


def _complex_of(dt: np.dtype) -> Any:
    return dt if dt.kind == "c" else _COMPLEX[dt]


def _real_of(dt: np.dtype) -> np.dtype:
    return np.dtype(np.finfo(dt).dtype) if dt.kind == "c" else dt


def _axes(dim: Any, s: Any = None) -> Any:
    """NumPy's axes for torch's dim; with dim=None and s given, torch means the last
    len(s) dims (NumPy deprecates leaving axes None there)."""
    if dim is None and s is not None:
        return tuple(range(-len(s), 0))
    return tuple(dim) if isinstance(dim, (list, tuple)) else dim


def _register(name: str, fname: str, kind: str, complex_out: bool) -> None:
    """kind '1': (n, dim=-1); '2': (s, dim=(-2, -1)); 'n': (s, dim=None)."""
    def run(be: Any, x: Any, size: Any, axes: Any, norm: Any) -> Any:
        fn = getattr(be.np.fft, fname)
        if kind == "1":
            out = fn(x, n=size, axis=axes, norm=norm)
        else:
            axes = (axes,) if isinstance(axes, int) else _axes(axes, size)
            out = fn(x, s=None if size is None else tuple(size), axes=axes, norm=norm)
        want = _complex_of(x.dtype) if complex_out else _real_of(x.dtype)
        return out if out.dtype == want else out.astype(want)

    impl: Callable[..., Any]
    if kind == "1":
        def impl(be: Any, input: Any, n: Any = None, dim: int = -1, norm: Any = None) -> Any:
            return run(be, _prepare(input), n, dim, norm)
    elif kind == "2":
        def impl(be: Any, input: Any, s: Any = None, dim: Any = (-2, -1), norm: Any = None) -> Any:
            return run(be, _prepare(input), s, dim, norm)
    else:
        def impl(be: Any, input: Any, s: Any = None, dim: Any = None, norm: Any = None) -> Any:
            return run(be, _prepare(input), s, dim, norm)
    impl.__name__ = f"fft_{name}"
    impl.__doc__ = f"torch.fft.{name}, by the backend's fft.{fname}."
    op(f"fft_{name}", method=False, torch=(f"torch.fft.{name}",))(impl)


for _name, _kind, _complex in (
        ("fft", "1", True), ("ifft", "1", True), ("rfft", "1", True), ("irfft", "1", False),
        ("hfft", "1", False), ("ihfft", "1", True),
        ("fft2", "2", True), ("ifft2", "2", True), ("rfft2", "2", True), ("irfft2", "2", False),
        ("fftn", "n", True), ("ifftn", "n", True), ("rfftn", "n", True), ("irfftn", "n", False)):
    # the 2-d forms by the n-d ones, which take any axes (fft2 is fftn over the axes given;
    # JAX's fft2 refuses other than two)
    _register(_name, _name.replace("2", "n"), _kind, _complex)


_SWAPPED = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}


def _hermitian(name: str, kind: str) -> None:
    """hfft2/hfftn (ihfft2/ihfftn) as NumPy defines hfft: the inverse real FFT of the
    conjugate (the conjugate of the real FFT) with the normalisation direction swapped."""
    def impl(be: Any, input: Any, s: Any = None, dim: Any = (-2, -1) if kind == "2" else None,
             norm: Any = None) -> Any:
        x = _prepare(input)
        axes = (dim,) if isinstance(dim, int) else _axes(dim, s)
        size = None if s is None else tuple(s)
        if name.startswith("i"):
            out = be.np.conj(be.np.fft.rfftn(x, s=size, axes=axes, norm=_SWAPPED[norm]))
            return out.astype(_complex_of(x.dtype))
        out = be.np.fft.irfftn(be.np.conj(x), s=size, axes=axes, norm=_SWAPPED[norm])
        return out.astype(_real_of(x.dtype))
    impl.__name__ = f"fft_{name}"
    impl.__doc__ = f"torch.fft.{name}: Hermitian-input FFT over {kind} dims."
    op(f"fft_{name}", method=False, torch=(f"torch.fft.{name}",))(impl)


for _name in ("hfft2", "ihfft2", "hfftn", "ihfftn"):
    _hermitian(_name, _name[-1])


@op(method=False, torch=("torch.fft.fftshift",))
def fft_fftshift(be: Any, input: Any, dim: Any = None) -> Any:
    """Zero frequency to the centre of ``dim`` (all dims by default)."""
    return be.np.fft.fftshift(input, axes=_axes(dim))


@op(method=False, torch=("torch.fft.ifftshift",))
def fft_ifftshift(be: Any, input: Any, dim: Any = None) -> Any:
    """The inverse of fftshift."""
    return be.np.fft.ifftshift(input, axes=_axes(dim))
