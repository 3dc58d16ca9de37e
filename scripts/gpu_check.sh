#!/usr/bin/env bash
# One command that checks interop on a machine with an NVIDIA GPU, the project copied there:
#
#   bash scripts/gpu_check.sh            # results in gpu-check/ (git-ignored), one summary
#
# It needs Python with torch (CUDA), CuPy (the wheel of that CUDA: cupy-cuda12x or 13x) and,
# for its JAX step, jax with its CUDA plugin; it runs with the torch the machine has (2.11 or
# later: the project requires torch>=2.4, and tests needing newer torch skip).  Without
# internet, what is missing comes from .whl/ (git-ignored), which you fill beforehand on a
# machine with internet, for the GPU machine's Python (3.12 here):
#
#   pip download --dest .whl --only-binary=:all: --python-version 3.12 \
#       --platform manylinux2014_x86_64 --platform manylinux_2_28_x86_64 \
#       "dask[array]>=2024.8" "distributed>=2024.8" "array-api-compat>=1.16" \
#       "array-api-strict>=2.6" "array-api-extra>=0.11" "hypothesis>=6.100" "pytest>=8" \
#       "pytest-xdist>=3" "expecttest>=0.2" "einops>=0.8" "ml_dtypes==0.6.0" psutil \
#       "threadpoolctl>=3.5" "pytest-json-report" "ndindex>=1.8"   # the last two: array-api-tests
#
# Steps (each bounded in time; all on 16 cores in about 7 minutes):
#   1. pip installs from .whl/ what does not import;
#   2. pytest -m gpu: every backend-parametrised test on CuPy, the CUDA tests, beside
#   3. torch's op_db on CuPy, sharded (rewrites docs/torch_coverage.md's CuPy section):
#      the two share the cores (PYTEST_JOBS and OPDB_JOBS), one GPU is plenty for both;
#   4. torch training code on CuPy against torch on CUDA (benchmarks/bench_gpu_training.py:
#      weights after training, state on the device, host-device copies, inference, checkpoints);
#   5. the official Array API suite on CuPy, where a checkout of data-apis/array-api-tests
#      is at $ARRAY_API_TESTS (default ./array-api-tests, ../array-api-tests or
#      ./.gpu/array-api-tests);
#   6. the GPU benchmarks (benchmarks/bench_gpu.py);
#   7. the torch backend on CUDA (tests/test_backend_torch.py) and the JAX backend on the GPU
#      (tests/test_backend_jax.py, JAX's default device);
# then one summary: the machine, the commit, each step's result.
set -uo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
OUT="${GPU_CHECK_OUT:-gpu-check}"
JOBS="${JOBS:-$(nproc)}"
OPDB_JOBS="${OPDB_JOBS:-$(( JOBS / 3 > 0 ? JOBS / 3 : 1 ))}"
PYTEST_JOBS="${PYTEST_JOBS:-$(( JOBS - OPDB_JOBS > 0 ? JOBS - OPDB_JOBS : 1 ))}"
mkdir -p "$OUT"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"
step() { printf '==> %s\n' "$*"; }
declare -A RESULT

step "1. what is missing, from .whl/"
missing=$("$PY" - <<'EOF'
import importlib.util
wanted = {"dask": "dask[array]", "distributed": "distributed",
          "array_api_compat": "array-api-compat", "array_api_strict": "array-api-strict",
          "array_api_extra": "array-api-extra", "hypothesis": "hypothesis", "pytest": "pytest",
          "xdist": "pytest-xdist", "expecttest": "expecttest", "einops": "einops",
          "ml_dtypes": "ml_dtypes", "psutil": "psutil", "threadpoolctl": "threadpoolctl",
          "pytest_jsonreport": "pytest-json-report", "ndindex": "ndindex"}
print(" ".join(p for m, p in wanted.items() if importlib.util.find_spec(m) is None))
EOF
)
if [ -n "$missing" ]; then
  if [ -d .whl ]; then
    "$PY" -m pip install -q --no-index --find-links .whl $missing > "$OUT/pip.txt" 2>&1 \
      && RESULT[install]="installed from .whl/: $missing" \
      || RESULT[install]="FAILED to install $missing from .whl/ (see $OUT/pip.txt)"
  else
    RESULT[install]="MISSING $missing and no .whl/ folder"
  fi
else
  RESULT[install]="nothing missing"
fi
"$PY" - > "$OUT/versions.txt" 2>&1 <<'EOF'
import platform, subprocess
import numpy, torch
print("python", platform.python_version(), "numpy", numpy.__version__, "torch", torch.__version__,
      "cuda", torch.version.cuda)
