#!/usr/bin/env bash
# The roofline's cost: `nnscan summary MODEL --format json` without and
# with `--hardware h100-sxm` (bytes are counted in both; the device adds
# each node's time and the sums), on resnet50 and the LLaMA-7B-shaped
# graph (decode step: batch 1, sequence 1), built in Release.
#
#   bench/roofline.sh [--runs N] [MODEL.onnx ...]
#
# Each run is a fresh process; the two settings take turns run after run,
# so a change of machine load hits both alike. Prints per model the median
# wall time of each setting and their ratio.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
runs=15 models=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) models+=("$1"); shift ;;
  esac
done
((${#models[@]})) || models=(bench/models/resnet50_inline.onnx
  bench/models/llama7b_shaped.onnx)
for m in "${models[@]}"; do
  [ -f "$m" ] || { echo "roofline.sh: $m is missing (bench/gen_models.py makes it)" >&2; exit 2; }
done
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench -j 2 --target nnscan >/dev/null

python3 - build-bench/nnscan "$runs" "${models[@]}" <<'PY'
import statistics, subprocess, sys, time
exe, runs, models = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
print("%-24s %14s %14s %7s" % ("model", "plain ms", "--hardware ms", "ratio"))
for m in models:
    base = [exe, "summary", m, "--format", "json", "-o", "/dev/null"]
    if "llama" in m:
        base += ["--input", "batch=1", "--input", "seq=1"]
    settings = {"plain": base, "hw": base + ["--hardware", "h100-sxm"]}
    times = {k: [] for k in settings}
    for k, cmd in settings.items():  # one untimed warm-up each
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    for _ in range(runs):
        for k, cmd in settings.items():
            t = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            times[k].append((time.perf_counter() - t) * 1e3)
    p, h = statistics.median(times["plain"]), statistics.median(times["hw"])
    print("%-24s %14.2f %14.2f %7.3f" % (m.split("/")[-1], p, h, h / p))
PY
