#!/usr/bin/env bash
# Set up (if needed) and run the whole test suite; CuPy tests skip without a GPU.
# With no arguments (as CI runs it) the support window is tested end to end (docs/install.md, "Supported versions"):
#   1. the checks (ruff and mypy must find nothing);
#   2. the whole suite on the newest releases, Python 3.11 with torch 2.14 (.venv);
#   3. the release artifacts: sdist and wheel built (with .venv's build and twine), checked,
#      installed and run (scripts/test_release.sh);
#   4. the oldest declared set, torch 2.13 among it (scripts/test_oldest.sh, .venv-oldest);
#   5. Python 3.12 and 3.13 with the newest NumPy and Dask each gets (scripts/test_pythons.sh).
# With arguments, pytest runs them on the newest set only. DROP_VENVS=1 (CI) removes each
# stage's venv once it has passed (scripts/window.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/window.sh   # step, suite (each test bounded), drop_venv
[ -x .venv/bin/python ] && .venv/bin/python -c "import interop, torch, dask, hypothesis, pytest_timeout, mypy, twine, kornia" \
  2>/dev/null && [ -x .venv/bin/ruff ] || bash scripts/setup.sh
if [ $# -gt 0 ]; then
  suite .venv "$@"
  exit
fi
step "checks: ruff check, mypy ($(disk_free) free on disk)"
.venv/bin/ruff check interop tests benchmarks scripts
.venv/bin/mypy
start=$SECONDS
step "the whole suite on the newest releases (.venv: $(.venv/bin/python -c 'import platform, numpy, torch; print(f"Python {platform.python_version()}, NumPy {numpy.__version__}, torch {torch.__version__}")'))"
suite .venv
step "newest: $((SECONDS - start)) s"
for stage in test_release test_oldest test_pythons; do
  start=$SECONDS
  bash "scripts/$stage.sh"
  step "scripts/$stage.sh: $((SECONDS - start)) s (installs included)"
  if [ "$stage" = test_release ]; then
    drop_venv .venv   # the release's build tools came from it; the later stages have their own
  fi
done
