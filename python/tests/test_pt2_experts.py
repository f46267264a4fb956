"""Mixture-of-experts layers of a torch.export archive, found by the
library from the routing (src/analyze/routing.c), with no Python: a
router's top-k over E selecting among E experts counts them at k of E
in params_active; a top-k beside E heads that it does not route among
counts every parameter. References: sum(p.numel()) and the experts'
share by hand (k/E of their parameters). Needs PyTorch 2.x."""
import pytest

torch = pytest.importorskip("torch")
if not hasattr(torch, "export") or not hasattr(torch.export, "save"):
    pytest.skip("torch.export needs PyTorch 2.x", allow_module_level=True)

from test_generate import Block, GroupedMoE, ListMoE  # noqa: E402
from test_moe_routing import DENSE  # noqa: E402
from test_pt2 import archive_json  # noqa: E402


class _Tuple(torch.nn.Module):
    """model's output as a plain tuple (torch.export cannot save topk's
    named tuple); its parameters keep their names under `m`."""

    def __init__(self, model):
        super().__init__()
        self.m = model

    def forward(self, x):
        out = self.m(x)
        return tuple(out) if isinstance(out, tuple) else out


def _export(model, x):
    with torch.no_grad():
        return torch.export.export(_Tuple(model), (x,))


@pytest.mark.parametrize("cls,shape", DENSE,
                         ids=[c.__name__ for c, _ in DENSE])
def test_topk_beside_heads_is_dense(cls, shape, tmp_path):
    torch.manual_seed(0)
    model = cls().eval()
    total = sum(p.numel() for p in model.parameters())
    doc = archive_json(_export(model, torch.randn(*shape)), tmp_path, "m")
    assert doc["totals"]["params"] == total
    assert doc["totals"].get("params_active", total) == total


@pytest.mark.parametrize("k", [1, 2])
def test_stacked_experts_count_k_of_e(k, tmp_path):
    torch.manual_seed(0)
    block = Block(GroupedMoE(n=4, k=k)).eval()
    total = sum(p.numel() for p in block.parameters())
    experts = sum(p.numel() for p in block.moe.experts.parameters())
    doc = archive_json(_export(block, torch.randn(1, 6, 8)), tmp_path, "m")
    assert doc["totals"]["params"] == total
    assert doc["totals"]["params_active"] == total - experts + experts * k // 4


def test_expert_list_counts_k_of_e(tmp_path):
    """One module per expert, called on the rows routed to it (the rows
    are data: the archive holds unbacked sizes)."""
    torch.manual_seed(0)
    block = Block(ListMoE(n=4, k=2)).eval()
    try:
        ep = _export(block, torch.randn(1, 6, 8))
    except Exception as e:  # noqa: BLE001 - torch.export's own limit
        pytest.skip(f"torch.export refuses the data-dependent routing: {e}")
    total = sum(p.numel() for p in block.parameters())
    experts = sum(p.numel() for p in block.moe.experts.parameters())
    doc = archive_json(ep, tmp_path, "m")
    assert doc["totals"]["params"] == total
    assert doc["totals"]["params_active"] == total - experts + experts // 2
