"""tools/tape_diff.py: the (op, form)s of tape_agree.txt still lower to
the same nodes and counts through their ops_map.py rule and through the C
aten table (docs/tape.md, "Where the two lowerings differ"), and the tool
finds a difference where one is planted. The list only grows."""
import os
import sys

import pytest
import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))

import tape_diff  # noqa: E402
import tiny_llama  # noqa: E402


def _allowed():
    with open(os.path.join(HERE, "tape_agree.txt")) as f:
        return {line.strip() for line in f
                if line.strip() and not line.startswith("#")}


def _small_cnn():
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
        nn.MaxPool2d(2), nn.Conv2d(8, 8, 3, groups=2), nn.Hardswish(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4),
        nn.Softmax(-1)).eval()


def _llama():
    torch.manual_seed(0)
    m = tiny_llama.LlamaForCausalLM(layers=1, hidden=32, inter=64, heads=4,
                                    vocab=64).eval()
    return m, (torch.randint(0, 64, (1, 8)),)


@pytest.fixture(scope="module")
def rows():
    out = tape_diff.diff_calls(_small_cnn(), (torch.randn(1, 3, 16, 16),))
    m, a = _llama()
    out += tape_diff.diff_calls(m, a)
    return out


def test_allowlisted_forms_still_agree(rows):
    allowed = _allowed()
    seen = 0
    bad = []
    for e in tape_diff.tally(rows):
        key = f"{e['op']} {e['form']}"
        if key in allowed:
            seen += 1
            if e["agree"] != e["calls"]:
                bad.append(f"{key}: {e['diff']}")
    assert not bad, "\n".join(bad)
    assert seen >= 5  # the sample still reaches the list


def test_no_tool_error(rows):
    errs = [f"{r['form']}: {r.get('diff')}" for r in rows
            if r["status"] == "tool_error"]
    assert not errs, "\n".join(errs[:5])


def test_planted_difference_is_found():
    def sigmoid(b, args, kwargs, out):
        b.node("Sigmoid", [b.inp(args[0])], [out])

    m = nn.Sequential(nn.Linear(4, 4), nn.ReLU()).eval()
    rows = tape_diff.diff_calls(m, (torch.randn(2, 4),),
                                rules={"relu": sigmoid})
    relu = [r for r in rows if r["op"] == "relu"]
    assert relu and all(r["status"] == "differ" for r in relu)
    assert "Sigmoid" in relu[0]["diff"] and "Relu" in relu[0]["diff"]
