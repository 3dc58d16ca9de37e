"""What interop asks of the ``dask.distributed`` worker it runs in (a chunk task's process).

Nothing here imports Dask or distributed: outside a worker the answers are ``None``."""

from __future__ import annotations

import sys


def memory_room() -> int | None:
    """Bytes this process may still grow before its worker pauses (stops running tasks until
    its memory falls); ``None`` outside a worker, or for one with no memory limit or no pause
    threshold.  Memory a library holds for good (an import) never falls, so a worker it
    pushes past the threshold stays paused, and a compute waiting on it never ends."""
    distributed = sys.modules.get("distributed")
    if distributed is None:
        return None
    try:
        worker = distributed.get_worker()
    except ValueError:  # not in a worker's task
        return None
    manager = worker.memory_manager
    limit, pause = manager.memory_limit, manager.memory_pause_fraction
    if not limit or not pause:
        return None
    import psutil  # (a dependency of distributed)
    return int(limit * pause) - psutil.Process().memory_info().rss
