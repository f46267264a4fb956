"""TorchScript functions inside a recorded forward: every summary of the
model records them as PyTorch's first call runs them (recorder._run turns
TorchScript's optimized execution off while it records)."""
import json
import pytest
torch = pytest.importorskip("torch")
from torch import nn
import nnscan


@torch.jit.script
def _scale(x: torch.Tensor, k: int):
    return torch.sqrt(torch.tensor(x.size(-1), dtype=torch.float) * k)


class Scripted(nn.Module):
    """A TorchScript function in the forward, as DeBERTa's attention
    scale (scaled_size_sqrt): a CPU scalar from a size, times a factor,
    its square root."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return self.fc(x) / _scale(x, 2).to(x.dtype)


def test_scripted_function_counts_the_same_every_summary():
    """TorchScript runs a function's first calls op by op and later ones
    optimized, fewer ops through the dispatcher: each summary records it
    as the first call runs (the Mul and the Sqrt on the scale), so the
    third summary in a process reports what the first did."""
    m = Scripted()
    got = [nnscan.summary(m, inputs=(torch.randn(2, 8),), file=False)
           for _ in range(4)]
    texts = [s.to_json(version=2) for s in got]
    assert texts[1:] == texts[:-1]
    ops = {o["op_type"] for o in json.loads(texts[-1])["op_types"]}
    assert {"Mul", "Sqrt", "Div"} <= ops
