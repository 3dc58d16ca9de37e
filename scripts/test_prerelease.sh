#!/usr/bin/env bash
# The newest, before users meet it: a venv of its own, .venv-pre, with the pre-releases of
# NumPy, Dask (and distributed), xarray and SciPy (`pip install --pre`: the newest version,
# release candidates included), torch, JAX and Cubed as scripts/setup.sh pins them, and the
# test tools; then the representative set (scripts/representative-tests.txt). Run by hand
# (not in CI: a pre-release's failure is news, not a regression); its figures go in the
# README's "Installing". PIP_EXTRA_INDEX_URL adds an index of nightly wheels where one is
# reachable.
#   bash scripts/test_prerelease.sh            the representative set
#   PRE_ALL=1 bash scripts/test_prerelease.sh  the whole suite
#   bash scripts/test_prerelease.sh tests/...  those tests
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '==> %s\n' "$*"; }
venv=.venv-pre
if [ ! -x "$venv/bin/python" ]; then
  step "creating $venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip
  "$venv/bin/python" -m pip install -q -e ".[test,dask]" "torch==2.13.0" "jax[cpu]==0.10.2" \
    "cubed==0.27.0" 2>&1 | grep -v '^WARNING: Location' || true
fi
step "upgrading to the pre-releases: numpy, dask, distributed, xarray, scipy"
"$venv/bin/python" -m pip install -q --pre --upgrade numpy "dask[array]" distributed xarray scipy \
  2>&1 | grep -v '^WARNING: Location' || true
"$venv/bin/python" - <<'PY'
import importlib.metadata as md
for name in ("numpy", "dask", "distributed", "xarray", "scipy", "array-api-compat", "torch"):
    print(f"    {name:18} {md.version(name)}")
PY
step "the README's demo (NumPy, then Dask)"
"$venv/bin/python" examples/demo.py > /dev/null
"$venv/bin/python" examples/demo.py --backend dask > /dev/null
mapfile -t PRE_TESTS < <(grep -v '^#' scripts/representative-tests.txt)
if [ $# -gt 0 ]; then
  set -- "$@"
elif [ "${PRE_ALL:-0}" = 1 ]; then
  set -- tests
else
  set -- "${PRE_TESTS[@]}"
fi
step "pytest on the pre-releases: $*"
HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}" "$venv/bin/python" -m pytest -q -n 2 "$@"
