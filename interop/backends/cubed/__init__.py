"""Cubed: lazy and memory-bounded (``cubed.Spec(allowed_mem=...)``).

- ``backend.py``: the ``Backend``;
- ``numpy_namespace.py``: NumPy's names over Cubed's standard namespace."""
