#!/usr/bin/python3
"""Speed and memory of the Python binding's summary (issue 9), medians.

    NNSCAN_LIBRARY=build/dev/libnnscan.so /usr/bin/python3 bench/python_summary.py
    ... --runs 7 --only resnet50_cpu,llama7b_meta

Cases (each timed `--runs` times in this process after one warm-up; the
median is reported, with min and max):

  resnet50_cpu    nnscan.summary of a CPU torchvision ResNet-50 (3x224x224),
                  next to one eager forward pass of it under no_grad (the
                  floor of every hook-based tool) and torch.onnx.export of it
                  to memory (opset 17).
  resnet50_meta   the same model on the meta device: summary alone.
  llama7b_meta    a LLaMA-7B-shaped decoder (python/tests/tiny_llama.py)
                  built on the meta device, sequence 128: summary, and the
                  plain forward on meta (no weights exist: a real forward
                  or an export would need 25 GiB of float32 weights).
                  Peak RSS is measured in a fresh process that only imports
                  torch, builds the model on meta and runs one summary
                  (VmHWM, so it includes the interpreter and torch; the
                  figure before the summary is printed too).

Everything runs on this machine's CPUs with torch.set_num_threads(2); the
machine may be shared, so times are as measured under that load.
"""
import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))


def timed(fn, runs):
    """Wall and CPU time (this process, all threads) of fn, medians; CPU
    time depends less on what else the machine runs than wall time does."""
    fn()  # warm-up
    ts, cs = [], []
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        fn()
        ts.append(time.perf_counter() - t)
        cs.append(time.process_time() - c)
    return {"median_s": statistics.median(ts), "min_s": min(ts),
            "max_s": max(ts), "cpu_median_s": statistics.median(cs),
            "runs": runs}


def resnet50_cpu(runs):
    import torch
    import torchvision
    import nnscan
    torch.manual_seed(0)
    m = torchvision.models.resnet50().eval()
    x = torch.randn(1, 3, 224, 224)

    def forward():
        with torch.no_grad():
            m(x)

    def export():
        buf = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(m, (x,), buf, opset_version=17)
    return {"summary": timed(lambda: nnscan.summary(m, (3, 224, 224), file=False), runs),
            "eager_forward": timed(forward, runs),
            "onnx_export": timed(export, max(1, runs // 2))}


def resnet50_meta(runs):
    import torchvision
    import nnscan
    m = torchvision.models.resnet50().to("meta").eval()
    return {"summary": timed(lambda: nnscan.summary(m, (3, 224, 224), file=False), runs)}


LLAMA_RSS = """
import sys, torch
sys.path[:0] = {paths!r}
import nnscan, tiny_llama
m = tiny_llama.LlamaForCausalLM(device="meta")
def hwm():  # peak RSS of this process image (ru_maxrss survives exec)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
before = hwm()
s = nnscan.summary(m, inputs={{"input_ids": torch.zeros(1, 128, dtype=torch.long)}}, file=False)
assert s.totals["macs"] == tiny_llama.matmul_macs()
print(before, hwm())
"""


def llama7b_meta(runs):
    import torch
    import nnscan
    import tiny_llama
    m = tiny_llama.LlamaForCausalLM(device="meta")
    ids = torch.zeros(1, 128, dtype=torch.long)

    def forward():
        with torch.no_grad():
            m(ids)
    out = {"summary": timed(lambda: nnscan.summary(
        m, inputs={"input_ids": ids}, file=False), max(1, runs // 2)),
        "meta_forward": timed(forward, max(1, runs // 2))}
    code = LLAMA_RSS.format(paths=[os.path.join(ROOT, "python"),
                                   os.path.join(ROOT, "python", "tests")])
    res = subprocess.run([sys.executable, "-c", code], check=True,
                         capture_output=True, text=True, env=os.environ)
    before, peak = (int(v) for v in res.stdout.split())
    out["peak_rss_mib"] = peak / 1024
    out["rss_before_summary_mib"] = before / 1024
    return out


CASES = {"resnet50_cpu": resnet50_cpu, "resnet50_meta": resnet50_meta,
         "llama7b_meta": llama7b_meta}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default=",".join(CASES))
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    import torch
    torch.set_num_threads(2)
    results = {}
    for name in args.only.split(","):
        results[name] = CASES[name](args.runs)
        for what, v in results[name].items():
            if isinstance(v, dict):
                print(f"{name:14s} {what:14s} median {v['median_s'] * 1e3:9.1f} ms"
                      f"  (min {v['min_s'] * 1e3:.1f}, max {v['max_s'] * 1e3:.1f},"
                      f" cpu {v['cpu_median_s'] * 1e3:.1f}, {v['runs']} runs)",
                      flush=True)
            else:
                print(f"{name:14s} {what:14s} {v:9.1f} MiB", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
