"""What the installed libraries do where the support window's two ends differ, asked of the
libraries themselves (not their versions), for the tests whose expectations depend on it."""

from __future__ import annotations

import functools


@functools.cache
def dask_quantile_takes_a_lazy_q() -> bool:
    """Dask's ``quantile`` with ``q`` a Dask array (the namespace's ``xp.asarray(q)``) builds
    its graph: Dask before 2026.6 fails inferring the dtype (NumPy dispatches ``np.quantile`` on
    ``q``, a Dask array, inside ``map_blocks``)."""
    import dask.array as da
    try:
        da.quantile(da.ones((2, 3)), da.asarray([0.5]), axis=1)
    except ValueError:
        return False
    return True
