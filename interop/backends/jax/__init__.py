"""JAX: immutable arrays, written out of place; tensors are pytrees for jit, grad and vmap.

``backend.py`` holds the ``Backend``; JAX loads when the backend is first used."""
