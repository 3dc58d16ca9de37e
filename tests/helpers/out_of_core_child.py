"""Child process of test_dask_out_of_core: reduce a 2 GiB lazy tensor, report peak RSS.

Run as ``python -m tests.helpers.out_of_core_child ROWS COLS CHUNK_ROWS``; prints one JSON line.
Each block is drawn (uniform in [0, 1)) from its own seeded NumPy generator, so the NumPy reference can be
recomputed one block at a time (bounded memory) after the lazy reduction.
"""

from __future__ import annotations

import json
import resource
import sys
from pathlib import Path

import numpy as np

import interop

SEED = 2024


def peak_rss_mb() -> float:
    """This process's peak resident memory.  VmHWM belongs to the address space exec made;
    getrusage's ru_maxrss survives exec on Linux, so it would report the parent's peak
    (a pytest worker holding torch and op_db) instead of ours."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def block_values(i: int, shape: tuple) -> np.ndarray:
    return np.random.default_rng([SEED, i]).random(shape)


def main(rows: int, cols: int, chunk_rows: int) -> dict:
    base = interop.zeros(rows, cols, dtype=interop.float64, backend="dask",
                         chunks=(chunk_rows, cols))
    x = base.map_blocks(
        lambda b, block_id=None: interop.tensor(block_values(block_id[0], tuple(b.shape))),
        dtype=np.float64)
    col_sum, total_sq, peak = interop.compute(x.sum(dim=0), (x * x).mean(), x.abs().amax(),
                                              scheduler="threads", num_workers=2)
    lazy_rss_mb = peak_rss_mb()
    ref_sum, ref_sq, ref_peak = np.zeros(cols), 0.0, 0.0
    for i in range(rows // chunk_rows):  # NumPy, one block at a time
        b = block_values(i, (chunk_rows, cols))
        ref_sum += b.sum(axis=0)
        ref_sq += (b * b).sum()
        ref_peak = max(ref_peak, np.abs(b).max())
    return {
        "bytes": rows * cols * 8, "peak_rss_mb": lazy_rss_mb,
        "max_err_sum": float(np.abs(col_sum.raw - ref_sum).max()),
        "err_sq": abs(float(total_sq.raw) - ref_sq / (rows * cols)),
        "err_peak": abs(float(peak.raw) - ref_peak),
    }


if __name__ == "__main__":
    print(json.dumps(main(*map(int, sys.argv[1:4]))))
