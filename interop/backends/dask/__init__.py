"""Dask: lazy, chunked, distributed.  Everything interop knows about Dask below the core:

- ``backend.py``: the ``Backend`` (devices, value reads, compute and persist, views replayed);
- ``ufunc_methods.py``: ``reduce``, ``accumulate``, ``reduceat``, ``outer``, ``at``, built lazily;
- ``numpy_functions.py``: NumPy functions Dask lacks (or has for one chunk only), built lazily;
- ``indexing.py``: torch-style indexing on Dask arrays (unknown sizes explained);
- ``standard.py``: the Array API functions array-api-compat's Dask namespace gets wrong.

Importing the package imports no Dask: the modules that need it at import time load
with the backend, the others import it inside their functions."""
