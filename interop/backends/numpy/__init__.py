"""NumPy: the host backend, and the reference every other backend is compared with.

``backend.py`` holds the ``Backend``; nothing here imports more than NumPy."""
