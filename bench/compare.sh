#!/usr/bin/env bash
# Before/after: nnscan at a base revision against the working tree, both
# built in Release, on the bench models (and any MODEL given).
#
#   bench/compare.sh [--base REV] [--runs N] [MODEL.onnx ...]
#
# REV defaults to HEAD~1. Each run is a fresh process; the two binaries
# take turns run after run, so a change of machine load hits both alike.
# Prints, per model and command (shapes; summary, the text report the
# command prints by default; json, summary --format json), the median wall
# time of each and their ratio (runs are started with posix_spawn; the
# time to start /bin/true is printed as the floor under every figure), the median CPU time (user + system: on a busy
# shared machine wall time mostly measures the queue), and the peak RSS
# and, where perf can count them, the instructions (user) of one text
# summary run of each.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
base=HEAD~1 runs=15 models=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --base) base=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) models+=("$1"); shift ;;
  esac
done
((${#models[@]})) || models=(bench/models/resnet50_inline.onnx
  bench/models/llama7b_shaped.onnx bench/models/graph100k.onnx)
for m in "${models[@]}"; do
  [ -f "$m" ] || { echo "compare.sh: $m is missing (bench/run.sh generates the bench models)" >&2; exit 2; }
done

# shellcheck source=bench/base_and_now.sh
. bench/base_and_now.sh
build_base_and_now "$base"

python3 - "$work/base/nnscan" build-bench/nnscan "$base" "$runs" "${models[@]}" <<'PY'
import os, shutil, statistics, subprocess, sys, time
base, cur, rev, runs, models = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]

COMMANDS = {"shapes": ["shapes"], "summary": ["summary"],
            "json": ["summary", "--format", "json"]}
devnull = os.open(os.devnull, os.O_WRONLY)

def spawn(argv):
    """Wall and CPU (user + system) seconds of one run of argv. posix_spawn,
    not fork: forking this interpreter cost ~1.5 ms of page-table copying
    here, charged to every run of a command that itself takes 2-8 ms."""
    t = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1)])
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t
    if status != 0:
        sys.exit(f"compare.sh: {' '.join(argv)} failed")
    return wall, ru.ru_utime + ru.ru_stime

def once(exe, cmd, model):
    return spawn([exe] + COMMANDS[cmd][:1] + [model] + COMMANDS[cmd][1:]
                 + ["-o", os.devnull])

def instructions(exe, model):
    if not shutil.which("perf"):
        return None
    r = subprocess.run(["perf", "stat", "-x,", "-e", "instructions:u", exe,
                        "summary", model, "-o", os.devnull],
                       capture_output=True, text=True)
    for line in r.stderr.splitlines():
        f = line.split(",")
        if len(f) > 2 and f[2].startswith("instructions") and f[0].isdigit():
            return int(f[0])
    return None

def peak_kb(exe, model):
    # fork, not posix_spawn: a vfork'ed child's peak RSS starts at this
    # interpreter's (~15 MB), above a small model's whole run.
    pid = os.fork()
    if pid == 0:
        os.execv(exe, [exe, "summary", model, "-o", os.devnull])
    return os.wait4(pid, 0)[2].ru_maxrss

print(f"base {rev} vs working tree; {runs} interleaved runs, medians;"
      f" summary is the text report, json the JSON one")
floor = statistics.median(spawn(["/bin/true"])[0] for _ in range(runs)) * 1e3
print(f"starting a process (/bin/true) takes {floor:.2f} ms of each figure")
print(f"{'model':28} {'command':8} {'base ms':>9} {'now ms':>9} {'now/base':>8}"
      f" {'base cpu':>9} {'now cpu':>9} {'now/base':>8}")
for m in models:
    for cmd in COMMANDS:
        t = {base: [], cur: []}
        for exe in (base, cur):
            once(exe, cmd, m)  # warm-up
        for _ in range(runs):
            for exe in (base, cur):
                t[exe].append(once(exe, cmd, m))
        med = {e: [statistics.median(x[k] for x in t[e]) * 1e3 for k in (0, 1)]
               for e in t}
        (b, bc), (c, cc) = med[base], med[cur]
        print(f"{os.path.basename(m):28} {cmd:8} {b:9.1f} {c:9.1f} {c / b:8.3f}"
              f" {bc:9.1f} {cc:9.1f} {cc / bc:8.3f}")
    print(f"{os.path.basename(m):28} peak RSS (summary): base {peak_kb(base, m)} KiB, now {peak_kb(cur, m)} KiB")
    ib, ic = instructions(base, m), instructions(cur, m)
    if ib and ic:
        print(f"{os.path.basename(m):28} instructions (summary): base {ib:,}, now {ic:,} ({ic / ib:.3f})")
PY
