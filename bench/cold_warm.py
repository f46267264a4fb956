#!/usr/bin/env python3
"""Times `nnscan summary MODEL` in the two regimes a VM's memory gives it.

    bench/cold_warm.py [--pause 10] [--rounds 5] [--warm-runs 11]
                       [--format text] MODEL NAME=NNSCAN [NAME=NNSCAN ...]

Warm: runs back to back (after one untimed run), as bench/compare.sh and
bench/measure.py take them. Cold: each run after `--pause` idle seconds,
as a person at a terminal starts one. On a VM whose freed memory the host
takes back (free page reporting), a run that touches a lot of fresh memory
costs much more cold than warm, and most of the difference is the huge
pages: a 2 MB page's first touch costs about 0.2-0.5 ms when the host
still backs it and 3-4.5 ms when the host must find the memory first,
while 4 KB pages cost 0.4-0.6 ms per MB either way (bench/page_cost.sh).
bench/README.md has the figures. Prints, for each binary, the median wall time, CPU time (user +
system, from wait4) and minor page faults of each regime; the binaries
take turns within each round, so a moment's load falls on all of them.
"""
import argparse
import os
import statistics
import sys
import time


def run(cmd):
    """Wall ms, CPU ms and minor faults of one fresh process."""
    start = time.perf_counter()
    pid = os.posix_spawn(cmd[0], cmd, os.environ)
    _, status, usage = os.wait4(pid, 0)
    wall = (time.perf_counter() - start) * 1e3
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("cold_warm.py: %s failed (status %d)"
                 % (" ".join(cmd), os.waitstatus_to_exitcode(status)))
    return wall, (usage.ru_utime + usage.ru_stime) * 1e3, usage.ru_minflt


def medians(samples):
    return [statistics.median(s[k] for s in samples) for k in range(3)]


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pause", type=float, default=10.0,
                    help="idle seconds before each cold run (default 10)")
    ap.add_argument("--rounds", type=int, default=5,
                    help="cold runs of each binary (default 5)")
    ap.add_argument("--warm-runs", type=int, default=11,
                    help="warm runs of each binary (default 11)")
    ap.add_argument("--format", default="text",
                    help="summary --format (default text)")
    ap.add_argument("model")
    ap.add_argument("binaries", nargs="+", metavar="NAME=NNSCAN")
    args = ap.parse_args()
    bins = []
    for b in args.binaries:
        name, sep, path = b.partition("=")
        if not sep or not os.access(path, os.X_OK):
            ap.error("%s: want NAME=PATH of an executable nnscan" % b)
        bins.append((name, os.path.abspath(path)))
    if not os.path.isfile(args.model):
        ap.error("%s: no such model" % args.model)

    def cmd(path):
        return [path, "summary", args.model, "--format", args.format,
                "-o", os.devnull]

    cold = {name: [] for name, _ in bins}
    warm = {name: [] for name, _ in bins}
    for _ in range(args.rounds):
        for name, path in bins:
            time.sleep(args.pause)
            cold[name].append(run(cmd(path)))
    for _ in range(args.warm_runs + 1):  # the first round is untimed
        for name, path in bins:
            warm[name].append(run(cmd(path)))
    print("%s, summary --format %s: medians of %d cold runs (each after "
          "%g s idle) and %d warm runs (back to back)"
          % (os.path.basename(args.model), args.format, args.rounds,
             args.pause, args.warm_runs))
    print("%-12s %10s %10s %10s %10s %10s %10s"
          % ("binary", "cold ms", "cold cpu", "cold flt", "warm ms",
             "warm cpu", "warm flt"))
    for name, _ in bins:
        c, w = medians(cold[name]), medians(warm[name][1:])
        print("%-12s %10.1f %10.1f %10d %10.1f %10.1f %10d"
              % (name, c[0], c[1], c[2], w[0], w[1], w[2]))


if __name__ == "__main__":
    main()
