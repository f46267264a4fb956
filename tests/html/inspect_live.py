"""Writes the HTML page of a real inspection: nnscan.Inspector (through
libnnscan's nns_inspection_report, NNS_FORMAT_HTML) on a small model whose
block makes a NaN in its own code, two passes with backward, static
counts from static_inputs= and the roofline on h100-sxm (hardware=).
With --gpt2, a GPT-2-shaped model instead: its blocks in a ModuleList
(transformer.h) that is never called itself (issue 41). test_html.py
opens both.

    NNSCAN_LIBRARY=libnnscan.so inspect_live.py [--gpt2] OUT.html
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
import torch  # noqa: E402
from torch import nn  # noqa: E402

import nnscan  # noqa: E402


class Block(nn.Module):
    """Makes a NaN in its own code, between its children (issue 17): the
    log of fc's negative outputs; norm only passes it on."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)
        self.norm = nn.LayerNorm(16)

    def forward(self, x):
        h = torch.log(self.fc(x))
        return self.norm(h)


class Attn(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.c_attn, self.c_proj = nn.Linear(d, 3 * d), nn.Linear(d, d)

    def forward(self, x):
        q, k, v = self.c_attn(x).chunk(3, -1)
        a = torch.softmax(q @ k.transpose(-1, -2) / 8, -1)
        return self.c_proj(a @ v)


class GPT2Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln_1, self.attn = nn.LayerNorm(d), Attn(d)
        self.ln_2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT2Model(nn.Module):
    """transformers' GPT2Model's layout: the blocks in `h`, a ModuleList
    the forward iterates over without calling."""

    def __init__(self, d=64, layers=2, vocab=100):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(64, d)
        self.drop = nn.Dropout(0.0)
        self.h = nn.ModuleList(GPT2Block(d) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)

    def forward(self, ids):
        x = self.drop(self.wte(ids) + self.wpe(torch.arange(ids.shape[1])))
        for block in self.h:
            x = block(x)
        return self.ln_f(x)


class GPT2LMHeadModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer = GPT2Model()
        self.lm_head = nn.Linear(64, 100, bias=False)

    def forward(self, ids):
        return self.lm_head(self.transformer(ids))


def gpt2(out):
    torch.manual_seed(0)
    model, ids = GPT2LMHeadModel(), torch.randint(0, 100, (2, 16))
    with nnscan.Inspector(model, static_inputs=ids) as insp:
        for _ in range(2):
            model(ids).sum().backward()
    with open(out, "w", encoding="utf-8") as f:
        f.write(insp.to_html())


def main(out):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Flatten(), nn.Linear(72, 16),
                          Block(), nn.Linear(16, 4))
    x = torch.randn(3, 3, 8, 8)
    with nnscan.Inspector(model, static_inputs=x, hardware="h100-sxm") as insp:
        for _ in range(2):
            model(x).sum().backward()
    with open(out, "w", encoding="utf-8") as f:
        f.write(insp.to_html())


if __name__ == "__main__":
    if sys.argv[1] == "--gpt2":
        gpt2(sys.argv[2])
    else:
        main(sys.argv[1])
