"""Functions run on a ``dask.distributed`` worker by ``client.run``: they are pickled by
reference, so the worker imports this module, which imports no torch of its own."""

from __future__ import annotations

import sys


def kernel_state() -> tuple[bool, bool]:
    """(torch imported in this worker, 'auto' refused to import it for want of memory)."""
    from interop.ops.nn import kernels
    return "torch" in sys.modules, kernels._no_room
