#!/usr/bin/python3
"""Breadth models exported by torch.onnx (torch 1.13), graph only, and
PyTorch's own parameter counts for them (issue 16: parameters are exactly
PyTorch's, from ONNX too). Written to tests/fixtures/breadth/ and committed;
python/tests/test_breadth_onnx.py only reads them.

    /usr/bin/python3 tools/make_breadth_models.py            # all (~2 min)
    /usr/bin/python3 tools/make_breadth_models.py gru        # a subset

Each model is randomly initialised after torch.manual_seed(0), put in eval
mode and exported like tools/make_fixtures.py's `nofold` variant
(TrainingMode.PRESERVE, no constant folding), its initializers moved to
external data and the data dropped (make_fixtures.save_graph_only). The
exporter writes literals of its own into these graphs as Constant nodes:
the zero initial state of every GRU/LSTM layer, GroupNorm's ones and
zeros (an InstanceNormalization over the groups), a detector's image
mean/std and anchors. The set: GRU, bidirectional LSTM, GroupNorm, two
detectors (Faster R-CNN, SSDlite), a segmenter (LR-ASPP) and a video
network (R3D-18). `breadth.expect.json` holds, per file,
`params` = sum(p.numel()) over model.parameters() and `buffers` =
sum(b.numel()) over the float buffers (BatchNorm running statistics),
counted in PyTorch, never with nnscan.
"""

import io
import json
import os
import sys
import warnings

import onnx
import torch
import torch.nn as nn
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_fixtures import save_graph_only  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "fixtures", "breadth")


class GRUNet(nn.Module):
    """Two stacked GRU layers and a Linear head."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(16, 32, num_layers=2, batch_first=True)
        self.fc = nn.Linear(32, 4)

    def forward(self, x):
        y, _ = self.gru(x)
        return self.fc(y)


class BiLSTMNet(nn.Module):
    """Two stacked bidirectional LSTM layers and a Linear head."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(16, 32, num_layers=2, batch_first=True,
                            bidirectional=True)
        self.fc = nn.Linear(64, 4)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.fc(y)


class GroupNormNet(nn.Module):
    """Conv + GroupNorm (4 groups) + ReLU, twice."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.GroupNorm(4, 16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1), nn.GroupNorm(4, 32), nn.ReLU())

    def forward(self, x):
        return self.body(x)


def detector():
    return torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn(
        weights=None, weights_backbone=None)


def ssd():
    return torchvision.models.detection.ssdlite320_mobilenet_v3_large(
        weights=None, weights_backbone=None)


def video():
    return torchvision.models.video.r3d_18(weights=None)


def segmenter():
    return torchvision.models.segmentation.lraspp_mobilenet_v3_large(
        weights=None, weights_backbone=None)


# name -> (constructor, example input, opset)
MODELS = {
    "gru": (GRUNet, lambda: torch.randn(1, 5, 16), 13),
    "lstm_bi": (BiLSTMNet, lambda: torch.randn(1, 5, 16), 13),
    "groupnorm": (GroupNormNet, lambda: torch.randn(1, 3, 32, 32), 13),
    # the detector takes a list of images; its eval graph ends in TopK/NMS
    "fasterrcnn_mobilenet_v3_large_320_fpn":
        (detector, lambda: [torch.randn(3, 320, 320)], 11),
    "ssdlite320_mobilenet_v3_large":
        (ssd, lambda: [torch.randn(3, 320, 320)], 11),
    "lraspp_mobilenet_v3_large":
        (segmenter, lambda: torch.randn(1, 3, 224, 224), 13),
    "r3d_18": (video, lambda: torch.randn(1, 3, 8, 112, 112), 13),
}


def counts(model):
    return {
        "params": sum(p.numel() for p in model.parameters()),
        "buffers": sum(b.numel() for b in model.buffers()
                       if b.is_floating_point()),
    }


def main(argv):
    names = argv or list(MODELS)
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "breadth.expect.json")
    expect = {}
    if os.path.exists(path):
        with open(path) as f:
            expect = json.load(f)
    for name in names:
        make, example, opset = MODELS[name]
        torch.manual_seed(0)
        model = make().eval()
        x = example()
        buf = os.path.join(OUT, name + ".onnx")
        data = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (x,), data, opset_version=opset,
                              training=torch.onnx.TrainingMode.PRESERVE,
                              do_constant_folding=False,
                              input_names=["input"])
        save_graph_only(onnx.load_from_string(data.getvalue()), buf)
        expect[name + ".onnx"] = counts(model)
        print("%-40s %s %d bytes" % (name, expect[name + ".onnx"],
                                      os.path.getsize(buf)))
    with open(path, "w") as f:
        json.dump(expect, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
