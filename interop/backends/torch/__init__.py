"""torch as a backend: interop tensors holding torch tensors run torch's own functions.

- ``backend.py``: the ``Backend`` (native functions by torch name, DLPack, views);
- ``numpy_namespace.py``: NumPy's names over torch, for the NumPy surface."""
