#!/usr/bin/env bash
# The inspection API with 100,000 modules (issue 18, item 4): before the
# fix, adding the 100,000th sibling walked the 99,999 before it (100k
# children: 114 s). Builds nnscan in Release into build-bench/ and runs
# bench/inspect_bench.c on 10k and 100k siblings and a 10k-deep chain.
#
#   bench/inspect_bench.sh [RUNS]      (default 7)
#
# With torch on /usr/bin/python3 it also times an Inspector on
# nn.Sequential of 100,000 nn.Identity modules (one forward, the text
# report), median of 3 runs: the Python side's own cost.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
RUNS="${1:-7}"
PYTHON="${PYTHON:-/usr/bin/python3}"
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench -j"${JOBS:-2}" --target nnscan_static nnscan_shared >/dev/null 2>&1 ||
  cmake --build build-bench -j"${JOBS:-2}" >/dev/null
BIN=build-bench/inspect_bench
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude bench/inspect_bench.c \
  build-bench/libnnscan.a -lz -lm -o "$BIN"
"$BIN" 10000 "$RUNS" flat
"$BIN" 100000 "$RUNS" flat
"$BIN" 10000 "$RUNS" chain
if "$PYTHON" -c 'import torch' 2>/dev/null; then
  NNSCAN_LIBRARY="$ROOT/build-bench/libnnscan.so" PYTHONPATH="$ROOT/python" \
    "$PYTHON" - <<'PY'
import statistics, time
import torch
import nnscan
N = 100_000
model = torch.nn.Sequential(*[torch.nn.Identity() for _ in range(N)])
x = torch.randn(2, 4)
phases = {"start": [], "forward": [], "finish": [], "report": []}
for _ in range(3):
    t0 = time.perf_counter()
    insp = nnscan.Inspector(model)
    insp.start()
    t1 = time.perf_counter()
    model(x)
    t2 = time.perf_counter()
    insp.finish()
    t3 = time.perf_counter()
    insp.report("text")
    t4 = time.perf_counter()
    for k, d in zip(phases, (t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
        phases[k].append(d)
print(f"Inspector on nn.Sequential of {N:,} Identity modules "
      "(median of 3, s): " + ", ".join(
          f"{k} {statistics.median(v):.2f}" for k, v in phases.items()))
PY
fi
