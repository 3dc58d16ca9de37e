# Sourced by scripts/test.sh and its stages (test_oldest.sh, test_release.sh, test_pythons.sh,
# test_prerelease.sh): the steps each end of the support window runs in a venv of its own.
step() { printf '==> %s\n' "$*"; }

# Each test is bounded: the slowest (op_db through the torch face on Dask) takes about a minute
# alone, and one that runs 15 (a hang: a paused Dask worker, a subprocess that never exits)
# fails with its traceback instead of stalling the run.
export TEST_TIMEOUT_S="${TEST_TIMEOUT_S:-900}"

# suite VENV [pytest arguments...]: pytest as every stage runs it: two workers, CI's
# Hypothesis profile unless one is set, each test bounded.
suite() {
  local venv=$1
  shift
  HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}" "$venv/bin/python" -m pytest -q -n 2 \
    --timeout="$TEST_TIMEOUT_S" "$@"
}

# disk_free: what is left on the disk holding the repository ("41G").
disk_free() { df -h --output=avail . | tail -1 | tr -d ' '; }

# drop_venv VENV: with DROP_VENVS=1 (as .ci/run sets it), a stage's venv is removed once the
# stage has passed. CI's disk can be small and the stages' venvs add up to 12 GB, 7 GB of it
# the newest (torch's CUDA build); one at a time they fit. Without it the venvs stay, for the
# next run to reuse.
drop_venv() {
  [ "${DROP_VENVS:-0}" = 1 ] || return 0
  rm -rf "$1"
  echo "    removed $1 (DROP_VENVS=1): $(disk_free) free"
}

# demo_and_tests VENV LABEL ALL [pytest arguments...]: the README's demo on NumPy and on Dask,
# then pytest on the arguments given, else the whole suite where ALL is 1, else the
# representative set (scripts/representative-tests.txt).
demo_and_tests() {
  local venv=$1 label=$2 all=$3
  shift 3
  step "the README's demo on $label (NumPy, then Dask)"
  "$venv/bin/python" examples/demo.py > /dev/null
  "$venv/bin/python" examples/demo.py --backend dask > /dev/null
  echo "    demo: NumPy and Dask ran"
  if [ $# -eq 0 ] && [ "$all" = 1 ]; then
    set -- tests
  elif [ $# -eq 0 ]; then
    mapfile -t representative < <(grep -v '^#' scripts/representative-tests.txt)
    set -- "${representative[@]}"
  fi
  step "pytest on $label: $*"
  suite "$venv" "$@"
}

# python_for VERSION: the interpreter for a Python version ("3.12"): `pythonVERSION` where it
# runs, else the newest pyenv build of it (the machines keep 3.10 to 3.13 under pyenv).
python_for() {
  local version=$1 candidate
  for candidate in "python$version" $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}/versions/$version".*/bin/python"$version" 2>/dev/null | sort -V -r); do
    "$candidate" -c '' 2>/dev/null && { echo "$candidate"; return 0; }
  done
  return 1
}
