"""Dask's API on the tensor: chunks, rechunk, compute, persist, map_blocks, chunk sizes.

These are table entries like any other, so a subclass's ``__torch_function__``
sees ``t.compute()`` and ``t.map_blocks(...)``, and results keep the subclass
and its attributes.  On eager tensors (NumPy, CuPy) they are the identity
(``compute``, ``persist``) or apply to the whole array as one block
(``map_blocks``); ``rechunk`` needs a Dask tensor.  ``interop.compute`` and
``interop.persist`` take several tensors and evaluate them as one graph.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..backends import registry
from ..core.dispatch import make
from ..core.tensor import Tensor
from .registry import op


def _chunked_only(name: str, be: Any, input: Any) -> None:
    if be.chunking(input) is None:
        raise TypeError(f"interop.Tensor.{name}: a {be.name} tensor has no chunks; make it a Dask "
                        "tensor first with t.to(backend='dask', chunks=...)")


@op(function=False, family="dask", property=True, torch=())
def chunks(be: Any, input: Any) -> tuple:
    """Dask's chunk sizes per dimension (NaN where unknown).

    Eager tensors have no such attribute (AttributeError, so ``hasattr`` is
    False): xarray and Dask take an object with ``chunks`` for a chunked array.
    """
    chunks = be.chunking(input)
    if chunks is None:
        raise AttributeError(f"'Tensor' object has no attribute 'chunks': a {be.name} tensor is "
                             "not chunked; make it a Dask tensor with t.to(backend='dask', "
                             "chunks=...)")
    return chunks


@op(function=False, family="dask", torch=())
def rechunk(be: Any, input: Any, chunks: Any = "auto", **kwargs: Any) -> Any:
    """The same lazy values cut into new chunks (``dask.array.Array.rechunk``)."""
    _chunked_only("rechunk", be, input)
    return input.rechunk(chunks, **kwargs)


@op(function=False, family="dask", torch=())
def compute(be: Any, input: Any, **kwargs: Any) -> Any:
    """The values in memory, on the chunks' backend (NumPy or CuPy); eager tensors: themselves.

    ``kwargs`` go to ``dask.compute`` (``scheduler=``, ...); ``progress=True``
    shows Dask's progress bar while it runs.  Always allowed, whatever
    ``interop.config(dask_compute=...)`` says: this is the explicit call.
    """
    return be.compute(input, **kwargs)[0]


@op(function=False, family="dask", torch=())
def persist(be: Any, input: Any, **kwargs: Any) -> Any:
    """Still a Dask tensor, with its chunks computed and held in (cluster) memory."""
    return be.persist(input, **kwargs)[0]


@op(function=False, family="dask", torch=())
def compute_chunk_sizes(be: Any, input: Any) -> Any:
    """Compute unknown (NaN) chunk sizes in place, so shape-dependent operations can proceed."""
    _chunked_only("compute_chunk_sizes", be, input)
    return be.compute_chunk_sizes(input)


@op(function=False, family="dask", torch=())
def map_blocks(be: Any, input: Any, func: Callable, *args: Any, **kwargs: Any) -> Any:
    """Apply ``func`` to each chunk; ``func`` receives and returns interop tensors.

    The tensors ``func`` sees are on the chunk's backend (NumPy, or CuPy for
    GPU chunks).  Other tensor arguments are aligned chunk by chunk, and
    ``kwargs`` (``dtype=``, ``chunks=``, ``drop_axis=``, ``meta=``, ...) go to
    ``dask.array.map_blocks``.  ``func`` may take ``block_id``/``block_info``.
    """
    on_tensors = _on_tensors(func)
    if be.chunking(input) is None:  # one block: the whole array
        return on_tensors(input, *args)
    return be.np.map_blocks(on_tensors, input, *args, **kwargs)


def _on_tensors(func: Callable) -> Callable:
    """``func`` lifted to raw chunks: arrays in become Tensors, Tensors out become arrays."""

    @functools.wraps(func)  # keeps the signature, so Dask sees block_id / block_info
    def on_chunks(*blocks: Any, **kwargs: Any) -> Any:
        ins = [make(Tensor, b) if registry.backend_of(b) is not None else b for b in blocks]
        out = func(*ins, **kwargs)
        return out._raw if isinstance(out, Tensor) else out
    return on_chunks


def _several(method: str, tensors: tuple, kwargs: dict) -> tuple:
    """Run ``compute``/``persist`` on all tensors in one graph; each keeps its class and attributes."""

    raws = [t._raw if isinstance(t, Tensor) else t for t in tensors]
    by_backend: dict[Any, list[int]] = {}  # each backend computes its arrays in one graph
    for i, r in enumerate(raws):
        be = registry.backend_of(r)
        if be is not None:
            by_backend.setdefault(be, []).append(i)
    for be, places in by_backend.items():
        for i, r in zip(places, getattr(be, method)(*(raws[i] for i in places), **kwargs)):
            raws[i] = r
    return tuple(make(type(t), r, t) if isinstance(t, Tensor) else r
                 for t, r in zip(tensors, raws))


def compute_all(*tensors: Any, **kwargs: Any) -> tuple:
    """``interop.compute(a, b, ...)``: the values of several tensors from one Dask graph.

    Shared intermediates are computed once.  Each result is a tensor on the
    chunks' backend, of its input's class with its attributes; ``kwargs`` go
    to ``dask.compute`` (``scheduler=``, ...).
    """
    return _several("compute", tensors, kwargs)


def persist_all(*tensors: Any, **kwargs: Any) -> tuple:
    """``interop.persist(a, b, ...)``: several Dask tensors held in memory, from one graph."""
    return _several("persist", tensors, kwargs)
