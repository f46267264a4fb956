#!/usr/bin/env bash
# Whether a change kept every output byte for byte: nnscan at a base
# revision against the working tree, both built in Release, on every model
# the repository has (the bench models, the torchvision fixtures, the
# deployed-model fixtures and the unit tests' models) and every output form
# (summary as text, CSV, Markdown, JSON v1 and v2 and HTML, with the
# roofline, and shapes). What a refactor must leave unchanged.
#
#   bench/same_output.sh [--base REV] [MODEL.onnx ...]
#
# REV defaults to HEAD. Prints each command and model whose output (stdout
# and stderr, so error messages count) differs, then the count; exits 1
# when any differs.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
base=HEAD models=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --base) base=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) models+=("$1"); shift ;;
  esac
done
((${#models[@]})) || models=(bench/models/*.onnx tests/fixtures/models/*.onnx
  tests/fixtures/deploy/*.onnx tests/unit/models/*.onnx)

# shellcheck source=bench/base_and_now.sh
. bench/base_and_now.sh
build_base_and_now "$base"

forms=("summary" "summary --format csv" "summary --format md"
       "summary --format json" "summary --format json --json-version 2"
       "summary --format html" "summary --hardware h100-sxm" "shapes")
total=0 differ=0
for m in "${models[@]}"; do
  [ -f "$m" ] || continue
  for f in "${forms[@]}"; do
    # shellcheck disable=SC2086
    a=$("$work/base/nnscan" $f "$m" 2>&1 | md5sum) || true
    # shellcheck disable=SC2086
    b=$(build-bench/nnscan $f "$m" 2>&1 | md5sum) || true
    total=$((total + 1))
    if [ "$a" != "$b" ]; then
      differ=$((differ + 1))
      echo "differs: nnscan $f $m"
    fi
  done
done
echo "$total outputs compared against $base: $differ differ"
[ "$differ" -eq 0 ]
