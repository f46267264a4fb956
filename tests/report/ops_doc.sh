#!/usr/bin/env bash
# docs/ops.md is `nnscan ops --format md`: fails when the operator table
# changed and the page was not regenerated. Usage: ops_doc.sh PATH/TO/nnscan
set -u
nnscan=$1
cd "$(dirname "$0")/../.."
if "$nnscan" ops --format md | diff -u docs/ops.md - ; then
  echo "docs/ops.md is up to date"
else
  echo "FAIL: docs/ops.md is stale; regenerate it from the repository root with:"
  echo "  build/nnscan ops --format md > docs/ops.md"
  exit 1
fi
