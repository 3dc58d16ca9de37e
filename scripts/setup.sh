#!/usr/bin/env bash
# Create .venv and install interop with everything the demo and the tests use.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# torch is pinned: 2.13.0 is a CPU build; an unpinned torch pulls a multi-GB CUDA build.
.venv/bin/python -m pip install -q -e ".[test,dask]" "torch==2.13.0"
