#!/usr/bin/env python3
"""Time nnscan vs. the onnx Python reference on the benchmark models.

Python 3 standard library only. Called by bench/run.sh, usable on its own:

    python3 bench/measure.py --nnscan build-bench/nnscan --models-dir bench/models \
        [--only NAME] [--nnscan-runs 11] [--python-runs 5] [--warmup 1] \
        [--results-dir bench/results] [--no-nnscan] [--no-python]

Every timed run is a fresh child process, executed directly. Wall time is
time.perf_counter() around the child; peak RSS is the child's max RSS over
three more runs under /usr/bin/time -f %M (kept out of the timed runs, whose
wall time would include its own fork and exec) when that exists (Debian package "time"), otherwise from os.wait4()'s rusage
(that fallback has a floor of about this script's own RSS, because Linux
carries the pre-exec hiwater mark of a forked child into ru_maxrss).

Per tool and model it reports the median wall time over the runs and the
largest peak RSS seen, plus the python/nnscan ratios. If nnscan fails (e.g.
the binary is not built yet) its stderr is printed, the row is marked FAILED,
and the python side is still measured.
"""

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

MODELS = [  # (name, file)
    ("resnet50", "resnet50_inline.onnx"),
    ("llama7b", "llama7b_shaped.onnx"),
    ("graph100k", "graph100k.onnx"),
]

# The reference: load without external data (llama7b_shaped.weights does not
# exist) and run ONNX's own shape inference. The child also reports the
# in-process time of load+infer so interpreter/import start-up can be separated.
PY_SNIPPET = r"""
import sys, time
t0 = time.perf_counter()
import onnx
t1 = time.perf_counter()
m = onnx.load(sys.argv[1], load_external_data=False)
t2 = time.perf_counter()
onnx.shape_inference.infer_shapes(m)
t3 = time.perf_counter()
sys.stderr.write("@@inproc import=%.6f load=%.6f infer=%.6f\n" % (t1 - t0, t2 - t1, t3 - t2))
"""

TIME_BIN = "/usr/bin/time"


def have_gnu_time():
    return os.access(TIME_BIN, os.X_OK)


def run_once(cmd, use_time):
    """Run cmd once in a fresh child, stdout discarded.

    Returns dict(rc, wall, rss_kb, stderr)."""
    fd, rss_path = tempfile.mkstemp(prefix="nnscan-bench-", suffix=".rss")
    os.close(fd)
    try:
        full = ([TIME_BIN, "-q", "-o", rss_path, "-f", "%M"] + cmd) if use_time else cmd
        with tempfile.TemporaryFile() as err:
            t0 = time.perf_counter()
            try:
                p = subprocess.Popen(full, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=err)
            except OSError as e:
                return {"rc": 127, "wall": None, "rss_kb": None, "stderr": str(e)}
            _, status, ru = os.wait4(p.pid, 0)
            t1 = time.perf_counter()
            p.returncode = os.waitstatus_to_exitcode(status)
            err.seek(0)
            stderr = err.read().decode("utf-8", "replace")
        rss = None
        if use_time:
            try:
                with open(rss_path) as f:
                    lines = [l.strip() for l in f if l.strip()]
                # GNU time may prepend "Command exited with non-zero status N"
                rss = int(lines[-1])
            except (OSError, ValueError, IndexError):
                rss = None
        if rss is None:
            rss = ru.ru_maxrss  # KiB on Linux
        return {"rc": p.returncode, "wall": t1 - t0, "rss_kb": rss, "stderr": stderr}
    finally:
        try:
            os.unlink(rss_path)
        except OSError:
            pass


def parse_inproc(stderr):
    for line in stderr.splitlines():
        if line.startswith("@@inproc "):
            return {k: float(v) for k, v in (kv.split("=") for kv in line.split()[1:])}
    return None


