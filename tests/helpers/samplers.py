"""The in-place samplers' records (``t.uniform_()``, ...) and their in-place forms: their values
are draws, compared with torch's by distribution (tests/test_random_fills.py), not value by
value as the generic tests of in-place forms compare writes (tests/test_writes.py)."""

DRAWS = {"uniform": "uniform_", "normal_fill": "normal_", "log_normal": "log_normal_",
         "exponential": "exponential_", "cauchy": "cauchy_", "geometric": "geometric_"}
