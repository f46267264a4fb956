"""Small models exported with torch.export for the .pt2 reader's tests and
fixtures (tools/make_pt2_fixtures.py, python/tests/test_pt2.py): a CNN
with a dynamic batch, torchvision's resnet18 (random weights), and a tiny
LLaMA-style decoder (python/tests/tiny_llama.py) with dynamic batch and
sequence. Each entry gives the model, its example inputs and the dynamic
shapes torch.export.export takes. Needs PyTorch 2.x."""
import os
import sys

import torch
from torch import nn
import torch.nn.functional as F


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1, bias=False)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


def small_cnn():
    batch = torch.export.Dim("batch", min=1, max=1024)
    return (SmallCNN().eval(), (torch.randn(2, 3, 32, 32),),
            {"x": {0: batch}})


def resnet18():
    import torchvision
    m = torchvision.models.resnet18(weights=None).eval()
    return m, (torch.randn(1, 3, 224, 224),), None


def tiny_llama():
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "python", "tests")
    sys.path.insert(0, here)
    import tiny_llama as tl
    m = tl.LlamaForCausalLM(layers=2, hidden=64, inter=128, heads=4,
                            vocab=100).eval()
    batch = torch.export.Dim("batch", min=1, max=64)
    seq = torch.export.Dim("seq", min=2, max=512)
    ids = torch.randint(0, 100, (2, 16))
    return m, (ids,), {"input_ids": {0: batch, 1: seq}}


MODELS = {"small_cnn": small_cnn, "resnet18": resnet18,
          "tiny_llama": tiny_llama}


def export(name, path):
    """Exports MODELS[name] to `path`; returns (model, example args)."""
    model, args, dyn = MODELS[name]()
    ep = torch.export.export(model, args, dynamic_shapes=dyn)
    torch.export.save(ep, path)
    return model, args
