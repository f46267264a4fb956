"""Host time the Inspector adds per module call: a Sequential of 200
Linear(4, 4) on one row (the work per call is a few microseconds, so the
hooks dominate, as for short GPU kernels), forward under no_grad, without
and with the Inspector; medians of --runs forwards.

    NNSCAN_LIBRARY=build/dev/libnnscan.so PYTHONPATH=python \
        python3 bench/inspector_call_cost.py [--layers 200] [--runs 40]
        [--against REV]

--against REV: in one process, the Inspector's per-call code as it is at
git revision REV (send() of _inspect_records.py, Inspector._guarded, the
CPU allocation counter of _inspect_clock.py, the NaN/Inf checks of
_inspect_tensors.py) against the working tree's,
the two taking turns over 12 rounds of --runs forwards, in each setting:
this machine's speed swings by tens of percent from minute to minute, so
only rounds taken in turn compare. Prints both per-call figures and the
median of the rounds' time ratios.
"""
import argparse
import ast
import os
import statistics
import subprocess
import time

import torch

import nnscan
from nnscan import _inspect_records, _inspect_tensors, inspector

SETTINGS = (
    ("memory=False, check_nonfinite=False",
     {"memory": False, "check_nonfinite": False, "watch_backward": False}),
    ("defaults", {"watch_backward": False}),
)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def median_s(fn, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def at_revision(rev):
    """{module: {name: object}}: the per-call code as it is at git
    revision rev (send(), Inspector._guarded, the CPU allocation counter,
    the NaN/Inf checks), each loaded over a copy of the working tree's
    module."""
    from nnscan import _inspect_clock

    def show(path):
        return subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT,
                              check=True, capture_output=True,
                              text=True).stdout

    def module_at(mod, path):
        ns = dict(vars(mod))
        exec(compile(show(path), f"{rev}:{path}", "exec"), ns)
        return ns
    records = module_at(_inspect_records,
                        "python/nnscan/_inspect_records.py")
    checks = module_at(_inspect_tensors, "python/nnscan/_inspect_tensors.py")
    clock = module_at(_inspect_clock, "python/nnscan/_inspect_clock.py")
    tree = ast.parse(show("python/nnscan/inspector.py"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef)
               and n.name == "Inspector")
    fn = next(n for n in cls.body if isinstance(n, ast.FunctionDef)
              and n.name == "_guarded")
    g = {}
    exec(compile(ast.Module(body=[fn], type_ignores=[]),
                 f"{rev}:inspector.py", "exec"), g)
    return {inspector: {"send": records["send"],
                        "NonfiniteCheck": checks["NonfiniteCheck"]},
            inspector.Inspector: {"_guarded": g["_guarded"]},
            _inspect_clock: {"_alloc_counter": clock["_alloc_counter"]}}


def against(model, x, rev, runs, calls):
    base = at_revision(rev)
    now = {owner: {k: getattr(owner, k) for k in names}
           for owner, names in base.items()}

    def use(version):
        for owner, names in version.items():
            for k, v in names.items():
                setattr(owner, k, v)
    plain = median_s(lambda: model(x), runs * 4)
    try:
        for name, kw in SETTINGS:
            times = {"base": [], "now": []}
            for _ in range(12):
                for which, version in (("base", base), ("now", now)):
                    use(version)
                    with nnscan.Inspector(model, **kw):
                        times[which].append(
                            median_s(lambda: model(x), runs))
            b, n = (statistics.median(times[k]) for k in ("base", "now"))
            ratio = statistics.median(
                p / q for p, q in zip(times["base"], times["now"]))
            print(f"{name}: {rev} {(b - plain) / calls * 1e6:.1f} us a "
                  f"module call, now {(n - plain) / calls * 1e6:.1f} us; "
                  f"forward under the Inspector base/now {ratio:.3f} "
                  f"(median of 12 rounds)")
    finally:
        use(now)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=200)
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--against", metavar="REV")
    a = ap.parse_args()
    torch.set_num_threads(1)
    model = torch.nn.Sequential(
        *[torch.nn.Linear(4, 4) for _ in range(a.layers)]).eval()
    x = torch.randn(1, 4)
    calls = a.layers + 1  # the Sequential's own call too
    with torch.no_grad():
        if a.against:
            against(model, x, a.against, a.runs, calls)
            return
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
