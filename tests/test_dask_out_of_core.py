"""Out of core: a 2 GiB Dask tensor is reduced in a process whose peak memory stays under
512 MiB (4x less than the data), and the results match NumPy computed block by block."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("dask.array")

CAP_MB = 512
ROWS, COLS, CHUNK_ROWS = 32768, 8192, 512  # 2 GiB of float64 in 64 chunks of 32 MiB


@pytest.mark.slow
def test_reduce_four_times_the_memory_allowed():
    out = subprocess.run(
        [sys.executable, "-m", "tests.helpers.out_of_core_child", str(ROWS), str(COLS), str(CHUNK_ROWS)],
        cwd=Path(__file__).resolve().parent.parent, capture_output=True, text=True, timeout=240,
        check=True)
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["bytes"] >= 4 * CAP_MB * 2**20
    assert report["peak_rss_mb"] < CAP_MB, report  # the whole process, interpreter included
    assert report["max_err_sum"] < 1e-8 and report["err_sq"] < 1e-12 and report["err_peak"] == 0
