#!/usr/bin/env bash
# Set up (if needed) and run the whole test suite; CuPy tests skip without a GPU.
# With no arguments (as CI runs it) both ends of the support window are tested (README,
# "Installing"): the checks first (ruff and mypy must find nothing), the whole suite on the
# newest releases (.venv), then the oldest declared set (scripts/test_oldest.sh, .venv-oldest).
# With arguments, pytest runs them on the newest set only.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] && .venv/bin/python -c "import interop, torch, dask, hypothesis, mypy" \
  2>/dev/null && [ -x .venv/bin/ruff ] || bash scripts/setup.sh
if [ $# -gt 0 ]; then
  HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}" exec .venv/bin/python -m pytest -q -n 2 "$@"
fi
echo "==> checks: ruff check, mypy"
.venv/bin/ruff check interop tests benchmarks scripts
.venv/bin/mypy
start=$SECONDS
echo "==> the whole suite on the newest releases (.venv)"
HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}" .venv/bin/python -m pytest -q -n 2
echo "==> newest: $((SECONDS - start)) s"
start=$SECONDS
bash scripts/test_oldest.sh
echo "==> oldest declared set: $((SECONDS - start)) s (install included)"
