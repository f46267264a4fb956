#!/bin/sh
# page_cost.sh - first-touch cost of fresh memory, huge and 4 KB pages,
# warm (runs back to back) and cold (each after PAUSE idle seconds).
#
#   bench/page_cost.sh [MB] [PAUSE] [RUNS]     (defaults 64, 12, 3)
#
# Builds bench/page_cost.c into build-bench/ and prints each run's line.
set -eu
cd "$(dirname "$0")/.."
mb=${1:-64} pause=${2:-12} runs=${3:-3}
mkdir -p build-bench
BIN=build-bench/page_cost
cc -O2 -std=c11 -Wall -Wextra bench/page_cost.c -o "$BIN"
for kind in huge small; do
  echo "== $kind pages, warm (back to back; the first run is untimed)"
  "$BIN" "$mb" "$kind" >/dev/null
  i=0
  while [ "$i" -lt "$runs" ]; do "$BIN" "$mb" "$kind"; i=$((i + 1)); done
  echo "== $kind pages, cold (each after $pause s idle)"
  i=0
  while [ "$i" -lt "$runs" ]; do
    sleep "$pause"
    "$BIN" "$mb" "$kind"
    i=$((i + 1))
  done
done
