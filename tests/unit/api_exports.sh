#!/usr/bin/env bash
# The shared library exports exactly the functions include/nnscan.h
# declares (NNS_API), so test_api.c, which checks each declared one with bad
# arguments, covers every export.
#   tests/unit/api_exports.sh LIBNNSCAN.so HEADER
set -euo pipefail
lib=$1 header=$2
exported=$(nm -D --defined-only "$lib" | awk '$2 == "T" {print $3}' | sort)
declared=$(grep -E '^NNS_API ' -A3 "$header" | tr '\n' ' ' |
  grep -oE 'NNS_API [^(;]*\b(nns_[a-z0-9_]+)\(' | grep -oE 'nns_[a-z0-9_]+\($' |
  tr -d '(' | sort)
if [[ -z "$exported" || -z "$declared" ]]; then
  echo "api_exports: nothing found (nm or header unreadable)" >&2
  exit 1
fi
missing=$(comm -23 <(echo "$exported") <(echo "$declared"))
undeclared=$(comm -13 <(echo "$exported") <(echo "$declared"))
if [[ -n "$missing" || -n "$undeclared" ]]; then
  [[ -z "$missing" ]] || echo "exported but not declared in the header: $missing" >&2
  [[ -z "$undeclared" ]] || echo "declared but not exported: $undeclared" >&2
  exit 1
fi
echo "api_exports: $(echo "$exported" | wc -l) exports, all declared"
