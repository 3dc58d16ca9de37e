"""Helpers shared by the tests: reference comparisons, compute counters, expected-failure lists."""
