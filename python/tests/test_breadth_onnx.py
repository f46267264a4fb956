"""Parameters from torch.onnx exports of breadth models are PyTorch's.

The graphs and PyTorch's own counts (sum(p.numel()) over the parameters,
sum(b.numel()) over the float buffers) come from
tools/make_breadth_models.py (torch 1.13); nothing here is nnscan's output.
The exporter writes literals of its own into these graphs as Constant
nodes (RNN zero states, GroupNorm's ones/zeros, a detector's mean/std and
anchors): they are not parameters. The detector's RPN objectness head feeds
only TopK/NMS in the eval graph: it is one.
"""
import json
import os

import pytest

import nnscan
from conftest import ROOT

BREADTH = os.path.join(ROOT, "tests", "fixtures", "breadth")
with open(os.path.join(BREADTH, "breadth.expect.json")) as f:
    EXPECT = json.load(f)


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_params_are_pytorchs(name):
    s = nnscan.analyze(os.path.join(BREADTH, name))
    assert s.totals["params"] == EXPECT[name]["params"]
    assert s.totals["buffers"] == EXPECT[name]["buffers"]
    # no exporter literal is listed as a parameter or buffer
    listed = [p["name"] for p in s.json["parameters"]
              if p["kind"] in ("trainable", "buffer")]
    assert not [n for n in listed if "/Constant" in n]


def test_rpn_objectness_head_is_trainable():
    s = nnscan.analyze(os.path.join(BREADTH,
                                    "fasterrcnn_mobilenet_v3_large_320_fpn.onnx"))
    kinds = {p["name"]: p["kind"] for p in s.json["parameters"]}
    # a 1x1 conv from 256 FPN channels to 15 anchors (5 sizes x 3 ratios)
    assert kinds["rpn.head.cls_logits.weight"] == "trainable"
    assert kinds["rpn.head.cls_logits.bias"] == "trainable"
    assert s.layer("rpn.head.cls_logits")["params"] == 256 * 15 + 15
