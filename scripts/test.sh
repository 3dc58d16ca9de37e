#!/usr/bin/env bash
# Set up (if needed) and run the whole test suite; CuPy tests skip without a GPU.
# With no arguments (as CI runs it) the checks come first: ruff and mypy must find nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] && .venv/bin/python -c "import interop, torch, dask, hypothesis, mypy" \
  2>/dev/null && [ -x .venv/bin/ruff ] || bash scripts/setup.sh
if [ $# -eq 0 ]; then
  echo "==> checks: ruff check, mypy"
  .venv/bin/ruff check interop tests benchmarks scripts
  .venv/bin/mypy
fi
HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}" .venv/bin/python -m pytest -q -n 2 "$@"
