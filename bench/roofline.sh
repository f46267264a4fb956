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
# wall time and the median CPU time (user + system of the process, which
# a loaded machine disturbs less) of each setting, and their ratios.
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
import os, statistics, subprocess, sys, time
exe, runs, models = sys.argv[1], int(sys.argv[2]), sys.argv[3:]


def run(cmd):
    """(wall ms, CPU ms) of one fresh process."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = (time.perf_counter() - t) * 1e3
    if status:
        sys.exit("%s failed" % " ".join(cmd))
    return wall, (ru.ru_utime + ru.ru_stime) * 1e3


print("%-22s %10s %10s %6s %10s %10s %6s" % ("model", "wall ms", "+hw wall", "ratio",
                                            "CPU ms", "+hw CPU", "ratio"))
for m in models:
    base = [exe, "summary", m, "--format", "json", "-o", "/dev/null"]
    if "llama" in m:
        base += ["--input", "batch=1", "--input", "seq=1"]
    settings = {"plain": base, "hw": base + ["--hardware", "h100-sxm"]}
    wall = {k: [] for k in settings}
    cpu = {k: [] for k in settings}
    for k, cmd in settings.items():  # one untimed warm-up each
        run(cmd)
    for _ in range(runs):
        for k, cmd in settings.items():
            w, c = run(cmd)
            wall[k].append(w)
            cpu[k].append(c)
    wp, wh = statistics.median(wall["plain"]), statistics.median(wall["hw"])
    cp, ch = statistics.median(cpu["plain"]), statistics.median(cpu["hw"])
    print("%-22s %10.2f %10.2f %6.3f %10.2f %10.2f %6.3f" % (
        m.split("/")[-1], wp, wh, wh / wp, cp, ch, ch / cp if cp else float("nan")))
PY
