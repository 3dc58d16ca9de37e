"""Creation: factories, random sampling, tensors built out of others.

Importing the package declares its operations (fills ``registry.TABLE``)."""

from . import build, core, random  # noqa: F401
