#!/usr/bin/env bash
# Benchmark nnscan against the onnx Python reference (load + infer_shapes).
#
#   bench/run.sh [--only NAME]... [--runs N] [--nnscan-runs N] [--python-runs N]
#                [--warmup N] [--skip-build] [--no-nnscan] [--no-python]
#
# NAME: resnet50 | llama7b | graph100k (or the model's file name).
# --runs N sets both run counts (defaults: nnscan 11, python 5).
# Environment: PYTHON (reference python with onnx/torch, default /usr/bin/python3),
#              MEASURE_PY (any python3 for the stdlib-only harness, default python3),
#              JOBS (build parallelism, default 2).
# Results: table on stdout, plus bench/results/results.{md,json}.
set -u -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

PYTHON="${PYTHON:-/usr/bin/python3}"
MEASURE_PY="${MEASURE_PY:-python3}"
JOBS="${JOBS:-2}"
BUILD_DIR="build-bench"
MODELS_DIR="bench/models"
RESULTS_DIR="bench/results"
NNSCAN="$BUILD_DIR/nnscan"

NN_RUNS=11
PY_RUNS=5
WARMUP=1
SKIP_BUILD=0
NO_NNSCAN=0
NO_PYTHON=0
ONLY=()

usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; }
need_arg() { [[ $# -ge 2 && -n "$2" ]] || { echo "run.sh: $1 needs an argument" >&2; exit 2; }; }
is_uint() { [[ "$1" =~ ^[0-9]+$ ]] || { echo "run.sh: '$1' is not a number" >&2; exit 2; }; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --only)        need_arg "$@"; ONLY+=("$2"); shift 2 ;;
    --only=*)      ONLY+=("${1#*=}"); shift ;;
    --runs)        need_arg "$@"; is_uint "$2"; NN_RUNS="$2"; PY_RUNS="$2"; shift 2 ;;
    --runs=*)      is_uint "${1#*=}"; NN_RUNS="${1#*=}"; PY_RUNS="${1#*=}"; shift ;;
    --nnscan-runs) need_arg "$@"; is_uint "$2"; NN_RUNS="$2"; shift 2 ;;
    --python-runs) need_arg "$@"; is_uint "$2"; PY_RUNS="$2"; shift 2 ;;
    --warmup)      need_arg "$@"; is_uint "$2"; WARMUP="$2"; shift 2 ;;
    --skip-build)  SKIP_BUILD=1; shift ;;
    --no-nnscan)   NO_NNSCAN=1; shift ;;
    --no-python)   NO_PYTHON=1; shift ;;
    -h|--help)     usage; exit 0 ;;
    *) echo "run.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
if [[ "$NN_RUNS" -lt 1 || "$PY_RUNS" -lt 1 ]]; then
  echo "run.sh: run counts must be >= 1" >&2; exit 2
fi

# Map names to generator keys / files.
declare -A FILE_OF=([resnet50]=resnet50_inline.onnx [llama7b]=llama7b_shaped.onnx [graph100k]=graph100k.onnx)
SELECTED=()
if [[ ${#ONLY[@]} -eq 0 ]]; then
  SELECTED=(resnet50 llama7b graph100k)
else
  for o in "${ONLY[@]}"; do
    found=""
    for k in "${!FILE_OF[@]}"; do
      f="${FILE_OF[$k]}"
      if [[ "$o" == "$k" || "$o" == "$f" || "$o" == "${f%.onnx}" ]]; then found="$k"; fi
    done
    [[ -n "$found" ]] || { echo "run.sh: unknown model '$o' (resnet50|llama7b|graph100k)" >&2; exit 2; }
    SELECTED+=("$found")
  done
fi

command -v "$MEASURE_PY" >/dev/null || { echo "run.sh: $MEASURE_PY not found" >&2; exit 2; }
[[ -x /usr/bin/time ]] || echo "note: /usr/bin/time missing (Debian: apt-get install time); RSS falls back to wait4 rusage" >&2

# 1. Build nnscan (Release). A failed build is not fatal: the nnscan rows are
#    then marked FAILED and the python baseline is still measured.
if [[ $NO_NNSCAN -eq 0 && $SKIP_BUILD -eq 0 ]]; then
  echo "== building nnscan (Release) in $BUILD_DIR" >&2
  if cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >&2 \
     && cmake --build "$BUILD_DIR" -j"$JOBS" >&2; then
    :
  else
    echo "!! nnscan build failed; nnscan rows will be marked FAILED" >&2
  fi
fi

# 2. Generate missing models.
GEN=()
for k in "${SELECTED[@]}"; do
  [[ -f "$MODELS_DIR/${FILE_OF[$k]}" ]] || GEN+=(--only "$k")
done
if [[ ${#GEN[@]} -gt 0 ]]; then
  echo "== generating models: ${GEN[*]}" >&2
  "$PYTHON" bench/gen_models.py --out "$MODELS_DIR" "${GEN[@]}" >&2 \
    || { echo "run.sh: model generation failed" >&2; exit 1; }
fi

# 3. Measure.
ARGS=(--nnscan "$NNSCAN" --python "$PYTHON" --models-dir "$MODELS_DIR"
      --results-dir "$RESULTS_DIR" --nnscan-runs "$NN_RUNS" --python-runs "$PY_RUNS"
      --warmup "$WARMUP")
for k in "${SELECTED[@]}"; do ARGS+=(--only "$k"); done
[[ $NO_NNSCAN -eq 1 ]] && ARGS+=(--no-nnscan)
[[ $NO_PYTHON -eq 1 ]] && ARGS+=(--no-python)

echo "== measuring (nnscan runs: $NN_RUNS, python runs: $PY_RUNS, warmup: $WARMUP)" >&2
exec "$MEASURE_PY" bench/measure.py "${ARGS[@]}"
