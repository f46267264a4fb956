"""Writes the HTML page of a real inspection: nnscan.Inspector (through
libnnscan's nns_inspection_report, NNS_FORMAT_HTML) on a small model whose
second block makes a NaN, two passes with backward. test_html.py opens it.

    NNSCAN_LIBRARY=libnnscan.so inspect_live.py OUT.html
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
import torch  # noqa: E402
from torch import nn  # noqa: E402

import nnscan  # noqa: E402


class MakesNaN(nn.Module):
    def forward(self, x):
        return x * float("nan")


def main(out):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16),
                          nn.Sequential(nn.ReLU(), MakesNaN(), nn.Linear(16, 4)))
    with nnscan.Inspector(model) as insp:
        for _ in range(2):
            model(torch.randn(3, 8)).sum().backward()
    with open(out, "w", encoding="utf-8") as f:
        f.write(insp.to_html())


if __name__ == "__main__":
    main(sys.argv[1])
