#!/usr/bin/python3
"""A decode step of LLaMA-3-8B on the meta device (issue 20 item 4):
what nnscan.profile_generate reports for it, and how long recording it
takes, medians of N runs in one process (PyTorch 2.x, transformers).

    NNSCAN_LIBRARY=build/libnnscan.so python3 bench/decode_step.py
    ... --past 2048 --runs 5 --json out.json

The model: hidden 4096, intermediate 14336, 32 layers, 32 heads, 8
key/value heads, vocab 128256, bfloat16 (as the released weights), built
on meta from its config (no weight allocated). Measured:

  decode_step   one decode step (batch 1, one new token, a cache of
                --past tokens) recorded and analysed: the wall time of
                nnscan.profile_generate(..., max_new_tokens=2, steps=[0])
                minus nothing (it also records the prefill: the prompt is
                --prompt tokens, 16 by default, so the prefill is small);
  step_only     the decode step alone, through the same call the profile
                makes per step (torch_api.analyze_module with the step's
                `call`).

Printed with the step's numbers (FLOPs, MACs, weight bytes read, KV-cache
bytes read / written / after) and the closed form of the cache,
2 * layers * kv_heads * head_dim * tokens * 2 bytes, next to them.
"""
import argparse
import json
import statistics
import sys
import time

LLAMA3_8B = dict(hidden=4096, inter=14336, layers=32, heads=32, kv_heads=8,
                 vocab=128256)


def timed(fn, runs):
    fn()  # warm-up
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return {"median_s": statistics.median(times), "runs": times}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--past", type=int, default=2048)
    ap.add_argument("--prompt", type=int, default=16)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json")
    a = ap.parse_args()
    import torch
    import nnscan
    from nnscan import generate, torch_api
    from transformers import LlamaConfig, LlamaForCausalLM
    c = LLAMA3_8B
    cfg = LlamaConfig(hidden_size=c["hidden"], intermediate_size=c["inter"],
                      num_hidden_layers=c["layers"],
                      num_attention_heads=c["heads"],
                      num_key_value_heads=c["kv_heads"], vocab_size=c["vocab"],
                      max_position_embeddings=8192, rope_theta=500000.0)
    with torch.device("meta"):
        model = LlamaForCausalLM(cfg).to(torch.bfloat16).eval()
    head_dim = c["hidden"] // c["heads"]
    entry = 2 * c["layers"] * c["kv_heads"] * head_dim * 2  # bf16

    # the step itself: a cache of --past tokens, one new token
    kw = {"input_ids": torch.zeros(1, 1, dtype=torch.long)}
    for layer in range(c["layers"]):
        for part in ("key", "value"):
            kw[f"past_key_values.{layer}.{part}"] = torch.zeros(
                1, c["kv_heads"], a.past, head_dim, dtype=torch.bfloat16,
                device="meta")
    call = generate._call(generate.hf_step)
    last = {}

    def step():
        last["s"] = torch_api.analyze_module(model, (), kw, call=call)
    step_only = timed(step, a.runs)
    t = dict(last["s"].totals)
    # the JSON leaves weight_bytes_read out where it is param_bytes
    t.setdefault("weight_bytes_read", t["param_bytes"])

    # the same step inside profile_generate (its prefill included)
    prompt = torch.zeros(1, a.prompt, dtype=torch.long)
    past_at = a.past - a.prompt

    def profile():
        last["p"] = nnscan.profile_generate(model, inputs=prompt,
                                            max_new_tokens=past_at + 2,
                                            steps=[past_at])
    # recording steps 0 and past_at (the first and last are always kept)
    whole = timed(profile, a.runs)
    row = next(r for r in last["p"].steps if r["past"] == a.past)

    out = {
        "model": "LLaMA-3-8B config, meta, bfloat16",
        "past": a.past,
        "step": {k: t.get(k) for k in ("flops", "macs", "macs_unmasked",
                                       "param_bytes", "weight_bytes_read",
                                       "kv_cache_bytes_read",
                                       "kv_cache_bytes_written",
                                       "kv_cache_bytes")},
        "closed_form_kv_cache_bytes_read": entry * a.past,
        "closed_form_kv_cache_bytes": entry * (a.past + 1),
        "profile_row_matches_step": all(row[k] == t.get(k) for k in
                                        ("flops", "macs",
                                         "kv_cache_bytes_read",
                                         "kv_cache_bytes")),
        "step_only": step_only,
        "profile_generate_prefill_and_2_steps": whole,
        "torch": torch.__version__,
        "python": sys.version.split()[0],
    }
    for k, v in out["step"].items():
        print(f"{k:24s} {v}")
    print(f"{'closed form KV read':24s} {out['closed_form_kv_cache_bytes_read']}")
    print(f"{'closed form KV after':24s} {out['closed_form_kv_cache_bytes']}")
    print(f"profile row == step: {out['profile_row_matches_step']}")
    print(f"decode step (record + analyse), median of {a.runs}: "
          f"{step_only['median_s']:.3f} s")
    print(f"profile_generate (prefill {a.prompt} tokens + decode steps at "
          f"past {a.prompt} and {a.past}), median of {a.runs}: "
          f"{whole['median_s']:.3f} s")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
