"""What torch.cuda.memory_stats() adds in Python over the nested dict it
flattens (memory_stats_as_nested_dict, which the Inspector reads on a
GPU): the flattening timed on a CPU, the nested dict stubbed with the
allocator's layout (the byte and count statistics, each per pool and
{current, peak, allocated, freed}, and the scalars), so no GPU is needed.
The C++ call that builds the nested dict is common to both and not in
these figures. Medians of --runs calls.

    /usr/bin/python3 bench/cuda_stats_flatten.py [--runs 2000]
"""
import argparse
import statistics
import time

import torch.cuda.memory as cm

ARRAYS = ("allocation", "segment", "active", "inactive_split",
          "allocated_bytes", "reserved_bytes", "active_bytes",
          "inactive_split_bytes", "requested_bytes")
SCALARS = ("num_alloc_retries", "num_ooms", "num_sync_all_streams",
           "num_device_alloc", "num_device_free", "max_split_size")


def nested():
    stat = {"current": 1, "peak": 2, "allocated": 3, "freed": 4}
    d = {k: {p: dict(stat) for p in ("all", "small_pool", "large_pool")}
         for k in ARRAYS}
    d.update({k: 0 for k in SCALARS})
    d["oversize_allocations"] = dict(stat)
    d["oversize_segments"] = dict(stat)
    return d


def median_us(fn, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=2000)
    a = ap.parse_args()
    d = nested()
    cm.memory_stats_as_nested_dict = lambda device=None: d
    flat = median_us(cm.memory_stats, a.runs)
    direct = median_us(lambda: d["allocated_bytes"]["all"]["current"],
                       a.runs)
    print(f"memory_stats() over a stubbed nested dict of "
          f"{len(cm.memory_stats())} leaves: {flat:.1f} us a call; "
          f"reading the nested dict's two counters: {direct:.2f} us")


if __name__ == "__main__":
    main()
