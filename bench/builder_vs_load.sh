#!/usr/bin/env bash
# Building a 10,000-node graph through the builder API against loading its
# ONNX file (issue 6, item 6).
#
#   bench/builder_vs_load.sh [RUNS]      (default 21)
#
# Generates bench/models/graph10k.onnx (bench/gen_models.py's graph100k
# generator with 10,000 nodes, inline weights) and its builder description
# (tools/make_builder_desc.py), builds nnscan in Release into build-bench/,
# then runs bench/builder_bench.c: medians of RUNS builds in one process
# and RUNS loads in another: loads timed after builds in the same process
# ran about 10% faster than loads in a process of their own (they start
# from memory the builds just freed), which is not the comparison asked
# for. Where valgrind is available it also counts instructions per
# build and per load under callgrind (the difference between 3 and 1
# repetitions, so reading the description and process start-up cancel
# out): a figure that does not depend on how loaded the machine is.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
RUNS="${1:-21}"
PYTHON="${PYTHON:-/usr/bin/python3}"
MODEL=bench/models/graph10k.onnx
DESC=bench/models/graph10k.desc
mkdir -p bench/models
if [[ ! -f "$MODEL" ]]; then
  "$PYTHON" -c "import sys; sys.path.insert(0, 'bench'); import gen_models; gen_models.gen_graph100k('$MODEL', target=10_000)"
fi
[[ -f "$DESC" && "$DESC" -nt "$MODEL" ]] || "$PYTHON" tools/make_builder_desc.py "$MODEL" "$DESC"
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench -j"${JOBS:-2}" --target nnscan_static >/dev/null
BIN=build-bench/builder_bench
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Itests/unit \
  bench/builder_bench.c tests/unit/builddesc.c build-bench/libnnscan.a -lz -lm -o "$BIN"
echo "== wall time, $RUNS runs each (median; the machine may be shared) =="
"$BIN" "$MODEL" "$DESC" "$RUNS" build
"$BIN" "$MODEL" "$DESC" "$RUNS" load
if command -v valgrind >/dev/null; then
  echo "== instructions per operation (callgrind; (3 runs - 1 run) / 2) =="
  count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null \
      "$BIN" "$MODEL" "$DESC" "$1" "$2" 2>&1 >/dev/null |
      awk '/Collected/ {print $4}'
  }
  for mode in build load; do
    one=$(count 1 "$mode"); many=$(count 3 "$mode")
    echo "$mode: $(( (many - one) / 2 )) instructions"
  done
fi
