#!/usr/bin/env python3
"""A process's first nnscan.summary, as a script that runs one pays it:
fresh processes, each importing torch, then nnscan (timed: `import
nnscan`), building the model and timing its first summary (wall and
CPU), then a second; which heavy modules the first one imported
(torch._dynamo, sympy). Packages taking turns, process after process;
medians. The processes write and read Python's bytecode cache (one
untimed process per package first; PYTHONDONTWRITEBYTECODE is dropped
for them): else each would compile the package again, tens of ms that
no installed copy pays. Each process collects its garbage after
importing torch and after building the model: a process's first full
collection walks every object torch (and torchvision, transformers)
made, 140 ms on PyTorch 2.14 with torchvision, and falls in whatever
allocates when the counters say so (the first summary in one package,
the second in another), which says nothing of either.

    bench/first_summary.py [--runs 7] [--model mlp|cnn|resnet18|hf:NAME]
                           [NAME=PYTHON_DIR[:LIBRARY] ...]

NAME=PYTHON_DIR: a package to compare (its python/ directory, e.g. a
`git archive` of another commit), with LIBRARY its own libnnscan (else
NNSCAN_LIBRARY's); without any, this checkout's alone.
"mlp" and "cnn" are plain PyTorch modules (no torchvision, no
transformers: nothing else imports Dynamo before nnscan runs).
"""
import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

CODE = r"""
import gc, sys, time
t0 = time.perf_counter()
import torch
from torch import nn
gc.collect()  # (the doc: no timed part pays for torch's objects)
t = time.perf_counter()
import nnscan
imported = time.perf_counter() - t
name = %(model)r
if name == "mlp":
    m = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    x = torch.zeros(2, 64)
elif name == "cnn":
    m = nn.Sequential(nn.Conv2d(3, 16, 3), nn.BatchNorm2d(16), nn.ReLU(),
                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))
    x = torch.zeros(1, 3, 32, 32)
elif name.startswith("hf:"):
    sys.path.insert(0, %(tests_hf)r)
    import hf_zoo
    m, x = hf_zoo.build(name[3:], device="cpu")
else:
    import torchvision
    m = getattr(torchvision.models, name)()
    x = torch.zeros(1, 3, 224, 224)
gc.collect()
before = {k: k in sys.modules for k in ("torch._dynamo", "sympy")}
t, c = time.perf_counter(), time.process_time()
nnscan.summary(m, inputs=x, file=False)
first = (time.perf_counter() - t, time.process_time() - c)
t = time.perf_counter()
nnscan.summary(m, inputs=x, file=False)
second = time.perf_counter() - t
loaded = [k for k, was in before.items() if not was and k in sys.modules]
print(first[0], first[1], second, imported, ",".join(loaded) or "-")
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--model", default="mlp")
    ap.add_argument("packages", nargs="*")
    a = ap.parse_args()
    pkgs = [p.split("=", 1) for p in a.packages] or \
        [("this", os.path.join(HERE, "..", "python"))]
    code = CODE % {"model": a.model, "tests_hf": os.path.join(
        HERE, "..", "python", "tests_hf")}
    got = {n: [] for n, _ in pkgs}
    for i in range(-1, a.runs):  # -1: each package's bytecode cached
        for n, path in pkgs if i % 2 == 0 else reversed(pkgs):
            path, _, library = path.partition(":")
            env = dict(os.environ, PYTHONPATH=os.path.abspath(path))
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            if library:
                env["NNSCAN_LIBRARY"] = os.path.abspath(library)
            out = subprocess.run([sys.executable, "-c", code], env=env,
                                 capture_output=True, text=True)
            if out.returncode:
                sys.exit(f"{n}: failed\n{out.stderr[-2000:]}")
            if i < 0:
                continue
            w, c, s, imp, loaded = out.stdout.split()
            got[n].append((float(w), float(c), float(s), float(imp), loaded))
    med = statistics.median
    for n, rows in got.items():
        print(f"{a.model} {n}: import nnscan {med(r[3] for r in rows) * 1e3:.1f}"
              f" ms, first summary {med(r[0] for r in rows) * 1e3:.1f}"
              f" ms wall, {med(r[1] for r in rows) * 1e3:.1f} ms CPU, both "
              f"{med(r[0] + r[3] for r in rows) * 1e3:.1f} ms; second "
              f"{med(r[2] for r in rows) * 1e3:.1f} ms; imported by the first: "
              f"{rows[0][4]} (medians of {len(rows)} processes)")


if __name__ == "__main__":
    main()
