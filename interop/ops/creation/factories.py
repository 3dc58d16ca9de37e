"""Creation functions: ``backend=``, ``device=`` and (Dask) ``chunks=`` on every one.

Which backend: ``backend=`` if given, else one that serves ``device=`` (the ``like``
tensor's for the ``*_like`` forms, or the default, else ``'cuda'`` means CuPy), else the
``like`` tensor's, else the default backend (``interop.set_default_backend`` /
``INTEROP_BACKEND``).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ... import dtypes
from ...backends import registry
from ...backends.contract import Backend
from ...devices import Device
from ...errors import ShapeError
from .._args import fits_dtype, int_arg, kept_scalars, size_arg
from ..attributes import to
from ..registry import SHAPE, SIZE, op


def target(backend: Any, device: Any, like: Backend | None = None) -> Backend:
    """The backend that creates: ``backend=``, else one serving ``device=`` (the ``like``
    tensor's, the default, or the device's own: ``zeros_like(t, device='cuda')`` of a host
    tensor is a GPU tensor), else the ``like`` tensor's, else the default."""
    if backend is not None:
        return registry.get_backend(backend)
    if device is not None:
        dev = Device(device)
        for be in (like, registry.default_backend()):
            if be is not None and be.serves(dev):
                return be
        return registry.backend_for_device(dev)
    return like if like is not None else registry.default_backend()


def _number(x: Any, name: str) -> Any:
    """A Python number for a start, end or step given as a number or a one-element tensor."""
    return x if type(x) in (int, float) else registry.python_value(x, f"{name}(): a bound")


def _float_or(dtype: Any) -> np.dtype:
    return dtypes.as_dtype(dtype) or dtypes.get_default_dtype()


def _sizes(name: str, size: tuple) -> tuple:
    """The shape of a new tensor, refused as torch does when a size is negative."""
    shape = size_arg(size)
    if any(s < 0 for s in shape):
        raise ShapeError(f"{name}(): Dimension size must be non-negative, got size {list(shape)}; "
                         "pass sizes of 0 or more")
    return shape


def _filled(fn: str, doc: str) -> Any:
    def impl(be: Any, *size: Any, dtype: Any = None, device: Any = None, backend: Any = None,
             chunks: Any = None, requires_grad: bool = False, layout: Any = None,
             pin_memory: bool = False, out: Any = None) -> Any:
        b = target(backend, device)
        return b.create(fn, _sizes(fn, size), dtype=_float_or(dtype), device=device, chunks=chunks)
    impl.__name__, impl.__doc__ = fn, doc
    return impl


op("zeros", creation=True, method=False, keywords=SHAPE)(_filled("zeros", """A tensor of 0s.

    >>> interop.zeros(2, 3)
    tensor([[0., 0., 0.],
            [0., 0., 0.]], backend='numpy')
    >>> interop.zeros((2,), dtype=interop.int32)
    tensor([0, 0], dtype=int32, backend='numpy')
    """))
op("ones", creation=True, method=False, keywords=SHAPE)(_filled("ones", """A tensor of 1s.

    >>> interop.ones(3)
    tensor([1., 1., 1.], backend='numpy')
    >>> interop.ones(2, 2, backend='dask').sum().compute()
    tensor(4., backend='numpy')
    """))
op("empty", creation=True, method=False, keywords=SHAPE)(
    _filled("empty", "An uninitialised tensor (Dask: zeros)."))


@op(creation=True, method=False, keywords={"shape": "size"})
def full(be: Any, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None,
         backend: Any = None, chunks: Any = None, requires_grad: bool = False) -> Any:
    """A tensor of ``fill_value`` (dtype inferred from it, as torch).

    >>> interop.full((2,), 7)
    tensor([7, 7], backend='numpy')
    >>> interop.full((2,), 0.5)
    tensor([0.5000, 0.5000], backend='numpy')
    """
    b = target(backend, device)
    try:
        dt = dtypes.as_dtype(dtype) or dtypes.scalar_dtype(fill_value)
    except TypeError as exc:
        raise TypeError(f"full(): argument 'fill_value' must be a number ({exc}); pass a bool, "
                        "int, float or complex") from None
    return b.create("full", _sizes("full", (size,)), fits_dtype("full", fill_value, dt), dtype=dt,
                    device=device, chunks=chunks)


def _made_like(fn: str, be: Any, input: Any, fill: tuple, dtype: Any, device: Any,
               backend: Any, chunks: Any) -> Any:
    b = target(backend, device, be)
    dev = device if device is not None else (be.device_of(input) if b is be else None)
    dt = dtypes.as_dtype(dtype) or be.dtype_of(input)
    if chunks is None:
        chunks = be.chunking(input)  # None where input has no chunks
    fill = kept_scalars(fn, dt, *fill)
    return b.create(fn.removesuffix("_like"), tuple(input.shape), *fill, dtype=dt, device=dev,
                    chunks=chunks)


