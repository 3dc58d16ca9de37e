"""Creation: factories, random sampling, tensors built out of others.

Importing the package declares its operations (fills ``registry.TABLE``)."""

from . import build, factories, random  # noqa: F401