def measure(label, cmd, runs, warmup, use_time, parse=None):
    """Returns a result dict; stops at the first failing run."""
    res = {"label": label, "cmd": cmd, "runs": runs, "ok": True, "walls": [],
           "rss_kb": [], "extra": []}
    # Timed runs exec the command directly: wrapping them in /usr/bin/time
    # would add its own fork and exec to every wall time. Peak RSS comes
    # from a few extra runs under /usr/bin/time (below).
    for i in range(warmup + runs):
        r = run_once(cmd, False)
        if r["rc"] != 0:
            res["ok"] = False
            res["rc"] = r["rc"]
            res["stderr"] = r["stderr"]
            sys.stderr.write("  [%s] FAILED (exit %s): %s\n" % (label, r["rc"], " ".join(cmd)))
            tail = r["stderr"].strip().splitlines()[-20:]
            for line in tail:
                sys.stderr.write("    | %s\n" % line)
            return res
        if i < warmup:
            continue
        res["walls"].append(r["wall"])
        res["rss_kb"].append(r["rss_kb"])
        if parse:
            res["extra"].append(parse(r["stderr"]))
    if use_time:
        res["rss_kb"] = []
        for _ in range(3):
            r = run_once(cmd, True)
            if r["rc"] == 0 and r["rss_kb"] is not None:
                res["rss_kb"].append(r["rss_kb"])
    res["median_s"] = statistics.median(res["walls"])
    res["min_s"] = min(res["walls"])
    res["max_s"] = max(res["walls"])
    res["peak_rss_kb"] = max(res["rss_kb"])
    if parse and all(res["extra"]):
        keys = res["extra"][0].keys()
        res["inproc_median_s"] = {k: statistics.median(e[k] for e in res["extra"]) for k in keys}
    sys.stderr.write("  [%s] median %.4fs  peak RSS %.1f MB  (%d runs)\n" % (
        label, res["median_s"], res["peak_rss_kb"] / 1024.0, runs))
    return res


def fmt_s(x):
    if x is None:
        return "-"
    return "%.1f ms" % (x * 1e3) if x < 1 else "%.2f s" % x


def fmt_mb(kb):
    return "-" if kb is None else "%.1f MB" % (kb / 1024.0)


def fmt_ratio(a, b):
    if a is None or b is None or b == 0:
        return "-"
    return "%.1fx" % (a / b)


