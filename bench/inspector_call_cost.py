"""Host time the Inspector adds per module call: a Sequential of 200
Linear(4, 4) on one row (the work per call is a few microseconds, so the
hooks dominate, as for short GPU kernels), forward under no_grad, without
and with the Inspector; medians of 30 forwards.

    NNSCAN_LIBRARY=build/dev/libnnscan.so PYTHONPATH=python \
        python3 bench/inspector_call_cost.py [--layers 200] [--runs 30]
"""
import argparse
import statistics
import time

import torch

import nnscan

SETTINGS = (
    ("memory=False, check_nonfinite=False",
     {"memory": False, "check_nonfinite": False, "watch_backward": False}),
    ("defaults", {"watch_backward": False}),
)


def median_s(fn, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=200)
    ap.add_argument("--runs", type=int, default=30)
    a = ap.parse_args()
    torch.set_num_threads(1)
    model = torch.nn.Sequential(
        *[torch.nn.Linear(4, 4) for _ in range(a.layers)]).eval()
    x = torch.randn(1, 4)
    calls = a.layers + 1  # the Sequential's own call too
    with torch.no_grad():
        plain = median_s(lambda: model(x), a.runs)
        print(f"torch {torch.__version__}; {calls} module calls a forward; "
              f"without the Inspector {plain * 1e3:.2f} ms")
        for name, kw in SETTINGS:
            with nnscan.Inspector(model, **kw):
                on = median_s(lambda: model(x), a.runs)
            print(f"{name}: {on * 1e3:.2f} ms, "
                  f"{(on - plain) / calls * 1e6:.1f} us a module call")


if __name__ == "__main__":
    main()
