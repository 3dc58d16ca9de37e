"""Shapes and views: reshaping, permuting, stacking, splitting, flipping.

Importing the package declares its operations (fills ``registry.TABLE``)."""

from . import core, stacking, tensor_methods  # noqa: F401
