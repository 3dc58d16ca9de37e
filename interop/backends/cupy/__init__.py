"""CuPy: NVIDIA GPUs.  ``backend.py`` holds the ``Backend``; CuPy loads when the backend is
first used, so importing this package needs no GPU and no CuPy."""