try:
    import cupy
    print("cupy", cupy.__version__, "device:", cupy.cuda.runtime.getDeviceProperties(0)["name"].decode())
except Exception as exc:  # noqa: BLE001
    print("cupy: unusable:", exc)
try:
    import jax
    print("jax", jax.__version__, jax.devices())
except Exception as exc:  # noqa: BLE001
    print("jax: unusable:", exc)
EOF

last() { tail -n "${2:-1}" "$1" 2>/dev/null | tr -s ' '; }

step "2-3. pytest -m gpu ($PYTEST_JOBS workers) beside torch's op_db on CuPy ($OPDB_JOBS shards)"
timeout 420 "$PY" -m pytest -m gpu -q -n "$PYTEST_JOBS" -p no:cacheprovider -rfE --tb=line tests \
  > "$OUT/pytest_gpu.txt" 2>&1 &
pytest_pid=$!
timeout 420 "$PY" -m tests.test_torch_opdb --backend cupy --jobs "$OPDB_JOBS" > "$OUT/opdb_cupy.txt" 2>&1
RESULT[opdb]=$(grep '^float32 on cupy' "$OUT/opdb_cupy.txt" || echo "did not finish: $(last "$OUT/opdb_cupy.txt")")
wait "$pytest_pid"
RESULT[pytest]=$(last "$OUT/pytest_gpu.txt")

step "4. torch training code on CuPy against torch on CUDA"
timeout 300 "$PY" benchmarks/bench_gpu_training.py --json "$OUT/bench_gpu_training.json" \
  > "$OUT/bench_gpu_training.txt" 2>&1
RESULT[training]="$OUT/bench_gpu_training.txt"

step "5. the Array API suite on CuPy"
AAT="${ARRAY_API_TESTS:-}"
for candidate in ./array-api-tests ../array-api-tests ./.gpu/array-api-tests; do
  [ -z "$AAT" ] && [ -d "$candidate/array_api_tests" ] && AAT="$candidate"
done
if [ -n "$AAT" ]; then
  (cd "$AAT" && INTEROP_BACKEND=cupy ARRAY_API_TESTS_MODULE=interop.array_api \
     timeout 240 "$PY" -m pytest array_api_tests -q -n "$JOBS" -p no:cacheprovider -rf \
     --tb=no --max-examples=5 --disable-deadline --hypothesis-seed=0) > "$OUT/aat_interop_cupy.txt" 2>&1
  RESULT[aat]=$(last "$OUT/aat_interop_cupy.txt")
else
  RESULT[aat]="not run: no array-api-tests checkout (set ARRAY_API_TESTS)"
fi

step "6. GPU benchmarks"
timeout 180 "$PY" benchmarks/bench_gpu.py --json "$OUT/bench_gpu.json" > "$OUT/bench_gpu.txt" 2>&1
RESULT[bench]="$OUT/bench_gpu.txt"

step "7. the torch backend on CUDA, the JAX backend on the GPU"
timeout 180 "$PY" -m pytest -q -n 4 -p no:cacheprovider -rfE --tb=line tests/test_backend_torch.py \
  > "$OUT/torch_cuda.txt" 2>&1
RESULT[torch]=$(last "$OUT/torch_cuda.txt")
timeout 180 "$PY" -m pytest -q -n 4 -p no:cacheprovider -rfE --tb=line tests/test_backend_jax.py \
  > "$OUT/jax_gpu.txt" 2>&1
RESULT[jax]="$(last "$OUT/jax_gpu.txt") on $("$PY" -c 'import jax; print(jax.default_backend())' 2>/dev/null)"

{
  echo "interop GPU check, $(date -u +%Y-%m-%d) on $(hostname), commit $(git rev-parse --short HEAD 2>/dev/null || echo '(no git)')"
  cat "$OUT/versions.txt"
  echo "install:        ${RESULT[install]}"
  echo "pytest -m gpu:  ${RESULT[pytest]}"
  echo "op_db on CuPy:  ${RESULT[opdb]}"
  echo "torch on CUDA:  ${RESULT[torch]}"
  echo "JAX on the GPU: ${RESULT[jax]}"
  echo "Array API:      ${RESULT[aat]}"
  echo "benchmarks:"
  sed 's/^/  /' "$OUT/bench_gpu.txt"
  echo "training on CuPy against torch on CUDA:"
  sed 's/^/  /' "$OUT/bench_gpu_training.txt"
} | tee "$OUT/summary.txt"
