"""array-api-strict: a test backend with devices of its own, so the device rules (no
implicit host conversion, mixing devices raises) run on every CI machine without a GPU.

``backend.py`` holds the ``Backend``; array-api-strict loads when the backend is first used."""
