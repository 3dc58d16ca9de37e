"""Indexing, gathering, scattering and strided views.

Importing the package declares its operations (fills ``registry.TABLE``)."""

from . import scatter, selection, strided  # noqa: F401
