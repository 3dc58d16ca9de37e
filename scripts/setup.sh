#!/usr/bin/env bash
# Create .venv and install interop: `setup.sh demo` installs what examples/demo.py needs
# (NumPy and Dask); `setup.sh` (no argument) adds the test tools, torch, JAX and Cubed.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '==> %s\n' "$*"; }
if [ ! -x .venv/bin/python ]; then
  step "creating .venv"
  python3 -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip
fi
if [ "${1:-}" = "demo" ]; then
  step "installing interop with Dask (about 150 MB)"
  .venv/bin/python -m pip install --progress-bar on -e ".[dask]" | grep -E '^(Collecting|Successfully)' || true
else
  # torch is pinned to the newest release tested (2.14.1; the floor, 2.13.0, is tested by
  # scripts/test_oldest.sh): unpinned, pip would take whatever is newest, untested.
  # jax[cpu] and cubed are pinned too: tests/test_backend_jax.py and test_backend_cubed.py run in CI.
  # The test extras bring CuPy (cupy-cuda12x, about 100 MB): it imports without a GPU, and
  # tests/test_cupy_api.py reads its API.
  step "installing interop with Dask, torch 2.14.1, JAX 0.10.2 (CPU), Cubed 0.27.0 and the test tools"
  .venv/bin/python -m pip install -q -e ".[test,test-torch,dask]" "torch==2.14.1" "jax[cpu]==0.10.2" "cubed==0.27.0"
fi
step "done"
