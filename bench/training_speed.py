#!/usr/bin/python3
"""How much summary(..., training=True) adds to a plain summary (issue 21),
medians of N runs in one process.

    NNSCAN_LIBRARY=build/libnnscan.so python3 bench/training_speed.py
    ... --runs 5 --tokens 2048 --json out.json    (PyTorch 2.x, transformers)

LLaMA-3-8B (hidden 4096, intermediate 14336, 32 layers, 32 heads, 8
key/value heads, vocab 128256; transformers' LlamaForCausalLM) built on
the meta device, batch 1: nnscan.summary plain, then with training=True
(optimizer AdamW: the recording, plus one training step on meta - forward,
backward, optimizer step - and the library's step analysis). Goal: the
training summary <= 2x the plain one. CPU time of this process (the
machine may be shared; wall time is printed too).
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

from recording_speed import LLAMA3_8B, timed  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tokens", type=int, default=2048)
    ap.add_argument("--json")
    a = ap.parse_args()
    import torch
    import nnscan
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.set_num_threads(2)
    c = LLAMA3_8B
    cfg = LlamaConfig(hidden_size=c["hidden"], intermediate_size=c["inter"],
                      num_hidden_layers=c["layers"],
                      num_attention_heads=c["heads"],
                      num_key_value_heads=c["kv_heads"], vocab_size=c["vocab"],
                      max_position_embeddings=8192, rope_theta=500000.0,
                      use_cache=False)
    with torch.device("meta"):
        model = LlamaForCausalLM(cfg)
    ids = torch.zeros(1, a.tokens, dtype=torch.long)
    plain = timed(lambda: nnscan.summary(model, inputs={"input_ids": ids},
                                         file=False), a.runs)
    training = timed(lambda: nnscan.summary(
        model, inputs={"input_ids": ids}, training=True, optimizer="adamw",
        file=False), a.runs)
    s = nnscan.summary(model, inputs={"input_ids": ids}, training=True,
                       optimizer="adamw", file=False)
    ratio = training["cpu_s"] / plain["cpu_s"]
    out = {"torch": torch.__version__, "tokens": a.tokens, "plain": plain,
           "training": training, "ratio_cpu": ratio,
           "train_peak_bytes": s.totals["train_peak_bytes"],
           "saved_bytes": s.totals["saved_bytes"],
           "peak_at": s.totals["training"]["peak_at"]}
    print(f"llama3_8b {a.tokens} tokens: summary cpu {plain['cpu_s']:.3f} s "
          f"(wall {plain['wall_s']:.3f}), training=True cpu "
          f"{training['cpu_s']:.3f} s (wall {training['wall_s']:.3f}): "
          f"{ratio:.2f}x (goal <= 2x); peak "
          f"{s.totals['train_peak_bytes'] / 2**30:.1f} GiB at "
          f"{s.totals['training']['peak_at']}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
