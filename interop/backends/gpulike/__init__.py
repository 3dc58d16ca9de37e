"""gpulike: a test backend, NumPy on a device of its own under a GPU's rules, so that every
backend-parametrised test meets those rules in CI, where no GPU exists.

``arrays.py`` holds its arrays and namespaces; ``backend.py`` the ``Backend``."""
