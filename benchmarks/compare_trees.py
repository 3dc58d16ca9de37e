"""Dispatch overheads of two or more checkouts of interop, measured side by side.

Run: .venv/bin/python benchmarks/compare_trees.py PATH [PATH ...] [--rounds 3]

Runs ``benchmarks/bench_dispatch.py --quick`` of the first tree (this one's, by
default) with each tree on ``PYTHONPATH`` in turn, ``--rounds`` times, alternating
trees, and prints for each row the best time of each tree and its ratio to the raw
NumPy call of the same process.  Alternating is what makes the figures comparable:
drifts of a shared machine touch every tree alike.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent


def _rows(tree: str, script: pathlib.Path) -> dict[tuple[str, str], tuple[float, float]]:
    """(operation, shape) -> (raw us, Tensor us) from one run of ``script`` on ``tree``."""
    env = {**os.environ, "PYTHONPATH": tree}
    out = subprocess.run([sys.executable, str(script), "--quick"], env=env, cwd=tree,
                         capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines()[1:]:
        name, rest = line[:10].strip(), line[10:].split()
        shape_end = next(i for i, w in enumerate(rest) if w.endswith(")"))
        shape = " ".join(rest[:shape_end + 1])
        raw, tensor = float(rest[shape_end + 1].rstrip("us")), float(rest[shape_end + 2].rstrip("us"))
        rows[name, shape] = (raw, tensor)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("trees", nargs="+", help="checkouts of interop to compare")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    script = HERE / "bench_dispatch.py"
    best: dict[str, dict] = {t: {} for t in args.trees}
    for k in range(args.rounds):
        for tree in args.trees if k % 2 == 0 else reversed(args.trees):
            for key, (raw, t) in _rows(tree, script).items():
                old = best[tree].get(key)
                if old is None or t - raw < old[1] - old[0]:
                    best[tree][key] = (raw, t)
    keys = list(best[args.trees[0]])
    print(f"{'operation':<10} {'shape':<13} " + " ".join(f"{pathlib.Path(t).name:>24}" for t in args.trees))
    for key in keys:
        cells = []
        for tree in args.trees:
            raw, t = best[tree].get(key, (float("nan"), float("nan")))
            cells.append(f"{t:7.2f}us {t / raw:5.2f}x +{t - raw:5.2f}")
        print(f"{key[0]:<10} {key[1]:<13} " + " ".join(f"{c:>24}" for c in cells))


if __name__ == "__main__":
    main()
