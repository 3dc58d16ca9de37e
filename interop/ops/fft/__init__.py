"""Fourier transforms and the short-time transform.

Importing the package declares its operations (fills ``registry.TABLE``)."""

from . import stft, transforms  # noqa: F401
