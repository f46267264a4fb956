"""Whole models exported with torch.export.export + torch.export.save,
static and with a dynamic batch (and sequence, for text), read by the CLI
with no Python (`nnscan summary X.pt2 --format json --json-version 2`,
`--input` at the live sizes), each compared by tools/pt2_sweep.py's
run_one: every total of the report (params, buffers, FLOPs, MACs, memory
accesses, activations, memory, the training estimate) and every op-type
row equal to nnscan.summary of the same live model, params equal to
sum(p.numel()), matrix-product MACs equal to FlopCounterMode's. A handful
of models, each for a lowering the sweep found wrong: in-place dropout_
and Hardswish (MobileNetV3), auxiliary heads an eval forward skips
(GoogLeNet), Linear on 4-D maps and a channels-last global pool
(ConvNeXt). Needs PyTorch 2.x (the sid chroot)."""
import os
import sys

import pytest

torch = pytest.importorskip("torch")
if not hasattr(torch, "export") or not hasattr(torch.export, "save"):
    pytest.skip("torch.export needs PyTorch 2.x", allow_module_level=True)
pytest.importorskip("torchvision")

from test_pt2 import cli  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools"))
import pt2_sweep  # noqa: E402

MODELS = ["mobilenet_v3_small", "googlenet", "convnext_tiny"]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("mode", ["static", "dynamic"])
@pytest.mark.parametrize("name", MODELS)
def test_pt2_model_equal_live(name, mode, tmp_path):
    torch.manual_seed(0)
    case = pt2_sweep.Case(name)
    row = pt2_sweep.run_one(case, mode, cli(), str(tmp_path))
    assert row["diffs"] == []
    assert row["params"] == sum(p.numel() for p in case.model.parameters()
                                if p.requires_grad)
