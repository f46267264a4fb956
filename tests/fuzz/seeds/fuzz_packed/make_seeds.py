#!/usr/bin/python3
"""Writes the seed corpus of tests/fuzz/fuzz_packed.c: small models recorded
by the Python package and packed as nnscan.graph.pack() hands them to
nns_builder_add_packed (records 26-28, each module's calls, boundary
shapes and tensors, and records 31, the sizes PyTorch gave each value),
with the numbering left to the library (deferred_*: record 32): a CNN
block, an attention block, one reading plain attributes first after its
calls made their shapes, sliced, twice in one call and by a declined
call, and a stack of alike blocks whose later blocks are replay records
(33).

cnn.nnsp, mlp.nnsp (a shared weight), attention.nnsp, kernels.nnsp (a
gated MLP whose SiLU and max are kernels: packed record 25) and
modules.nnsp (a tied head with an unused parameter and a buffer) were
recorded by this script through the recorder's Python rules
(NNSCAN_TAPE_NUMBERED=0: a packed graph with no deferred numbering)
before session 107 removed them (ops_map.py); they are kept, as inputs
the fuzzer still reads, and this script no longer writes them.

    NNSCAN_LIBRARY=build/libnnscan.so /usr/bin/python3 tests/fuzz/seeds/fuzz_packed/make_seeds.py
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "python"))

import torch  # noqa: E402
from torch import nn  # noqa: E402

from nnscan import graph, recorder  # noqa: E402


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(8, 24)
        self.out = nn.Linear(8, 8)
        self.norm = nn.LayerNorm(8)

    def forward(self, x):
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        a = torch.softmax(q @ k.transpose(-1, -2) / 8 ** 0.5, dim=-1)
        return x + self.out(a @ v)


class GatedMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(8, 16)
        self.up = nn.Linear(8, 16)
        self.down = nn.Linear(16, 8)
        self.act = nn.SiLU()

    def forward(self, x):
        h = self.down(self.act(self.gate(x)) * self.up(x))
        return h, torch.max(h, dim=-1)


class Block(GatedMLP):
    """The gated MLP behind a norm, six modules: module_replay.py replays
    a stack's alike blocks."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(8)

    def forward(self, x):
        return x + super().forward(self.norm(x))[0]


class Outside(nn.Module):
    """Plain attributes (constants from outside) read first by calls whose
    lowering makes its shape first: numbered again where the node reads
    them under deferred numbering (front.c, fe_reading); sliced (a node
    reading four constants the lowering made first), read twice by one
    call, and rolled by a call the table declines."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.c = torch.full((8,), 0.5)
        self.d = torch.full((1, 8), 2.0)
        self.w = torch.full((8, 8), 0.125)

    def forward(self, x):
        h = self.lin(x) + self.c.view(1, 8) * self.d.expand(2, 8)
        return h + self.w[:, 1] + torch.cat([self.c, self.c])[4:12] + \
            torch.roll(self.c, 1)


def models():
    yield "cnn", nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4),
                               nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                               nn.Linear(4 * 4 * 4, 3)), torch.zeros(1, 3, 8, 8)
    yield "attention", Attention(), torch.zeros(1, 5, 8)
    yield "outside", Outside(), torch.zeros(2, 8)
    yield "stack", nn.Sequential(*[Block() for _ in range(4)]), \
        torch.zeros(2, 8)


def main():
    # the numbering left to the library (record 32, docs/tape.md "Numbers
    # the library gives"): the CNN, the attention block, the outside
    # constants and a stack of alike blocks (its later blocks packed as
    # replay records, record 33) so
    for name, m, x in models():
        rec = recorder.record_model(m.eval(), (x,))
        rec.graph.observed = rec.builder.shape_of  # records 31
        with open(os.path.join(HERE, "deferred_" + name + ".nnsp"),
                  "wb") as f:
            f.write(graph.pack(rec.graph))


if __name__ == "__main__":
    main()
