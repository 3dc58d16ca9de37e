#!/usr/bin/env bash
# Set up (if needed) and run the whole test suite; CuPy tests skip without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] && .venv/bin/python -c "import interop, torch, dask, hypothesis" 2>/dev/null \
  || bash scripts/setup.sh
HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}" .venv/bin/python -m pytest -q -n 2 "$@"
