"""Dask's collection protocol on Dask-backed tensors.

A Dask-backed tensor is a Dask collection: ``dask.compute(t, u)``,
``dask.persist``, ``dask.optimize``, ``dask.visualize``, ``dask.delayed(f)(t)``
and a distributed ``Client`` see the wrapped array's graph, and what comes
back is a tensor of the same class with its attributes (on the chunks'
backend after compute, still Dask after persist).

Tensors on NumPy or CuPy are not collections: every attribute below except
``__dask_tokenize__`` raises AttributeError on them, so ``hasattr`` is False
and ``dask.base.is_dask_collection``, xarray's chunked-array test and
``da.asarray`` treat them as the in-memory arrays they are.  Nothing here
imports Dask: only a Dask-backed tensor reaches Dask's own methods.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..backends import registry
from ..core.dispatch import make
from ..core.tensor import _rebuild


class OnDask:
    """An attribute of Dask-backed tensors only, read from the wrapped dask array.

    ``get(tensor, raw)`` gives the value; other tensors raise AttributeError,
    so ``hasattr(t, name)`` says whether ``t`` is a Dask collection.
    """

    def __init__(self, get: Callable[[Any, Any], Any], doc: str) -> None:
        self.get = get
        self.__doc__ = doc

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        raw = obj._raw
        if not is_dask_backed(raw):
            be = registry.backend_of(raw)
            raise AttributeError(
                f"'{type(obj).__name__}' object has no attribute '{self.name}': only Dask-backed "
                f"tensors have it (this one is on {be.name if be else type(raw).__name__}); "
                "make one with t.to(backend='dask', chunks=...)")
        return self.get(obj, raw)


def is_dask_backed(raw: Any) -> bool:
    be = registry.backend_of(raw)
    return be is not None and be.lazy


def _delegate(name: str) -> OnDask:
    """The wrapped array's own attribute (its graph, keys, optimizer, scheduler...)."""
    return OnDask(lambda t, raw: getattr(raw, name), f"The wrapped dask array's ``{name}``.")


def _postcompute(t: Any, raw: Any) -> Callable[[], tuple]:
    def __dask_postcompute__() -> tuple:
        finalize, args = raw.__dask_postcompute__()
        return _computed, (finalize, args, type(t), _attributes(t))
    return __dask_postcompute__


def _postpersist(t: Any, raw: Any) -> Callable[[], tuple]:
    def __dask_postpersist__() -> tuple:
        rebuild, args = raw.__dask_postpersist__()
        return _persisted, (rebuild, args, type(t), _attributes(t))
    return __dask_postpersist__


def _attributes(t: Any) -> dict | None:
    return dict(t.__dict__) if t.__dict__ else None


def _computed(results: Any, finalize: Callable, args: tuple, cls: type, attrs: dict | None) -> Any:
    """The computed value as a ``cls`` tensor with ``attrs`` (0-d results stay arrays)."""
    value = finalize(results, *args)
    return _rebuild(cls, np.asarray(value) if isinstance(value, np.generic) else value, attrs)


def _persisted(dsk: Any, rebuild: Callable, args: tuple, cls: type, attrs: dict | None,
               *, rename: Any = None) -> Any:
    """The persisted dask array (its graph now holds the values) as a ``cls`` tensor."""
    return _rebuild(cls, rebuild(dsk, *args, rename=rename), attrs)


def __dask_tokenize__(self: Any) -> tuple:  # noqa: N807 (Dask's name)
    """A deterministic token: class, data (a dask array's name, a NumPy array's bytes), attributes."""
    from dask.base import normalize_token
    cls = type(self)
    attrs = normalize_token(self.__dict__) if self.__dict__ else None
    return (cls.__module__, cls.__qualname__, normalize_token(self._raw), attrs)


class Blocks:
    """``t.blocks[i, j]``: chunks of a Dask tensor, as tensors of its class (Dask's BlockView)."""

    def __init__(self, tensor: Any) -> None:
        self._tensor = tensor
        self._view = tensor._raw.blocks

    @property
    def shape(self) -> tuple[int, ...]:
        """The number of chunks along each dimension."""
        return self._view.shape

    def __getitem__(self, index: Any) -> Any:
        return make(type(self._tensor), self._view[index], self._tensor)


PROTOCOL: dict[str, Any] = {
    "__dask_graph__": _delegate("__dask_graph__"),
    "__dask_keys__": _delegate("__dask_keys__"),
    "__dask_layers__": _delegate("__dask_layers__"),
    "__dask_optimize__": _delegate("__dask_optimize__"),
    "__dask_scheduler__": _delegate("__dask_scheduler__"),
    "__dask_postcompute__": OnDask(_postcompute, "How Dask turns computed chunks into a tensor."),
    "__dask_postpersist__": OnDask(_postpersist, "How Dask rebuilds a tensor on persisted chunks."),
    "__dask_tokenize__": __dask_tokenize__,
    "dask": _delegate("dask"),
    "name": _delegate("name"),  # (Dask's own code and xarray's map_blocks read these two)
    "_meta": _delegate("_meta"),
    "visualize": _delegate("visualize"),
    "to_dask_array": OnDask(lambda t, raw: lambda: raw,
                            "The wrapped dask array (``da.asarray(t)`` returns it)."),
    "blocks": OnDask(lambda t, raw: Blocks(t), "The chunks, indexed by block: ``t.blocks[0, 1]``."),
}


def install(tensor_cls: Any) -> None:
    """Put the protocol onto ``tensor_cls`` (``interop.Tensor``)."""
    for name, attribute in PROTOCOL.items():
        setattr(tensor_cls, name, attribute)
        if isinstance(attribute, OnDask):
            attribute.__set_name__(tensor_cls, name)
