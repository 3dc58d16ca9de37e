"""Reductions, scans, statistics, sorting and searching.

Importing the package declares its operations (fills ``registry.TABLE``)."""

from . import aggregates, counting, segments, sorting, statistics  # noqa: F401
