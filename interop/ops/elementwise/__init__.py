"""Elementwise operations: arithmetic, comparisons, math and special functions.

Importing the package declares its operations (fills ``registry.TABLE``)."""

from . import arithmetic, pointwise, special  # noqa: F401
