"""Backends: the array libraries below the facade (numpy, cupy, dask), loaded lazily."""

from ..devices import CPU, Device
from ..errors import DeviceMismatchError
from .contract import Backend
from .registry import (
                       BACKEND_NAMES,
                       array_types,
                       backend_of,
                       common_backend,
                       default_backend,
                       get_backend,
                       set_default_backend,
)

__all__ = ["BACKEND_NAMES", "CPU", "Backend", "Device", "DeviceMismatchError", "array_types",
           "backend_of", "common_backend", "default_backend", "get_backend", "set_default_backend"]
