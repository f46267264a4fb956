"""crawl_module's parameter and buffer columns come from the library
(nns_model_module_held) and equal what PyTorch itself counts: every tensor
a module registers, used by the forward or not, tied ones under each module
that holds them and once in the model's total."""
import pytest
import torch
from torch import nn

import nnscan


class Tied(nn.Module):
    """A tied head, an unused parameter, a frozen bf16 one, BatchNorm's
    int64 counter and a non-persistent buffer."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 6)
        self.norm = nn.BatchNorm1d(6)
        self.head = nn.Linear(6, 10, bias=False)
        self.head.weight = self.embed.weight
        self.unused = nn.Parameter(torch.zeros(3, 5))
        self.frozen = nn.Parameter(torch.ones(7, dtype=torch.bfloat16),
                                   requires_grad=False)
        self.register_buffer("scratch", torch.zeros(4, 4), persistent=False)
        self.alias = self.norm  # the same module under two paths

    def forward(self, ids):
        x = self.embed(ids)
        x = self.norm(x.transpose(1, 2)).transpose(1, 2)
        return self.head(x) + self.frozen.float().sum()


def torch_held(m, recurse):
    """PyTorch's own sums over the module's parameters() and buffers()."""
    params = list(m.parameters(recurse=recurse))
    bufs = list(m.buffers(recurse=recurse))
    return {
        "grad_params": sum(p.numel() for p in params if p.requires_grad),
        "nograd_params": sum(p.numel() for p in params
                             if not p.requires_grad),
        "param_size": sum(p.numel() * p.element_size() for p in params),
        "num_buffers": sum(b.numel() for b in bufs),
        "buffer_size": sum(b.numel() * b.element_size() for b in bufs),
    }


KEYS = ("grad_params", "nograd_params", "param_size", "num_buffers",
        "buffer_size")


@pytest.mark.parametrize("method", ["record", "onnx"])
def test_rows_and_total_are_pytorchs(method):
    torch.manual_seed(0)
    model = Tied().eval()
    info = nnscan.crawl_module(model, inputs=(torch.tensor([[1, 2, 3]]),),
                               method=method)
    rows = {}
    for path, m in model.named_modules():
        rows[path] = m
    assert len(info["layers"]) == len(rows)
    for row, (path, m) in zip(info["layers"], rows.items()):
        leaf = not any(True for _ in m.children())
        want = torch_held(m, recurse=leaf)
        assert {k: row[k] for k in KEYS} == want, path
    whole = torch_held(model, recurse=True)
    assert {k: info["overall"][k] for k in KEYS} == whole
    # by hand: 60 tied + 12 BatchNorm + 15 unused trainable, 7 frozen
    assert whole["grad_params"] == 60 + 12 + 15
    assert whole["nograd_params"] == 7
    # the tied weight under both of its modules
    head = next(r for r in info["layers"] if r["name"] == "head")
    assert head["grad_params"] == 60


def test_meta_model():
    model = Tied().to("meta").eval()
    info = nnscan.crawl_module(model, inputs=(torch.tensor([[1, 2, 3]]),))
    assert {k: info["overall"][k] for k in KEYS} == \
        torch_held(model, recurse=True)
