#!/usr/bin/env bash
# The newer Pythons (docs/install.md, "Supported versions"): for each, a venv of its own (.venv-py3.12, ...)
# with interop, its Dask extra and the test tools at the newest releases pip gives that Python
# (NumPy 2.5 needs 3.12 or newer), then the README's demo on NumPy and on Dask, then the
# representative set (scripts/representative-tests.txt). torch is not installed there: its
# CPU wheel is at hand for Python 3.11 only, where scripts/test.sh runs the torch tests, so
# the torch-dependent tests skip on these Pythons.
#   bash scripts/test_pythons.sh                 3.12 and 3.13, as CI runs them
#   bash scripts/test_pythons.sh 3.13            one of them
#   PYTHONS_ALL=1 bash scripts/test_pythons.sh   the whole suite
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/window.sh
[ $# -gt 0 ] || set -- 3.12 3.13
for version in "$@"; do
  python=$(python_for "$version") \
    || { echo "Python $version is not installed (python$version, or under pyenv)"; exit 1; }
  venv=.venv-py$version
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import interop, dask, hypothesis, pytest_timeout" 2>/dev/null; then
    step "creating $venv ($("$python" --version)): interop with Dask and the test tools"
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --upgrade pip 2>&1 | grep -v '^WARNING: Location' || true
    "$venv/bin/python" -m pip install -q -e ".[test,dask]" 2>&1 \
      | grep -vE '^WARNING: Location|BuildBackendWarning|^ *(!!|\*+)?$|Please be careful|name as your|with strategy' || true
  fi
  step "Python $version, as installed"
  "$venv/bin/python" - <<'PY'
import importlib.metadata as md
import platform
print(f"    {'python':18} {platform.python_version()}")
for name in ("numpy", "dask", "distributed", "array-api-compat", "scipy", "xarray", "scikit-learn"):
    print(f"    {name:18} {md.version(name)}")
PY
  demo_and_tests "$venv" "Python $version" "${PYTHONS_ALL:-0}"
  drop_venv "$venv"
done
