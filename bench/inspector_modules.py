"""nnscan.Inspector on a model with very many modules (issue 18 item 4).

An nn.Sequential of N nn.Identity modules and one Linear, one training step
(forward, backward) under the Inspector: the time of start(), of the step,
of finish(), medians over --runs fresh models per N, and the process's peak
RSS. Linear in N means the times grow with N and no faster.

usage: NNSCAN_LIBRARY=build/gcc/libnnscan.so /usr/bin/python3 \\
         bench/inspector_modules.py [--sizes 10000,100000] [--runs 3]
"""
import argparse
import os
import resource
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "python"))

import torch  # noqa: E402

import nnscan  # noqa: E402


def one_run(n):
    m = torch.nn.Sequential(*[torch.nn.Identity() for _ in range(n)],
                            torch.nn.Linear(4, 4))
    x = torch.randn(2, 4)
    t0 = time.perf_counter()
    insp = nnscan.Inspector(m)
    insp.start()
    t1 = time.perf_counter()
    m(x).sum().backward()
    t2 = time.perf_counter()
    insp.finish()
    t3 = time.perf_counter()
    return t1 - t0, t2 - t1, t3 - t2


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    print(f"{'modules':>8} {'start s':>8} {'step s':>8} {'finish s':>9}")
    for n in (int(s) for s in args.sizes.split(",")):
        runs = [one_run(n) for _ in range(args.runs)]
        med = [statistics.median(r[k] for r in runs) for k in range(3)]
        print(f"{n:>8} {med[0]:>8.2f} {med[1]:>8.2f} {med[2]:>9.2f}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of the process: {peak:.0f} MB")


if __name__ == "__main__":
    main()
