#!/usr/bin/env bash
# The oldest declared set (docs/install.md, "Supported versions"): a venv of its own, .venv-oldest, with every
# floor of pyproject.toml pinned exactly (requirements/oldest.txt) and the test tools as the
# test extras give them; then the README's demo on NumPy and on Dask, and the tests.
#   bash scripts/test_oldest.sh            the representative set (scripts/representative-tests.txt),
#                                          as CI runs it
#   bash scripts/test_oldest.sh tests/...  those tests instead (pytest's arguments)
#   OLDEST_ALL=1 bash scripts/test_oldest.sh   the whole suite
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/window.sh
venv=.venv-oldest
want="$(grep -v '^#' requirements/oldest.txt | sort | tr '\n' ' ')"
have=""
[ -f "$venv/.floors" ] && have="$(cat "$venv/.floors")"
if [ ! -x "$venv/bin/python" ] || [ "$have" != "$want" ] \
   || ! "$venv/bin/python" -c "import interop, torch, dask, hypothesis, pytest_timeout" 2>/dev/null; then
  step "creating $venv: the declared floors (requirements/oldest.txt) and the test tools"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip
  # jax[cpu] and cubed as in scripts/setup.sh; the constraints pin each floor exactly.
  "$venv/bin/python" -m pip install -q -e ".[test,test-torch,dask]" "jax[cpu]" cubed \
    -c requirements/oldest.txt 2>&1 | grep -v '^WARNING: Location' || true
  "$venv/bin/python" -c "import interop, torch, dask, hypothesis" 
  printf '%s' "$want" > "$venv/.floors"
fi
step "the oldest declared set, as installed"
"$venv/bin/python" - <<'PY'
import importlib.metadata as md
import pathlib
for line in pathlib.Path("requirements/oldest.txt").read_text().splitlines():
    if line and not line.startswith("#"):
        name, pinned = line.split("==")
        got = md.version(name)
        print(f"    {name:18} {got}")
        assert got.split("+")[0] == pinned, f"{name} {got} installed, {pinned} declared"
PY
demo_and_tests "$venv" "the oldest declared set" "${OLDEST_ALL:-0}" "$@"
drop_venv "$venv"
