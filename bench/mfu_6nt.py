"""How nnscan's model_flops for one training step of a LLaMA compares
with the hand formulas trainers use for MFU (docs/metrics.md, "MFU and
throughput"): 6.N.T with N every parameter, 6.N.T with N the parameters
that multiply (no embedding table), and PaLM's 6.N.T + 12.L.H.Q.T^2 per
sequence (dense attention).

The model is LLaMA-2-7B's shape (hidden 4096, 32 layers, 32 heads of
128, MLP 11008, vocabulary 32000), built on meta from its config (no
weights), batch 1, causal mask (the model's own), recorded forward and
backward by nnscan.step.record_flops. Runs on PyTorch 2.x with
transformers (the sid chroot: tests/sid_chroot.sh).

    python3 bench/mfu_6nt.py [--layers 32] [--seqs 512,2048,8192,32768]
"""
import argparse
import time

import torch
import transformers

from nnscan import step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=32)
    ap.add_argument("--seqs", default="512,2048,8192,32768")
    a = ap.parse_args()
    cfg = transformers.LlamaConfig(
        vocab_size=32000, hidden_size=4096, intermediate_size=11008,
        num_hidden_layers=a.layers, num_attention_heads=32,
        num_key_value_heads=32, max_position_embeddings=65536,
        attn_implementation="sdpa")
    with torch.device("meta"):
        model = transformers.LlamaForCausalLM(cfg)
    model.train()
    n_all = sum(p.numel() for p in model.parameters())
    n_emb = model.model.embed_tokens.weight.numel()
    n_mul = n_all - n_emb  # lm_head multiplies; the table only looks up
    L, H, Q = a.layers, 32, 128
    print(f"LLaMA-2-7B shape, {L} layers: N = {n_all:,} parameters, "
          f"{n_mul:,} of them multiplying (embedding table {n_emb:,})")
    print(f"{'T':>6} {'model_flops/T':>14} {'dense/T':>14} {'6N/T':>14} "
          f"{'6N_mul/T':>14} {'PaLM/T':>14} {'6N err':>8} {'6Nmul err':>9}"
          f" {'PaLM err':>9} {'s':>6}")
    for T in [int(s) for s in a.seqs.split(",")]:
        ids = torch.zeros(1, T, dtype=torch.long, device="meta")
        t0 = time.perf_counter()
        f = step.flops_dict(step.record_flops(
            model, (), {"input_ids": ids, "labels": ids}))
        dt = time.perf_counter() - t0
        mf, dense = f["model_flops"] / T, f["model_flops_dense"] / T
        six, six_mul = 6 * n_all, 6 * n_mul
        palm = 6 * n_mul + 12 * L * H * Q * T
        err = lambda x: f"{100 * (x - mf) / mf:+.1f}%"  # noqa: E731
        print(f"{T:>6} {mf:>14.4g} {dense:>14.4g} {six:>14.4g} "
              f"{six_mul:>14.4g} {palm:>14.4g} {err(six):>8} "
              f"{err(six_mul):>9} {err(palm):>9} {dt:>6.1f}")


if __name__ == "__main__":
    main()
