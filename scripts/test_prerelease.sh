#!/usr/bin/env bash
# The newest, before users meet it: a venv of its own, .venv-pre, with the pre-releases of
# NumPy, Dask (and distributed), xarray and SciPy (`pip install --pre`: the newest version,
# release candidates included), torch, JAX and Cubed as scripts/setup.sh pins them, and the
# test tools; then the representative set (scripts/representative-tests.txt). Run by hand
# (not in CI: a pre-release's failure is news, not a regression); its figures go in the
# docs/install.md, "Supported versions". PIP_EXTRA_INDEX_URL adds an index of nightly wheels where one is
# reachable.
#   bash scripts/test_prerelease.sh            the representative set
#   PRE_ALL=1 bash scripts/test_prerelease.sh  the whole suite
#   bash scripts/test_prerelease.sh tests/...  those tests
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/window.sh
venv=.venv-pre
if [ ! -x "$venv/bin/python" ]; then
  step "creating $venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip
  "$venv/bin/python" -m pip install -q -e ".[test,test-torch,dask]" "torch==2.14.1" "jax[cpu]==0.10.2" \
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
demo_and_tests "$venv" "the pre-releases" "${PRE_ALL:-0}" "$@"
