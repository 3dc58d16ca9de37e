"""Shapes and views: reshaping, permuting, stacking, splitting, flipping.

Importing the package declares its operations (fills ``registry.TABLE``)."""

from . import joining, manipulation, stacking, tensor_methods  # noqa: F401