def table(rows):
    hdr = ["model", "file size", "nnscan median", "nnscan RSS", "summary median",
           "summary RSS", "python median", "py load+infer", "python RSS", "time py/nn",
           "RSS py/nn"]
    out = [hdr]
    for r in rows:
        nn, py, su = r.get("nnscan"), r.get("python"), r.get("summary")
        su_ok = su is not None and su["ok"]
        nn_ok = nn is not None and nn["ok"]
        py_ok = py is not None and py["ok"]
        nn_t = nn["median_s"] if nn_ok else None
        py_t = py["median_s"] if py_ok else None
        nn_m = nn["peak_rss_kb"] if nn_ok else None
        py_m = py["peak_rss_kb"] if py_ok else None
        inproc = None
        if py_ok and "inproc_median_s" in py:
            inproc = py["inproc_median_s"]["load"] + py["inproc_median_s"]["infer"]
        out.append([
            r["name"],
            "%.1f MB" % (r["size"] / 1e6),
            ("FAILED" if nn is not None else "skipped") if not nn_ok else fmt_s(nn_t),
            fmt_mb(nn_m),
            ("FAILED" if su is not None else "skipped") if not su_ok else fmt_s(su["median_s"]),
            fmt_mb(su["peak_rss_kb"] if su_ok else None),
            ("FAILED" if py is not None else "skipped") if not py_ok else fmt_s(py_t),
            fmt_s(inproc),
            fmt_mb(py_m),
            fmt_ratio(py_t, nn_t),
            fmt_ratio(py_m, nn_m),
        ])
    widths = [max(len(row[i]) for row in out) for i in range(len(hdr))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |" for row in out]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nnscan", default="build-bench/nnscan", help="nnscan binary")
    ap.add_argument("--python", default="/usr/bin/python3",
                    help="python with the onnx package (reference side)")
    ap.add_argument("--models-dir", default=os.path.join(HERE, "models"))
    ap.add_argument("--only", action="append",
                    help="model name (resnet50, llama7b, graph100k) or file name; repeatable")
    ap.add_argument("--nnscan-runs", type=int, default=11)
    ap.add_argument("--python-runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1, help="untimed runs first (page cache)")
    ap.add_argument("--no-nnscan", action="store_true")
    ap.add_argument("--no-python", action="store_true")
    ap.add_argument("--results-dir", default=os.path.join(HERE, "results"),
                    help="where results.json/.md go ('' to not write)")
    args = ap.parse_args(argv)

    selected = MODELS
    if args.only:
        want = set(args.only)
        selected = [(n, f) for n, f in MODELS
                    if n in want or f in want or os.path.splitext(f)[0] in want]
        unknown = want - {x for n, f in selected for x in (n, f, os.path.splitext(f)[0])}
        if unknown:
            ap.error("unknown model(s): %s" % ", ".join(sorted(unknown)))

    use_time = have_gnu_time()
    if not use_time:
        sys.stderr.write("note: %s not found (apt-get install time); using os.wait4 "
                         "rusage for peak RSS (has a floor of ~this script's RSS)\n" % TIME_BIN)

    # process-spawn floor of this measuring method (for context on tiny times)
    floor = statistics.median(run_once(["true"], False)["wall"] for _ in range(21))
    sys.stderr.write("spawn floor (`true` via this harness): %.2f ms\n" % (floor * 1e3))

    rows = []
    for name, fname in selected:
        path = os.path.join(args.models_dir, fname)
        if not os.path.exists(path):
            sys.stderr.write("[%s] missing %s (run bench/gen_models.py)\n" % (name, path))
            continue
        row = {"name": name, "file": path, "size": os.path.getsize(path)}
        sys.stderr.write("[%s] %s (%.1f MB)\n" % (name, path, row["size"] / 1e6))
        if not args.no_nnscan:
            cmd = [args.nnscan, "shapes", path, "--format", "json"]
            row["nnscan"] = measure("nnscan", cmd, args.nnscan_runs, args.warmup, use_time)
            # The whole analysis (issue 3): costs, parameters, tree, memory,
            # receptive field, rendered as JSON.
            cmd = [args.nnscan, "summary", path, "--format", "json"]
            row["summary"] = measure("summary", cmd, args.nnscan_runs, args.warmup,
                                     use_time)
        if not args.no_python:
            cmd = [args.python, "-c", PY_SNIPPET, path]
            row["python"] = measure("python", cmd, args.python_runs, args.warmup,
                                    use_time, parse=parse_inproc)
        rows.append(row)

    md = table(rows)
    note = ("medians of wall time per fresh process (spawn floor %.2f ms); RSS = max over runs;\n"
          "'py load+infer' is measured inside the child and excludes interpreter start-up "
          "and 'import onnx'." % (floor * 1e3))
    print()
    print(md)
    print()
    print(note)

    if args.results_dir:
        os.makedirs(args.results_dir, exist_ok=True)
        meta = {
            "date": datetime.datetime.now().isoformat(timespec="seconds"),
            "host": platform.node(),
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
            "rss_source": "/usr/bin/time %M" if use_time else "os.wait4 ru_maxrss",
            "nnscan_runs": args.nnscan_runs,
            "python_runs": args.python_runs,
            "warmup": args.warmup,
            "spawn_floor_s": floor,
        }
        with open(os.path.join(args.results_dir, "results.json"), "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=2)
        with open(os.path.join(args.results_dir, "results.md"), "w") as f:
            f.write("# nnscan benchmark (%s, %s)\n\n%s\n\n%s\n" % (
                meta["date"], meta["platform"], md, note))
        sys.stderr.write("results written to %s/results.{json,md}\n" % args.results_dir)

    nn_failed = any((r.get("nnscan") and not r["nnscan"]["ok"]) or
                    (r.get("summary") and not r["summary"]["ok"]) for r in rows)
    py_failed = any(r.get("python") and not r["python"]["ok"] for r in rows)
    return 1 if (nn_failed or py_failed) else 0


if __name__ == "__main__":
    sys.exit(main())
