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


@functools.cache
def scipy_stats_reads_nan_checks_of_unknown_lazy_arrays() -> bool:
    """SciPy's statistics (``tmean``: the ``_axis_nan_policy`` wrapper) skip their NaN checks
    for Dask's own namespace, but from SciPy 1.18 call ``any()`` on the checks' results for a
    namespace they do not know, reading a lazy array's value once where raw Dask reads none.
    Asked in a subprocess, of a Dask tensor under ``dask_compute='raise'``: SciPy reads
    SCIPY_ARRAY_API when it is first imported."""
    import os
    import subprocess
    import sys
    probe = ("import scipy.stats, interop\n"
             "t = interop.tensor([1.0, 2.0, 3.0], backend='dask')\n"
             "with interop.config(dask_compute='raise'):\n"
             "    try: scipy.stats.tmean(t, (0.0, 2.0))\n"
             "    except interop.DaskComputeError as e: print(e)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         env={**os.environ, "SCIPY_ARRAY_API": "1"}, timeout=120)
    return "axis_nan_policy" in out.stdout and "bool()" in out.stdout
