"""xarray's chunk manager for Cubed-backed tensors (entry point group ``xarray.chunkmanagers``).

xarray hands a chunked array's parallel work (``chunk``, ``compute``,
``apply_ufunc(dask="parallelized")``, reductions, ``map_blocks``-style blockwise calls,
``store``) to the chunk manager that recognises the array's type.  This one recognises
Cubed-backed tensors: it unwraps them (``Backend.copy``: a new object for the same plan, which
no later write to the tensor reaches), runs Cubed's own function, the one cubed-xarray's manager
runs on raw Cubed arrays, and wraps what it makes as tensors, so results stay tensors on the
input's backend.  ``array_api`` is the tensor's namespace bound to the backend (xarray makes
``full``/``arange`` with ``chunks=`` there).

Dask-backed tensors are Dask collections (``surfaces/dask_collection.py``), and xarray's own
``DaskManager`` claims every Dask collection (``is_duck_dask_array``); a second manager
recognising them would make xarray refuse them ("Multiple ChunkManagers recognise type"), so
they stay with ``DaskManager`` (docs/consumers.md says what that gives).

Only xarray imports this module (through the entry point); Cubed loads when first used.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

from xarray.namedarray.parallelcompat import ChunkManagerEntrypoint

from .. import array_api
from ..backends import registry
from ..backends.contract import Backend
from ..core.tensor import Tensor, make
from ..devices import CPU, Device
from ..upstream import private


class CubedTensors(ChunkManagerEntrypoint):
    """Cubed-backed interop tensors as xarray's chunked arrays."""

    available: bool = importlib.util.find_spec("cubed") is not None
    backend_name = "cubed"

    def __init__(self) -> None:
        self.array_cls = Tensor

    @property
    def _be(self) -> Backend:
        return registry.get_backend(self.backend_name)

    def is_chunked_array(self, data: Any) -> bool:
        return isinstance(data, Tensor) and registry.backend_of(data.raw) is self._be

    def chunks(self, data: Any) -> Any:
        return data.chunks

    def normalize_chunks(self, chunks: Any, shape: Any = None, limit: Any = None, dtype: Any = None,
                         previous_chunks: Any = None) -> Any:
        normalize_chunks = private("cubed.vendor.dask.array.core", "normalize_chunks")
        return normalize_chunks(chunks, shape=shape, limit=limit, dtype=dtype,
                                previous_chunks=previous_chunks)

    def from_array(self, data: Any, chunks: Any, **kwargs: Any) -> Tensor:
        """``data`` (a tensor, an array, xarray's lazy indexing adapter) on the backend."""
        raw = data.raw if isinstance(data, Tensor) else data
        return make(Tensor, self._be.asarray(raw, chunks=chunks, spec=kwargs.get("spec")))

    def rechunk(self, data: Any, chunks: Any, **kwargs: Any) -> Any:
        import cubed
        return self._call(cubed.rechunk, data, chunks, **kwargs)

    def compute(self, *data: Any, **kwargs: Any) -> tuple:
        """The values, as tensors on the chunks' backend (NumPy)."""
        import cubed
        return self._call(cubed.compute, *data, **kwargs)

    @property
    def array_api(self) -> Any:
        return array_api.bound_to(self._be, Device(CPU, backend=self.backend_name))

    def reduction(self, arr: Any, func: Callable, combine_func: Callable | None = None,
                  aggregate_func: Callable | None = None, axis: Any = None, dtype: Any = None,
                  keepdims: bool = False) -> Any:
        return self._call(private("cubed.core.ops", "reduction"), arr, func=func, combine_func=combine_func,
                          aggregate_func=aggregate_func, axis=axis, dtype=dtype, keepdims=keepdims)

    def apply_gufunc(self, func: Callable, signature: str, *args: Any, **kwargs: Any) -> Any:
        import cubed
        kwargs.pop("meta", None)  # (Dask's; Cubed has none)
        return self._call(cubed.apply_gufunc, func, signature, *args, **kwargs)

    def map_blocks(self, func: Callable, *args: Any, **kwargs: Any) -> Any:
        import cubed
        return self._call(cubed.map_blocks, func, *args, **kwargs)

    def blockwise(self, func: Callable, out_ind: Any, *args: Any, **kwargs: Any) -> Any:
        blockwise = private("cubed.core.ops", "blockwise")
        for name in ("name", "token", "concatenate", "meta"):  # (Dask's; Cubed has none)
            kwargs.pop(name, None)
        return self._call(blockwise, func, out_ind, *args, **kwargs)

    def unify_chunks(self, *args: Any, **kwargs: Any) -> Any:
        return self._call(private("cubed.core.ops", "unify_chunks"), *args, **kwargs)

    def store(self, sources: Any, targets: Any, **kwargs: Any) -> Any:
        import cubed
        return self._call(cubed.store, sources, targets, **kwargs)

    def _call(self, fn: Callable, *args: Any, **kwargs: Any) -> Any:
        """``fn`` on the raw arrays of the tensors among the arguments; its arrays as tensors."""
        return self._wrapped(fn(*self._raw(args), **self._raw(kwargs)))

    def _raw(self, x: Any) -> Any:
        if isinstance(x, Tensor):
            return self._be.copy(x.raw) if self.is_chunked_array(x) else x.raw
        if type(x) in (list, tuple):
            return type(x)(self._raw(v) for v in x)
        if type(x) is dict:
            return {k: self._raw(v) for k, v in x.items()}
        return x

    def _wrapped(self, x: Any) -> Any:
        if type(x) in (list, tuple):
            return type(x)(self._wrapped(v) for v in x)
        if type(x) is dict:
            return {k: self._wrapped(v) for k, v in x.items()}
        be = registry.backend_of(x)
        if be is self._be:  # Cubed's own array: as interop holds it (an alias of its plan)
            return make(Tensor, be.asarray(x))
        return make(Tensor, x) if be is not None else x
