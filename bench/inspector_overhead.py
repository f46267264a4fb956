"""What nnscan.Inspector costs (medians; run with /usr/bin/python3).

1. A ResNet-50 training step on CPU (forward, backward, SGD step) without
   the inspector and with it, in three settings: NaN/Inf checks on (the
   default), NaN/Inf checks and statistics off, and also memory counting
   off. The settings take turns round after round, so a change of machine
   load hits them alike; per-step medians and their ratio to "off".
2. Writing the JSON of 10,000 module calls (Sequential of 1,000 Linear
   layers, 10 forward passes): libnnscan's writer (nns_inspection_report
   into a FILE *) against Python's json.dump of the same document, and
   against json.dump(indent=4) (what the seed tool does). Wall and CPU
   time medians.

usage: NNSCAN_LIBRARY=build/dev/libnnscan.so /usr/bin/python3 \
         bench/inspector_overhead.py [--rounds 3] [--steps 3] [--batch 2]
         [--threads 1]
         [--size 128] [--json-reps 5] [--out results.json]
"""
import argparse
import ctypes
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "python"))

import torch  # noqa: E402
import torchvision  # noqa: E402

import nnscan  # noqa: E402
from nnscan import _inspect_api as ins  # noqa: E402

CONFIGS = {
    "off": None,
    "on (NaN checks)": dict(check_nonfinite=True),
    "on (no NaN checks, no stats)": dict(check_nonfinite=False, stats=False),
    "on (no NaN, no stats, no memory)": dict(check_nonfinite=False,
                                             stats=False, memory=False),
}


def train_steps(model, opt, x, y, steps, kw):
    times, cpu = [], []
    insp = nnscan.Inspector(model, **kw) if kw is not None else None
    if insp:
        insp.start()
    try:
        for _ in range(steps):
            t0, c0 = time.perf_counter(), time.process_time()
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
    finally:
        t0 = time.perf_counter()
        if insp:
            insp.finish()
        fin = time.perf_counter() - t0
    return times, cpu, fin


def bench_steps(args):
    torch.manual_seed(0)
    model = torchvision.models.resnet50()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(args.batch, 3, args.size, args.size)
    y = torch.randint(0, 1000, (args.batch,))
    train_steps(model, opt, x, y, 1, None)  # warm-up
    per = {k: [] for k in CONFIGS}
    pcpu = {k: [] for k in CONFIGS}
    fins = {k: [] for k in CONFIGS}
    for r in range(args.rounds):
        for name, kw in CONFIGS.items():
            t, c, fin = train_steps(model, opt, x, y, args.steps, kw)
            per[name] += t
            pcpu[name] += c
            fins[name].append(fin)
            print(f"  round {r}: {name:34s} "
                  f"{', '.join(f'{v * 1e3:.0f}' for v in t)} ms",
                  file=sys.stderr)
    base = statistics.median(per["off"])
    cbase = statistics.median(pcpu["off"])
    out = {}
    for name in CONFIGS:
        med = statistics.median(per[name])
        cmed = statistics.median(pcpu[name])
        out[name] = {"median_step_ms": med * 1e3, "ratio": med / base,
                     "median_step_cpu_ms": cmed * 1e3,
                     "cpu_ratio": cmed / cbase,
                     "steps": len(per[name]),
                     "median_finish_ms": statistics.median(fins[name]) * 1e3}
    return out


def bench_json(args):
    model = torch.nn.Sequential(*[torch.nn.Linear(8, 8) for _ in range(1000)])
    x = torch.randn(2, 8)
    insp = nnscan.Inspector(model)
    with insp, torch.no_grad():
        for _ in range(10):
            model(x)
    doc = insp.json()
    calls = len(doc["calls"])
    lib = ins._lib_inspect()
    libc = ctypes.CDLL(None)
    libc.fopen.restype = ctypes.c_void_p
    libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    libc.fclose.argtypes = [ctypes.c_void_p]
    write_stdio = ctypes.cast(lib.nns_write_stdio, ins._WRITE_FN)
    opts = ins._ReportOptions(format=3, max_depth=-1)
    res = {}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "out.json")

        def c_writer():
            f = libc.fopen(path.encode(), b"w")
            err = ins._Error()
            st = lib.nns_inspection_report(insp._insp, ctypes.byref(opts),
                                           write_stdio, f, ctypes.byref(err))
            libc.fclose(f)
            assert st == 0, err.message

        def c_seed():
            f = libc.fopen(path.encode(), b"w")
            err = ins._Error()
            st = lib.nns_inspection_report_seed(
                insp._insp, ctypes.byref(opts), write_stdio, f,
                ctypes.byref(err))
            libc.fclose(f)
            assert st == 0, err.message

        def py_dump(indent):
            def run():
                with open(path, "w") as f:
                    json.dump(doc, f, indent=indent)
            return run
        seed_doc = json.loads(insp.report("seed"))

        def py_seed():
            with open(path, "w") as f:
                json.dump(seed_doc, f, indent=4)
        for name, fn in [("libnnscan nnscan.inspect", c_writer),
                         ("json.dump nnscan.inspect", py_dump(None)),
                         ("json.dump nnscan.inspect indent=4", py_dump(4)),
                         ("libnnscan seed layout", c_seed),
                         ("json.dump seed layout indent=4", py_seed)]:
            wall, cpu = [], []
            for _ in range(args.json_reps):
                t0, c0 = time.perf_counter(), time.process_time()
                fn()
                wall.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
            res[name] = {"median_wall_ms": statistics.median(wall) * 1e3,
                         "median_cpu_ms": statistics.median(cpu) * 1e3,
                         "bytes": os.path.getsize(path)}
    return {"calls": calls, "writers": res}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--size", type=int, default=128)
    ap.add_argument("--json-reps", type=int, default=5)
    ap.add_argument("--skip-steps", action="store_true")
    ap.add_argument("--out")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    result = {"torch": torch.__version__, "threads": torch.get_num_threads(),
              "batch": args.batch, "size": args.size}
    if not args.skip_steps:
        result["resnet50_train_step"] = bench_steps(args)
        print(f"ResNet-50 training step, CPU, batch {args.batch}x3x"
              f"{args.size}x{args.size}, {torch.get_num_threads()} threads")
        for name, r in result["resnet50_train_step"].items():
            print(f"  {name:34s} {r['median_step_ms']:9.1f} ms/step "
                  f"x{r['ratio']:.3f}  cpu {r['median_step_cpu_ms']:9.1f} ms "
                  f"x{r['cpu_ratio']:.3f}  (finish "
                  f"{r['median_finish_ms']:.0f} ms, {r['steps']} steps)")
    result["json_10k_calls"] = bench_json(args)
    print(f"JSON of {result['json_10k_calls']['calls']} module calls")
    for name, r in result["json_10k_calls"]["writers"].items():
        print(f"  {name:36s} {r['median_wall_ms']:8.1f} ms wall "
              f"{r['median_cpu_ms']:8.1f} ms cpu  {r['bytes']:>10,} bytes")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
