#!/usr/bin/python3
"""Makes the two dynamic-batch models of the CLI's diff test (committed
under tests/cli/; the tests never run this). Needs /usr/bin/python3 with
python3-torch; run from anywhere.

diff_a.onnx: x[batch, 8] -> Linear(8, 16) -> ReLU -> Linear(16, 4) -> y
diff_b.onnx: the same with 17 hidden units

Both export the batch as the symbolic dim "batch", as a deployed model
does, so nnscan counts them with batch taken as 1. The MACs by hand, at
batch 1 (a Gemm of M x K by K x N is M*K*N multiply-adds; the bias adds
and ReLU are no MACs): A 8*16 + 16*4 = 192, B 8*17 + 17*4 = 204, a delta
of +12 MACs, +6.25%: over a 'macs > +5%' budget, within 'macs > +10%'.
"""
import pathlib

import torch

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "cli"


def export(hidden, name):
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(8, hidden), torch.nn.ReLU(),
                            torch.nn.Linear(hidden, 4)).eval()
    torch.onnx.export(m, (torch.zeros(2, 8),), str(OUT / name),
                      input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}},
                      opset_version=13)


if __name__ == "__main__":
    export(16, "diff_a.onnx")
    export(17, "diff_b.onnx")
