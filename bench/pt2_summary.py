#!/usr/bin/env python3
"""Times `nnscan summary ARCHIVE.pt2` (the C .pt2 reader, src/pt2/): the
median wall time of fresh processes, after one untimed run, beside the
spawn floor (the same for /bin/true).

    python3 bench/pt2_summary.py [--runs 21] [--against BASE] NNSCAN DIR

With --against, BASE (another nnscan binary) and NNSCAN take turns run by
run, so that a machine whose speed drifts during the measurement moves
both medians alike; each line then gives both and their ratio.

DIR holds the archives bench/pt2_make.py writes (resnet50.pt2,
llama7b.pt2). Goals (issue 45): resnet50 <= 5 ms, LLaMA-7B shaped <= 20
ms. Python 3 standard library only.
"""
import argparse
import os
import statistics
import time


def run(cmd):
    start = time.perf_counter()
    pid = os.posix_spawn(cmd[0], cmd, os.environ,
                         file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull,
                                        os.O_WRONLY, 0)])
    _, status, usage = os.wait4(pid, 0)
    ms = (time.perf_counter() - start) * 1e3
    if status:
        raise SystemExit(f"{' '.join(cmd)} failed ({status})")
    return ms, (usage.ru_utime + usage.ru_stime) * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--against", metavar="BASE",
                    help="another nnscan binary, run in turns with NNSCAN")
    ap.add_argument("nnscan")
    ap.add_argument("dir")
    a = ap.parse_args()
    goals = {"resnet50.pt2": 5.0, "llama7b.pt2": 20.0}
    # The floor no command escapes: spawning a process that does nothing
    # (fork, exec, exit). On a VM it can be most of a small model's time.
    true = [run(["/bin/true"]) for _ in range(a.runs)]
    floor = statistics.median(w for w, _ in true)
    print(f"{'/bin/true':14s} wall median {floor:7.2f} ms (min "
          f"{min(w for w, _ in true):6.2f})  cpu median "
          f"{statistics.median(c for _, c in true):7.2f} ms  (the spawn "
          f"floor)")
    for name, goal in goals.items():
        path = os.path.join(a.dir, name)
        bins = [os.path.abspath(a.nnscan)]
        if a.against:
            bins.append(os.path.abspath(a.against))
        cmds = [[b, "summary", path] for b in bins]
        for cmd in cmds:
            run(cmd)
        runs = [[] for _ in cmds]
        for _ in range(a.runs):
            for cmd, times in zip(cmds, runs):
                times.append(run(cmd))
        med = statistics.median(w for w, _ in runs[0])
        cpu = statistics.median(c for _, c in runs[0])
        print(f"{name:14s} wall median {med:7.2f} ms (min "
              f"{min(w for w, _ in runs[0]):6.2f})  cpu median {cpu:7.2f} ms  "
              f"({a.runs} runs; goal <= {goal:g} ms wall: "
              f"{'met' if med <= goal else 'NOT met'}; "
              f"{med - floor:.2f} ms above the spawn floor)")
        if a.against:
            base = statistics.median(w for w, _ in runs[1])
            print(f"{'':14s} BASE wall median {base:7.2f} ms (min "
                  f"{min(w for w, _ in runs[1]):6.2f}); base/now "
                  f"{base / med:.3f}")

if __name__ == "__main__":
    main()
