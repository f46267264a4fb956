"""What nnscan.StepMeter adds to a training step (issue 48: at most 2 % of
a step, medians). A plain loop of an MLP training step on CPU is timed
with and without `with meter.step(x):` around each step, alternating
rounds so that both see the same machine; and the meter's own work alone
(an empty step body: clock, FLOPs lookup by input shapes, the library's
figures, the JSON line) is timed as a share of the step.

    python3 bench/step_meter_overhead.py [--width 512] [--batch 256]
        [--steps 40] [--rounds 5]

Prints the median step time without and with the meter, the difference,
and the meter's median own cost per step, each as % of the step.
"""
import argparse
import os
import statistics
import tempfile
import time

import torch
import torch.nn as nn

import nnscan


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--width", type=int, default=512)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    w = a.width
    model = nn.Sequential(nn.Linear(w, 4 * w), nn.ReLU(), nn.Linear(4 * w, w),
                          nn.ReLU(), nn.Linear(w, 10))
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(a.batch, w)

    def body():
        model(x).sum().backward()
        opt.step()
        opt.zero_grad()

    log = os.path.join(tempfile.mkdtemp(), "steps.jsonl")
    meter = nnscan.StepMeter(model, peak_flops=1e15, warmup=0, file=False,
                             log=log)
    with meter.step(x):  # records the FLOPs once, before any timing
        body()
    plain, metered, own = [], [], []
    for _ in range(a.rounds):
        for _ in range(a.steps):
            t0 = time.perf_counter()
            body()
            plain.append(time.perf_counter() - t0)
        for _ in range(a.steps):
            t0 = time.perf_counter()
            with meter.step(x):
                body()
            metered.append(time.perf_counter() - t0)
        for _ in range(a.steps):
            t0 = time.perf_counter()
            with meter.step(x):
                pass
            own.append(time.perf_counter() - t0)
    meter.close()
    p, m, o = (statistics.median(v) for v in (plain, metered, own))
    print(f"torch {torch.__version__}, MLP width {w}, batch {a.batch}, "
          f"{a.rounds} x {a.steps} steps each, 1 thread")
    print(f"median step without meter: {p * 1e3:.3f} ms")
    print(f"median step with meter:    {m * 1e3:.3f} ms "
          f"({100 * (m - p) / p:+.2f} %)")
    print(f"meter's own work per step: {o * 1e6:.1f} us "
          f"({100 * o / p:.2f} % of a step)")


if __name__ == "__main__":
    main()
