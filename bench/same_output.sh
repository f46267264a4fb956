#!/usr/bin/env bash
# Whether a change kept every output byte for byte: nnscan at a base
# revision against the working tree, both built in Release, on every model
# the repository has (the bench models, the torchvision fixtures, the
# deployed-model fixtures and the unit tests' models) and every output form
# of every command (summary as text, CSV, Markdown, JSON v1 and v2 and
# HTML, with the roofline; shapes; table; diff of a model with itself;
# ops and hardware once). What a refactor must leave unchanged.
#
#   bench/same_output.sh [--base REV] [--base-bin FILE] [--now-bin FILE]
#                        [--show-help] [MODEL.onnx ...]
#
# REV defaults to HEAD. Prints each command and model whose output (stdout
# and stderr, so error messages count) differs, then the count; exits 1
# when any differs. Usage errors and help texts are compared too but only
# listed (a change to the CLI may word them better); --show-help prints
# their differences. --base-bin / --now-bin: binaries already built.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
base=HEAD models=() base_bin= now_bin= show_help=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --base) base=$2; shift 2 ;;
    --base-bin) base_bin=$(realpath "$2"); shift 2 ;;
    --now-bin) now_bin=$(realpath "$2"); shift 2 ;;
    --show-help) show_help=1; shift ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) models+=("$1"); shift ;;
  esac
done
((${#models[@]})) || models=(examples/*.onnx bench/models/*.onnx tests/fixtures/models/*.onnx
  tests/fixtures/deploy/*.onnx tests/unit/models/*.onnx)

if [ -z "$base_bin" ] || [ -z "$now_bin" ]; then
  # shellcheck source=bench/base_and_now.sh
  . bench/base_and_now.sh
  build_base_and_now "$base"
  base_bin=${base_bin:-$work/base/nnscan}
  now_bin=${now_bin:-$ROOT/build-bench/nnscan}
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Runs one form on both; @ in a form is the model (else it goes last).
total=0 differ=0
same() { # KIND FORM [MODEL]
  local kind=$1 form=${2//@/${3:-}} a b
  [ "$kind" = output ] && [ -n "${3:-}" ] && [[ $2 != *@* ]] && form="$form $3"
  # shellcheck disable=SC2086
  a=$("$base_bin" $form 2>&1 | md5sum) || true
  # shellcheck disable=SC2086
  b=$("$now_bin" $form 2>&1 | md5sum) || true
  if [ "$kind" = output ]; then
    total=$((total + 1))
    [ "$a" = "$b" ] || { differ=$((differ + 1)); echo "differs: nnscan $form"; }
  elif [ "$a" != "$b" ]; then
    echo "$kind differs: nnscan $form"
    if [ "$show_help" = 1 ]; then
      # shellcheck disable=SC2086
      diff -u --label "base: nnscan $form" --label "now" \
        <("$base_bin" $form 2>&1) <("$now_bin" $form 2>&1) || true
    fi
  fi
}

forms=("summary" "summary --format csv" "summary --format md"
       "summary --format json" "summary --format json --json-version 2"
       "summary --format html" "summary --hardware h100-sxm" "shapes"
       "shapes --format json" "table" "table --format csv"
       "table --format html" "diff @ @" "diff --format json @ @")
for m in "${models[@]}"; do
  [ -f "$m" ] || continue
  for f in "${forms[@]}"; do same output "$f" "$m"; done
done
for f in "ops" "ops --format md" "ops --format json" "ops --aten" \
         "ops --aten --format md" "hardware" "hardware --json" "version"; do
  same output "$f"
done
m=tests/cli/tiny_cnn.onnx
for f in "summary" "summary @ --bogus" "summary @ --depth" \
         "summary @ --depth 0" "summary @ --numbers big" \
         "summary @ --format yaml" "summary @ --wrap left" \
         "summary @ --optimizer lion" "summary @ --columns bogus" \
         "summary @ --dtype fp4 --hardware l4" "summary @ --budget 8GB" \
         "summary @ --parallel pp=2" "summary @ @" "table" "table @ --plot" \
         "table @ --format json" "diff @" "diff @ @ --fail-if" "diff @ @ @" \
         "shapes @ --bogus" "shapes @ --batch 0" "ops --bogus" "ops extra" \
         "hardware --hardware-file" "hardware extra" "version extra" \
         "frobnicate" "--bogus"; do
  same message "$f" "$m"
done
for f in "-h" "summary -h" "table -h" "shapes -h" "diff -h" "ops -h" \
         "hardware -h" "version -h"; do
  same help "$f"
done
echo "$total outputs compared against ${base_bin:-$base}: $differ differ"
[ "$differ" -eq 0 ]
