"""Elementwise operations: arithmetic, comparisons, math and special functions.

Importing the package declares its operations (fills ``registry.TABLE``)."""

from . import core, pointwise, special  # noqa: F401