def _like(fn: str, doc: str) -> Any:
    def impl(be: Any, input: Any, *, dtype: Any = None, layout: Any = None, device: Any = None,
             backend: Any = None, chunks: Any = None, requires_grad: bool = False,
             memory_format: Any = None) -> Any:
        return _made_like(fn, be, input, (), dtype, device, backend, chunks)
    impl.__name__, impl.__doc__ = fn, doc
    return impl


for _fn, _doc in (("zeros_like", "0s shaped like ``input``."), ("ones_like", "1s shaped like "
                  "``input``."), ("empty_like", "Uninitialised, shaped like ``input``.")):
    op(_fn, method=False, creation=True)(_like(_fn, _doc))


@op(method=False, creation=True)
def full_like(be: Any, input: Any, fill_value: Any, *, dtype: Any = None, layout: Any = None,
              device: Any = None, backend: Any = None, chunks: Any = None,
              requires_grad: bool = False, memory_format: Any = None) -> Any:
    """``fill_value`` shaped like ``input``."""
    return _made_like("full_like", be, input, (fill_value,), dtype, device, backend, chunks)


@op(creation=True, method=False, keywords={"stop": "end"})
def arange(be: Any, start: Any, end: Any = None, step: Any = 1, *, dtype: Any = None,
           device: Any = None, backend: Any = None, chunks: Any = None,
           requires_grad: bool = False) -> Any:
    """Values from ``start`` to ``end`` (exclusive); int64 for integers, else the default float.

    >>> interop.arange(5)
    tensor([0, 1, 2, 3, 4], backend='numpy')
    >>> interop.arange(0, 1, 0.25)
    tensor([0.0000, 0.2500, 0.5000, 0.7500], backend='numpy')
    """
    if end is None:
        start, end = 0, start
    start, end, step = (_number(v, "arange") for v in (start, end, step))
    if step == 0:
        raise RuntimeError("arange: step must be nonzero")
    b = target(backend, device, be)  # bounds given as tensors: their backend
    numbers = (start, end, step)
    dt = dtypes.as_dtype(dtype) or (dtypes.int64 if all(
        isinstance(v, (int, np.integer)) for v in numbers) else dtypes.get_default_dtype())
    return b.create("arange", start, end, step, dtype=dt, device=device, chunks=chunks)


