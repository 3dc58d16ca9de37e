"""The Dask backend: lazy, chunked, out-of-core and distributed.

Its chunks are NumPy arrays, or CuPy arrays on a GPU; ``chunk_backend`` says
which, and the device follows from it.
"""

from __future__ import annotations

from typing import Any

import array_api_compat.dask.array as compat_dask
import dask.array as da
import numpy as np

from .base import Backend, Device


class DaskBackend(Backend):
    name = "dask"
    lazy = True
    array_type = da.Array
    xp = compat_dask
    np = da

    def chunk_backend(self, raw: da.Array) -> Backend:
        from .registry import backend_of
        return backend_of(raw._meta) or self._host()

    @staticmethod
    def _host() -> Backend:
        from .registry import get_backend
        return get_backend("numpy")

    def device_of(self, raw: da.Array) -> Device:
        chunks = self.chunk_backend(raw)
        return chunks.device_of(raw._meta)

    def asarray(self, data: Any, dtype: np.dtype | None = None, device: Device | None = None,
                copy: bool | None = None, chunks: Any = "auto", **options: Any) -> da.Array:
        if isinstance(data, da.Array):
            out = data.astype(dtype) if dtype is not None and data.dtype != dtype else data
            return out if chunks == "auto" else out.rechunk(chunks)
        from .registry import get_backend
        holder = get_backend("cupy") if device is not None and Device(device).type == "cuda" \
            else self._host()
        local = holder.asarray(data, dtype=dtype, device=device, copy=copy)
        return da.from_array(local, chunks=chunks, asarray=False)

    def create(self, fn: str, *args: Any, device: Device | None = None, chunks: Any = None,
               **kwargs: Any) -> da.Array:
        return getattr(da, fn)(*args, chunks=chunks or "auto", **kwargs)

    def random(self, seed: Any) -> Any:
        return da.random.default_rng(np.random.default_rng(seed))

    def from_foreign(self, raw: Any, source: Backend, chunks: Any = "auto", **options: Any) -> da.Array:
        # The chunks stay on the source's device: a CuPy array becomes a Dask array of CuPy chunks.
        return da.from_array(raw, chunks=chunks, asarray=False)

    def to_host(self, raw: da.Array) -> np.ndarray:
        local = raw.compute()
        return self.chunk_backend(raw).to_host(local)


backend = DaskBackend()
