#!/usr/bin/env bash
# Set up (if needed) and run the main demo on NumPy (no GPU or cluster needed).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] && .venv/bin/python -c "import interop, dask" 2>/dev/null \
  || bash scripts/setup.sh demo
.venv/bin/python examples/demo.py "$@"