@op(creation=True, method=False, keywords={"stop": "end", "num": "steps"})
def linspace(be: Any, start: Any, end: Any, steps: int, *, dtype: Any = None, device: Any = None,
             backend: Any = None, chunks: Any = None, requires_grad: bool = False) -> Any:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive.

    >>> interop.linspace(0, 1, 5)
    tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000], backend='numpy')
    """
    b = target(backend, device, be)
    start, end = _number(start, "linspace"), _number(end, "linspace")
    steps = int_arg("linspace", "steps", steps)
    out = b.create("linspace", start, end, steps, device=device, chunks=chunks)
    return b.astype(out, _float_or(dtype))


@op(creation=True, method=False, keywords={"stop": "end", "num": "steps"})
def logspace(be: Any, start: Any, end: Any, steps: int, base: float = 10.0, *, dtype: Any = None,
             device: Any = None, backend: Any = None, chunks: Any = None,
             requires_grad: bool = False) -> Any:
    """``steps`` values from ``base ** start`` to ``base ** end``, evenly spaced in exponent
    (computed in float64, then cast: integer dtypes truncate as torch's do)."""
    b = target(backend, device, be)
    dt = _float_or(dtype)
    start, end = _number(start, "logspace"), _number(end, "logspace")
    steps = int_arg("logspace", "steps", steps)
    if dt.kind in "iub":  # torch takes integer start/end for integer results
        start, end = int(start), int(end)
    exponents = b.create("linspace", start, end, steps, dtype=dtypes.float64, device=device,
                         chunks=chunks)
    return b.astype(float(base) ** exponents, dt)


@op(creation=True, method=False)
def eye(be: Any, n: int, m: int | None = None, *, dtype: Any = None, device: Any = None,
        backend: Any = None, chunks: Any = None, requires_grad: bool = False) -> Any:
    """The identity matrix (n by m).

    >>> interop.eye(2)
    tensor([[1., 0.],
            [0., 1.]], backend='numpy')
    >>> interop.eye(2, 3).shape
    (2, 3)
    """
    b = target(backend, device, be)
    n = int_arg("eye", "n", n)
    m = None if m is None else int_arg("eye", "m", m)
    return b.create("eye", n, M=m, dtype=_float_or(dtype), device=device, chunks=chunks)


def _fresh_seed() -> int:
    """A seed from the system's entropy, as NumPy's ``SeedSequence()`` draws one (without
    importing ``numpy.random`` before the first random call)."""
    return int.from_bytes(os.urandom(8), "little") >> 1


class Generator:
    """A seedable source of random tensors for every backend (``torch.Generator``'s role)."""

    def __init__(self, device: Any = "cpu") -> None:
        self._seed: int = _fresh_seed()
        self._per_backend: dict[str, Any] = {}

    def manual_seed(self, seed: int) -> Generator:
        self._seed, self._per_backend = int(seed), {}
        return self

    def seed(self) -> int:
        self.manual_seed(_fresh_seed())
        return self._seed

    def initial_seed(self) -> int:
        return self._seed

    def for_backend(self, be: Backend) -> Any:
        rng = self._per_backend.get(be.name)
        if rng is None:
            rng = self._per_backend[be.name] = be.random(self._seed)
        return rng


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Seed the default generator, so rand/randn/randint repeat (per backend)."""
    return default_generator.manual_seed(seed)


def _random(kind: str, doc: str) -> Any:
    def impl(be: Any, *size: Any, generator: Generator | None = None, dtype: Any = None,
             device: Any = None, backend: Any = None, chunks: Any = None,
             requires_grad: bool = False) -> Any:
        b = target(backend, device)
        rng = (generator or default_generator).for_backend(b)
        shape = size_arg(size)
        kwargs = b.chunk_options(chunks)
        out = rng.random(shape, **kwargs) if kind == "rand" else \
            rng.standard_normal(shape, **kwargs)
        return b.astype(out, _float_or(dtype))
    impl.__name__, impl.__doc__ = kind, doc
    return impl


op("rand", creation=True, method=False, keywords=SIZE)(
    _random("rand", "Uniform samples in [0, 1), from a seedable generator."))
op("randn", creation=True, method=False, keywords=SIZE)(
    _random("randn", """Standard normal samples, from a seedable generator.

    >>> _ = interop.manual_seed(0)
    >>> interop.randn(2, 3).shape
    (2, 3)
    >>> interop.randn(2, 3, backend='dask', chunks=(1, 3)).chunks
    ((1, 1), (3,))
    """))


@op(creation=True, method=False)
def randint(be: Any, low: int, high: int | None = None, size: Any = None, *,
            generator: Generator | None = None, dtype: Any = None, device: Any = None,
            backend: Any = None, chunks: Any = None, requires_grad: bool = False) -> Any:
    """Uniform integers in [low, high) (int64 unless ``dtype``)."""
    if size is None:
        low, high, size = 0, low, high
    b = target(backend, device)
    rng = (generator or default_generator).for_backend(b)
    kwargs = b.chunk_options(chunks)
    out = rng.integers(low, high, size=tuple(size), **kwargs)
    return b.astype(out, dtypes.as_dtype(dtype) or dtypes.int64)


def _on_device(be: Any, out: Any, device: Any) -> Any:
    """``out`` moved to ``device`` when one is asked for (an explicit move, as ``.to``)."""
    if device is None:
        return out
    return to(be, out, device=device)


def _random_like(kind: str) -> Any:
    def impl(be: Any, input: Any, *, dtype: Any = None, generator: Generator | None = None,
             device: Any = None, requires_grad: bool = False, layout: Any = None,
             memory_format: Any = None, pin_memory: bool = False) -> Any:
        rng = (generator or default_generator).for_backend(be)
        kwargs = be.chunk_options(be.chunking(input))
        shape = tuple(input.shape)
        out = rng.random(shape, **kwargs) if kind == "rand" else rng.standard_normal(shape, **kwargs)
        dt = dtypes.as_dtype(dtype) or be.dtype_of(input)
        return _on_device(be, be.astype(out, dt if dt.kind in "fc" else dtypes.get_default_dtype()),
                          device)
    impl.__name__ = f"{kind}_like"
    impl.__doc__ = f"Like {kind}, shaped like ``input`` on its backend."
    return impl


op("rand_like", method=False, creation=True)(_random_like("rand"))
op("randn_like", method=False, creation=True)(_random_like("randn"))


@op(method=False, creation=True)
def randint_like(be: Any, input: Any, low: int, high: int | None = None, *,
                 generator: Generator | None = None, dtype: Any = None, device: Any = None,
                 requires_grad: bool = False, layout: Any = None, memory_format: Any = None,
                 pin_memory: bool = False) -> Any:
    """Uniform integers in [low, high) (``randint_like(t, high)``: from 0), shaped like
    ``input`` on its backend, in its dtype unless ``dtype``."""
    if high is None:
        low, high = 0, low
    rng = (generator or default_generator).for_backend(be)
    kwargs = be.chunk_options(be.chunking(input))
    out = rng.integers(int(low), int(high), size=tuple(input.shape), **kwargs)
    return _on_device(be, be.astype(out, dtypes.as_dtype(dtype) or be.dtype_of(input)), device)


@op(method=False, creation=True)
def meshgrid(be: Any, *tensors: Any, indexing: str = "ij") -> Any:
    """Coordinate grids (``indexing='ij'`` by default, as torch)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    arrays = [be.np.reshape(t, (1,)) if t.ndim == 0 else t for t in tensors]  # as NumPy reads
    return tuple(be.np.meshgrid(*arrays, indexing=indexing))  # 0-d (JAX's refuses them)

