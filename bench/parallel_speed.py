#!/usr/bin/python3
"""What the per-rank what-if (issue 43) costs beside a plain training
summary, medians of N runs taking turns in one process.

    NNSCAN_LIBRARY=build/gcc/libnnscan.so python3 bench/parallel_speed.py
    ... --runs 5 --tokens 512 --layers 8 --json out.json
                                         (PyTorch 2.x, transformers)

LLaMA-3-8B's shapes (hidden 4096, intermediate 14336, 32 heads, 8 key/value
heads, vocab 128256; --layers of its 32 decoder blocks) built on the meta
device, batch 1: nnscan.summary(training=True, optimizer="adamw"), then
the same with parallel={"fsdp": 8} and with parallel={"fsdp": 8, "tp": 2}
(the model's base_model_tp_plan: a meta copy holding rank 0's shards is
recorded). Goal: each what-if <= 1.5x the plain training summary. CPU
time of this process (the machine may be shared; wall time is printed
too).
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

from recording_speed import LLAMA3_8B, timed_turns  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tokens", type=int, default=512)
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--json")
    a = ap.parse_args()
    import torch
    import nnscan
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.set_num_threads(2)
    c = LLAMA3_8B
    cfg = LlamaConfig(hidden_size=c["hidden"], intermediate_size=c["inter"],
                      num_hidden_layers=a.layers,
                      num_attention_heads=c["heads"],
                      num_key_value_heads=c["kv_heads"], vocab_size=c["vocab"],
                      max_position_embeddings=8192, rope_theta=500000.0,
                      use_cache=False)
    with torch.device("meta"):
        model = LlamaForCausalLM(cfg)
    ids = {"input_ids": torch.zeros(1, a.tokens, dtype=torch.long)}

    def run(parallel=None):
        return lambda: nnscan.summary(model, inputs=ids, training=True,
                                      optimizer="adamw", parallel=parallel,
                                      file=False)
    t = timed_turns({"training": run(), "fsdp8": run({"fsdp": 8}),
                     "fsdp8_tp2": run({"fsdp": 8, "tp": 2})}, a.runs)
    base = t["training"]["cpu_s"]
    out = {"torch": torch.__version__, "tokens": a.tokens,
           "layers": a.layers, "times": t,
           "ratio_cpu": {k: v["cpu_s"] / base for k, v in t.items()}}
    for k, v in t.items():
        print(f"{k:10s} cpu {v['cpu_s']:.3f} s (wall {v['wall_s']:.3f} s) "
              f"{v['cpu_s'] / base:.2f}x the training summary (goal <= 1.5x)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
