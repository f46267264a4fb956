"""Exports models with torch.export and compares `nnscan summary` of the
.pt2 (the C reader) with nnscan.summary of the live model: params, MACs,
FLOPs, and what is left uncounted. A survey, not a test:

    /work/sidrun . 'PYTHONPATH=python python3 tools/pt2_sweep.py DIR [NAME...]'

NAME is a torchvision classifier (its constructor's name, random
weights) or "hf-llama" / "hf-gpt2" / "hf-qwen2" (transformers, tiny
configs). Needs PyTorch 2.x; NNSCAN_LIBRARY's folder holds the CLI.
"""
import json
import os
import subprocess
import sys

import torch

import nnscan

TV = ["resnet18", "mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0",
      "squeezenet1_0", "shufflenet_v2_x0_5", "densenet121", "convnext_tiny",
      "regnet_y_400mf", "vit_b_16", "alexnet", "vgg11"]


def hf(name):
    import transformers as t
    if name == "hf-llama":
        cfg = t.LlamaConfig(vocab_size=128, hidden_size=64,
                            intermediate_size=128, num_hidden_layers=2,
                            num_attention_heads=4, num_key_value_heads=4)
        m = t.LlamaForCausalLM(cfg)
    elif name == "hf-qwen2":
        cfg = t.Qwen2Config(vocab_size=128, hidden_size=64,
                            intermediate_size=128, num_hidden_layers=2,
                            num_attention_heads=4, num_key_value_heads=2)
        m = t.Qwen2ForCausalLM(cfg)
    else:
        cfg = t.GPT2Config(vocab_size=128, n_embd=64, n_layer=2, n_head=4)
        m = t.GPT2LMHeadModel(cfg)
    m.config.use_cache = False
    return m.eval(), (torch.randint(0, 128, (1, 16)),)


def model(name):
    if name.startswith("hf-"):
        return hf(name)
    import torchvision
    m = getattr(torchvision.models, name)(weights=None).eval()
    return m, (torch.randn(1, 3, 224, 224),)


def main():
    out = sys.argv[1]
    names = sys.argv[2:] or TV + ["hf-llama", "hf-gpt2", "hf-qwen2"]
    exe = os.path.join(os.path.dirname(os.environ["NNSCAN_LIBRARY"]),
                       "nnscan")
    os.makedirs(out, exist_ok=True)
    for name in names:
        try:
            m, args = model(name)
            path = os.path.join(out, name + ".pt2")
            with torch.no_grad():
                ep = torch.export.export(m, args)
            torch.export.save(ep, path)
            live = nnscan.summary(m, inputs=args, file=False).totals
            r = subprocess.run([exe, "summary", path, "--format", "json"],
                               capture_output=True, text=True)
            if r.returncode:
                print(f"{name:20s} CLI FAILED: {r.stderr.strip()}")
                continue
            doc = json.loads(r.stdout)
            t = doc["totals"]
            same = all(t[k] == live[k] for k in ("params", "macs", "flops"))
            unc = [(u["op_type"], u["nodes"]) for u in doc["uncounted_ops"]]
            print(f"{name:20s} {'SAME' if same else 'DIFF'} params "
                  f"{t['params']}/{live['params']} macs {t['macs']}/"
                  f"{live['macs']} flops {t['flops']}/{live['flops']} "
                  f"uncounted {unc}", flush=True)
        except Exception as e:  # noqa: BLE001 - a survey goes on
            print(f"{name:20s} ERROR {type(e).__name__}: {str(e)[:200]}",
                  flush=True)


if __name__ == "__main__":
    main()
