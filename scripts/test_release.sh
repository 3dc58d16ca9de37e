#!/usr/bin/env bash
# The release artifacts, as a user gets them: the sdist and the wheel built from the committed
# tree (`git archive HEAD`, so nothing uncommitted slips in), `twine check --strict`, the
# wheel's contents (LICENSE, py.typed and the stubs in; no tests), then each artifact
# installed (not editable) with the Dask extra into a fresh venv and exercised from an empty
# directory: the README's first example, the tour (examples/demo.py) on NumPy and on Dask,
# and the smoke tests (scripts/smoke-tests.txt) against the installed package.
#   bash scripts/test_release.sh          as CI runs it (Python 3.11, or $RELEASE_PYTHON)
# The artifacts are left in dist/ for a release to upload.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/window.sh
repo=$PWD
py=${RELEASE_PYTHON:-python3}
tools=.venv/bin/python   # build and twine come with the test extras (scripts/setup.sh)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

step "building the sdist and the wheel from the committed tree ($(git rev-parse --short HEAD))"
mkdir "$work/tree"
git archive HEAD | tar -x -C "$work/tree"
rm -rf dist
"$tools" -m build --outdir "$repo/dist" "$work/tree" > "$work/build.log" 2>&1 \
  || { cat "$work/build.log"; exit 1; }
ls dist

step "twine check --strict"
"$tools" -m twine check --strict dist/*

step "the wheel's contents"
"$tools" - dist/*.whl <<'PY'
import sys
import zipfile
path = sys.argv[1]
names = zipfile.ZipFile(path).namelist()
must = {"LICENSE": lambda n: n.endswith(".dist-info/licenses/LICENSE"),
        "py.typed": lambda n: n == "interop/py.typed",
        "the Tensor stub": lambda n: n == "interop/core/installed_members.pyi"}
missing = [what for what, found in must.items() if not any(map(found, names))]
assert not missing, f"the wheel lacks {missing}"
stray = [n for n in names if not n.startswith(("interop/", "interop_tensor-"))]
assert not stray, f"the wheel holds files outside the package: {stray[:5]}"
import os
print(f"    {os.path.basename(path)}: {len(names)} files, {os.path.getsize(path) / 1024:.0f} KiB;"
      " LICENSE, py.typed and the stubs in, no tests")
PY

mapfile -t smoke < <(grep -v '^#' scripts/smoke-tests.txt)
for artifact in dist/*.whl dist/*.tar.gz; do
  kind=wheel; [[ $artifact == *.tar.gz ]] && kind=sdist
  venv="$work/venv-$kind"
  step "the $kind in a fresh venv ($("$py" --version)), with the Dask extra"
  "$py" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip 2>&1 | grep -v '^WARNING: Location' || true
  "$venv/bin/python" -m pip install -q "$repo/$artifact[dask]" pytest pytest-xdist hypothesis \
    2>&1 | grep -v '^WARNING: Location' || true
  run="$work/run-$kind"   # an empty directory: only the tests and the tour are copied in
  mkdir "$run"
  cp -r "$repo/tests" "$repo/examples" "$run/"
  # the README's first example, as a user pastes it
  awk '/^## A first example/{f=1} f && /^```python/{c=1; next} c && /^```/{exit} c' \
    "$repo/README.md" > "$run/readme_example.py"
  cp "$repo/pyproject.toml" "$run/"   # pytest's settings (markers, warnings as errors)
  (cd "$run" && "$venv/bin/python" - "$repo/$artifact") <<'PY'
import importlib.metadata as md
import pathlib
import sys
import interop
where = pathlib.Path(interop.__file__).resolve()
assert "site-packages" in where.parts, f"interop imported from {where}, not the installed package"
assert interop.__version__ == md.version("interop-tensor"), interop.__version__
print(f"    interop {interop.__version__} from {where.parent}")
PY
  (cd "$run" && "$venv/bin/python" readme_example.py \
     && "$venv/bin/python" examples/demo.py > /dev/null \
     && "$venv/bin/python" examples/demo.py --backend dask > /dev/null)
  echo "    the README's example ran ($(wc -l < "$run/readme_example.py") lines), and the tour on NumPy and on Dask"
  (cd "$run" && HYPOTHESIS_PROFILE=ci "$venv/bin/python" -m pytest -q -n 2 -p no:cacheprovider \
     "${smoke[@]}")
  rm -rf "$venv" "$run"   # one artifact's venv at a time on the disk
done
step "release artifacts: $(cd dist && echo *) checked"
