"""Writes the HTML page of a real inspection: nnscan.Inspector (through
libnnscan's nns_inspection_report, NNS_FORMAT_HTML) on a small model whose
block makes a NaN in its own code, two passes with backward, static
counts from static_inputs= and the roofline on h100-sxm (hardware=).
test_html.py opens it.

    NNSCAN_LIBRARY=libnnscan.so inspect_live.py OUT.html
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
    main(sys.argv[1])
