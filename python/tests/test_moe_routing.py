"""A top-k and E modules near it do not make a mixture of experts (issue
47, item 2): experts are experts only when the router's indices select
among them. Dense models with a TopK beside a ModuleList (or E-leading
stacked weights) must count every parameter as active; the reference is
PyTorch's own sum(p.numel()). Routed models (tests/test_generate.py's
ListMoE and GroupedMoE, transformers' MoE in tests_hf) keep k of E."""
import warnings

import pytest
import torch
from torch import nn

import nnscan
from test_generate import Block, GroupedMoE, ListMoE


class TopClasses(nn.Module):
    """The issue's repro: 10 Linear heads in a ModuleList, summed, and the
    top 5 classes returned (1,100 parameters, all of them used)."""

    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleList(nn.Linear(10, 10) for _ in range(10))

    def forward(self, x):
        return sum(h(x) for h in self.heads).topk(5, dim=-1)


class HeadScores(nn.Module):
    """One score per head, concatenated (the axis of size 10 is the heads
    themselves), the top 5 heads' scores gathered after they all ran."""

    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleList(nn.Linear(10, 1) for _ in range(10))

    def forward(self, x):
        scores = torch.cat([h(x) for h in self.heads], -1)
        values, idx = scores.topk(5, dim=-1)
        return scores.gather(-1, idx) + values


class PooledHeads(nn.Module):
    """Top-k pooling feeds every head the same pooled features: the indices
    reach the heads, but do not choose among them."""

    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleList(nn.Linear(3, 2) for _ in range(4))

    def forward(self, x):  # x: (B, 4)
        _, idx = x.topk(3, dim=-1)
        pooled = x.gather(-1, idx)
        return torch.stack([h(pooled) for h in self.heads], 1)


class SoftExperts(nn.Module):
    """Every expert runs on every token, the top-k only weighs their
    outputs: dense compute, every parameter used per token."""

    def __init__(self, d=8, n=4, k=2):
        super().__init__()
        self.k = k
        self.gate = nn.Linear(d, n, bias=False)
        self.experts = nn.ModuleList(nn.Linear(d, d) for _ in range(n))

    def forward(self, x):
        w, idx = self.gate(x).topk(self.k, dim=-1)
        outs = torch.stack([e(x) for e in self.experts], -2)  # (T, n, d)
        mask = torch.zeros_like(self.gate(x)).scatter(-1, idx, w.softmax(-1))
        return (outs * mask.unsqueeze(-1)).sum(-2)


class StackedHeads(nn.Module):
    """Heads as one (E, d, c) weight, all applied, top classes picked after:
    the stacked weights never meet the indices."""

    def __init__(self, e=6, d=8, c=6):
        super().__init__()
        self.heads = nn.Module()
        self.heads.w = nn.Parameter(torch.randn(e, d, c))

    def forward(self, x):  # (T, d) -> (T, e, c) -> top 2 of the e heads
        y = torch.einsum("td,edc->tec", x, self.heads.w).sum(-1)
        return y.topk(2, dim=-1)


DENSE = [(TopClasses, (2, 10)), (HeadScores, (2, 10)), (PooledHeads, (2, 4)),
         (SoftExperts, (5, 8)), (StackedHeads, (3, 8))]


@pytest.mark.parametrize("cls,shape", DENSE,
                         ids=[c.__name__ for c, _ in DENSE])
def test_dense_model_with_topk_is_dense(cls, shape):
    torch.manual_seed(0)
    model = cls()
    total = sum(p.numel() for p in model.parameters())
    s = nnscan.summary(model, inputs=torch.randn(*shape), file=False)
    assert s.totals["params"] == total
    assert s.totals["params_active"] == total
    assert s.v2["totals"]["params_active"] == total
    assert "Active params" not in s.to_text()


def test_issue_repro_counts_1100_of_1100():
    s = nnscan.summary(TopClasses(), inputs=torch.randn(2, 10), file=False)
    assert (s.totals["params"], s.totals["params_active"]) == (1100, 1100)


@pytest.mark.parametrize("cls", [ListMoE, GroupedMoE])
def test_routed_experts_still_count_k_of_e(cls):
    """The same routing the dense models lack, k=1 of n=4 this time."""
    torch.manual_seed(0)
    block = Block(cls(n=4, k=1))
    total = sum(p.numel() for p in block.parameters())
    experts = sum(p.numel() for p in block.moe.experts.parameters())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ListMoE runs on the CPU
        s = nnscan.summary(block, inputs=torch.randn(1, 6, 8), file=False)
    assert s.totals["params_active"] == total - experts + experts // 4
