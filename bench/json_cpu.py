#!/usr/bin/env python3
"""User CPU time of `nnscan summary --format json` (and text, for scale)
of two nnscan binaries, run in turns, medians: what the JSON writer costs
against a base build on a loaded machine, where wall time is noise.

    /usr/bin/python3 bench/json_cpu.py BASE/nnscan NEW/nnscan MODEL.onnx... [--runs N]

Models: bench/gen_models.py (graph100k, llama10k).
"""
import argparse
import os
import resource
import statistics
import subprocess


def cpu_ms(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("models", nargs="+")
    ap.add_argument("--runs", type=int, default=9)
    a = ap.parse_args()
    times = {}
    for _ in range(a.runs):
        for label, binary in (("base", a.base), ("new", a.new)):
            for m in a.models:
                for fmt in ("json", "text"):
                    cmd = [binary, "summary", m, "--format", fmt, "--depth", "all"]
                    times.setdefault((os.path.basename(m), fmt, label), []).append(cpu_ms(cmd))
    for m in a.models:
        for fmt in ("json", "text"):
            b = statistics.median(times[(os.path.basename(m), fmt, "base")])
            n = statistics.median(times[(os.path.basename(m), fmt, "new")])
            print(f"{os.path.basename(m):24s} {fmt:4s} base {b:7.0f} ms  new {n:7.0f} ms  "
                  f"ratio {n / b:5.2f}  (user CPU, median of {a.runs})")


if __name__ == "__main__":
    main()
