"""Shapes and views: reshaping, permuting, stacking, splitting, flipping.

Importing the package declares its operations (fills ``registry.TABLE``)."""

from . import manipulation, stacking, tensor_methods  # noqa: F401
