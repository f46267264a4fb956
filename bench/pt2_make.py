#!/usr/bin/env python3
"""Writes the .pt2 archives bench/pt2_summary.py times, with PyTorch 2.x
(the sid chroot: /work/sidrun . 'python3 bench/pt2_make.py DIR'):

  resnet50.pt2   torchvision's resnet50 (random weights), batch 1, 224x224
  llama7b.pt2    python/tests/tiny_llama.py at LLaMA-7B's shapes (32
                 layers, hidden 4096), built on the meta device, batch 1,
                 sequence 128: the graph and sizes of a 7B model with no
                 weight written (torch.export.save skips meta storage)
"""
import os
import sys

import torch

out = sys.argv[1] if len(sys.argv) > 1 else "build/bench-pt2"
os.makedirs(out, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "python", "tests"))

import torchvision  # noqa: E402
import tiny_llama  # noqa: E402

m = torchvision.models.resnet50(weights=None).eval()
ep = torch.export.export(m, (torch.randn(1, 3, 224, 224),))
torch.export.save(ep, os.path.join(out, "resnet50.pt2"))

m = tiny_llama.LlamaForCausalLM(device="meta").eval()
ids = torch.zeros(1, 128, dtype=torch.long, device="meta")
ep = torch.export.export(m, (ids,))
torch.export.save(ep, os.path.join(out, "llama7b.pt2"))
print("wrote", out)
